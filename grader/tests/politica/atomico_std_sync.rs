//! Exercise 4 with std's locks instead of the world's (`sim::sync`): the
//! schedule explorer could not see them.

use std::sync::Mutex;

use sim::{
    ChargeError, ChargeId, ChargeRequest, ChargeResult, ChargeStatus, IdempotencyKey, KeyState,
    LedgerEntry, Money, OrderId, SharedPayments, SharedStore,
};

#[derive(Debug, Default)]
pub struct AtomicPaymentsServer {
    ledger: Mutex<Vec<LedgerEntry>>,
    store: Mutex<SharedStore>,
}

impl AtomicPaymentsServer {
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
        let mut store = self.store.lock().unwrap();
        match store.get(&key) {
            Some(state) if state.request() != request => return Err(ChargeError::KeyReused),
            Some(KeyState::Completed(_, result)) => return Ok(*result),
            Some(KeyState::InFlight(_)) => return Err(ChargeError::InFlight),
            None => {}
        }
        let mut ledger = self.ledger.lock().unwrap();
        let charge_id = ChargeId::next_after(ledger.len());
        ledger.push(LedgerEntry {
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
        store.insert(key, KeyState::Completed(request, result));
        Ok(result)
    }

    fn ledger(&self) -> Vec<LedgerEntry> {
        self.ledger.lock().unwrap().clone()
    }
}
