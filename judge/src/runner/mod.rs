//! How the judge runs the implementation under test: it builds the harness
//! ([`build`]), starts it as a separate process ([`process`]), confined or
//! plain ([`isolation`]), and sends it typed jobs. Nothing of the
//! implementation ever runs in the judge's own process; what comes back is
//! data ([`protocol::Observation`]) that the checks compare with the oracle.

pub mod build;
pub mod cleanup;
pub mod clock;
pub mod diagnostics;
pub mod explorer;
pub mod fingerprint;
pub mod folders;
pub mod implementation;
pub mod isolation;
pub mod process;
#[cfg(target_os = "linux")]
pub mod sandbox;
#[cfg(target_os = "linux")]
pub mod tree;

use protocol::{
    Call, Charges, Client, ClientKind, ClientRun, Job, Observation, Reconcile, ReconcileFleet,
    Request, World, WorldRun,
};
use sim::{Fleet, LedgerEntry, Order, Reconciliation};

pub use protocol::Played;

use crate::verdict::Verdict;

/// Runs jobs against one implementation.
pub trait Execute: Sync {
    /// Runs `jobs` in order, in one process; one result per job. A job the
    /// implementation could not finish (a `todo!()`, a panic, a time-out, a
    /// crash) gets the verdict that explains it; after a time-out or a
    /// crash, every later job of the list gets the same verdict.
    fn execute(&self, jobs: &[Job]) -> Vec<Result<Observation, Verdict>>;

    /// The executor of exercise 4's schedules ([`Job::Schedules`]): the
    /// explorer's harness of the same implementation (lesson 4), built the
    /// first time it is asked for ([`explorer::Lazy`]).
    ///
    /// # Errors
    /// Why there is none: it does not compile, or this executor has no
    /// explorer.
    fn explorer(&self) -> Result<&dyn Execute, Verdict> {
        Err(Verdict::Crashed {
            what: "este juez no tiene el harness del explorador de horarios".to_string(),
        })
    }
}

/// Runs one job.
pub fn one(exec: &dyn Execute, job: Job) -> Result<Observation, Verdict> {
    exec.execute(std::slice::from_ref(&job))
        .into_iter()
        .next()
        .unwrap_or_else(|| Err(unexpected("sin respuesta")))
}

/// The verdict for an answer of the wrong kind.
pub fn unexpected(what: &str) -> Verdict {
    Verdict::Crashed {
        what: format!("el harness dio una respuesta inesperada ({what})"),
    }
}

/// Asks `request` of the implementation behind `exec`, in one process: its
/// answer, of the type the request names ([`Request::Answer`]).
///
/// # Errors
/// Why the implementation gave no answer, or an answer of another kind.
pub fn ask<R: Request>(exec: &dyn Execute, request: R) -> Result<R::Answer, Verdict> {
    answer_to::<R>(one(exec, request.into_job())?)
}

/// The answer to a request of kind `R` carried by `o`.
///
/// # Errors
/// `o` answers another kind of job.
pub fn answer_to<R: Request>(o: Observation) -> Result<R::Answer, Verdict> {
    R::answer_of(o).ok_or_else(|| unexpected(&format!("se esperaba {}", R::ANSWER)))
}

/// Exercise 1: a new server of the implementation, then `calls`.
///
/// # Errors
/// Why the implementation gave no answer.
pub fn charges(exec: &dyn Execute, idempotent: bool, calls: &[Call]) -> Result<Played, Verdict> {
    ask(
        exec,
        Charges {
            idempotent,
            calls: calls.to_vec(),
        },
    )
}

/// Exercise 2: the implementation's client over `fleet` (or `orders`).
///
/// # Errors
/// Why the implementation gave no answer.
pub fn client(
    exec: &dyn Execute,
    fleet: &Fleet,
    orders: Option<Vec<Order>>,
) -> Result<ClientRun, Verdict> {
    ask(
        exec,
        Client {
            fleet: fleet.clone(),
            orders,
            idempotent: true,
        },
    )
}

/// Exercise 3 over `orders` and `ledger`.
///
/// # Errors
/// Why the implementation gave no answer.
pub fn reconcile(
    exec: &dyn Execute,
    orders: &[Order],
    ledger: &[LedgerEntry],
) -> Result<Reconciliation, Verdict> {
    ask(
        exec,
        Reconcile {
            orders: orders.to_vec(),
            ledger: ledger.to_vec(),
        },
    )
}

/// Exercise 3 over `fleet` and lesson 2's ledger of one of its worlds.
///
/// # Errors
/// Why the implementation gave no answer.
pub fn reconcile_fleet(
    exec: &dyn Execute,
    fleet: &Fleet,
    idempotent: bool,
) -> Result<Reconciliation, Verdict> {
    ask(
        exec,
        ReconcileFleet {
            fleet: fleet.clone(),
            idempotent,
        },
    )
}

/// One world of `fleet` with the implementation's server.
///
/// # Errors
/// Why the implementation gave no answer.
pub fn world(
    exec: &dyn Execute,
    fleet: &Fleet,
    idempotent: bool,
    client: ClientKind,
    reconcile: bool,
) -> Result<WorldRun, Verdict> {
    ask(
        exec,
        World {
            fleet: fleet.clone(),
            idempotent,
            client,
            reconcile,
        },
    )
}
