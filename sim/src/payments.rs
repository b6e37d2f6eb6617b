//! El trait que implementa todo servidor de payments (el `PaymentsServer` de
//! la lección 2).

use crate::ids::{IdempotencyKey, OrderId};
use crate::ledger::{ChargeResult, LedgerEntry};
use crate::money::Money;

/// `payments.charge` y el ledger que hay detrás.
///
/// Lo implementan el servidor del estudiante (`exercises`), la referencia
/// (`solutions`) y los espías del grader; la red y los clientes solo hablan
/// con un servidor a través de este trait.
pub trait Payments {
    /// Cobra `amount` centavos a la orden `order_id`, con la idempotency key
    /// `key`.
    ///
    /// Sin idempotencia, cada llamada se ejecuta: una fila nueva en el ledger,
    /// un charge id nuevo. Con idempotencia, una key ya vista devuelve el
    /// resultado guardado y deja el ledger intacto (un replay).
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult;

    /// El ledger append-only: cada cargo que se ejecutó, en orden.
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
