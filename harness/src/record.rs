//! The harness's own instruments for exercise 2: a server that charges and
//! records every call (no idempotency: the judge applies its own model of
//! lesson 2's server to the recorded calls), a key source that records what
//! it hands out, and lesson 2's loop for grading exercise 1 on its own.

use protocol::{Call, Observation, OrderRun};
use sim::{
    ChargeId, ChargeOutcome, ChargeResult, ChargeStatus, Fleet, IdempotencyKey, KeySource, Kit,
    LedgerEntry, Money, Network, Order, OrderId, Payments,
};

/// Charges every call, answering call `n` (from 1) with charge id `ch_n`,
/// and records it. It keeps no ledger rows (a fleet of millions of attempts
/// would not fit): the judge rebuilds what a ledger would hold from the
/// recorded calls, and a client has no business reading the server's
/// ledger.
#[derive(Debug, Default)]
struct RecordingServer {
    charged: usize,
    calls: Vec<Call>,
}

impl Payments for RecordingServer {
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        self.calls.push(Call {
            key,
            order_id,
            amount,
        });
        let charge_id = ChargeId::next_after(self.charged);
        self.charged += 1;
        ChargeResult {
            charge_id,
            amount,
            status: ChargeStatus::Captured,
        }
    }

    fn ledger(&self) -> &[LedgerEntry] {
        &[]
    }
}

/// A key source that remembers what it issued.
struct RecordingKeys<K> {
    inner: K,
    issued: Vec<IdempotencyKey>,
}

impl<K: KeySource> KeySource for RecordingKeys<K> {
    fn new_key(&mut self) -> IdempotencyKey {
        let k = self.inner.new_key();
        self.issued.push(k);
        k
    }
}

/// Exercise 2: `K`'s client charges each order of `fleet` (or `orders`,
/// when given) against a recording server; per order, what it reported,
/// sent and took.
pub fn client<K: Kit>(fleet: &Fleet, orders: Option<&[Order]>) -> Observation {
    let mut server = RecordingServer::default();
    let mut network = fleet.network();
    let mut keys = RecordingKeys {
        inner: fleet.keys(),
        issued: Vec::new(),
    };
    let to_charge = orders.map_or_else(|| fleet.orders(), <[Order]>::to_vec);
    let mut orders = Vec::new();
    for order in to_charge {
        let outcome = K::charge_order(
            &mut server,
            &mut network,
            &mut keys,
            &order,
            fleet.max_attempts,
        );
        orders.push(OrderRun {
            outcome,
            sent: protocol::runs(server.calls.drain(..)),
            keys_issued: std::mem::take(&mut keys.issued),
        });
    }
    Observation::Client {
        orders,
        attempts: network.attempts(),
    }
}

/// Lesson 2's `client_charge` with one key per operation, taken from `keys`
/// before the first attempt.
pub fn lesson_client<P: Payments, K: KeySource>(
    server: &mut P,
    network: &mut Network,
    keys: &mut K,
    order: &Order,
    max_attempts: u32,
) -> ChargeOutcome {
    let key = keys.new_key();
    let mut attempts = 0;
    while attempts < max_attempts {
        attempts += 1;
        if let Some(result) = network.send(server, key, order.id, order.amount) {
            return ChargeOutcome {
                attempts,
                confirmed: Some(result),
            };
        }
    }
    ChargeOutcome {
        attempts,
        confirmed: None,
    }
}
