//! Exercise 3: the implementation's reconciliation over the judge's orders
//! and ledger, or over a fleet and the ledger lesson 2's server leaves for
//! it.

use protocol::Observation;
use sim::{Fleet, Kit, LedgerEntry, Order};

/// [`protocol::Job::Reconcile`]: `orders` against `ledger`.
pub fn reconcile<K: Kit>(orders: &[Order], ledger: &[LedgerEntry]) -> Observation {
    Observation::Reconciled(K::reconcile(orders, ledger))
}

/// [`protocol::Job::ReconcileFleet`]: `fleet`'s orders against lesson 2's
/// ledger of one of its worlds.
pub fn fleet<K: Kit>(fleet: &Fleet, idempotent: bool) -> Observation {
    let orders = fleet.orders();
    let ledger = protocol::lesson::ledger(fleet, &orders, idempotent);
    Observation::Reconciled(K::reconcile(&orders, &ledger))
}
