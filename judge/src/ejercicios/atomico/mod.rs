//! Exercise 4 (bonus), *el store atómico*: lesson 4's shared server, whose
//! check-and-insert of a key is one atomic step under concurrent retries.

pub mod checks;
pub mod fixed;
pub mod long;
pub mod model;
pub mod rules;
pub mod schedules;
pub mod steps;

use super::{Entry, Pool};

/// Its catalog entry.
pub const ENTRY: Entry = Entry {
    id: "atomico",
    title: "El store atómico (lección 4, bonus)",
    readme_title: "El store atómico (servidor compartido, lección 4)",
    file: "exercises/src/atomic_server.rs",
    function: "AtomicPaymentsServer::charge",
    lesson: 4,
    pool: Pool::Bonus,
};
