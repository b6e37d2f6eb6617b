//! Exercise 3's checks, as the rest of the judge reaches them ([`Module`]): its fixed
//! checks, model family, whole-scenario check and the stand-in compiled
//! when the source policy refuses its file.

use super::fixed;
use crate::checks::module::Module;

/// What the judge knows of exercise 3's checks ([`Module`]).
pub const MODULE: Module = Module {
    id: super::ENTRY.id,
    fixed: fixed::CHECKS,
    run_fixed: fixed::run,
    model: Some(crate::checks::model::run::<super::model::Reconcile>),
    scenario: Some(super::scenario::run),
    explored: &[],
    run_explored: None,
    refused_stub: REFUSED_STUB,
    policy_reasons: &[],
};

/// The stand-in for a refused `reconciliation.rs` ([`Module::refused_stub`]).
const REFUSED_STUB: &str = "//! Rechazado por la política de código del juez: no se compila.\n\
    use sim::{LedgerEntry, Order, Reconciliation};\n\
    pub fn reconcile(_orders: &[Order], _ledger: &[LedgerEntry]) -> Reconciliation { unimplemented!(\"rechazado\") }\n";
