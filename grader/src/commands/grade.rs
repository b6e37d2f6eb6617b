//! Grading (the command without a subcommand): every check in its own child
//! process, scored with the rubric, then the report in the chosen format.

use std::process::ExitCode;
use std::time::Instant;

use sim::Kit;

use crate::checks::Catalog;
use crate::cli::Cli;
use crate::commands::{fixture_failure, load_scenarios};
use crate::isolation::{self, Runner};
use crate::report;
use crate::report::gradescope::FIXED_TIME_ENV;
use crate::report::sheet::Sheet;
use crate::rubric::Rubric;
use crate::variants::Plan;
use crate::verdict::Exercise;
use crate::{grading, output, paths, submission};

/// Grades `K` and writes the report (`--format`, `--output`); in a child
/// process, runs the one check it was started for instead. Exit 0 when every
/// check passed, 1 otherwise, 2 for bad fixtures, rubric, variants or an
/// `exercises` crate that depends on `solutions`.
pub fn run<K: Kit>(cli: &Cli) -> ExitCode {
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
    let catalog = Catalog::new(scenarios, &exercises(cli));
    if let Some(id) = isolation::child_check_id() {
        isolation::child_check::<K>(&catalog, &id);
        return ExitCode::SUCCESS;
    }
    if K::CRATE == "exercises" {
        let manifest = paths::repo_root().join("exercises").join("Cargo.toml");
        if let Err(message) =
            submission::refuse_solutions_dependency_in(&manifest, "exercises/Cargo.toml")
        {
            return usage_failure(&message);
        }
    }
    let rubric = match Rubric::from_option(cli.rubric.as_ref()) {
        Ok(r) => r,
        Err(e) => return usage_failure(&e.to_string()),
    };
    let graded = grading::grade_isolated::<K>(&catalog, &Runner::this_process(cli.timeout));
    let mut sheet = Sheet::new(&graded, &rubric, &plan, &repro_args(cli));
    sheet.elapsed_secs = execution_time(started);
    let text = report::render(&sheet, cli.format);
    match &cli.output {
        None => output::print_stdout(&text),
        Some(path) => {
            if let Err(e) = std::fs::write(path, output::strip_colours(&text)) {
                return usage_failure(&format!(
                    "--output {}: no se pudo escribir el informe: {e}",
                    path.display()
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

/// The exercises of `--ejercicio` (all when none).
pub fn exercises(cli: &Cli) -> Vec<Exercise> {
    cli.exercises
        .iter()
        .filter_map(|e| Exercise::from_id(e))
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
