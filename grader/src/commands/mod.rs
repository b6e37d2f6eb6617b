//! The grader's commands: grading (no subcommand) and `escenario`. Each takes
//! the parsed command line and the implementation to run, and returns the
//! exit status (0 passed, 1 failed or pending, 2 bad arguments or fixtures).

pub mod barrido;
pub mod comparar;
pub mod escenario;
pub mod grade;

use std::process::ExitCode;

use sim::{FixtureError, Scenario};

use crate::cli::Cli;
use crate::paths;

/// Prints a fixture error (paths relative to the repository) and gives 2.
pub fn fixture_failure(mut e: FixtureError) -> ExitCode {
    e.file = paths::display(&e.file).into();
    eprintln!("grader: {e}");
    ExitCode::from(2)
}

/// The scenarios to grade: the kit's fixtures, then each `--fixtures` folder.
///
/// # Errors
/// The first malformed fixture or unreadable folder.
pub fn load_scenarios(cli: &Cli) -> Result<Vec<Scenario>, FixtureError> {
    let mut all = Scenario::load_dir(&paths::fixtures_dir())?;
    for dir in &cli.fixtures {
        for scenario in Scenario::load_dir(dir)? {
            // Check ids carry the scenario's name: two with one name would
            // grade only the first.
            if all.iter().any(|s| s.name == scenario.name) {
                return Err(FixtureError {
                    file: dir.join(format!("{}.toml", scenario.name)),
                    position: None,
                    field: None,
                    message: format!(
                        "ya hay un escenario llamado «{}» (en fixtures/ o en otra carpeta de --fixtures); renombra el archivo",
                        scenario.name
                    ),
                });
            }
            all.push(scenario);
        }
    }
    Ok(all)
}
