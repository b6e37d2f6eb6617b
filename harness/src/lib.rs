//! The harness: a small program that links `sim` and one implementation of
//! the exercises (the three of lesson 2 and lesson 4's bonus) and does nothing but run the judge's [`Job`]s against
//! it, answering with raw observations (see the `protocol` crate). It decides
//! no grade: the judge (`grader`) compares what it observed with the oracle.

mod catch;
#[cfg(feature = "explorar")]
pub mod explore;
mod record;
mod trace;

use std::io::{Read, Write};

use protocol::{Answer, ClientKind, Job, Observation, WorldRun};
use sim::{Kit, Payments, SharedPayments, clients};

pub use catch::catch;

/// Reads the jobs (one JSON list) from stdin and prints one answer line per
/// job, in order, flushing each, on the process's original stdout. What the
/// implementation prints goes to stderr instead (see [`private_stdout`]).
pub fn serve<K: Kit>() {
    let mut input = String::new();
    let jobs: Vec<Job> = match std::io::stdin().read_to_string(&mut input) {
        Ok(_) => serde_json::from_str(&input).unwrap_or_else(|e| {
            eprintln!("harness: trabajos ilegibles en la entrada: {e}");
            std::process::exit(2);
        }),
        Err(e) => {
            eprintln!("harness: no se pudo leer la entrada: {e}");
            std::process::exit(2);
        }
    };
    let mut answers = private_stdout();
    for job in &jobs {
        let answer = answer_caught::<K>(job);
        let _ = writeln!(answers, "\n{}", protocol::answer_line(&answer));
        let _ = answers.flush();
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

/// Runs `job` against `K` in this process (panics propagate).
pub fn answer<K: Kit>(job: &Job) -> Observation {
    match job {
        Job::Charges { idempotent, calls } => {
            let mut server = K::new_server(*idempotent);
            let answers = calls
                .iter()
                .map(|c| protocol::Answered {
                    result: server.charge(c.key, c.order_id, c.amount),
                    rows: server.ledger().len(),
                })
                .collect();
            Observation::Charges {
                answers,
                ledger: server.ledger().to_vec(),
            }
        }
        Job::Shared { calls } => shared_in_one_thread::<K>(calls),
        Job::Client { fleet, orders } => record::client::<K>(fleet, orders.as_deref()),
        Job::Reconcile { orders, ledger } => Observation::Reconciled(K::reconcile(orders, ledger)),
        Job::ReconcileFleet { fleet, idempotent } => {
            let orders = fleet.orders();
            let ledger = protocol::lesson::ledger(fleet, &orders, *idempotent);
            Observation::Reconciled(K::reconcile(&orders, &ledger))
        }
        Job::World {
            fleet,
            idempotent,
            client,
            reconcile,
        } => Observation::World(world::<K>(fleet, *idempotent, *client, *reconcile)),
        Job::Trace {
            fleet,
            idempotent,
            client,
        } => Observation::Trace(trace::world::<K>(fleet, *idempotent, *client)),
        Job::Schedules { history, explore } => schedules::<K>(history, explore),
    }
}

/// Exercise 4 from one thread: a new shared server, then every call in
/// order, each with the ledger after it ([`Job::Shared`]).
fn shared<K: Kit>(calls: &[protocol::Call]) -> Observation {
    let server = K::new_atomic_server();
    let answers = calls
        .iter()
        .map(|c| protocol::SharedAnswered {
            result: server.charge(c.key, c.order_id, c.amount),
            ledger: server.ledger(),
        })
        .collect();
    Observation::Shared { answers }
}

/// [`shared`] in this harness's own thread.
#[cfg(not(feature = "explorar"))]
fn shared_in_one_thread<K: Kit>(calls: &[protocol::Call]) -> Observation {
    shared::<K>(calls)
}

/// [`shared`] in one schedule of the explorer: its locks exist only there.
#[cfg(feature = "explorar")]
fn shared_in_one_thread<K: Kit>(calls: &[protocol::Call]) -> Observation {
    explore::alone(calls.to_vec(), |calls| shared::<K>(calls))
}

/// Exercise 4's concurrent history under the explorer (only in
/// `harness-explorador`).
#[cfg(feature = "explorar")]
fn schedules<K: Kit>(
    history: &protocol::schedules::History,
    explore: &protocol::schedules::Exploration,
) -> Observation {
    Observation::Schedules(explore::explore::<K>(history, explore))
}

/// Without the explorer, `sim::sync`'s locks are std's: no schedule can be
/// chosen, so the job is refused (a panic the judge reports).
#[cfg(not(feature = "explorar"))]
fn schedules<K: Kit>(
    _: &protocol::schedules::History,
    _: &protocol::schedules::Exploration,
) -> Observation {
    panic!("este harness no tiene el explorador de horarios: los horarios se exploran en harness-explorador")
}

/// One world of `fleet` with `K`'s server and the chosen client.
fn world<K: Kit>(
    fleet: &sim::Fleet,
    idempotent: bool,
    client: ClientKind,
    reconcile: bool,
) -> WorldRun {
    let orders = fleet.orders();
    let mut server = K::new_server(idempotent);
    let mut network = fleet.network();
    let mut keys = fleet.keys();
    let max = fleet.max_attempts;
    let mut unconfirmed = 0;
    for order in &orders {
        let outcome =
            charge_one::<K, _, _>(client, &mut server, &mut network, &mut keys, order, max);
        unconfirmed += u64::from(outcome.confirmed.is_none());
    }
    figures::<K>(
        &orders,
        server.ledger(),
        network.attempts(),
        unconfirmed,
        reconcile,
    )
}

/// The chosen client charges one order.
fn charge_one<K: Kit, P: Payments, S: sim::KeySource>(
    client: ClientKind,
    server: &mut P,
    network: &mut sim::Network,
    keys: &mut S,
    order: &sim::Order,
    max: u32,
) -> sim::ChargeOutcome {
    match client {
        ClientKind::Lesson => record::lesson_client(server, network, keys, order, max),
        ClientKind::Implementation => K::charge_order(server, network, keys, order, max),
        ClientKind::KeyPerAttempt => {
            clients::charge_with_key_per_attempt(server, network, keys, order, max)
        }
    }
}

/// A world's figures from its ledger, reconciled with `K`'s exercise 3 when
/// `reconcile`.
fn figures<K: Kit>(
    orders: &[sim::Order],
    ledger: &[sim::LedgerEntry],
    attempts: u64,
    unconfirmed: u64,
    reconcile: bool,
) -> WorldRun {
    WorldRun {
        attempts,
        executions: ledger.len() as u64,
        charged: ledger.iter().map(|r| r.amount).sum(),
        unconfirmed,
        reconciliation: reconcile.then(|| K::reconcile(orders, ledger)),
    }
}
