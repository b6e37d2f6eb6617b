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
        all.extend(Scenario::load_dir(dir)?);
    }
    Ok(all)
}
