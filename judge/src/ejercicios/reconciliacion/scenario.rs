//! Exercise 3's whole-scenario check: the ledger lesson 2's server leaves
//! for a whole fleet, reconciled by the implementation.

use sim::{Money, Reconciliation};

use super::fixed::{differences, explain};
use crate::checks::scenario::describe_scenario;
use crate::fixture::Scenario;
use crate::oracle;
use crate::runner;
use crate::runner::Execute;
use crate::verdict::Verdict;

/// Exercise 3 over a fleet: the ledger lesson 2's server leaves in each
/// world, reconciled by the implementation.
///
/// # Errors
/// The first figure that differs from the oracle's, or how the code failed.
pub fn run(h: &dyn Execute, scenario: &Scenario) -> Result<(), Verdict> {
    let e = &oracle::expect(&scenario.fleet);
    let name = describe_scenario(scenario);
    for (idempotent, w, world) in [
        (false, &e.before, "SIN idempotencia"),
        (true, &e.after, "CON idempotency_key"),
    ] {
        let want = Reconciliation {
            intended: e.intended,
            charged: w.charged,
            charges: w.charges,
            orders_charged_twice_or_more: w.orders_charged_twice_or_more,
            orders_never_charged: 0,
            unknown_order_rows: 0,
            overcharge: w.overcharge,
            undercharge: Money::ZERO,
            overcharge_pct: w.overcharge_pct(),
        };
        let got = runner::reconcile_fleet(h, &scenario.fleet, idempotent)?;
        if got != want {
            let (w_text, g_text) = differences(&want, &got);
            let orders = scenario.fleet.orders();
            let ledger = protocol::lesson::ledger(&scenario.fleet, &orders, idempotent);
            return Err(Verdict::failed(
                format!("{name}, ledger {world}: {w_text}"),
                g_text,
                explain(
                    &ledger,
                    &want,
                    &got,
                    "reconcilia por order id: intención contra ledger, el sobrecobro orden por orden y el porcentaje sobre la intención (en la flota de la lección: $48,139, 18.7%, 146 órdenes cobradas 2+ veces).",
                ),
            ));
        }
    }
    Ok(())
}
