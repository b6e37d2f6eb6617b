//! Runs a scenario through an implementation: its server, its client, its
//! reconciliation. The same code runs `exercises` and `solutions`.

use sim::{Kit, Order, Payments, Reconciliation, Scenario, clients};

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
    run_world_on::<K>(scenario, &orders, idempotent, client, &mut |_| {})
}

/// How many orders [`run_world_on`] charges between two calls of its
/// `progress` callback.
pub const PROGRESS_STRIDE: usize = 1 << 16;

/// [`run_world`] over `orders`, already generated from `scenario` (so that
/// several worlds share one fleet), calling `progress(n)` after every
/// [`PROGRESS_STRIDE`] orders and after the last ones, with `n` the orders
/// just charged. The figures are exactly [`run_world`]'s.
pub fn run_world_on<K: Kit>(
    scenario: &Scenario,
    orders: &[Order],
    idempotent: bool,
    client: ClientKind,
    progress: &mut dyn FnMut(u64),
) -> WorldRun {
    let mut server = K::new_server(idempotent);
    let mut network = scenario.network();
    let mut keys = scenario.keys();
    let max_attempts = scenario.max_attempts;
    let mut unconfirmed = 0;
    for chunk in orders.chunks(PROGRESS_STRIDE) {
        for order in chunk {
            let outcome = match client {
                ClientKind::PerOperation => {
                    K::charge_order(&mut server, &mut network, &mut keys, order, max_attempts)
                }
                ClientKind::PerAttempt => clients::charge_with_key_per_attempt(
                    &mut server,
                    &mut network,
                    &mut keys,
                    order,
                    max_attempts,
                ),
            };
            if outcome.confirmed.is_none() {
                unconfirmed += 1;
            }
        }
        progress(chunk.len() as u64);
    }
    let ledger = server.ledger();
    WorldRun {
        attempts: network.attempts(),
        executions: ledger.len() as u64,
        unconfirmed,
        reconciliation: K::reconcile(orders, ledger),
    }
}
