//! Exercise 1, answered: the idempotent `charge`.

use std::hash::BuildHasher;

use hashbrown::HashTable;
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
/// stored result *is* that row: same charge id, same amount, captured). A
/// replay reads the row back; nothing is allocated per attempt beyond the
/// ledger's and the store's own growth.
#[derive(Debug, Default)]
pub struct PaymentsServer {
    idempotent: bool,
    ledger: Vec<LedgerEntry>,
    /// Ledger row (0-based) of each key's first charge, found by the key.
    store: Store,
}

/// The store: ledger rows by key, in two parts. A key whose low 32 bits
/// are small (the kit's [`sim::SeededKeys`] count up in them: 1, 2, 3, …)
/// sits in `direct`, a row number per value of those bits ([`EMPTY`] when
/// none), which grows like a `Vec` (no rehashing, 4 bytes a slot, never
/// more than twice as many slots as keys, plus [`DIRECT_FLOOR`]); every
/// other key, and a key whose slot holds another key with the same low
/// bits, sits in `table`, a hash table of 4-byte slots. Every lookup
/// compares the whole key with the row's, in both parts, so any key is
/// stored correctly; the split only decides where it is found.
#[derive(Debug, Default)]
struct Store {
    direct: Vec<u32>,
    table: HashTable<u32>,
}

/// A free slot of [`Store::direct`] (no ledger row has this number: the
/// idempotent ledger stops below it).
const EMPTY: u32 = u32::MAX;

/// [`Store::direct`] holds a key whose low 32 bits are below twice the
/// number of keys stored plus this.
const DIRECT_FLOOR: u64 = 1 << 12;

/// The store's hash of a key: its low 32 bits as they are, its high 32 bits
/// from a multiplicative mix of the whole key.
///
/// hashbrown picks the bucket from a hash's low bits and a 7-bit tag from its
/// top bits. Keys that count up in their low 32 bits land in consecutive
/// buckets (one cache miss per insert avoided), while the mixed top bits
/// keep the tags selective for any key. Keys that repeat their low 32 bits
/// only share buckets and probe longer.
fn hash(key: IdempotencyKey) -> u64 {
    let mixed = FxBuildHasher.hash_one(key.0);
    (mixed & 0xffff_ffff_0000_0000) | (key.0 & 0xffff_ffff)
}

impl Store {
    /// The row stored for `key`; when there is none, stores `row` (the row
    /// the key's charge is about to write, which is also the number of keys
    /// stored) and gives `None`.
    fn find_or_insert(
        &mut self,
        ledger: &[LedgerEntry],
        key: IdempotencyKey,
        row: u32,
    ) -> Option<u32> {
        let low = key.0 & 0xffff_ffff;
        let same = |&r: &u32| ledger[r as usize].key == key;
        if let Some(&r) = self.direct.get(low as usize)
            && r != EMPTY
            && same(&r)
        {
            return Some(r);
        }
        // Not in its slot: stored in the table, or new.
        let h = hash(key);
        if let Some(&r) = self.table.find(h, same) {
            return Some(r);
        }
        if low < 2 * u64::from(row) + DIRECT_FLOOR {
            if low >= self.direct.len() as u64 {
                self.direct.resize(low as usize + 1, EMPTY);
            }
            let slot = &mut self.direct[low as usize];
            if *slot == EMPTY {
                *slot = row;
                return None;
            }
        }
        self.table
            .insert_unique(h, row, |&r| hash(ledger[r as usize].key));
        None
    }
}

impl PaymentsServer {
    /// A server with an empty ledger and store.
    pub fn new(idempotent: bool) -> PaymentsServer {
        PaymentsServer {
            idempotent,
            ledger: Vec::new(),
            store: Store::default(),
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
        let row = u32::try_from(self.ledger.len())
            .ok()
            .filter(|&r| r != EMPTY)
            .expect("the idempotent ledger holds at most 2^32 - 1 rows");
        match self.store.find_or_insert(&self.ledger, key, row) {
            Some(stored) => result_of(self.ledger[stored as usize]),
            None => self.execute(key, order_id, amount),
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

    /// A key stored in the table (its low bits far above the direct part)
    /// is still found after the direct part has grown past its slot, and
    /// a key sharing a stored key's low bits is a new key: the direct part
    /// never answers for a key it does not hold.
    #[test]
    fn the_direct_part_never_hides_a_stored_key() {
        let mut server = PaymentsServer::new(true);
        let amount = Money::from_dollars(5);
        let far = IdempotencyKey(9_000);
        assert_eq!(
            server.charge(far, OrderId(1), amount).charge_id,
            ChargeId(1)
        );
        for low in 1..=6_000u64 {
            let r = server.charge(IdempotencyKey(low << 32 | low), OrderId(2), amount);
            assert_eq!(r.charge_id, ChargeId(low + 1));
        }
        let past = IdempotencyKey(9_500);
        assert_eq!(
            server.charge(past, OrderId(4), amount).charge_id,
            ChargeId(6_002)
        );
        assert_eq!(server.store.direct.len(), 9_501);
        assert_eq!(server.store.direct[9_000], EMPTY);
        assert_eq!(
            server.charge(far, OrderId(1), amount).charge_id,
            ChargeId(1)
        );
        let twin = IdempotencyKey(7 << 32 | 9_000);
        assert_eq!(
            server.charge(twin, OrderId(3), amount).charge_id,
            ChargeId(6_003)
        );
        assert_eq!(
            server.charge(twin, OrderId(3), amount).charge_id,
            ChargeId(6_003)
        );
        assert_eq!(
            server.charge(far, OrderId(1), amount).charge_id,
            ChargeId(1)
        );
        assert_eq!(
            server.charge(past, OrderId(4), amount).charge_id,
            ChargeId(6_002)
        );
        assert_eq!(server.ledger().len(), 6_003);
        // The direct part holds at most twice the keys, plus its floor.
        assert!(server.store.direct.len() as u64 <= 2 * 6_003 + DIRECT_FLOOR);
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
