//! Exercise 4's jobs and answers (bonus, lesson 4, *el store atómico*): a
//! shared server called from one thread ([`Shared`], answered by one
//! [`SharedAnswered`] per call) and under the schedule explorer
//! ([`schedules::Schedules`]).

pub mod schedules;

use serde::{Deserialize, Serialize};
use sim::{ChargeError, ChargeResult, LedgerEntry};

use crate::{Call, Job, Observation, Request};

/// Exercise 4, sequentially: a new shared server (`Kit::new_atomic_server`),
/// then every call in order from one thread. Answered by one
/// [`SharedAnswered`] per call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shared {
    /// The calls, in order.
    pub calls: Vec<Call>,
}

crate::request!(Shared => Vec<SharedAnswered>, Shared, "las respuestas del servidor compartido");

/// What one call to the shared server answered (exercise 4), and its ledger
/// right after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedAnswered {
    /// The call's result: a charge or replay, or the error it was refused
    /// with.
    pub result: Result<ChargeResult, ChargeError>,
    /// `ledger()` right after the call.
    pub ledger: Vec<LedgerEntry>,
}
