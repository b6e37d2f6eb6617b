//! Exercise 2 that reaches outside the submission at compile time: a
//! root-only file and the reference client (where `solutions/` exists).

use sim::{ChargeOutcome, KeySource, Network, Order, Payments};

#[path = "../../solutions/src/client.rs"]
mod reference;

const SECRET: &str = include_str!("/etc/shadow");

pub fn charge_order<P: Payments, K: KeySource>(
    server: &mut P,
    network: &mut Network,
    keys: &mut K,
    order: &Order,
    max_attempts: u32,
) -> ChargeOutcome {
    assert!(!SECRET.is_empty(), "{SECRET}");
    reference::charge_order(server, network, keys, order, max_attempts)
}
