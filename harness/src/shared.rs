//! Exercise 4: a new shared server of the implementation, then every call
//! of a [`protocol::Job::Shared`] in order, from one thread.

use protocol::{Call, Observation, SharedAnswered};
use sim::{Kit, SharedPayments};

/// A new shared server, every call in order, each answer with the ledger
/// right after it.
pub fn shared<K: Kit>(calls: &[Call]) -> Observation {
    let server = K::new_atomic_server();
    let answers = calls
        .iter()
        .map(|c| SharedAnswered {
            result: server.charge(c.key, c.order_id, c.amount),
            ledger: server.ledger(),
        })
        .collect();
    Observation::Shared { answers }
}
