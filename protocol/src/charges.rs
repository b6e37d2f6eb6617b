//! Exercise 1's jobs and observations: `charge` calls sent to the
//! implementation's server ([`crate::Job::Charges`]) and what each answered
//! ([`crate::Observation::Charges`]).

use serde::{Deserialize, Serialize};
use sim::{ChargeResult, IdempotencyKey, LedgerEntry, Money, OrderId, Payments};

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

/// Sends every call of `calls` to `server` in order: each answer with the
/// ledger's size right after it, then the final ledger. What the harness
/// observes of the implementation's server and what the judge plays on
/// lesson 2's model, the same way.
pub fn play<P: Payments>(server: &mut P, calls: &[Call]) -> (Vec<Answered>, Vec<LedgerEntry>) {
    let answers = calls
        .iter()
        .map(|c| Answered {
            result: server.charge(c.key, c.order_id, c.amount),
            rows: server.ledger().len(),
        })
        .collect();
    (answers, server.ledger().to_vec())
}
