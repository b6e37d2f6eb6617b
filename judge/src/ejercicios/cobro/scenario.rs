//! Exercise 1's whole-scenario check: lesson 2's client charges a whole
//! fleet against the implementation's server, in both worlds.

use protocol::ClientKind;

use crate::checks::scenario::{Measured, describe_scenario};
use crate::fixture::Scenario;
use crate::oracle;
use crate::runner::{self, Execute};
use crate::verdict::Verdict;

/// Exercise 1 over a fleet: lesson 2's client (one key per operation)
/// charges every order against the implementation's server.
///
/// # Errors
/// The first figure that differs from the oracle's, or how the code failed.
pub fn run(h: &dyn Execute, scenario: &Scenario) -> Result<(), Verdict> {
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
