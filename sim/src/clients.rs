//! The kit's own clients, read-only: the lesson 2 loop with a given key, and
//! lesson 3's classic mistake, a fresh key on every attempt.
//!
//! The student's client (exercise 2) is the correct one: one key per
//! operation, created before the first attempt and resent on every retry.

use crate::ids::IdempotencyKey;
use crate::keys::KeySource;
use crate::network::Network;
use crate::order::{ChargeOutcome, Order};
use crate::payments::Payments;

/// Lesson 2's `client_charge`: sends `key` until a response arrives, at most
/// `max_attempts` times.
pub fn charge_with_key<P: Payments + ?Sized>(
    server: &mut P,
    network: &mut Network,
    order: &Order,
    key: IdempotencyKey,
    max_attempts: u32,
) -> ChargeOutcome {
    let mut attempts = 0;
    while attempts < max_attempts {
        attempts += 1;
        if let Some(result) = network.send(server, key, order.id, order.amount) {
            return ChargeOutcome {
                attempts,
                confirmed: Some(result),
            };
        }
    }
    ChargeOutcome {
        attempts,
        confirmed: None,
    }
}

/// The WRONG client of lesson 3: it creates a new key on every attempt, so the
/// server sees each retry as a new operation and charges again ($1500 for a
/// $500 order after two lost responses), however idempotent the server is.
/// Shipped as the contrast to exercise 2; do not copy it.
pub fn charge_with_key_per_attempt<P: Payments + ?Sized, K: KeySource + ?Sized>(
    server: &mut P,
    network: &mut Network,
    keys: &mut K,
    order: &Order,
    max_attempts: u32,
) -> ChargeOutcome {
    let mut attempts = 0;
    while attempts < max_attempts {
        attempts += 1;
        let key = keys.new_key(); // the mistake: a key per attempt, not per operation
        if let Some(result) = network.send(server, key, order.id, order.amount) {
            return ChargeOutcome {
                attempts,
                confirmed: Some(result),
            };
        }
    }
    ChargeOutcome {
        attempts,
        confirmed: None,
    }
}
