//! Exercise 2 against the model: random operations, loss scripts,
//! `max_attempts` from 1 to 100 and key seeds, through the harness's
//! recording server; every order's attempts, keys sent, stop point and
//! outcome compared with lesson 2's `client_charge` with one key per
//! operation.

use proptest::prelude::*;
use protocol::{Call, Job, Observation, OrderRun, Sent};
use sim::{ChargeId, ChargeOutcome, ChargeResult, ChargeStatus, Delivery, Fleet, KeySource, Money};

use super::{Family, Outcome};

/// A case: the operations' amounts, the network's losses, `max_attempts`
/// and the key seed.
#[derive(Clone, Debug)]
pub struct Operations {
    /// One order per amount, in whole dollars (ids 1, 2, …).
    pub dollars: Vec<i64>,
    /// Lost responses first (`lost_first` of them), then `script`, one
    /// entry per attempt (`true`: lost); then every response arrives.
    pub lost_first: usize,
    /// See `lost_first`.
    pub script: Vec<bool>,
    /// Most attempts per order.
    pub max_attempts: u32,
    /// Seed of the key source.
    pub key_seed: u64,
}

impl Operations {
    /// The fleet the job runs.
    pub fn fleet(&self) -> Fleet {
        let script = std::iter::repeat_n(true, self.lost_first)
            .chain(self.script.iter().copied())
            .map(|lost| {
                if lost {
                    Delivery::Lost
                } else {
                    Delivery::Delivered
                }
            })
            .collect();
        let amounts = self
            .dollars
            .iter()
            .map(|d| Money::from_dollars(*d))
            .collect();
        let mut fleet = Fleet::scripted(amounts, script, self.max_attempts);
        fleet.key_seed = self.key_seed;
        fleet
    }
}

/// The client family.
pub struct Client;

/// What lesson 2's client with one key per operation does with `fleet`,
/// against the recording server (call `n` answered with `ch_n`).
pub fn model(fleet: &Fleet) -> Vec<OrderRun> {
    let mut keys = fleet.keys();
    let mut n = 0u64;
    fleet
        .orders()
        .iter()
        .zip(protocol::lesson::attempts(fleet))
        .map(|(order, a)| {
            let key = keys.new_key();
            n += u64::from(a.attempts);
            let call = Call {
                key,
                order_id: order.id,
                amount: order.amount,
            };
            OrderRun {
                outcome: ChargeOutcome {
                    attempts: a.attempts,
                    confirmed: a.delivered.then_some(ChargeResult {
                        charge_id: ChargeId(n),
                        amount: order.amount,
                        status: ChargeStatus::Captured,
                    }),
                },
                sent: vec![Sent {
                    call,
                    times: a.attempts,
                }],
                keys_issued: vec![key],
            }
        })
        .collect()
}

impl Family for Client {
    type Case = Operations;

    fn strategy(&self) -> impl Strategy<Value = Operations> {
        (
            prop::collection::vec(prop_oneof![Just(500i64), 1i64..=500], 1..=4),
            prop_oneof![3 => 0usize..=3, 1 => 0usize..=110],
            prop::collection::vec(prop::bool::weighted(0.5), 0..=12),
            prop_oneof![3 => 1u32..=6, 1 => 1u32..=100],
            any::<u64>(),
        )
            .prop_map(
                |(dollars, lost_first, script, max_attempts, key_seed)| Operations {
                    dollars,
                    lost_first,
                    script,
                    max_attempts,
                    key_seed,
                },
            )
    }

    fn job(&self, case: &Operations) -> Job {
        Job::Client {
            fleet: case.fleet(),
            orders: None,
        }
    }

    fn judge(&self, case: &Operations, got: Observation) -> Outcome {
        let Observation::Client { orders: got, .. } = got else {
            return Outcome::Disagrees {
                trace: vec!["el harness respondió otra cosa".to_string()],
                hint: String::new(),
            };
        };
        let fleet = case.fleet();
        let want = model(&fleet);
        if got == want {
            return Outcome::Agrees;
        }
        let mut lines = vec![format!(
            "max_attempts={} · red (un resultado por intento, en orden): {}",
            case.max_attempts,
            network(case)
        )];
        let parts = (0..want.len().max(got.len())).find(|&i| got.get(i) != want.get(i));
        let orders = fleet.orders();
        let mut hint = String::new();
        for i in 0..parts.map_or(want.len(), |p| p + 1) {
            let (Some(w), Some(order)) = (want.get(i), orders.get(i)) else {
                break;
            };
            let g = got.get(i);
            let mark = if Some(i) == parts {
                "   ← aquí se separan"
            } else {
                ""
            };
            lines.push(format!(
                "{}. charge_order({}, {}) → modelo: {}",
                i + 1,
                order.id,
                order.amount,
                describe(w)
            ));
            lines.push(format!(
                "   tu código: {}{mark}",
                g.map_or_else(|| "no cobró esta orden".to_string(), describe)
            ));
            if Some(i) == parts {
                hint = g.map_or_else(String::new, |g| hint_for(w, g, case.max_attempts));
            }
        }
        if hint.is_empty() {
            hint = "una key por operación, creada con keys.new_key() antes del primer intento y reenviada idéntica; reintenta solo mientras la respuesta se pierda, hasta max_attempts, y confirma con el resultado que llegó.".to_string();
        }
        Outcome::Disagrees { trace: lines, hint }
    }

    fn describe(&self, case: &Operations) -> String {
        format!(
            "{} operación(es), {} resultado(s) de red, max_attempts={}",
            case.dollars.len(),
            case.lost_first + case.script.len(),
            case.max_attempts
        )
    }
}

/// The network's script in words: `perdida ×3, entregada, …`.
fn network(case: &Operations) -> String {
    let mut runs: Vec<(bool, usize)> = Vec::new();
    for lost in std::iter::repeat_n(true, case.lost_first).chain(case.script.iter().copied()) {
        match runs.last_mut() {
            Some((l, n)) if *l == lost => *n += 1,
            _ => runs.push((lost, 1)),
        }
    }
    let mut parts: Vec<String> = runs
        .iter()
        .map(|(lost, n)| {
            let word = if *lost { "perdida" } else { "entregada" };
            if *n == 1 {
                word.to_string()
            } else {
                format!("{word} ×{n}")
            }
        })
        .collect();
    parts.push("después todas entregadas".to_string());
    parts.join(", ")
}

/// One order's run in words.
fn describe(run: &OrderRun) -> String {
    let mut keys: Vec<String> = Vec::new();
    for c in run.calls() {
        let k = c.key.to_string();
        if keys.last() != Some(&k) {
            keys.push(k);
        }
    }
    let confirmed = run.outcome.confirmed.map_or_else(
        || "sin confirmar".to_string(),
        |r| format!("confirmado {}", r.charge_id),
    );
    format!(
        "{} intento(s) con key(s) [{}], {} key(s) creada(s), informó attempts={}, {confirmed}",
        run.call_count(),
        keys.join(", "),
        run.keys_issued.len(),
        run.outcome.attempts
    )
}

/// The mistake behind one order's difference.
fn hint_for(want: &OrderRun, got: &OrderRun, max: u32) -> String {
    let sent: Vec<_> = got.calls().map(|c| c.key).collect();
    let (got_n, want_n) = (got.call_count(), want.call_count());
    if got_n != want_n {
        return if got_n > want_n && want.outcome.confirmed.is_some() {
            "la respuesta llegó y aun así reintentó: detente en la primera respuesta que llegue."
                .to_string()
        } else if got_n > u64::from(max) {
            format!(
                "hizo {got_n} intentos con max_attempts={max}: son como mucho max_attempts intentos, contando el primero."
            )
        } else {
            format!(
                "hizo {got_n} intentos y la red pedía {want_n}: reintenta mientras la respuesta se pierda, hasta max_attempts (contando el primero)."
            )
        };
    }
    if got.keys_issued.len() != 1 || sent.iter().any(|k| Some(k) != got.keys_issued.first()) {
        return "cada operación lleva UNA key: créala con keys.new_key() una sola vez, antes del primer intento, y reenvía esa misma en cada reintento (una key por intento cobra cada reintento: el error de la lección 3).".to_string();
    }
    if got.outcome.attempts != want.outcome.attempts {
        return "ChargeOutcome::attempts es cuántas veces enviaste el cobro, contando el primero."
            .to_string();
    }
    "confirmed es el resultado que llegó (Some del último intento) o None si se perdieron las max_attempts respuestas.".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two operations, the first with two lost responses: 3 + 1 calls, one
    /// key each, confirmed with ch_3 and ch_4.
    #[test]
    fn the_model_is_lesson_twos_client() {
        let case = Operations {
            dollars: vec![500, 300],
            lost_first: 2,
            script: Vec::new(),
            max_attempts: 4,
            key_seed: 9,
        };
        let runs = model(&case.fleet());
        assert_eq!(runs[0].call_count(), 3);
        assert_eq!(runs[0].outcome.confirmed.unwrap().charge_id, ChargeId(3));
        assert_eq!(runs[1].call_count(), 1);
        assert_eq!(runs[1].outcome.confirmed.unwrap().charge_id, ChargeId(4));
        assert_ne!(runs[0].keys_issued, runs[1].keys_issued);
        assert_eq!(network(&case), "perdida ×2, después todas entregadas");
    }
}
