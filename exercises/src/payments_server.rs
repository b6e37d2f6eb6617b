//! Ejercicio 1 — El cobro idempotente (el servidor de `payments`).

use sim::{ChargeResult, IdempotencyKey, IdempotencyStore, LedgerEntry, Money, OrderId, Payments};

/// El servidor de `payments` de la lección 2: un ledger append-only (cada
/// cargo ejecutado deja una fila) y un store de idempotencia
/// (idempotency key → resultado guardado) que solo se usa en modo idempotente.
#[derive(Debug, Default)]
pub struct PaymentsServer {
    /// `true`: el mundo CON idempotency_key; `false`: el mundo SIN idempotencia.
    idempotent: bool,
    /// Cargos ejecutados, en orden. Nunca se borra ni se reescribe una fila.
    ledger: Vec<LedgerEntry>,
    /// idempotency key → el resultado que se devolvió la primera vez.
    store: IdempotencyStore,
}

impl PaymentsServer {
    /// Un servidor con el ledger y el store vacíos.
    pub fn new(idempotent: bool) -> PaymentsServer {
        PaymentsServer {
            idempotent,
            ledger: Vec::new(),
            store: IdempotencyStore::default(),
        }
    }
}

impl Payments for PaymentsServer {
    /// **Ejercicio 1.** Cobra `amount` (centavos) a la orden `order_id`.
    ///
    /// Es el cajero de la lección 2, con y sin cuaderno:
    ///
    /// - **Sin idempotencia** (`idempotent == false`): cada llamada cobra. Escribe
    ///   una fila nueva en el ledger (`LedgerEntry` con la key, la orden, el
    ///   monto y el charge id) y devuelve un `ChargeResult` con un charge id
    ///   nuevo: `ch_0001` para la primera fila, `ch_0002` para la segunda…
    ///   (`sim::ChargeId::next_after(self.ledger.len())`), estado
    ///   `sim::ChargeStatus::Captured`.
    /// - **Con idempotencia** (`idempotent == true`): antes de cobrar, revisa el
    ///   store. Si la idempotency key ya está, es un *replay*: devuelve el
    ///   resultado guardado, idéntico (mismo charge id), **sin tocar el ledger**.
    ///   Si no está, cobra como arriba y después guarda el resultado bajo esa
    ///   key, para el próximo reintento.
    ///
    /// La "misma operación" la define la key, no el contenido: dos cobros con
    /// keys distintas se cobran los dos aunque tengan la misma orden y el
    /// mismo monto.
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        todo!("Ejercicio 1: el cobro idempotente")
    }

    fn ledger(&self) -> &[LedgerEntry] {
        &self.ledger
    }
}
