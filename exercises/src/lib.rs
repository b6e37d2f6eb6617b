//! Tus ejercicios del Módulo 4, lección 2: *El doble cargo del reintento, medido*.
//!
//! Cada pieza en su archivo, cada una con un `todo!()` que tienes que
//! reemplazar:
//!
//! 1. [`payments_server`]: el `charge` idempotente del servidor de `payments`.
//! 2. [`client`]: el cliente de `orders` que crea una idempotency key por
//!    operación y la reenvía en cada reintento (lección 3).
//! 3. [`reconciliation`]: la reconciliación entre lo que se debía cobrar y lo
//!    que dice el ledger.
//! 4. Bonus, [`atomic_server`]: el store atómico de un servidor compartido
//!    por reintentos concurrentes (lección 4).
//!
//! Compruébalo con `cargo run -p grader`. El mundo (dinero, órdenes, la red
//! que pierde respuestas) vive en el crate `sim`; no necesitas editarlo.

// Los stubs todavía no usan sus parámetros ni todos los campos; cuando
// completes los ejercicios puedes borrar esta línea.
#![allow(unused_variables, dead_code)]

pub mod atomic_server;
pub mod client;
pub mod payments_server;
pub mod reconciliation;

use sim::{ChargeOutcome, KeySource, Kit, LedgerEntry, Network, Order, Payments, Reconciliation};

pub use atomic_server::AtomicPaymentsServer;
pub use payments_server::PaymentsServer;

/// Tus ejercicios, tal como los ve el grader. No hace falta tocarlo.
pub struct Exercises;

impl Kit for Exercises {
    const CRATE: &'static str = "exercises";
    type Server = PaymentsServer;

    fn new_server(idempotent: bool) -> PaymentsServer {
        PaymentsServer::new(idempotent)
    }

    fn charge_order<P: Payments, K: KeySource>(
        server: &mut P,
        network: &mut Network,
        keys: &mut K,
        order: &Order,
        max_attempts: u32,
    ) -> ChargeOutcome {
        client::charge_order(server, network, keys, order, max_attempts)
    }

    fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
        reconciliation::reconcile(orders, ledger)
    }

    type AtomicServer = AtomicPaymentsServer;

    fn new_atomic_server() -> AtomicPaymentsServer {
        AtomicPaymentsServer::new()
    }
}
