//! The contract between the judge (`grader`) and the harness that runs the
//! implementation under test (the student's `exercises`, or `solutions`).
//!
//! The judge sends lists of [`Job`]s on the harness's stdin, each list one
//! line ([`job_line`]: postcard in base64), the next after the answers of the last; the
//! harness answers each job, in order, with one [`ANSWER_MARKER`] line on
//! stdout carrying an [`Answer`]. Jobs and observations are raw data:
//! what to call and what the code returned. Expected values, verdicts, points
//! and reports exist only in the judge, so a harness that lies can only lie
//! about its own behaviour, which the judge grades like any wrong answer.

//!
//! Each exercise's own jobs and answers live in the module named after its
//! id ([`cobro`], [`cliente`], [`reconciliacion`], [`atomico`]); the worlds
//! where they run together in [`world`]. Each job is a type that names its
//! answer's ([`Request`]): the judge asks with a job and gets its answer's
//! type back, the harness answers a job with a function that returns that
//! type, so a job paired with another job's answer does not compile. The
//! wire carries them in [`Job`] and [`Observation`].

pub mod atomico;
pub mod cliente;
pub mod cobro;
pub mod lesson;
pub mod reconciliacion;
pub mod world;

use serde::{Deserialize, Serialize};
use sim::Reconciliation;

pub use atomico::schedules;
pub use atomico::{Long, LongRun, Shared, SharedAnswered};
pub use cliente::{Client, ClientRun, OrderRun, Sent, runs};
pub use cobro::{Answered, Call, Charges, Played};
pub use reconciliacion::{Reconcile, ReconcileFleet};
pub use schedules::Schedules;
pub use world::{ClientKind, Trace, TracedCall, World, WorldRun, WorldTrace};

/// A job for the harness, paired with the type of what answers it.
///
/// The judge reads an answer as its job's answer type, and nothing else:
///
/// ```
/// use protocol::{Charges, Observation, Played, Request};
/// let o = Observation::Charges(Played { answers: Vec::new(), ledger: Vec::new() });
/// let played: Option<Played> = Charges::answer_of(o);
/// assert!(played.is_some());
/// ```
///
/// Reading it as another job's answer does not compile:
///
/// ```compile_fail,E0308
/// use protocol::{Charges, Observation, Played, Request};
/// let o = Observation::Charges(Played { answers: Vec::new(), ledger: Vec::new() });
/// let wrong: Option<sim::Reconciliation> = Charges::answer_of(o);
/// ```
///
/// and neither does answering a job with another job's answer:
///
/// ```compile_fail,E0308
/// use protocol::{Charges, Request};
/// let _ = Charges::observation(sim::Reconciliation::default());
/// ```
pub trait Request: Sized {
    /// What the harness observed running it.
    type Answer;
    /// What answers it, in Spanish, for the message that says a harness
    /// answered with something else (`las respuestas de un guion de cobros`).
    const ANSWER: &'static str;
    /// The job as the wire carries it.
    fn into_job(self) -> Job;
    /// The answer in `o` when `o` is of this job's kind; `None` otherwise (a
    /// harness that answers with another kind is wrong, and the judge says
    /// so).
    fn answer_of(o: Observation) -> Option<Self::Answer>;
    /// The observation that carries `answer` (the harness's side).
    fn observation(answer: Self::Answer) -> Observation;
}

/// `impl Request for $req` with answer `$answer` (described as `$what`),
/// carried by `Job::$req` and `Observation::$obs`.
#[macro_export]
#[doc(hidden)]
macro_rules! request {
    ($req:ident => $answer:ty, $obs:ident, $what:literal) => {
        impl Request for $req {
            type Answer = $answer;
            const ANSWER: &'static str = $what;
            fn into_job(self) -> Job {
                Job::$req(self)
            }
            fn answer_of(o: Observation) -> Option<$answer> {
                match o {
                    Observation::$obs(a) => Some(a),
                    _ => None,
                }
            }
            fn observation(answer: $answer) -> Observation {
                Observation::$obs(answer)
            }
        }
    };
}

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

/// One thing for the harness to run against the implementation: a
/// [`Request`] of one of the exercises or worlds, as the wire carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Job {
    /// Exercise 1: [`cobro::Charges`].
    Charges(Charges),
    /// Exercise 2: [`cliente::Client`].
    Client(Client),
    /// Exercise 3: [`reconciliacion::Reconcile`].
    Reconcile(Reconcile),
    /// Exercise 3 over a fleet: [`reconciliacion::ReconcileFleet`].
    ReconcileFleet(ReconcileFleet),
    /// One world of a fleet: [`world::World`].
    World(World),
    /// Exercise 4, from one thread: [`atomico::Shared`].
    Shared(Shared),
    /// One world traced call by call: [`world::Trace`].
    Trace(Trace),
    /// Exercise 4 under the schedule explorer: [`schedules::Schedules`].
    Schedules(Schedules),
    /// Exercise 4, a long history in one or several threads:
    /// [`atomico::Long`].
    Long(Long),
}

impl Job {
    /// How much work the job asks of the implementation, in calls to its
    /// code or rows it must read: the judge's time limit grows with it.
    pub fn work(&self) -> u64 {
        match self {
            Job::Charges(Charges { calls, .. }) | Job::Shared(Shared { calls }) => {
                calls.len() as u64
            }
            Job::Client(Client {
                orders: Some(orders),
                fleet,
                ..
            }) => orders.len() as u64 * u64::from(fleet.max_attempts.max(1)),
            Job::Client(Client { fleet, .. })
            | Job::ReconcileFleet(ReconcileFleet { fleet, .. })
            | Job::World(World { fleet, .. })
            | Job::Trace(Trace { fleet, .. }) => {
                fleet.order_count() * u64::from(fleet.max_attempts.max(1))
            }
            Job::Reconcile(Reconcile { orders, ledger }) => (orders.len() + ledger.len()) as u64,
            Job::Long(Long { threads }) => threads.iter().map(|t| t.len() as u64).sum(),
            // A schedule costs about what a few hundred plain calls do.
            Job::Schedules(Schedules {
                history, explore, ..
            }) => history.call_count() as u64 * u64::from(explore.schedules()) * 200,
        }
    }
}

/// What the harness observed running one job: the [`Request::Answer`] of
/// its kind, as the wire carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Observation {
    /// [`Job::Charges`]: every answer, then the final ledger.
    Charges(Played),
    /// [`Job::Shared`]: every answer, each with the ledger after it.
    Shared(Vec<SharedAnswered>),
    /// [`Job::Client`]: one entry per order, and the attempts the network
    /// carried in all.
    Client(ClientRun),
    /// [`Job::Reconcile`] and [`Job::ReconcileFleet`].
    Reconciled(Reconciliation),
    /// [`Job::World`].
    World(WorldRun),
    /// [`Job::Trace`].
    Trace(WorldTrace),
    /// [`Job::Schedules`].
    Schedules(schedules::Explored),
    /// [`Job::Long`].
    Long(LongRun),
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

/// The wire form of `value`: postcard (fields in order, no names;
/// integers as varints) in standard base64, one line of ASCII without a newline. A
/// hundred thousand calls and their answers are a few megabytes, read and
/// written in milliseconds, where JSON took tenths of a second.
fn encode<T: Serialize + ?Sized>(value: &T) -> String {
    try_encode(value).unwrap_or_default()
}

fn try_encode<T: Serialize + ?Sized>(value: &T) -> Result<String, String> {
    use base64::Engine as _;
    let bytes = postcard::to_allocvec(value).map_err(|e| e.to_string())?;
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
    postcard::from_bytes(&bytes).map_err(|e| e.to_string())
}
