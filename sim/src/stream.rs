//! Seeded random streams, with CPython's `random` algorithms on top.
//!
//! The lesson's fleet was drawn with CPython (`random.Random(42).randint(10,
//! 500)` for the amounts, `random.Random(43).random()` for the losses); to
//! reproduce it to the dollar the kit runs the same MT19937 generator with the
//! same seeding and the same `random()` / `randint()` arithmetic. The kit's own
//! variants may use ChaCha8 instead, through the very same arithmetic.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_mt::Mt;
use serde::Deserialize;

/// Which generator a fixture draws from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum StreamKind {
    /// MT19937 seeded as CPython seeds `random.Random(seed)`: matches Python
    /// draw for draw.
    #[default]
    Cpython,
    /// ChaCha8 (`rand_chacha`), seeded with `seed_from_u64`.
    Chacha,
}

impl StreamKind {
    /// The name used in fixtures and messages.
    pub fn name(self) -> &'static str {
        match self {
            StreamKind::Cpython => "cpython",
            StreamKind::Chacha => "chacha",
        }
    }
}

/// A seeded stream of draws with CPython's `random()` and `randint()`.
#[derive(Clone, Debug)]
pub struct Stream {
    source: Source,
}

#[derive(Clone, Debug)]
enum Source {
    Mt(Box<Mt>),
    Chacha(Box<ChaCha8Rng>),
}

impl Stream {
    /// A stream of `kind` seeded with `seed`. For [`StreamKind::Cpython`] the
    /// seed becomes the `init_by_array` key of 32-bit words, least significant
    /// first, exactly as `random.Random(seed)` does for a non-negative int.
    pub fn new(kind: StreamKind, seed: u64) -> Stream {
        let source = match kind {
            StreamKind::Cpython => {
                let lo = seed as u32;
                let hi = (seed >> 32) as u32;
                let mt = if hi == 0 {
                    Mt::new_with_key([lo])
                } else {
                    Mt::new_with_key([lo, hi])
                };
                Source::Mt(Box::new(mt))
            }
            StreamKind::Chacha => Source::Chacha(Box::new(ChaCha8Rng::seed_from_u64(seed))),
        };
        Stream { source }
    }

    /// The next raw 32-bit output.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        match &mut self.source {
            Source::Mt(mt) => mt.next_u32(),
            Source::Chacha(c) => c.next_u32(),
        }
    }

    /// CPython's `random()`: a float in [0, 1) with 53 random bits, built
    /// from two outputs as `((a >> 5) * 67108864 + (b >> 6)) / 2^53`.
    #[inline]
    pub fn random(&mut self) -> f64 {
        let a = u64::from(self.next_u32() >> 5);
        let b = u64::from(self.next_u32() >> 6);
        (a * 67_108_864 + b) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// CPython's `randbelow(n)` for `0 < n <= 2^32`: draws `bit_length(n)`
    /// bits (`next_u32() >> (32 - k)`) until the value is below `n`.
    ///
    /// # Panics
    /// If `n` is 0 or above 2^32 (the fixtures' limits keep it far below).
    pub fn randbelow(&mut self, n: u64) -> u64 {
        assert!(n > 0 && n <= 1 << 32, "randbelow({n}) is outside 1..=2^32");
        let k = 64 - (n).leading_zeros();
        loop {
            let r = u64::from(self.next_u32()) >> (32 - k);
            if r < n {
                return r;
            }
        }
    }

    /// CPython's `randint(lo, hi)`: `lo + randbelow(hi - lo + 1)`, both ends
    /// included.
    ///
    /// # Panics
    /// If `lo > hi` or the range is wider than 2^32.
    pub fn randint(&mut self, lo: u64, hi: u64) -> u64 {
        assert!(lo <= hi, "randint({lo}, {hi}) has an empty range");
        lo + self.randbelow(hi - lo + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Printed by CPython 3.11.7:
    // python3 -c "import random; r=random.Random(42); print([r.randint(10,500) for _ in range(12)]); r=random.Random(43); print([repr(r.random()) for _ in range(6)])"
    const CPYTHON_RANDINT_42: [u64; 12] = [337, 67, 22, 389, 150, 135, 124, 81, 387, 62, 356, 389];
    const CPYTHON_RANDOM_43: [f64; 6] = [
        0.038551839337380045,
        0.6962243226370528,
        0.14393322139536102,
        0.46253225482908755,
        0.671646764117767,
        0.7929512716552943,
    ];

    #[test]
    fn randint_matches_cpython() {
        let mut s = Stream::new(StreamKind::Cpython, 42);
        let got: Vec<u64> = (0..12).map(|_| s.randint(10, 500)).collect();
        assert_eq!(got, CPYTHON_RANDINT_42);
    }

    #[test]
    fn random_matches_cpython_bit_for_bit() {
        let mut s = Stream::new(StreamKind::Cpython, 43);
        for want in CPYTHON_RANDOM_43 {
            assert_eq!(s.random().to_bits(), want.to_bits());
        }
    }

    #[test]
    fn large_and_zero_seeds_match_cpython() {
        // python3 -c "import random; r=random.Random(2**40+5); print(repr(r.random()), r.randint(1,10**6)); print(repr(random.Random(0).random()))"
        let mut s = Stream::new(StreamKind::Cpython, (1 << 40) + 5);
        assert_eq!(s.random().to_bits(), 0.5043802970418443f64.to_bits());
        assert_eq!(s.randint(1, 1_000_000), 281_653);
        let mut z = Stream::new(StreamKind::Cpython, 0);
        assert_eq!(z.random().to_bits(), 0.8444218515250481f64.to_bits());
    }

    #[test]
    fn the_lessons_intended_total_comes_out() {
        // python3 -c "import random; r=random.Random(42); print(sum(r.randint(10,500) for _ in range(1000)))"
        let mut s = Stream::new(StreamKind::Cpython, 42);
        let total: u64 = (0..1000).map(|_| s.randint(10, 500)).sum();
        assert_eq!(total, 256_979);
    }

    #[test]
    fn chacha_is_seeded_and_distinct() {
        let draws = |seed| {
            let mut s = Stream::new(StreamKind::Chacha, seed);
            (0..4).map(|_| s.randint(1, 1000)).collect::<Vec<_>>()
        };
        assert_eq!(draws(7), draws(7));
        assert_ne!(draws(7), draws(8));
    }
}
