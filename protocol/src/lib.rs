//! The contract between the judge (`grader`) and the harness that runs the
//! implementation under test (the student's `exercises`, or `solutions`).
//!
//! The judge sends a list of [`Job`]s as one JSON document on the harness's
//! stdin; the harness answers each job, in order, with one [`ANSWER_MARKER`]
//! line on stdout carrying an [`Answer`]. Jobs and observations are raw data:
//! what to call and what the code returned. Expected values, verdicts, points
//! and reports exist only in the judge, so a harness that lies can only lie
//! about its own behaviour, which the judge grades like any wrong answer.

pub mod lesson;
pub mod schedules;

use serde::{Deserialize, Serialize};
use sim::{
    ChargeError, ChargeOutcome, ChargeResult, Fleet, IdempotencyKey, LedgerEntry, Money, Order,
    OrderId, Reconciliation,
};

/// The prefix of an answer line on the harness's stdout. Anything else the
/// implementation prints is ignored.
pub const ANSWER_MARKER: &str = "@@kit-answer@@ ";

/// One `charge` call: what was sent to the server.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Call {
    /// The idempotency key it carried.
    pub key: IdempotencyKey,
    /// The order.
    pub order_id: OrderId,
    /// The amount, in cents.
    pub amount: Money,
}

/// Which client charges the orders of a [`Job::World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum ClientKind {
    /// Lesson 2's own loop (`client_charge`) with one key per operation: the
    /// harness's, so that exercise 1 is graded on its own.
    Lesson,
    /// The implementation's client (exercise 2).
    Implementation,
    /// Lesson 3's wrong client, shipped in `sim` as the contrast: a key per
    /// attempt.
    KeyPerAttempt,
}

/// One thing for the harness to run against the implementation.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Job {
    /// Exercise 1: a new server (`idempotent` chooses the world), then every
    /// call in order. Answered by [`Observation::Charges`].
    Charges {
        /// The world: with (`true`) or without idempotency.
        idempotent: bool,
        /// The calls, in order.
        calls: Vec<Call>,
    },
    /// Exercise 2: the implementation's client charges every order of
    /// `fleet` (its network, its key source, its `max_attempts`) against
    /// lesson 2's idempotent server ([`lesson::Server`], a real ledger and
    /// store), every call recorded. Answered by [`Observation::Client`].
    Client {
        /// Orders, losses, `max_attempts` and key seed.
        fleet: Fleet,
        /// Orders to charge instead of the fleet's own (e.g. two operations
        /// with the same order id and amount); `None` for the fleet's.
        orders: Option<Vec<Order>>,
    },
    /// Exercise 3 over these orders and ledger. Answered by
    /// [`Observation::Reconciled`].
    Reconcile {
        /// The intention.
        orders: Vec<Order>,
        /// The ledger.
        ledger: Vec<LedgerEntry>,
    },
    /// Exercise 3 over `fleet`'s orders and the ledger lesson 2's server
    /// leaves for it ([`lesson::ledger`]): a fleet's ledger can be millions
    /// of rows, too many to send. Answered by [`Observation::Reconciled`].
    ReconcileFleet {
        /// The fleet.
        fleet: Fleet,
        /// Which world's ledger.
        idempotent: bool,
    },
    /// One world of `fleet`: the implementation's server, the chosen client
    /// and, when `reconcile`, the implementation's reconciliation. Answered
    /// by [`Observation::World`].
    World {
        /// The fleet.
        fleet: Fleet,
        /// The world: with (`true`) or without idempotency.
        idempotent: bool,
        /// Who charges the orders.
        client: ClientKind,
        /// Whether to reconcile the ledger with the implementation's
        /// exercise 3.
        reconcile: bool,
    },
    /// Exercise 4 (lesson 4's atomic store), sequentially: a new shared
    /// server (`Kit::new_atomic_server`), then every call in order from one
    /// thread. Answered by [`Observation::Shared`].
    Shared {
        /// The calls, in order.
        calls: Vec<Call>,
    },
    /// One world of `fleet` like [`Job::World`] (reconciled), traced call by
    /// call for `grader ver`: every call the server received and the ledger
    /// it left. Answered by [`Observation::Trace`].
    Trace {
        /// The fleet.
        fleet: Fleet,
        /// The world: with (`true`) or without idempotency.
        idempotent: bool,
        /// Who charges the orders.
        client: ClientKind,
    },
    /// Exercise 4 (lesson 4): `history` on new shared servers of the
    /// implementation under the schedule explorer, one server per schedule.
    /// Only the explorer's harness (`harness-explorador`) answers it, with
    /// [`Observation::Schedules`].
    Schedules {
        /// The calls and threads.
        history: schedules::History,
        /// Which schedules.
        explore: schedules::Exploration,
    },
}

impl Job {
    /// How much work the job asks of the implementation, in calls to its
    /// code or rows it must read: the judge's time limit grows with it.
    pub fn work(&self) -> u64 {
        match self {
            Job::Charges { calls, .. } | Job::Shared { calls } => calls.len() as u64,
            Job::Client {
                orders: Some(orders),
                fleet,
            } => orders.len() as u64 * u64::from(fleet.max_attempts.max(1)),
            Job::Client { fleet, .. }
            | Job::ReconcileFleet { fleet, .. }
            | Job::World { fleet, .. }
            | Job::Trace { fleet, .. } => {
                fleet.order_count() * u64::from(fleet.max_attempts.max(1))
            }
            Job::Reconcile { orders, ledger } => (orders.len() + ledger.len()) as u64,
            // A schedule costs about what a few hundred plain calls do.
            Job::Schedules { history, explore } => {
                history.call_count() as u64 * u64::from(explore.schedules()) * 200
            }
        }
    }
}

/// What one call answered, and how many ledger rows there were after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Answered {
    /// The call's result.
    pub result: ChargeResult,
    /// `ledger().len()` right after the call.
    pub rows: usize,
}

/// What one call to the shared server answered (exercise 4), and its ledger
/// right after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedAnswered {
    /// The call's result: a charge or replay, or the error it was refused
    /// with.
    pub result: Result<ChargeResult, ChargeError>,
    /// `ledger()` right after the call.
    pub ledger: Vec<LedgerEntry>,
}

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

/// The figures of one world run by [`Job::World`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorldRun {
    /// Attempts the network carried.
    pub attempts: u64,
    /// Rows the server's ledger holds (real executions of the charge).
    pub executions: u64,
    /// Sum of the ledger's rows, in cents.
    pub charged: Money,
    /// Orders the client reported unconfirmed.
    pub unconfirmed: u64,
    /// The implementation's reconciliation, when the job asked for it.
    pub reconciliation: Option<Reconciliation>,
}

/// One call the server received in a [`Job::Trace`], in the order of the
/// run, with the ledger's size right after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TracedCall {
    /// What was sent.
    pub call: Call,
    /// `ledger().len()` right after the call (a new row when it grew).
    pub rows: u32,
}

/// A world run call by call ([`Job::Trace`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WorldTrace {
    /// The figures, reconciled, as [`Job::World`] gives them.
    pub run: WorldRun,
    /// How many calls the client made for each order of the fleet, in order
    /// (the calls of order `i` follow those of orders `0..i` in `calls`).
    pub calls_per_order: Vec<u32>,
    /// Every call, in order.
    pub calls: Vec<TracedCall>,
    /// The server's ledger at the end.
    pub ledger: Vec<LedgerEntry>,
}

/// What the harness observed running one job.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Observation {
    /// [`Job::Charges`]: every answer, then the final ledger.
    Charges {
        /// One per call.
        answers: Vec<Answered>,
        /// `ledger()` after the last call.
        ledger: Vec<LedgerEntry>,
    },
    /// [`Job::Shared`]: every answer, each with the ledger after it.
    Shared {
        /// One per call, in order.
        answers: Vec<SharedAnswered>,
    },
    /// [`Job::Client`]: one entry per order, and the attempts the network
    /// carried in all.
    Client {
        /// Per order, in order.
        orders: Vec<OrderRun>,
        /// `network.attempts()` at the end.
        attempts: u64,
    },
    /// [`Job::Reconcile`] and [`Job::ReconcileFleet`].
    Reconciled(Reconciliation),
    /// [`Job::World`].
    World(WorldRun),
    /// [`Job::Trace`].
    Trace(WorldTrace),
    /// [`Job::Schedules`].
    Schedules(schedules::Explored),
}

/// How the implementation's code ended a job without an observation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Failure {
    /// It reached a `todo!()` at `location` (`file:line`).
    Pending {
        /// `file:line` of the `todo!()`.
        location: String,
    },
    /// It panicked.
    Panicked {
        /// The panic message.
        message: String,
        /// `file:line:column`.
        location: String,
    },
}

/// The harness's answer to one job.
pub type Answer = Result<Observation, Failure>;

/// The answer line for `answer` (without the newline).
pub fn answer_line(answer: &Answer) -> String {
    let json = serde_json::to_string(answer).unwrap_or_else(|e| {
        serde_json::to_string(&Answer::Err(Failure::Panicked {
            message: format!("la respuesta no se pudo serializar: {e}"),
            location: String::new(),
        }))
        .unwrap_or_default()
    });
    format!("{ANSWER_MARKER}{json}")
}

/// The answer carried by one line of the harness's stdout, if it is an
/// answer line (the marker may follow whatever the implementation printed
/// without a newline).
pub fn parse_answer_line(line: &str) -> Option<Result<Answer, String>> {
    let at = line.rfind(ANSWER_MARKER)?;
    Some(serde_json::from_str(&line[at + ANSWER_MARKER.len()..]).map_err(|e| e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::{ChargeId, ChargeStatus};

    #[test]
    fn an_answer_line_round_trips_after_unterminated_output() {
        let answer: Answer = Ok(Observation::Charges {
            answers: vec![Answered {
                result: ChargeResult {
                    charge_id: ChargeId(1),
                    amount: Money::from_dollars(500),
                    status: ChargeStatus::Captured,
                },
                rows: 1,
            }],
            ledger: Vec::new(),
        });
        let line = format!("printed without newline{}", answer_line(&answer));
        assert_eq!(parse_answer_line(&line), Some(Ok(answer)));
        assert_eq!(parse_answer_line("hola"), None);
    }

    #[test]
    fn work_counts_calls_and_attempts() {
        let fleet = Fleet::generated(1000, (10, 500), 0.15, 4, 42, sim::StreamKind::Cpython);
        assert_eq!(
            Job::Client {
                fleet,
                orders: None
            }
            .work(),
            4000
        );
        assert_eq!(
            Job::Reconcile {
                orders: Vec::new(),
                ledger: Vec::new()
            }
            .work(),
            0
        );
    }
}
