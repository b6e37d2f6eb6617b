//! Exercise 3, *la reconciliación*: intention against ledger, the overcharge
//! and the orders charged 2+ times (lesson 2).

pub mod checks;
pub mod fixed;
pub mod model;
pub mod scenario;

use super::{Entry, Pool};

/// Its catalog entry.
pub const ENTRY: Entry = Entry {
    id: "reconciliacion",
    title: "La reconciliación: intención contra ledger",
    readme_title: "La reconciliación: intención contra ledger",
    file: "exercises/src/reconciliation.rs",
    function: "reconcile",
    lesson: 2,
    pool: Pool::Course,
};
