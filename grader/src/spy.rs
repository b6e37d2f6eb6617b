//! The grader's own instruments: a correct payments server that records every
//! call, and a key source that records every key it hands out.
//!
//! They let the client and reconciliation checks run without the student's
//! server, so each exercise is graded on its own.

use sim::{
    ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, KeySource, LedgerEntry, Money, OrderId,
    Payments, SeededKeys,
};

/// One call the client made: what it sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call {
    /// The idempotency key it carried.
    pub key: IdempotencyKey,
    /// The order.
    pub order_id: OrderId,
    /// The amount, in cents.
    pub amount: Money,
}

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

/// A seeded key source that remembers what it issued.
#[derive(Debug)]
pub struct RecordingKeys {
    inner: SeededKeys,
    /// Every key handed out, in order.
    pub issued: Vec<IdempotencyKey>,
}

impl RecordingKeys {
    /// Seeded like [`SeededKeys::new`].
    pub fn new(seed: u64) -> RecordingKeys {
        RecordingKeys {
            inner: SeededKeys::new(seed),
            issued: Vec::new(),
        }
    }
}

impl KeySource for RecordingKeys {
    fn new_key(&mut self) -> IdempotencyKey {
        let k = self.inner.new_key();
        self.issued.push(k);
        k
    }
}
