//! Exercise 2's checks, as the rest of the judge reaches them ([`Module`]): its fixed
//! checks, model family, whole-scenario check and the stand-in compiled
//! when the source policy refuses its file.

use super::fixed;
use crate::checks::module::Module;

/// What the judge knows of exercise 2's checks ([`Module`]).
pub const MODULE: Module = Module {
    id: super::ENTRY.id,
    fixed: fixed::CHECKS,
    run_fixed: fixed::run,
    model: Some(crate::checks::model::run::<super::model::Client>),
    scenario: Some(super::scenario::run),
    explored: &[],
    run_explored: None,
    refused_stub: REFUSED_STUB,
    policy_reasons: &[],
};

/// The stand-in for a refused `client.rs` ([`Module::refused_stub`]).
const REFUSED_STUB: &str = "//! Rechazado por la política de código del juez: no se compila.\n\
    use sim::{ChargeOutcome, KeySource, Network, Order, Payments};\n\
    pub fn charge_order<P: Payments, K: KeySource>(_server: &mut P, _network: &mut Network, _keys: &mut K, _order: &Order, _max_attempts: u32) -> ChargeOutcome { unimplemented!(\"rechazado\") }\n";
