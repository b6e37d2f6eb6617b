//! The independent oracle: what every figure of a scenario must be, computed
//! by plain arithmetic over the fixture's amounts and loss draws.
//!
//! It never calls `solutions` (nor `exercises`): a student repository without
//! `solutions/` is graded against exactly the same expectations.

use sim::{Fleet, LedgerEntry, Money, Order, Reconciliation};

pub use crate::figures::WorldFigures;

/// What a scenario must produce, world by world.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expected {
    /// Number of orders.
    pub orders: u64,
    /// Sum of the orders' amounts ("Cobro correcto (intencion)").
    pub intended: Money,
    /// Attempts of each order, in order (the same in every world).
    pub attempts_per_order: Vec<u32>,
    /// No idempotency: every attempt is a charge.
    pub before: WorldFigures,
    /// Idempotent server, one key per operation: one charge per order.
    pub after: WorldFigures,
    /// Idempotent server, lesson 3's key per attempt: every attempt a charge.
    pub key_per_attempt: WorldFigures,
}

/// Computes the expected figures of `fleet`.
///
/// The client's decisions depend only on the loss draws, never on the server,
/// so one pass over the draws ([`protocol::lesson::attempts`]) gives the
/// attempts of every world.
pub fn expect(fleet: &Fleet) -> Expected {
    let orders = fleet.orders();
    let attempts = protocol::lesson::attempts(fleet);
    let mut attempts_per_order = Vec::with_capacity(orders.len());
    let mut intended = Money::ZERO;
    let mut before = WorldFigures::default();
    let mut after = WorldFigures::default();
    for (order, a) in orders.iter().zip(attempts) {
        let k = a.attempts;
        attempts_per_order.push(k);
        intended += order.amount;
        let k64 = u64::from(k);
        before.attempts += k64;
        before.charges += k64;
        before.charged += order.amount * k64;
        before.overcharge += order.amount * (k64 - 1);
        after.attempts += k64;
        after.charges += 1;
        after.charged += order.amount;
        if k >= 2 {
            before.orders_charged_twice_or_more += 1;
        }
        if !a.delivered {
            before.unconfirmed += 1;
            after.unconfirmed += 1;
        }
    }
    for w in [&mut before, &mut after] {
        w.executions = w.charges;
        w.intended = intended;
    }
    Expected {
        orders: orders.len() as u64,
        intended,
        attempts_per_order,
        before,
        after,
        key_per_attempt: before,
    }
}

/// Exercise 3's model: the reconciliation of `orders` (ids unique) against
/// `ledger`, joined by order id. Intended and charged are plain sums;
/// overcharge and undercharge are summed order by order, never netted; rows
/// of orders not in `orders` are counted apart (and in `charged`).
pub fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    protocol::lesson::reconcile(orders, ledger)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn fixture(name: &str) -> Fleet {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../fixtures")
            .join(name);
        crate::fixture::Scenario::load(&path).unwrap().fleet
    }

    #[test]
    fn the_lessons_fleet() {
        let e = expect(&fixture("flota-1000.toml"));
        assert_eq!(e.orders, 1000);
        assert_eq!(e.intended, Money::from_dollars(256_979));
        assert_eq!(e.before.attempts, 1184);
        assert_eq!(e.before.charges, 1184);
        assert_eq!(e.before.orders_charged_twice_or_more, 146);
        assert_eq!(e.before.charged, Money::from_dollars(305_118));
        assert_eq!(e.before.overcharge, Money::from_dollars(48_139));
        assert_eq!(e.before.overcharge_pct().to_string(), "18.7%");
        assert_eq!(e.after.attempts, 1184);
        assert_eq!(e.after.charges, 1000);
        assert_eq!(e.after.charged, Money::from_dollars(256_979));
        assert_eq!(e.after.overcharge, Money::ZERO);
        assert_eq!(e.after.orders_charged_twice_or_more, 0);
    }

    #[test]
    fn one_buyer_scenarios() {
        let a = expect(&fixture("escenario-a.toml"));
        assert_eq!((a.before.attempts, a.before.charges), (2, 2));
        assert_eq!(a.before.charged, Money::from_dollars(1000));
        assert_eq!((a.after.attempts, a.after.charges), (2, 1));
        assert_eq!(a.after.charged, Money::from_dollars(500));
        let b = expect(&fixture("escenario-b.toml"));
        assert_eq!(b.before.charged, Money::from_dollars(1500));
        assert_eq!(b.after.charged, Money::from_dollars(500));
        assert_eq!(b.key_per_attempt.charges, 3);
        assert_eq!(b.key_per_attempt.charged, Money::from_dollars(1500));
    }

    #[test]
    fn unconfirmed_orders_are_counted() {
        let e = expect(&fixture("flota-77-sin-reintentos-suficientes.toml"));
        assert!(e.before.unconfirmed > 0);
        assert!(e.attempts_per_order.iter().all(|&k| (1..=2).contains(&k)));
        assert_eq!(e.before.unconfirmed, e.after.unconfirmed);
    }
}
