//! The lesson's worlds, where the exercises run together: a fleet charged
//! by a chosen client against the implementation's server ([`World`],
//! [`Trace`]).

use serde::{Deserialize, Serialize};
use sim::{Fleet, LedgerEntry, Money, Reconciliation};

use crate::{Call, Job, Observation, Request};

/// One world of `fleet`: the implementation's server, the chosen client and,
/// when `reconcile`, the implementation's reconciliation. Answered by a
/// [`WorldRun`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct World {
    /// The fleet.
    pub fleet: Fleet,
    /// The world: with (`true`) or without idempotency.
    pub idempotent: bool,
    /// Who charges the orders.
    pub client: ClientKind,
    /// Whether to reconcile the ledger with the implementation's exercise 3.
    pub reconcile: bool,
}

/// One world of `fleet` like [`World`] (reconciled), traced call by call for
/// `grader ver`: every call the server received and the ledger it left.
/// Answered by a [`WorldTrace`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trace {
    /// The fleet.
    pub fleet: Fleet,
    /// The world: with (`true`) or without idempotency.
    pub idempotent: bool,
    /// Who charges the orders.
    pub client: ClientKind,
}

crate::request!(World => WorldRun, World, "las cifras de un mundo");
crate::request!(Trace => WorldTrace, Trace, "el rastro de un mundo");

/// Which client charges the orders of a [`World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClientKind {
    /// Lesson 2's own loop (`client_charge`) with one key per operation: the
    /// harness's, so that exercise 1 is graded on its own.
    Lesson,
    /// The implementation's client (exercise 2).
    Implementation,
    /// Lesson 3's wrong client, shipped in `sim` as the contrast: a key per
    /// attempt.
    KeyPerAttempt,
}

/// The figures of one world run by [`World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorldRun {
    /// Attempts the network carried.
    pub attempts: u64,
    /// Rows the server's ledger holds (real executions of the charge).
    pub executions: u64,
    /// Sum of the ledger's rows, in cents.
    pub charged: Money,
    /// Orders the client reported unconfirmed.
    pub unconfirmed: u64,
    /// The implementation's reconciliation, when the job asked for it.
    pub reconciliation: Option<Reconciliation>,
}

/// One call the server received in a [`Trace`], in the order of the
/// run, with the ledger's size right after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TracedCall {
    /// What was sent.
    pub call: Call,
    /// `ledger().len()` right after the call (a new row when it grew).
    pub rows: u32,
}

/// A world run call by call ([`Trace`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorldTrace {
    /// The figures, reconciled, as [`World`] gives them.
    pub run: WorldRun,
    /// How many calls the client made for each order of the fleet, in order
    /// (the calls of order `i` follow those of orders `0..i` in `calls`).
    pub calls_per_order: Vec<u32>,
    /// Every call, in order.
    pub calls: Vec<TracedCall>,
    /// The server's ledger at the end.
    pub ledger: Vec<LedgerEntry>,
}
