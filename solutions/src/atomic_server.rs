//! Exercise 4 (bonus, lesson 4), answered: the atomic store.

use sim::sync::Mutex;
use sim::{
    ChargeError, ChargeId, ChargeRequest, ChargeResult, ChargeStatus, IdempotencyKey, KeyState,
    LedgerEntry, Money, OrderId, SharedPayments, SharedStore,
};

/// Lesson 4's payments server shared by concurrent requests: the key is
/// claimed (looked up and marked in flight) in one critical section of the
/// store's lock, the charge runs under the ledger's lock, and the result is
/// stored under the store's lock again.
#[derive(Debug, Default)]
pub struct AtomicPaymentsServer {
    ledger: Mutex<Vec<LedgerEntry>>,
    store: Mutex<SharedStore>,
}

impl AtomicPaymentsServer {
    /// A server with an empty ledger and store.
    pub fn new() -> AtomicPaymentsServer {
        AtomicPaymentsServer::default()
    }
}

impl SharedPayments for AtomicPaymentsServer {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest { order_id, amount };
        {
            let mut store = self.store.lock();
            match store.get(&key) {
                Some(state) if state.request() != request => return Err(ChargeError::KeyReused),
                Some(KeyState::Completed(_, result)) => return Ok(*result),
                Some(KeyState::InFlight(_)) => return Err(ChargeError::InFlight),
                None => {
                    store.insert(key, KeyState::InFlight(request));
                }
            }
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
