//! How the judge runs the implementation under test: it builds the harness
//! ([`build`]), starts it as a separate, limited process ([`process`]) and
//! sends it typed jobs. Nothing of the implementation ever runs in the
//! judge's own process; what comes back is data ([`protocol::Observation`])
//! that the checks compare with the oracle.

pub mod build;
pub mod cleanup;
pub mod diagnostics;
pub mod explorer;
pub mod fingerprint;
pub mod process;
pub mod sandbox;

use protocol::{Answered, Call, ClientKind, Job, Observation, OrderRun, WorldRun};
use sim::{Fleet, LedgerEntry, Order, Reconciliation};

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

/// What a server answered to a script of calls ([`Job::Charges`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Played {
    /// One per call.
    pub answers: Vec<Answered>,
    /// The ledger after the last call.
    pub ledger: Vec<LedgerEntry>,
}

/// Exercise 1: a new server of the implementation, then `calls`.
///
/// # Errors
/// Why the implementation gave no answer.
pub fn charges(exec: &dyn Execute, idempotent: bool, calls: &[Call]) -> Result<Played, Verdict> {
    let job = Job::Charges {
        idempotent,
        calls: calls.to_vec(),
    };
    played(one(exec, job)?)
}

/// The [`Played`] of a [`Job::Charges`] observation.
///
/// # Errors
/// An observation of another kind.
pub fn played(o: Observation) -> Result<Played, Verdict> {
    match o {
        Observation::Charges { answers, ledger } => Ok(Played { answers, ledger }),
        _ => Err(unexpected(
            "se esperaban las respuestas de un guion de cobros",
        )),
    }
}

/// Exercise 2: the implementation's client over `fleet` (or `orders`).
///
/// # Errors
/// Why the implementation gave no answer.
pub fn client(
    exec: &dyn Execute,
    fleet: &Fleet,
    orders: Option<Vec<Order>>,
) -> Result<(Vec<OrderRun>, u64), Verdict> {
    match one(
        exec,
        Job::Client {
            fleet: fleet.clone(),
            orders,
        },
    )? {
        Observation::Client { orders, attempts } => Ok((orders, attempts)),
        _ => Err(unexpected("se esperaba lo que hizo el cliente")),
    }
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
    reconciled(one(
        exec,
        Job::Reconcile {
            orders: orders.to_vec(),
            ledger: ledger.to_vec(),
        },
    )?)
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
    reconciled(one(
        exec,
        Job::ReconcileFleet {
            fleet: fleet.clone(),
            idempotent,
        },
    )?)
}

fn reconciled(o: Observation) -> Result<Reconciliation, Verdict> {
    match o {
        Observation::Reconciled(r) => Ok(r),
        _ => Err(unexpected("se esperaba una reconciliación")),
    }
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
    world_of(one(
        exec,
        Job::World {
            fleet: fleet.clone(),
            idempotent,
            client,
            reconcile,
        },
    )?)
}

/// The [`WorldRun`] of a [`Job::World`] observation.
///
/// # Errors
/// An observation of another kind.
pub fn world_of(o: Observation) -> Result<WorldRun, Verdict> {
    match o {
        Observation::World(w) => Ok(w),
        _ => Err(unexpected("se esperaban las cifras de un mundo")),
    }
}
