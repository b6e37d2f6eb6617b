//! `grader comparar [FIXTURE]`: the final project's before and after (lesson
//! 2: "el 'antes' contra el cual medirás tu 'después' en el proyecto final").
//! The student's code runs in a child process; `--solutions` runs the
//! reference in this process.

use std::process::ExitCode;

use clap::Args;
use sim::{Kit, Scenario};

use crate::cli::Cli;
use crate::comparison::{self, Worlds};
use crate::fleet::{self, FleetArgs};
use crate::isolated_job;
use crate::isolation::{self, Runner};
use crate::output;
use crate::progress::Progress;

/// The prefix of the child jobs that run each world (`comparar:antes`,
/// `comparar:despues`).
const JOB: &str = "comparar:";

/// `comparar`'s arguments.
#[derive(Args, Debug, Clone, Default)]
#[command(
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    allow_negative_numbers = true,
    override_usage = "cargo run -p grader -- comparar [FIXTURE] [OPCIONES]",
    next_help_heading = "Opciones",
    next_display_order = 1000
)]
pub struct CompararArgs {
    /// Fixture a comparar: nombre (p. ej. flota-1000, el de la lección y el
    /// valor por omisión) o ruta a un .toml.
    #[arg(value_name = "FIXTURE", help_heading = "Argumentos")]
    pub escenario: Option<String>,

    #[command(flatten)]
    pub flota: FleetArgs,

    /// Imprime las mismas cifras en JSON (dinero en centavos) en vez de la
    /// tabla.
    #[arg(long)]
    pub json: bool,
}

/// Runs `comparar` with implementation `K`: exit 0 with the table (or JSON),
/// 1 when the student's code could not run (pending, panic, time limit), 2
/// for a bad fixture or flag.
pub fn run<K: Kit>(cli: &Cli, args: &CompararArgs) -> ExitCode {
    let scenario = match fleet::load(args.escenario.as_deref(), &cli.fixtures, &args.flota) {
        Ok(s) => s,
        Err(message) => {
            eprintln!("grader: {message}");
            return ExitCode::from(2);
        }
    };
    if let Some(id) = isolation::child_check_id() {
        if !isolated_job::answer_world::<K>(&id, JOB, &scenario) {
            eprintln!("grader: trabajo desconocido para comparar: {id}");
        }
        return ExitCode::SUCCESS;
    }
    let worlds = match compare::<K>(cli, &scenario) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let text = if args.json {
        let value = comparison::to_json(&scenario, K::CRATE, &worlds);
        serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
    } else {
        comparison::render(&scenario, K::CRATE, &worlds)
    };
    output::print_stdout(&text);
    ExitCode::SUCCESS
}

/// Both worlds of `scenario`: the reference in this process, anything else in
/// a child. `Err` carries the exit status after explaining the failure.
fn compare<K: Kit>(cli: &Cli, scenario: &Scenario) -> Result<Worlds, ExitCode> {
    let orders = scenario.order_count();
    let message = format!(
        "comparando {} órdenes en los dos mundos",
        sim::money::group_thousands(orders)
    );
    if K::CRATE == "solutions" {
        let progress = Progress::bar(2 * orders, &message);
        return Ok(comparison::run_worlds::<K>(scenario, &progress));
    }
    let mut runner = Runner::this_process(cli.timeout);
    runner.timeout = isolated_job::limit_for(cli.timeout, orders);
    isolated_job::worlds(&runner, JOB, &Progress::spinner(&message))
        .map_err(|verdict| isolated_job::explain_failure("comparar", &verdict))
}
