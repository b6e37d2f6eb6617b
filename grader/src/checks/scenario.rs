//! Checks that run a whole fixture (or a seeded variant) through one exercise
//! and compare every figure with the oracle.

use protocol::ClientKind;
use sim::{Money, Reconciliation};

use crate::checks::reconciliation::{differences, explain};
use crate::fixture::Scenario;
use crate::oracle::{self, Expected, WorldFigures};
use crate::runner::{self, Execute};
use crate::verdict::Verdict;

/// Figures measured on one world, comparable with the oracle's.
#[derive(Debug, PartialEq, Eq)]
struct Measured {
    attempts: u64,
    charges: u64,
    charged: Money,
    unconfirmed: u64,
}

impl Measured {
    fn from_oracle(w: &WorldFigures) -> Measured {
        Measured {
            attempts: w.attempts,
            charges: w.charges,
            charged: w.charged,
            unconfirmed: w.unconfirmed,
        }
    }

    fn of(run: &protocol::WorldRun) -> Measured {
        Measured {
            attempts: run.attempts,
            charges: run.executions,
            charged: run.charged,
            unconfirmed: run.unconfirmed,
        }
    }

    fn text(&self) -> String {
        format!(
            "intentos={} cargos en el ledger={} total cobrado={} sin confirmar={}",
            sim::money::group_thousands(self.attempts),
            sim::money::group_thousands(self.charges),
            self.charged,
            self.unconfirmed
        )
    }
}

/// One line naming the scenario, for messages.
pub fn describe_scenario(s: &Scenario) -> String {
    let p = s
        .fleet
        .p_response_lost()
        .map_or_else(|| "guion fijo".to_string(), |p| format!("p={p}"));
    let n = s.fleet.order_count();
    let orders = if n == 1 { "orden" } else { "órdenes" };
    format!(
        "{} (N={n} {orders}, {p}, max_attempts={})",
        s.name, s.fleet.max_attempts
    )
}

/// Exercise 1 over a fleet: lesson 2's client (one key per operation)
/// charges every order against the implementation's server.
///
/// # Errors
/// The first figure that differs from the oracle's, or how the code failed.
pub fn server(h: &dyn Execute, scenario: &Scenario) -> Result<(), Verdict> {
    let e = &oracle::expect(&scenario.fleet);
    let name = describe_scenario(scenario);
    let fleet = &scenario.fleet;
    let before = Measured::of(&runner::world(h, fleet, false, ClientKind::Lesson, false)?);
    if before != Measured::from_oracle(&e.before) {
        return Err(Verdict::failed(
            format!(
                "{name}, SIN idempotencia: {}",
                Measured::from_oracle(&e.before).text()
            ),
            before.text(),
            "sin idempotencia cada intento es un cargo: el ledger debe tener tantas filas como intentos (es el \"antes\" del proyecto final).",
        ));
    }
    let after = Measured::of(&runner::world(h, fleet, true, ClientKind::Lesson, false)?);
    if after != Measured::from_oracle(&e.after) {
        return Err(Verdict::failed(
            format!(
                "{name}, CON idempotency_key: {}",
                Measured::from_oracle(&e.after).text()
            ),
            after.text(),
            "con idempotency_key los reintentos son replays: una fila por orden y el total cobrado igual a la intención, al centavo.",
        ));
    }
    if scenario.show_key_per_attempt {
        let run = runner::world(h, fleet, true, ClientKind::KeyPerAttempt, false)?;
        if run.executions != e.key_per_attempt.charges {
            return Err(Verdict::failed(
                format!(
                    "{name}, servidor idempotente y una key nueva por intento: {} cargos",
                    e.key_per_attempt.charges
                ),
                format!("{} cargos", run.executions),
                "keys distintas son operaciones distintas: el servidor debe cobrarlas todas, aunque tengan el mismo contenido. Deduplicar por contenido esconde el error del cliente de la lección 3.",
            ));
        }
    }
    Ok(())
}

/// Exercise 2 over a fleet: the implementation's client, its calls replayed
/// through lesson 2's server in both worlds.
///
/// # Errors
/// The first figure that differs from the oracle's, or how the code failed.
pub fn client(h: &dyn Execute, scenario: &Scenario) -> Result<(), Verdict> {
    let e = &oracle::expect(&scenario.fleet);
    let name = describe_scenario(scenario);
    let (runs, attempts) = runner::client(h, &scenario.fleet, None)?;
    let per_order: Vec<u32> = runs.iter().map(|r| r.outcome.attempts).collect();
    let unconfirmed = runs
        .iter()
        .filter(|r| r.outcome.confirmed.is_none())
        .count() as u64;
    for (idempotent, want, world) in [
        (true, &e.after, "CON idempotency_key"),
        (false, &e.before, "SIN idempotencia"),
    ] {
        // What lesson 2's server would hold after these calls: every call a
        // charge without idempotency, the first call of each key with it.
        // Counted, not stored: a fleet can send millions of calls.
        let mut seen = std::collections::HashSet::new();
        let (mut charges, mut charged) = (0u64, Money::ZERO);
        for s in runs.iter().flat_map(|r| &r.sent) {
            let times = if idempotent {
                u64::from(seen.insert(s.call.key))
            } else {
                u64::from(s.times)
            };
            charges += times;
            charged += s.call.amount * times;
        }
        let got = Measured {
            attempts,
            charges,
            charged,
            unconfirmed,
        };
        if got != Measured::from_oracle(want) {
            return Err(Verdict::failed(
                format!("{name}, {world}: {}", Measured::from_oracle(want).text()),
                got.text(),
                client_hint(
                    scenario,
                    e,
                    &per_order,
                    idempotent && got.charges != want.charges,
                ),
            ));
        }
    }
    if per_order != e.attempts_per_order {
        let i = per_order
            .iter()
            .zip(&e.attempts_per_order)
            .position(|(a, b)| a != b)
            .unwrap_or(0);
        return Err(Verdict::failed(
            format!(
                "{name}: la orden {} tuvo {} intento(s)",
                i + 1,
                e.attempts_per_order.get(i).copied().unwrap_or(0)
            ),
            format!(
                "tu cliente informó attempts={}",
                per_order.get(i).copied().unwrap_or(0)
            ),
            "ChargeOutcome::attempts es cuántas veces enviaste el cobro, contando el primero.",
        ));
    }
    Ok(())
}

/// Names the client's mistake from the attempts it made per order (against
/// the oracle's) and whether the idempotent world got the wrong number of
/// charges.
fn client_hint(
    scenario: &Scenario,
    e: &Expected,
    per_order: &[u32],
    wrong_charges: bool,
) -> String {
    let max = scenario.fleet.max_attempts;
    let first_difference = per_order
        .iter()
        .zip(&e.attempts_per_order)
        .position(|(got, want)| got != want);
    if let Some(i) = first_difference {
        let (got, want) = (per_order[i], e.attempts_per_order[i]);
        let order = i + 1;
        let why = if got > want && want < max {
            "la respuesta llegó y aun así reintentó: la operación ya había terminado"
        } else if got > max {
            "pasó de max_attempts: con max_attempts respuestas perdidas hay que rendirse"
        } else {
            "se rindió antes de tiempo: son hasta max_attempts intentos, contando el primero"
        };
        return format!(
            "la orden {order} necesitaba {want} intento(s) y tu cliente hizo {got} (max_attempts={max}): {why}. Los intentos dependen solo de la red: reintenta mientras la respuesta se pierda, hasta max_attempts."
        );
    }
    if wrong_charges {
        return "los intentos son los correctos, pero el servidor idempotente cobró otra cantidad de veces: la key debe ser una por operación (creada con keys.new_key() antes del primer intento y reenviada en cada reintento), ni una por intento (lección 3) ni una compartida entre órdenes.".to_string();
    }
    "con el servidor de la lección, tu cliente debe reintentar solo mientras la respuesta se pierde, hasta max_attempts, con una sola key por orden: los intentos dependen de la red, los cargos de la key.".to_string()
}

/// Exercise 3 over a fleet: the ledger lesson 2's server leaves in each
/// world, reconciled by the implementation.
///
/// # Errors
/// The first figure that differs from the oracle's, or how the code failed.
pub fn reconciliation(h: &dyn Execute, scenario: &Scenario) -> Result<(), Verdict> {
    let e = &oracle::expect(&scenario.fleet);
    let name = describe_scenario(scenario);
    for (idempotent, w, world) in [
        (false, &e.before, "SIN idempotencia"),
        (true, &e.after, "CON idempotency_key"),
    ] {
        let want = Reconciliation {
            intended: e.intended,
            charged: w.charged,
            charges: w.charges,
            orders_charged_twice_or_more: w.orders_charged_twice_or_more,
            orders_never_charged: 0,
            unknown_order_rows: 0,
            overcharge: w.overcharge,
            undercharge: Money::ZERO,
            overcharge_pct: w.overcharge_pct(),
        };
        let got = runner::reconcile_fleet(h, &scenario.fleet, idempotent)?;
        if got != want {
            let (w_text, g_text) = differences(&want, &got);
            let orders = scenario.fleet.orders();
            let ledger = protocol::lesson::ledger(&scenario.fleet, &orders, idempotent);
            return Err(Verdict::failed(
                format!("{name}, ledger {world}: {w_text}"),
                g_text,
                explain(
                    &ledger,
                    &want,
                    &got,
                    "reconcilia por order id: intención contra ledger, el sobrecobro orden por orden y el porcentaje sobre la intención (en la flota de la lección: $48,139, 18.7%, 146 órdenes cobradas 2+ veces).",
                ),
            ));
        }
    }
    Ok(())
}
