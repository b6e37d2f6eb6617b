//! Exercise 2's whole-scenario check: the implementation's client over a
//! whole fleet, its calls replayed through lesson 2's server.

use sim::Money;

use crate::checks::scenario::{Measured, describe_scenario};
use crate::fixture::Scenario;
use crate::oracle::{self, Expected};
use crate::runner::{self, Execute};
use crate::verdict::Verdict;

/// Exercise 2 over a fleet: the implementation's client, its calls replayed
/// through lesson 2's server in both worlds.
///
/// # Errors
/// The first figure that differs from the oracle's, or how the code failed.
pub fn run(h: &dyn Execute, scenario: &Scenario) -> Result<(), Verdict> {
    let e = &oracle::expect(&scenario.fleet);
    let name = describe_scenario(scenario);
    let protocol::ClientRun {
        orders: runs,
        attempts,
    } = runner::client(h, &scenario.fleet, None)?;
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
