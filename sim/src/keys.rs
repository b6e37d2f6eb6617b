//! Where idempotency keys come from (lesson 3: the client creates one key per
//! operation).

use crate::ids::IdempotencyKey;
use crate::stream::{Stream, StreamKind};

/// A source of fresh idempotency keys, passed to the client by the kit.
///
/// Every call returns a key never returned before by this source. The client
/// calls it once per operation, before the first attempt.
pub trait KeySource {
    /// A fresh, unique key.
    fn new_key(&mut self) -> IdempotencyKey;
}

impl<K: KeySource + ?Sized> KeySource for &mut K {
    fn new_key(&mut self) -> IdempotencyKey {
        (**self).new_key()
    }
}

/// Keys drawn from a seeded ChaCha8 stream: unique, unpredictable from an
/// order's content, and the same for the same seed on every machine.
#[derive(Clone, Debug)]
pub struct SeededKeys {
    stream: Stream,
    last: u64,
}

impl SeededKeys {
    /// A key source seeded with `seed`.
    pub fn new(seed: u64) -> SeededKeys {
        SeededKeys {
            stream: Stream::new(StreamKind::Chacha, seed),
            last: 0,
        }
    }
}

impl KeySource for SeededKeys {
    /// The high 32 bits are random and the low 32 bits count up, so keys are
    /// unique for the first 2^32 calls and still look unrelated to any order.
    /// Keys created one after another thus land in neighbouring buckets of a
    /// store that hashes their low bits as they are (the reference server's
    /// does, to fill a store of millions of keys without a cache miss each).
    fn new_key(&mut self) -> IdempotencyKey {
        self.last += 1;
        let high = u64::from(self.stream.next_u32()) << 32;
        IdempotencyKey(high | (self.last & 0xffff_ffff))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_seeded() {
        let mut a = SeededKeys::new(1);
        let keys: Vec<_> = (0..1000).map(|_| a.new_key()).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), 1000);
        let mut b = SeededKeys::new(1);
        assert_eq!(b.new_key(), keys[0]);
        assert_ne!(SeededKeys::new(2).new_key(), keys[0]);
    }
}
