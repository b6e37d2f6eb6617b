//! `grader comparar [FIXTURE]`: the final project's before and after (lesson
//! 2: "el 'antes' contra el cual medirás tu 'después' en el proyecto final").
//! The two worlds run in two harness processes.

use std::process::ExitCode;

use crate::fixture::Scenario;

use crate::before_after::comparison::{self, Worlds};
use crate::before_after::fleet;
use crate::cli::{Cli, CompararArgs};
use crate::commands;
use crate::output;
use crate::progress::Progress;
use crate::runner::build::Implementation;

/// Runs `comparar` with implementation `K`: exit 0 with the table (or JSON),
/// 1 when the student's code could not run (pending, panic, time limit), 2
/// for a bad fixture or flag.
pub fn run(cli: &Cli, args: &CompararArgs) -> ExitCode {
    let scenario = match fleet::load(args.escenario.as_deref(), &cli.fixtures, &args.flota) {
        Ok(s) => s,
        Err(message) => {
            eprintln!("grader: {message}");
            return ExitCode::from(2);
        }
    };
    let which = match commands::implementation(cli) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let worlds = match compare(cli, which, &scenario) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let text = if args.json {
        let value = comparison::to_json(&scenario, which.crate_name(), &worlds);
        serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
    } else {
        comparison::render(&scenario, which.crate_name(), &worlds)
    };
    output::print_stdout(&text);
    ExitCode::SUCCESS
}

/// Both worlds of `scenario` in harness processes. `Err` carries the exit
/// status after explaining the failure.
fn compare(cli: &Cli, which: Implementation, scenario: &Scenario) -> Result<Worlds, ExitCode> {
    let h = commands::harness(cli, which).map_err(|cause| commands::build_failure(&cause))?;
    let message = format!(
        "comparando {} órdenes en los dos mundos",
        sim::money::group_thousands(scenario.fleet.order_count())
    );
    comparison::run_worlds(&h, scenario, &Progress::spinner(&message))
        .map_err(|verdict| comparison::explain_failure("comparar", &verdict))
}
