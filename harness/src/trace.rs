//! `grader ver`'s world: [`Job::Trace`](protocol::Job::Trace) runs one world
//! like [`Job::World`](protocol::Job::World), with a spy between the client
//! and the implementation's server that records every call and the
//! ledger's size after it.

use protocol::{Call, ClientKind, TracedCall, WorldTrace};
use sim::{ChargeResult, Fleet, IdempotencyKey, Kit, LedgerEntry, Money, OrderId, Payments};

/// The implementation's server, watched: every call is passed on and
/// recorded.
struct Spy<P> {
    inner: P,
    calls: Vec<TracedCall>,
}

impl<P: Payments> Payments for Spy<P> {
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        let result = self.inner.charge(key, order_id, amount);
        self.calls.push(TracedCall {
            call: Call {
                key,
                order_id,
                amount,
            },
            rows: u32::try_from(self.inner.ledger().len()).unwrap_or(u32::MAX),
        });
        result
    }

    fn ledger(&self) -> &[LedgerEntry] {
        self.inner.ledger()
    }
}

/// One world of `fleet` with `K`'s server (and `client`), traced, then
/// reconciled with `K`'s exercise 3.
pub fn world<K: Kit>(fleet: &Fleet, idempotent: bool, client: ClientKind) -> WorldTrace {
    let orders = fleet.orders();
    let mut server = Spy {
        inner: K::new_server(idempotent),
        calls: Vec::new(),
    };
    let mut network = fleet.network();
    let mut keys = fleet.keys();
    let mut unconfirmed = 0;
    let mut calls_per_order = Vec::with_capacity(orders.len());
    for order in &orders {
        let before = server.calls.len();
        let outcome = crate::world::charge_one::<K, _, _>(
            client,
            &mut server,
            &mut network,
            &mut keys,
            order,
            fleet.max_attempts,
        );
        unconfirmed += u64::from(outcome.confirmed.is_none());
        calls_per_order.push(u32::try_from(server.calls.len() - before).unwrap_or(u32::MAX));
    }
    let ledger = server.inner.ledger();
    WorldTrace {
        run: crate::world::figures::<K>(&orders, ledger, network.attempts(), unconfirmed, true),
        calls_per_order,
        ledger: ledger.to_vec(),
        calls: server.calls,
    }
}
