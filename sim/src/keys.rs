//! De dónde salen las idempotency keys (lección 3: el cliente crea una key por
//! operación).

use crate::ids::IdempotencyKey;
use crate::stream::{Stream, StreamKind};

/// Una fuente de idempotency keys nuevas, que el kit le pasa al cliente.
///
/// Cada llamada devuelve una key que esta fuente nunca devolvió antes. El
/// cliente la llama una vez por operación, antes del primer intento.
pub trait KeySource {
    /// Una key nueva y única.
    fn new_key(&mut self) -> IdempotencyKey;
}

impl<K: KeySource + ?Sized> KeySource for &mut K {
    fn new_key(&mut self) -> IdempotencyKey {
        (**self).new_key()
    }
}

/// Keys sacadas de un stream ChaCha8 con semilla: únicas, imposibles de
/// predecir a partir del contenido de una orden, e iguales para la misma
/// semilla en cualquier máquina.
#[derive(Clone, Debug)]
pub struct SeededKeys {
    stream: Stream,
    last: u64,
}

impl SeededKeys {
    /// Una fuente de keys con semilla `seed`.
    pub fn new(seed: u64) -> SeededKeys {
        SeededKeys {
            stream: Stream::new(StreamKind::Chacha, seed),
            last: 0,
        }
    }
}

impl KeySource for SeededKeys {
    /// Los 32 bits altos son aleatorios y los 32 bajos cuentan hacia arriba,
    /// así que las keys son únicas durante las primeras 2^32 llamadas y aun así
    /// no parecen relacionadas con ninguna orden. Por eso las keys creadas una
    /// tras otra caen en buckets vecinos de un store que hashea sus bits bajos
    /// tal cual (el store del servidor de referencia lo hace, para llenar un
    /// store de millones de keys sin un fallo de caché por cada una).
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
