//! Exercise 4's concurrent checks (bonus, lesson 4, *el store atómico*):
//! histories of concurrent retries run in the explorer's harness, where
//! `sim::sync`'s locks are the schedule explorer's (`shuttle`): a bounded
//! exhaustive pass for two threads, seeded random and PCT schedules for
//! three. The harness answers every distinct outcome with its simplest
//! schedule; the judge checks lesson 4's properties on each:
//!
//! - every key of the history leaves exactly one ledger row, for one of
//!   the requests made with it: at most one charge per key, whatever the
//!   schedule;
//! - a call with the charged request answers that charge (a replay) or
//!   `Err(InFlight)` (the 409) while the charge is still under way; one made
//!   after the charge returned is always the replay;
//! - a call with another request under the same key answers
//!   `Err(KeyReused)` (the 422);
//! - the ledger's charge ids are `ch_0001`, `ch_0002`, … in row order.
//!
//! A failure is shrunk (fewer threads, fewer calls) while it still fails,
//! and shown as the interleaving trace in the lesson's words with the
//! command that replays exactly that schedule (`repetir-horario`). Before
//! any of this, one call through the plain harness: a `todo!()` is pending
//! there, and the explorer's harness is never built for it.

use std::fmt::Write as _;

use proptest::prelude::Rng;
use proptest::test_runner::{RngAlgorithm, TestRng};
use protocol::schedules::{
    Exploration, Explored, History, Outcome, Reply, Schedules, Server, Step,
};
use protocol::{Call, Observation, Request, Shared};
use sim::{ChargeError, ChargeRequest, ChargeResult, ChargeStatus, IdempotencyKey, KeyState};
use sim::{Money, OrderId};

use crate::runner::{self, Execute};
use crate::verdict::Verdict;

/// Two retries of one request at the same time (the lesson's race).
pub const TWO_RETRIES: &str = "dos-reintentos-a-la-vez-un-solo-cobro";
/// Three retries of one request at the same time.
pub const THREE_RETRIES: &str = "tres-reintentos-a-la-vez-un-solo-cobro";
/// A reuse of the key with another amount races the first request.
pub const REUSE_RACE: &str = "reuso-con-otro-monto-en-carrera";
/// Replays after the charge completed, from two threads.
pub const REPLAYS_AFTER: &str = "replays-despues-de-completar";
/// Two keys at once: two charges, ids in the ledger's order.
pub const TWO_KEYS: &str = "keys-distintas-a-la-vez-ids-en-orden";
/// Generated histories of concurrent retries, reuses and replays.
pub const GENERATED: &str = "historias-concurrentes-al-azar";

/// `(id, title)` of every concurrent check of exercise 4.
pub const CHECKS: &[(&str, &str)] = &[
    (
        TWO_RETRIES,
        "dos reintentos de la misma request a la vez (K1, $500): un solo cobro en todos los horarios (exploración exhaustiva)",
    ),
    (
        THREE_RETRIES,
        "tres reintentos a la vez: un solo cobro; los demás reciben el replay o Err(InFlight) (horarios aleatorios y PCT con semilla)",
    ),
    (
        REUSE_RACE,
        "la misma key con otro monto en carrera con la primera: una sola fila, y Err(KeyReused) para la otra (exploración exhaustiva)",
    ),
    (
        REPLAYS_AFTER,
        "reintentos después de completar, desde dos hilos: siempre el replay de ch_0001, nunca Err(InFlight) ni otra fila",
    ),
    (
        TWO_KEYS,
        "dos keys distintas a la vez: dos cobros, charge ids ch_0001 y ch_0002 en el orden del ledger (exploración exhaustiva)",
    ),
    (
        GENERATED,
        "20 historias concurrentes al azar (2–3 hilos, reintentos, reusos con otro monto, replays; semilla 2), reducidas a la mínima que falla",
    ),
];

/// Generated histories per run of [`GENERATED`].
pub const HISTORIES: usize = 20;
/// The seed of the public generated histories and of the random and PCT
/// schedules.
pub const SEED: u64 = 2;
/// The most schedules of a two-thread exhaustive pass.
pub const EXHAUSTIVE_LIMIT: u32 = 20_000;
/// Schedules of each seeded scheduler (random, then PCT) for more threads.
const SEEDED_SCHEDULES: u32 = 200;
/// Schedules of each seeded scheduler for a generated history.
const GENERATED_SCHEDULES: u32 = 60;
/// PCT's bug depth: a race of two retries needs two ordering constraints.
const PCT_DEPTH: u32 = 3;
/// Rounds of shrinking at most.
const SHRINK_ROUNDS: usize = 12;

/// Whether `id` is one of these checks.
pub fn owns(id: &str) -> bool {
    CHECKS.iter().any(|(name, _)| *name == id)
}

/// The call `charge(K<key>, <order>, $<dollars>)`.
pub fn call(key: u64, order: u64, dollars: i64) -> Call {
    Call {
        key: IdempotencyKey(key),
        order_id: OrderId(order),
        amount: Money::from_dollars(dollars),
    }
}

/// The history of fixed check `id` (not [`GENERATED`]).
fn history(id: &str) -> Option<History> {
    let k1 = call(1, 1, 500);
    Some(match id {
        TWO_RETRIES => History {
            before: Vec::new(),
            threads: vec![vec![k1], vec![k1]],
        },
        THREE_RETRIES => History {
            before: Vec::new(),
            threads: vec![vec![k1], vec![k1], vec![k1]],
        },
        REUSE_RACE => History {
            before: Vec::new(),
            threads: vec![vec![k1], vec![call(1, 1, 300)]],
        },
        REPLAYS_AFTER => History {
            before: vec![k1],
            threads: vec![vec![k1, k1], vec![k1]],
        },
        TWO_KEYS => History {
            before: Vec::new(),
            threads: vec![vec![k1], vec![call(2, 2, 300)]],
        },
        _ => return None,
    })
}

/// The schedules a fixed check's history is run under: every schedule for
/// two threads (539 for the lesson's race with the reference, 1,285 for
/// 2 + 1 calls; at most [`EXHAUSTIVE_LIMIT`]), seeded random and PCT
/// schedules for more ([`seeded`]).
pub fn plan(history: &History, seed: u64) -> Vec<Exploration> {
    if history.threads.len() <= 2 {
        vec![Exploration::Exhaustive {
            limit: EXHAUSTIVE_LIMIT,
        }]
    } else {
        seeded(history, seed, SEEDED_SCHEDULES)
    }
}

/// `schedules` random schedules, then as many PCT ones, seeded with `seed`
/// (random only for one thread: PCT needs two).
pub fn seeded(history: &History, seed: u64, schedules: u32) -> Vec<Exploration> {
    if history.threads.len() < 2 {
        return vec![Exploration::Random { seed, schedules }];
    }
    vec![
        Exploration::Random { seed, schedules },
        Exploration::Pct {
            seed,
            schedules,
            depth: PCT_DEPTH,
        },
    ]
}

/// The schedules of a generated history: seeded only, fewer (a generated
/// history of two keys can have tens of thousands of schedules; the fixed
/// checks cover the lesson's cases exhaustively).
fn plan_generated(history: &History, seed: u64) -> Vec<Exploration> {
    seeded(history, seed, GENERATED_SCHEDULES)
}

/// Runs check `id` of exercise 4's concurrent checks.
///
/// # Errors
/// The verdict of a property broken in some schedule (shrunk, with its
/// trace), or why the implementation gave no answer.
pub fn run(h: &dyn Execute, id: &str) -> Result<(), Verdict> {
    run_seeded(h, id, SEED)
}

/// As [`run`], in a run whose hidden seed is `hidden`
/// ([`crate::checks::Catalog::hidden_seed`]): with one, the generated
/// histories (and their schedules) are drawn from it, so that a store
/// careful only with the public histories' keys (they are in the judge's
/// source) is found in a graded run; the fixed histories keep their public
/// schedules.
///
/// # Errors
/// As [`run`].
pub fn run_in(h: &dyn Execute, id: &str, hidden: Option<u64>) -> Result<(), Verdict> {
    match hidden {
        Some(seed) if id == GENERATED => run_seeded(h, id, seed),
        _ => run(h, id),
    }
}

/// As [`run`], with `seed` for the generated histories and the random and
/// PCT schedules instead of the public [`SEED`].
///
/// # Errors
/// As [`run`].
pub fn run_seeded(h: &dyn Execute, id: &str, seed: u64) -> Result<(), Verdict> {
    let histories = match id {
        GENERATED => generated(seed, HISTORIES),
        _ => vec![history(id).ok_or_else(|| runner::unexpected(&format!("verificación {id}")))?],
    };
    let planner: Planner = match id {
        GENERATED => plan_generated,
        _ => plan,
    };
    let explorer = explorer_of(h, &histories[0])?;
    check_all(explorer, &histories, &|history| planner(history, seed))
}

/// How a check chooses the schedules of a history, with a seed.
type Planner = fn(&History, u64) -> Vec<Exploration>;

/// The explorer's executor of `h`, after one call of `history` through the
/// plain harness: a `todo!()` or a panic there is the verdict, and the
/// explorer's harness is not built for it.
pub fn explorer_of<'a>(h: &'a dyn Execute, history: &History) -> Result<&'a dyn Execute, Verdict> {
    let first = history
        .before
        .iter()
        .chain(history.threads.iter().flatten())
        .take(1)
        .copied()
        .collect();
    runner::ask(h, Shared { calls: first })?;
    h.explorer()
}

/// Runs every history (one harness process) and fails on the first one
/// that breaks a property in some schedule, shrunk.
fn check_all(h: &dyn Execute, histories: &[History], plan: Plan<'_>) -> Result<(), Verdict> {
    let found = first_failing(h, histories, plan)?;
    let Some((history, explored)) = found else {
        return Ok(());
    };
    let (history, explored) = shrink(h, history, explored, plan)?;
    Err(counterexample(&history, &plan(&history), &explored))
}

/// The first of `histories` that breaks a property, with what was explored.
/// The schedules of one history.
type Plan<'a> = &'a dyn Fn(&History) -> Vec<Exploration>;

fn first_failing(
    h: &dyn Execute,
    histories: &[History],
    plan: Plan<'_>,
) -> Result<Option<(History, Vec<Explored>)>, Verdict> {
    let mut jobs = Vec::new();
    let mut owner = Vec::new();
    for (i, history) in histories.iter().enumerate() {
        for explore in plan(history) {
            jobs.push(
                Schedules {
                    history: history.clone(),
                    explore,
                    server: Server::Implementation,
                }
                .into_job(),
            );
            owner.push(i);
        }
    }
    let mut explored: Vec<Vec<Explored>> = vec![Vec::new(); histories.len()];
    for (answer, i) in h.execute(&jobs).into_iter().zip(owner) {
        let answer = answer.map_err(|v| failed_schedule(&histories[i], v))?;
        explored[i].push(explored_of(answer)?);
    }
    Ok(histories
        .iter()
        .zip(explored)
        .find(|(history, e)| worst(history, e).is_some())
        .map(|(history, e)| (history.clone(), e)))
}

/// Where the explorer's harness locates a failure of the explorer itself
/// (`harness::atomico::explore::EXPLORER`): every thread blocked, or a schedule that
/// never ends.
const EXPLORER: &str = "explorador";

/// A failure in one schedule of `history` with the command that replays
/// it: the explorer's own (a deadlock, a schedule past its steps) as a
/// failed check in Spanish, a panic of the code as that panic, both with
/// `repetir-horario` when the schedule was written out.
fn failed_schedule(history: &History, verdict: Verdict) -> Verdict {
    let Verdict::Panicked { message, location } = verdict else {
        return verdict;
    };
    let replay = message
        .rsplit_once(" (en el horario ")
        .and_then(|(_, rest)| rest.strip_suffix(')'))
        .and_then(|text| parse_schedule(text).ok())
        .map(|schedule| replay_command(history, &schedule));
    let again = replay
        .as_ref()
        .map_or(String::new(), |cmd| format!(" · repítelo con: {cmd}"));
    if location == EXPLORER {
        return Verdict::failed(
            format!(
                "que cada llamada de la historia termine en todos los horarios ({})",
                describe(history)
            ),
            message,
            format!(
                "el explorador detuvo este horario: mira el orden en que tu charge toma y suelta los candados (store y ledger){again}"
            ),
        );
    }
    Verdict::Panicked {
        message: format!("{message}{again}"),
        location,
    }
}

/// The schedules a [`Schedules`] job explored, in its observation `o`.
///
/// # Errors
/// `o` answers another kind of job.
pub fn explored_of(o: Observation) -> Result<Explored, Verdict> {
    runner::answer_to::<Schedules>(o)
}

/// Smaller histories than `history`: without one thread, without one call
/// before the threads, without one call of a thread.
fn smaller(history: &History) -> Vec<History> {
    let mut out = Vec::new();
    if history.threads.len() > 1 {
        for t in 0..history.threads.len() {
            let mut h = history.clone();
            h.threads.remove(t);
            out.push(h);
        }
    }
    for i in 0..history.before.len() {
        let mut h = history.clone();
        h.before.remove(i);
        out.push(h);
    }
    for t in 0..history.threads.len() {
        if history.threads[t].len() > 1 {
            for i in 0..history.threads[t].len() {
                let mut h = history.clone();
                h.threads[t].remove(i);
                out.push(h);
            }
        }
    }
    out
}

/// Shrinks a failing history: the first smaller one that still fails, over
/// and over, in one harness process per round.
fn shrink(
    h: &dyn Execute,
    mut history: History,
    mut explored: Vec<Explored>,
    plan: Plan<'_>,
) -> Result<(History, Vec<Explored>), Verdict> {
    for _ in 0..SHRINK_ROUNDS {
        let candidates = smaller(&history);
        if candidates.is_empty() {
            break;
        }
        match first_failing(h, &candidates, plan)? {
            Some((smaller, e)) => {
                history = smaller;
                explored = e;
            }
            None => break,
        }
    }
    Ok((history, explored))
}

// ------------------------------------------------------------- properties

/// A property broken by one outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broken {
    /// The step where it shows (the trace marks it), if one does.
    pub at: Option<usize>,
    /// The mark, `← aquí se cuela el segundo cobro`.
    pub mark: String,
    /// What was expected, in Spanish.
    pub expected: String,
    /// What the lesson says about it.
    pub hint: String,
}

/// The simplest broken outcome of what was explored: the fewest steps.
pub fn worst<'a>(history: &History, explored: &'a [Explored]) -> Option<(&'a Outcome, Broken)> {
    explored
        .iter()
        .flat_map(|e| &e.outcomes)
        .filter_map(|o| broken(history, o).map(|b| (o, b)))
        .min_by_key(|(o, _)| o.steps.len())
}

/// Every call of `history` with its answer in `o`, as `(thread, call,
/// reply)`; thread 0 is the calls before.
fn answered<'a>(history: &'a History, o: &'a Outcome) -> Vec<(u32, &'a Call, Reply)> {
    let mut out = Vec::new();
    for (c, r) in history.before.iter().zip(&o.before) {
        out.push((0, c, *r));
    }
    for (t, (calls, replies)) in history.threads.iter().zip(&o.threads).enumerate() {
        for (c, r) in calls.iter().zip(replies) {
            out.push((t as u32 + 1, c, *r));
        }
    }
    out
}

fn request(c: &Call) -> ChargeRequest {
    ChargeRequest {
        order_id: c.order_id,
        amount: c.amount,
    }
}

/// The first property of lesson 4 that `o` breaks, if any.
pub fn broken(history: &History, o: &Outcome) -> Option<Broken> {
    // The charge ids follow the ledger's rows.
    for (i, row) in o.ledger.iter().enumerate() {
        if row.charge_id != sim::ChargeId::next_after(i) {
            return Some(Broken {
                at: row_step(o, i),
                mark: "← aquí el charge id no sigue las filas del ledger".to_string(),
                expected: format!("la fila {} del ledger con charge id {}", i + 1, sim::ChargeId::next_after(i)),
                hint: "el charge id sale del largo del ledger en el mismo paso que agrega la fila (con el candado del ledger tomado): si lo calculas antes o con otro contador, dos cobros a la vez se cruzan".to_string(),
            });
        }
    }
    let calls = answered(history, o);
    let mut keys: Vec<IdempotencyKey> = calls.iter().map(|(_, c, _)| c.key).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        let rows: Vec<usize> = (0..o.ledger.len())
            .filter(|&i| o.ledger[i].key == key)
            .collect();
        if rows.len() > 1 {
            return Some(Broken {
                at: row_step(o, rows[1]),
                mark: "← aquí se cuela el segundo cobro".to_string(),
                expected: format!("una sola fila en el ledger para {}", label(key)),
                hint: second_charge_hint(o, key, rows[1]),
            });
        }
        let Some(&row) = rows.first() else {
            return Some(Broken {
                at: None,
                mark: String::new(),
                expected: format!("una fila en el ledger para {} (la primera request con una key cobra)", label(key)),
                hint: "la primera request con una key nueva cobra una vez y guarda su resultado; nadie cobró aquí".to_string(),
            });
        };
        let entry = o.ledger[row];
        let charged = ChargeRequest {
            order_id: entry.order_id,
            amount: entry.amount,
        };
        if !calls
            .iter()
            .any(|(_, c, _)| c.key == key && request(c) == charged)
        {
            return Some(Broken {
                at: row_step(o, row),
                mark: "← aquí cobra algo que nadie pidió".to_string(),
                expected: format!(
                    "la fila de {} con la orden y el monto de una de sus requests",
                    label(key)
                ),
                hint: "la fila del ledger lleva la orden y el monto de la request que cobró"
                    .to_string(),
            });
        }
        let result = ChargeResult {
            charge_id: entry.charge_id,
            amount: entry.amount,
            status: ChargeStatus::Captured,
        };
        let done = answer_step(o, |r| *r == Ok(result));
        // The step that pushed the key's row, and its thread: the call that
        // was running it is the one that charged, and it gets its result.
        let pushed = o.steps.iter().enumerate().find_map(|(s, step)| match step {
            Step::Ledger { thread, added } if added.contains(&entry) => Some((s, *thread)),
            _ => None,
        });
        for (thread, c, reply) in calls.iter().filter(|(_, c, _)| c.key == key) {
            let same = request(c) == charged;
            let charged_it = pushed.is_some_and(|(s, t)| {
                t == *thread
                    && o.steps.iter().position(
                        |st| matches!(st, Step::Called { thread: u, call } if u == thread && call == *c),
                    ) < Some(s)
                    && reply_step(o, *thread, c).is_some_and(|r| r > s)
            });
            if charged_it && matches!(reply, Err(ChargeError::InFlight)) {
                return Some(Broken {
                    at: reply_step(o, *thread, c),
                    mark: format!("← aquí responde {}", short(reply)),
                    expected: format!("{} para la llamada que cobró {}", short(&Ok(result)), label(key)),
                    hint: "la llamada que escribió la fila en el ledger recibe su resultado: Err(InFlight) es para otra llamada que llega mientras esta sigue cobrando".to_string(),
                });
            }
            let fine = match reply {
                Ok(r) => same && *r == result,
                Err(ChargeError::InFlight) => same && !began_after(o, *thread, c, done),
                Err(ChargeError::KeyReused) => !same,
            };
            if !fine {
                let (expected, hint) = if !same {
                    (
                        format!("Err(KeyReused) para {} con otra request", label(key)),
                        "la misma key con otra orden u otro monto se rechaza con Err(KeyReused) (el 422), esté la primera en curso o terminada, sin tocar el ledger".to_string(),
                    )
                } else if matches!(reply, Err(ChargeError::InFlight)) {
                    (
                        format!("el replay de {} ({})", label(key), short(&Ok(result))),
                        "un reintento que llega cuando el cobro ya terminó recibe el resultado guardado, no Err(InFlight): guarda el resultado (KeyState::Completed) antes de responder".to_string(),
                    )
                } else {
                    (
                        format!("{} o Err(InFlight) para {}", short(&Ok(result)), label(key)),
                        "un reintento de la misma request recibe el resultado guardado, idéntico, o Err(InFlight) (el 409) mientras el primero sigue cobrando".to_string(),
                    )
                };
                return Some(Broken {
                    at: reply_step(o, *thread, c),
                    mark: format!("← aquí responde {}", short(reply)),
                    expected,
                    hint,
                });
            }
        }
    }
    None
}

/// Lesson 4's check-then-insert: the lookup and the claim apart.
const CHECK_THEN_INSERT: &str = "buscar la key y marcarla en curso tienen que ser un solo paso atómico, con el candado del store tomado entre los dos (lección 4): si buscas, sueltas el candado y después insertas, dos reintentos concurrentes buscan los dos antes de que ninguno inserte… y se cuelan los dos cobros";

/// The hint for a second row of `key` (row `second`), from what the thread
/// that pushed it saw of `key` at its first look in that call: the key there (in flight or stored), charged all
/// the same; the key removed by some thread before that look; or nothing
/// there, where the first request's claim was not yet made (the lookup and
/// the claim apart, check-then-insert).
fn second_charge_hint(o: &Outcome, key: IdempotencyKey, second: usize) -> String {
    let Some(at) = row_step(o, second) else {
        return CHECK_THEN_INSERT.to_string();
    };
    let thread = o.steps[at].thread();
    // Its first look at the key in the call that charged (not a later
    // section of its own, like removing its mark).
    let called = o.steps[..at]
        .iter()
        .rposition(|s| matches!(s, Step::Called { thread: t, .. } if *t == thread))
        .unwrap_or(0);
    let looked = (called..at).find(|&i| {
        matches!(&o.steps[i], Step::Store { thread: t, key: k, .. } if *t == thread && *k == key)
    });
    let Some(looked) = looked else {
        return format!(
            "{} cobró sin mirar {} en el store: un cobro con una key se decide en el store (con su candado tomado), buscándola y marcándola en curso en un solo paso",
            who(thread),
            label(key)
        );
    };
    let Step::Store { found, .. } = &o.steps[looked] else {
        return CHECK_THEN_INSERT.to_string();
    };
    match found {
        Some(KeyState::InFlight(_)) => format!(
            "{} encontró {} en curso (paso {}) y cobró igual: una key en curso responde Err(InFlight) (el 409) sin tocar el ledger; el cobro ya lo está haciendo la primera request",
            who(thread),
            label(key),
            looked + 1
        ),
        Some(KeyState::Completed(..)) => format!(
            "{} encontró {} guardada (paso {}) y cobró igual: una key completada es un replay, devuelve el resultado guardado sin tocar el ledger",
            who(thread),
            label(key),
            looked + 1
        ),
        None => {
            let removed = o.steps[..looked].iter().rposition(|s| {
                matches!(s, Step::Store { wrote, .. } if wrote.iter().any(|(k, now)| *k == key && now.is_none()))
            });
            match removed {
                Some(r) => format!(
                    "{} quitó {} del store (paso {}) antes de que {} la buscara (paso {}): sin la marca, el reintento no la encuentra y cobra otra vez. Una key en curso o completada se queda en el store (Err(InFlight) o Err(KeyReused) no la quitan)",
                    who(o.steps[r].thread()),
                    label(key),
                    r + 1,
                    who(thread),
                    looked + 1
                ),
                None => CHECK_THEN_INSERT.to_string(),
            }
        }
    }
}

/// The step that pushed ledger row `i` (from 0).
fn row_step(o: &Outcome, i: usize) -> Option<usize> {
    let mut rows = 0;
    for (s, step) in o.steps.iter().enumerate() {
        if let Step::Ledger { added, .. } = step {
            rows += added.len();
            if rows > i {
                return Some(s);
            }
        }
    }
    None
}

/// The first answer step whose reply satisfies `f`.
fn answer_step(o: &Outcome, f: impl Fn(&Reply) -> bool) -> Option<usize> {
    o.steps
        .iter()
        .position(|s| matches!(s, Step::Answered { reply, .. } if f(reply)))
}

/// Whether `thread`'s call `c` began after step `done` (a charge returned).
fn began_after(o: &Outcome, thread: u32, c: &Call, done: Option<usize>) -> bool {
    let Some(done) = done else { return false };
    o.steps.iter().enumerate().any(|(s, step)| {
        s > done && matches!(step, Step::Called { thread: t, call } if *t == thread && call == c)
    })
}

/// The answer step of `thread`'s call `c` (its first, when it repeats).
fn reply_step(o: &Outcome, thread: u32, c: &Call) -> Option<usize> {
    let called = o
        .steps
        .iter()
        .position(|s| matches!(s, Step::Called { thread: t, call } if *t == thread && call == c))?;
    o.steps
        .iter()
        .enumerate()
        .skip(called)
        .find(|(_, s)| matches!(s, Step::Answered { thread: t, .. } if *t == thread))
        .map(|(i, _)| i)
}

// ------------------------------------------------------------ the trace

/// `K1` for key 1, else the key itself.
pub fn label(key: IdempotencyKey) -> String {
    if key.0 < 1000 {
        format!("K{}", key.0)
    } else {
        key.to_string()
    }
}

/// A reply in a few words: `ch_0001 $500.00`, `Err(InFlight) (409, en curso)`.
pub(crate) fn short(reply: &Reply) -> String {
    match reply {
        Ok(r) => format!("{} {}", r.charge_id, r.amount),
        Err(ChargeError::InFlight) => "Err(InFlight) (409, en curso)".to_string(),
        Err(ChargeError::KeyReused) => "Err(KeyReused) (422)".to_string(),
    }
}

fn who(thread: u32) -> String {
    match thread {
        0 => "antes".to_string(),
        t => format!("hilo {t}"),
    }
}

fn state(s: &Option<KeyState>) -> String {
    match s {
        None => "no está".to_string(),
        Some(KeyState::InFlight(_)) => "en curso".to_string(),
        Some(KeyState::Completed(_, r)) => format!("guardado {}", r.charge_id),
    }
}

/// One step in the lesson's words, without the thread.
pub fn step_words(step: &Step) -> String {
    match step {
        Step::Called { call, .. } => format!(
            "llama a charge({}, {}, {})",
            label(call.key),
            call.order_id,
            call.amount
        ),
        Step::Store {
            key, found, wrote, ..
        } => {
            let mut parts = Vec::new();
            // Storing a result over nothing or over the in-flight mark is
            // not a lookup; a claim (nothing → in flight) and an overwrite
            // of a stored result show what was found.
            let stores_result = wrote
                .iter()
                .any(|(k, s)| k == key && matches!(s, Some(KeyState::Completed(..))));
            let just_stores = stores_result && !matches!(found, Some(KeyState::Completed(..)));
            let own_mark =
                matches!(found, Some(KeyState::InFlight(_))) && wrote.iter().any(|(k, _)| k == key);
            // A stored result replaced in the same section (by a mark or
            // another result): told as what happened to it, not as a
            // lookup the code may never have made.
            let overwrites = matches!(found, Some(KeyState::Completed(..)))
                && wrote
                    .iter()
                    .any(|(k, now)| k == key && now.as_ref() != found.as_ref());
            if overwrites {
                parts.push(format!("pisa {} (estaba {})", label(*key), state(found)));
            } else if !own_mark && !just_stores {
                parts.push(format!("busca {} → {}", label(*key), state(found)));
            }
            for (k, now) in wrote {
                parts.push(match now {
                    Some(KeyState::InFlight(_)) => format!("marca {} en curso", label(*k)),
                    Some(KeyState::Completed(_, r)) => {
                        format!("guarda {} → {}", label(*k), r.charge_id)
                    }
                    None => format!("quita {} del store", label(*k)),
                });
            }
            parts.join(" y ")
        }
        Step::Ledger { added, .. } if added.is_empty() => "lee el ledger".to_string(),
        Step::Ledger { added, .. } => added
            .iter()
            .map(|r| format!("cobra {}", r.charge_id))
            .collect::<Vec<_>>()
            .join(" y "),
        Step::Lock { .. } => "toma y suelta un candado".to_string(),
        Step::Answered { reply, .. } => format!("recibe {}", short(reply)),
    }
}

fn line(step: &Step) -> String {
    format!("{}: {}", who(step.thread()), step_words(step))
}

/// The history in the replay command's words: threads separated by `/`,
/// calls by `,`, each `K<key>:<order>:<dollars>`; the calls before the
/// threads are the `--antes` option's.
pub fn history_text(calls: &[Call]) -> String {
    calls
        .iter()
        .map(|c| {
            let cents = c.amount.cents();
            let amount = if cents % 100 == 0 {
                (cents / 100).to_string()
            } else {
                format!("{}.{:02}", cents / 100, cents % 100)
            };
            format!("K{}:{}:{amount}", c.key.0, c.order_id.0)
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The command that replays `schedule` of `history` exactly.
pub fn replay_command(history: &History, schedule: &[u32]) -> String {
    let threads: Vec<String> = history.threads.iter().map(|t| history_text(t)).collect();
    let mut cmd = format!(
        "cargo run -p grader -- repetir-horario {}",
        threads.join("/")
    );
    if !history.before.is_empty() {
        let _ = write!(cmd, " --antes {}", history_text(&history.before));
    }
    let schedule: Vec<String> = schedule.iter().map(u32::to_string).collect();
    let _ = write!(cmd, " --horario {}", schedule.join("."));
    cmd
}

/// The lines that tell `o` step by step, `mark` on step `at`: first the
/// critical sections in one line up to the mark (`hilo 1: busca K1 → no
/// está · hilo 2: busca K1 → no está · …`), then every step numbered.
pub fn trace(history: &History, o: &Outcome, at: Option<usize>, mark: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let shown = at.map_or(o.steps.len(), |a| a + 1);
    let sections: Vec<String> = o.steps[..shown]
        .iter()
        .filter(|s| !matches!(s, Step::Called { .. } | Step::Answered { .. }))
        .map(line)
        .collect();
    let marked = if at.is_some() {
        format!("   {mark}")
    } else {
        String::new()
    };
    lines.push(format!("horario: {}{marked}", sections.join(" · ")));
    for (i, step) in o.steps.iter().enumerate() {
        let here = if Some(i) == at {
            format!("   {mark}")
        } else {
            String::new()
        };
        lines.push(format!("{:>3}. {}{here}", i + 1, line(step)));
    }
    let rows: Vec<String> = o
        .ledger
        .iter()
        .map(|r| format!("{} {} {}", r.charge_id, label(r.key), r.amount))
        .collect();
    lines.push(format!(
        "ledger al final: {} fila(s){}{}",
        o.ledger.len(),
        if rows.is_empty() { "" } else { ": " },
        rows.join(" · ")
    ));
    lines.push(format!(
        "repite este horario: {}",
        replay_command(history, &o.schedule)
    ));
    lines
}

/// The history in one line: `antes: …; hilo 1: …; hilo 2: …`.
pub fn describe(history: &History) -> String {
    let calls = |cs: &[Call]| {
        cs.iter()
            .map(|c| format!("charge({}, {}, {})", label(c.key), c.order_id, c.amount))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut parts = Vec::new();
    if !history.before.is_empty() {
        parts.push(format!("antes: {}", calls(&history.before)));
    }
    for (t, cs) in history.threads.iter().enumerate() {
        parts.push(format!("hilo {}: {}", t + 1, calls(cs)));
    }
    parts.join(" · ")
}

/// How the schedules were chosen, in words, each exploration with what it
/// ran: `los 539 horarios posibles (exhaustivo)`, `los primeros 20000
/// horarios en profundidad (la exploración exhaustiva se cortó ahí; hay
/// más)`, `200 horarios aleatorios (semilla 2)`, `200 horarios PCT
/// (semilla 2)`.
fn how(plan: &[Exploration], explored: &[Explored]) -> String {
    plan.iter()
        .zip(explored)
        .map(|(p, e)| match p {
            Exploration::Exhaustive { .. } if e.complete => {
                format!("los {} horarios posibles (exhaustivo)", e.schedules)
            }
            Exploration::Exhaustive { .. } => format!(
                "los primeros {} horarios en profundidad (la exploración exhaustiva se cortó ahí; hay más)",
                e.schedules
            ),
            Exploration::Random { seed, .. } => {
                format!("{} horarios aleatorios (semilla {seed})", e.schedules)
            }
            Exploration::Pct { seed, .. } => {
                format!("{} horarios PCT (semilla {seed})", e.schedules)
            }
            Exploration::Replay { .. } => "el horario repetido".to_string(),
        })
        .collect::<Vec<_>>()
        .join(" + ")
}

/// The verdict of `history`'s broken outcome.
fn counterexample(history: &History, plan: &[Exploration], explored: &[Explored]) -> Verdict {
    let Some((o, b)) = worst(history, explored) else {
        return Verdict::Passed;
    };
    let total: u32 = explored.iter().map(|e| e.schedules).sum();
    let summary = format!(
        "{} hilo(s), {} llamada(s) · {} · {} de {total} horarios llegan a este resultado · se esperaba {}",
        history.threads.len(),
        history.call_count(),
        how(plan, explored),
        o.reached,
        b.expected
    );
    let mut lines = vec![format!("historia: {}", describe(history))];
    lines.extend(trace(history, o, b.at, &b.mark));
    Verdict::Counterexample {
        summary,
        trace: lines,
        hint: b.hint,
    }
}

// -------------------------------------------------------------- generated

/// `count` histories of concurrent retries drawn with `seed`: 2 or 3
/// threads of 1–2 calls over two keys ([`Pick`]: K1–K2 one time in three,
/// otherwise keys, orders and amounts over the contract's whole domain),
/// each key with its request and now and then another amount, another
/// order or both (a reuse, issue 27: racing the first in flight too),
/// and sometimes a call that completes before the threads start (replays
/// after completion).
pub fn generated(seed: u64, count: usize) -> Vec<History> {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    bytes[8..16].copy_from_slice(b"horarios");
    let mut rng = TestRng::from_seed(RngAlgorithm::ChaCha, &bytes);
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let pick = Pick::drawn(&mut rng);
        let before = if below(&mut rng, 3) == 0 {
            vec![pick.call(0, Reuse::No)]
        } else {
            Vec::new()
        };
        let count = 2 + below(&mut rng, 2) as usize;
        let threads = (0..count)
            .map(|_| {
                let calls = 1 + below(&mut rng, 2) as usize;
                (0..calls).map(|_| pick.drawn_call(&mut rng)).collect()
            })
            .collect();
        out.push(History { before, threads });
    }
    out
}

fn below(rng: &mut TestRng, n: u64) -> u64 {
    rng.next_u64() % n
}

/// The two keys of one generated history, each with its request: K1/K2
/// for orders 1/2 at $500 one time in three (the fixed checks' values);
/// otherwise drawn over the contract's domain (any 64-bit key, 0,
/// u64::MAX, keys that share a 32-bit half; order ids 0, u64::MAX or any;
/// amounts from 1 cent to 10^13 cents), so that a store that is careful
/// only with the fixed checks' keys, orders or amounts is found.
struct Pick {
    keys: [u64; 2],
    orders: [u64; 2],
    cents: [i64; 2],
}

impl Pick {
    fn drawn(rng: &mut TestRng) -> Pick {
        if below(rng, 3) == 0 {
            return Pick {
                keys: [1, 2],
                orders: [1, 2],
                cents: [50_000, 50_000],
            };
        }
        let first = match below(rng, 4) {
            0 => u64::MAX,
            1 => 0,
            _ => rng.next_u64(),
        };
        let second = match below(rng, 3) {
            // The same low half, another high half.
            0 => first ^ (1 << 40),
            // The same high half, another low half.
            1 => first ^ 1,
            _ => rng.next_u64(),
        };
        let second = if second == first { first ^ 2 } else { second };
        let order = |rng: &mut TestRng| match below(rng, 4) {
            0 => 0,
            1 => u64::MAX,
            _ => rng.next_u64() >> below(rng, 64),
        };
        let cents = |rng: &mut TestRng| match below(rng, 3) {
            0 => 1,
            _ => 1 + (rng.next_u64() % 10_000_000_000_000) as i64,
        };
        Pick {
            keys: [first, second],
            orders: [order(rng), order(rng)],
            cents: [cents(rng), cents(rng)],
        }
    }

    /// Key `i` with its request, or with another amount, another order or
    /// both (a reuse).
    fn call(&self, i: usize, reuse: Reuse) -> Call {
        let cents = self.cents[i];
        let cents = if !matches!(reuse, Reuse::Amount | Reuse::Both) {
            cents
        } else if cents > 1 {
            cents - 1
        } else {
            2
        };
        let order = self.orders[i];
        let order = if matches!(reuse, Reuse::Order | Reuse::Both) {
            order ^ 1
        } else {
            order
        };
        Call {
            key: IdempotencyKey(self.keys[i]),
            order_id: OrderId(order),
            amount: Money::from_cents(cents),
        }
    }

    /// One of the two keys, with its request or, one time in five, a reuse
    /// (another amount, another order or both, equally often).
    fn drawn_call(&self, rng: &mut TestRng) -> Call {
        let i = below(rng, 2) as usize;
        let reuse = if below(rng, 5) == 0 {
            match below(rng, 3) {
                0 => Reuse::Amount,
                1 => Reuse::Order,
                _ => Reuse::Both,
            }
        } else {
            Reuse::No
        };
        self.call(i, reuse)
    }
}

/// What a generated call changes of its key's request.
#[derive(Clone, Copy)]
enum Reuse {
    /// Nothing: the request itself (a retry).
    No,
    /// The amount.
    Amount,
    /// The order.
    Order,
    /// Both.
    Both,
}

// ----------------------------------------------------------------- replay

/// A history from the replay command's words ([`history_text`]): `threads`
/// (`K1:1:500,K1:1:500/K1:1:300`) and, optionally, the calls `before`.
///
/// # Errors
/// A Spanish message naming the part that is not `K<key>:<order>:<dollars>`.
pub fn parse_history(threads: &str, before: Option<&str>) -> Result<History, String> {
    let calls =
        |text: &str| -> Result<Vec<Call>, String> { text.split(',').map(parse_call).collect() };
    let threads = threads
        .split('/')
        .map(calls)
        .collect::<Result<Vec<_>, _>>()?;
    let before = match before {
        Some(b) if !b.is_empty() => calls(b)?,
        _ => Vec::new(),
    };
    Ok(History { before, threads })
}

fn parse_call(text: &str) -> Result<Call, String> {
    let bad = || {
        format!(
            "la llamada «{text}» no es K<key>:<orden>:<dólares> (por ejemplo K1:1:500 o K2:7:12.50)"
        )
    };
    let mut parts = text.trim().split(':');
    let (Some(key), Some(order), Some(amount), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(bad());
    };
    let key: u64 = key
        .strip_prefix('K')
        .and_then(|k| k.parse().ok())
        .ok_or_else(bad)?;
    let order: u64 = order.parse().map_err(|_| bad())?;
    let cents = match amount.split_once('.') {
        None => amount.parse::<i64>().ok().and_then(|d| d.checked_mul(100)),
        Some((d, c)) if c.len() == 2 => d
            .parse::<i64>()
            .ok()
            .zip(c.parse::<i64>().ok())
            .and_then(|(d, c)| d.checked_mul(100)?.checked_add(c)),
        Some(_) => None,
    }
    .filter(|c| *c > 0)
    .ok_or_else(bad)?;
    Ok(Call {
        key: IdempotencyKey(key),
        order_id: OrderId(order),
        amount: Money::from_cents(cents),
    })
}

/// A schedule from its words (`0.0.1.2.1`).
///
/// # Errors
/// A Spanish message when a part is not a thread number.
pub fn parse_schedule(text: &str) -> Result<Vec<u32>, String> {
    text.split('.')
        .map(|p| {
            p.trim().parse().map_err(|_| {
                format!("el horario «{text}» no es una lista de hilos separados por puntos (por ejemplo 0.0.1.1.2.0)")
            })
        })
        .collect()
}

/// A schedule replayed and told ([`replay`]).
#[derive(Clone, Debug)]
pub struct Replayed {
    /// The history, the trace step by step, the ledger, the replay command
    /// and the verdict (`✓ …` or `✗ se esperaba …` and its hint).
    pub lines: Vec<String>,
    /// Whether lesson 4's rules hold in it.
    pub fine: bool,
    /// The same steps drawn ([`drawing`]): an SVG element.
    pub drawing: String,
}

/// Replays `schedule` of `history` in `h`'s explorer and tells it: the
/// trace, the ledger and whether lesson 4's properties hold, and its
/// drawing.
///
/// # Errors
/// Why the implementation gave no answer.
pub fn replay(h: &dyn Execute, history: &History, schedule: &[u32]) -> Result<Replayed, Verdict> {
    let explorer = explorer_of(h, history)?;
    let o = replayed(explorer, history, schedule, Server::Implementation)?;
    let o = &o;
    let b = broken(history, o);
    let mut lines = vec![format!("historia: {}", describe(history))];
    match &b {
        Some(b) => lines.extend(trace(history, o, b.at, &b.mark)),
        None => lines.extend(trace(history, o, None, "")),
    }
    match &b {
        Some(b) => {
            lines.push(format!("✗ se esperaba {}", b.expected));
            lines.push(format!("pista: {}", b.hint));
        }
        None => lines.push("✓ este horario cumple las reglas de la lección 4".to_string()),
    }
    Ok(Replayed {
        lines,
        fine: b.is_none(),
        drawing: drawing(history, o, b.as_ref().and_then(|b| b.at)),
    })
}

/// `o` drawn as a sequence diagram ([`crate::drawing`]): a column per
/// thread (`antes` first when the history has calls before the threads), a
/// row per step numbered as in [`trace`]; the calls in blue, the ledger's
/// new rows in green, step `at` (where lesson 4's rules break) in red.
pub fn drawing(history: &History, o: &Outcome, at: Option<usize>) -> String {
    use crate::drawing::{Step as Row, Tone, sequence};
    let first = if history.before.is_empty() { 1 } else { 0 };
    let lanes: Vec<String> = (first..=history.threads.len() as u32).map(who).collect();
    let rows: Vec<Row> = o
        .steps
        .iter()
        .enumerate()
        .map(|(i, step)| Row {
            lane: step.thread().saturating_sub(first) as usize,
            margin: format!("{}.", i + 1),
            text: step_words(step),
            tone: match step {
                _ if Some(i) == at => Tone::Wrong,
                Step::Called { .. } => Tone::Sent,
                Step::Ledger { added, .. } if !added.is_empty() => Tone::Charged,
                _ => Tone::Plain,
            },
        })
        .collect();
    sequence(&lanes, &rows)
}

/// The one outcome of `schedule` of `history` on `server`.
pub fn replayed(
    explorer: &dyn Execute,
    history: &History,
    schedule: &[u32],
    server: Server,
) -> Result<Outcome, Verdict> {
    let explored = runner::ask(
        explorer,
        Schedules {
            history: history.clone(),
            explore: Exploration::Replay {
                schedule: schedule.to_vec(),
            },
            server,
        },
    )?;
    explored
        .outcomes
        .into_iter()
        .next()
        .ok_or_else(|| runner::unexpected("el horario no se pudo repetir"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored result replaced in one section is told as overwritten (a
    /// blind insert over `Completed`), not as a lookup.
    #[test]
    fn an_overwritten_result_is_not_told_as_a_lookup() {
        let request = ChargeRequest {
            order_id: OrderId(1),
            amount: Money::from_dollars(500),
        };
        let result = ChargeResult {
            charge_id: sim::ChargeId(1),
            amount: Money::from_dollars(500),
            status: ChargeStatus::Captured,
        };
        let step = Step::Store {
            thread: 2,
            key: IdempotencyKey(1),
            found: Some(KeyState::Completed(request, result)),
            wrote: vec![(IdempotencyKey(1), Some(KeyState::InFlight(request)))],
        };
        assert_eq!(
            step_words(&step),
            "pisa K1 (estaba guardado ch_0001) y marca K1 en curso"
        );
        let claim = Step::Store {
            thread: 1,
            key: IdempotencyKey(1),
            found: None,
            wrote: vec![(IdempotencyKey(1), Some(KeyState::InFlight(request)))],
        };
        assert_eq!(step_words(&claim), "busca K1 → no está y marca K1 en curso");
    }

    /// How the schedules were chosen names each exploration for what it
    /// was: a capped exhaustive search is not told as exhaustive nor seeded.
    #[test]
    fn how_tells_each_exploration_for_what_it_was() {
        let explored = |schedules, complete| Explored {
            schedules,
            complete,
            outcomes: Vec::new(),
        };
        let every = Exploration::Exhaustive { limit: 20_000 };
        assert_eq!(
            how(std::slice::from_ref(&every), &[explored(539, true)]),
            "los 539 horarios posibles (exhaustivo)"
        );
        assert_eq!(
            how(std::slice::from_ref(&every), &[explored(20_000, false)]),
            "los primeros 20000 horarios en profundidad (la exploración exhaustiva se cortó ahí; hay más)"
        );
        let history = History {
            before: Vec::new(),
            threads: vec![vec![call(1, 1, 500)]; 3],
        };
        assert_eq!(
            how(
                &plan(&history, 2),
                &[explored(200, false), explored(200, false)]
            ),
            "200 horarios aleatorios (semilla 2) + 200 horarios PCT (semilla 2)"
        );
    }
    use sim::LedgerEntry;

    fn row(key: u64, id: u64, dollars: i64) -> LedgerEntry {
        LedgerEntry {
            key: IdempotencyKey(key),
            order_id: OrderId(key),
            amount: Money::from_dollars(dollars),
            charge_id: sim::ChargeId(id),
        }
    }

    fn ok(id: u64, dollars: i64) -> Reply {
        Ok(ChargeResult {
            charge_id: sim::ChargeId(id),
            amount: Money::from_dollars(dollars),
            status: ChargeStatus::Captured,
        })
    }

    fn race() -> (History, Outcome) {
        let k1 = call(1, 1, 500);
        let history = History {
            before: Vec::new(),
            threads: vec![vec![k1], vec![k1]],
        };
        let lookup = |thread| Step::Store {
            thread,
            key: IdempotencyKey(1),
            found: None,
            wrote: Vec::new(),
        };
        let outcome = Outcome {
            before: Vec::new(),
            threads: vec![vec![ok(1, 500)], vec![ok(2, 500)]],
            ledger: vec![row(1, 1, 500), row(1, 2, 500)],
            reached: 3,
            schedule: vec![0, 1, 2, 1, 2, 0],
            steps: vec![
                Step::Called {
                    thread: 1,
                    call: k1,
                },
                lookup(1),
                Step::Called {
                    thread: 2,
                    call: k1,
                },
                lookup(2),
                Step::Ledger {
                    thread: 1,
                    added: vec![row(1, 1, 500)],
                },
                Step::Ledger {
                    thread: 2,
                    added: vec![row(1, 2, 500)],
                },
                Step::Answered {
                    thread: 1,
                    reply: ok(1, 500),
                },
                Step::Answered {
                    thread: 2,
                    reply: ok(2, 500),
                },
            ],
        };
        (history, outcome)
    }

    #[test]
    fn the_second_charge_of_a_race_is_marked_in_the_lessons_words() {
        let (history, outcome) = race();
        let b = broken(&history, &outcome).expect("two rows for K1");
        assert_eq!(b.at, Some(5));
        assert_eq!(b.expected, "una sola fila en el ledger para K1");
        let lines = trace(&history, &outcome, b.at, &b.mark);
        assert_eq!(
            lines[0],
            "horario: hilo 1: busca K1 → no está · hilo 2: busca K1 → no está · hilo 1: cobra ch_0001 · hilo 2: cobra ch_0002   ← aquí se cuela el segundo cobro"
        );
        assert_eq!(
            lines[6],
            "  6. hilo 2: cobra ch_0002   ← aquí se cuela el segundo cobro"
        );
        assert_eq!(
            lines.last().map(String::as_str),
            Some(
                "repite este horario: cargo run -p grader -- repetir-horario K1:1:500/K1:1:500 --horario 0.1.2.1.2.0"
            )
        );
    }

    #[test]
    fn one_charge_with_a_conflict_and_a_replay_is_fine() {
        let (history, mut outcome) = race();
        outcome.ledger.pop();
        outcome.threads[1] = vec![Err(ChargeError::InFlight)];
        assert_eq!(broken(&history, &outcome), None);
        outcome.threads[1] = vec![ok(1, 500)];
        assert_eq!(broken(&history, &outcome), None);
        outcome.threads[1] = vec![Err(ChargeError::KeyReused)];
        assert_eq!(
            broken(&history, &outcome).map(|b| b.expected),
            Some("ch_0001 $500 o Err(InFlight) para K1".to_string())
        );
    }

    #[test]
    fn the_replay_command_reads_back_what_it_writes() {
        let history = History {
            before: vec![call(1, 1, 500)],
            threads: vec![
                vec![call(1, 1, 500), call(2, 7, 300)],
                vec![call(1, 1, 300)],
            ],
        };
        let cmd = replay_command(&history, &[0, 1, 1, 2]);
        assert_eq!(
            cmd,
            "cargo run -p grader -- repetir-horario K1:1:500,K2:7:300/K1:1:300 --antes K1:1:500 --horario 0.1.1.2"
        );
        assert_eq!(
            parse_history("K1:1:500,K2:7:300/K1:1:300", Some("K1:1:500")),
            Ok(history)
        );
        assert_eq!(parse_schedule("0.1.1.2"), Ok(vec![0, 1, 1, 2]));
        assert_eq!(
            parse_call("K1:1:12.50").map(|c| c.amount),
            Ok(Money::from_cents(1250))
        );
        assert!(parse_history("K1:1", None).unwrap_err().contains("«K1:1»"));
        assert!(parse_schedule("0.x").is_err());
    }

    #[test]
    fn generated_histories_depend_only_on_the_seed() {
        let a = generated(SEED, HISTORIES);
        assert_eq!(a, generated(SEED, HISTORIES));
        assert_ne!(a, generated(SEED + 1, HISTORIES));
        assert!(a.iter().all(|h| (2..=3).contains(&h.threads.len())));
        assert!(a.iter().any(|h| !h.before.is_empty()));
        assert!(a.iter().any(|h| h.threads.len() == 3));
        let calls: Vec<&Call> = a.iter().flat_map(|h| h.threads.iter().flatten()).collect();
        // A reuse (the same key with another amount) in some history.
        assert!(a.iter().any(|h| {
            let all: Vec<&Call> = h.threads.iter().flatten().chain(&h.before).collect();
            all.iter()
                .any(|c| all.iter().any(|d| d.key == c.key && d.amount != c.amount))
        }));
        // The fixed checks' values and the domain's edges both appear.
        assert!(calls.iter().any(|c| c.key == IdempotencyKey(1)));
        assert!(calls.iter().any(|c| c.key.0 > u64::from(u32::MAX)));
        assert!(calls.iter().any(|c| c.key.0 == u64::MAX || c.key.0 == 0));
        assert!(
            calls
                .iter()
                .any(|c| c.order_id.0 == 0 || c.order_id.0 == u64::MAX)
        );
        assert!(calls.iter().any(|c| c.amount == Money::from_cents(1)));
        assert!(calls.iter().any(|c| c.amount.cents() > 1_000_000_000));
    }

    #[test]
    fn a_smaller_history_drops_a_thread_or_a_call() {
        let (history, _) = race();
        assert_eq!(smaller(&history).len(), 2);
        assert!(
            smaller(&History {
                before: Vec::new(),
                threads: vec![vec![call(1, 1, 500)]]
            })
            .is_empty()
        );
    }
}
