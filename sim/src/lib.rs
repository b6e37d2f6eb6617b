//! El mundo del Módulo 4, lección 2 (*El doble cargo del reintento, medido*):
//! `orders` llamando a `payments.charge` a través de una red que pierde
//! respuestas.
//!
//! Lo comparten el crate del estudiante (`exercises`), la referencia
//! (`solutions`) y el grader; los estudiantes nunca lo editan. El dinero va en
//! centavos enteros ([`Money`]); cada sorteo aleatorio sale de un [`Stream`]
//! con semilla, así que la misma [`Fleet`] da las mismas cifras en cualquier
//! máquina.

pub mod clients;
pub mod fleet;
pub mod ids;
pub mod keys;
pub mod kit;
pub mod ledger;
pub mod money;
pub mod network;
pub mod non_atomic;
pub mod order;
pub mod payments;
pub mod reconciliation;
pub mod shared;
pub mod stream;
pub mod sync;

pub use fleet::{Fleet, LossSpec, OrdersSpec};
pub use ids::{ChargeId, IdempotencyKey, OrderId};
pub use keys::{KeySource, SeededKeys};
pub use kit::Kit;
pub use ledger::{ChargeResult, ChargeStatus, IdempotencyStore, LedgerEntry};
pub use money::{Money, Percent};
pub use network::{Delivery, LossModel, Network};
pub use order::{ChargeOutcome, Order};
pub use payments::Payments;
pub use reconciliation::Reconciliation;
pub use shared::{ChargeError, ChargeRequest, KeyState, SharedPayments, SharedStore};
pub use stream::{Stream, StreamKind};
