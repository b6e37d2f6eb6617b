//! `grader servicio`: the final project's "después" measured on the
//! student's real payments service (lección 2: "el 'antes' contra el cual
//! medirás tu 'después' en el proyecto final").
//!
//! The kit starts the service ([`process`]) with its own card processor
//! ([`processor`]), plays `orders` with the lesson's fleet over HTTP
//! ([`fleet`]: "antes" without the header, "después" with one key per
//! operation, each on a fresh `DATA_DIR`, a lost answer read whole and then
//! discarded) and runs the checks of the idempotency contract ([`checks`]).
//! The figures come from the processor's record: the money really taken.
//! The table itself is the grader's (`comparar`'s), not a copy.

pub mod checks;
pub mod client;
pub mod fleet;
pub mod html;
pub mod identity;
pub mod process;
pub mod processor;
pub mod report;
pub mod timeline;

use std::path::Path;
use std::time::{Duration, Instant};

use judge::figures::WorldFigures;
use judge::verdict::Verdict;
use sim::Fleet;

use crate::checks::{CHECKS, CheckSpec, Ctx};
use crate::fleet::WorldRun;
use crate::identity::Identity;
use crate::process::{Launch, Service};
use crate::processor::Processor;
use crate::timeline::{Lane, Timeline};

/// What one run needs.
#[derive(Clone, Debug)]
pub struct Config {
    /// How the service starts.
    pub launch: Launch,
    /// The fleet of the "antes" and "después" worlds.
    pub fleet: Fleet,
    /// The limit of the whole run.
    pub run_limit: Duration,
    /// Only these checks (ids); empty: all.
    pub only: Vec<String>,
}

impl Config {
    /// Whether check `id` runs (every check when none was named).
    pub fn wants(&self, id: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|o| o == id)
    }
}

/// One check's outcome.
#[derive(Clone, Debug)]
pub struct CheckResult {
    /// The check.
    pub spec: CheckSpec,
    /// Its verdict.
    pub verdict: Verdict,
}

/// What a run measured.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// The world without idempotency, when it ran.
    pub before: Option<WorldRun>,
    /// The world with a key per operation, when it ran.
    pub after: Option<WorldRun>,
    /// The checks, in [`CHECKS`]'s order.
    pub checks: Vec<CheckResult>,
    /// Every event of the checks (the fleet's events are in the worlds'
    /// own timelines).
    pub timeline: Timeline,
    /// The fleet worlds' timelines, "antes" then "después".
    pub world_timelines: Vec<Timeline>,
}

impl Outcome {
    /// Points earned and possible.
    pub fn score(&self) -> (u32, u32) {
        let max = self.checks.iter().map(|c| c.spec.points).sum();
        let got = self
            .checks
            .iter()
            .filter(|c| c.verdict.passed())
            .map(|c| c.spec.points)
            .sum();
        (got, max)
    }

    /// Whether every check that ran passed.
    pub fn passed(&self) -> bool {
        self.checks.iter().all(|c| c.verdict.passed())
    }
}

/// Runs the worlds and the checks of `config`.
///
/// # Errors
/// The service could not be run at all (the first start failed: a bad
/// command, never ready), in Spanish, for exit status 2.
pub fn run(config: &Config) -> Result<Outcome, String> {
    let deadline = Instant::now() + config.run_limit;
    let wanted = |id: &str| config.wants(id);
    // The judge's own scratch folder: removed at the end, on Ctrl-C (the
    // judge's shutdown) and, after a SIGKILL, by the next judge.
    let scratch = Scratch(
        judge::runner::folders::new_folder(judge::runner::folders::SCRATCH_PREFIX, 0o700)
            .map_err(|e| format!("no se pudo crear una carpeta temporal: {e}"))?,
    );
    let logs = scratch.0.join("salida");
    std::fs::create_dir_all(&logs).map_err(|e| e.to_string())?;
    // Who the services run as (not root: see `identity`); dropped after
    // every service of the run has stopped.
    let identity = Identity::detect()?;
    let mut fresh_dirs = 0u32;
    let mut fresh_dir = || -> Result<std::path::PathBuf, String> {
        fresh_dirs += 1;
        identity.data_dir(&scratch.0, &format!("data-{fresh_dirs}"))
    };
    let mut outcome = Outcome {
        before: None,
        after: None,
        checks: Vec::new(),
        timeline: Timeline::new(),
        world_timelines: Vec::new(),
    };
    let mut verdicts: Vec<(&'static str, Verdict)> = Vec::new();
    let mut started_once = false;
    let mut start = |dir: &Path, processor: &Processor, timeline: &Timeline| {
        // No wait and no request goes past the run's end.
        let mut launch = config.launch.clone();
        launch.ready_within = launch
            .ready_within
            .min(deadline.saturating_duration_since(Instant::now()));
        let s = Service::start(&launch, &identity, dir, processor.url(), &logs, timeline).map(
            |mut s| {
                s.client = s.client.clone().until(deadline);
                s
            },
        );
        let first = !started_once;
        started_once = true;
        s.map_err(|e| {
            // Who it ran as, when not the kit's own user.
            let e = match identity.said() {
                Some(line) => format!("{e}\n{line}"),
                None => e,
            };
            // The wait was cut to what was left of the run: say so (the
            // first start's error ends the run with exit 2).
            let cut = launch.ready_within < config.launch.ready_within;
            if cut && Instant::now() >= deadline {
                (
                    format!(
                        "se acabó el tiempo de toda la corrida (--limite-corrida, {} s) mientras el servicio arrancaba: {e}",
                        process::seconds(config.run_limit)
                    ),
                    first,
                )
            } else {
                (e, first)
            }
        })
    };

    // The fleet, before and after.
    if wanted("flota-sin-key") || wanted("flota-con-key") {
        let expected = judge::oracle::expect(&config.fleet);
        for (with_keys, id) in [(false, "flota-sin-key"), (true, "flota-con-key")] {
            let timeline = Timeline::new();
            let processor = Processor::start(timeline.clone())?;
            let dir = fresh_dir()?;
            let mut service = match start(&dir, &processor, &timeline) {
                Ok(s) => s,
                Err((e, true)) => return Err(e),
                Err((e, false)) => {
                    verdicts.push((id, not_started(&e, deadline, config.run_limit)));
                    continue;
                }
            };
            let run = fleet::play(
                &config.fleet,
                &service.client,
                &processor,
                with_keys,
                deadline,
                &timeline,
            );
            let want = if with_keys {
                expected.after
            } else {
                expected.before
            };
            let verdict = match &run {
                Ok(w) => fleet_verdict(w, &want, with_keys),
                Err(e) => unanswered(e, &mut service, deadline, config.run_limit),
            };
            service.stop();
            verdicts.push((id, verdict));
            outcome.world_timelines.push(timeline);
            if let Ok(w) = run {
                if with_keys {
                    outcome.after = Some(w);
                } else {
                    outcome.before = Some(w);
                }
            }
        }
    }

    let timeline = outcome.timeline.clone();
    let processor = Processor::start(timeline.clone())?;
    let ctx = Ctx {
        processor: &processor,
        timeline: &timeline,
        deadline,
        wait_for_charge: config.launch.request_limit,
    };
    // What the service answered during a check (from `mark` on) against
    // the processor's record: a charge it never made is said as observed.
    // Before both, a request that broke the contract (no HTTP answer, a
    // success without the contract's body): what the service answered
    // comes first.
    let answers_first = |(mark, broken): (usize, usize), v: Verdict| {
        let v = checks::unknown_charge(v, &timeline.answered()[mark..], &processor.ledger());
        checks::broken_answer(v, &timeline.broken()[broken..])
    };
    let marks = || (timeline.answered().len(), timeline.broken().len());
    // A check the run's end cut short is reported as such, not as the
    // service's mistake.
    let cut = |v: Verdict| {
        let stopped = matches!(
            v,
            Verdict::Passed | Verdict::TimedOut { .. } | Verdict::Crashed { .. }
        );
        if !stopped && Instant::now() >= deadline {
            run_limit(config.run_limit, "en medio de esta verificación")
        } else {
            v
        }
    };

    // One instance for the checks that need one.
    let single = [
        "un-comprador",
        "reintento-mismo-cargo",
        "otra-solicitud-422",
        "reintentos-concurrentes",
        "cliente-que-abandona",
    ];
    if single.iter().any(|id| wanted(id)) {
        let dir = fresh_dir()?;
        match start(&dir, &processor, &timeline) {
            Err((e, true)) => return Err(e),
            Err((e, false)) => {
                for (i, id) in single.iter().filter(|id| wanted(id)).enumerate() {
                    // Cut by the run's end: the first was starting, the
                    // others never ran.
                    let v = if i > 0 && Instant::now() >= deadline {
                        out_of_time(config.run_limit)
                    } else {
                        not_started(&e, deadline, config.run_limit)
                    };
                    verdicts.push((id, v));
                }
            }
            Ok(mut service) => {
                for id in single.iter().copied().filter(|id| wanted(id)) {
                    // A service that ended in an earlier check starts again
                    // on a fresh DATA_DIR: a crash costs only the check it
                    // happened in.
                    if service.exited().is_some() && Instant::now() < deadline {
                        service.stop();
                        let dir = fresh_dir()?;
                        match start(&dir, &processor, &timeline) {
                            Ok(again) => service = again,
                            Err((e, _)) => {
                                verdicts.push((id, not_started(&e, deadline, config.run_limit)));
                                continue;
                            }
                        }
                    }
                    let c = service.client.clone();
                    let mark = marks();
                    let v = if Instant::now() >= deadline {
                        out_of_time(config.run_limit)
                    } else {
                        match id {
                            "un-comprador" => checks::one_buyer(&ctx, &c),
                            "reintento-mismo-cargo" => checks::retry_same_charge(&ctx, &c),
                            "otra-solicitud-422" => checks::other_body(&ctx, &c),
                            "reintentos-concurrentes" => checks::concurrent(
                                &ctx,
                                &[&c, &c, &c],
                                "ord_9301",
                                "idem_concurrentes_9301",
                                checks::hints::ATOMIC,
                            ),
                            _ => checks::gives_up(&ctx, &c),
                        }
                    };
                    let v = cut(died(answers_first(mark, v), &mut [&mut service]));
                    verdicts.push((id, v));
                }
                service.stop();
            }
        }
    }

    if wanted("dos-instancias") {
        let mark = marks();
        let v = if Instant::now() >= deadline {
            out_of_time(config.run_limit)
        } else {
            let dir = fresh_dir()?;
            match start(&dir, &processor, &timeline) {
                Err((e, true)) => return Err(e),
                Err((e, false)) => not_started(&e, deadline, config.run_limit),
                Ok(mut one) => {
                    let v = match start(&dir, &processor, &timeline) {
                        Err((e, _)) => not_started(
                            &format!("la segunda instancia: {e}"),
                            deadline,
                            config.run_limit,
                        ),
                        Ok(mut two) => {
                            let (a, b) = (one.client.clone(), two.client.clone());
                            let v = checks::concurrent(
                                &ctx,
                                &[&a, &b, &b],
                                "ord_9501",
                                "idem_dos_instancias_9501",
                                checks::hints::SHARED,
                            );
                            let v = died(v, &mut [&mut one, &mut two]);
                            two.stop();
                            v
                        }
                    };
                    one.stop();
                    v
                }
            }
        };
        verdicts.push(("dos-instancias", cut(answers_first(mark, v))));
    }

    if wanted("reinicio") {
        let mark = marks();
        let v = if Instant::now() >= deadline {
            out_of_time(config.run_limit)
        } else {
            let dir = fresh_dir()?;
            match start(&dir, &processor, &timeline) {
                Err((e, true)) => return Err(e),
                Err((e, false)) => not_started(&e, deadline, config.run_limit),
                Ok(mut one) => restart(&ctx, &mut one, |t| {
                    start(&dir, &processor, t).map_err(|e| e.0)
                }),
            }
        };
        verdicts.push(("reinicio", cut(answers_first(mark, v))));
    }

    // A plain retry that charged again (reintento-mismo-cargo fails before
    // its second key, two charges) is what the harder checks' failures
    // show first: their own hints would name a cause not observed.
    let plain_retry_charged = verdicts.iter().any(|(id, v)| {
        *id == "reintento-mismo-cargo"
            && matches!(v, Verdict::Failed { hint, .. } if hint == checks::hints::STORE)
    }) && processor.charges_for(checks::PLAIN_RETRY_ORDER).len() >= 2;
    // Two instances that charged twice where one process alone already
    // did (the race of reintentos-concurrentes): not a lock inside one
    // process.
    let one_process_raced = verdicts.iter().any(|(id, v)| {
        *id == "reintentos-concurrentes"
            && matches!(v, Verdict::Failed { hint, .. } if hint == checks::hints::ATOMIC)
    });
    if one_process_raced {
        for (id, v) in &mut verdicts {
            if let ("dos-instancias", Verdict::Failed { hint, .. }) = (*id, v)
                && hint == checks::hints::SHARED
            {
                *hint = checks::hints::RACE_FIRST.to_string();
            }
        }
    }
    if plain_retry_charged {
        // Only the hints about what the service did with the key: one
        // about its answers (none, a bad body, a charge never made) stays.
        use checks::hints::{
            ATOMIC, DURABLE, DURABLE_RESULT, GIVE_UP, OTHER_BODY, RACE_FIRST, SHARED, STORE,
        };
        let about_the_key = [
            RACE_FIRST,
            ATOMIC,
            DURABLE,
            DURABLE_RESULT,
            GIVE_UP,
            OTHER_BODY,
            SHARED,
            STORE,
        ];
        for (id, v) in &mut verdicts {
            if let (
                "otra-solicitud-422"
                | "reintentos-concurrentes"
                | "dos-instancias"
                | "reinicio"
                | "cliente-que-abandona",
                Verdict::Failed { hint, .. },
            ) = (*id, v)
                && about_the_key.contains(&hint.as_str())
            {
                *hint = checks::hints::PLAIN_RETRY_FIRST.to_string();
            }
        }
    }
    drop(processor);
    outcome.checks = CHECKS
        .iter()
        .filter(|spec| wanted(spec.id))
        .filter_map(|spec| {
            verdicts
                .iter()
                .find(|(id, _)| *id == spec.id)
                .map(|(_, v)| CheckResult {
                    spec: *spec,
                    verdict: v.clone(),
                })
        })
        .collect();
    Ok(outcome)
}

/// The outcome of a run whose service never started (what [`run`] gives as
/// an error): every check of `config` failed with `message`, for the
/// machine-read reports (Gradescope, Classroom 50, JSON, JUnit), which
/// must still say something to the student.
pub fn unstarted(config: &Config, message: &str) -> Outcome {
    let wanted = |id: &str| config.wants(id);
    Outcome {
        before: None,
        after: None,
        checks: CHECKS
            .iter()
            .filter(|spec| wanted(spec.id))
            .map(|spec| CheckResult {
                spec: *spec,
                verdict: start_failed(message),
            })
            .collect(),
        timeline: Timeline::new(),
        world_timelines: Vec::new(),
    }
}

/// A folder of [`judge::runner::folders`], removed when dropped.
struct Scratch(std::path::PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        judge::runner::folders::remove_folder(&self.0);
    }
}

/// A check the run's end left out.
fn out_of_time(limit: Duration) -> Verdict {
    run_limit(limit, "antes de esta verificación, que no corrió")
}

/// The run stopped at its limit (`--limite-corrida`) `when`.
fn run_limit(limit: Duration, when: &str) -> Verdict {
    Verdict::TimedOut {
        limit_ms: limit.as_millis().min(u128::from(u64::MAX)) as u64,
        case: Some(format!(
            "{when}: se acabó el tiempo de toda la corrida (--limite-corrida)"
        )),
    }
}

/// A failed check's verdict when one of `services` ended during it: the
/// crash, with its status and last lines, not the answers it left
/// unanswered.
fn died(v: Verdict, services: &mut [&mut Service]) -> Verdict {
    if v.passed() {
        return v;
    }
    match ended(services) {
        Some((i, status)) => crashed(services[i], &status, "esta verificación"),
        None => v,
    }
}

/// The first of `services` that has ended, and how, waiting a moment for
/// it: a process that closed its connections on the way out may not have
/// ended yet.
fn ended(services: &mut [&mut Service]) -> Option<(usize, String)> {
    let until = Instant::now() + Duration::from_millis(500);
    loop {
        for (i, service) in services.iter_mut().enumerate() {
            if let Some(status) = service.exited() {
                return Some((i, status));
            }
        }
        if Instant::now() >= until {
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `message`'s first line as what was got, the rest (the service's last
/// lines) as steps.
fn observed(expected: &str, message: &str, hint: &str) -> Verdict {
    let mut lines = message.lines();
    let got = lines.next().unwrap_or_default().to_string();
    Verdict::failed(expected, got, hint).with_steps(lines.map(str::to_string).collect())
}

/// A service that did not start for a check: it exited (a crash), never
/// got ready, or the run's end came first.
fn not_started(message: &str, deadline: Instant, limit: Duration) -> Verdict {
    if Instant::now() >= deadline {
        return run_limit(limit, "al arrancar el servicio");
    }
    start_failed(message)
}

/// A start that failed for another reason than the run's end.
fn start_failed(message: &str) -> Verdict {
    observed(
        "el servicio arranca y responde 200 en GET /health",
        message,
        checks::hints::START,
    )
}

/// The service's process ended (`status`) in the middle of `during`: a
/// crash, with its last lines.
fn crashed(service: &Service, status: &str, during: &str) -> Verdict {
    Verdict::Crashed {
        what: format!(
            "el servicio terminó ({status}) en medio de {during}.{}",
            service.tail_section()
        ),
    }
}

/// A request of the fleet that got no HTTP answer: the run's end, the
/// service's process ended (a crash), or the service's answer (none in
/// time, too big, a cut connection).
fn unanswered(message: &str, service: &mut Service, deadline: Instant, limit: Duration) -> Verdict {
    if Instant::now() >= deadline {
        return run_limit(limit, "en medio de la flota");
    }
    if let Some((_, status)) = ended(&mut [&mut *service]) {
        return crashed(service, &status, &format!("la flota: {message}"));
    }
    observed(
        "una respuesta HTTP a cada intento de la flota",
        &format!("{message}.{}", service.tail_section()),
        checks::hints::ANSWER,
    )
}

/// `reinicio`: a charge whose answer is lost, SIGKILL, a new instance on
/// the same `DATA_DIR`, the retry.
fn restart(
    ctx: &Ctx,
    one: &mut Service,
    mut start_again: impl FnMut(&Timeline) -> Result<Service, String>,
) -> Verdict {
    let (order, key, amount) = (
        "ord_9601",
        "idem_reinicio_9601",
        sim::Money::from_dollars(75),
    );
    let first = one.client.charge(1, order, amount, Some(key));
    ctx.timeline
        .push(Lane::Orders(1), order, "perdida", checks::dropped(&first));
    one.kill();
    ctx.timeline.push(
        Lane::Kit,
        order,
        "nota",
        "mata el servicio (SIGKILL) y lo arranca otra vez sobre el mismo DATA_DIR",
    );
    let mut two = match start_again(ctx.timeline) {
        Ok(s) => s,
        Err(e) => {
            return observed(
                "el servicio vuelve a arrancar sobre el mismo DATA_DIR",
                &e,
                checks::hints::START,
            );
        }
    };
    let retry = two.client.charge(1, order, amount, Some(key));
    checks::record(ctx.timeline, 1, order, &retry);
    two.stop();
    let charges = ctx.processor.charges_for(order);
    let ok = charges.len() == 1
        && retry
            .as_ref()
            .ok()
            .and_then(|a| a.charge.as_ref())
            .is_some_and(|c| c.charge_id == charges[0].charge_id);
    if ok {
        return Verdict::Passed;
    }
    Verdict::failed(
        "1 cargo; el reintento tras el reinicio devuelve su charge_id",
        format!(
            "{} cargo(s) en el procesador; el reintento respondió {}",
            charges.len(),
            checks::answer_line(&retry)
        ),
        match charges.len() {
            0 => checks::hints::NO_CHARGE,
            1 => checks::hints::DURABLE_RESULT,
            _ => checks::hints::DURABLE,
        },
    )
    .with_steps(ctx.timeline.steps(order))
}

/// The verdict of one fleet world against the oracle's figures.
fn fleet_verdict(w: &WorldRun, want: &WorldFigures, with_keys: bool) -> Verdict {
    let got = &w.figures;
    let line = |f: &WorldFigures| {
        format!(
            "{} intentos, {} cargos, {} órdenes cobradas 2+ veces, cobrado {}, sobrecobro {}",
            sim::money::group_thousands(f.attempts),
            sim::money::group_thousands(f.charges),
            sim::money::group_thousands(f.orders_charged_twice_or_more),
            f.charged,
            f.overcharge
        )
    };
    let same = got.attempts == want.attempts
        && got.charges == want.charges
        && got.orders_charged_twice_or_more == want.orders_charged_twice_or_more
        && got.charged == want.charged
        && got.overcharge == want.overcharge;
    if same && w.problem_count == 0 {
        return Verdict::Passed;
    }
    // Answers that broke the contract (a 5xx, a bad body) come before
    // what the service did with the key.
    let hint = if w.problem_count > 0 {
        checks::hints::CONTRACT
    } else if with_keys {
        checks::hints::STORE
    } else {
        checks::hints::NO_KEY
    };
    let mut steps: Vec<String> = Vec::new();
    if w.problem_count > 0 {
        steps.push(format!(
            "{} respuestas entregadas rompen el contrato; las primeras:",
            w.problem_count
        ));
        steps.extend(w.problems.iter().take(5).cloned());
    }
    // The first order whose charges differ from what it should have.
    let per_order = |order: &fleet::OrderTrace| {
        w.ledger
            .iter()
            .filter(|c| c.order_id == order.order_id)
            .count()
    };
    if let Some(o) = w.orders.iter().find(|o| {
        let want_n = if with_keys { 1 } else { o.attempts.len() };
        per_order(o) != want_n
    }) {
        steps.push(format!(
            "la primera orden con otros cargos: {} ({} intentos, {} cargos, key {})",
            o.order_id,
            o.attempts.len(),
            per_order(o),
            o.key.as_deref().unwrap_or("ninguna")
        ));
        for (i, a) in o.attempts.iter().enumerate() {
            steps.push(format!(
                "  intento {}: {}{}{}",
                i + 1,
                a.status,
                a.charge_id
                    .as_deref()
                    .map(|c| format!(" {c}"))
                    .unwrap_or_default(),
                if a.lost { " (perdida)" } else { "" }
            ));
        }
    }
    let answered: Vec<(String, String)> = w
        .orders
        .iter()
        .flat_map(|o| {
            o.attempts
                .iter()
                .filter_map(|a| a.charge_id.clone().map(|id| (o.order_id.clone(), id)))
        })
        .collect();
    checks::unknown_charge(
        Verdict::failed(line(want), line(got), hint).with_steps(steps),
        &answered,
        &w.ledger,
    )
}
