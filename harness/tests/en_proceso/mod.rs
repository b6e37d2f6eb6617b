//! Grading a kit compiled into the test itself: an [`Execute`] that answers
//! the judge's jobs in this process, as the harness binary would, and the
//! reference with a changed exercise 3, for the tests of wrong solutions
//! shared by `formatos.rs` and `variantes.rs`.

use std::marker::PhantomData;
use std::sync::Mutex;

use grader::checks::Catalog;
use grader::grading::{self, Graded};
use grader::runner::Execute;
use grader::verdict::Verdict;
use protocol::{Job, Observation};
use sim::{ChargeOutcome, KeySource, Kit, LedgerEntry, Network, Order, Payments, Reconciliation};
use solutions::Solutions;

/// Runs jobs against kit `K` in this process.
pub struct InProcess<K>(PhantomData<fn() -> K>);

impl<K: Kit> Execute for InProcess<K> {
    fn execute(&self, jobs: &[Job]) -> Vec<Result<Observation, Verdict>> {
        // The harness catches panics with a process-wide hook: one job at a
        // time.
        static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());
        let _guard = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        jobs.iter()
            .map(|job| harness::answer_caught::<K>(job).map_err(Verdict::from))
            .collect()
    }
}

/// Grades kit `K` with `catalog`, as the grader grades `exercises`.
pub fn grade<K: Kit>(catalog: &Catalog) -> Graded {
    grading::grade(catalog, &InProcess::<K>(PhantomData), "exercises", 2)
}

/// An exercise 3 to put in place of the reference's.
pub trait Reconcile {
    /// The changed reconciliation.
    fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation;
}

/// The reference solutions, except exercise 3: `R`'s reconciliation.
pub struct ReferenceExcept<R>(PhantomData<fn() -> R>);

impl<R: Reconcile> Kit for ReferenceExcept<R> {
    const CRATE: &'static str = "exercises";
    type Server = <Solutions as Kit>::Server;

    fn new_server(idempotent: bool) -> Self::Server {
        Solutions::new_server(idempotent)
    }

    fn charge_order<P: Payments, K: KeySource>(
        server: &mut P,
        network: &mut Network,
        keys: &mut K,
        order: &Order,
        max_attempts: u32,
    ) -> ChargeOutcome {
        Solutions::charge_order(server, network, keys, order, max_attempts)
    }

    fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
        R::reconcile(orders, ledger)
    }
}
