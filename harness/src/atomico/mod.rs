//! Exercise 4 (bonus, lesson 4), *el store atómico*: a new shared server of
//! the implementation, then every call of a [`protocol::Shared`] in order,
//! from one thread; its concurrent histories under the schedule explorer in
//! [`explore`] (only in `harness-explorador`).

#[cfg(feature = "explorar")]
pub mod explore;

use protocol::{Call, SharedAnswered};
use sim::{Kit, SharedPayments};

/// A new shared server, every call in order, each answer with the ledger
/// right after it.
pub fn shared<K: Kit>(calls: &[Call]) -> Vec<SharedAnswered> {
    let server = K::new_atomic_server();
    calls
        .iter()
        .map(|c| SharedAnswered {
            result: server.charge(c.key, c.order_id, c.amount),
            ledger: server.ledger(),
        })
        .collect()
}
