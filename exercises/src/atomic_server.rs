//! Ejercicio 4 (bonus, lección 4) — El store atómico (el servidor de
//! `payments` compartido por requests concurrentes).

use sim::sync::Mutex;
use sim::{
    ChargeError, ChargeResult, IdempotencyKey, LedgerEntry, Money, OrderId, SharedPayments,
    SharedStore,
};

/// El servidor de `payments` de la lección 4: el mismo ledger y el mismo
/// store de la lección 2, pero lo atienden varios hilos a la vez, así que
/// `charge` recibe `&self` y cada estado vive detrás de un candado
/// ([`sim::sync::Mutex`]).
#[derive(Debug, Default)]
pub struct AtomicPaymentsServer {
    /// Cargos ejecutados, en orden. Nunca se borra ni se reescribe una fila.
    ledger: Mutex<Vec<LedgerEntry>>,
    /// idempotency key → en curso o resultado guardado ([`sim::KeyState`]).
    store: Mutex<SharedStore>,
}

impl AtomicPaymentsServer {
    /// Un servidor con el ledger y el store vacíos.
    pub fn new() -> AtomicPaymentsServer {
        AtomicPaymentsServer::default()
    }
}

impl SharedPayments for AtomicPaymentsServer {
    /// **Ejercicio 4.** Cobra `amount` (centavos) a la orden `order_id`, con
    /// la idempotency key `key`, aunque otros hilos llamen a la vez.
    ///
    /// Las reglas de la lección 4 (el borrador de la IETF del header
    /// `Idempotency-Key`; Stripe se porta igual):
    ///
    /// - **Key nueva**: cobra una vez (una fila en el ledger, charge id
    ///   `sim::ChargeId::next_after(filas antes)`, estado `Captured`) y guarda
    ///   el resultado bajo la key (`KeyState::Completed`).
    /// - **Replay**: la key ya tiene resultado guardado y la request es la
    ///   misma (misma orden, mismo monto): devuelve ese resultado, idéntico,
    ///   **sin tocar el ledger**.
    /// - **En curso**: la key está cobrando en otro hilo (`KeyState::InFlight`)
    ///   y la request es la misma: no cobra y devuelve
    ///   `Err(ChargeError::InFlight)` (el `409 Conflict`; el cliente
    ///   reintenta más tarde y recibe el replay).
    /// - **Otra request con la misma key** (otra orden u otro monto, esté la
    ///   primera en curso o terminada): no cobra y devuelve
    ///   `Err(ChargeError::KeyReused)` (el `422`); el ledger y el store
    ///   quedan como estaban.
    ///
    /// Lo difícil: "buscar la key" y "marcarla como en curso" tienen que ser
    /// **un solo paso atómico** (con el candado del store tomado entre los
    /// dos). Si buscas, sueltas el candado y después insertas, dos reintentos
    /// concurrentes pueden buscar los dos antes de que ninguno inserte… y se
    /// cuelan los dos cobros.
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        todo!("Ejercicio 4: el store atómico")
    }

    fn ledger(&self) -> Vec<LedgerEntry> {
        self.ledger.lock().clone()
    }
}
