//! Identifiers of the world: orders, idempotency keys and charges.

use std::fmt;

/// The id of one order of `orders` (lesson 2's `order_id`). Fixtures number
/// generated fleets from 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OrderId(pub u64);

impl fmt::Display for OrderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ord_{:04}", self.0)
    }
}

/// An idempotency key: the identifier the client creates once per operation
/// and resends on every retry (lesson 3; the "folio" of lesson 2's cashier).
///
/// A 64-bit value, cheap to hash and compare. The kit's [`crate::KeySource`]s
/// draw them from a seeded stream, so a key never encodes an order's content.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct IdempotencyKey(pub u64);

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "idem_{:016x}", self.0)
    }
}

/// The id of one executed charge: the ledger row it wrote, numbered from 1 and
/// printed as in lesson 2 (`ch_0001`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChargeId(pub u64);

impl ChargeId {
    /// The id of the charge that becomes ledger row number `rows_before + 1`
    /// (lesson 2: `f"ch_{len(self.ledger) + 1:04d}"`).
    pub fn next_after(rows_before: usize) -> ChargeId {
        ChargeId(rows_before as u64 + 1)
    }
}

impl fmt::Display for ChargeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ch_{:04}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_like_the_lesson() {
        assert_eq!(ChargeId::next_after(0).to_string(), "ch_0001");
        assert_eq!(ChargeId::next_after(41).to_string(), "ch_0042");
        assert_eq!(ChargeId(12345).to_string(), "ch_12345");
        assert_eq!(OrderId(7).to_string(), "ord_0007");
        assert_eq!(IdempotencyKey(255).to_string(), "idem_00000000000000ff");
    }
}
