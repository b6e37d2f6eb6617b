//! Exercise 1: a new server of the implementation, then every call of a
//! [`protocol::Job::Charges`] in order.

use protocol::{Call, Observation};
use sim::Kit;

/// A new server (`idempotent` chooses the world), every call in order, each
/// answer with the ledger's size right after it, then the final ledger.
pub fn charges<K: Kit>(idempotent: bool, calls: &[Call]) -> Observation {
    let (answers, ledger) = protocol::charges::play(&mut K::new_server(idempotent), calls);
    Observation::Charges { answers, ledger }
}
