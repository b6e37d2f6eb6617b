//! `grader comparar [FIXTURE]`: the final project's before and after (lesson
//! 2: "el 'antes' contra el cual medirás tu 'después' en el proyecto final").
//! The two worlds run in two harness processes; lesson 4's race of two
//! retries at once follows them ([`race`]).

use std::process::ExitCode;

use judge::fixture::Scenario;

use crate::before_after::comparison::{self, Compared};
use crate::before_after::{fleet, race};
use crate::cli::{Cli, CompararArgs};
use crate::commands;
use crate::progress::Progress;
use judge::output;
use judge::runner::Execute;

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
    let h = match commands::harness(cli, which) {
        Ok(h) => h,
        Err(cause) => return commands::build_failure(&cause),
    };
    let Compared { worlds, doubts } = match compare(&h, &scenario) {
        Ok(c) => c,
        Err(code) => return code,
    };
    // Lesson 4's race, with the implementation's store (exercise 4): a
    // `todo!()` is told as pending and never builds the explorer.
    // `--sin-carrera`: the fleet alone (the benchmark against the lesson's
    // Python model, which has no race).
    let race = (!args.sin_carrera).then(|| race::run(&h));
    let text = if args.json {
        let mut value = comparison::to_json(&scenario, which.crate_name(), &worlds);
        if !doubts.is_empty() {
            value["avisos"] = serde_json::json!(doubts);
        }
        if let Some(race) = &race {
            value["carrera"] = race::to_json(race.as_ref());
        }
        serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
    } else {
        let mut text = comparison::render(&scenario, which.crate_name(), &worlds);
        text.push_str(&comparison::doubts_section(&doubts));
        if let Some(race) = &race {
            text.push_str(&race::section(race.as_ref()));
        }
        text
    };
    output::print_stdout(&text);
    ExitCode::SUCCESS
}

/// Both worlds of `scenario` in harness processes. `Err` carries the exit
/// status after explaining the failure.
fn compare(h: &dyn Execute, scenario: &Scenario) -> Result<Compared, ExitCode> {
    let message = format!(
        "comparando {} órdenes en los dos mundos",
        sim::money::group_thousands(scenario.fleet.order_count())
    );
    comparison::run_worlds(h, scenario, &Progress::spinner(&message))
        .map_err(|verdict| comparison::explain_failure("comparar", &verdict))
}
