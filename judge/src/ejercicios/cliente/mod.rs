//! Exercise 2, *una idempotency key por operación*: lesson 3's client, one
//! key per operation, sent again on every retry.

pub mod checks;
pub mod fixed;
pub mod model;
pub mod scenario;

use super::{Entry, Pool};

/// Its catalog entry.
pub const ENTRY: Entry = Entry {
    id: "cliente",
    title: "Una idempotency key por operación (cliente de orders)",
    readme_title: "Una idempotency key por operación (cliente de `orders`, lección 3)",
    file: "exercises/src/client.rs",
    function: "charge_order",
    lesson: 3,
    pool: Pool::Course,
};
