//! Exercise 1, answered: the idempotent `charge`.

use std::hash::BuildHasher;

use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use rustc_hash::FxBuildHasher;
use sim::{
    ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry, Money, OrderId, Payments,
};

/// Lesson 2's payments server: an append-only ledger and an idempotency store
/// used only in idempotent mode.
///
/// The store is lesson 2's `idempotency_key -> resultado guardado`, kept
/// lean for fleets of millions of orders: instead of a copy of the result it
/// holds the number of the ledger row that the key's first charge wrote (the
/// stored result *is* that row: same charge id, same amount, captured), in a
/// hash table of 4-byte slots. A replay reads the row back; nothing is
/// allocated per attempt beyond the ledger's and the store's own growth.
#[derive(Debug, Default)]
pub struct PaymentsServer {
    idempotent: bool,
    ledger: Vec<LedgerEntry>,
    /// Ledger row (0-based) of each key's first charge, found by the key.
    store: HashTable<u32>,
}

/// The store's hash of a key: its low 32 bits as they are, its high 32 bits
/// from a multiplicative mix of the whole key.
///
/// hashbrown picks the bucket from a hash's low bits and a 7-bit tag from its
/// top bits. The kit's [`sim::SeededKeys`] count up in their low 32 bits and
/// are random in their high 32, so consecutive operations land in
/// consecutive buckets: a fleet of 10,000,000 orders fills the store
/// sequentially instead of with one cache miss per insert (about 10 times
/// faster here), while the mixed top bits keep the tags selective for any
/// key. Any key is stored correctly; keys that repeat their low 32 bits
/// (no key source of the kit makes them) only share buckets and probe
/// longer.
fn hash(key: IdempotencyKey) -> u64 {
    let mixed = FxBuildHasher.hash_one(key.0);
    (mixed & 0xffff_ffff_0000_0000) | (key.0 & 0xffff_ffff)
}

impl PaymentsServer {
    /// A server with an empty ledger and store.
    pub fn new(idempotent: bool) -> PaymentsServer {
        PaymentsServer {
            idempotent,
            ledger: Vec::new(),
            store: HashTable::new(),
        }
    }

    /// Executes the charge for real: one new ledger row, one new charge id.
    fn execute(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        let row = LedgerEntry {
            key,
            order_id,
            amount,
            charge_id: ChargeId::next_after(self.ledger.len()),
        };
        self.ledger.push(row);
        result_of(row)
    }
}

/// The result a ledger row answered (and answers again on a replay).
fn result_of(row: LedgerEntry) -> ChargeResult {
    ChargeResult {
        charge_id: row.charge_id,
        amount: row.amount,
        status: ChargeStatus::Captured,
    }
}

impl Payments for PaymentsServer {
    /// Without idempotency every call executes. With it, a known key is a
    /// replay of the stored result (the ledger is not touched) and a new key
    /// executes and is remembered, in one hash lookup.
    ///
    /// # Panics
    /// When an idempotent ledger would pass 2^32 − 1 rows (128 GiB of
    /// ledger; the fixtures' limits stay far below).
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        if !self.idempotent {
            return self.execute(key, order_id, amount);
        }
        let ledger = &self.ledger;
        let entry = self.store.entry(
            hash(key),
            |&row| ledger[row as usize].key == key,
            |&row| hash(ledger[row as usize].key),
        );
        match entry {
            Entry::Occupied(stored) => result_of(self.ledger[*stored.get() as usize]),
            Entry::Vacant(slot) => {
                let row = u32::try_from(self.ledger.len())
                    .expect("the idempotent ledger holds at most 2^32 - 1 rows");
                slot.insert(row);
                self.execute(key, order_id, amount)
            }
        }
    }

    fn ledger(&self) -> &[LedgerEntry] {
        &self.ledger
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::{KeySource, SeededKeys};

    /// The store's speed rests on this layout of the kit's keys.
    #[test]
    fn seeded_keys_count_up_in_their_low_bits() {
        let mut keys = SeededKeys::new(42);
        let low: Vec<u64> = (0..5).map(|_| keys.new_key().0 & 0xffff_ffff).collect();
        assert_eq!(low, [1, 2, 3, 4, 5]);
    }

    /// Keys that share their low 32 bits share buckets, and are still told
    /// apart: each new one is charged, each known one replayed.
    #[test]
    fn keys_sharing_their_low_bits_stay_distinct() {
        let mut server = PaymentsServer::new(true);
        let amount = Money::from_dollars(500);
        let keys: Vec<IdempotencyKey> = (0..300).map(|i| IdempotencyKey(i << 32 | 7)).collect();
        for (i, &key) in keys.iter().enumerate() {
            let r = server.charge(key, OrderId(i as u64), amount);
            assert_eq!(r.charge_id, ChargeId(i as u64 + 1));
        }
        for (i, &key) in keys.iter().enumerate().rev() {
            let r = server.charge(key, OrderId(i as u64), amount);
            assert_eq!(r.charge_id, ChargeId(i as u64 + 1));
        }
        assert_eq!(server.ledger().len(), 300);
    }
}
