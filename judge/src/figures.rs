//! The figures of one world of a fleet, as lesson 2's tables print them:
//! what the oracle expects, what the implementation's world measured, what
//! `comparar` and `barrido` put side by side. One type for all of them.

use protocol::WorldRun;
use serde::{Deserialize, Serialize};
use sim::{Money, Percent};

/// One world's figures. Money in cents ([`Money`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorldFigures {
    /// Attempts the network carried ("intentos totales al server").
    pub attempts: u64,
    /// Rows the server's ledger holds ("ejecuciones reales del cobro").
    pub executions: u64,
    /// Ledger rows the reconciliation counted ("cargos en el ledger").
    pub charges: u64,
    /// Orders with two or more ledger rows ("ordenes cobradas 2+ veces").
    pub orders_charged_twice_or_more: u64,
    /// Orders the client gave up on after `max_attempts` lost responses;
    /// against a real service (`servicio`), also those whose delivered
    /// answer confirmed no charge of theirs (a 500, another order's).
    pub unconfirmed: u64,
    /// The intended total ("Cobro correcto (intencion)").
    pub intended: Money,
    /// The ledger's total ("TOTAL COBRADO").
    pub charged: Money,
    /// What orders were charged beyond their amount, summed order by order
    /// ("SOBRECOBRO").
    pub overcharge: Money,
}

impl WorldFigures {
    /// The figures of one world's run; the reconciliation figures are the
    /// implementation's own (zeros when the run did not reconcile).
    pub fn of(run: &WorldRun) -> WorldFigures {
        let r = run.reconciliation.unwrap_or_default();
        WorldFigures {
            attempts: run.attempts,
            executions: run.executions,
            charges: r.charges,
            orders_charged_twice_or_more: r.orders_charged_twice_or_more,
            unconfirmed: run.unconfirmed,
            intended: r.intended,
            charged: r.charged,
            overcharge: r.overcharge,
        }
    }

    /// The overcharge as an exact share of the intended total ("18.7% de
    /// mas").
    pub fn overcharge_pct(&self) -> Percent {
        Percent::of(self.overcharge, self.intended)
    }
}
