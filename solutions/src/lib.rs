//! The reference answers to the three exercises of lesson 2. Instructors only:
//! the student template (`scripts/plantilla-estudiante`) leaves this crate out.
//!
//! Same API as `exercises`, so the grader grades either one with the same
//! code. The grader's expectations never come from here but from its own
//! oracle.

pub mod atomic_server;
pub mod client;
pub mod payments_server;
pub mod reconciliation;

use sim::{ChargeOutcome, KeySource, Kit, LedgerEntry, Network, Order, Payments, Reconciliation};

pub use atomic_server::AtomicPaymentsServer;
pub use payments_server::PaymentsServer;

/// The reference implementation, as the grader sees it.
pub struct Solutions;

impl Kit for Solutions {
    const CRATE: &'static str = "solutions";
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
