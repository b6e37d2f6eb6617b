//! Orders and what a client reports about charging one.

use crate::ids::OrderId;
use crate::ledger::ChargeResult;
use crate::money::Money;

/// One order of `orders`: what the buyer intends to pay, exactly once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    /// The order's id.
    pub id: OrderId,
    /// The intended amount, in cents (positive).
    pub amount: Money,
}

/// What a client reports after charging one order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChargeOutcome {
    /// How many times the client sent the charge (1 to `max_attempts`).
    pub attempts: u32,
    /// The server's answer from the first delivered response, or `None` when
    /// every response was lost and the client gave up (the charge is
    /// unconfirmed: it may or may not have happened).
    pub confirmed: Option<ChargeResult>,
}
