//! Exercise 2, correct: one idempotency key per operation.

use sim::{ChargeOutcome, KeySource, Network, Order, Payments};

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
