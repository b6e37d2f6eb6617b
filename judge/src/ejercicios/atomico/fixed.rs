//! Exercise 4's fixed checks (bonus, lesson 4, *el store atómico*): the
//! shared server's `charge`, called from one thread with a script of calls.
//!
//! What each call must answer, and the ledger after it, come from the
//! judge's own model of lesson 4's rules ([`Model`]), never from the
//! reference solutions: a new key charges once and stores its result; the
//! same key with the same request is a replay of it, the ledger untouched;
//! the same key with another order or amount is `Err(KeyReused)` (the 422),
//! ledger and store untouched. A call made after another one finished never
//! finds that one in flight, so sequential calls never get `Err(InFlight)`.
//! Concurrent calls are the schedule explorer's.
//!
//! A failure names the first call whose answer or ledger differs, says what
//! was observed there, and shows the calls step by step
//! ([`crate::ejercicios::atomico::steps`]).

use protocol::{Call, Shared};
use sim::{ChargeError, IdempotencyKey, Money};

use super::rules::{Answers, Model, parting, short, written};
use super::steps;
use crate::ejercicios::cobro::fixed::{call, dollars};
use crate::ejercicios::cobro::steps::{describe_row, first_row_difference};
use crate::runner::{self, Execute};
use crate::verdict::{Hint, Verdict};

/// The first charge with a key stores its result.
pub const FIRST: &str = "key-nueva-cobra-y-guarda-su-resultado";
/// The same request again is a replay.
pub const REPLAY: &str = "replay-devuelve-lo-guardado-sin-tocar-el-ledger";
/// The same key with another amount is refused.
pub const OTHER_AMOUNT: &str = "misma-key-otro-monto-se-rechaza";
/// The same key with another order is refused.
pub const OTHER_ORDER: &str = "misma-key-otra-orden-se-rechaza";
/// Different keys with the same content are two charges.
pub const DISTINCT: &str = "keys-distintas-se-cobran";
/// Charge ids follow the ledger's rows.
pub const IDS: &str = "charge-ids-en-orden-del-ledger";
/// Sequential calls never see a key in flight.
pub const NO_IN_FLIGHT: &str = "en-secuencia-nunca-en-curso";

/// `(id, title)` of every fixed check of exercise 4.
pub const CHECKS: &[(&str, &str)] = &[
    (
        FIRST,
        "una key nueva cobra una vez (ch_0001, una fila en el ledger) y guarda su resultado",
    ),
    (
        REPLAY,
        "replay: la misma key con la misma request devuelve el resultado guardado, idéntico, sin tocar el ledger",
    ),
    (
        OTHER_AMOUNT,
        "la misma key con otro monto es Err(KeyReused) (422): ledger y store intactos, la primera sigue en su replay",
    ),
    (
        OTHER_ORDER,
        "la misma key con otra orden es Err(KeyReused) (422): ledger y store intactos",
    ),
    (
        DISTINCT,
        "keys distintas con la misma orden y el mismo monto son dos cobros",
    ),
    (
        IDS,
        "los charge ids van ch_0001, ch_0002, … en el orden del ledger (los rechazos y los replays no cuentan)",
    ),
    (
        NO_IN_FLIGHT,
        "una llamada que empieza cuando la anterior ya terminó nunca recibe Err(InFlight): recibe el replay",
    ),
];

const K1: IdempotencyKey = IdempotencyKey(0x4001_0000_0000_0001);
const K2: IdempotencyKey = IdempotencyKey(0x4001_0000_0000_0002);
const K3: IdempotencyKey = IdempotencyKey(0x4001_0000_0000_0003);

/// The short name of a fixed check's key (`K1`), or the key itself.
fn label(key: IdempotencyKey) -> String {
    [(K1, "K1"), (K2, "K2"), (K3, "K3")]
        .iter()
        .find(|(k, _)| *k == key)
        .map_or_else(|| key.to_string(), |(_, name)| name.to_string())
}

/// The script of fixed check `id`.
fn script(id: &str) -> Option<Vec<Call>> {
    let a = dollars(500);
    Some(match id {
        FIRST => vec![call(K1, 1, a)],
        REPLAY => vec![
            call(K1, 1, a),
            call(K1, 1, a),
            call(K2, 2, dollars(300)),
            call(K1, 1, a),
        ],
        OTHER_AMOUNT => vec![
            call(K1, 1, a),
            call(K1, 1, dollars(400)),
            call(K1, 1, a),
            call(K2, 2, dollars(400)),
        ],
        OTHER_ORDER => vec![call(K1, 1, a), call(K1, 2, a), call(K1, 1, a)],
        DISTINCT => vec![call(K1, 1, a), call(K2, 1, a)],
        IDS => vec![
            call(K1, 1, a),
            call(K1, 1, dollars(400)),
            call(K2, 2, dollars(300)),
            call(K1, 1, a),
            call(K2, 3, dollars(300)),
            call(K3, 3, Money::from_cents(1)),
        ],
        NO_IN_FLIGHT => vec![
            call(K1, 1, a),
            call(K1, 1, a),
            call(K2, 2, dollars(300)),
            call(K2, 2, dollars(301)),
            call(K2, 2, dollars(300)),
        ],
        _ => return None,
    })
}

/// Runs fixed check `id` of exercise 4.
///
/// # Errors
/// The verdict of a wrong answer, or why there was none.
pub fn run(h: &dyn Execute, id: &str) -> Result<(), Verdict> {
    let calls = script(id).ok_or_else(|| runner::unexpected(&format!("verificación {id}")))?;
    check_script(h, &calls)
}

/// Plays `calls` against the implementation's shared server, from one thread.
fn shared(h: &dyn Execute, calls: &[Call]) -> Result<Answers, Verdict> {
    runner::ask(
        h,
        Shared {
            calls: calls.to_vec(),
        },
    )
}

/// Plays `calls` and compares every answer and every ledger with the model.
fn check_script(h: &dyn Execute, calls: &[Call]) -> Result<(), Verdict> {
    let got = shared(h, calls)?;
    let want = Model::play(calls);
    let Some(i) = parting(&got, &want) else {
        return Ok(());
    };
    let (hint, owner) = diagnose(calls, &got, &want, i);
    Err(Verdict::failed(
        format!(
            "{} llamada(s) desde un hilo → las respuestas y el ledger del modelo de la lección 4 ({} fila(s) al final)",
            calls.len(),
            want.last().map_or(0, |a| a.ledger.len())
        ),
        describe_got(calls, &got, &want, i, &label),
        hint,
    )
    .with_steps(steps::table(calls, &got, &want, &label))
    .owned_by(owner))
}

/// The earlier call with the same key, if any (its first use).
fn first_use(calls: &[Call], i: usize) -> Option<usize> {
    calls[..i].iter().position(|p| p.key == calls[i].key)
}

/// `la llamada 2 (K1 ord_0001 $400, la key de la llamada 1 con otro monto)`.
fn what_call(calls: &[Call], i: usize, name: &dyn Fn(IdempotencyKey) -> String) -> String {
    let c = calls[i];
    let again = first_use(calls, i).map_or(String::new(), |j| {
        let first = calls[j];
        let differs = match (first.order_id == c.order_id, first.amount == c.amount) {
            (true, true) => "la misma request",
            (true, false) => "otro monto",
            (false, true) => "otra orden",
            (false, false) => "otra orden y otro monto",
        };
        format!(", la key de la llamada {} con {differs}", j + 1)
    });
    format!(
        "la llamada {} ({} {} {}{again})",
        i + 1,
        name(c.key),
        c.order_id,
        c.amount
    )
}

/// What call `i` did differently, in one line: only what was observed.
pub fn describe_got(
    calls: &[Call],
    got: &Answers,
    want: &Answers,
    i: usize,
    name: &dyn Fn(IdempotencyKey) -> String,
) -> String {
    let what = what_call(calls, i, name);
    let Some(g) = got.get(i) else {
        return format!("{what} no tuvo respuesta");
    };
    let w = &want[i];
    if g.result != w.result {
        return format!(
            "{what} respondió {}; el modelo, {}",
            short(&g.result),
            short(&w.result)
        );
    }
    let (gw, ww) = (written(got, i), written(want, i));
    if gw != ww {
        return format!(
            "{what} respondió {} como el modelo, pero escribió {gw} fila(s) en tu ledger; el modelo, {ww}",
            short(&g.result)
        );
    }
    let n = first_row_difference(&g.ledger, &w.ledger);
    format!(
        "{what} respondió {} como el modelo, pero después la fila {} de tu ledger es {} (la del modelo, {})",
        short(&g.result),
        n + 1,
        describe_row(g.ledger.get(n), name),
        describe_row(w.ledger.get(n), name)
    )
}

/// The hint for the first difference, at call `i`, and the fixed check
/// whose rule it concerns: what was observed there and the lesson-4 rule
/// that call falls under, never a guess at the code behind it.
pub fn diagnose(calls: &[Call], got: &Answers, want: &Answers, i: usize) -> Hint {
    let c = calls[i];
    let Some(g) = got.get(i) else {
        return (
            format!("tu servidor no respondió la llamada {}.", i + 1),
            None,
        );
    };
    let w = &want[i];
    let wrote = written(got, i);
    let j = first_use(calls, i);
    match (&w.result, j) {
        (Err(ChargeError::KeyReused), Some(j)) => {
            let first = calls[j];
            let owner = if first.amount != c.amount {
                OTHER_AMOUNT
            } else {
                OTHER_ORDER
            };
            let field = if first.amount != c.amount {
                format!("otro monto ({} en vez de {})", c.amount, first.amount)
            } else {
                format!("otra orden ({} en vez de {})", c.order_id, first.order_id)
            };
            let observed = match &g.result {
                Ok(r) => format!("tu servidor la aceptó: respondió {}", short(&Ok(*r))),
                Err(ChargeError::InFlight) => {
                    "tu servidor respondió Err(InFlight) (el 409, «la primera sigue en curso»), pero la llamada de esa key ya había terminado".to_string()
                }
                Err(ChargeError::KeyReused) => "tu servidor respondió Err(KeyReused)".to_string(),
            };
            let ledger = if wrote == 0 && g.ledger == w.ledger {
                String::new()
            } else {
                format!(
                    " y tu ledger cambió ({wrote:+} fila(s); {})",
                    crate::ejercicios::cobro::fixed::describe_ledger(&g.ledger)
                )
            };
            (
                format!(
                    "la llamada {} repite la key de la llamada {} con {field}: {observed}{ledger}. La lección 4: la misma key con otra request se rechaza con Err(KeyReused) (el 422 del borrador de la IETF; Stripe igual), sin cobrar y sin tocar el ledger ni lo guardado bajo la key.",
                    i + 1,
                    j + 1
                ),
                Some(owner),
            )
        }
        (Ok(stored), Some(j)) => {
            let rejected = calls[j + 1..i]
                .iter()
                .position(|p| p.key == c.key && (p.order_id, p.amount) != (c.order_id, c.amount));
            let after = rejected.map_or(String::new(), |k| {
                format!(
                    " (después de la llamada {}, la misma key con otra request)",
                    j + 2 + k
                )
            });
            let (observed, owner) = match &g.result {
                Err(ChargeError::InFlight) => (
                    format!(
                        "tu servidor respondió Err(InFlight) (el 409, «sigue en curso»), pero la llamada {} ya había terminado antes de que esta empezara: en llamadas de un solo hilo ninguna key está en curso",
                        j + 1
                    ),
                    NO_IN_FLIGHT,
                ),
                Err(ChargeError::KeyReused) => (
                    format!(
                        "tu servidor respondió Err(KeyReused){after}, pero la request es la misma de la llamada {} (misma orden, mismo monto)",
                        j + 1
                    ),
                    REPLAY,
                ),
                Ok(r) if r != stored => (
                    format!(
                        "tu servidor respondió {}{}, no lo guardado en la llamada {} ({})",
                        short(&Ok(*r)),
                        after,
                        j + 1,
                        short(&Ok(*stored))
                    ),
                    REPLAY,
                ),
                Ok(_) => (
                    format!(
                        "tu servidor respondió lo guardado ({}), pero escribió {wrote} fila(s) en el ledger",
                        short(&Ok(*stored))
                    ),
                    REPLAY,
                ),
            };
            (
                format!(
                    "la llamada {} repite la request de la llamada {} con la misma key: {observed}. Es un replay: devuelve el resultado guardado, idéntico, sin tocar el ledger.",
                    i + 1,
                    j + 1
                ),
                Some(owner),
            )
        }
        (Ok(new), None) => {
            let twin = calls[..i]
                .iter()
                .any(|p| (p.order_id, p.amount) == (c.order_id, c.amount));
            let owner = match &g.result {
                Ok(r)
                    if r.charge_id != new.charge_id
                        && (r.amount, r.status) == (new.amount, new.status) =>
                {
                    IDS
                }
                Ok(_) if g.result == w.result && wrote == written(want, i) => {
                    let n = first_row_difference(&g.ledger, &w.ledger);
                    match (g.ledger.get(n), w.ledger.get(n)) {
                        (Some(a), Some(b)) if a.charge_id != b.charge_id => IDS,
                        _ => FIRST,
                    }
                }
                _ if twin => DISTINCT,
                _ => FIRST,
            };
            let observed = if g.result != w.result {
                format!("tu servidor respondió {}", short(&g.result))
            } else if wrote != written(want, i) {
                format!(
                    "tu servidor respondió {}, pero escribió {wrote} fila(s)",
                    short(&g.result)
                )
            } else {
                let n = first_row_difference(&g.ledger, &w.ledger);
                format!(
                    "tu servidor respondió {}, pero la fila {} de tu ledger es {}",
                    short(&g.result),
                    n + 1,
                    describe_row(g.ledger.get(n), &|k| k.to_string())
                )
            };
            let same = if twin {
                " (otra llamada anterior tiene la misma orden y el mismo monto con otra key: son dos operaciones)"
            } else {
                ""
            };
            (
                format!(
                    "la llamada {} trae una key nueva{same}: {observed}; el modelo cobra una vez, escribe la fila {} del ledger ({}) y guarda ese resultado bajo la key. El charge id es el de la fila: ch_0001 para la primera, ch_0002 para la segunda, …",
                    i + 1,
                    w.ledger.len(),
                    describe_row(w.ledger.last(), &|k| k.to_string())
                ),
                Some(owner),
            )
        }
        _ => (
            "tu servidor se aparta del modelo de la lección 4 en el paso marcado.".to_string(),
            None,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::{ChargeId, ChargeResult, ChargeStatus, LedgerEntry, OrderId};

    /// The model answers lesson 4's cases: charge, replay, 422, and the
    /// first key still replays its own result.
    #[test]
    fn the_model_follows_lesson_4() {
        let answers = Model::play(&script(OTHER_AMOUNT).unwrap());
        let results: Vec<String> = answers.iter().map(|a| short(&a.result)).collect();
        assert_eq!(
            results,
            [
                "ch_0001 $500",
                "Err(KeyReused)",
                "ch_0001 $500",
                "ch_0002 $400"
            ]
        );
        let rows: Vec<usize> = answers.iter().map(|a| a.ledger.len()).collect();
        assert_eq!(rows, [1, 1, 1, 2]);
        let ids = Model::play(&script(IDS).unwrap());
        let last = ids.last().unwrap();
        let charge_ids: Vec<String> = last
            .ledger
            .iter()
            .map(|r| r.charge_id.to_string())
            .collect();
        assert_eq!(charge_ids, ["ch_0001", "ch_0002", "ch_0003"]);
        assert_eq!(short(&ids[4].result), "Err(KeyReused)");
    }

    /// Every fixed check has a script, and no script makes the model
    /// answer `InFlight`.
    #[test]
    fn every_check_has_a_script_without_in_flight() {
        for (id, _) in CHECKS {
            let calls = script(id).unwrap();
            assert!(
                Model::play(&calls)
                    .iter()
                    .all(|a| a.result != Err(ChargeError::InFlight)),
                "{id}"
            );
        }
    }

    /// A reuse accepted as a new charge is described by what was seen and
    /// owned by the other-amount check.
    #[test]
    fn an_accepted_reuse_is_described_and_owned() {
        let calls = script(OTHER_AMOUNT).unwrap();
        let want = Model::play(&calls);
        let mut got = want.clone();
        let row = LedgerEntry {
            key: K1,
            order_id: OrderId(1),
            amount: dollars(400),
            charge_id: ChargeId(2),
        };
        got[1].result = Ok(ChargeResult {
            charge_id: ChargeId(2),
            amount: dollars(400),
            status: ChargeStatus::Captured,
        });
        got[1].ledger.push(row);
        let i = parting(&got, &want).unwrap();
        assert_eq!(i, 1);
        assert_eq!(
            describe_got(&calls, &got, &want, i, &label),
            "la llamada 2 (K1 ord_0001 $400, la key de la llamada 1 con otro monto) respondió ch_0002 $400; el modelo, Err(KeyReused)"
        );
        let (hint, owner) = diagnose(&calls, &got, &want, i);
        assert_eq!(owner, Some(OTHER_AMOUNT));
        assert!(hint.starts_with("la llamada 2 repite la key de la llamada 1 con otro monto ($400 en vez de $500): tu servidor la aceptó: respondió ch_0002 $400 y tu ledger cambió (+1 fila(s);"), "{hint}");
    }
}
