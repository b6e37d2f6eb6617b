//! Grading (the command without a subcommand): the harness is built, every
//! check runs its jobs in harness processes, the verdicts are scored with the
//! rubric, then the report is written in the chosen format. Code that does
//! not compile is an ordinary report: score 0, the compiler's first errors.

use std::process::ExitCode;
use std::time::Instant;

use crate::checks::Catalog;
use crate::cli::Cli;
use crate::commands::{fixture_failure, harness, implementation, load_scenarios};
use crate::report;
use crate::report::gradescope::FIXED_TIME_ENV;
use crate::report::sheet::Sheet;
use crate::rubric::Rubric;
use crate::variants::Plan;
use crate::verdict::Exercise;
use crate::{grading, output, paths, submission};

/// Grades the implementation `cli` chooses and writes the report
/// (`--format`, `--output`). Exit 0 when every check passed, 1 otherwise
/// (also when the code does not compile), 2 for bad fixtures, rubric,
/// variants or an `exercises` crate that depends on `solutions`.
pub fn run(cli: &Cli) -> ExitCode {
    let started = Instant::now();
    let mut scenarios = match load_scenarios(cli) {
        Ok(s) => s,
        Err(e) => return fixture_failure(e),
    };
    let plan = match Plan::from_cli(cli) {
        Ok(p) => p,
        Err(message) => return usage_failure(&message),
    };
    scenarios.extend(plan.scenarios());
    let mut catalog = Catalog::new(scenarios, &exercises(cli));
    catalog.add_model_variants(&plan.variants);
    let which = match implementation(cli) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let manifest = paths::repo_root().join("exercises").join("Cargo.toml");
    if let Err(message) =
        submission::refuse_solutions_dependency_in(&manifest, "exercises/Cargo.toml")
    {
        return usage_failure(&message);
    }
    let rubric = match Rubric::from_option(cli.rubric.as_ref()) {
        Ok(r) => r,
        Err(e) => return usage_failure(&e.to_string()),
    };
    let graded = match harness(cli, which) {
        Ok(h) => {
            let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
            grading::grade(&catalog, &h, which.crate_name(), workers)
        }
        Err(cause) => grading::not_compiled(&catalog, which.crate_name(), &cause),
    };
    let mut sheet = Sheet::new(&graded, &rubric, &plan, &repro_args(cli));
    sheet.elapsed_secs = execution_time(started);
    let text = report::render(&sheet, cli.format);
    match &cli.output {
        None => output::print_stdout(&text),
        Some(path) => {
            if let Err(e) = std::fs::write(path, output::strip_colours(&text)) {
                return usage_failure(&format!(
                    "--output {}: no se pudo escribir el informe: {}",
                    path.display(),
                    output::io_error(&e)
                ));
            }
        }
    }
    if graded.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// The exercises of `--ejercicio` (all when none), each once, in the order
/// students work through them.
pub fn exercises(cli: &Cli) -> Vec<Exercise> {
    Exercise::ALL
        .into_iter()
        .filter(|e| cli.exercises.iter().any(|name| name == e.id()))
        .collect()
}

/// The arguments a reproduction command repeats: `--solutions` and a
/// `--timeout` other than the default.
fn repro_args(cli: &Cli) -> Vec<String> {
    let mut args = Vec::new();
    if cli.solutions {
        args.push("--solutions".to_string());
    }
    if cli.timeout.as_millis() != 5000 {
        args.push(format!("--timeout {}", cli.timeout.as_secs_f64()));
    }
    args
}

/// Whole seconds since `started`, rounded up, unless [`FIXED_TIME_ENV`]
/// fixes them.
fn execution_time(started: Instant) -> u64 {
    if let Some(fixed) = std::env::var(FIXED_TIME_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        return fixed;
    }
    started.elapsed().as_secs_f64().ceil() as u64
}

fn usage_failure(message: &str) -> ExitCode {
    eprintln!("grader: {message}");
    ExitCode::from(2)
}
