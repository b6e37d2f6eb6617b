//! Runs a scenario through an implementation: its server, its client, its
//! reconciliation. The same code runs `exercises` and `solutions`.

use sim::{Kit, Payments, Reconciliation, Scenario, clients};

/// Which client charges the orders.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClientKind {
    /// The implementation's client (exercise 2): one key per operation.
    PerOperation,
    /// Lesson 3's wrong client, shipped with the kit: a key per attempt.
    PerAttempt,
}

/// What one world of a scenario produced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorldRun {
    /// Attempts the network carried.
    pub attempts: u64,
    /// Rows the server's ledger holds (real executions of the charge).
    pub executions: u64,
    /// Orders the client reported unconfirmed.
    pub unconfirmed: u64,
    /// The implementation's reconciliation of the orders against the ledger.
    pub reconciliation: Reconciliation,
}

/// Runs `scenario` once with `K`'s server (`idempotent` chooses the world) and
/// the chosen client, then reconciles with `K`'s reconciliation.
pub fn run_world<K: Kit>(scenario: &Scenario, idempotent: bool, client: ClientKind) -> WorldRun {
    let orders = scenario.orders();
    let mut server = K::new_server(idempotent);
    let mut network = scenario.network();
    let mut keys = scenario.keys();
    let mut unconfirmed = 0;
    for order in &orders {
        let outcome = match client {
            ClientKind::PerOperation => K::charge_order(
                &mut server,
                &mut network,
                &mut keys,
                order,
                scenario.max_attempts,
            ),
            ClientKind::PerAttempt => clients::charge_with_key_per_attempt(
                &mut server,
                &mut network,
                &mut keys,
                order,
                scenario.max_attempts,
            ),
        };
        if outcome.confirmed.is_none() {
            unconfirmed += 1;
        }
    }
    let ledger = server.ledger();
    WorldRun {
        attempts: network.attempts(),
        executions: ledger.len() as u64,
        unconfirmed,
        reconciliation: K::reconcile(&orders, ledger),
    }
}
