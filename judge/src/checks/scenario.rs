//! What the whole-scenario checks share: each exercise's own (in its folder
//! under [`crate::ejercicios`]) runs a whole fixture (or a seeded variant)
//! through the exercise and compares every figure with the oracle.

use sim::Money;

use crate::fixture::Scenario;
use crate::oracle::WorldFigures;

/// Figures measured on one world, comparable with the oracle's.
#[derive(Debug, PartialEq, Eq)]
pub struct Measured {
    /// Attempts sent to the server.
    pub attempts: u64,
    /// Rows in the ledger.
    pub charges: u64,
    /// Money charged.
    pub charged: Money,
    /// Orders that ended without a confirmation.
    pub unconfirmed: u64,
}

impl Measured {
    /// The oracle's figures of one world.
    pub fn from_oracle(w: &WorldFigures) -> Measured {
        Measured {
            attempts: w.attempts,
            charges: w.charges,
            charged: w.charged,
            unconfirmed: w.unconfirmed,
        }
    }

    /// The figures a world run of the implementation measured.
    pub fn of(run: &protocol::WorldRun) -> Measured {
        Measured {
            attempts: run.attempts,
            charges: run.executions,
            charged: run.charged,
            unconfirmed: run.unconfirmed,
        }
    }

    /// The figures as one line of a report.
    pub fn text(&self) -> String {
        format!(
            "intentos={} cargos en el ledger={} total cobrado={} sin confirmar={}",
            sim::money::group_thousands(self.attempts),
            sim::money::group_thousands(self.charges),
            self.charged,
            self.unconfirmed
        )
    }
}

/// One line naming the scenario, for messages.
pub fn describe_scenario(s: &Scenario) -> String {
    let p = s
        .fleet
        .p_response_lost()
        .map_or_else(|| "guion fijo".to_string(), |p| format!("p={p}"));
    let n = s.fleet.order_count();
    let orders = if n == 1 { "orden" } else { "órdenes" };
    format!(
        "{} (N={n} {orders}, {p}, max_attempts={})",
        s.name, s.fleet.max_attempts
    )
}
