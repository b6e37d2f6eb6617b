//! The trait every payments server implements (lesson 2's `PaymentsServer`).

use crate::ids::{IdempotencyKey, OrderId};
use crate::ledger::{ChargeResult, LedgerEntry};
use crate::money::Money;

/// `payments.charge` and the ledger behind it.
///
/// The student's server (`exercises`), the reference (`solutions`) and the
/// grader's spies all implement it; the network and the clients only ever
/// talk to a server through it.
pub trait Payments {
    /// Charges `amount` cents for `order_id`, carrying `key`.
    ///
    /// Without idempotency every call executes: one new ledger row, one new
    /// charge id. With idempotency a key already seen returns the stored
    /// result and leaves the ledger untouched (a replay).
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult;

    /// The append-only ledger: every charge that executed, in order.
    fn ledger(&self) -> &[LedgerEntry];
}

impl<P: Payments + ?Sized> Payments for &mut P {
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        (**self).charge(key, order_id, amount)
    }

    fn ledger(&self) -> &[LedgerEntry] {
        (**self).ledger()
    }
}
