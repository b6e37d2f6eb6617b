//! `cargo run -p grader`: grades `exercises` (or `--solutions`) and prints
//! the Spanish report; `escenario` prints the lesson's tables.
//!
//! Exit status: 0 everything passed, 1 something failed or is pending, 2 bad
//! arguments or fixtures.

use std::process::ExitCode;

use grader::checks::Catalog;
use grader::cli::{self, Cli, Command};
use grader::commands::escenario;
use grader::isolation::{self, Runner};
use grader::verdict::Verdict;
use grader::{grading, output, paths, report};
use sim::{FixtureError, Kit, Scenario};

fn main() -> ExitCode {
    let cli = cli::parse();
    #[cfg(feature = "solutions")]
    if cli.solutions {
        return run::<solutions::Solutions>(&cli);
    }
    #[cfg(not(feature = "solutions"))]
    if cli.solutions {
        eprintln!(
            "grader: esta copia del kit no incluye solutions/ (es la plantilla del estudiante)."
        );
        return ExitCode::from(2);
    }
    run::<exercises::Exercises>(&cli)
}

/// Prints a fixture error (paths relative to the repository) and gives 2.
fn fixture_failure(mut e: FixtureError) -> ExitCode {
    e.file = paths::display(&e.file).into();
    eprintln!("grader: {e}");
    ExitCode::from(2)
}

/// The scenarios to grade: the kit's fixtures, then each `--fixtures` folder.
fn load_scenarios(cli: &Cli) -> Result<Vec<Scenario>, FixtureError> {
    let mut all = Scenario::load_dir(&paths::fixtures_dir())?;
    for dir in &cli.fixtures {
        all.extend(Scenario::load_dir(dir)?);
    }
    Ok(all)
}

fn run<K: Kit>(cli: &Cli) -> ExitCode {
    match &cli.command {
        None => grade::<K>(cli),
        Some(Command::Escenario { nombre }) => scenario_tables::<K>(cli, nombre.as_deref()),
    }
}

fn grade<K: Kit>(cli: &Cli) -> ExitCode {
    let scenarios = match load_scenarios(cli) {
        Ok(s) => s,
        Err(e) => return fixture_failure(e),
    };
    let catalog = Catalog::new(scenarios, &[]);
    if let Some(id) = isolation::child_check_id() {
        isolation::child_check::<K>(&catalog, &id);
        return ExitCode::SUCCESS;
    }
    let graded = grading::grade_isolated::<K>(&catalog, &Runner::this_process(cli.timeout));
    output::print_stdout(&report::text::render(&graded));
    if graded.all_passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

const TABLE_JOB: &str = "escenario:";

fn scenario_tables<K: Kit>(cli: &Cli, name: Option<&str>) -> ExitCode {
    let scenarios = match name {
        Some(n) => Scenario::load(&escenario::resolve(n, &cli.fixtures)).map(|s| vec![s]),
        None => load_scenarios(cli),
    };
    let scenarios = match scenarios {
        Ok(s) => s,
        Err(e) => return fixture_failure(e),
    };
    if let Some(job) = isolation::child_check_id() {
        let i: usize = job.trim_start_matches(TABLE_JOB).parse().unwrap_or(0);
        isolation::child_respond(|| escenario::table::<K>(&scenarios[i.min(scenarios.len() - 1)]));
        return ExitCode::SUCCESS;
    }
    let runner = Runner::this_process(cli.timeout);
    let mut ok = true;
    let mut text = String::new();
    for (i, scenario) in scenarios.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        match runner.run_job(&format!("{TABLE_JOB}{i}")) {
            Ok(serde_json::Value::String(table)) => {
                text.push_str(&table);
                if K::CRATE == "exercises" {
                    if let Some(expected) = escenario::expected(&scenario.name) {
                        match escenario::compare(&expected, &table) {
                            None => text.push_str(
                                "\n  \x1b[32m✓ Coincide con la salida de la lección.\x1b[0m\n",
                            ),
                            Some(diff) => {
                                ok = false;
                                text.push('\n');
                                text.push_str(&diff);
                            }
                        }
                    }
                }
            }
            Ok(_) => unreachable!("a table job answers with text"),
            Err(v) => {
                ok = false;
                text.push_str(&format!(
                    "{}\n  No se pudo correr el escenario {}:\n",
                    scenario.title, scenario.name
                ));
                for line in explain(&v) {
                    text.push_str(&format!("    {line}\n"));
                }
            }
        }
    }
    output::print_stdout(&text);
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn explain(v: &Verdict) -> Vec<String> {
    v.explanation()
}
