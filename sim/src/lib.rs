//! The world of Module 4, lesson 2 (*El doble cargo del reintento, medido*):
//! `orders` calling `payments.charge` across a network that loses responses.
//!
//! Shared by the student's crate (`exercises`), the reference (`solutions`)
//! and the grader; students never edit it. Money is integer cents
//! ([`Money`]); every random draw comes from a seeded [`Stream`], so the same
//! fixture gives the same figures on every machine.

pub mod clients;
pub mod fixture;
pub mod ids;
pub mod keys;
pub mod kit;
pub mod ledger;
pub mod money;
pub mod network;
pub mod order;
pub mod payments;
pub mod reconciliation;
pub mod stream;

pub use fixture::{FixtureError, LossSpec, OrdersSpec, Scenario};
pub use ids::{ChargeId, IdempotencyKey, OrderId};
pub use keys::{KeySource, SeededKeys};
pub use kit::Kit;
pub use ledger::{ChargeResult, ChargeStatus, IdempotencyStore, LedgerEntry};
pub use money::{Money, Percent};
pub use network::{Delivery, LossModel, Network};
pub use order::{ChargeOutcome, Order};
pub use payments::Payments;
pub use reconciliation::Reconciliation;
pub use stream::{Stream, StreamKind};
