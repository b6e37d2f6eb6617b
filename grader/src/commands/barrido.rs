//! `grader barrido [FIXTURE]`: the fleet at several loss probabilities, same
//! seeds, both worlds, next to the model's expected overcharge; `--svg` draws
//! it. Each probability's two worlds run in two harness processes.

use std::process::ExitCode;

use judge::fixture::Scenario;

use crate::before_after::chart;
use crate::before_after::comparison;
use crate::before_after::fleet;
use crate::before_after::sweep::{self, SweepPoint};
use crate::cli::{BarridoArgs, Cli};
use crate::commands;
use crate::progress::Progress;
use judge::runner::build::Implementation;
use judge::{output, paths};

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
            .and_then(|svg| std::fs::write(path, svg).map_err(|e| judge::output::io_error(&e)));
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
    let mut first_doubts = None;
    for &p in probabilities {
        let at = sweep::at(scenario, p).map_err(|message| {
            eprintln!("grader: {message}");
            ExitCode::from(2)
        })?;
        let compared = comparison::run_worlds(&h, &at, &progress).map_err(|verdict| {
            comparison::explain_failure(
                &format!("hacer el barrido (p = {})", sweep::probability(p)),
                &verdict,
            )
        })?;
        progress.advance(1);
        if first_doubts.is_none() && !compared.doubts.is_empty() {
            first_doubts = Some((p, compared.doubts));
        }
        points.push(SweepPoint {
            p,
            worlds: compared.worlds,
        });
    }
    // The first probability whose reconciliation disagreed with its ledger,
    // after the bar (the chart draws what the reconciliation said).
    if let Some((p, doubts)) = first_doubts {
        eprint!(
            "grader: con p = {}:{}",
            sweep::probability(p),
            comparison::doubts_section(&doubts)
        );
    }
    Ok(points)
}
