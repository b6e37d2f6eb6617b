//! `grader barrido [FIXTURE]`: the fleet at several loss probabilities, same
//! seeds, both worlds, next to the model's expected overcharge; `--svg` draws
//! it. Each probability's two worlds run in two harness processes.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::fixture::Scenario;
use clap::Args;

use crate::cli::Cli;
use crate::commands;
use crate::comparison;
use crate::fleet::{self, FleetArgs};
use crate::progress::Progress;
use crate::runner::build::Implementation;
use crate::sweep::{self, SweepPoint, SweepRange};
use crate::{chart, output, paths};

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
pub fn run(cli: &Cli, args: &BarridoArgs) -> ExitCode {
    let (scenario, probabilities) = match setup(cli, args) {
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
    let points = match sweep_points(cli, which, &scenario, &probabilities) {
        Ok(points) => points,
        Err(code) => return code,
    };
    if let Some(path) = &args.svg {
        let written = chart::svg(&scenario, which.crate_name(), &points)
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
        let value = sweep::to_json(&scenario, which.crate_name(), &points);
        serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
    } else {
        sweep::render(&scenario, which.crate_name(), &points)
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

/// Every point, both worlds at once in harness processes. `Err` carries the
/// exit status after explaining the failure.
fn sweep_points(
    cli: &Cli,
    which: Implementation,
    scenario: &Scenario,
    probabilities: &[f64],
) -> Result<Vec<SweepPoint>, ExitCode> {
    let h = commands::harness(cli, which).map_err(|cause| commands::build_failure(&cause))?;
    let message = format!(
        "barriendo {} probabilidades con {} órdenes",
        probabilities.len(),
        sim::money::group_thousands(scenario.fleet.order_count())
    );
    let progress = Progress::bar(probabilities.len() as u64, &message);
    let mut points = Vec::with_capacity(probabilities.len());
    for &p in probabilities {
        let at = sweep::at(scenario, p).map_err(|message| {
            eprintln!("grader: {message}");
            ExitCode::from(2)
        })?;
        let worlds = comparison::run_worlds(&h, &at, &progress).map_err(|verdict| {
            comparison::explain_failure(
                &format!("hacer el barrido (p = {})", sweep::probability(p)),
                &verdict,
            )
        })?;
        progress.advance(1);
        points.push(SweepPoint { p, worlds });
    }
    Ok(points)
}
