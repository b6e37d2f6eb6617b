//! Grading (the command without a subcommand): every check in its own child
//! process, then the report.

use std::process::ExitCode;

use sim::Kit;

use crate::checks::Catalog;
use crate::cli::Cli;
use crate::commands::{fixture_failure, load_scenarios};
use crate::isolation::{self, Runner};
use crate::{grading, output, report};

/// Grades `K` and prints the Spanish report; in a child process, runs the one
/// check it was started for instead.
pub fn run<K: Kit>(cli: &Cli) -> ExitCode {
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
