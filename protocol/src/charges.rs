//! Exercise 1's jobs and observations: `charge` calls sent to the
//! implementation's server ([`crate::Job::Charges`]) and what each answered
//! ([`crate::Observation::Charges`]).

use serde::{Deserialize, Serialize};
use sim::{ChargeResult, IdempotencyKey, Money, OrderId};

/// One `charge` call: what was sent to the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The idempotency key it carried.
    pub key: IdempotencyKey,
    /// The order.
    pub order_id: OrderId,
    /// The amount, in cents.
    pub amount: Money,
}

/// What one call answered, and how many ledger rows there were after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answered {
    /// The call's result.
    pub result: ChargeResult,
    /// `ledger().len()` right after the call.
    pub rows: usize,
}
