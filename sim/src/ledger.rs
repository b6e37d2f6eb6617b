//! What the payments server writes and answers (lesson 2, `PaymentsServer`).

use crate::ids::{ChargeId, IdempotencyKey, OrderId};
use crate::money::Money;

/// The status of a charge. The lesson's server only ever captures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ChargeStatus {
    /// The money was taken (lesson 2: `"status": "captured"`).
    Captured,
}

/// The answer of `payments.charge`: which charge, how much, its status.
/// Lesson 2's `{"charge_id": ..., "amount": ..., "status": "captured"}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChargeResult {
    /// The charge that executed (on a replay: the stored one).
    pub charge_id: ChargeId,
    /// The amount charged, in cents.
    pub amount: Money,
    /// Always [`ChargeStatus::Captured`] in this world.
    pub status: ChargeStatus,
}

/// One row of the append-only ledger: a charge that really executed.
/// Lesson 2's `(key, amount, charge_id)`, plus the order id so that charges
/// can be reconciled per order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LedgerEntry {
    /// The idempotency key the request carried.
    pub key: IdempotencyKey,
    /// The order the charge was for.
    pub order_id: OrderId,
    /// The amount taken, in cents.
    pub amount: Money,
    /// The id of this charge (`ch_0001` for the first row).
    pub charge_id: ChargeId,
}

/// The idempotency store: idempotency key → stored result (lesson 2's
/// `self.store`). A hash map with a fast, deterministic hasher; only looked
/// up, never iterated into output.
pub type IdempotencyStore = rustc_hash::FxHashMap<IdempotencyKey, ChargeResult>;
