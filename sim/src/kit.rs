//! The API that `exercises` and `solutions` both expose, so the grader can
//! grade either one with the same code (static dispatch).

use crate::keys::KeySource;
use crate::ledger::LedgerEntry;
use crate::network::Network;
use crate::order::{ChargeOutcome, Order};
use crate::payments::Payments;
use crate::reconciliation::Reconciliation;

/// One implementation of the three exercises.
pub trait Kit {
    /// The crate's name, for messages (`"exercises"` or `"solutions"`).
    const CRATE: &'static str;

    /// The payments server of exercise 1.
    type Server: Payments;

    /// A server with an empty ledger and store; `idempotent` chooses the world
    /// with keys (`true`) or without (`false`).
    fn new_server(idempotent: bool) -> Self::Server;

    /// Exercise 2: charge one order through `network`, one key per
    /// operation, at most `max_attempts` attempts.
    fn charge_order<P: Payments, K: KeySource>(
        server: &mut P,
        network: &mut Network,
        keys: &mut K,
        order: &Order,
        max_attempts: u32,
    ) -> ChargeOutcome;

    /// Exercise 3: reconcile the intended `orders` against `ledger`.
    fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation;
}
