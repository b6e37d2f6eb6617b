//! Exercise 4 (bonus, lesson 4), *el store atómico*: a new shared server of
//! the implementation, then every call of a [`protocol::Shared`] in order,
//! from one thread; its concurrent histories under the schedule explorer in
//! [`explore`] (only in `harness-explorador`).

#[cfg(feature = "explorar")]
pub mod explore;

use protocol::{Call, Long, LongRun, SharedAnswered};
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

/// A new shared server, each thread of `job` calling it side by side (real
/// threads, std's locks: not under the explorer), every result kept, then
/// the ledger once.
pub fn long<K: Kit>(job: &Long) -> LongRun {
    let server = K::new_atomic_server();
    let results = std::thread::scope(|scope| {
        let running: Vec<_> = job
            .threads
            .iter()
            .map(|calls| {
                let server = &server;
                scope.spawn(move || {
                    calls
                        .iter()
                        .map(|c| server.charge(c.key, c.order_id, c.amount))
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        running
            .into_iter()
            .map(|t| t.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    LongRun {
        results,
        ledger: server.ledger(),
    }
}
