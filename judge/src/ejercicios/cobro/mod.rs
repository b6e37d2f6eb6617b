//! Exercise 1, *el cobro idempotente*: lesson 2's `PaymentsServer::charge`,
//! with and without idempotency.

pub mod checks;
pub mod fixed;
pub mod model;
pub mod scenario;
pub mod steps;

use super::{Entry, Pool};

/// Its catalog entry.
pub const ENTRY: Entry = Entry {
    id: "cobro",
    title: "El cobro idempotente (servidor de payments)",
    readme_title: "El cobro idempotente (servidor de `payments`)",
    file: "exercises/src/payments_server.rs",
    function: "PaymentsServer::charge",
    lesson: 2,
    pool: Pool::Course,
};
