//! The contract between the judge (`grader`) and the harness that runs the
//! implementation under test (the student's `exercises`, or `solutions`).
//!
//! The judge sends lists of [`Job`]s on the harness's stdin, each list one
//! line ([`job_line`]: MessagePack in base64), the next after the answers of the last; the
//! harness answers each job, in order, with one [`ANSWER_MARKER`] line on
//! stdout carrying an [`Answer`]. Jobs and observations are raw data:
//! what to call and what the code returned. Expected values, verdicts, points
//! and reports exist only in the judge, so a harness that lies can only lie
//! about its own behaviour, which the judge grades like any wrong answer.

//!
//! Each exercise's own types live in its module ([`charges`] for exercise
//! 1, [`client`] for exercise 2, [`shared`] for exercise 4; exercise 3
//! answers with `sim::Reconciliation`), the worlds where they run together in [`world`];
//! all are re-exported here. A new exercise adds its module, one [`Job`] and
//! one [`Observation`] variant wrapping its own types, and its arm in
//! [`Job::work`].

pub mod charges;
pub mod client;
pub mod lesson;
pub mod schedules;
pub mod shared;
pub mod world;

use serde::{Deserialize, Serialize};
use sim::{Fleet, LedgerEntry, Order, Reconciliation};

pub use charges::{Answered, Call};
pub use client::{OrderRun, Sent, runs};
pub use shared::SharedAnswered;
pub use world::{ClientKind, TracedCall, WorldRun, WorldTrace};

/// The prefix of an answer line on the harness's stdout. Anything else the
/// implementation prints is ignored.
pub const ANSWER_MARKER: &str = "@@kit-answer@@ ";

/// The line the harness's allocator writes on the answers' channel when an
/// allocation fails, followed by the size asked for, in bytes
/// (`@@kit-sin-memoria@@ 4096`). The implementation cannot reach that
/// channel, so the judge tells an out-of-memory death only when it saw this
/// line, never from what the process wrote to stderr.
pub const OUT_OF_MEMORY_MARKER: &str = "@@kit-sin-memoria@@ ";

/// The size in bytes an [`OUT_OF_MEMORY_MARKER`] line reports, if `line`
/// is one.
pub fn parse_out_of_memory_line(line: &str) -> Option<u64> {
    line.strip_prefix(OUT_OF_MEMORY_MARKER)?.trim().parse().ok()
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
        /// Whose server (the implementation's unless said).
        #[serde(default)]
        server: schedules::Server,
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
            Job::Schedules {
                history, explore, ..
            } => history.call_count() as u64 * u64::from(explore.schedules()) * 200,
        }
    }
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

/// The line that carries `jobs` to the harness: the list encoded as
/// [`encode`] does, then a newline (base64 has none). Serialised here, in
/// the protocol's crate, so that the serialiser's generic code is compiled
/// with this crate's optimisation even when the judge is not optimised.
pub fn job_line(jobs: &[Job]) -> Vec<u8> {
    let mut line = encode(jobs).into_bytes();
    line.push(b'\n');
    line
}

/// The jobs of one line that [`job_line`] wrote (its newline, if any,
/// included).
///
/// # Errors
/// What is not a list of jobs, in the decoder's words.
pub fn parse_job_line(line: &str) -> Result<Vec<Job>, String> {
    decode(line)
}

/// The answer line for `answer` (without the newline).
pub fn answer_line(answer: &Answer) -> String {
    let text = try_encode(answer).unwrap_or_else(|e| {
        encode(&Answer::Err(Failure::Panicked {
            message: format!("la respuesta no se pudo serializar: {e}"),
            location: String::new(),
        }))
    });
    format!("{ANSWER_MARKER}{text}")
}

/// The answer carried by one line of the harness's stdout, if it is an
/// answer line (the marker may follow whatever the implementation printed
/// without a newline).
pub fn parse_answer_line(line: &str) -> Option<Result<Answer, String>> {
    let at = line.rfind(ANSWER_MARKER)?;
    Some(decode(&line[at + ANSWER_MARKER.len()..]))
}

/// The wire form of `value`: MessagePack (structs as arrays, no field
/// names) in standard base64, one line of ASCII without a newline. A
/// hundred thousand calls and their answers are a few megabytes, read and
/// written in milliseconds, where JSON took tenths of a second.
fn encode<T: Serialize + ?Sized>(value: &T) -> String {
    try_encode(value).unwrap_or_default()
}

fn try_encode<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    use base64::Engine as _;
    let bytes = rmp_serde::to_vec(value).map_err(|e| e.to_string())?;
    Ok(base64::engine::general_purpose::STANDARD.encode(bytes))
}

/// The value of a wire form [`encode`] wrote; spaces and line ends around
/// it are ignored.
///
/// # Errors
/// Text that is not base64 of such a value, in the decoder's words.
fn decode<T: serde::de::DeserializeOwned>(text: &str) -> Result<T, String> {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(text.trim_ascii())
        .map_err(|e| format!("no es base64: {e}"))?;
    rmp_serde::from_slice(&bytes).map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::{ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, Money, OrderId};

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
    fn a_job_line_is_one_line_and_round_trips() {
        let jobs = vec![
            Job::Charges {
                idempotent: true,
                calls: vec![Call {
                    key: IdempotencyKey(u64::MAX),
                    order_id: OrderId(7),
                    amount: Money::from_cents(1),
                }],
            },
            Job::Reconcile {
                orders: Vec::new(),
                ledger: Vec::new(),
            },
        ];
        let line = job_line(&jobs);
        assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
        assert_eq!(line.last(), Some(&b'\n'));
        let text = String::from_utf8(line).unwrap();
        assert_eq!(parse_job_line(&text), Ok(jobs));
        assert!(parse_job_line("[{\"Nada\":1}]").is_err());
        assert!(parse_job_line(&encode(&vec![("Nada", 1)])).is_err());
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
