//! El contraste de la lección 4: un servidor compartido **sin atomicidad**,
//! como el cliente equivocado de la lección 3 en [`crate::clients`]. Busca la
//! key con el candado del store, lo suelta, cobra y recién después guarda el
//! resultado: en secuencia responde bien, pero dos reintentos concurrentes
//! pueden buscar los dos antes de que ninguno guarde… y se cuelan los dos
//! cobros. `grader escenario carrera` lo corre junto a tu servidor en el
//! mismo horario.

use crate::ids::{ChargeId, IdempotencyKey, OrderId};
use crate::ledger::{ChargeResult, ChargeStatus, LedgerEntry};
use crate::money::Money;
use crate::shared::{ChargeError, ChargeRequest, KeyState, SharedPayments, SharedStore};
use crate::sync::Mutex;

/// El store *check-then-insert*: la búsqueda y la inserción en dos secciones
/// críticas separadas, sin marca de "en curso" entre las dos.
#[derive(Debug, Default)]
pub struct CheckThenInsertServer {
    ledger: Mutex<Vec<LedgerEntry>>,
    store: Mutex<SharedStore>,
}

impl SharedPayments for CheckThenInsertServer {
    /// Busca, suelta el candado, cobra y guarda: las reglas de la lección 4
    /// en secuencia, una carrera entre dos hilos.
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest { order_id, amount };
        let found = self.store.lock().get(&key).copied();
        match found {
            Some(state) if state.request() != request => return Err(ChargeError::KeyReused),
            Some(KeyState::Completed(_, result)) => return Ok(result),
            Some(KeyState::InFlight(_)) => return Err(ChargeError::InFlight),
            None => {}
        }
        let result = {
            let mut ledger = self.ledger.lock();
            let charge_id = ChargeId::next_after(ledger.len());
            ledger.push(LedgerEntry {
                key,
                order_id,
                amount,
                charge_id,
            });
            ChargeResult {
                charge_id,
                amount,
                status: ChargeStatus::Captured,
            }
        };
        self.store
            .lock()
            .insert(key, KeyState::Completed(request, result));
        Ok(result)
    }

    fn ledger(&self) -> Vec<LedgerEntry> {
        self.ledger.lock().clone()
    }
}
