//! The harness's own instruments for exercise 2: lesson 2's idempotent
//! server (the CON world: a real ledger and store, every call recorded; the
//! judge applies its own model to the recorded calls for both worlds), a key
//! source that records what it hands out, and lesson 2's loop for grading
//! exercise 1 on its own.

use protocol::lesson::Server;
use protocol::{Client, ClientRun, OrderRun};
use sim::{ChargeOutcome, IdempotencyKey, KeySource, Kit, Network, Order, Payments};

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
/// when given) against lesson 2's server ([`Server`]), with or without
/// idempotency as the job says; per order,
/// what it reported, sent and took.
///
/// Memory stays bounded by what a correct client leaves: the ledger holds
/// one row per key (a fleet of 200,000 orders × 100 lost responses is
/// 200,000 rows), and each order's calls are handed over run-length encoded
/// ([`protocol::runs`]) as soon as the order is done.
pub fn client<K: Kit>(job: &Client) -> ClientRun {
    let (fleet, orders) = (&job.fleet, job.orders.as_deref());
    let mut server = Server::new(job.idempotent);
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
    ClientRun {
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
