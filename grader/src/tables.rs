//! The lesson's scenario tables, laid out exactly as lesson 2 prints them.

use std::fmt::Write;

use sim::{Money, Scenario, money::group_thousands};

use crate::world::WorldRun;

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
    if scenario.order_count() == 1 {
        buyer(&mut out, scenario, runs);
    } else {
        fleet(&mut out, scenario, runs);
    }
    out
}

/// Whole dollars without separators, as the one-buyer lines print them
/// (`$1000`); cents only when there are any.
fn plain(m: Money) -> String {
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
            "  {label:<23}-> intentos={}  cargos={}  TOTAL COBRADO={}",
            w.attempts,
            w.reconciliation.charges,
            plain(w.reconciliation.charged)
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
        plain(runs.after.reconciliation.intended)
    );
}

fn count(out: &mut String, label: &str, n: u64) {
    let _ = writeln!(out, "    {label:<33}: {:>10}", group_thousands(n));
}

fn money(out: &mut String, label: &str, m: Money) {
    let _ = writeln!(out, "    {label:<33}: {m:>10}");
}

fn overcharge(out: &mut String, w: &WorldRun) {
    let r = &w.reconciliation;
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
        .p_response_lost()
        .map_or_else(|| "guion".to_string(), |p| p.to_string());
    let _ = writeln!(
        out,
        "N={} ordenes | p(respuesta perdida)={p} | max_attempts={}",
        scenario.order_count(),
        scenario.max_attempts
    );
    if !scenario.description.trim().is_empty() {
        out.push_str(scenario.description.trim_matches('\n'));
        out.push('\n');
    }
    out.push('\n');
    let intended = runs.after.reconciliation.intended;
    let _ = writeln!(
        out,
        "  {:<35}: {intended:>10}  ({} cargos)\n",
        "Cobro correcto (intencion)",
        scenario.order_count()
    );
    let b = &runs.before;
    out.push_str("  SIN idempotencia:\n");
    count(out, "intentos totales al server", b.attempts);
    count(out, "cargos en el ledger", b.reconciliation.charges);
    count(
        out,
        "ordenes cobradas 2+ veces",
        b.reconciliation.orders_charged_twice_or_more,
    );
    money(out, "TOTAL COBRADO", b.reconciliation.charged);
    overcharge(out, b);
    let a = &runs.after;
    out.push_str("\n  CON idempotency_key:\n");
    count(out, "intentos totales al server", a.attempts);
    count(out, "ejecuciones reales del cobro", a.executions);
    count(out, "cargos en el ledger", a.reconciliation.charges);
    count(
        out,
        "ordenes cobradas 2+ veces",
        a.reconciliation.orders_charged_twice_or_more,
    );
    money(out, "TOTAL COBRADO", a.reconciliation.charged);
    overcharge(out, a);
    if let Some(k) = &runs.key_per_attempt {
        out.push_str("\n  CON key por intento (leccion 3):\n");
        count(out, "intentos totales al server", k.attempts);
        count(out, "cargos en el ledger", k.reconciliation.charges);
        count(
            out,
            "ordenes cobradas 2+ veces",
            k.reconciliation.orders_charged_twice_or_more,
        );
        money(out, "TOTAL COBRADO", k.reconciliation.charged);
        overcharge(out, k);
    }
}
