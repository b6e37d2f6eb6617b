//! The harness: a small program that links `sim` and one implementation of
//! the exercises (the three of lesson 2 and lesson 4's bonus) and does nothing but run the judge's [`Job`]s against
//! it, answering with raw observations (see the `protocol` crate). It decides
//! no grade: the judge (`grader`) compares what it observed with the oracle.

mod alloc;
mod catch;
mod charges;
#[cfg(feature = "explorar")]
pub mod explore;
mod reconcile;
mod record;
mod shared;
mod trace;
mod world;

use std::io::Write;

use protocol::{Answer, Job, Observation};
use sim::Kit;

pub use catch::catch;

/// Every allocation of a harness goes through [`alloc::Watched`], so that a
/// failed one is told to the judge on the answers' channel.
#[global_allocator]
static ALLOCATOR: alloc::Watched = alloc::Watched;

/// Reads lists of jobs from stdin, each one line ([`protocol::job_line`]), and
/// prints one answer line per job, in order, flushing each, on the
/// process's original stdout, until stdin ends; the judge may send the next
/// list after the answers of the last. What the implementation prints goes
/// to stderr instead (see [`private_stdout`]). Input that is not such a
/// list ends the process with status 2.
pub fn serve<K: Kit>() {
    use std::io::BufRead;
    let mut answers = private_stdout();
    let mut input = std::io::stdin().lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => {
                // The channel closes with `answers`, at the end of this call.
                alloc::watch(-1);
                return;
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!("harness: no se pudo leer la entrada: {e}");
                std::process::exit(2);
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        let jobs = protocol::parse_job_line(&line).unwrap_or_else(|e| {
            eprintln!("harness: trabajos ilegibles en la entrada: {e}");
            std::process::exit(2);
        });
        for job in &jobs {
            let answer = answer_caught::<K>(job);
            let _ = writeln!(answers, "\n{}", protocol::answer_line(&answer));
            let _ = answers.flush();
        }
    }
}

/// The answers' own channel: a copy of stdout taken before any job runs,
/// after which stdout itself points at stderr, so nothing the
/// implementation prints (`println!` included) can pass for an answer.
/// Where that cannot be arranged, plain stdout.
fn private_stdout() -> Box<dyn Write> {
    use std::os::fd::AsFd;
    let copy = std::io::stdout().as_fd().try_clone_to_owned();
    match copy {
        Ok(fd) if nix::unistd::dup2_stdout(std::io::stderr()).is_ok() => {
            use std::os::fd::AsRawFd;
            // The descriptor lives in the returned file, which `serve`
            // keeps until the process ends.
            alloc::watch(fd.as_raw_fd());
            Box::new(std::fs::File::from(fd))
        }
        _ => Box::new(std::io::stdout()),
    }
}

/// Runs `job` against `K`, turning a `todo!()` or a panic into a
/// [`protocol::Failure`].
pub fn answer_caught<K: Kit>(job: &Job) -> Answer {
    catch(|| answer::<K>(job))
}

/// Runs `job` against `K` in this process (panics propagate): each
/// exercise's jobs are answered by its own module ([`charges`] for
/// exercise 1, [`record`] for exercise 2, [`reconcile`] for exercise 3,
/// [`shared`] for exercise 4),
/// the lesson's worlds by [`world`] and [`trace`].
pub fn answer<K: Kit>(job: &Job) -> Observation {
    match job {
        Job::Charges { idempotent, calls } => charges::charges::<K>(*idempotent, calls),
        Job::Shared { calls } => shared_in_one_thread::<K>(calls),
        Job::Client { fleet, orders } => record::client::<K>(fleet, orders.as_deref()),
        Job::Reconcile { orders, ledger } => reconcile::reconcile::<K>(orders, ledger),
        Job::ReconcileFleet { fleet, idempotent } => reconcile::fleet::<K>(fleet, *idempotent),
        Job::World {
            fleet,
            idempotent,
            client,
            reconcile,
        } => Observation::World(world::world::<K>(fleet, *idempotent, *client, *reconcile)),
        Job::Trace {
            fleet,
            idempotent,
            client,
        } => Observation::Trace(trace::world::<K>(fleet, *idempotent, *client)),
        Job::Schedules {
            history,
            explore,
            server,
        } => schedules::<K>(history, explore, *server),
    }
}

/// [`shared::shared`] in this harness's own thread.
#[cfg(not(feature = "explorar"))]
fn shared_in_one_thread<K: Kit>(calls: &[protocol::Call]) -> Observation {
    shared::shared::<K>(calls)
}

/// [`shared::shared`] in one schedule of the explorer: its locks exist only
/// there.
#[cfg(feature = "explorar")]
fn shared_in_one_thread<K: Kit>(calls: &[protocol::Call]) -> Observation {
    explore::alone(calls.to_vec(), |calls| shared::shared::<K>(calls))
}

/// Exercise 4's concurrent history under the explorer (only in
/// `harness-explorador`).
#[cfg(feature = "explorar")]
fn schedules<K: Kit>(
    history: &protocol::schedules::History,
    explore: &protocol::schedules::Exploration,
    server: protocol::schedules::Server,
) -> Observation {
    Observation::Schedules(explore::explore::<K>(history, explore, server))
}

/// Without the explorer, `sim::sync`'s locks are std's: no schedule can be
/// chosen, so the job is refused (a panic the judge reports).
#[cfg(not(feature = "explorar"))]
#[allow(clippy::extra_unused_type_parameters)] // the explorer's twin uses it
fn schedules<K: Kit>(
    _: &protocol::schedules::History,
    _: &protocol::schedules::Exploration,
    _: protocol::schedules::Server,
) -> Observation {
    panic!(
        "este harness no tiene el explorador de horarios: los horarios se exploran en harness-explorador"
    )
}
