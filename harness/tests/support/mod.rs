//! Building blocks for kits that are the reference solutions except for one
//! deliberate change: wrong answers (`tests/mutantes_*.rs`) and misbehaving
//! code (`tests/misbehaving.rs`), and the in-process executor that grades
//! the wrong answers without a harness process.
//!
//! A kit is declared with [`kit!`], naming its server (a [`ServerChange`]
//! wrapped around the reference server), its client and its reconciliation
//! (plain functions with the exercises' signatures) and its shared server
//! (exercise 4: a [`Shared`] of a [`StoreChange`]). Whatever is not changed
//! is the reference from `solutions/`.

// Each test target uses part of this module.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::marker::PhantomData;
use std::sync::{Mutex, OnceLock};

use judge::checks::{Catalog, Check, CheckTarget};
use judge::fixture::Scenario;
use judge::grading::{self, Graded};
use judge::oracle::{self, Expected};
use judge::runner::Execute;
use judge::verdict::{Exercise, Verdict};
use protocol::{Job, Observation};
use sim::{
    ChargeError, ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry, Money, OrderId,
    Payments, SharedPayments, SharedStore,
};
use solutions::PaymentsServer;

pub mod mistakes;

// ------------------------------------------------------------------- kits

/// How a changed server differs from the reference. The wrapped reference
/// server does the real work (its ledger is the one reported).
pub trait ServerChange {
    /// The reference server to wrap, for a server asked to be `idempotent`.
    fn inner(idempotent: bool) -> PaymentsServer {
        PaymentsServer::new(idempotent)
    }

    /// The changed `charge`.
    fn charge(
        s: &mut Changed<Self>,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> ChargeResult
    where
        Self: Sized;

    /// The ledger the server reports: the wrapped reference's, unless the
    /// change keeps its own rows.
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry]
    where
        Self: Sized,
    {
        s.inner.ledger()
    }
}

/// The reference server wrapped with change `C`, plus the memory a change may
/// need (results by key, first key by content).
pub struct Changed<C: ?Sized> {
    /// The mode the kit asked for.
    pub idempotent: bool,
    /// The reference server doing the charging.
    pub inner: PaymentsServer,
    /// Results remembered by key, for changes that keep their own store.
    pub results: HashMap<IdempotencyKey, ChargeResult>,
    /// The first key seen for each `(order_id, amount)`.
    pub first_key: HashMap<(OrderId, Money), IdempotencyKey>,
    /// Results remembered by the whole request `(key, order_id, amount)`.
    pub by_request: HashMap<(IdempotencyKey, OrderId, Money), ChargeResult>,
    /// The ledger of a change that writes its own rows (see
    /// [`ServerChange::ledger`]).
    pub rows: Vec<LedgerEntry>,
    /// Calls received so far, for changes that number by calls.
    pub calls: u64,
    change: PhantomData<C>,
}

impl<C: ServerChange> Changed<C> {
    /// A fresh server in mode `idempotent`.
    pub fn new(idempotent: bool) -> Changed<C> {
        Changed {
            idempotent,
            inner: C::inner(idempotent),
            results: HashMap::new(),
            first_key: HashMap::new(),
            by_request: HashMap::new(),
            rows: Vec::new(),
            calls: 0,
            change: PhantomData,
        }
    }
}

impl<C: ServerChange> Payments for Changed<C> {
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        C::charge(self, key, order_id, amount)
    }

    fn ledger(&self) -> &[LedgerEntry] {
        C::ledger(self)
    }
}

/// The reference server, unchanged.
pub struct Reference;

impl ServerChange for Reference {
    fn charge(s: &mut Changed<Self>, key: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        s.inner.charge(key, o, a)
    }
}

/// The lesson's server written out, with its own ledger and charge id
/// `charge_id` for the next row.
pub fn lesson_server<C: ServerChange>(
    s: &mut Changed<C>,
    k: IdempotencyKey,
    o: OrderId,
    a: Money,
    charge_id: ChargeId,
) -> ChargeResult {
    if s.idempotent
        && let Some(stored) = s.results.get(&k)
    {
        return *stored;
    }
    s.rows.push(LedgerEntry {
        key: k,
        order_id: o,
        amount: a,
        charge_id,
    });
    let result = ChargeResult {
        charge_id,
        amount: a,
        status: ChargeStatus::Captured,
    };
    if s.idempotent {
        s.results.insert(k, result);
    }
    result
}

/// Declares `struct $name` implementing `sim::Kit` with the given server
/// change, client function, reconciliation function and shared server
/// (`atomic:`, a type implementing `sim::SharedPayments + Default`, e.g. a
/// [`Shared`] of a [`StoreChange`]). Each part defaults to the reference
/// when left out.
#[macro_export]
macro_rules! kit {
    ($(#[$doc:meta])* $name:ident { $($part:ident : $value:path),* $(,)? }) => {
        $crate::kit!(@parts $(#[$doc])* $name,
            [support::Reference],
            [solutions::client::charge_order],
            [solutions::reconciliation::reconcile],
            [solutions::AtomicPaymentsServer],
            $($part : $value),*);
    };
    (@parts $(#[$doc:meta])* $name:ident, [$s:path], [$c:path], [$r:path], [$a:path], server : $v:path $(, $($rest:tt)*)?) => {
        $crate::kit!(@parts $(#[$doc])* $name, [$v], [$c], [$r], [$a], $($($rest)*)?);
    };
    (@parts $(#[$doc:meta])* $name:ident, [$s:path], [$c:path], [$r:path], [$a:path], client : $v:path $(, $($rest:tt)*)?) => {
        $crate::kit!(@parts $(#[$doc])* $name, [$s], [$v], [$r], [$a], $($($rest)*)?);
    };
    (@parts $(#[$doc:meta])* $name:ident, [$s:path], [$c:path], [$r:path], [$a:path], reconcile : $v:path $(, $($rest:tt)*)?) => {
        $crate::kit!(@parts $(#[$doc])* $name, [$s], [$c], [$v], [$a], $($($rest)*)?);
    };
    (@parts $(#[$doc:meta])* $name:ident, [$s:path], [$c:path], [$r:path], [$a:path], atomic : $v:path $(, $($rest:tt)*)?) => {
        $crate::kit!(@parts $(#[$doc])* $name, [$s], [$c], [$r], [$v], $($($rest)*)?);
    };
    (@parts $(#[$doc:meta])* $name:ident, [$s:path], [$c:path], [$r:path], [$a:path], ) => {
        $(#[$doc])*
        struct $name;

        impl sim::Kit for $name {
            const CRATE: &'static str = "exercises";
            type Server = support::Changed<$s>;

            fn new_server(idempotent: bool) -> Self::Server {
                support::Changed::new(idempotent)
            }

            fn charge_order<P: sim::Payments, K: sim::KeySource>(
                server: &mut P,
                network: &mut sim::Network,
                keys: &mut K,
                order: &sim::Order,
                max_attempts: u32,
            ) -> sim::ChargeOutcome {
                $c(server, network, keys, order, max_attempts)
            }

            fn reconcile(orders: &[sim::Order], ledger: &[sim::LedgerEntry]) -> sim::Reconciliation {
                $r(orders, ledger)
            }

            type AtomicServer = $a;

            fn new_atomic_server() -> Self::AtomicServer {
                <$a as Default>::default()
            }
        }
    };
}

// ------------------------------------------------------ shared servers

/// How a changed shared server (exercise 4) differs from lesson 4's: the
/// whole `charge`, written with [`Shared`]'s ledger and store.
pub trait StoreChange {
    /// The changed `charge`.
    fn charge(
        s: &Shared<Self>,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError>
    where
        Self: Sized;
}

/// A shared server with change `C`: a ledger and a store behind
/// `sim::sync` locks, plus a call counter for changes that number by calls.
pub struct Shared<C: ?Sized> {
    /// The ledger.
    pub ledger: sim::sync::Mutex<Vec<LedgerEntry>>,
    /// The store.
    pub store: sim::sync::Mutex<SharedStore>,
    /// Calls received so far.
    pub calls: sim::sync::Mutex<u64>,
    change: PhantomData<fn() -> C>,
}

impl<C> Default for Shared<C> {
    fn default() -> Self {
        Shared {
            ledger: sim::sync::Mutex::default(),
            store: sim::sync::Mutex::default(),
            calls: sim::sync::Mutex::default(),
            change: PhantomData,
        }
    }
}

impl<C: StoreChange> Shared<C> {
    /// Charges once with the next row's id, taken and written under one
    /// lock (threads charging at once get distinct ids in ledger order).
    pub fn charge_new(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> ChargeResult {
        self.charge_numbered(key, order_id, amount, ChargeId::next_after)
    }

    /// Writes one ledger row numbered `number(rows before it)`, under the
    /// ledger's lock, and returns its result.
    pub fn charge_numbered(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
        number: impl FnOnce(usize) -> ChargeId,
    ) -> ChargeResult {
        let mut ledger = self.ledger.lock();
        let charge_id = number(ledger.len());
        ledger.push(LedgerEntry {
            key,
            order_id,
            amount,
            charge_id,
        });
        ChargeResult {
            charge_id,
            amount,
            status: ChargeStatus::Captured,
        }
    }
}

impl<C: StoreChange> SharedPayments for Shared<C> {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        *self.calls.lock() += 1;
        C::charge(self, key, order_id, amount)
    }

    fn ledger(&self) -> Vec<LedgerEntry> {
        self.ledger.lock().clone()
    }
}

/// Declares a client function with exercise 2's signature:
/// `client!(fn name(server, network, keys, order, max_attempts) { … })`.
#[macro_export]
macro_rules! client {
    ($(#[$doc:meta])* fn $name:ident($server:ident, $network:ident, $keys:ident, $order:ident, $max:ident) $body:block) => {
        $(#[$doc])*
        fn $name<P: sim::Payments, K: sim::KeySource>(
            $server: &mut P,
            $network: &mut sim::Network,
            $keys: &mut K,
            $order: &sim::Order,
            $max: u32,
        ) -> sim::ChargeOutcome $body
    };
}

/// The kit's fixtures (`fixtures/*.toml`), as the judge loads them.
pub fn fixtures() -> Vec<Scenario> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    Scenario::load_dir(&dir).expect("the kit's fixtures load")
}

// -------------------------------------------------------- grading in process

/// Runs the judge's jobs against kit `K` in this process, through the
/// harness's own [`harness::answer_caught`]: what a harness process of `K`
/// would answer, without building or spawning one. Panics are caught; an
/// endless loop or a crash is not contained (`tests/misbehaving.rs` grades
/// those through a real process).
pub struct InProcess<K>(PhantomData<fn() -> K>);

impl<K> Default for InProcess<K> {
    fn default() -> Self {
        InProcess(PhantomData)
    }
}

/// `harness::catch` records a panic through the process-wide panic hook,
/// which it installs and removes around each job: two jobs of one test
/// binary running at once could take each other's panic message, so jobs
/// run one at a time.
static ONE_JOB_AT_A_TIME: Mutex<()> = Mutex::new(());

impl<K: sim::Kit> Execute for InProcess<K> {
    fn execute(&self, jobs: &[Job]) -> Vec<Result<Observation, Verdict>> {
        jobs.iter()
            .map(|job| {
                let _one = ONE_JOB_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
                harness::answer_caught::<K>(job).map_err(Verdict::from)
            })
            .collect()
    }
}

/// The catalog of every fixture and every exercise, loaded once per test
/// binary, without the large cases ([`Catalog::large_cases`]): a test
/// grades four exercises, three of them the reference, and the large cases
/// take seconds each; the tests of a mistake only they reach use
/// [`large_catalog`] (and CI's `grader --solutions` plays them all on the
/// reference).
pub fn catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| {
        let mut catalog = Catalog::new(fixtures(), &[]).without_explored();
        catalog.large_cases = false;
        catalog
    })
}

/// The catalog of every fixture and of `exercises` (all four when empty),
/// with the large cases.
pub fn large_catalog(exercises: &[judge::verdict::Exercise]) -> Catalog {
    Catalog::new(fixtures(), exercises).without_explored()
}

/// Grades kit `K` on `catalog` in this process.
pub fn grade_in_process<K: sim::Kit>(catalog: &Catalog) -> Graded {
    grading::grade(catalog, &InProcess::<K>::default(), K::CRATE, 2)
}

/// The failing checks of `graded`, by id.
pub fn failing(graded: &Graded) -> BTreeMap<String, &Verdict> {
    graded
        .results
        .iter()
        .filter(|(_, v)| !v.passed())
        .map(|(c, v)| (c.id.clone(), v))
        .collect()
}

// ----------------------------------------------------------- wrong answers

/// Which whole-scenario checks a mistake must fail, from the oracle's figures.
pub type ScenarioRule = fn(&Scenario, &Expected) -> bool;

pub fn any_retry(_: &Scenario, e: &Expected) -> bool {
    e.before.attempts > e.orders
}
pub fn never(_: &Scenario, _: &Expected) -> bool {
    false
}
pub fn always(_: &Scenario, _: &Expected) -> bool {
    true
}

/// One kind of mistake, its mutant, and what the judge must say about it.
pub struct Case {
    /// The kind of mistake, in the words.
    pub kind: &'static str,
    /// The mutant's name.
    pub mutant: &'static str,
    /// Grades the mutant.
    pub grade: fn(&Catalog) -> Graded,
    /// The exercise the mistake is in.
    pub exercise: Exercise,
    /// The check named for the mistake (a fixed check, or a whole-scenario
    /// check named by its fixture).
    pub catcher: &'static str,
    /// Every fixed check that must fail (other fixed checks must pass).
    pub fixed: &'static [&'static str],
    /// Which of the exercise's scenario checks must fail (the rest pass).
    pub scenarios: ScenarioRule,
    /// Words the catcher's explanation must contain.
    pub words: &'static [&'static str],
}

/// One `#[test]` named `$test` that grades kit `$mutant` and asserts it is
/// caught as `$kind`: exactly the listed fixed checks and the scenario
/// checks `$rule` picks fail, every other check passes, and the catcher is a
/// wrong answer whose explanation has every word.
#[macro_export]
macro_rules! mutant {
    ($test:ident: $kind:literal, $mutant:ident, $exercise:ident, $catcher:literal, [$($fixed:literal),* $(,)?], $rule:path, [$($word:literal),* $(,)?]) => {
        #[test]
        fn $test() {
            support::assert_caught(&support::Case {
                kind: $kind,
                mutant: stringify!($mutant),
                grade: support::grade_in_process::<$mutant>,
                exercise: judge::verdict::Exercise::$exercise,
                catcher: $catcher,
                fixed: &[$($fixed),*],
                scenarios: $rule,
                words: &[$($word),*],
            });
        }
    };
}

/// The ids of the checks `case` must fail, from the oracle.
fn must_fail(case: &Case, catalog: &Catalog) -> BTreeSet<String> {
    let mut ids: BTreeSet<String> = case.fixed.iter().map(|s| s.to_string()).collect();
    for s in &catalog.scenarios {
        if (case.scenarios)(s, &oracle::expect(&s.fleet)) {
            ids.insert(format!("{}/{}", case.exercise.id(), s.name));
        }
    }
    ids
}

/// Whether `check` is neither a fixed check nor a whole-scenario check: a
/// model-based family, whose generated inputs may or may not reach a
/// mutant's mistake. Named by elimination so that this file does not depend
/// on how the judge spells those checks.
pub fn is_generated(check: &Check) -> bool {
    !matches!(
        check.target,
        CheckTarget::Fixed(_) | CheckTarget::Scenario(_)
    )
}

/// The ids of `case`'s exercise's generated checks: they may fail (they
/// test everything, the mutant's mistake included) or pass.
fn may_fail(case: &Case, catalog: &Catalog) -> BTreeSet<String> {
    catalog
        .checks
        .iter()
        .filter(|c| c.exercise == case.exercise && is_generated(c))
        .map(|c| c.id.clone())
        .collect()
}

/// Checks one case; `Err` says what the judge got wrong about it. `Ok`
/// carries every failing check and the catcher's explanation.
fn judge(case: &Case, catalog: &Catalog) -> Result<String, String> {
    let graded = (case.grade)(catalog);
    let failed = failing(&graded);
    if failed.is_empty() {
        return Err("full marks: the mistake slipped through".into());
    }
    let want = must_fail(case, catalog);
    let optional = may_fail(case, catalog);
    let got: BTreeSet<String> = failed
        .keys()
        .filter(|id| !optional.contains(*id))
        .cloned()
        .collect();
    if got != want {
        let unexpected: Vec<String> = got
            .difference(&want)
            .map(|id| format!("{id}: {:?}", failed[id]))
            .collect();
        return Err(format!(
            "failing checks differ\n  unexpected: {unexpected:#?}\n  missing:    {:?}",
            want.difference(&got).collect::<Vec<_>>()
        ));
    }
    let Some(verdict) = failed.get(case.catcher) else {
        return Err(format!("{} did not fail", case.catcher));
    };
    if !matches!(verdict, Verdict::Failed { .. }) {
        return Err(format!(
            "{} is not a wrong answer: {verdict:?}",
            case.catcher
        ));
    }
    let text = verdict.explanation().join("\n");
    let missing: Vec<_> = case.words.iter().filter(|w| !text.contains(*w)).collect();
    if !missing.is_empty() {
        return Err(format!("explanation lacks {missing:?}:\n{text}"));
    }
    let all: Vec<&str> = failed.keys().map(String::as_str).collect();
    // The model-based check's shrunk counterexample, when it caught it too.
    let model = failed
        .iter()
        .filter(|(id, _)| optional.contains(*id))
        .map(|(id, v)| match v {
            Verdict::Counterexample { summary, .. } => format!("\n{id}: {summary}"),
            other => format!("\n{id}: {other:?}"),
        })
        .collect::<String>();
    Ok(format!("[{}]{model}\n{text}", all.join(", ")))
}

/// Grades `case`'s mutant and panics unless the judge catches it as the
/// case says. With `--nocapture`, prints the failing checks and the
/// catcher's explanation.
pub fn assert_caught(case: &Case) {
    assert_caught_in(case, catalog());
}

/// As [`assert_caught`], on `catalog`; returns what it prints (the failing
/// checks, the generated checks' counterexamples, the catcher's
/// explanation).
pub fn assert_caught_in(case: &Case, catalog: &Catalog) -> String {
    match judge(case, catalog) {
        Ok(text) => {
            println!("{} ({}) → {}\n{text}", case.mutant, case.kind, case.catcher);
            text
        }
        Err(e) => panic!("{} ({}): {e}", case.mutant, case.kind),
    }
}
