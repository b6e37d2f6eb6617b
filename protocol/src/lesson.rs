//! Lesson 2's world as the judge and the harness both need it: its
//! `PaymentsServer` ([`Server`]), and the arithmetic of a fleet (how many
//! attempts each order takes, and the ledger lesson 2's server leaves). The
//! client's decisions depend only on the loss draws, never on the server, so
//! one pass over the draws gives every world.

use sim::{
    ChargeId, ChargeResult, ChargeStatus, Delivery, Fleet, IdempotencyKey, KeySource, LedgerEntry,
    Money, Order, OrderId, Payments,
};

use crate::Call;

/// Lesson 2's `PaymentsServer`, with and without idempotency, logging every
/// call: an append-only ledger (row `n`, from 1, is charge `ch_n`) and, in
/// the idempotent world, a store key → the result returned the first time.
///
/// The judge plays scripts against it to know what an implementation must
/// answer; the harness runs exercise 2's client against it (idempotent, as
/// in the CON world), so a client that reads `ledger()` sees what a real
/// server would hold.
#[derive(Debug, Default)]
pub struct Server {
    idempotent: bool,
    ledger: Vec<LedgerEntry>,
    store: sim::IdempotencyStore,
    /// Every call, in order (the harness drains it after each order).
    pub calls: Vec<Call>,
}

impl Server {
    /// An empty server, with (`true`) or without idempotency.
    pub fn new(idempotent: bool) -> Server {
        Server {
            idempotent,
            ..Server::default()
        }
    }
}

impl Payments for Server {
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        self.calls.push(Call {
            key,
            order_id,
            amount,
        });
        if self.idempotent
            && let Some(stored) = self.store.get(&key)
        {
            return *stored;
        }
        let charge_id = ChargeId::next_after(self.ledger.len());
        self.ledger.push(LedgerEntry {
            key,
            order_id,
            amount,
            charge_id,
        });
        let result = ChargeResult {
            charge_id,
            amount,
            status: ChargeStatus::Captured,
        };
        if self.idempotent {
            self.store.insert(key, result);
        }
        result
    }

    fn ledger(&self) -> &[LedgerEntry] {
        &self.ledger
    }
}

/// What the network did to one order under lesson 2's client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OrderAttempts {
    /// Attempts sent, from 1 to `max_attempts`.
    pub attempts: u32,
    /// Whether the last attempt's response arrived (`false`: the client gave
    /// up, the charge unconfirmed).
    pub delivered: bool,
}

/// The attempts of each order of `fleet`, in order: lesson 2's
/// `client_charge` retries while the response is lost, at most
/// `max_attempts` times.
pub fn attempts(fleet: &Fleet) -> Vec<OrderAttempts> {
    let mut losses = fleet.loss_model();
    let max = fleet.max_attempts;
    (0..fleet.order_count())
        .map(|_| {
            let mut attempts = 0u32;
            let mut delivered = false;
            while attempts < max && !delivered {
                attempts += 1;
                delivered = losses.next_delivery() == Delivery::Delivered;
            }
            OrderAttempts {
                attempts,
                delivered,
            }
        })
        .collect()
}

/// The ledger lesson 2's server leaves when lesson 2's client charges
/// `orders` (the fleet's own) with one key per operation from the fleet's key
/// source: without idempotency one row per attempt, with it one row per
/// order; charge ids `ch_0001`, `ch_0002`, … in order.
pub fn ledger(fleet: &Fleet, orders: &[Order], idempotent: bool) -> Vec<LedgerEntry> {
    let mut keys = fleet.keys();
    let mut rows = Vec::with_capacity(orders.len());
    for (order, a) in orders.iter().zip(attempts(fleet)) {
        let key = keys.new_key();
        let times = if idempotent { 1 } else { a.attempts };
        for _ in 0..times {
            rows.push(LedgerEntry {
                key,
                order_id: order.id,
                amount: order.amount,
                charge_id: ChargeId::next_after(rows.len()),
            });
        }
    }
    rows
}

/// Lesson 2's reconciliation of `orders` (ids unique) against `ledger`,
/// joined by order id: intended and charged are plain sums; overcharge and
/// undercharge are summed order by order, never netted; rows of orders not
/// in `orders` are counted apart (and in `charged`). The judge's model of
/// exercise 3 (`judge::oracle::reconcile`), here so that it is compiled
/// optimised: its large case reconciles a million orders.
pub fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> sim::Reconciliation {
    let mut charged_to: std::collections::HashMap<OrderId, (Money, u64)> =
        std::collections::HashMap::with_capacity(orders.len());
    for row in ledger {
        let entry = charged_to.entry(row.order_id).or_default();
        entry.0 += row.amount;
        entry.1 += 1;
    }
    let mut r = sim::Reconciliation {
        charged: ledger.iter().map(|row| row.amount).sum(),
        charges: ledger.len() as u64,
        ..sim::Reconciliation::default()
    };
    for order in orders {
        r.intended += order.amount;
        let (charged, rows) = charged_to.remove(&order.id).unwrap_or_default();
        r.orders_charged_twice_or_more += u64::from(rows >= 2);
        r.orders_never_charged += u64::from(rows == 0);
        r.overcharge += charged.saturating_excess(order.amount);
        r.undercharge += order.amount.saturating_excess(charged);
    }
    r.unknown_order_rows = charged_to.values().map(|(_, rows)| rows).sum();
    r.overcharge_pct = sim::Percent::of(r.overcharge, r.intended);
    r
}
