//! Exercise 2, answered: one idempotency key per operation (lesson 3).

use sim::{ChargeOutcome, KeySource, Network, Order, Payments};

/// Creates the operation's key once, before the first attempt, and resends it
/// on every retry; stops at the first delivered response; gives up, with the
/// charge unconfirmed, after `max_attempts` lost responses.
pub fn charge_order<P: Payments, K: KeySource>(
    server: &mut P,
    network: &mut Network,
    keys: &mut K,
    order: &Order,
    max_attempts: u32,
) -> ChargeOutcome {
    let key = keys.new_key();
    for attempt in 1..=max_attempts {
        if let Some(result) = network.send(server, key, order.id, order.amount) {
            return ChargeOutcome {
                attempts: attempt,
                confirmed: Some(result),
            };
        }
    }
    ChargeOutcome {
        attempts: max_attempts,
        confirmed: None,
    }
}
