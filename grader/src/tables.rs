//! The lesson's scenario tables, laid out exactly as lesson 2 prints them.

use std::fmt::Write;

use sim::{Money, money::group_thousands};

use judge::fixture::Scenario;

use protocol::WorldRun;
use sim::Reconciliation;

/// The worlds of one scenario, ready to print.
#[derive(Clone, Copy, Debug)]
pub struct ScenarioRuns {
    /// No idempotency ("SIN idempotencia").
    pub before: WorldRun,
    /// Idempotent server, one key per operation ("CON idempotency_key").
    pub after: WorldRun,
    /// Idempotent server, lesson 3's key per attempt, when the fixture asks.
    pub key_per_attempt: Option<WorldRun>,
}

/// The table for `scenario`: the one-buyer layout (escenario A) for a single
/// order, the fleet layout (escenario C) otherwise.
pub fn render(scenario: &Scenario, runs: &ScenarioRuns) -> String {
    let mut out = String::new();
    out.push_str(&scenario.title);
    out.push('\n');
    if scenario.fleet.order_count() == 1 {
        buyer(&mut out, scenario, runs);
    } else {
        fleet(&mut out, scenario, runs);
    }
    out
}

/// A world's reconciliation (the tables always ask for it; zeros if a run
/// did not reconcile).
fn rec(w: &WorldRun) -> Reconciliation {
    w.reconciliation.unwrap_or_default()
}

/// Whole dollars without separators, as the one-buyer lines print them
/// (`$1000`); cents only when there are any.
pub fn plain(m: Money) -> String {
    let c = m.cents();
    let sign = if c < 0 { "-" } else { "" };
    let abs = c.unsigned_abs();
    if abs.is_multiple_of(100) {
        format!("{sign}${}", abs / 100)
    } else {
        format!("{sign}${}.{:02}", abs / 100, abs % 100)
    }
}

fn buyer(out: &mut String, scenario: &Scenario, runs: &ScenarioRuns) {
    if !scenario.description.trim().is_empty() {
        out.push_str(scenario.description.trim_matches('\n'));
        out.push('\n');
    }
    out.push('\n');
    let line = |out: &mut String, label: &str, w: &WorldRun| {
        let _ = writeln!(
            out,
            "  {label:<23}-> reintentos={}  cargos={}  TOTAL COBRADO={}",
            w.attempts,
            rec(w).charges,
            plain(rec(w).charged)
        );
    };
    line(out, "SIN idempotencia", &runs.before);
    line(out, "CON idempotency_key", &runs.after);
    if let Some(w) = &runs.key_per_attempt {
        line(out, "CON key por intento", w);
    }
    let _ = write!(
        out,
        "\n  Cobro correcto esperado: {}\n",
        plain(rec(&runs.after).intended)
    );
    // The lesson's `reintentos` is its client's `attempts`: every attempt,
    // the first one included.
    let n = runs.before.attempts;
    let _ = writeln!(
        out,
        "  (reintentos={n}, como en la lección, cuenta cada intento: el primero y {} reintento(s))",
        n.saturating_sub(1)
    );
}

fn count(out: &mut String, label: &str, n: u64) {
    let _ = writeln!(out, "    {label:<33}: {:>10}", group_thousands(n));
}

fn money(out: &mut String, label: &str, m: Money) {
    let _ = writeln!(out, "    {label:<33}: {m:>10}");
}

fn overcharge(out: &mut String, w: &WorldRun) {
    let r = &rec(w);
    if r.overcharge == Money::ZERO {
        money(out, "SOBRECOBRO", r.overcharge);
    } else {
        let _ = writeln!(
            out,
            "    {:<33}: {:>10}  ({} de mas)",
            "SOBRECOBRO", r.overcharge, r.overcharge_pct
        );
    }
}

fn fleet(out: &mut String, scenario: &Scenario, runs: &ScenarioRuns) {
    let p = scenario
        .fleet
        .p_response_lost()
        .map_or_else(|| "guion".to_string(), |p| p.to_string());
    let _ = writeln!(
        out,
        "N={} ordenes | p(respuesta perdida)={p} | max_attempts={}",
        scenario.fleet.order_count(),
        scenario.fleet.max_attempts
    );
    if !scenario.description.trim().is_empty() {
        out.push_str(scenario.description.trim_matches('\n'));
        out.push('\n');
    }
    out.push('\n');
    let intended = rec(&runs.after).intended;
    let _ = writeln!(
        out,
        "  {:<35}: {intended:>10}  ({} cargos)\n",
        "Cobro correcto (intencion)",
        scenario.fleet.order_count()
    );
    world(out, "SIN idempotencia:", &runs.before, false);
    out.push('\n');
    // Only the world with keys tells executions apart from attempts.
    world(out, "CON idempotency_key:", &runs.after, true);
    if let Some(k) = &runs.key_per_attempt {
        out.push('\n');
        world(out, "CON key por intento (leccion 3):", k, false);
    }
}

/// One world's block of the fleet table, as lesson 2 lays it out.
fn world(out: &mut String, heading: &str, w: &WorldRun, executions: bool) {
    let r = &rec(w);
    let _ = writeln!(out, "  {heading}");
    count(out, "intentos totales al server", w.attempts);
    if executions {
        count(out, "ejecuciones reales del cobro", w.executions);
    }
    count(out, "cargos en el ledger", r.charges);
    count(
        out,
        "ordenes cobradas 2+ veces",
        r.orders_charged_twice_or_more,
    );
    money(out, "TOTAL COBRADO", r.charged);
    overcharge(out, w);
}
