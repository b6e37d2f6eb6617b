//! Exercise 2's job and answer, *una idempotency key por operación*: the
//! implementation's client over a fleet ([`Client`]) and what it sent for
//! each order ([`ClientRun`]).

use serde::{Deserialize, Serialize};
use sim::{ChargeOutcome, Fleet, IdempotencyKey, Order};

use crate::{Call, Job, Observation, Request};

/// Exercise 2: the implementation's client charges every order of `fleet`
/// (its network, its key source, its `max_attempts`) against lesson 2's
/// idempotent server ([`crate::lesson::Server`], a real ledger and store),
/// every call recorded. Answered by [`ClientRun`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Client {
    /// Orders, losses, `max_attempts` and key seed.
    pub fleet: Fleet,
    /// Orders to charge instead of the fleet's own (e.g. two operations
    /// with the same order id and amount); `None` for the fleet's.
    pub orders: Option<Vec<Order>>,
    /// The server behind the client: lesson 2's with idempotency (`true`,
    /// the CON world) or without it, where every attempt is a row and a
    /// retry's answer is its own charge.
    pub idempotent: bool,
}

/// What the implementation's client did over [`Client`]'s orders.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientRun {
    /// Per order, in order.
    pub orders: Vec<OrderRun>,
    /// `network.attempts()` at the end.
    pub attempts: u64,
}

crate::request!(Client => ClientRun, Client, "lo que hizo el cliente");

/// `times` identical calls in a row: a retry loop's attempts of one order
/// are one entry, however many there are.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sent {
    /// The call.
    pub call: Call,
    /// How many times in a row, at least 1.
    pub times: u32,
}

/// `calls` with runs of identical calls collapsed.
pub fn runs(calls: impl IntoIterator<Item = Call>) -> Vec<Sent> {
    let mut out: Vec<Sent> = Vec::new();
    for call in calls {
        match out.last_mut() {
            Some(last) if last.call == call => last.times += 1,
            _ => out.push(Sent { call, times: 1 }),
        }
    }
    out
}

/// What the implementation's client did with one order (exercise 2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderRun {
    /// What the client reported.
    pub outcome: ChargeOutcome,
    /// The calls it sent for this order, in order, runs of identical calls
    /// collapsed ([`runs`]). Lesson 2's idempotent server answers the first
    /// call of the `n`-th distinct key of the whole run (from 1) with charge
    /// id `ch_n`, and every later call of that key with the same result.
    pub sent: Vec<Sent>,
    /// The keys it took from the key source for this order.
    pub keys_issued: Vec<IdempotencyKey>,
}

impl OrderRun {
    /// Every call, one by one.
    pub fn calls(&self) -> impl Iterator<Item = Call> + '_ {
        self.sent
            .iter()
            .flat_map(|s| std::iter::repeat_n(s.call, s.times as usize))
    }

    /// How many calls it sent.
    pub fn call_count(&self) -> u64 {
        self.sent.iter().map(|s| u64::from(s.times)).sum()
    }
}
