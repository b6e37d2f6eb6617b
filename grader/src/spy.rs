//! The judge's model of lesson 2's payments server (`PaymentsServer`), with
//! and without idempotency, recording every call. Checks play scripts
//! against it to know what the implementation must answer, and replay a
//! client's recorded calls through it to know what the ledger must hold.

use protocol::Call;
use sim::{
    ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry, Money, OrderId, Payments,
};

/// A correct payments server (with or without idempotency) that logs calls.
#[derive(Debug, Default)]
pub struct SpyServer {
    idempotent: bool,
    ledger: Vec<LedgerEntry>,
    store: sim::IdempotencyStore,
    /// Every call, in order.
    pub calls: Vec<Call>,
}

impl SpyServer {
    /// An empty server.
    pub fn new(idempotent: bool) -> SpyServer {
        SpyServer {
            idempotent,
            ..SpyServer::default()
        }
    }
}

impl Payments for SpyServer {
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
