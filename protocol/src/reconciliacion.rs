//! Exercise 3's jobs, *la reconciliación*: the implementation's reconcile
//! over orders and a ledger the judge sends ([`Reconcile`]) or over a
//! fleet's ledger the harness makes ([`ReconcileFleet`]); both answered by
//! a [`Reconciliation`].

use serde::{Deserialize, Serialize};
use sim::{Fleet, LedgerEntry, Order, Reconciliation};

use crate::{Job, Observation, Request};

/// Exercise 3 over these orders and ledger.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reconcile {
    /// The intention.
    pub orders: Vec<Order>,
    /// The ledger.
    pub ledger: Vec<LedgerEntry>,
}

/// Exercise 3 over `fleet`'s orders and the ledger lesson 2's server leaves
/// for it ([`crate::lesson::ledger`]): a fleet's ledger can be millions of
/// rows, too many to send.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ReconcileFleet {
    /// The fleet.
    pub fleet: Fleet,
    /// Which world's ledger.
    pub idempotent: bool,
}

crate::request!(Reconcile => Reconciliation, Reconciled, "una reconciliación");
crate::request!(ReconcileFleet => Reconciliation, Reconciled, "una reconciliación");
