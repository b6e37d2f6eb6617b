//! The figures of a reconciliation (exercise 3's answer type).

use crate::money::{Money, Percent};

/// Intended orders against the ledger, joined by order id (lesson 2, "Errores
/// comunes": the metric that reveals the double charge is the charged total
/// against the intention, and the orders with 2+ charges).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reconciliation {
    /// Sum of the orders' amounts ("Cobro correcto (intencion)").
    pub intended: Money,
    /// Sum of every ledger row's amount ("TOTAL COBRADO").
    pub charged: Money,
    /// Number of ledger rows ("cargos en el ledger").
    pub charges: u64,
    /// Orders with two or more ledger rows ("ordenes cobradas 2+ veces").
    pub orders_charged_twice_or_more: u64,
    /// Orders with no ledger row at all.
    pub orders_never_charged: u64,
    /// Ledger rows whose order id is not among the intended orders.
    pub unknown_order_rows: u64,
    /// Sum over orders of what each was charged beyond its amount
    /// ("SOBRECOBRO"). Rows of unknown orders are not counted here.
    pub overcharge: Money,
    /// Sum over orders of what each was charged below its amount.
    pub undercharge: Money,
    /// `overcharge` as a percentage of `intended` (0% when nothing was
    /// intended).
    pub overcharge_pct: Percent,
}
