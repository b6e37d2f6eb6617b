//! Model-based checks: many seeded random inputs per exercise, run through
//! the implementation and through the judge's model of the lesson, and the
//! first disagreement shrunk (proptest's strategies and shrinking) to a
//! smallest input that still disagrees, shown as a numbered Spanish trace.
//!
//! A fixed check is one example the lesson names; these are the guarantee
//! for everything nobody listed. The same seed gives the same cases, the same
//! shrinking and byte-identical reports.
//!
//! # The domain each input may take, and what the generators cover
//!
//! Each input's domain is what its type and the exercise's doc comment
//! allow; the generators cover it, with the edge values that break common
//! code weighted up (issue 15: before, every generated order was numbered
//! 1..n, every amount a whole number of dollars, every key one of two bit
//! patterns, and no history or `max_attempts` passed a small integer type).
//! Every band shrinks toward the simple case (order 1, $1, few calls).
//!
//! **Exercise 1, `charge`** ([`server`]):
//!
//! | input | domain (type, doc) | before | after | edges that break code |
//! |---|---|---|---|---|
//! | `idempotent` | `bool` | both | both | — |
//! | `key` | `IdempotencyKey(u64)`: any 64 bits | `0x9001_0000_0000_0000 \| (i+1)`, or `(i/4+1) << 32 \| 5` | each 32-bit half one of 0..=3, `u32::MAX` or any: all 64 bits, 0 and `u64::MAX`, pairs sharing the high half, the low half, or `hi ^ lo` | `as u32`, `>> 32`, a 32-bit fold, 0 as "empty" |
//! | `order_id` | `OrderId(u64)`: any | 1..=3 (1..=40 long) | mostly 1..=3, else 0, `u64::MAX`, large | 0, `u64::MAX`, `as u32` |
//! | `amount` | `Money` (`i64` cents); a charge is positive | $100..=$500 in hundreds | [`amount`]: $1..=$500, 1 cent, 1..=99,999 cents, 2^31 and 2^32 ± 1,000 cents, 2^53 ± 10 cents, up to 10^15 cents | whole dollars, `i32`/`u32`, `f64` |
//! | history | any length | 1..=24 calls over 6 keys; 300..=1,500 over 400; one fixed 5,004 calls / 5,000 keys | same random lengths; one large history of 1,048,586 calls over 2^20 + 1 keys, in both modes (rows past `ch_9999`, 65,536 and 2^20; replays at 4,096 and 65,536): fixed in the public run, its keys, orders and amounts drawn from the first hidden variant's seed in a graded one ([`Family::large`]) | `u8`/`u16` counters (in either mode), caches or stores bounded at 4,096, 65,536 or any power of two up to 2^20 keys, `ch_` mod 10,000 |
//!
//! **Exercise 2, `charge_order`** ([`client`]; run against lesson 2's
//! idempotent server, with a real ledger, in the harness):
//!
//! | input | domain (type, doc) | before | after | edges that break code |
//! |---|---|---|---|---|
//! | orders' ids | `OrderId(u64)`, repeatable ("dos órdenes idénticas son dos operaciones") | 1..=n in order | the position (shrink target), 1..=4, 0, `u64::MAX`, large; 15% repeat the operation before exactly | repeated and identical orders, unordered ids |
//! | orders' amounts | positive `Money` cents | $1..=$500, whole dollars | [`amount`] | cents, 1 cent |
//! | operations | any number | 1..=4 | 1..=6 | — |
//! | network script | any `Delivery` sequence, then all delivered | 0..=110 lost first, then 0..=12 coin flips | per operation 0..=3 lost, or a run scaled to 0..=`max_attempts + 1` (it may exhaust the attempts and spill into the next operation), then one delivered | runs of ≥ 256 and of exactly `max_attempts` |
//! | `max_attempts` | `u32`, at least 1 (`attempts` is "de 1 a `max_attempts`") | 1..=6, 1..=100 | 1..=6, 1..=100, 1..=10,000 (work stays bounded: the script is at most 6 × 10,002 entries, and the job's time limit follows `Job::work`); one large case of 2^20 + 1 with every response lost (2^20 + 1 to 2^20 + 4,097, drawn, with hidden variants) | `u8` and `u16` arithmetic, "safety caps" at any power of two up to 2^20 |
//! | key source | `SeededKeys` of any `u64` seed | any seed | any seed | — |
//! | `server` | any `Payments`; lesson 2's has a ledger | a recording server whose `ledger()` was always empty | lesson 2's idempotent server (ledger and store), every call recorded | a client that reads `ledger()` |
//!
//! **Exercise 3, `reconcile`** ([`reconciliation`]):
//!
//! | input | domain (type, doc) | before | after | edges that break code |
//! |---|---|---|---|---|
//! | orders' ids | `OrderId(u64)`, distinct ("los ids de `orders` son distintos": the oracle gives every row to the first order of an id, the reference adds the orders up) | 1..=n in order | the position (shrink target), 1..=8, 0, `u64::MAX`, large, in any order; a repeated id drops the later order | `orders[id - 1]`, 0 |
//! | orders' amounts | positive `Money` cents | $1..=$500, 1..=99,999 cents, $10M..=$20M | [`amount`], and $10M..=$20M | `i32` sums, `f64`, whole dollars |
//! | orders | any number | 0..=5 | 0..=5 | empty |
//! | rows' orders | any id, known or not | a known order, or unknown 90 or 91 (above every known id) | a known order, or unknown below the smallest known id, between two, above the largest, 0, `u64::MAX`, a known id + 2^32 or a known id with bit 63 flipped (one row in five unknown) | unknown ids below or between the known ones, ids cut to `u32` or `u16` |
//! | rows' amounts | `Money` cents | the order's, half of it, or another | same, amounts from [`amount`] | partial rows |
//! | rows | any number | 0..=10 | 0..=10 | empty |
//!
//! A weighted choice is drawn as a band plus a 32-bit value ([`banded`]),
//! not with `prop_oneof!`, which forks a random generator per alternative.

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use protocol::{Job, Observation, Request};

use crate::runner::Execute;
use crate::verdict::Verdict;

/// A positive amount in cents, as `sim::Money` and the exercises' doc
/// comments allow it (an order's amount is positive; `Money` is an `i64` of
/// cents): whole dollars (most, like the fixtures), one cent, any cents,
/// around the 32-bit limits (2^31 and 2^32 cents), around 2^53 cents (where
/// `f64` stops holding every cent), and anything up to $10 trillion (10^15
/// cents: fifteen of them still sum far below `i64::MAX`). It shrinks toward
/// $1.
pub fn amount() -> impl Strategy<Value = sim::Money> {
    const I32: i64 = 1 << 31;
    const U32: i64 = 1 << 32;
    const F64: i64 = 1 << 53;
    // (weight, lowest cents, highest cents, step in cents)
    const BANDS: [(u32, i64, i64, i64); 7] = [
        (8, 100, 50_000, 100),
        (2, 1, 1, 1),
        (4, 1, 99_999, 1),
        (1, I32 - 1_000, I32 + 1_000, 1),
        (1, U32 - 1_000, U32 + 1_000, 1),
        (1, F64 - 10, F64 + 10, 1),
        (1, 1, 1_000_000_000_000_000, 1),
    ];
    banded(&BANDS).prop_map(sim::Money::from_cents)
}

/// A value from weighted bands `(weight, lowest, highest, step)`: a band,
/// then a 32-bit draw spread evenly over it. Two draws, where proptest's
/// weighted `prop_oneof!` forks a random generator per alternative (too
/// slow for the hundred thousand values a run draws); it shrinks toward the
/// first band's lowest value in at most some 35 steps.
pub fn banded(bands: &'static [(u32, i64, i64, i64)]) -> impl Strategy<Value = i64> {
    let total: u32 = bands.iter().map(|b| b.0).sum();
    (0..total, proptest::prelude::any::<u32>()).prop_map(move |(mut pick, raw)| {
        for &(weight, lo, hi, step) in bands {
            if pick < weight {
                let count = ((hi - lo) / step) as u128 + 1;
                return lo + ((u128::from(raw) * count) >> 32) as i64 * step;
            }
            pick -= weight;
        }
        bands[0].1
    })
}

/// An order id (`sim::OrderId` is any `u64`): mostly one of `1..=few`
/// (the same order under several keys or operations), else 0, `u64::MAX`
/// or a large one (a 32-bit draw spread over the 64 bits). Two draws, not
/// `prop_oneof!` (see [`banded`]); it shrinks toward 1.
pub fn order_id(few: u64) -> impl Strategy<Value = u64> {
    (0u32..7, proptest::prelude::any::<u32>()).prop_map(move |(pick, raw)| match pick {
        0..=3 => 1 + u64::from(raw) % few,
        4 => 0,
        5 => u64::MAX,
        _ => u64::from(raw).wrapping_mul(0x9e37_79b9_7f4a_7c15),
    })
}

/// Cases per family in a run.
pub const CASES: usize = 200;
/// The seed of the public run (every student sees the same cases).
pub const PUBLIC_SEED: u64 = 2;
/// At most this many shrinking steps (each one a run of the harness).
const MAX_SHRINK_STEPS: usize = 600;

/// What the judge concluded about one case.
pub enum Outcome {
    /// The implementation agreed with the model.
    Agrees,
    /// It did not: the trace that shows where, and the hint.
    Disagrees {
        /// Numbered Spanish lines, ending with the line where they part.
        trace: Vec<String>,
        /// What the lesson says about it.
        hint: String,
    },
}

/// One family of model-based checks.
pub trait Family {
    /// The family's fixed tag in its random generator's seed (the number of
    /// its exercise when it was written): a new tag draws other cases.
    const TAG: u8;
    /// An input.
    type Case: Clone + std::fmt::Debug + Send + Sync;
    /// The strategy that generates inputs (and shrinks them).
    fn strategy(&self) -> impl Strategy<Value = Self::Case>;
    /// The kind of job a case runs as (its answer's type is what
    /// [`Family::judge`] compares).
    type Request: Request;
    /// The job that runs `case` against the implementation.
    fn job(&self, case: &Self::Case) -> Self::Request;
    /// Compares the implementation's answer with the model.
    fn judge(&self, case: &Self::Case, got: <Self::Request as Request>::Answer) -> Outcome;
    /// A one-line summary of a case, for the report (`4 llamadas, modo
    /// idempotente`).
    fn describe(&self, case: &Self::Case) -> String;
    /// Cases too large to generate at random or to shrink, run once per
    /// grading run, with the random cases of one model-based check
    /// ([`explore`]'s `large`); a disagreement on one is reported as it is,
    /// when no random case disagrees. With the public seed
    /// ([`PUBLIC_SEED`]) they are the kit's fixed cases; with any other
    /// (a hidden variant's), the same shapes and sizes with their keys,
    /// orders and amounts drawn from `seed`: code that recognises the
    /// public ones by their inputs, and is right only there, cannot
    /// recognise these (issue 27).
    fn large(&self, _seed: u64) -> Vec<Self::Case> {
        Vec::new()
    }
    /// Large cases whose jobs are of another kind than the family's
    /// (exercise 4's long histories: a million calls cannot carry a ledger
    /// per call), run when [`Family::large`]'s are, beside the random
    /// cases, and judged when every random case and every large case
    /// agreed.
    ///
    /// # Errors
    /// The verdict of the first that disagrees (a summary, not shrunk), or
    /// why the implementation gave no answer.
    fn long(&self, _h: &dyn Execute, _seed: u64) -> Result<(), Verdict> {
        Ok(())
    }
    /// What a fixed large case that did not finish in time needs, said to
    /// the student with the case ([`Family::large`]); `None`: the case
    /// alone.
    fn too_slow(&self, _case: &Self::Case) -> Option<String> {
        None
    }
}

/// The time-out of large case `case` (of seed `seed`), which ran after
/// `cases` random ones that all finished: which case, and what it needs.
fn large_timed_out<F: Family>(
    family: &F,
    case: &F::Case,
    seed: u64,
    cases: usize,
    limit_ms: u64,
) -> Verdict {
    let needs = family
        .too_slow(case)
        .map_or(String::new(), |n| format!(": {n}"));
    Verdict::TimedOut {
        limit_ms,
        case: Some(format!(
            "en el {} ({}), después de los {cases} casos aleatorios, que sí terminaron{needs}",
            large_case_words(seed),
            family.describe(case)
        )),
    }
}

/// What a report calls a large case of `seed`: the public seed's are
/// fixed, a hidden variant's are drawn from its seed ([`Family::large`]).
fn large_case_words(seed: u64) -> &'static str {
    if seed == PUBLIC_SEED {
        "caso grande fijo"
    } else {
        "caso grande"
    }
}

/// The random cases of a run: `cases` trees drawn from `strategy` with
/// `runner`'s generator, run as one list, and the index of the failing case
/// with the fewest units of work (the cheapest to shrink), if any.
///
/// # Errors
/// A generator that fails, or the verdict that stops the check (a
/// `todo!()`, a time-out, a crash).
fn random_cases<F: Family, S: Strategy<Value = F::Case>>(
    h: &dyn Execute,
    family: &F,
    strategy: &S,
    runner: &mut TestRunner,
    cases: usize,
) -> Result<(Vec<S::Tree>, Option<usize>), Verdict> {
    let mut trees = Vec::with_capacity(cases);
    for _ in 0..cases {
        match strategy.new_tree(runner) {
            Ok(t) => trees.push(t),
            Err(reason) => {
                return Err(Verdict::Crashed {
                    what: format!("el generador de casos falló: {reason}"),
                });
            }
        }
    }
    let jobs: Vec<Job> = trees
        .iter()
        .map(|t| family.job(&t.current()).into_job())
        .collect();
    let answers = h.execute(&jobs);
    let mut failing: Option<(usize, usize)> = None;
    for (i, (tree, got)) in trees.iter().zip(answers).enumerate() {
        if let Outcome::Disagrees { .. } = try_case(family, &tree.current(), got)? {
            let size = jobs[i].work() as usize;
            if failing.is_none_or(|(_, s)| size < s) {
                failing = Some((i, size));
            }
        }
    }
    Ok((trees, failing.map(|(i, _)| i)))
}

/// The 32-byte proptest seed of `seed` for family `tag`.
fn rng_seed(seed: u64, tag: u8) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8] = tag;
    bytes[16..24].copy_from_slice(&0x6b69_745f_6d6f_6465_u64.to_le_bytes());
    bytes
}

/// The outcome of one case, or the verdict that stops the check (a
/// `todo!()`, a time-out, a crash).
fn try_case<F: Family>(
    family: &F,
    case: &F::Case,
    got: Result<Observation, Verdict>,
) -> Result<Outcome, Verdict> {
    match got.and_then(crate::runner::answer_to::<F::Request>) {
        Ok(answer) => Ok(family.judge(case, answer)),
        // A panic on some input is a disagreement like any other: shrink it.
        Err(Verdict::Panicked { message, location }) => Ok(Outcome::Disagrees {
            trace: vec![format!("tu código entró en pánico en {location}: {message}")],
            hint: "con esta entrada el modelo de la lección responde sin problemas; tu código no debe entrar en pánico.".to_string(),
        }),
        Err(other) => Err(other),
    }
}

/// An exercise's model family `F` with `seed`: [`CASES`] cases, the first
/// disagreement shrunk, and its large cases of `seed` when `large` (what an
/// exercise's [`crate::checks::module::Module::model`] runs).
///
/// # Errors
/// As [`explore`].
pub fn run<F: Family + Default + Sync>(
    h: &dyn Execute,
    seed: u64,
    large: bool,
) -> Result<(), Verdict> {
    explore(h, &F::default(), seed, CASES, large)
}

/// Runs `cases` cases of `family` (seeded with `seed`, family [`Family::TAG`]) against
/// the implementation, all in one harness process, and, when `large`, the
/// family's large cases of `seed` ([`Family::large`]: the catalog gives
/// them to one model-based check per run, [`crate::checks::Catalog::hidden_seed`]); on
/// a disagreement, shrinks it and fails with the smallest case's trace.
///
/// # Errors
/// The verdict: a shrunk counterexample, or why the implementation gave no
/// answer (`todo!()`, time-out, crash).
pub fn explore<F: Family + Sync>(
    h: &dyn Execute,
    family: &F,
    seed: u64,
    cases: usize,
    large: bool,
) -> Result<(), Verdict> {
    let config = Config {
        cases: cases as u32,
        failure_persistence: None,
        ..Config::default()
    };
    let mut runner = TestRunner::new_with_rng(
        config,
        TestRng::from_seed(RngAlgorithm::ChaCha, &rng_seed(seed, F::TAG)),
    );
    // The large cases run once per run, not again in every hidden variant,
    // and only when every random case agreed: a disagreement of a million
    // calls costs seconds to explain, a random one is shown instead, and
    // an unfinished exercise (a `todo!()`) is told at once.
    let large_run = large;
    let large = if large {
        family.large(seed)
    } else {
        Vec::new()
    };
    let random = random_cases(h, family, &family.strategy(), &mut runner, cases);
    let (mut trees, failing) = random?;
    let Some(index) = failing else {
        // Only now: a wrong or unfinished implementation (a random case
        // that disagrees, a `todo!()`) is told without them.
        let jobs: Vec<Job> = large.iter().map(|c| family.job(c).into_job()).collect();
        let large_answers = if jobs.is_empty() {
            Vec::new()
        } else {
            h.execute(&jobs)
        };
        for (case, got) in large.iter().zip(large_answers) {
            match try_case(family, case, got) {
                Err(Verdict::TimedOut { limit_ms, .. }) => {
                    return Err(large_timed_out(family, case, seed, cases, limit_ms));
                }
                Err(other) => return Err(other),
                Ok(Outcome::Disagrees { trace, hint }) => {
                    return Err(Verdict::Counterexample {
                        summary: format!(
                            "{} (un {}, después de los {cases} aleatorios, semilla {seed}; demasiado grande para reducirlo)",
                            family.describe(case),
                            large_case_words(seed)
                        ),
                        trace,
                        hint,
                    });
                }
                Ok(Outcome::Agrees) => {}
            }
        }
        return if large_run {
            family.long(h, seed)
        } else {
            Ok(())
        };
    };
    let mut tree = trees.swap_remove(index);
    let original = family.describe(&tree.current());
    let run = |case: &F::Case| -> Result<Outcome, Verdict> {
        try_case(
            family,
            case,
            crate::runner::one(h, family.job(case).into_job()),
        )
    };
    let mut best = tree.current();
    let mut best_outcome = run(&best)?;
    let mut steps = 0;
    if tree.simplify() {
        while steps < MAX_SHRINK_STEPS {
            steps += 1;
            let candidate = tree.current();
            match run(&candidate) {
                Ok(outcome @ Outcome::Disagrees { .. }) => {
                    best = candidate;
                    best_outcome = outcome;
                    if !tree.simplify() {
                        break;
                    }
                }
                // Agreeing (or hanging, crashing) is not this failure.
                _ => {
                    if !tree.complicate() {
                        break;
                    }
                }
            }
        }
    }
    let Outcome::Disagrees { trace, hint } = best_outcome else {
        return Ok(());
    };
    Err(Verdict::Counterexample {
        summary: format!(
            "{} (caso {} de {cases}, semilla {seed}, reducido desde {original})",
            family.describe(&best),
            index + 1,
        ),
        trace,
        hint,
    })
}
