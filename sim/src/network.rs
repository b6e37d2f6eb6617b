//! The network between `orders` and `payments`: it carries every attempt to
//! the server and may lose the response on the way back (lesson 2,
//! `client_charge`).

use crate::ids::{IdempotencyKey, OrderId};
use crate::ledger::ChargeResult;
use crate::money::Money;
use crate::payments::Payments;
use crate::stream::{Stream, StreamKind};

/// What happens to one response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Delivery {
    /// The response reaches the client.
    Delivered,
    /// The server already executed the call, but the response never arrives.
    Lost,
}

/// Decides, attempt by attempt, whether the response is lost.
#[derive(Clone, Debug)]
pub enum LossModel {
    /// A fixed script, one entry per attempt in order (`lost, lost,
    /// delivered`); once the script runs out every response is delivered.
    Scripted {
        /// The deliveries, in attempt order.
        script: Vec<Delivery>,
        /// How many entries were used.
        next: usize,
    },
    /// Every response whose seeded `random()` draw is below `p_response_lost`
    /// is lost (lesson 2: `rng.random() >= p_response_lost` means delivered).
    Random {
        /// The draws, one per attempt.
        stream: Stream,
        /// The loss probability, in [0, 1].
        p_response_lost: f64,
    },
}

impl LossModel {
    /// A scripted model.
    pub fn scripted(script: Vec<Delivery>) -> LossModel {
        LossModel::Scripted { script, next: 0 }
    }

    /// A random model drawing from a `kind` stream seeded with `seed`.
    pub fn random(kind: StreamKind, seed: u64, p_response_lost: f64) -> LossModel {
        LossModel::Random {
            stream: Stream::new(kind, seed),
            p_response_lost,
        }
    }

    /// The fate of the next response (one draw per attempt).
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

/// The network: it carries one attempt at a time and counts them.
///
/// Order matters and is the lesson's: the server executes the charge first,
/// and only then is the response's fate drawn. A lost response therefore
/// always follows an executed (or replayed) charge.
#[derive(Clone, Debug)]
pub struct Network {
    losses: LossModel,
    attempts: u64,
}

impl Network {
    /// A network whose responses are lost according to `losses`.
    pub fn new(losses: LossModel) -> Network {
        Network {
            losses,
            attempts: 0,
        }
    }

    /// A network that never loses a response.
    pub fn reliable() -> Network {
        Network::new(LossModel::scripted(Vec::new()))
    }

    /// Carries one attempt: calls `server.charge(key, order_id, amount)`, then
    /// draws the response's fate. `Some(result)` when the response arrives,
    /// `None` when it is lost (the charge happened anyway).
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

    /// Every attempt carried so far ("intentos totales al server").
    pub fn attempts(&self) -> u64 {
        self.attempts
    }
}
