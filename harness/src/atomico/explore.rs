//! Exercise 4's concurrent histories under the schedule explorer (lesson 4),
//! in the second harness only (`harness-explorador`, feature `explorar`):
//! `sim::sync`'s locks are shuttle's there, so shuttle decides which thread
//! runs at every lock, and `sim::sync::registro` notes every critical
//! section. Each schedule runs on a new server; what the calls answered and
//! the ledger make its outcome, and every distinct outcome is answered once,
//! with the simplest schedule that reached it (fewest switches between
//! threads, then fewest steps) and that schedule's steps.

use std::sync::{Arc, Mutex, PoisonError};

use protocol::Call;
use protocol::schedules::{Exploration, Explored, History, Outcome, Reply, Server, Step};
use shuttle::scheduler::{
    DfsScheduler, PctScheduler, RandomScheduler, RoundRobinScheduler, Schedule, Scheduler, Task,
    TaskId,
};
use shuttle::{Config, FailurePersistence, MaxSteps, Runner};
use sim::sync::registro::{self, Event, Snapshot};
use sim::{IdempotencyKey, KeyState, Kit, LedgerEntry, SharedPayments};

/// The most steps one schedule may take: a spinning implementation fails
/// here instead of running forever.
const MAX_STEPS: usize = 100_000;

/// One execution that follows `steps` while each chosen thread can run, and
/// then (another implementation's schedule, or one cut short) keeps the
/// running thread, else the first one ready: a schedule found against one
/// implementation replays on another one as far as it fits.
struct Prefix {
    steps: Vec<u32>,
    next: usize,
    started: bool,
}

impl Scheduler for Prefix {
    fn new_execution(&mut self) -> Option<Schedule> {
        if std::mem::replace(&mut self.started, true) {
            return None;
        }
        self.next = 0;
        Some(Schedule::new(0))
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        _: bool,
    ) -> Option<TaskId> {
        let ready = |id: TaskId| runnable.iter().any(|t| t.id() == id);
        let wanted = self.steps.get(self.next).map(|&t| TaskId::from(t as usize));
        self.next += 1;
        match (wanted, current) {
            (Some(id), _) if ready(id) => Some(id),
            (_, Some(id)) if ready(id) => Some(id),
            _ => runnable.first().map(|t| t.id()),
        }
    }

    fn next_u64(&mut self) -> u64 {
        0
    }
}

/// A scheduler that notes the thread it chose at each step, per execution.
struct Noting<S> {
    inner: S,
    schedules: Arc<Mutex<Vec<Vec<u32>>>>,
}

impl<S: Scheduler> Scheduler for Noting<S> {
    fn new_execution(&mut self) -> Option<Schedule> {
        let next = self.inner.new_execution();
        if next.is_some() {
            lock(&self.schedules).push(Vec::new());
        }
        next
    }

    fn next_task(
        &mut self,
        runnable: &[&Task],
        current: Option<TaskId>,
        is_yielding: bool,
    ) -> Option<TaskId> {
        let chosen = self.inner.next_task(runnable, current, is_yielding);
        if let (Some(task), Some(last)) = (chosen, lock(&self.schedules).last_mut()) {
            last.push(usize::from(task) as u32);
        }
        chosen
    }

    fn next_u64(&mut self) -> u64 {
        self.inner.next_u64()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What one schedule did.
struct Run {
    before: Vec<Reply>,
    threads: Vec<Vec<Reply>>,
    ledger: Vec<LedgerEntry>,
    events: Vec<Event>,
}

/// Runs `history` on new servers of `K` under the schedules of `explore`.
///
/// # Panics
/// When the implementation panics (a `todo!()` included), deadlocks or
/// spins past [`MAX_STEPS`] in some schedule: the caller turns it into a
/// failure.
pub fn explore<K: Kit>(history: &History, explore: &Exploration, server: Server) -> Explored {
    let schedules = Arc::new(Mutex::new(Vec::new()));
    let runs: Arc<Mutex<Vec<Run>>> = Arc::new(Mutex::new(Vec::new()));
    let config = config();
    let body = {
        let history = history.clone();
        let runs = Arc::clone(&runs);
        move || {
            let run = one_schedule::<K>(&history, server);
            lock(&runs).push(run);
        }
    };
    let noting = |inner| Noting {
        inner,
        schedules: Arc::clone(&schedules),
    };
    let limit = explore.schedules().max(1) as usize;
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match explore {
        Exploration::Random { seed, .. } => Runner::new(
            noting(boxed(RandomScheduler::new_from_seed(*seed, limit))),
            config,
        )
        .run(body),
        Exploration::Pct { seed, depth, .. } => Runner::new(
            noting(boxed(PctScheduler::new_from_seed(
                *seed,
                (*depth).max(1) as usize,
                limit,
            ))),
            config,
        )
        .run(body),
        Exploration::Exhaustive { .. } => {
            Runner::new(noting(boxed(DfsScheduler::new(Some(limit), false))), config).run(body)
        }
        Exploration::Replay { schedule } => Runner::new(
            noting(boxed(Prefix {
                steps: schedule.clone(),
                next: 0,
                started: false,
            })),
            config,
        )
        .run(body),
    }));
    if let Err(panic) = ran {
        // The schedule it broke in, to replay with `repetir-horario`.
        let last = lock(&schedules).last().cloned().unwrap_or_default();
        crate::catch::rewrite(|message, location| explorer_failure(message, location, &last));
        std::panic::resume_unwind(panic);
    }
    let schedules = std::mem::take(&mut *lock(&schedules));
    let runs = std::mem::take(&mut *lock(&runs));
    let ran = runs.len() as u32;
    let complete = matches!(explore, Exploration::Exhaustive { .. }) && (runs.len() < limit);
    Explored {
        schedules: ran,
        complete,
        outcomes: outcomes(history, runs, schedules),
    }
}

/// The longest schedule written out in a failure (a spin loop's runs to
/// [`MAX_STEPS`] steps: hundreds of kilobytes nobody replays by hand).
pub const SHOWN_STEPS: usize = 2_000;

/// Where a failure of the explorer itself (not a panic of the code) is
/// located: the judge tells it as a failed check, not as a panic.
pub const EXPLORER: &str = "explorador";

/// A panic caught while exploring, told in Spanish: the explorer's own
/// failures (every thread blocked; a schedule past [`MAX_STEPS`]) replace
/// shuttle's English message and location with what was observed; every
/// failure gets the schedule it happened in, `(en el horario 0.1.1…)`, or
/// its length when longer than [`SHOWN_STEPS`].
fn explorer_failure(message: &mut String, location: &mut String, schedule: &[u32]) {
    if message.starts_with("deadlock") {
        *message = "bloqueo mutuo (deadlock): en este horario todos los hilos quedaron esperando un candado que tiene otro hilo, y ninguno puede seguir".to_string();
        *location = EXPLORER.to_string();
    } else if message.starts_with("exceeded max_steps bound") {
        *message = format!(
            "el horario no terminó en {} pasos del explorador (cada paso, un candado tomado): tu código siguió tomando candados sin terminar la llamada",
            MAX_STEPS
        );
        *location = EXPLORER.to_string();
    }
    if schedule.len() <= SHOWN_STEPS {
        let steps: Vec<String> = schedule.iter().map(u32::to_string).collect();
        message.push_str(&format!(" (en el horario {})", steps.join(".")));
    } else {
        message.push_str(&format!(
            " (en un horario de {} pasos, demasiado largo para repetirlo)",
            schedule.len()
        ));
    }
}

/// `f(&arg)` in one schedule of the explorer, from its main thread (the
/// locks of `sim::sync` work only inside one).
///
/// # Panics
/// When `f` panics.
pub fn alone<A, T>(arg: A, f: fn(&A) -> T) -> T
where
    A: Send + Sync + 'static,
    T: Send + 'static,
{
    let out: Arc<Mutex<Option<T>>> = Arc::new(Mutex::new(None));
    let slot = Arc::clone(&out);
    let config = config();
    Runner::new(RoundRobinScheduler::new(1), config).run(move || {
        *lock(&slot) = Some(f(&arg));
    });
    let value = lock(&out).take();
    value.unwrap_or_else(|| panic!("el explorador no ejecutó el trabajo"))
}

/// Shuttle's configuration here: nothing printed or saved on a failure (the
/// judge tells it), at most [`MAX_STEPS`] per schedule.
fn config() -> Config {
    let mut config = Config::new();
    config.failure_persistence = FailurePersistence::None;
    config.max_steps = MaxSteps::FailAfter(MAX_STEPS);
    config.silence_warnings = true;
    config
}

fn boxed(s: impl Scheduler + Send + 'static) -> Box<dyn Scheduler + Send> {
    Box::new(s)
}

/// One schedule: a new server, the calls before, then every thread at once.
fn one_schedule<K: Kit>(history: &History, server: Server) -> Run {
    let server: Arc<dyn SharedPayments> = match server {
        Server::Implementation => Arc::new(K::new_atomic_server()),
        Server::CheckThenInsert => Arc::new(sim::non_atomic::CheckThenInsertServer::default()),
    };
    registro::start();
    let before = calls(&*server, &history.before);
    let handles: Vec<_> = history
        .threads
        .iter()
        .enumerate()
        .map(|(i, list)| {
            let server = Arc::clone(&server);
            let list = list.clone();
            shuttle::thread::Builder::new()
                .name(format!("hilo {}", i + 1))
                .spawn(move || calls(&*server, &list))
                .unwrap_or_else(|e| panic!("no se pudo lanzar el hilo {}: {e}", i + 1))
        })
        .collect();
    let threads = handles
        .into_iter()
        .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
        .collect();
    let events = registro::finish();
    Run {
        before,
        threads,
        ledger: server.ledger(),
        events,
    }
}

/// `list`'s calls in order on `server`, each noted in the record.
fn calls<S: SharedPayments + ?Sized>(server: &S, list: &[Call]) -> Vec<Reply> {
    list.iter()
        .enumerate()
        .map(|(i, c)| {
            registro::call(i as u32);
            let reply = server.charge(c.key, c.order_id, c.amount);
            registro::returned(i as u32);
            reply
        })
        .collect()
}

/// The distinct outcomes of `runs`, in the order first reached, each with
/// its simplest schedule.
fn outcomes(history: &History, runs: Vec<Run>, schedules: Vec<Vec<u32>>) -> Vec<Outcome> {
    let mut out: Vec<(Outcome, (usize, usize))> = Vec::new();
    for (i, run) in runs.into_iter().enumerate() {
        let schedule = schedules.get(i).cloned().unwrap_or_default();
        let same = out.iter_mut().find(|(o, _)| {
            o.before == run.before && o.threads == run.threads && o.ledger == run.ledger
        });
        let steps = steps(history, &run);
        let cost = (switches(&steps), schedule.len());
        match same {
            Some((o, best)) => {
                o.reached += 1;
                if cost < *best {
                    *best = cost;
                    o.schedule = schedule;
                    o.steps = steps;
                }
            }
            None => out.push((
                Outcome {
                    before: run.before,
                    threads: run.threads,
                    ledger: run.ledger,
                    reached: 1,
                    schedule,
                    steps,
                },
                cost,
            )),
        }
    }
    out.into_iter().map(|(o, _)| o).collect()
}

/// How many times consecutive steps belong to different threads.
fn switches(steps: &[Step]) -> usize {
    steps
        .windows(2)
        .filter(|w| w[0].thread() != w[1].thread())
        .count()
}

/// The record of `run` as steps in the history's terms.
fn steps(history: &History, run: &Run) -> Vec<Step> {
    let list = |thread: u32| -> &[Call] {
        match thread {
            0 => &history.before,
            t => history
                .threads
                .get(t as usize - 1)
                .map_or(&[][..], Vec::as_slice),
        }
    };
    let reply = |thread: u32, index: u32| -> Option<Reply> {
        let replies = match thread {
            0 => &run.before,
            t => run.threads.get(t as usize - 1)?,
        };
        replies.get(index as usize).copied()
    };
    // The call each thread is in, to name the key a store section looks up.
    let mut current: Vec<Option<u32>> = vec![None; history.threads.len() + 1];
    let mut steps = Vec::new();
    for event in &run.events {
        match event {
            Event::Call { thread, index } => {
                if let Some(slot) = current.get_mut(*thread as usize) {
                    *slot = Some(*index);
                }
                if let Some(call) = list(*thread).get(*index as usize) {
                    steps.push(Step::Called {
                        thread: *thread,
                        call: *call,
                    });
                }
            }
            Event::Returned { thread, index } => {
                if let Some(reply) = reply(*thread, *index) {
                    steps.push(Step::Answered {
                        thread: *thread,
                        reply,
                    });
                }
            }
            Event::Section {
                thread,
                before,
                after,
            } => {
                let key = current
                    .get(*thread as usize)
                    .copied()
                    .flatten()
                    .and_then(|i| list(*thread).get(i as usize))
                    .map(|c| c.key);
                steps.push(section(*thread, key, before, after));
            }
        }
    }
    steps
}

fn section(thread: u32, key: Option<IdempotencyKey>, before: &Snapshot, after: &Snapshot) -> Step {
    match (before, after, key) {
        (Snapshot::Store(was), Snapshot::Store(now), Some(key)) => Step::Store {
            thread,
            key,
            found: state(was, key),
            wrote: changes(was, now),
        },
        (Snapshot::Ledger { .. }, Snapshot::Ledger { added, .. }, _) => Step::Ledger {
            thread,
            added: added.clone(),
        },
        _ => Step::Lock { thread },
    }
}

fn state(entries: &[(IdempotencyKey, KeyState)], key: IdempotencyKey) -> Option<KeyState> {
    entries.iter().find(|(k, _)| *k == key).map(|(_, s)| *s)
}

/// The keys whose state differs from `was` to `now`, sorted.
fn changes(
    was: &[(IdempotencyKey, KeyState)],
    now: &[(IdempotencyKey, KeyState)],
) -> Vec<(IdempotencyKey, Option<KeyState>)> {
    let mut keys: Vec<IdempotencyKey> = was.iter().chain(now).map(|(k, _)| *k).collect();
    keys.sort();
    keys.dedup();
    keys.into_iter()
        .filter_map(|k| {
            let (a, b) = (state(was, k), state(now, k));
            (a != b).then_some((k, b))
        })
        .collect()
}
