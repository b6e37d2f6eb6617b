//! The final project's comparison (lesson 2: the $48,139 is the "antes"
//! against which lesson 8 measures its "después"): one fleet, run without
//! idempotency and with an idempotent server plus a key per operation, the
//! figures side by side with their difference.

use std::fmt::Write;

use serde::{Deserialize, Serialize};
use serde_json::json;
use sim::Money;
use sim::money::group_thousands;

use judge::fixture::Scenario;

use crate::before_after::fleet;
use crate::progress::Progress;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use protocol::{ClientKind, WorldRun};

pub use judge::figures::WorldFigures;
use judge::runner::{self, Execute};
use judge::verdict::Verdict;

/// Both worlds of one fleet.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worlds {
    /// No idempotency: the implementation's server with `idempotent = false`.
    pub before: WorldFigures,
    /// The implementation's idempotent server and its key-per-operation
    /// client.
    pub after: WorldFigures,
}

/// Both worlds, as the implementation's code measured them, and what each
/// world's own ledger contradicts in its reconciliation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compared {
    /// The figures; the reconciliation's (exercise 3) are the
    /// implementation's own, as it reported them.
    pub worlds: Worlds,
    /// One line per figure of the implementation's reconciliation that the
    /// world's ledger or the fleet's orders contradict ([`doubts`]); empty
    /// when it agrees.
    pub doubts: Vec<String>,
}

/// Both worlds of `scenario` with the implementation behind `h`, each in
/// its own harness process, at once (each process holds one world's ledger
/// and store, so a fleet of millions of orders fits the memory limit, and
/// the two run on two cores). `progress` ticks while they run.
///
/// # Errors
/// Why a world gave no answer (the "before" world's first).
pub fn run_worlds(
    h: &dyn Execute,
    scenario: &Scenario,
    progress: &Progress,
) -> Result<Compared, Verdict> {
    let fleet = &scenario.fleet;
    let [before, after] = in_both_worlds(progress, |idempotent| {
        runner::world(h, fleet, idempotent, ClientKind::Implementation, true)
    })?;
    let intended: Money = fleet.orders().iter().map(|o| o.amount).sum();
    let mut found = doubts("antes", &before, intended);
    found.extend(doubts("después", &after, intended));
    Ok(Compared {
        worlds: Worlds {
            before: WorldFigures::of(&before),
            after: WorldFigures::of(&after),
        },
        doubts: found,
    })
}

/// What `run`'s ledger (its rows and their sum, counted by the harness) and
/// the fleet's `intended` total (cents) contradict in the implementation's
/// reconciliation of world `name` ("antes", "después"), one line each in
/// the table's words: an observation, not a cause.
pub fn doubts(name: &str, run: &WorldRun, intended: Money) -> Vec<String> {
    let Some(r) = run.reconciliation else {
        return Vec::new();
    };
    let mut lines = Vec::new();
    if r.intended != intended {
        lines.push(format!(
            "{name}: «Cobro correcto (intencion)» dice {}; las órdenes de la flota suman {intended}",
            r.intended
        ));
    }
    if r.charges != run.executions {
        lines.push(format!(
            "{name}: «cargos en el ledger» dice {}; el ledger tiene {} filas",
            group_thousands(r.charges),
            group_thousands(run.executions)
        ));
    }
    if r.charged != run.charged {
        lines.push(format!(
            "{name}: «TOTAL COBRADO» dice {}; las filas del ledger suman {}",
            r.charged, run.charged
        ));
    }
    lines
}

/// The note under the table when the reconciliation disagrees with the
/// ledger ([`Compared::doubts`]); empty when it agrees.
pub fn doubts_section(doubts: &[String]) -> String {
    if doubts.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\nOJO: tu reconciliación (ejercicio 3) no cuadra con el ledger de esta corrida; la tabla muestra lo que ella dijo:\n",
    );
    for line in doubts {
        let _ = writeln!(out, "  - {line}");
    }
    out.push_str(
        "  `cargo run -p grader -- --ejercicio reconciliacion` muestra el caso más chico en que falla.\n",
    );
    out
}

/// `run(false)` and `run(true)` (the worlds without and with idempotency)
/// at once, in two threads; `progress` ticks while they run.
///
/// # Errors
/// Why a world gave no answer (the "before" world's first).
pub fn in_both_worlds<T: Send>(
    progress: &Progress,
    run: impl Fn(bool) -> Result<T, Verdict> + Sync,
) -> Result<[T; 2], Verdict> {
    let (tx, rx) = mpsc::channel();
    let mut answers: [Option<Result<T, Verdict>>; 2] = [None, None];
    let run = &run;
    std::thread::scope(|scope| {
        for (i, idempotent) in [false, true].into_iter().enumerate() {
            let tx = tx.clone();
            scope.spawn(move || {
                let _ = tx.send((i, run(idempotent)));
            });
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok((i, r)) => answers[i] = Some(r),
                Err(mpsc::RecvTimeoutError::Timeout) => progress.tick(),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    let [before, after] = answers
        .map(|a| a.unwrap_or_else(|| Err(runner::unexpected("falta la respuesta de un mundo"))));
    Ok([before?, after?])
}

/// Prints on stderr why `what` could not run with the student's code (for a
/// `todo!()`: `pendiente: … todavía es todo!() (archivo:línea)`), with what to
/// do next, and gives exit status 1.
pub fn explain_failure(what: &str, verdict: &Verdict) -> ExitCode {
    let mut text = format!("grader: no se pudo {what} con tu código (exercises/):\n");
    for line in verdict.explanation() {
        text.push_str(&format!("  {line}\n"));
    }
    let next = if matches!(verdict, Verdict::Pending { .. }) {
        format!(
            "Completa los {} ejercicios (`cargo run -p grader` te dice cuáles faltan).",
            judge::catalog::course_count_in_words()
        )
    } else {
        "Corre `cargo run -p grader` para ver qué verificación falla.".to_string()
    };
    text.push_str(&format!("  {next}\n"));
    eprint!("{text}");
    ExitCode::from(1)
}

/// The comparison table, in Spanish, laid out like the lesson's fleet table
/// but with the two worlds side by side and their difference.
pub fn render(scenario: &Scenario, crate_name: &str, w: &Worlds) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ANTES Y DESPUÉS  ·  {}  ·  con {crate_name}",
        scenario.name
    );
    let _ = writeln!(out, "{}", fleet::describe(scenario, true));
    let intended = w.after.intended;
    let _ = writeln!(
        out,
        "\n  {:<35}: {intended:>10}  ({} cargos)\n",
        "Cobro correcto (intencion)",
        group_thousands(scenario.fleet.order_count())
    );
    let _ = writeln!(
        out,
        "  {:<35}  {:>18}  {:>20}  {:>17}",
        "", "SIN idempotencia", "CON idempotency_key", "DIFERENCIA"
    );
    let _ = writeln!(
        out,
        "  {:<35}  {:>18}  {:>20}  {:>17}",
        "", "(antes)", "(despues)", "(despues - antes)"
    );
    for (label, before, after, diff) in rows(w) {
        row(&mut out, label, before, after, diff);
    }
    out
}

/// The table's rows: label, before, after and the difference, as printed
/// ("intentos totales al server", "1,184", "1,184", "0").
pub fn rows(w: &Worlds) -> Vec<(&'static str, String, String, String)> {
    let (b, a) = (&w.before, &w.after);
    let counts: [(&str, u64, u64); 5] = [
        ("intentos totales al server", b.attempts, a.attempts),
        ("ejecuciones reales del cobro", b.executions, a.executions),
        ("cargos en el ledger", b.charges, a.charges),
        (
            "ordenes cobradas 2+ veces",
            b.orders_charged_twice_or_more,
            a.orders_charged_twice_or_more,
        ),
        ("ordenes sin confirmar", b.unconfirmed, a.unconfirmed),
    ];
    let mut out = Vec::new();
    for (label, before, after) in counts {
        out.push((
            label,
            group_thousands(before),
            group_thousands(after),
            signed_count(i128::from(after) - i128::from(before)),
        ));
    }
    let monies = [
        ("TOTAL COBRADO", b.charged.cents(), a.charged.cents()),
        ("SOBRECOBRO", b.overcharge.cents(), a.overcharge.cents()),
    ];
    for (label, before, after) in monies {
        out.push((
            label,
            Money::from_cents(before).to_string(),
            Money::from_cents(after).to_string(),
            signed_money(after - before),
        ));
    }
    let (pb, pa) = (b.overcharge_pct(), a.overcharge_pct());
    out.push((
        "SOBRECOBRO (% de la intencion)",
        pb.to_string(),
        pa.to_string(),
        signed_points(pa.tenths() - pb.tenths()),
    ));
    out
}

fn row(out: &mut String, label: &str, before: String, after: String, diff: String) {
    let _ = writeln!(
        out,
        "    {label:<33}: {before:>18}  {after:>20}  {diff:>17}"
    );
}

fn signed_count(d: i128) -> String {
    let sign = match d.signum() {
        1 => "+",
        -1 => "-",
        _ => "",
    };
    format!("{sign}{}", group_thousands(d.unsigned_abs() as u64))
}

fn signed_money(cents: i64) -> String {
    let m = Money::from_cents(cents);
    if cents > 0 {
        format!("+{m}")
    } else {
        m.to_string()
    }
}

/// A difference of percentages in tenths, as percentage points (`-18.7 pp`).
fn signed_points(tenths: i64) -> String {
    let sign = match tenths.signum() {
        1 => "+",
        -1 => "-",
        _ => "",
    };
    let t = tenths.unsigned_abs();
    format!("{sign}{}.{} pp", t / 10, t % 10)
}

/// The same figures for machines: money in integer cents, percentages as
/// numbers (`18.73`), Spanish keys. Deterministic: no timing, no paths.
pub fn to_json(scenario: &Scenario, crate_name: &str, w: &Worlds) -> serde_json::Value {
    let world = |f: &WorldFigures| {
        json!({
            "intentos": f.attempts,
            "ejecuciones_reales": f.executions,
            "cargos_en_el_ledger": f.charges,
            "ordenes_cobradas_2_o_mas_veces": f.orders_charged_twice_or_more,
            "ordenes_sin_confirmar": f.unconfirmed,
            "total_cobrado_centavos": f.charged.cents(),
            "sobrecobro_centavos": f.overcharge.cents(),
            "sobrecobro_porcentaje": f.overcharge_pct().as_f64(),
        })
    };
    let (b, a) = (&w.before, &w.after);
    json!({
        "escenario": scenario.name,
        "implementacion": crate_name,
        "ordenes": scenario.fleet.order_count(),
        "p_perdida": scenario.fleet.p_response_lost(),
        "max_intentos": scenario.fleet.max_attempts,
        "stream": scenario.fleet.stream.name(),
        "intencion_centavos": a.intended.cents(),
        "antes": world(b),
        "despues": world(a),
        "diferencia": {
            "intentos": a.attempts as i64 - b.attempts as i64,
            "ejecuciones_reales": a.executions as i64 - b.executions as i64,
            "cargos_en_el_ledger": a.charges as i64 - b.charges as i64,
            "ordenes_cobradas_2_o_mas_veces":
                a.orders_charged_twice_or_more as i64 - b.orders_charged_twice_or_more as i64,
            "ordenes_sin_confirmar": a.unconfirmed as i64 - b.unconfirmed as i64,
            "total_cobrado_centavos": a.charged.cents() - b.charged.cents(),
            "sobrecobro_centavos": a.overcharge.cents() - b.overcharge.cents(),
            "sobrecobro_puntos_porcentuales": a.overcharge_pct().as_f64() - b.overcharge_pct().as_f64(),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::Reconciliation;

    /// A world of 3 ledger rows summing $300 for orders that total $250.
    fn run(reconciliation: Reconciliation) -> WorldRun {
        WorldRun {
            attempts: 4,
            executions: 3,
            charged: Money::from_dollars(300),
            unconfirmed: 0,
            reconciliation: Some(reconciliation),
        }
    }

    #[test]
    fn a_reconciliation_that_agrees_with_its_ledger_has_no_doubts() {
        let right = Reconciliation {
            intended: Money::from_dollars(250),
            charged: Money::from_dollars(300),
            charges: 3,
            ..Reconciliation::default()
        };
        assert_eq!(
            doubts("antes", &run(right), Money::from_dollars(250)),
            Vec::<String>::new()
        );
        assert_eq!(doubts_section(&[]), "");
    }

    #[test]
    fn each_figure_the_ledger_contradicts_is_one_line_in_the_tables_words() {
        let wrong = Reconciliation {
            intended: Money::from_dollars(300),
            charged: Money::from_dollars(250),
            charges: 2,
            ..Reconciliation::default()
        };
        let found = doubts("después", &run(wrong), Money::from_dollars(250));
        assert_eq!(
            found,
            [
                "después: «Cobro correcto (intencion)» dice $300; las órdenes de la flota suman $250",
                "después: «cargos en el ledger» dice 2; el ledger tiene 3 filas",
                "después: «TOTAL COBRADO» dice $250; las filas del ledger suman $300",
            ]
        );
        let section = doubts_section(&found[1..2]);
        assert_eq!(
            section,
            "\nOJO: tu reconciliación (ejercicio 3) no cuadra con el ledger de esta corrida; la tabla muestra lo que ella dijo:\n  - después: «cargos en el ledger» dice 2; el ledger tiene 3 filas\n  `cargo run -p grader -- --ejercicio reconciliacion` muestra el caso más chico en que falla.\n"
        );
        // Without a reconciliation (a world run without exercise 3), nothing.
        let unreconciled = WorldRun {
            reconciliation: None,
            ..run(Reconciliation::default())
        };
        assert!(doubts("antes", &unreconciled, Money::from_dollars(1)).is_empty());
    }
}
