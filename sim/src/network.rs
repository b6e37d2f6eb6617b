//! La red entre `orders` y `payments`: lleva cada intento al servidor y puede
//! perder la respuesta en el camino de vuelta (lección 2, `client_charge`).

use crate::ids::{IdempotencyKey, OrderId};
use crate::ledger::ChargeResult;
use crate::money::Money;
use crate::payments::Payments;
use crate::stream::{Stream, StreamKind};

/// Qué pasa con una respuesta.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Delivery {
    /// La respuesta llega al cliente.
    Delivered,
    /// El servidor ya ejecutó la llamada, pero la respuesta nunca llega.
    Lost,
}

/// Decide, intento por intento, si la respuesta se pierde.
#[derive(Clone, Debug)]
pub enum LossModel {
    /// Un guion fijo, una entrada por intento y en orden (`lost, lost,
    /// delivered`); cuando el guion se acaba, todas las respuestas llegan.
    Scripted {
        /// Las entregas, en el orden de los intentos.
        script: Vec<Delivery>,
        /// Cuántas entradas se usaron ya.
        next: usize,
    },
    /// Se pierde toda respuesta cuyo sorteo `random()` (del stream con
    /// semilla) quede por debajo de `p_response_lost` (lección 2:
    /// `rng.random() >= p_response_lost` significa que la respuesta llegó).
    Random {
        /// Los sorteos, uno por intento.
        stream: Stream,
        /// La probabilidad de pérdida, en [0, 1].
        p_response_lost: f64,
    },
}

impl LossModel {
    /// Un modelo con guion.
    pub fn scripted(script: Vec<Delivery>) -> LossModel {
        LossModel::Scripted { script, next: 0 }
    }

    /// Un modelo aleatorio que sortea de un stream de tipo `kind` con semilla
    /// `seed`.
    pub fn random(kind: StreamKind, seed: u64, p_response_lost: f64) -> LossModel {
        LossModel::Random {
            stream: Stream::new(kind, seed),
            p_response_lost,
        }
    }

    /// El destino de la siguiente respuesta (un sorteo por intento).
    #[inline]
    pub fn next_delivery(&mut self) -> Delivery {
        match self {
            LossModel::Scripted { script, next } => {
                let d = script.get(*next).copied().unwrap_or(Delivery::Delivered);
                *next += 1;
                d
            }
            LossModel::Random {
                stream,
                p_response_lost,
            } => {
                if stream.random() < *p_response_lost {
                    Delivery::Lost
                } else {
                    Delivery::Delivered
                }
            }
        }
    }
}

/// La red: lleva un intento a la vez y los cuenta.
///
/// El orden importa y es el de la lección: primero el servidor ejecuta el
/// cobro, y solo después se sortea el destino de la respuesta. Por eso una
/// respuesta perdida siempre llega después de un cargo ya ejecutado (o de un
/// replay).
#[derive(Clone, Debug)]
pub struct Network {
    losses: LossModel,
    attempts: u64,
}

impl Network {
    /// Una red cuyas respuestas se pierden según `losses`.
    pub fn new(losses: LossModel) -> Network {
        Network {
            losses,
            attempts: 0,
        }
    }

    /// Una red que nunca pierde una respuesta.
    pub fn reliable() -> Network {
        Network::new(LossModel::scripted(Vec::new()))
    }

    /// Lleva un intento: llama a `server.charge(key, order_id, amount)` y
    /// después sortea el destino de la respuesta. Devuelve `Some(result)`
    /// cuando la respuesta llega y `None` cuando se pierde (el cobro ocurrió
    /// igual).
    #[inline]
    pub fn send<P: Payments + ?Sized>(
        &mut self,
        server: &mut P,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Option<ChargeResult> {
        self.attempts += 1;
        let result = server.charge(key, order_id, amount);
        match self.losses.next_delivery() {
            Delivery::Delivered => Some(result),
            Delivery::Lost => None,
        }
    }

    /// Todos los intentos llevados hasta ahora ("intentos totales al server").
    pub fn attempts(&self) -> u64 {
        self.attempts
    }
}
