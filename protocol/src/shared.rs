//! Exercise 4's observations: what each call to the shared server answered
//! ([`crate::Job::Shared`], [`crate::Observation::Shared`]).

use serde::{Deserialize, Serialize};
use sim::{ChargeError, ChargeResult, LedgerEntry};

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
