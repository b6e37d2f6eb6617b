//! Exercise 1 against the model: random histories of `charge` calls, in
//! both modes (new keys, keys replayed right away or after many other keys,
//! interleaved, another order or amount under the same key, long histories),
//! through the implementation's server and lesson 2's `PaymentsServer`.
//! Keys span the whole 64 bits, with pairs that share their high half, their
//! low half or their folded 32 bits, and 0 and `u64::MAX`; order ids and
//! amounts span their types; one fixed history passes 65,536 rows and
//! 2^20 + 1 keys, in both modes. The domain table is in [`super`].

use proptest::prelude::*;
use protocol::{Call, Charges, Played};
use sim::{IdempotencyKey, Money, OrderId};

use crate::checks::model::{Family, Outcome};
use crate::ejercicios::cobro::fixed::{describe_result, diagnose, play};
use crate::ejercicios::cobro::steps;
use crate::spy::SpyServer;

/// A history: the mode, the keys it may use, then the calls.
#[derive(Clone, Debug)]
pub struct History {
    /// With (`true`) or without idempotency.
    pub idempotent: bool,
    /// The keys the calls pick from (a fixed number per kind of history, so
    /// shrinking a key's value never leaves a call without one).
    pub keys: Vec<IdempotencyKey>,
    /// `(index into keys, order id, amount)` per call.
    pub calls: Vec<(usize, u64, Money)>,
}

impl History {
    /// The calls as the server receives them.
    pub fn calls(&self) -> Vec<Call> {
        self.calls
            .iter()
            .map(|&(k, order, amount)| Call {
                key: self.keys[k],
                order_id: OrderId(order),
                amount,
            })
            .collect()
    }
}

/// A key as two 32-bit halves, each often one of a few small values or the
/// maximum: pairs that share their high half, their low half, or their
/// halves' XOR (`hi ^ lo`, a common fold to 32 bits) are frequent, and 0
/// and `u64::MAX` appear; the rest are random over the whole 64 bits.
pub(crate) fn key() -> impl Strategy<Value = IdempotencyKey> {
    const MAX: i64 = u32::MAX as i64;
    const HALF: [(u32, i64, i64, i64); 3] = [(3, 0, 3, 1), (1, MAX, MAX, 1), (3, 0, MAX, 1)];
    (
        crate::checks::model::banded(&HALF),
        crate::checks::model::banded(&HALF),
    )
        .prop_map(|(hi, lo)| IdempotencyKey((hi as u64) << 32 | lo as u64))
}

/// Keys a short history picks from.
const SHORT_KEYS: usize = 6;
/// Keys a long history picks from.
const LONG_KEYS: usize = 400;
/// Distinct keys in the large fixed history, 2^20 + 1: past any `u16`
/// counter (65,536) and any store or cache bounded at a power of two up to
/// 2^20 (issue 27: a case just past 100,000 is passed by one of 131,072).
pub const LARGE_KEYS: usize = (1 << 20) + 1;

/// Key number `i` of the public large history: its low half counts up (as
/// the kit's key source does), its high half is scrambled, so that no two
/// share a half by construction.
fn large_key(i: usize) -> IdempotencyKey {
    let i = i as u64;
    let high = (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 32;
    IdempotencyKey(high << 32 | (i + 1))
}

/// The keys, orders and amounts of the large history of a seed other than
/// the public one: each half of key `i` is `i + 1` through a bijection of
/// `u32` chosen by the seed (no two keys share a half, as in the public
/// history, and nothing counts up), and so are the orders and amounts.
#[derive(Clone, Copy)]
struct Drawn {
    high: u32,
    low: u32,
    order: u32,
    amount: u32,
}

impl Drawn {
    fn of(seed: u64) -> Drawn {
        let mut s = sim::Stream::new(sim::StreamKind::Chacha, seed);
        Drawn {
            high: s.next_u32(),
            low: s.next_u32(),
            order: s.next_u32(),
            amount: s.next_u32(),
        }
    }

    fn key(self, i: usize) -> IdempotencyKey {
        let n = i as u32 + 1;
        let (high, low) = (scramble(n, self.high), scramble(n, self.low));
        IdempotencyKey(u64::from(high) << 32 | u64::from(low))
    }
}

/// The first `n` keys of the large history of `seed` (the public one's,
/// or [`Drawn`]'s): distinct, and no two share a half. Exercise 4's long
/// histories use them too.
pub fn large_keys(seed: u64, n: usize) -> Vec<IdempotencyKey> {
    let drawn = (seed != crate::checks::model::PUBLIC_SEED).then(|| Drawn::of(seed));
    (0..n)
        .map(|i| drawn.map_or_else(|| large_key(i), |d| d.key(i)))
        .collect()
}

/// A bijection of `u32` chosen by `salt` (a xor, then a multiply and
/// xorshift mixer): distinct inputs stay distinct, consecutive ones look
/// unrelated.
fn scramble(x: u32, salt: u32) -> u32 {
    let mut x = x ^ salt;
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// The server family.
#[derive(Default)]
pub struct Server;

impl Family for Server {
    const TAG: u8 = 1;
    type Case = History;
    type Request = Charges;

    fn strategy(&self) -> impl Strategy<Value = History> {
        let call = |keys: usize| {
            (
                0..keys,
                crate::checks::model::order_id(3),
                crate::checks::model::amount(),
            )
        };
        // Short histories over a few keys: replays right away and
        // interleaved, other orders and amounts under one key.
        // The calls come first: shrinking removes calls before it simplifies
        // key values.
        let short = (
            prop::collection::vec(call(SHORT_KEYS), 1..=24),
            prop::collection::vec(key(), SHORT_KEYS),
        );
        // Long ones over many keys: replays long after the first call.
        let long = (
            prop::collection::vec(call(LONG_KEYS), 300..=1500),
            prop::collection::vec(key(), LONG_KEYS),
        );
        (any::<bool>(), prop_oneof![9 => short, 1 => long]).prop_map(
            |(idempotent, (calls, keys))| History {
                idempotent,
                keys,
                calls,
            },
        )
    }

    fn job(&self, case: &History) -> Charges {
        Charges {
            idempotent: case.idempotent,
            calls: case.calls(),
        }
    }

    fn judge(&self, case: &History, got: Played) -> Outcome {
        let calls = case.calls();
        let want = play(&mut SpyServer::new(case.idempotent), &calls);
        if got == want {
            return Outcome::Agrees;
        }
        Outcome::Disagrees {
            trace: trace(case.idempotent, &calls, &got, &want),
            hint: hint(case.idempotent, &calls, &got, &want),
        }
    }

    /// [`LARGE_KEYS`] new keys (rows past `ch_9999`, past 65,536, a `u16`
    /// counter's end, and past 2^20), then replays of keys at the edges of round cache
    /// sizes (the first, 4,096, 65,536, the middle, the last), a new key,
    /// and the first key again. Amounts in cents. In both modes: with
    /// idempotency ([`LARGE_KEYS`] rows, and replays) and without it
    /// ([`LARGE_KEYS`] + 9 rows, each call charged: counters and ids past 65,536 rows in the
    /// mode that never reads the store). A seed other than the public one
    /// draws the keys, orders and amounts ([`Drawn`]).
    fn large(&self, seed: u64) -> Vec<History> {
        let drawn = (seed != crate::checks::model::PUBLIC_SEED).then(|| Drawn::of(seed));
        let keys = large_keys(seed, LARGE_KEYS);
        let amount = |k: usize| {
            Money::from_cents(
                1 + drawn.map_or((k as i64 * 7_919) % 50_000, |d| {
                    i64::from(scramble(k as u32, d.amount) % 50_000)
                }),
            )
        };
        let order = |k: usize| {
            drawn.map_or((k as u64).wrapping_mul(31) % 1_000, |d| {
                u64::from(scramble(k as u32, d.order) % 1_000)
            }) + 1
        };
        let mut calls: Vec<(usize, u64, Money)> = (0..LARGE_KEYS - 1)
            .map(|k| (k, order(k), amount(k)))
            .collect();
        for k in [
            0,
            1,
            4_095,
            4_096,
            65_535,
            65_536,
            LARGE_KEYS / 2,
            LARGE_KEYS - 2,
        ] {
            calls.push((k, order(k), amount(k)));
        }
        let last = LARGE_KEYS - 1;
        calls.push((last, order(last), amount(last)));
        calls.push((0, order(0), amount(0)));
        let idempotent = History {
            idempotent: true,
            keys,
            calls,
        };
        let without = History {
            idempotent: false,
            ..idempotent.clone()
        };
        vec![idempotent, without]
    }

    fn too_slow(&self, case: &History) -> Option<String> {
        let mut keys = case.keys.clone();
        keys.sort_unstable();
        keys.dedup();
        Some(format!(
            "son {} keys distintas, y la lección responde cada llamada con una búsqueda por key (un HashMap de key a resultado, su store): si tu código recorre el ledger o el store en cada llamada, su tiempo crece con el cuadrado de las llamadas",
            sim::money::group_thousands(keys.len() as u64),
        ))
    }

    fn describe(&self, case: &History) -> String {
        let mode = if case.idempotent {
            "con idempotencia"
        } else {
            "sin idempotencia"
        };
        format!(
            "{} llamada(s) a charge, {mode}",
            sim::money::group_thousands(case.calls.len() as u64)
        )
    }
}

/// What the model check says about a disagreement: a late replay charged
/// again ([`late_replay`]), else the mistake the fixed checks name
/// ([`diagnose`]), else the rule at the marked step.
fn hint(idempotent: bool, calls: &[Call], got: &Played, want: &Played) -> String {
    late_replay(idempotent, calls, got, want)
        .or_else(|| diagnose(idempotent, calls, got, want).map(|h| h.0))
        .unwrap_or_else(|| {
            "tu charge se aparta del de la lección en el paso marcado: sin idempotencia cada llamada cobra; con idempotencia, una key ya guardada es un replay del resultado guardado bajo ESA key, sin tocar el ledger, y una key nueva es un cobro de verdad.".to_string()
        })
}

/// The hint for a replay that the implementation charged again although the
/// key was stored some calls (and keys) before, with the same order and
/// amount: a store that forgets. A repeat with another order or amount is
/// [`diagnose`]'s (the content changed: that is what was observed).
fn late_replay(idempotent: bool, calls: &[Call], got: &Played, want: &Played) -> Option<String> {
    if !idempotent {
        return None;
    }
    let i = (0..calls.len()).find(|&i| got.answers.get(i) != want.answers.get(i))?;
    let first = calls[..i].iter().position(|c| c.key == calls[i].key)?;
    if (calls[first].order_id, calls[first].amount) != (calls[i].order_id, calls[i].amount) {
        return None;
    }
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
/// (numbered here, spelled only for the keys a trace shows: a large
/// history has a million).
pub(crate) struct Labels(rustc_hash::FxHashMap<IdempotencyKey, usize>);

impl Labels {
    /// The labels of `calls`' keys.
    pub(crate) fn of(calls: &[Call]) -> Labels {
        let mut numbers = rustc_hash::FxHashMap::default();
        numbers.reserve(calls.len());
        for c in calls {
            let n = numbers.len() + 1;
            numbers.entry(c.key).or_insert(n);
        }
        Labels(numbers)
    }

    /// `K7` for the seventh key used, the key itself for one never used.
    pub(crate) fn name(&self, key: IdempotencyKey) -> String {
        self.0
            .get(&key)
            .map_or_else(|| key.to_string(), |n| format!("K{n}"))
    }
}

/// The step table: each call, what the model and the implementation
/// answered and their ledger sizes, up to the first call where they part
/// (or the first ledger row that differs when only the ledgers do), then
/// the model's store.
fn trace(idempotent: bool, calls: &[Call], got: &Played, want: &Played) -> Vec<String> {
    let names = Labels::of(calls);
    steps::table(idempotent, calls, got, want, &|k| names.name(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The large history's keys are distinct and share no half, with the
    /// public seed and with hidden variants' seeds; a variant's has no key,
    /// order sequence or amount sequence of the public one's (nothing to
    /// recognise it by), and the same calls at the edges.
    #[test]
    fn large_keys_are_distinct_in_both_halves() {
        let public = &Server.large(crate::checks::model::PUBLIC_SEED)[0];
        for seed in [crate::checks::model::PUBLIC_SEED, 895_581_019] {
            let history = &Server.large(seed)[0];
            let keys: Vec<u64> = history.keys.iter().map(|k| k.0).collect();
            let distinct = |f: fn(u64) -> u64| {
                let mut v: Vec<u64> = keys.iter().map(|&k| f(k)).collect();
                v.sort_unstable();
                v.dedup();
                v.len()
            };
            assert_eq!(distinct(|k| k), LARGE_KEYS, "seed {seed}");
            assert_eq!(distinct(|k| k & 0xffff_ffff), LARGE_KEYS, "seed {seed}");
            assert_eq!(distinct(|k| k >> 32), LARGE_KEYS, "seed {seed}");
            assert!(history.calls.len() > 65_536 + 8);
            let indices = |h: &History| h.calls.iter().map(|c| c.0).collect::<Vec<_>>();
            assert_eq!(indices(history), indices(public));
            if seed != crate::checks::model::PUBLIC_SEED {
                let public_keys: std::collections::HashSet<_> = public.keys.iter().collect();
                assert!(history.keys.iter().all(|k| !public_keys.contains(k)));
                assert_ne!(history.calls[..3], public.calls[..3]);
                assert!(history.calls.iter().all(|&(_, order, amount)| {
                    (1..=1_000).contains(&order) && (1..=50_000).contains(&amount.cents())
                }));
            }
            let want = play(&mut SpyServer::new(true), &history.calls());
            assert_eq!(want.ledger.len(), LARGE_KEYS);
            assert_eq!(
                want.answers.last().unwrap().result.charge_id.to_string(),
                "ch_0001"
            );
            // The same calls without idempotency: every one is a row.
            let without = &Server.large(seed)[1];
            assert!(!without.idempotent);
            assert_eq!(without.calls, history.calls);
            let want = play(&mut SpyServer::new(false), &without.calls());
            assert_eq!(want.ledger.len(), LARGE_KEYS + 9);
            assert_eq!(
                want.answers.last().unwrap().result.charge_id.to_string(),
                "ch_1048586"
            );
        }
    }

    fn call(key: u64, order: u64, cents: i64) -> Call {
        Call {
            key: IdempotencyKey(key),
            order_id: OrderId(order),
            amount: Money::from_cents(cents),
        }
    }

    /// A key sent again with another amount and charged again (a store
    /// keyed by (key, amount)): the hint names the content that changed and
    /// the rule, not a store that forgets; the same content sent again and
    /// charged again is the store that forgets.
    #[test]
    fn a_repeat_with_other_content_is_told_as_such_and_a_late_one_as_forgotten() {
        // The hint for a server that charges every call, idempotent or not.
        let hint_of = |calls: &[Call]| {
            let got = play(&mut SpyServer::new(false), calls);
            hint(true, calls, &got, &play(&mut SpyServer::new(true), calls))
        };
        let h = hint_of(&[call(7, 1, 100), call(7, 1, 200)]);
        assert!(h.contains("otro contenido"), "{h}");
        assert!(h.contains("solo por la key"), "{h}");
        assert!(!h.contains("olvida"), "{h}");

        let h = hint_of(&[call(7, 1, 100), call(8, 2, 100), call(7, 1, 100)]);
        assert!(h.contains("repite la key del paso 1"), "{h}");
        assert!(h.contains("olvida"), "{h}");
    }

    /// Answers every job as lesson 2's server, except the fixed large
    /// histories, which never finish: an O(n) store lookup.
    struct SlowOnLarge;

    impl crate::runner::Execute for SlowOnLarge {
        fn execute(
            &self,
            jobs: &[protocol::Job],
        ) -> Vec<Result<protocol::Observation, crate::verdict::Verdict>> {
            use protocol::{Job, Observation};
            jobs.iter()
                .map(|job| match job {
                    Job::Charges(Charges { calls, .. }) if calls.len() > LARGE_KEYS => {
                        Err(crate::verdict::Verdict::TimedOut {
                            limit_ms: 5_500,
                            case: None,
                        })
                    }
                    Job::Charges(Charges { idempotent, calls }) => Ok(Observation::Charges(play(
                        &mut SpyServer::new(*idempotent),
                        calls,
                    ))),
                    other => panic!("not a charges job: {other:?}"),
                })
                .collect()
        }
    }

    /// A time-out on the large history names it (calls, keys, mode) and
    /// what each call needs; the random cases all finished.
    #[test]
    fn a_large_time_out_names_the_case() {
        let verdict = crate::checks::model::run::<Server>(
            &SlowOnLarge,
            crate::checks::model::PUBLIC_SEED,
            true,
        )
        .unwrap_err();
        assert_eq!(
            verdict.explanation(),
            [
                "no terminó en 5.5 s y se detuvo en el caso grande fijo (1,048,586 llamada(s) a charge, con idempotencia), después de los 200 casos aleatorios, que sí terminaron: son 1,048,577 keys distintas, y la lección responde cada llamada con una búsqueda por key (un HashMap de key a resultado, su store): si tu código recorre el ledger o el store en cada llamada, su tiempo crece con el cuadrado de las llamadas"
            ]
        );
        // Any other time-out says only what was seen.
        let other = crate::verdict::Verdict::TimedOut {
            limit_ms: 1_000,
            case: None,
        };
        assert_eq!(
            other.explanation(),
            [
                "no terminó en 1 s y se detuvo: tu código no devolvió ninguna respuesta en ese tiempo (el límite crece con el trabajo de la verificación)"
            ]
        );
    }

    /// The trace of a replay that charged again: the step table, keys
    /// named in order of first use.
    #[test]
    fn a_trace_marks_where_they_part() {
        let calls = History {
            idempotent: true,
            keys: vec![IdempotencyKey(0x9001_0000_0000_0001)],
            calls: vec![(0, 1, Money::from_dollars(500)); 2],
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
