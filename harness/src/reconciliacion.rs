//! Exercise 3: the implementation's reconciliation over the judge's orders
//! and ledger, or over a fleet and the ledger lesson 2's server leaves for
//! it.

use protocol::{Reconcile, ReconcileFleet};
use sim::{Kit, Reconciliation};

/// [`Reconcile`]: its orders against its ledger.
pub fn reconcile<K: Kit>(job: &Reconcile) -> Reconciliation {
    K::reconcile(&job.orders, &job.ledger)
}

/// [`ReconcileFleet`]: the fleet's orders against lesson 2's ledger of one
/// of its worlds.
pub fn fleet<K: Kit>(job: &ReconcileFleet) -> Reconciliation {
    let orders = job.fleet.orders();
    let ledger = protocol::lesson::ledger(&job.fleet, &orders, job.idempotent);
    K::reconcile(&orders, &ledger)
}
