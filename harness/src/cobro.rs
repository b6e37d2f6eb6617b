//! Exercise 1, *el cobro idempotente*: a new server of the implementation,
//! then every call of a [`Charges`] in order.

use protocol::{Charges, Played};
use sim::Kit;

/// A new server (`idempotent` chooses the world), every call in order, each
/// answer with the ledger's size right after it, then the final ledger.
pub fn charges<K: Kit>(job: &Charges) -> Played {
    let (answers, ledger) = protocol::cobro::play(&mut K::new_server(job.idempotent), &job.calls);
    Played { answers, ledger }
}
