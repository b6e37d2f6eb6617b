//! Exercise 4's concurrent jobs (lesson 4, *el store atómico*): a history of
//! concurrent retries run under the schedule explorer of the second harness
//! (`harness-explorador`), and what each distinct outcome looked like.
//!
//! The harness decides nothing: it runs the schedules the job asks for and
//! returns every distinct outcome (what each call answered and the ledger),
//! each with the shortest schedule that reached it and that schedule's steps.
//! The judge checks the lesson's properties on them.

use serde::{Deserialize, Serialize};
use sim::{ChargeError, ChargeResult, IdempotencyKey, KeyState, LedgerEntry};

use crate::{Call, Job, Observation, Request};

/// Calls made one after another before the threads start (`before`, e.g. a
/// first charge that completed), then each thread's calls, all threads at
/// once, on one new shared server.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct History {
    /// Run in order by the main thread before any thread starts.
    pub before: Vec<Call>,
    /// Thread `i + 1`'s calls, in order.
    pub threads: Vec<Vec<Call>>,
}

impl History {
    /// Every call of the history.
    pub fn call_count(&self) -> usize {
        self.before.len() + self.threads.iter().map(Vec::len).sum::<usize>()
    }
}

/// Whose shared server runs the history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Server {
    /// The implementation's (exercise 4).
    #[default]
    Implementation,
    /// Lesson 4's contrast without atomicity,
    /// [`sim::non_atomic::CheckThenInsertServer`] (`grader escenario
    /// carrera`).
    CheckThenInsert,
}

/// Which schedules to run.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Exploration {
    /// `schedules` schedules of shuttle's random scheduler seeded with `seed`.
    Random {
        /// The seed.
        seed: u64,
        /// How many schedules.
        schedules: u32,
    },
    /// `schedules` schedules of shuttle's PCT scheduler (bugs of depth
    /// `depth` found with a known probability) seeded with `seed`.
    Pct {
        /// The seed.
        seed: u64,
        /// How many schedules.
        schedules: u32,
        /// The bug depth it aims at.
        depth: u32,
    },
    /// Every schedule (depth-first), at most `limit` of them.
    Exhaustive {
        /// The most schedules to run.
        limit: u32,
    },
    /// Exactly one schedule: the thread chosen at each step ([`Outcome::schedule`]).
    Replay {
        /// The schedule.
        schedule: Vec<u32>,
    },
}

impl Exploration {
    /// The most schedules it runs.
    pub fn schedules(&self) -> u32 {
        match self {
            Exploration::Random { schedules, .. } | Exploration::Pct { schedules, .. } => {
                *schedules
            }
            Exploration::Exhaustive { limit } => *limit,
            Exploration::Replay { .. } => 1,
        }
    }
}

/// What one call answered.
pub type Reply = Result<ChargeResult, ChargeError>;

/// One step of a schedule, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Step {
    /// Thread `thread` (0: the calls before the threads) calls `charge`.
    Called {
        /// The thread.
        thread: u32,
        /// The call.
        call: Call,
    },
    /// Thread `thread` held the store's lock: what it found for the key of
    /// its call, and every key whose state it changed (`None`: removed).
    Store {
        /// The thread.
        thread: u32,
        /// The key of its call.
        key: IdempotencyKey,
        /// That key's state when it took the lock.
        found: Option<KeyState>,
        /// The keys it changed, with their new states.
        wrote: Vec<(IdempotencyKey, Option<KeyState>)>,
    },
    /// Thread `thread` held the ledger's lock and pushed `added`.
    Ledger {
        /// The thread.
        thread: u32,
        /// Rows pushed (none: it only read).
        added: Vec<LedgerEntry>,
    },
    /// Thread `thread` held a lock around something else.
    Lock {
        /// The thread.
        thread: u32,
    },
    /// Thread `thread`'s call returned `reply`.
    Answered {
        /// The thread.
        thread: u32,
        /// What it returned.
        reply: Reply,
    },
}

impl Step {
    /// The thread that took the step.
    pub fn thread(&self) -> u32 {
        match self {
            Step::Called { thread, .. }
            | Step::Store { thread, .. }
            | Step::Ledger { thread, .. }
            | Step::Lock { thread }
            | Step::Answered { thread, .. } => *thread,
        }
    }
}

/// One distinct outcome of a history: what every call answered and the
/// ledger it left.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The answers of the calls before the threads, in order.
    pub before: Vec<Reply>,
    /// Per thread, its answers in order.
    pub threads: Vec<Vec<Reply>>,
    /// The server's ledger at the end.
    pub ledger: Vec<LedgerEntry>,
    /// How many of the schedules run reached it.
    pub reached: u32,
    /// The shortest schedule that reached it: the thread the explorer ran
    /// at each step (shuttle's task ids: 0 the main thread, `i` thread `i`),
    /// replayable with [`Exploration::Replay`].
    pub schedule: Vec<u32>,
    /// That schedule's steps.
    pub steps: Vec<Step>,
}

/// What running a [`Schedules`] observed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Explored {
    /// Schedules run.
    pub schedules: u32,
    /// For [`Exploration::Exhaustive`]: whether every schedule was run
    /// (the limit was not reached).
    pub complete: bool,
    /// Every distinct outcome, in the order first reached.
    pub outcomes: Vec<Outcome>,
}

/// Exercise 4 (lesson 4): `history` on new shared servers of the
/// implementation under the schedule explorer, one server per schedule.
/// Only the explorer's harness (`harness-explorador`) answers it, with
/// [`Explored`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Schedules {
    /// The calls and threads.
    pub history: History,
    /// Which schedules.
    pub explore: Exploration,
    /// Whose server (the implementation's unless said).
    #[serde(default)]
    pub server: Server,
}

crate::request!(Schedules => Explored, Schedules, "los horarios explorados");
