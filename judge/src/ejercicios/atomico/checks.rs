//! Exercise 4's checks, as the rest of the judge reaches them ([`Module`]): its fixed
//! checks, model family, whole-scenario check and the stand-in compiled
//! when the source policy refuses its file.

use super::fixed;
use crate::checks::module::Module;

/// What the judge knows of exercise 4's checks ([`Module`]):
/// no whole-scenario checks (the fixtures' fleets are lesson 2's sequential
/// worlds).
pub const MODULE: Module = Module {
    id: super::ENTRY.id,
    fixed: fixed::CHECKS,
    run_fixed: fixed::run,
    model: Some(crate::checks::model::run::<super::model::Store>),
    scenario: None,
    explored: super::schedules::CHECKS,
    run_explored: Some(super::schedules::run_in),
    refused_stub: REFUSED_STUB,
    policy_reasons: &[("hilos o sincronización", THREADS)],
};

/// The stand-in for a refused `atomic_server.rs`
/// ([`Module::refused_stub`]).
const REFUSED_STUB: &str = "//! Rechazado por la política de código del juez: no se compila.\n\
    use sim::{ChargeError, ChargeResult, IdempotencyKey, LedgerEntry, Money, OrderId, SharedPayments};\n\
    #[derive(Debug, Default)]\n\
    pub struct AtomicPaymentsServer;\n\
    impl AtomicPaymentsServer {\n\
    pub fn new() -> AtomicPaymentsServer { AtomicPaymentsServer }\n\
    }\n\
    impl SharedPayments for AtomicPaymentsServer {\n\
    fn charge(&self, _key: IdempotencyKey, _order_id: OrderId, _amount: Money) -> Result<ChargeResult, ChargeError> { unimplemented!(\"rechazado\") }\n\
    fn ledger(&self) -> Vec<LedgerEntry> { Vec::new() }\n\
    }\n";

/// Why exercise 4 refuses `std::sync` and `std::thread`, and what to use.
const THREADS: &str = "usa los candados del mundo, sim::sync::Mutex (`use sim::sync::Mutex;`, con la API de std::sync::Mutex y lock() sin unwrap): el juez los cambia por los de su explorador de horarios para probar los reintentos concurrentes, y los de std::sync no los vería; los hilos los pone el juez, tu servidor no crea ninguno";
