//! `grader ver`: the ledger itself (lesson 2: "lo vas a ver en el ledger").
//! One fleet in both worlds with the implementation's code, traced call by
//! call ([`protocol::Job::Trace`]); each order's attempts in order (the key
//! sent, whether the response was lost or delivered, whether the attempt
//! left a ledger row) and the rows it left, side by side, for one
//! self-contained HTML page ([`page`]).

pub mod page;

use protocol::{ClientKind, Trace, WorldTrace};
use sim::{
    ChargeId, ChargeResult, ChargeStatus, Fleet, IdempotencyKey, LedgerEntry, Money, OrderId,
    Payments,
};

use crate::before_after::comparison::{self, Worlds};
use crate::progress::Progress;
use judge::figures::WorldFigures;
use judge::fixture::Scenario;
use judge::runner::{self, Execute};
use judge::verdict::Verdict;

/// The most orders a page holds (about 100 bytes of data each).
pub const MAX_ORDERS: u64 = 200_000;

/// One attempt of one order, as the page shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attempt {
    /// The idempotency key it carried.
    pub key: IdempotencyKey,
    /// Whether the response reached the client (`false`: lost on the way
    /// back, after the server ran the charge).
    pub delivered: bool,
    /// Whether the ledger grew with this attempt (a real execution, not a
    /// replay).
    pub new_row: bool,
}

/// One order in one world: its attempts and the ledger rows of its id.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OrderWorld {
    /// The attempts, in order.
    pub attempts: Vec<Attempt>,
    /// `(charge id, amount)` of every ledger row with the order's id.
    pub rows: Vec<(ChargeId, Money)>,
}

/// One order of the fleet in both worlds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OrderView {
    /// The order.
    pub id: OrderId,
    /// Its amount, in cents.
    pub amount: Money,
    /// Without idempotency, then with it.
    pub worlds: [OrderWorld; 2],
}

impl OrderView {
    /// Whether the ledger of some world charged it two or more times.
    pub fn charged_twice_or_more(&self) -> bool {
        self.worlds.iter().any(|w| w.rows.len() >= 2)
    }
}

/// What the page shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct View {
    /// The figures of both worlds, as `comparar` prints them.
    pub worlds: Worlds,
    /// Every order, in the fleet's order.
    pub orders: Vec<OrderView>,
    /// Calls the server received without going through the network (the
    /// client called `charge` directly), per world: their deliveries are
    /// unknown, the page says so.
    pub off_network: [u64; 2],
}

/// Runs `scenario` in both worlds, traced, with the implementation behind
/// `h`, each world in its own harness process (at once).
///
/// # Errors
/// Why a world gave no answer (the "before" world's first).
pub fn collect(h: &dyn Execute, scenario: &Scenario, progress: &Progress) -> Result<View, Verdict> {
    let fleet = &scenario.fleet;
    let [before, after] = comparison::in_both_worlds(progress, |idempotent| {
        runner::ask(
            h,
            Trace {
                fleet: fleet.clone(),
                idempotent,
                client: ClientKind::Implementation,
            },
        )
    })?;
    let worlds = Worlds {
        before: WorldFigures::of(&before.run),
        after: WorldFigures::of(&after.run),
    };
    let (orders, off_network) = join(fleet, &before, &after)?;
    Ok(View {
        worlds,
        orders,
        off_network,
    })
}

/// Per order, both worlds' attempts and rows.
fn join(
    fleet: &Fleet,
    before: &WorldTrace,
    after: &WorldTrace,
) -> Result<(Vec<OrderView>, [u64; 2]), Verdict> {
    let orders = fleet.orders();
    let mut views: Vec<OrderView> = orders
        .iter()
        .map(|o| OrderView {
            id: o.id,
            amount: o.amount,
            worlds: Default::default(),
        })
        .collect();
    let mut off_network = [0; 2];
    for (w, trace) in [before, after].into_iter().enumerate() {
        if trace.calls_per_order.len() != orders.len()
            || trace
                .calls_per_order
                .iter()
                .map(|&n| n as usize)
                .sum::<usize>()
                != trace.calls.len()
        {
            return Err(runner::unexpected("el rastro no corresponde a las órdenes"));
        }
        let delivered = deliveries(fleet, trace.calls.len());
        off_network[w] = (trace.calls.len() as u64).saturating_sub(trace.run.attempts);
        let mut calls = trace.calls.iter().enumerate();
        let mut rows_before = 0u32;
        for (view, &n) in views.iter_mut().zip(&trace.calls_per_order) {
            for (i, c) in calls.by_ref().take(n as usize) {
                view.worlds[w].attempts.push(Attempt {
                    key: c.call.key,
                    delivered: delivered[i],
                    new_row: c.rows > rows_before,
                });
                rows_before = c.rows;
            }
        }
        let index: std::collections::HashMap<OrderId, usize> =
            views.iter().enumerate().map(|(i, v)| (v.id, i)).collect();
        for row in &trace.ledger {
            if let Some(&i) = index.get(&row.order_id) {
                views[i].worlds[w].rows.push((row.charge_id, row.amount));
            }
        }
    }
    Ok((views, off_network))
}

/// Whether each of the first `n` responses of `fleet`'s network reaches the
/// client: the same draws the harness's network made, one per attempt.
fn deliveries(fleet: &Fleet, n: usize) -> Vec<bool> {
    /// A server that only answers, so the network can be asked its draws.
    struct Answering;
    impl Payments for Answering {
        fn charge(&mut self, _: IdempotencyKey, _: OrderId, amount: Money) -> ChargeResult {
            ChargeResult {
                charge_id: ChargeId(0),
                amount,
                status: ChargeStatus::Captured,
            }
        }
        fn ledger(&self) -> &[LedgerEntry] {
            &[]
        }
    }
    let mut network = fleet.network();
    (0..n)
        .map(|_| {
            network
                .send(
                    &mut Answering,
                    IdempotencyKey(0),
                    OrderId(0),
                    Money::from_cents(0),
                )
                .is_some()
        })
        .collect()
}
