//! Exercise 1, answered: the idempotent `charge`.

use std::collections::hash_map::Entry;

use sim::{
    ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, IdempotencyStore, LedgerEntry, Money,
    OrderId, Payments,
};

/// Lesson 2's payments server: an append-only ledger and an idempotency store
/// used only in idempotent mode.
#[derive(Debug, Default)]
pub struct PaymentsServer {
    idempotent: bool,
    ledger: Vec<LedgerEntry>,
    store: IdempotencyStore,
}

impl PaymentsServer {
    /// A server with an empty ledger and store.
    pub fn new(idempotent: bool) -> PaymentsServer {
        PaymentsServer {
            idempotent,
            ledger: Vec::new(),
            store: IdempotencyStore::default(),
        }
    }

    /// Executes the charge for real: one new ledger row, one new charge id.
    fn execute(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        let charge_id = ChargeId::next_after(self.ledger.len());
        self.ledger.push(LedgerEntry {
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
    }
}

impl Payments for PaymentsServer {
    /// Without idempotency every call executes. With it, a known key is a
    /// replay of the stored result (the ledger is not touched) and a new key
    /// executes and is remembered, in one hash lookup.
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        if !self.idempotent {
            return self.execute(key, order_id, amount);
        }
        match self.store.entry(key) {
            Entry::Occupied(stored) => *stored.get(),
            Entry::Vacant(slot) => {
                let charge_id = ChargeId::next_after(self.ledger.len());
                self.ledger.push(LedgerEntry {
                    key,
                    order_id,
                    amount,
                    charge_id,
                });
                *slot.insert(ChargeResult {
                    charge_id,
                    amount,
                    status: ChargeStatus::Captured,
                })
            }
        }
    }

    fn ledger(&self) -> &[LedgerEntry] {
        &self.ledger
    }
}
