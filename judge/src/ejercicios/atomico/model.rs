//! Exercise 4 against the model: random histories of calls to the shared
//! server from one thread — new keys, replays of a key's request right
//! away or after others, and reuses of a key with another amount or another
//! order (accepted nowhere: `Err(KeyReused)`) — through the implementation
//! and lesson 4's model ([`crate::ejercicios::atomico::fixed::Model`]). Keys span the
//! whole 64 bits (exercise 1's key generator: pairs sharing a half, 0 and
//! `u64::MAX`), order ids and amounts their types ([`crate::checks::model::order_id`],
//! [`crate::checks::model::amount`]). Concurrent retries are the schedule explorer's.
//!
//! | input | domain (type, doc) | generated | edges that break code |
//! |---|---|---|---|
//! | `key` | `IdempotencyKey(u64)` | 1..=5 keys per history, from exercise 1's key strategy | `as u32`, 0 as "empty" |
//! | `order_id` | `OrderId(u64)` | a key's first request: mostly 1..=3, else 0, `u64::MAX`, large; a reuse: another one | 0, `u64::MAX` |
//! | `amount` | positive `Money` cents | [`crate::checks::model::amount`] | cents, `i32`/`u32`, `f64` |
//! | what a call repeats | new key, replay, other amount, other order | 2 : 1 : 1 weights of replay, other amount, other order for a used key | a reuse after a replay, a replay after a reuse |
//! | history | any length | 1..=30 calls | — |

use std::collections::BTreeMap;

use proptest::prelude::*;
use protocol::{Call, Shared};
use sim::{IdempotencyKey, Money, OrderId};

use super::fixed;
use super::rules::{self, Answers, Model};
use super::steps;
use crate::checks::model::{Family, Outcome};

/// What a call does with a key already used in the history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repeat {
    /// The same request as the key's first call (a replay).
    Same,
    /// The key's order with this call's amount.
    OtherAmount,
    /// The key's amount with this call's order.
    OtherOrder,
}

/// One call of a history: a key, what it repeats when the key was used
/// before, and the order and amount it brings (a new key's request, or the
/// field a reuse changes).
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// Index into the history's keys.
    pub key: usize,
    /// What it repeats of the key's first request (ignored for a new key).
    pub repeat: Repeat,
    /// An order id.
    pub order: u64,
    /// An amount.
    pub amount: Money,
}

/// A history: the keys it uses, then the steps.
#[derive(Clone, Debug)]
pub struct History {
    /// The keys the steps pick from.
    pub keys: Vec<IdempotencyKey>,
    /// The steps, in order.
    pub steps: Vec<Step>,
}

impl History {
    /// The calls as the server receives them.
    pub fn calls(&self) -> Vec<Call> {
        let mut first: BTreeMap<usize, (OrderId, Money)> = BTreeMap::new();
        self.steps
            .iter()
            .map(|s| {
                let (order_id, amount) = match (first.get(&s.key), s.repeat) {
                    (None, _) => {
                        let request = (OrderId(s.order), s.amount);
                        first.insert(s.key, request);
                        request
                    }
                    (Some(&r), Repeat::Same) => r,
                    (Some(&(o, _)), Repeat::OtherAmount) => (o, s.amount),
                    (Some(&(_, a)), Repeat::OtherOrder) => (OrderId(s.order), a),
                };
                Call {
                    key: self.keys[s.key],
                    order_id,
                    amount,
                }
            })
            .collect()
    }
}

/// Keys a history picks from.
const KEYS: usize = 5;

/// The shared-server family.
#[derive(Default)]
pub struct Store;

impl Family for Store {
    const TAG: u8 = 4;
    type Case = History;
    type Request = Shared;

    fn strategy(&self) -> impl Strategy<Value = History> {
        let repeat = (0u8..4).prop_map(|r| match r {
            0 | 1 => Repeat::Same,
            2 => Repeat::OtherAmount,
            _ => Repeat::OtherOrder,
        });
        let step = (
            0..KEYS,
            repeat,
            crate::checks::model::order_id(3),
            crate::checks::model::amount(),
        )
            .prop_map(|(key, repeat, order, amount)| Step {
                key,
                repeat,
                order,
                amount,
            });
        // The steps come first: shrinking removes calls before it
        // simplifies key values.
        (
            prop::collection::vec(step, 1..=30),
            prop::collection::vec(crate::ejercicios::cobro::model::key(), KEYS),
        )
            .prop_map(|(steps, keys)| History { keys, steps })
    }

    fn job(&self, case: &History) -> Shared {
        Shared {
            calls: case.calls(),
        }
    }

    fn judge(&self, case: &History, got: Answers) -> Outcome {
        let calls = case.calls();
        let want = Model::play(&calls);
        let Some(i) = rules::parting(&got, &want) else {
            return Outcome::Agrees;
        };
        let names = crate::ejercicios::cobro::model::Labels::of(&calls);
        let name = |k: IdempotencyKey| names.name(k);
        let mut trace = steps::table(&calls, &got, &want, &name);
        trace.push(fixed::describe_got(&calls, &got, &want, i, &name));
        Outcome::Disagrees {
            trace,
            hint: fixed::diagnose(&calls, &got, &want, i).0,
        }
    }

    fn long(
        &self,
        h: &dyn crate::runner::Execute,
        seed: u64,
    ) -> Result<(), crate::verdict::Verdict> {
        super::long::run(h, seed)
    }

    fn describe(&self, case: &History) -> String {
        format!(
            "{} llamada(s) al servidor compartido, una tras otra desde un hilo",
            case.steps.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use sim::ChargeError;

    /// Generated histories reach every lesson-4 case: charges, replays and
    /// rejected reuses of both kinds, and never `InFlight`.
    #[test]
    fn histories_reach_every_sequential_case() {
        let mut runner = TestRunner::deterministic();
        let strategy = Store.strategy();
        let (mut charges, mut replays, mut amount, mut order) = (0, 0, 0, 0);
        for _ in 0..200 {
            let h = strategy.new_tree(&mut runner).unwrap().current();
            let calls = h.calls();
            let answers = Model::play(&calls);
            for (i, a) in answers.iter().enumerate() {
                match &a.result {
                    Ok(_) if rules::written(&answers, i) == 1 => charges += 1,
                    Ok(_) => replays += 1,
                    Err(ChargeError::KeyReused) => {
                        let j = calls[..i].iter().position(|p| p.key == calls[i].key);
                        let first = calls[j.unwrap()];
                        if first.amount != calls[i].amount {
                            amount += 1;
                        } else {
                            order += 1;
                        }
                    }
                    Err(ChargeError::InFlight) => panic!("InFlight from one thread"),
                }
            }
        }
        assert!(charges > 200 && replays > 200, "{charges} {replays}");
        assert!(amount > 100 && order > 100, "{amount} {order}");
    }
}
