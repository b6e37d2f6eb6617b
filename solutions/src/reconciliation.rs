//! Exercise 3, answered: reconciliation joined by order id.

use rustc_hash::FxHashMap;
use sim::{LedgerEntry, Money, Order, OrderId, Percent, Reconciliation};

/// Per order: what was intended, what was charged, and how many rows.
#[derive(Default)]
struct Tally {
    intended: Money,
    charged: Money,
    rows: u64,
}

/// One pass over the orders, one over the ledger, one over the tallies.
/// Overcharge and undercharge are summed per order, never netted.
pub fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let mut tallies: FxHashMap<OrderId, Tally> = FxHashMap::default();
    tallies.reserve(orders.len());
    for order in orders {
        tallies.entry(order.id).or_default().intended += order.amount;
    }
    let mut r = Reconciliation::default();
    for row in ledger {
        r.charged += row.amount;
        r.charges += 1;
        match tallies.get_mut(&row.order_id) {
            Some(t) => {
                t.charged += row.amount;
                t.rows += 1;
            }
            None => r.unknown_order_rows += 1,
        }
    }
    for t in tallies.values() {
        r.intended += t.intended;
        r.overcharge += t.charged.saturating_excess(t.intended);
        r.undercharge += t.intended.saturating_excess(t.charged);
        match t.rows {
            0 => r.orders_never_charged += 1,
            1 => {}
            _ => r.orders_charged_twice_or_more += 1,
        }
    }
    r.overcharge_pct = Percent::of(r.overcharge, r.intended);
    r
}
