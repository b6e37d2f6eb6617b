//! The lesson's worlds, where the exercises run together: a fleet charged
//! by the chosen client against the implementation's server, its figures
//! reconciled by the implementation's exercise 3 when asked.

use protocol::{ClientKind, WorldRun};
use sim::{Kit, Payments, clients};

use crate::cliente;

/// One world of `fleet` with `K`'s server and the chosen client.
pub fn world<K: Kit>(
    fleet: &sim::Fleet,
    idempotent: bool,
    client: ClientKind,
    reconcile: bool,
) -> WorldRun {
    let orders = fleet.orders();
    let mut server = K::new_server(idempotent);
    let mut network = fleet.network();
    let mut keys = fleet.keys();
    let max = fleet.max_attempts;
    let mut unconfirmed = 0;
    for order in &orders {
        let outcome =
            charge_one::<K, _, _>(client, &mut server, &mut network, &mut keys, order, max);
        unconfirmed += u64::from(outcome.confirmed.is_none());
    }
    figures::<K>(
        &orders,
        server.ledger(),
        network.attempts(),
        unconfirmed,
        reconcile,
    )
}

/// The chosen client charges one order.
pub fn charge_one<K: Kit, P: Payments, S: sim::KeySource>(
    client: ClientKind,
    server: &mut P,
    network: &mut sim::Network,
    keys: &mut S,
    order: &sim::Order,
    max: u32,
) -> sim::ChargeOutcome {
    match client {
        ClientKind::Lesson => cliente::lesson_client(server, network, keys, order, max),
        ClientKind::Implementation => K::charge_order(server, network, keys, order, max),
        ClientKind::KeyPerAttempt => {
            clients::charge_with_key_per_attempt(server, network, keys, order, max)
        }
    }
}

/// A world's figures from its ledger, reconciled with `K`'s exercise 3 when
/// `reconcile`.
pub fn figures<K: Kit>(
    orders: &[sim::Order],
    ledger: &[sim::LedgerEntry],
    attempts: u64,
    unconfirmed: u64,
    reconcile: bool,
) -> WorldRun {
    WorldRun {
        attempts,
        executions: ledger.len() as u64,
        charged: ledger.iter().map(|r| r.amount).sum(),
        unconfirmed,
        reconciliation: reconcile.then(|| K::reconcile(orders, ledger)),
    }
}
