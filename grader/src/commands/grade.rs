//! Grading (the command without a subcommand): every check in its own child
//! process, scored with the rubric, then the report in the chosen format.

use std::ffi::OsString;
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
    let mut runner = Runner::this_process(cli.timeout);
    runner.args = child_args(std::env::args_os().skip(1), &plan);
    let graded = grading::grade_isolated::<K>(&catalog, &runner);
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

/// The arguments of a child process: this command line without the master
/// seed of the hidden variants (`--variantes N`, `--semilla S`,
/// `--archivo-semilla RUTA`, their aliases), plus one `--variante SEED` per planned variant. A child builds
/// the same catalog, yet student code running in it never sees the
/// instructor's secret seed (the secret environment variable is removed by
/// [`Runner`] as well).
pub fn child_args(args: impl IntoIterator<Item = OsString>, plan: &Plan) -> Vec<OsString> {
    const MASTER: [&str; 6] = [
        "--variantes",
        "--variants",
        "--semilla",
        "--seed",
        "--archivo-semilla",
        "--seed-file",
    ];
    let mut out = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let text = arg.to_string_lossy();
        if MASTER.contains(&text.as_ref()) {
            args.next();
            continue;
        }
        if MASTER.iter().any(|m| text.starts_with(&format!("{m}="))) {
            continue;
        }
        out.push(arg);
    }
    for v in &plan.variants {
        out.push("--variante".into());
        out.push(v.seed.to_string().into());
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn children_get_variant_seeds_never_the_master_seed() {
        let plan = Plan::from_parts(Some(2), Some(987_654_321), &[], None).unwrap();
        let args = [
            "--variantes",
            "2",
            "--semilla=987654321",
            "--format",
            "junit",
            "--seed",
            "987654321",
            "--variants=2",
            "--archivo-semilla",
            "/tmp/semilla",
            "--seed-file=/tmp/semilla",
        ];
        let got: Vec<String> = child_args(args.iter().map(OsString::from), &plan)
            .into_iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert!(!got.iter().any(|a| a.contains("987654321")), "{got:?}");
        assert!(!got.iter().any(|a| a.contains("semilla")), "{got:?}");
        let seeds: Vec<String> = plan.variants.iter().map(|v| v.seed.to_string()).collect();
        let want = [
            "--format".to_string(),
            "junit".to_string(),
            "--variante".to_string(),
            seeds[0].clone(),
            "--variante".to_string(),
            seeds[1].clone(),
        ];
        assert_eq!(got, want);
        // The child's plan, built from those arguments, has the same variants.
        let child = Plan::from_parts(
            None,
            None,
            &[plan.variants[0].seed, plan.variants[1].seed],
            None,
        )
        .unwrap();
        assert_eq!(child.variants, plan.variants);
    }
}
