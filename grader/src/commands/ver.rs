//! `grader ver [FIXTURE] --html ARCHIVO` (alias `view`): the ledger of a
//! fleet in both worlds with the student's code, order by order, as one
//! self-contained HTML page ([`crate::view`]). The same two worlds as
//! `comparar` (the implementation's server with `idempotent = false` and
//! `true`, its client in both), traced call by call, and lesson 4's race of
//! two retries at once with its store.

use std::process::ExitCode;

use crate::before_after::{comparison, fleet, race};
use crate::cli::{Cli, VerArgs};
use crate::commands;
use crate::progress::Progress;
use crate::view::{self, page};
use judge::paths;

/// Runs `ver`: exit 0 with the page written, 1 when the student's code could
/// not run (pending, panic, time limit), 2 for a bad fixture, flag or path.
pub fn run(cli: &Cli, args: &VerArgs) -> ExitCode {
    let scenario = match setup(cli, args) {
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
    let message = format!(
        "rastreando {} órdenes en los dos mundos",
        sim::money::group_thousands(scenario.fleet.order_count())
    );
    let traced = view::collect(&h, &scenario, &Progress::spinner(&message));
    let view = match traced {
        Ok(v) => v,
        Err(verdict) => return comparison::explain_failure("ver", &verdict),
    };
    // Lesson 4's race, with the implementation's store (exercise 4): a
    // `todo!()` is shown as pending and never builds the explorer.
    let race = race::run(&h);
    let html = page::html(&scenario, which.crate_name(), &view, race.as_ref());
    if let Err(e) = std::fs::write(&args.html, html) {
        eprintln!(
            "grader: --html {}: no se pudo escribir la página: {}",
            args.html.display(),
            judge::output::io_error(&e)
        );
        return ExitCode::from(2);
    }
    let doubles = view
        .orders
        .iter()
        .filter(|o| o.charged_twice_or_more())
        .count();
    eprintln!(
        "grader: página escrita en {} ({} órdenes, {} cobradas 2+ veces resaltadas); ábrela en el navegador",
        paths::display(&args.html),
        sim::money::group_thousands(view.orders.len() as u64),
        sim::money::group_thousands(doubles as u64)
    );
    ExitCode::SUCCESS
}

/// The scenario (fixture plus flags), checked against the page's limits.
fn setup(cli: &Cli, args: &VerArgs) -> Result<judge::fixture::Scenario, String> {
    let scenario = fleet::load(args.escenario.as_deref(), &cli.fixtures, &args.flota)?;
    let n = scenario.fleet.order_count();
    if n > view::MAX_ORDERS {
        return Err(format!(
            "ver muestra a lo sumo {} órdenes y la flota tiene {}: usa --ordenes N con N ≤ {} (para flotas más grandes, comparar)",
            sim::money::group_thousands(view::MAX_ORDERS),
            sim::money::group_thousands(n),
            sim::money::group_thousands(view::MAX_ORDERS)
        ));
    }
    Ok(scenario)
}
