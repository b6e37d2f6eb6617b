//! Exercise 1: a new server of the implementation, then every call of a
//! [`protocol::Job::Charges`] in order.

use protocol::{Answered, Call, Observation};
use sim::{Kit, Payments};

/// A new server (`idempotent` chooses the world), every call in order, each
/// answer with the ledger's size right after it, then the final ledger.
pub fn charges<K: Kit>(idempotent: bool, calls: &[Call]) -> Observation {
    let mut server = K::new_server(idempotent);
    let answers = calls
        .iter()
        .map(|c| Answered {
            result: server.charge(c.key, c.order_id, c.amount),
            rows: server.ledger().len(),
        })
        .collect();
    Observation::Charges {
        answers,
        ledger: server.ledger().to_vec(),
    }
}
