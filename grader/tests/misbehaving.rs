//! Student code that misbehaves cannot take the report down (issue 3): for
//! each of `todo!()`, a panic, an endless loop, a stack overflow, an abort,
//! `std::process::exit` and unbounded memory, a kit that is the reference
//! except for one misbehaving exercise is graded with every check in its own
//! child process. The misbehaviour must be reported on its exercise, in
//! Spanish, while the other exercises are still graded and pass. And code
//! that prints megabytes of debugging lines still gets its verdicts.
//!
//! A test without the standard harness, because the children are this very
//! executable: with `KIT_GRADER_CHECK` set it runs one check of the kit named
//! by its first argument and prints the verdict line; otherwise it grades
//! every kit and prints `N passed, M failed`, exiting non-zero on a failure.
//! Run it alone with `cargo test -p grader --test misbehaving`.

mod support;

use std::time::Duration;

use grader::checks::{Catalog, CheckTarget};
use grader::grading::{Graded, grade_isolated};
use grader::isolation::{self, Runner};
use grader::oracle;
use grader::output;
use grader::report::{self, sheet::Sheet};
use grader::rubric::Rubric;
use grader::variants::Plan;
use grader::verdict::{Exercise, Verdict};
use sim::{
    ChargeOutcome, ChargeResult, IdempotencyKey, LedgerEntry, Money, Order, OrderId, Payments,
    Reconciliation,
};
use support::{Changed, ServerChange};

/// Per-check time limit of the endless loop's children: short, so the loop
/// costs little, and still far above what a real check takes (~20 ms).
const TIMEOUT: Duration = Duration::from_millis(1000);
/// The limit for the other kits, which never need it: generous, so a busy
/// machine cannot turn a slow start into a false time-out.
const GENEROUS: Duration = Duration::from_secs(10);

/// The fixtures graded here: the lesson's one buyer and the smallest fleet.
const SCENARIOS: [&str; 2] = ["escenario-a", "flota-77-sin-reintentos-suficientes"];

// ------------------------------------------------------ misbehaving pieces

/// Server: unwraps a store lookup that fails for every new key.
struct PanicsOnNewKey;

impl ServerChange for PanicsOnNewKey {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if s.idempotent {
            let stored = s.results.get(&k).copied();
            return stored.unwrap();
        }
        s.inner.charge(k, o, a)
    }
}

/// Server: ends the whole process when a key comes back.
struct ExitsOnReplay;

impl ServerChange for ExitsOnReplay {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if s.idempotent && s.results.contains_key(&k) {
            std::process::exit(3);
        }
        let result = s.inner.charge(k, o, a);
        s.results.insert(k, result);
        result
    }
}

client! {
    /// Client: still the stub.
    fn still_todo(_server, _network, _keys, _order, _max_attempts) {
        todo!("Ejercicio 2: charge_order")
    }
}

client! {
    /// Client: retries by recursing, but recurses first and with the same
    /// budget, so it never reaches a send (a recursion without a base case).
    fn recursive_retry(server, network, keys, order, max_attempts) {
        if max_attempts == 0 {
            return ChargeOutcome {
                attempts: 0,
                confirmed: None,
            };
        }
        let earlier = recursive_retry(server, network, keys, order, max_attempts);
        let key = keys.new_key();
        let confirmed = earlier
            .confirmed
            .or_else(|| network.send(server, key, order.id, order.amount));
        ChargeOutcome {
            attempts: earlier.attempts + 1,
            confirmed,
        }
    }
}

client! {
    /// Client: keeps a log buffer per attempt that never stops growing.
    fn hoards_memory(server, network, keys, order, max_attempts) {
        let mut log: Vec<Vec<u8>> = Vec::new();
        while log.len() < usize::MAX {
            log.push(Vec::with_capacity(64 << 20));
        }
        solutions::client::charge_order(server, network, keys, order, max_attempts)
    }
}

/// Reconciliation: walks the ledger with an index whose increment sits under
/// the wrong condition, so it never advances.
fn never_advances(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let mut charged = Money::ZERO;
    let mut i = 0;
    while i < ledger.len() {
        charged += ledger[i].amount;
        if charged == Money::ZERO {
            i += 1;
        }
    }
    solutions::reconciliation::reconcile(orders, ledger)
}

/// Reconciliation: aborts the process on the first order charged twice.
fn aborts_on_double_charge(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = solutions::reconciliation::reconcile(orders, ledger);
    if r.orders_charged_twice_or_more > 0 {
        std::process::abort();
    }
    r
}

/// Reconciliation: right, but prints a debugging line per ledger row, and
/// then some: megabytes on stdout before the verdict.
fn chatty(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    for row in ledger.iter().cycle().take(40_000) {
        println!(
            "depurando: {} {} {} {}",
            row.charge_id, row.order_id, row.amount, row.key
        );
    }
    solutions::reconciliation::reconcile(orders, ledger)
}

kit!(TodoClient { client: still_todo });
kit!(PanicServer {
    server: PanicsOnNewKey
});
kit!(LoopingReconcile {
    reconcile: never_advances
});
kit!(StackOverflowClient {
    client: recursive_retry
});
kit!(AbortingReconcile {
    reconcile: aborts_on_double_charge
});
kit!(ExitingServer {
    server: ExitsOnReplay
});
kit!(MemoryHungryClient {
    client: hoards_memory
});
kit!(ChattyReconcile { reconcile: chatty });

// ------------------------------------------------------------ expectations

/// What a misbehaviour must look like in the report.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Pending,
    Panicked,
    TimedOut,
    Crashed,
}

fn kind_of(v: &Verdict) -> Option<Kind> {
    match v {
        Verdict::Passed | Verdict::Failed { .. } => None,
        Verdict::Pending { .. } => Some(Kind::Pending),
        Verdict::Panicked { .. } => Some(Kind::Panicked),
        Verdict::TimedOut { .. } => Some(Kind::TimedOut),
        Verdict::Crashed { .. } => Some(Kind::Crashed),
    }
}

struct Case {
    /// The misbehaviour, in the words.
    what: &'static str,
    /// The kit's name, passed to the children.
    kit: &'static str,
    grade: fn(&Catalog, &Runner) -> Graded,
    exercise: Exercise,
    kind: Kind,
    /// The exercise's fixed checks the misbehaviour does not reach.
    unharmed: &'static [&'static str],
    /// Whether it spares the whole-scenario checks where no response is
    /// lost (none of the fixtures graded here is such a scenario).
    spares_calm_scenarios: bool,
    /// Text every harmed check's explanation must contain.
    says: &'static str,
}

const CASES: &[Case] = &[
    Case {
        what: "todo!()",
        kit: "TodoClient",
        grade: grade_isolated::<TodoClient>,
        exercise: Exercise::Cliente,
        kind: Kind::Pending,
        unharmed: &[],
        spares_calm_scenarios: false,
        says: "todavía es todo!() (grader/tests/misbehaving.rs:",
    },
    Case {
        what: "pánico",
        kit: "PanicServer",
        grade: grade_isolated::<PanicServer>,
        exercise: Exercise::Cobro,
        kind: Kind::Panicked,
        unharmed: &["cobro/sin-idempotencia-cada-llamada-cobra"],
        spares_calm_scenarios: false,
        says: "pánico en grader/tests/misbehaving.rs:",
    },
    Case {
        what: "bucle infinito",
        kit: "LoopingReconcile",
        grade: grade_isolated::<LoopingReconcile>,
        exercise: Exercise::Reconciliacion,
        kind: Kind::TimedOut,
        unharmed: &["reconciliacion/entradas-vacias-dan-ceros"],
        spares_calm_scenarios: false,
        says: "no terminó en 1 s y se detuvo (¿un bucle infinito? ¿un reintento que nunca se rinde?); cambia el límite con --timeout",
    },
    Case {
        what: "desbordamiento de pila",
        kit: "StackOverflowClient",
        grade: grade_isolated::<StackOverflowClient>,
        exercise: Exercise::Cliente,
        kind: Kind::Crashed,
        unharmed: &[],
        spares_calm_scenarios: false,
        says: "el proceso murió: desbordó la pila (stack overflow): ¿una recursión sin caso base?",
    },
    Case {
        what: "abort",
        kit: "AbortingReconcile",
        grade: grade_isolated::<AbortingReconcile>,
        exercise: Exercise::Reconciliacion,
        kind: Kind::Crashed,
        unharmed: &[
            "reconciliacion/entradas-vacias-dan-ceros",
            "reconciliacion/filas-de-ordenes-desconocidas",
        ],
        spares_calm_scenarios: true,
        says: "el proceso murió: abortó (std::process::abort o un error fatal del runtime)",
    },
    Case {
        what: "std::process::exit",
        kit: "ExitingServer",
        grade: grade_isolated::<ExitingServer>,
        exercise: Exercise::Cobro,
        kind: Kind::Crashed,
        unharmed: &[
            "cobro/sin-idempotencia-cada-llamada-cobra",
            "cobro/key-nueva-se-cobra-y-se-registra",
        ],
        spares_calm_scenarios: true,
        says: "el proceso murió: el código terminó el proceso con std::process::exit(3) antes de entregar un resultado",
    },
    Case {
        what: "memoria sin límite",
        kit: "MemoryHungryClient",
        grade: grade_isolated::<MemoryHungryClient>,
        exercise: Exercise::Cliente,
        kind: Kind::Crashed,
        unharmed: &[],
        spares_calm_scenarios: false,
        says: "el proceso murió: se quedó sin memoria: superó el límite de 2 GiB",
    },
];

// ---------------------------------------------------------------- running

fn catalog() -> Catalog {
    let scenarios = support::fixtures()
        .into_iter()
        .filter(|s| SCENARIOS.contains(&s.name.as_str()))
        .collect();
    Catalog::new(scenarios, &[])
}

/// The child: runs check `id` of kit `kit`.
fn child(kit: &str, id: &str) {
    let catalog = catalog();
    match kit {
        "TodoClient" => isolation::child_check::<TodoClient>(&catalog, id),
        "PanicServer" => isolation::child_check::<PanicServer>(&catalog, id),
        "LoopingReconcile" => isolation::child_check::<LoopingReconcile>(&catalog, id),
        "StackOverflowClient" => isolation::child_check::<StackOverflowClient>(&catalog, id),
        "AbortingReconcile" => isolation::child_check::<AbortingReconcile>(&catalog, id),
        "ExitingServer" => isolation::child_check::<ExitingServer>(&catalog, id),
        "MemoryHungryClient" => isolation::child_check::<MemoryHungryClient>(&catalog, id),
        "ChattyReconcile" => isolation::child_check::<ChattyReconcile>(&catalog, id),
        other => panic!("unknown kit {other}"),
    }
}

/// The lines of exercise `e`'s section of a plain-text report.
fn section(report: &str, e: Exercise) -> String {
    let start = format!("Ejercicio {} ·", e.number());
    report
        .split("\nEjercicio ")
        .map(|s| format!("Ejercicio {s}"))
        .find(|s| s.starts_with(&start))
        .unwrap_or_default()
}

/// Grades `case`'s kit in children and checks report and status.
fn judge(case: &Case, catalog: &Catalog) -> Result<String, String> {
    let runner = Runner {
        program: std::env::current_exe().map_err(|e| e.to_string())?,
        args: vec![case.kit.into()],
        timeout: if case.kind == Kind::TimedOut {
            TIMEOUT
        } else {
            GENEROUS
        },
        workers: 2,
    };
    let graded = (case.grade)(catalog, &runner);
    let mut problems = Vec::new();
    let mut harmed = 0;
    let mut example = String::new();
    for (check, verdict) in &graded.results {
        let spared = match check.target {
            CheckTarget::Scenario(i) => {
                let e = oracle::expect(&catalog.scenarios[i]);
                case.spares_calm_scenarios && e.before.attempts == e.orders
            }
            CheckTarget::Fixed(_) => case.unharmed.contains(&check.id.as_str()),
        };
        let should_pass = check.exercise != case.exercise || spared;
        if should_pass {
            if !verdict.passed() {
                problems.push(format!("{} should pass: {verdict:?}", check.id));
            }
            continue;
        }
        harmed += 1;
        if kind_of(verdict) != Some(case.kind) {
            problems.push(format!(
                "{}: want {:?}, got {verdict:?}",
                check.id, case.kind
            ));
        }
        let text = verdict.explanation().join(" ");
        if example.is_empty() {
            example = format!("{}: {text}", check.id);
        }
        if !text.contains(case.says) {
            problems.push(format!(
                "{}: explanation {text:?} lacks {:?}",
                check.id, case.says
            ));
        }
    }
    let (passed, total) = graded.score();
    if harmed == 0 || graded.all_passed() || passed != total - harmed {
        problems.push(format!(
            "score {passed}/{total} with {harmed} harmed checks"
        ));
    }
    let rubric = Rubric::kit().map_err(|e| e.to_string())?;
    let sheet = Sheet::new(&graded, &rubric, &Plan::default(), &[]);
    let text = output::strip_colours(&report::text::render(&sheet));
    let own = section(&text, case.exercise);
    let shown = if case.kind == Kind::Pending {
        "… PENDIENTE: charge_order todavía es todo!() (grader/tests/misbehaving.rs:"
    } else {
        case.says
    };
    if !own.contains(shown) {
        problems.push(format!("the report's section lacks {shown:?}:\n{own}"));
    }
    for other in Exercise::ALL.into_iter().filter(|e| *e != case.exercise) {
        let s = section(&text, other);
        let n = graded.of(other).count();
        if s.contains('✗') || !s.contains(&format!("{n}/{n} verificaciones")) {
            problems.push(format!(
                "exercise {} is not shown passing:\n{s}",
                other.id()
            ));
        }
    }
    if !text.contains(&format!("{passed}/{total} verificaciones")) {
        problems.push(format!(
            "the report's score is not {passed}/{total}:\n{text}"
        ));
    }
    if problems.is_empty() {
        Ok(format!(
            "{harmed} verificaciones afectadas, puntaje {passed}/{total}\n    {example}"
        ))
    } else {
        Err(problems.join("\n"))
    }
}

/// Code that prints megabytes (debugging lines) still gets its verdicts:
/// the answer line comes after the output and must not be lost.
fn chatty_code_keeps_its_verdicts(catalog: &Catalog) -> Result<String, String> {
    let runner = Runner {
        program: std::env::current_exe().map_err(|e| e.to_string())?,
        args: vec!["ChattyReconcile".into()],
        timeout: GENEROUS,
        workers: 2,
    };
    let graded = grade_isolated::<ChattyReconcile>(catalog, &runner);
    let wrong: Vec<String> = graded
        .results
        .iter()
        .filter(|(_, v)| !v.passed())
        .map(|(c, v)| format!("{}: {v:?}", c.id))
        .collect();
    if wrong.is_empty() {
        let (passed, total) = graded.score();
        Ok(format!("puntaje {passed}/{total}"))
    } else {
        Err(wrong.join("\n"))
    }
}

fn main() {
    if let Ok(id) = std::env::var(isolation::CHILD_ENV) {
        let kit = std::env::args().nth(1).unwrap_or_default();
        child(&kit, &id);
        return;
    }
    let catalog = catalog();
    assert_eq!(catalog.scenarios.len(), SCENARIOS.len(), "fixtures missing");
    let mut results: Vec<(String, Result<String, String>)> = CASES
        .iter()
        .map(|case| {
            (
                format!("{} ({})", case.kit, case.what),
                judge(case, &catalog),
            )
        })
        .collect();
    results.push((
        "ChattyReconcile (megabytes de println!)".to_string(),
        chatty_code_keeps_its_verdicts(&catalog),
    ));
    let mut failed = 0;
    for (name, result) in &results {
        match result {
            Ok(summary) => println!("test {name} ... ok: {summary}"),
            Err(problems) => {
                failed += 1;
                println!("test {name} ... FAILED\n{problems}");
            }
        }
    }
    println!("\n{} passed, {failed} failed", results.len() - failed);
    if failed > 0 {
        std::process::exit(1);
    }
}
