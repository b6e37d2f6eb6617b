//! The lesson's worlds, where the exercises run together: a fleet charged
//! by a chosen client against the implementation's server
//! ([`crate::Job::World`], [`crate::Job::Trace`]).

use serde::{Deserialize, Serialize};
use sim::{LedgerEntry, Money, Reconciliation};

use crate::Call;

/// Which client charges the orders of a [`Job::World`].
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

/// The figures of one world run by [`Job::World`].
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

/// One call the server received in a [`Job::Trace`], in the order of the
/// run, with the ledger's size right after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TracedCall {
    /// What was sent.
    pub call: Call,
    /// `ledger().len()` right after the call (a new row when it grew).
    pub rows: u32,
}

/// A world run call by call ([`Job::Trace`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorldTrace {
    /// The figures, reconciled, as [`Job::World`] gives them.
    pub run: WorldRun,
    /// How many calls the client made for each order of the fleet, in order
    /// (the calls of order `i` follow those of orders `0..i` in `calls`).
    pub calls_per_order: Vec<u32>,
    /// Every call, in order.
    pub calls: Vec<TracedCall>,
    /// The server's ledger at the end.
    pub ledger: Vec<LedgerEntry>,
}
