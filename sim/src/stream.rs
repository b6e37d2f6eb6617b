//! Streams aleatorios con semilla, con los algoritmos de `random` de CPython
//! encima.
//!
//! La flota de la lección se sorteó con CPython (`random.Random(42).randint(10,
//! 500)` para los montos, `random.Random(43).random()` para las pérdidas); para
//! reproducirla al dólar, el kit corre el mismo generador MT19937, con la misma
//! forma de sembrar la semilla y la misma aritmética de `random()` /
//! `randint()`. Las variantes propias del kit pueden usar ChaCha8 en su lugar,
//! con exactamente la misma aritmética.

use chacha20::ChaCha8Rng;
use rand::{Rng, SeedableRng};
use rand_mt::Mt;
use serde::{Deserialize, Serialize};

/// De qué generador sortea un fixture.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum StreamKind {
    /// MT19937 con la semilla puesta como la pone CPython en
    /// `random.Random(seed)`: coincide con Python sorteo a sorteo.
    #[default]
    Cpython,
    /// ChaCha8 (el de `chacha20`, el mismo stream que `rand_chacha`), con la
    /// semilla puesta con `seed_from_u64`.
    Chacha,
}

impl StreamKind {
    /// El nombre que se usa en los fixtures y en los mensajes.
    pub fn name(self) -> &'static str {
        match self {
            StreamKind::Cpython => "cpython",
            StreamKind::Chacha => "chacha",
        }
    }
}

/// Un stream de sorteos con semilla, con los `random()` y `randint()` de
/// CPython.
#[derive(Clone, Debug)]
pub struct Stream {
    source: Source,
}

#[derive(Debug)]
enum Source {
    Mt(Box<Mt>),
    Chacha(Box<ChaCha8Rng>),
}

/// `chacha20`'s generators are not `Clone` (a copy of a cryptographic
/// stream is rarely wanted); a stream of the kit's is: the copy goes on from
/// the same word of the same stream.
impl Clone for Source {
    fn clone(&self) -> Source {
        match self {
            Source::Mt(mt) => Source::Mt(mt.clone()),
            Source::Chacha(c) => Source::Chacha(Box::new(ChaCha8Rng::deserialize_state(
                &c.serialize_state(),
            ))),
        }
    }
}

impl Stream {
    /// Un stream de tipo `kind` con semilla `seed`. Con
    /// [`StreamKind::Cpython`], la semilla se convierte en la clave de
    /// `init_by_array`, en palabras de 32 bits con la menos significativa
    /// primero, exactamente como hace `random.Random(seed)` con un entero no
    /// negativo.
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

    /// La siguiente salida cruda de 32 bits.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        match &mut self.source {
            Source::Mt(mt) => mt.next_u32(),
            Source::Chacha(c) => c.next_u32(),
        }
    }

    /// El `random()` de CPython: un número de coma flotante en [0, 1) con 53
    /// bits aleatorios, construido a partir de dos salidas como
    /// `((a >> 5) * 67108864 + (b >> 6)) / 2^53`.
    #[inline]
    pub fn random(&mut self) -> f64 {
        let a = u64::from(self.next_u32() >> 5);
        let b = u64::from(self.next_u32() >> 6);
        (a * 67_108_864 + b) as f64 * (1.0 / 9_007_199_254_740_992.0)
    }

    /// El `randbelow(n)` de CPython para `0 < n <= 2^32`: sortea
    /// `bit_length(n)` bits (`next_u32() >> (32 - k)`) hasta que el valor quede
    /// por debajo de `n`.
    ///
    /// # Pánicos
    /// Si `n` es 0 o mayor que 2^32 (los límites de los fixtures lo mantienen
    /// muy por debajo).
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

    /// El `randint(lo, hi)` de CPython: `lo + randbelow(hi - lo + 1)`, con los
    /// dos extremos incluidos.
    ///
    /// # Pánicos
    /// Si `lo > hi` o si el rango es más ancho que 2^32.
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

    #[test]
    fn chacha_stream_is_pinned() {
        // The words rand_chacha's ChaCha8Rng::seed_from_u64 gave before the
        // kit moved to chacha20's (words 0, 1, 15, 16 and 39: the first
        // block, its last word, the second block, the fortieth word).
        let words = |seed| {
            let mut s = Stream::new(StreamKind::Chacha, seed);
            let all: Vec<u32> = (0..40).map(|_| s.next_u32()).collect();
            [all[0], all[1], all[15], all[16], all[39]]
        };
        assert_eq!(
            words(0),
            [2811902828, 3045455719, 4017626237, 2122901088, 3814770401]
        );
        assert_eq!(
            words(42),
            [962419617, 2928721845, 3452607245, 2697858048, 328096864]
        );
        assert_eq!(
            words(u64::MAX),
            [3819388078, 2938119046, 4215280145, 421675379, 3239112860]
        );
    }

    #[test]
    fn a_cloned_chacha_stream_goes_on_from_the_same_word() {
        let mut s = Stream::new(StreamKind::Chacha, 7);
        for _ in 0..21 {
            s.next_u32();
        }
        let mut copy = s.clone();
        let a: Vec<u32> = (0..50).map(|_| s.next_u32()).collect();
        let b: Vec<u32> = (0..50).map(|_| copy.next_u32()).collect();
        assert_eq!(a, b);
    }
}
