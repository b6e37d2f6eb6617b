//! Exercise 1's job and answer, *el cobro idempotente*: `charge` calls sent
//! to the implementation's server ([`Charges`]) and what each answered
//! ([`Played`]).

use serde::{Deserialize, Serialize};
use sim::{ChargeResult, IdempotencyKey, LedgerEntry, Money, OrderId, Payments};

use crate::{Job, Observation, Request};

/// Exercise 1: a new server (`idempotent` chooses the world), then every
/// call in order. Answered by [`Played`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Charges {
    /// The world: with (`true`) or without idempotency.
    pub idempotent: bool,
    /// The calls, in order.
    pub calls: Vec<Call>,
}

/// What a server answered to [`Charges`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Played {
    /// One per call.
    pub answers: Vec<Answered>,
    /// `ledger()` after the last call.
    pub ledger: Vec<LedgerEntry>,
}

crate::request!(Charges => Played, Charges, "las respuestas de un guion de cobros");

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
