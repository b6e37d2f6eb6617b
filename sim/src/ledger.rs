//! Lo que escribe y lo que responde el servidor de payments (lección 2,
//! `PaymentsServer`).

use crate::ids::{ChargeId, IdempotencyKey, OrderId};
use crate::money::Money;

/// El estado de un cargo. El servidor de la lección solo captura.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ChargeStatus {
    /// El dinero se cobró (lección 2: `"status": "captured"`).
    Captured,
}

/// La respuesta de `payments.charge`: qué cargo, cuánto y su estado. Es el
/// `{"charge_id": ..., "amount": ..., "status": "captured"}` de la lección 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ChargeResult {
    /// El cargo que se ejecutó (en un replay: el guardado).
    pub charge_id: ChargeId,
    /// El monto cobrado, en centavos.
    pub amount: Money,
    /// Siempre [`ChargeStatus::Captured`] en este mundo.
    pub status: ChargeStatus,
}

/// Una fila del ledger append-only: un cargo que se ejecutó de verdad. Es el
/// `(key, amount, charge_id)` de la lección 2, más el id de la orden, para
/// poder reconciliar los cargos orden por orden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct LedgerEntry {
    /// La idempotency key que llevaba la request.
    pub key: IdempotencyKey,
    /// La orden a la que corresponde el cargo.
    pub order_id: OrderId,
    /// El monto cobrado, en centavos.
    pub amount: Money,
    /// El id de este cargo (`ch_0001` para la primera fila).
    pub charge_id: ChargeId,
}

/// El store de idempotencia: idempotency key → resultado guardado (el
/// `self.store` de la lección 2). Un hash map con un hasher rápido y
/// determinista; solo se consulta, nunca se recorre para producir una salida.
pub type IdempotencyStore = rustc_hash::FxHashMap<IdempotencyKey, ChargeResult>;
