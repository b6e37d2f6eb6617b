//! Los identificadores del mundo: órdenes, idempotency keys y cargos.

use std::fmt;

/// El id de una orden de `orders` (el `order_id` de la lección 2). Los
/// fixtures numeran las flotas generadas desde 1.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct OrderId(pub u64);

impl fmt::Display for OrderId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ord_{:04}", self.0)
    }
}

/// Una idempotency key: el identificador que el cliente crea una vez por
/// operación y reenvía en cada reintento (lección 3; el "folio" del cajero de
/// la lección 2).
///
/// Un valor de 64 bits, barato de hashear y de comparar. Las fuentes de keys
/// del kit ([`crate::KeySource`]) las sacan de un stream con semilla, así que
/// una key nunca codifica el contenido de una orden.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct IdempotencyKey(pub u64);

impl fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "idem_{:016x}", self.0)
    }
}

/// El id de un cargo ejecutado: la fila del ledger que escribió, numerada
/// desde 1 e impresa como en la lección 2 (`ch_0001`).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(transparent)]
pub struct ChargeId(pub u64);

impl ChargeId {
    /// El id del cargo que pasa a ser la fila número `rows_before + 1` del
    /// ledger (lección 2: `f"ch_{len(self.ledger) + 1:04d}"`).
    pub fn next_after(rows_before: usize) -> ChargeId {
        ChargeId(rows_before as u64 + 1)
    }
}

impl fmt::Display for ChargeId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ch_{:04}", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_print_like_the_lesson() {
        assert_eq!(ChargeId::next_after(0).to_string(), "ch_0001");
        assert_eq!(ChargeId::next_after(41).to_string(), "ch_0042");
        assert_eq!(ChargeId(12345).to_string(), "ch_12345");
        assert_eq!(OrderId(7).to_string(), "ord_0007");
        assert_eq!(IdempotencyKey(255).to_string(), "idem_00000000000000ff");
    }
}
