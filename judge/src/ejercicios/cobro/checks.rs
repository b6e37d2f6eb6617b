//! Exercise 1's checks, as the rest of the judge reaches them ([`Module`]): its fixed
//! checks, model family, whole-scenario check and the stand-in compiled
//! when the source policy refuses its file.

use super::fixed;
use crate::checks::module::Module;

/// What the judge knows of exercise 1's checks ([`Module`]).
pub const MODULE: Module = Module {
    id: super::ENTRY.id,
    fixed: fixed::CHECKS,
    run_fixed: fixed::run,
    model: Some(crate::checks::model::run::<super::model::Server>),
    scenario: Some(super::scenario::run),
    explored: &[],
    run_explored: None,
    refused_stub: REFUSED_STUB,
    policy_reasons: &[],
};

/// The stand-in for a refused `payments_server.rs` ([`Module::refused_stub`]).
const REFUSED_STUB: &str = "//! Rechazado por la política de código del juez: no se compila.\n\
    use sim::{ChargeResult, IdempotencyKey, LedgerEntry, Money, OrderId, Payments};\n\
    #[derive(Debug, Default)]\n\
    pub struct PaymentsServer;\n\
    impl PaymentsServer {\n\
    pub fn new(_idempotent: bool) -> PaymentsServer { PaymentsServer }\n\
    }\n\
    impl Payments for PaymentsServer {\n\
    fn charge(&mut self, _key: IdempotencyKey, _order_id: OrderId, _amount: Money) -> ChargeResult { unimplemented!(\"rechazado\") }\n\
    fn ledger(&self) -> &[LedgerEntry] { &[] }\n\
    }\n";
