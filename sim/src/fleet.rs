//! Una flota: las órdenes, cómo se pierden las respuestas, `max_attempts` y
//! las semillas (lección 2, ejemplo trabajado II). Es un dato: la misma flota
//! da las mismas órdenes, las mismas pérdidas y las mismas keys en cualquier
//! máquina.

use serde::{Deserialize, Serialize};

use crate::ids::OrderId;
use crate::keys::SeededKeys;
use crate::money::Money;
use crate::network::{Delivery, LossModel, Network};
use crate::order::Order;
use crate::stream::{Stream, StreamKind};

/// Cómo se dan las órdenes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrdersSpec {
    /// Montos explícitos (en centavos), con ids 1, 2, … en orden.
    Listed(Vec<Money>),
    /// `count` órdenes de `randint(amount_min, amount_max)` dólares enteros
    /// (el `randint` de CPython), sorteadas en orden del stream de la flota
    /// con semilla `seed`.
    Generated {
        /// Número de órdenes.
        count: u64,
        /// Monto mínimo, en dólares enteros.
        amount_min: i64,
        /// Monto máximo, en dólares enteros (incluido).
        amount_max: i64,
        /// Semilla del stream de los montos.
        seed: u64,
    },
}

/// Cómo se pierden las respuestas.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LossSpec {
    /// Una entrada por intento, a lo largo de toda la flota; cuando se
    /// acaban, todas las respuestas llegan.
    Scripted(Vec<Delivery>),
    /// Cada respuesta se pierde con probabilidad `p_response_lost`, con un
    /// sorteo por intento del stream de la flota con semilla `seed`.
    Random {
        /// En [0, 1].
        p_response_lost: f64,
        /// Semilla del stream de las pérdidas.
        seed: u64,
    },
}

/// Una flota lista para correr: órdenes, pérdidas, `max_attempts`, el
/// generador y la semilla de las keys.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fleet {
    /// Las órdenes.
    pub orders: OrdersSpec,
    /// Las pérdidas.
    pub losses: LossSpec,
    /// Máximo de intentos por orden (la lección usa 4).
    pub max_attempts: u32,
    /// El generador detrás de los montos y las pérdidas.
    pub stream: StreamKind,
    /// Semilla de las idempotency keys que el kit entrega a los clientes.
    pub key_seed: u64,
}

impl Fleet {
    /// Una flota generada con la convención de semillas de la lección: los
    /// montos con semilla `seed`, las pérdidas con `seed + 1` (el 42 y el 43
    /// de la lección) y las keys con `seed`. `amounts` en dólares enteros.
    pub fn generated(
        count: u64,
        amounts: (i64, i64),
        p_response_lost: f64,
        max_attempts: u32,
        seed: u64,
        stream: StreamKind,
    ) -> Fleet {
        Fleet {
            orders: OrdersSpec::Generated {
                count,
                amount_min: amounts.0,
                amount_max: amounts.1,
                seed,
            },
            losses: LossSpec::Random {
                p_response_lost,
                seed: seed.wrapping_add(1),
            },
            max_attempts,
            stream,
            key_seed: seed,
        }
    }

    /// Órdenes explícitas (montos en centavos) y un guion de pérdidas.
    pub fn scripted(amounts: Vec<Money>, script: Vec<Delivery>, max_attempts: u32) -> Fleet {
        Fleet {
            orders: OrdersSpec::Listed(amounts),
            losses: LossSpec::Scripted(script),
            max_attempts,
            stream: StreamKind::Cpython,
            key_seed: 0,
        }
    }

    /// Número de órdenes, sin generarlas.
    pub fn order_count(&self) -> u64 {
        match &self.orders {
            OrdersSpec::Listed(a) => a.len() as u64,
            OrdersSpec::Generated { count, .. } => *count,
        }
    }

    /// Las órdenes, con ids desde 1 y montos en centavos. Misma flota,
    /// mismas órdenes.
    pub fn orders(&self) -> Vec<Order> {
        // Straight into the orders (no list of amounts first: a fleet of
        // millions would touch its memory twice).
        let order = |i: usize, amount: Money| Order {
            id: OrderId(i as u64 + 1),
            amount,
        };
        match &self.orders {
            OrdersSpec::Listed(a) => a.iter().enumerate().map(|(i, &m)| order(i, m)).collect(),
            OrdersSpec::Generated {
                count,
                amount_min,
                amount_max,
                seed,
            } => {
                let mut s = Stream::new(self.stream, *seed);
                let (lo, hi) = (*amount_min as u64, *amount_max as u64);
                (0..*count as usize)
                    .map(|i| order(i, Money::from_dollars(s.randint(lo, hi) as i64)))
                    .collect()
            }
        }
    }

    /// El modelo de pérdidas, desde su primer sorteo.
    pub fn loss_model(&self) -> LossModel {
        match &self.losses {
            LossSpec::Scripted(s) => LossModel::scripted(s.clone()),
            LossSpec::Random {
                p_response_lost,
                seed,
            } => LossModel::random(self.stream, *seed, *p_response_lost),
        }
    }

    /// Una red nueva con las pérdidas de la flota: todos los mundos vuelven a
    /// ver los mismos sorteos.
    pub fn network(&self) -> Network {
        Network::new(self.loss_model())
    }

    /// Una fuente de keys nueva para la flota.
    pub fn keys(&self) -> SeededKeys {
        SeededKeys::new(self.key_seed)
    }

    /// La probabilidad de pérdida, o `None` si las pérdidas vienen de un
    /// guion.
    pub fn p_response_lost(&self) -> Option<f64> {
        match self.losses {
            LossSpec::Random {
                p_response_lost, ..
            } => Some(p_response_lost),
            LossSpec::Scripted(_) => None,
        }
    }
}
