//! `grader barrido [FIXTURE]`: the fleet at several loss probabilities, same
//! seeds, both worlds, next to the model's expected overcharge; `--svg` draws
//! it. The student's code runs in one child process per probability;
//! `--solutions` runs the reference in this process.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use sim::{Kit, Scenario};

use crate::cli::Cli;
use crate::comparison::{self, Worlds};
use crate::fleet::{self, FleetArgs};
use crate::isolation::{self, Runner};
use crate::progress::Progress;
use crate::sweep::{self, SweepPoint, SweepRange};
use crate::{chart, isolated_job, output, paths};

/// The child job that runs point N of the sweep.
const JOB: &str = "barrido:";

/// `barrido`'s arguments.
#[derive(Args, Debug, Clone)]
#[command(
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    allow_negative_numbers = true,
    override_usage = "cargo run -p grader -- barrido [FIXTURE] [OPCIONES]",
    next_help_heading = "Opciones",
    next_display_order = 1000
)]
pub struct BarridoArgs {
    /// Fixture a barrer: nombre (p. ej. flota-1000, el valor por omisión) o
    /// ruta a un .toml; necesita pérdidas aleatorias.
    #[arg(value_name = "FIXTURE", help_heading = "Argumentos")]
    pub escenario: Option<String>,

    #[command(flatten)]
    pub rango: SweepRange,

    #[command(flatten)]
    pub flota: FleetArgs,

    /// Escribe además el gráfico (sobrecobro contra probabilidad de pérdida)
    /// en ARCHIVO, en SVG.
    #[arg(long, value_name = "ARCHIVO")]
    pub svg: Option<PathBuf>,

    /// Imprime las cifras en JSON (dinero en centavos) en vez de la tabla.
    #[arg(long)]
    pub json: bool,
}

/// Runs `barrido` with implementation `K`: exit 0 with the table (and the
/// chart), 1 when the student's code could not run, 2 for a bad fixture,
/// flag or chart path.
pub fn run<K: Kit>(cli: &Cli, args: &BarridoArgs) -> ExitCode {
    let (scenario, probabilities) = match setup(cli, args) {
        Ok(s) => s,
        Err(message) => {
            eprintln!("grader: {message}");
            return ExitCode::from(2);
        }
    };
    if let Some(id) = isolation::child_check_id() {
        let point = id
            .strip_prefix(JOB)
            .and_then(|rest| rest.split_once(':'))
            .and_then(|(i, _)| i.parse::<usize>().ok());
        let answered = point.is_some_and(|i| {
            let p = probabilities[i.min(probabilities.len() - 1)];
            let at = sweep::at(&scenario, p).unwrap_or_else(|_| scenario.clone());
            isolated_job::answer_world::<K>(&id, &format!("{JOB}{i}:"), &at)
        });
        if !answered {
            eprintln!("grader: trabajo desconocido para barrido: {id}");
        }
        return ExitCode::SUCCESS;
    }
    let points = match sweep_points::<K>(cli, &scenario, &probabilities) {
        Ok(points) => points,
        Err(code) => return code,
    };
    if let Some(path) = &args.svg {
        let written = chart::svg(&scenario, K::CRATE, &points)
            .and_then(|svg| std::fs::write(path, svg).map_err(|e| crate::output::io_error(&e)));
        match written {
            Ok(()) => eprintln!("grader: gráfico escrito en {}", paths::display(path)),
            Err(e) => {
                eprintln!(
                    "grader: --svg {}: no se pudo escribir el gráfico: {e}",
                    path.display()
                );
                return ExitCode::from(2);
            }
        }
    }
    let text = if args.json {
        let value = sweep::to_json(&scenario, K::CRATE, &points);
        serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
    } else {
        sweep::render(&scenario, K::CRATE, &points)
    };
    output::print_stdout(&text);
    ExitCode::SUCCESS
}

/// The scenario (fixture plus flags) and the probabilities to sweep.
fn setup(cli: &Cli, args: &BarridoArgs) -> Result<(Scenario, Vec<f64>), String> {
    if args.flota.p_perdida.is_some() {
        return Err(
            "--p-perdida no se usa en barrido: elige las probabilidades con --desde, --hasta y --paso"
                .to_string(),
        );
    }
    let scenario = fleet::load(args.escenario.as_deref(), &cli.fixtures, &args.flota)?;
    let probabilities = args.rango.probabilities()?;
    sweep::at(&scenario, probabilities[0])?;
    Ok((scenario, probabilities))
}

/// Both worlds of `scenario` at loss probability `p`.
fn worlds_at<K: Kit>(scenario: &Scenario, p: f64, progress: &Progress) -> Worlds {
    let at = sweep::at(scenario, p).unwrap_or_else(|_| scenario.clone());
    comparison::run_worlds::<K>(&at, progress)
}

/// Every point: the reference in this process, anything else one child per
/// point. `Err` carries the exit status after explaining the failure.
fn sweep_points<K: Kit>(
    cli: &Cli,
    scenario: &Scenario,
    probabilities: &[f64],
) -> Result<Vec<SweepPoint>, ExitCode> {
    let orders = scenario.order_count();
    let message = format!(
        "barriendo {} probabilidades con {} órdenes",
        probabilities.len(),
        sim::money::group_thousands(orders)
    );
    if K::CRATE == "solutions" {
        let progress = Progress::bar(2 * orders * probabilities.len() as u64, &message);
        return Ok(probabilities
            .iter()
            .map(|&p| SweepPoint {
                p,
                worlds: worlds_at::<K>(scenario, p, &progress),
            })
            .collect());
    }
    let mut runner = Runner::this_process(cli.timeout);
    runner.timeout = isolated_job::limit_for(cli.timeout, orders);
    let progress = Progress::bar(probabilities.len() as u64, &message);
    let mut points = Vec::with_capacity(probabilities.len());
    for (i, &p) in probabilities.iter().enumerate() {
        let worlds =
            isolated_job::worlds(&runner, &format!("{JOB}{i}:"), &progress).map_err(|verdict| {
                isolated_job::explain_failure(
                    &format!("hacer el barrido (p = {})", sweep::probability(p)),
                    &verdict,
                )
            })?;
        progress.advance(1);
        points.push(SweepPoint { p, worlds });
    }
    Ok(points)
}
