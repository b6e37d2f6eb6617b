//! Exercise 1 against the model: random histories of `charge` calls, in
//! both modes (new keys, keys replayed right away or after many other keys,
//! interleaved, another order or amount under the same key, long histories),
//! through the implementation's server and lesson 2's `PaymentsServer`.

use std::collections::BTreeMap;

use proptest::prelude::*;
use protocol::{Call, Job, Observation};
use sim::{IdempotencyKey, Money, OrderId};

use super::{Family, Outcome};
use crate::checks::charge_steps;
use crate::checks::server::{describe_result, diagnose, play};
use crate::runner::Played;
use crate::spy::SpyServer;

/// A history: the mode, then the calls.
#[derive(Clone, Debug)]
pub struct History {
    /// With (`true`) or without idempotency.
    pub idempotent: bool,
    /// `(key index, order id, dollars)` per call; keys come from [`key`].
    pub calls: Vec<(usize, u64, i64)>,
}

impl History {
    /// The calls as the server receives them.
    pub fn calls(&self) -> Vec<Call> {
        self.calls
            .iter()
            .map(|&(k, order, dollars)| Call {
                key: key(k),
                order_id: OrderId(order),
                amount: Money::from_dollars(dollars),
            })
            .collect()
    }
}

/// Key number `i` of a history. Every fourth key shares its low 32 bits
/// with the others of its kind, so a store that keeps only part of a key
/// confuses them; the rest count up like the kit's own keys.
pub fn key(i: usize) -> IdempotencyKey {
    let i = i as u64;
    if i % 4 == 3 {
        IdempotencyKey(((i / 4 + 1) << 32) | 0x5)
    } else {
        IdempotencyKey(0x9001_0000_0000_0000 | (i + 1))
    }
}

/// Distinct keys in the large fixed history.
const LARGE_KEYS: usize = 5_000;

/// The server family.
pub struct Server;

impl Family for Server {
    type Case = History;

    fn strategy(&self) -> impl Strategy<Value = History> {
        let dollars = (1i64..=5).prop_map(|d| d * 100);
        // Short histories over a few keys: replays right away and
        // interleaved, other orders and amounts under one key.
        let short = prop::collection::vec((0usize..6, 1u64..=3, dollars.clone()), 1..=24);
        // Long ones over many keys: replays long after the first call.
        let long = prop::collection::vec((0usize..400, 1u64..=40, dollars), 300..=1500);
        (any::<bool>(), prop_oneof![9 => short, 1 => long])
            .prop_map(|(idempotent, calls)| History { idempotent, calls })
    }

    fn job(&self, case: &History) -> Job {
        Job::Charges {
            idempotent: case.idempotent,
            calls: case.calls(),
        }
    }

    fn judge(&self, case: &History, got: Observation) -> Outcome {
        let Ok(got) = crate::runner::played(got) else {
            return Outcome::Disagrees {
                trace: vec!["el harness respondió otra cosa".to_string()],
                hint: String::new(),
            };
        };
        let calls = case.calls();
        let want = play(&mut SpyServer::new(case.idempotent), &calls);
        if got == want {
            return Outcome::Agrees;
        }
        Outcome::Disagrees {
            trace: trace(case.idempotent, &calls, &got, &want),
            hint: late_replay(case.idempotent, &calls, &got, &want)
                .or_else(|| diagnose(case.idempotent, &calls, &got, &want).map(|h| h.0))
                .unwrap_or_else(|| {
                "tu charge se aparta del de la lección en el paso marcado: sin idempotencia cada llamada cobra; con idempotencia, una key ya guardada es un replay del resultado guardado bajo ESA key, sin tocar el ledger, y una key nueva es un cobro de verdad.".to_string()
            }),
        }
    }

    /// A store that forgets after some thousands of keys: 5,000 new keys,
    /// then replays of the first, the second, one in the middle and the
    /// last.
    fn large(&self) -> Vec<History> {
        let mut calls: Vec<(usize, u64, i64)> = (0..LARGE_KEYS)
            .map(|k| (k, k as u64 % 40 + 1, 100))
            .collect();
        for k in [0, 1, LARGE_KEYS / 2, LARGE_KEYS - 1] {
            calls.push((k, k as u64 % 40 + 1, 100));
        }
        vec![History {
            idempotent: true,
            calls,
        }]
    }

    fn describe(&self, case: &History) -> String {
        let mode = if case.idempotent {
            "con idempotencia"
        } else {
            "sin idempotencia"
        };
        format!("{} llamada(s) a charge, {mode}", case.calls.len())
    }
}

/// The hint for a replay that the implementation charged again although the
/// key was stored some calls (and keys) before: a store that forgets.
fn late_replay(idempotent: bool, calls: &[Call], got: &Played, want: &Played) -> Option<String> {
    if !idempotent {
        return None;
    }
    let i = (0..calls.len()).find(|&i| got.answers.get(i) != want.answers.get(i))?;
    let first = calls[..i].iter().position(|c| c.key == calls[i].key)?;
    let wrote = |p: &Played| p.answers[i].rows - if i == 0 { 0 } else { p.answers[i - 1].rows };
    if wrote(want) != 0 || wrote(got) == 0 {
        return None;
    }
    let between = &calls[first + 1..i];
    let mut others: Vec<IdempotencyKey> = between.iter().map(|c| c.key).collect();
    others.sort_unstable();
    others.dedup();
    Some(format!(
        "el paso {} repite la key del paso {} ({} llamada(s) y {} key(s) distinta(s) en medio): es un replay y debe devolver lo guardado ({}) sin cobrar, pero tu servidor cobró otra vez. ¿Tu store olvida keys, las reemplaza o confunde unas con otras? El cuaderno del cajero recuerda cada folio para siempre: guarda cada key entera y no la borres.",
        i + 1,
        first + 1,
        between.len(),
        others.len(),
        describe_result(&want.answers[i].result)
    ))
}

/// Short names for the keys of a trace, in order of first use: `K1`, `K2`…
fn labels(calls: &[Call]) -> BTreeMap<IdempotencyKey, String> {
    let mut names = BTreeMap::new();
    for c in calls {
        let n = names.len() + 1;
        names.entry(c.key).or_insert_with(|| format!("K{n}"));
    }
    names
}

/// The step table: each call, what the model and the implementation
/// answered and their ledger sizes, up to the first call where they part
/// (or the first ledger row that differs when only the ledgers do), then
/// the model's store.
fn trace(idempotent: bool, calls: &[Call], got: &Played, want: &Played) -> Vec<String> {
    let names = labels(calls);
    let name = |k: IdempotencyKey| names.get(&k).cloned().unwrap_or_else(|| k.to_string());
    charge_steps::table(idempotent, calls, got, want, &name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_of_the_fourth_kind_share_their_low_bits() {
        assert_eq!(key(3).0 as u32, key(7).0 as u32);
        assert_ne!(key(3), key(7));
        assert_eq!(key(0), IdempotencyKey(0x9001_0000_0000_0001));
    }

    /// The trace of a replay that charged again: the step table, keys
    /// named in order of first use.
    #[test]
    fn a_trace_marks_where_they_part() {
        let calls = History {
            idempotent: true,
            calls: vec![(0, 1, 500), (0, 1, 500)],
        }
        .calls();
        let want = play(&mut SpyServer::new(true), &calls);
        let got = play(&mut SpyServer::new(false), &calls);
        let lines = trace(true, &calls, &got, &want);
        assert_eq!(lines.len(), 5, "{lines:#?}");
        assert_eq!(
            lines[0],
            "servidor CON idempotencia · keys: K1=idem_9001000000000001"
        );
        assert_eq!(
            lines[3],
            "  2.  K1 ord_0001 $500  ch_0001 $500 replay  ch_0002 $500  1 · 2  ← aquí se separan"
        );
        assert_eq!(lines[4], "store del modelo tras el paso 2: {K1→ch_0001}");
    }
}
