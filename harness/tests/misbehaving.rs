//! Student code that misbehaves cannot take the report down, nor write its
//! own grade (issues 3 and 9). For each of `todo!()`, a panic, an endless
//! loop, a stack overflow, an abort, `std::process::exit`, unbounded memory,
//! std's out-of-memory message written to stderr before an abort (not told
//! as out-of-memory: only the harness's allocator tells that)
//! and printed imitations of the harness's answer lines, a kit that is the
//! reference except for one misbehaving exercise is graded by the judge
//! through real harness processes (`HarnessProcess`). The misbehaviour must
//! be reported on its exercise, in Spanish, while the other exercises are
//! still graded and pass, and the score must be what the real code
//! deserves. Code that prints megabytes, writes and deletes files, or
//! leaves a process running still gets exactly its verdicts, in time.
//!
//! Harness processes serve many lists of jobs (the judge's pool); a kit
//! graded that way must get exactly the verdicts it gets with one process
//! per list: whole gradings compared check by check, and lists with a job
//! that aborts, loops or calls `exit` in the middle, sent to a process that
//! already served a list, compared job by job.
//!
//! The same misbehaviours, but unbounded memory, are graded again with the
//! harness processes plain (no sandbox, no limits: how macOS and Windows
//! run them, issue 26): the same verdicts, a loop stopped by the judge's
//! deadline and kill alone, what the code left running killed with its
//! process group.
//!
//! Round 4 (issue 27) adds, in forms the source policy lets through: a
//! reconciliation that takes memory (`Vec::try_reserve`, which never
//! aborts: a gigabyte, or half of one) and the CPU while the other
//! exercises' processes run, with no answer or with right ones; and a server and a shared server that abort
//! their own process past `catch_unwind` (a value whose `Drop` panics,
//! dropped while a panic unwinds). These are graded again in the judge's
//! sandbox when the test runs as root (each harness process its own
//! unprivileged user, as on Gradescope), with the same verdicts.
//!
//! A test without the standard harness, because the harness processes are
//! this very executable: run as `misbehaving --harness-de-prueba KIT DIR`
//! it serves the judge's jobs for kit `KIT` (`harness::serve`), with `DIR`
//! a folder the side-effect kits write to; otherwise it grades every kit
//! and prints `N passed, M failed`, exiting non-zero on a failure. Run it
//! alone with `cargo test -p harness --test misbehaving`.

mod support;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use grader::report::{self, sheet::Sheet};
use judge::checks::{Catalog, CheckTarget};
use judge::grading::{self, Graded};
use judge::oracle;
use judge::output;
use judge::rubric::Rubric;
use judge::runner::Execute;
use judge::runner::isolation::Isolation;
use judge::runner::process::{HarnessProcess, Pool, TimeLimits};
use judge::variants::Plan;
use judge::verdict::{Exercise, Verdict};
use protocol::{Call, Job, Observation};
use sim::{
    ChargeOutcome, ChargeResult, IdempotencyKey, LedgerEntry, Money, Order, OrderId, Payments,
    Reconciliation,
};
use support::{Changed, ServerChange};

/// The first argument that makes this executable a harness.
const CHILD_FLAG: &str = "--harness-de-prueba";

/// Per-job time limit of the endless loop's harness: short, so the loop
/// costs little (each looping job burns a core until it), and still far
/// above what a real job takes (~20 ms; the limit also grows with a
/// job's work, 5 µs per unit).
const TIMEOUT: Duration = Duration::from_millis(500);
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

/// Server: right, but its first call starts `sleep 30` and leaves it
/// running (its pid goes to the test's folder, so the test can see it
/// die).
struct LeavesAProcess;

impl ServerChange for LeavesAProcess {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        static STARTED: AtomicBool = AtomicBool::new(false);
        if !STARTED.swap(true, Ordering::SeqCst) {
            // The harness's environment is empty (no PATH): the full path.
            if let Ok(child) = std::process::Command::new("/bin/sleep").arg("30").spawn() {
                let _ = std::fs::write(side_dir().join(format!("sleep-{}", child.id())), "");
                std::mem::forget(child);
            }
        }
        s.inner.charge(k, o, a)
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

client! {
    /// Client: right, but writes a file of its own and deletes the one the
    /// test left in its folder (as if it were the report).
    fn writes_and_deletes_files(server, network, keys, order, max_attempts) {
        let dir = side_dir();
        let _ = std::fs::write(dir.join("escrito-por-el-estudiante.txt"), "Puntaje: 100/100");
        let _ = std::fs::remove_file(dir.join("informe.txt"));
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

/// Panics again when dropped during a panic's unwinding: the process aborts.
struct PanicsWhileUnwinding;

impl Drop for PanicsWhileUnwinding {
    fn drop(&mut self) {
        if std::thread::panicking() {
            panic!("otra vez, mientras se desenrolla el primero");
        }
    }
}

/// Reconciliation: on the first order charged twice, writes std's own
/// out-of-memory message to stderr and then aborts (a panic inside a
/// `Drop` during unwinding), with memory to spare.
fn fakes_out_of_memory(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = solutions::reconciliation::reconcile(orders, ledger);
    if r.orders_charged_twice_or_more > 0 {
        eprintln!("memory allocation of 4096 bytes failed");
        let _bomb = PanicsWhileUnwinding;
        panic!("el primero");
    }
    r
}

/// Reconciliation: right, but prints a debugging line per ledger row, and
/// then some: megabytes on stdout before the answer. Only on its first call
/// in each harness process: the model-based check makes hundreds of calls.
fn chatty(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    static PRINTED: AtomicBool = AtomicBool::new(false);
    if PRINTED.swap(true, Ordering::SeqCst) {
        return solutions::reconciliation::reconcile(orders, ledger);
    }
    let rows = if ledger.is_empty() {
        &[LedgerEntry {
            key: IdempotencyKey(7),
            order_id: OrderId(7),
            amount: Money::from_dollars(7),
            charge_id: sim::ChargeId(7),
        }][..]
    } else {
        ledger
    };
    for row in rows.iter().cycle().take(40_000) {
        println!(
            "depurando: {} {} {} {}",
            row.charge_id, row.order_id, row.amount, row.key
        );
    }
    solutions::reconciliation::reconcile(orders, ledger)
}

/// Reconciliation: the stub, which first prints, among debugging lines, an
/// answer line of the harness's protocol carrying the right reconciliation
/// (the reference's), as if the job had been answered.
fn fakes_an_answer(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let right = solutions::reconciliation::reconcile(orders, ledger);
    println!("depurando: reconcile con {} filas", ledger.len());
    println!(
        "{}",
        protocol::answer_line(&Ok(Observation::Reconciled(right)))
    );
    println!("depurando: listo");
    todo!("Ejercicio 3: reconcile")
}

/// Panics when dropped: dropped while a panic unwinds, the process aborts
/// (a panic inside a panic), past the harness's `catch_unwind`.
struct Bomb;

impl Drop for Bomb {
    fn drop(&mut self) {
        panic!("otra vez, al soltar la bomba");
    }
}

/// Server: on a replay, panics with a [`Bomb`] alive: the process aborts.
struct AbortsOnReplay;

impl ServerChange for AbortsOnReplay {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if s.idempotent && s.results.contains_key(&k) {
            let _bomb = Bomb;
            panic!("el primero");
        }
        let result = s.inner.charge(k, o, a);
        s.results.insert(k, result);
        result
    }
}

/// Shared server (exercise 4): lesson 4's, except that a key sent again
/// with another request panics with a [`Bomb`] alive: the process aborts.
struct AbortsOnReuse;

impl support::StoreChange for AbortsOnReuse {
    fn charge(
        s: &support::Shared<Self>,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, sim::ChargeError> {
        let first = s.store.lock().get(&key).map(sim::KeyState::request);
        if first.is_some_and(|r| (r.order_id, r.amount) != (order_id, amount)) {
            let _bomb = Bomb;
            panic!("el primero");
        }
        support::mistakes::lesson4(
            s,
            key,
            order_id,
            amount,
            support::mistakes::StoreMistake::None,
        )
    }
}

/// `blocks` × 64 MiB or less, as `Vec::try_reserve` gives it (it never
/// aborts), every byte written: memory the process holds, and the CPU
/// while it writes it. Written a page at a time (`extend_from_slice`, a
/// copy): `resize` fills byte by byte in `Vec::extend_with`, and the test
/// build may link an unoptimised copy of it from a dependency at
/// opt-level 0 or 1 (share-generics; Cargo.toml), a quarter of this
/// suite's CPU.
fn hog_memory(blocks: usize) -> Vec<Vec<u8>> {
    const BLOCK: usize = 64 << 20;
    let page = [1u8; 4096];
    let mut held: Vec<Vec<u8>> = Vec::new();
    for _ in 0..blocks {
        let mut block: Vec<u8> = Vec::new();
        if block.try_reserve_exact(BLOCK).is_err() {
            break;
        }
        while block.len() < BLOCK {
            block.extend_from_slice(&page);
        }
        held.push(block);
    }
    held
}

/// Reconciliation: takes a gigabyte ([`hog_memory`]) and then the CPU,
/// reading it over and over, and never answers.
fn hogs_and_never_answers(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let held = hog_memory(16);
    let mut sum = 0u64;
    while sum != u64::MAX {
        for block in &held {
            sum = sum.wrapping_add(block.iter().step_by(4096).map(|b| u64::from(*b)).sum());
        }
        sum = std::hint::black_box(sum);
    }
    solutions::reconciliation::reconcile(orders, ledger)
}

/// Reconciliation: right, but on a ledger of more than 50 rows (a
/// fleet's) it first takes half a gigabyte ([`hog_memory`]) and reads it
/// over, while other exercises' processes run beside it.
fn hogs_and_answers(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    if ledger.len() > 50 {
        let held = hog_memory(8);
        let sum: u64 = held
            .iter()
            .map(|block| block.iter().step_by(64).map(|b| u64::from(*b)).sum::<u64>())
            .sum();
        std::hint::black_box(sum);
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
kit!(FakeAnswerReconcile {
    reconcile: fakes_an_answer
});
kit!(ChattyReconcile { reconcile: chatty });
kit!(FakeOomReconcile {
    reconcile: fakes_out_of_memory
});
kit!(FileWritingClient {
    client: writes_and_deletes_files
});
kit!(ProcessLeavingServer {
    server: LeavesAProcess
});
kit!(AbortingServer {
    server: AbortsOnReplay
});
kit!(AbortingAtomic {
    atomic: support::Shared<AbortsOnReuse>
});
kit!(HoggingReconcile {
    reconcile: hogs_and_never_answers
});
kit!(HoggingRightReconcile {
    reconcile: hogs_and_answers
});

/// In a harness process: the folder the side-effect kits write to (the
/// third argument).
fn side_dir() -> PathBuf {
    std::env::args_os()
        .nth(3)
        .map(PathBuf::from)
        .unwrap_or_default()
}

/// In a harness process: serves the judge's jobs for `kit`.
fn serve(kit: &str) {
    match kit {
        "TodoClient" => harness::serve::<TodoClient>(),
        "PanicServer" => harness::serve::<PanicServer>(),
        "LoopingReconcile" => harness::serve::<LoopingReconcile>(),
        "StackOverflowClient" => harness::serve::<StackOverflowClient>(),
        "AbortingReconcile" => harness::serve::<AbortingReconcile>(),
        "ExitingServer" => harness::serve::<ExitingServer>(),
        "MemoryHungryClient" => harness::serve::<MemoryHungryClient>(),
        "FakeAnswerReconcile" => harness::serve::<FakeAnswerReconcile>(),
        "ChattyReconcile" => harness::serve::<ChattyReconcile>(),
        "FakeOomReconcile" => harness::serve::<FakeOomReconcile>(),
        "FileWritingClient" => harness::serve::<FileWritingClient>(),
        "ProcessLeavingServer" => harness::serve::<ProcessLeavingServer>(),
        "AbortingServer" => harness::serve::<AbortingServer>(),
        "AbortingAtomic" => harness::serve::<AbortingAtomic>(),
        "HoggingReconcile" => harness::serve::<HoggingReconcile>(),
        "HoggingRightReconcile" => harness::serve::<HoggingRightReconcile>(),
        other => panic!("unknown kit {other}"),
    }
}

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
        Verdict::Pending { .. } => Some(Kind::Pending),
        Verdict::Panicked { .. } => Some(Kind::Panicked),
        Verdict::TimedOut { .. } => Some(Kind::TimedOut),
        Verdict::Crashed { .. } => Some(Kind::Crashed),
        _ => None,
    }
}

struct Case {
    /// The misbehaviour, in the words.
    what: &'static str,
    /// The kit's name, passed to the harness process.
    kit: &'static str,
    exercise: Exercise,
    kind: Kind,
    /// The exercise's fixed checks the misbehaviour does not reach.
    unharmed: &'static [&'static str],
    /// Whether it spares the whole-scenario checks where no response is
    /// lost (none of the fixtures graded here is such a scenario).
    spares_calm_scenarios: bool,
    /// Text every harmed check's explanation must contain.
    says: &'static str,
    /// Text the exercise's section of the report must contain.
    shows: &'static str,
}

const PENDING_HERE: &str = "todavía es todo!() (harness/tests/misbehaving.rs:";

/// Exercise 1's fixed checks that never send a key again in the idempotent
/// mode.
const SERVER_WITHOUT_REPLAY: &[&str] = &[
    "cobro/sin-idempotencia-cada-llamada-cobra",
    "cobro/key-nueva-se-cobra-y-se-registra",
];

/// What the judge says of a process that aborted.
const ABORTED: &str = "el proceso murió: abortó (señal SIGABRT: std::process::abort, un pánico dentro de otro o un error fatal del runtime de Rust)";

/// Exercise 4's sequential fixed checks that never send a key again with
/// another request.
const ATOMIC_WITHOUT_REUSE: &[&str] = &[
    "atomico/key-nueva-cobra-y-guarda-su-resultado",
    "atomico/replay-devuelve-lo-guardado-sin-tocar-el-ledger",
    "atomico/keys-distintas-se-cobran",
];

/// Round 4's kits (issue 27), graded again in the sandbox when the test
/// runs as root.
#[cfg(target_os = "linux")]
const ROUND_4: &[&str] = &[
    "AbortingServer",
    "AbortingAtomic",
    "HoggingReconcile",
    "HoggingRightReconcile",
];

const CASES: &[Case] = &[
    Case {
        what: "todo!()",
        kit: "TodoClient",
        exercise: Exercise::Cliente,
        kind: Kind::Pending,
        unharmed: &[],
        spares_calm_scenarios: false,
        says: PENDING_HERE,
        shows: "… PENDIENTE: charge_order todavía es todo!() (harness/tests/misbehaving.rs:",
    },
    Case {
        what: "pánico",
        kit: "PanicServer",
        exercise: Exercise::Cobro,
        kind: Kind::Panicked,
        unharmed: &["cobro/sin-idempotencia-cada-llamada-cobra"],
        spares_calm_scenarios: false,
        says: "pánico en harness/tests/misbehaving.rs:",
        shows: "pánico en harness/tests/misbehaving.rs:",
    },
    Case {
        what: "bucle infinito",
        kit: "LoopingReconcile",
        exercise: Exercise::Reconciliacion,
        kind: Kind::TimedOut,
        unharmed: &["reconciliacion/entradas-vacias-dan-ceros"],
        spares_calm_scenarios: false,
        says: "no terminó en 0.5 s y se detuvo: tu código no devolvió ninguna respuesta en ese tiempo",
        shows: "sube el mínimo con --timeout",
    },
    Case {
        what: "desbordamiento de pila",
        kit: "StackOverflowClient",
        exercise: Exercise::Cliente,
        kind: Kind::Crashed,
        unharmed: &[],
        spares_calm_scenarios: false,
        says: "según esa salida, la pila se desbordó (stack overflow): ¿una recursión sin caso base?",
        shows: "has overflowed its stack",
    },
    Case {
        what: "abort",
        kit: "AbortingReconcile",
        exercise: Exercise::Reconciliacion,
        kind: Kind::Crashed,
        unharmed: &[
            "reconciliacion/entradas-vacias-dan-ceros",
            "reconciliacion/filas-de-ordenes-desconocidas",
        ],
        spares_calm_scenarios: true,
        says: ABORTED,
        shows: "el proceso murió: abortó",
    },
    Case {
        what: "std::process::exit",
        kit: "ExitingServer",
        exercise: Exercise::Cobro,
        kind: Kind::Crashed,
        unharmed: SERVER_WITHOUT_REPLAY,
        spares_calm_scenarios: true,
        says: "el proceso murió: terminó con el estado de salida 3 (como con std::process::exit(3)) antes de entregar un resultado",
        shows: "std::process::exit(3)",
    },
    Case {
        what: "memoria sin límite",
        kit: "MemoryHungryClient",
        exercise: Exercise::Cliente,
        kind: Kind::Crashed,
        unharmed: &[],
        spares_calm_scenarios: false,
        says: "el proceso murió: se quedó sin memoria: el harness vio fallar una reserva de",
        shows: "se quedó sin memoria",
    },
    Case {
        what: "escribe en stderr el mensaje de std sin memoria y aborta",
        kit: "FakeOomReconcile",
        exercise: Exercise::Reconciliacion,
        kind: Kind::Crashed,
        unharmed: &[
            "reconciliacion/entradas-vacias-dan-ceros",
            "reconciliacion/filas-de-ordenes-desconocidas",
        ],
        spares_calm_scenarios: true,
        says: "el proceso murió: abortó (señal SIGABRT",
        shows: "«memory allocation of 4096 bytes failed",
    },
    Case {
        what: "un pánico dentro de otro en el servidor (aborta)",
        kit: "AbortingServer",
        exercise: Exercise::Cobro,
        kind: Kind::Crashed,
        unharmed: SERVER_WITHOUT_REPLAY,
        spares_calm_scenarios: true,
        says: ABORTED,
        shows: "el proceso murió: abortó",
    },
    Case {
        what: "un pánico dentro de otro en el servidor compartido (aborta)",
        kit: "AbortingAtomic",
        exercise: Exercise::Store,
        kind: Kind::Crashed,
        unharmed: ATOMIC_WITHOUT_REUSE,
        spares_calm_scenarios: false,
        says: "el proceso murió: abortó (señal SIGABRT",
        shows: "el proceso murió: abortó",
    },
    Case {
        what: "toma un gigabyte y la CPU y no responde",
        kit: "HoggingReconcile",
        exercise: Exercise::Reconciliacion,
        kind: Kind::TimedOut,
        unharmed: &[],
        spares_calm_scenarios: false,
        says: "no terminó en 0.5 s y se detuvo: tu código no devolvió ninguna respuesta en ese tiempo",
        shows: "sube el mínimo con --timeout",
    },
    Case {
        what: "imprime líneas de respuesta falsas y luego es todo!()",
        kit: "FakeAnswerReconcile",
        exercise: Exercise::Reconciliacion,
        kind: Kind::Pending,
        unharmed: &[],
        spares_calm_scenarios: false,
        says: PENDING_HERE,
        shows: PENDING_HERE,
    },
];

// ---------------------------------------------------------------- running

fn catalog() -> Catalog {
    let scenarios = support::fixtures()
        .into_iter()
        .filter(|s| SCENARIOS.contains(&s.name.as_str()))
        .collect();
    // Without the large cases: a hog beside a million-call history would
    // time it out, and these kits are about misbehaving code, not sizes
    // (`suite.rs`'s `puntos_ciegos` grades those).
    let mut catalog = Catalog::new(scenarios, &[]).without_explored();
    catalog.large_cases = false;
    catalog
}

/// The judge's view of `kit`: this executable as its harness, 2 checks at a
/// time, harness processes shared as the judge shares them, isolated as
/// `isolation` says.
fn grade_kit(
    catalog: &Catalog,
    kit: &str,
    limit: Duration,
    dir: &Path,
    isolation: Isolation,
) -> Result<Graded, String> {
    let mut exec = executor(kit, limit, dir, Pool::default())?;
    exec.isolation = isolation;
    Ok(grading::grade(catalog, &exec, "exercises", 2))
}

/// This executable as the harness of `kit`, with `pool`, isolated as a
/// judge that is not root isolates it.
fn executor(kit: &str, limit: Duration, dir: &Path, pool: Pool) -> Result<HarnessProcess, String> {
    Ok(HarnessProcess {
        program: std::env::current_exe().map_err(|e| e.to_string())?,
        args: vec![CHILD_FLAG.into(), kit.into(), dir.into()],
        limits: TimeLimits::new(limit),
        isolation: Isolation::unsandboxed(),
        owned: None,
        pool,
        explorer: None,
    })
}

/// `kit` graded with shared harness processes and with one process per
/// list of jobs: the same verdict for every check (some failing, when
/// `fails`).
fn shared_as_alone(
    catalog: &Catalog,
    kit: &str,
    limit: Duration,
    fails: bool,
) -> Result<String, String> {
    let dir = side_folder(kit)?;
    let start = Instant::now();
    let shared = grade_kit(catalog, kit, limit, &dir, Isolation::unsandboxed())?;
    let took_shared = start.elapsed();
    let start = Instant::now();
    let exec = executor(kit, limit, &dir, Pool::unshared())?;
    let alone = grading::grade(catalog, &exec, "exercises", 2);
    let took_alone = start.elapsed();
    drop(exec);
    let _ = std::fs::remove_dir_all(&dir);
    let differ: Vec<String> = shared
        .results
        .iter()
        .zip(&alone.results)
        .filter(|(s, a)| s != a)
        .map(|((c, s), (_, a))| format!("{}: shared {s:?}, alone {a:?}", c.id))
        .collect();
    let failed = shared.results.iter().filter(|(_, v)| !v.passed()).count();
    if shared.results.len() != alone.results.len() || !differ.is_empty() {
        return Err(differ.join("\n"));
    }
    if fails == (failed == 0) {
        return Err(format!("{failed} checks failed: the case proves nothing"));
    }
    Ok(format!(
        "{} verificaciones iguales ({failed} fallan); compartido {:.1} s, uno por lista {:.1} s",
        shared.results.len(),
        took_shared.as_secs_f64(),
        took_alone.as_secs_f64()
    ))
}

/// One reconciliation job: order 1 of $5 and `rows` rows of $5 for it.
fn reconcile_job(rows: u64) -> Job {
    Job::Reconcile(protocol::Reconcile {
        orders: vec![Order {
            id: OrderId(1),
            amount: Money::from_dollars(5),
        }],
        ledger: (1..=rows)
            .map(|i| LedgerEntry {
                key: IdempotencyKey(i),
                order_id: OrderId(1),
                amount: Money::from_dollars(5),
                charge_id: sim::ChargeId(i),
            })
            .collect(),
    })
}

/// An idempotent server's job: `calls` calls with the same key (two or
/// more make a replay).
fn charges_job(calls: usize) -> Job {
    let call = Call {
        key: IdempotencyKey(9),
        order_id: OrderId(1),
        amount: Money::from_dollars(5),
    };
    Job::Charges(protocol::Charges {
        idempotent: true,
        calls: vec![call; calls],
    })
}

/// Lists of jobs sent one after another to `kit`'s shared harness process
/// (the first list starts it), the list at `bad` with a misbehaving job in
/// its middle: every answer equals the one a process of its own per list
/// gives, the misbehaving job's verdict is `kind` and says `says`, the jobs
/// after it in its list get that verdict too (they never ran, as alone),
/// and the lists after it are answered again.
fn lists_as_alone(
    kit: &str,
    limit: Duration,
    lists: &[Vec<Job>],
    bad: (usize, usize),
    kind: Kind,
    says: &str,
) -> Result<String, String> {
    let dir = side_folder(kit)?;
    let shared = executor(kit, limit, &dir, Pool::default())?;
    let alone = executor(kit, limit, &dir, Pool::unshared())?;
    let mut problems = Vec::new();
    for (i, jobs) in lists.iter().enumerate() {
        let got = shared.execute(jobs);
        let want = alone.execute(jobs);
        if got != want {
            problems.push(format!("list {i}: shared {got:?}\nalone {want:?}"));
        }
        for (j, answer) in got.iter().enumerate() {
            let misbehaves = i == bad.0 && j >= bad.1;
            match answer {
                Ok(_) if !misbehaves => {}
                Err(v) if misbehaves && kind_of(v) == Some(kind) => {
                    let text = v.explanation().join(" ");
                    if !text.contains(says) {
                        problems.push(format!("list {i} job {j}: {text:?} lacks {says:?}"));
                    }
                }
                other => problems.push(format!("list {i} job {j}: {other:?}")),
            }
        }
    }
    drop((shared, alone));
    let _ = std::fs::remove_dir_all(&dir);
    if problems.is_empty() {
        Ok(format!(
            "{} listas, la {} con el trabajo {} que {says}: iguales a un proceso por lista",
            lists.len(),
            bad.0,
            bad.1
        ))
    } else {
        Err(problems.join("\n"))
    }
}

/// A folder of its own for one kit's side effects.
fn side_folder(kit: &str) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!("kit-misbehaving-{}-{kit}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir)
}

/// A run in which a job timed out or its process died says so
/// ([`HarnessProcess::machine_dependent`]: the verdict cache stores none of
/// its verdicts); one whose jobs answered, a panic included, does not.
fn machine_dependence_is_noted() -> Result<String, String> {
    let mut seen = Vec::new();
    for (kit, limit, job, expected) in [
        ("LoopingReconcile", TIMEOUT, reconcile_job(2), true),
        ("AbortingReconcile", GENEROUS, reconcile_job(2), true),
        ("PanicServer", GENEROUS, charges_job(2), false),
        ("AbortingReconcile", GENEROUS, reconcile_job(1), false),
    ] {
        let dir = side_folder(kit)?;
        let exec = executor(kit, limit, &dir, Pool::default())?;
        let answer = exec.execute(std::slice::from_ref(&job));
        let noted = exec.machine_dependent();
        exec.finish();
        let _ = std::fs::remove_dir_all(&dir);
        if noted != expected {
            return Err(format!(
                "{kit}: machine_dependent() = {noted}, se esperaba {expected} ({answer:?})"
            ));
        }
        seen.push(format!("{kit}: {noted}"));
    }
    Ok(seen.join(", "))
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

/// The plain-text report of `graded`.
fn text_report(graded: &Graded) -> Result<String, String> {
    let rubric = Rubric::kit().map_err(|e| e.to_string())?;
    let sheet = Sheet::new(graded, &rubric, &Plan::default(), &[]);
    Ok(output::strip_colours(&report::text::render(&sheet)))
}

/// Grades `case`'s kit in harness processes isolated as `isolation` says
/// and checks verdicts, score and report.
fn judge(case: &Case, catalog: &Catalog, isolation: Isolation) -> Result<String, String> {
    let limit = if case.kind == Kind::TimedOut {
        TIMEOUT
    } else {
        GENEROUS
    };
    let dir = side_folder(case.kit)?;
    let graded = grade_kit(catalog, case.kit, limit, &dir, isolation)?;
    let _ = std::fs::remove_dir_all(&dir);
    let mut problems = Vec::new();
    let mut harmed = 0;
    let mut example = String::new();
    for (check, verdict) in &graded.results {
        // A generated (model-based) check of the exercise is never spared:
        // it explores every input, so it meets the misbehaviour; what it
        // calls it depends on its shrinking, so only its loss is required.
        let spared = if let CheckTarget::Scenario(i) = check.target {
            let e = oracle::expect(&catalog.scenarios[i].fleet);
            case.spares_calm_scenarios && e.before.attempts == e.orders
        } else {
            case.unharmed.contains(&check.id.as_str())
        };
        let should_pass = check.exercise != case.exercise || spared;
        if should_pass {
            if !verdict.passed() {
                problems.push(format!("{} should pass: {verdict:?}", check.id));
            }
            continue;
        }
        harmed += 1;
        if support::is_generated(check) {
            if verdict.passed() {
                problems.push(format!("{} passed the misbehaving code", check.id));
            }
            continue;
        }
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
        // Only the harness's allocator tells an out-of-memory death: never
        // what the code wrote to stderr.
        if case.kit != "MemoryHungryClient" && text.contains("sin memoria") {
            problems.push(format!("{}: told as out-of-memory: {text:?}", check.id));
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
    let text = text_report(&graded)?;
    let own = section(&text, case.exercise);
    if !own.contains(case.shows) {
        problems.push(format!(
            "the report's section lacks {:?}:\n{own}",
            case.shows
        ));
    }
    // One panic, one explanation: the other checks it broke say "la misma
    // causa que arriba".
    if case.kind == Kind::Panicked
        && (own.matches(case.says).count() != 1 || !own.contains("la misma causa que arriba"))
    {
        problems.push(format!("the panic is not said once:\n{own}"));
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
    let (p, t) = outside_bonus(&graded);
    if !text.contains(&format!("({p}/{t} verificaciones)")) {
        problems.push(format!("the report's score is not {p}/{t}:\n{text}"));
    }
    if problems.is_empty() {
        Ok(format!(
            "{harmed} verificaciones afectadas, puntaje {passed}/{total}\n    {example}"
        ))
    } else {
        Err(problems.join("\n"))
    }
}

/// Checks passed and checks run outside the bonus (exercise 4): what the
/// report's score line counts.
fn outside_bonus(graded: &Graded) -> (usize, usize) {
    let outside: Vec<bool> = graded
        .results
        .iter()
        .filter(|(c, _)| !c.exercise.bonus())
        .map(|(_, v)| v.passed())
        .collect();
    (outside.iter().filter(|x| **x).count(), outside.len())
}

/// Grades `kit`, whose answers are all right whatever else it does, in
/// harness processes isolated as `isolation` says, and expects full marks
/// (within `within`, when given); then `after` looks at the kit's folder
/// and says what else must hold.
fn full_marks(
    catalog: &Catalog,
    kit: &str,
    within: Option<Duration>,
    prepare: fn(&Path) -> std::io::Result<()>,
    after: fn(&Path) -> Result<String, String>,
    isolation: Isolation,
) -> Result<String, String> {
    let dir = side_folder(kit)?;
    prepare(&dir).map_err(|e| e.to_string())?;
    let start = Instant::now();
    let graded = grade_kit(catalog, kit, GENEROUS, &dir, isolation)?;
    let took = start.elapsed();
    let side = after(&dir);
    let _ = std::fs::remove_dir_all(&dir);
    let mut problems: Vec<String> = graded
        .results
        .iter()
        .filter(|(_, v)| !v.passed())
        .map(|(c, v)| format!("{}: {v:?}", c.id))
        .collect();
    if let Some(within) = within
        && took > within
    {
        problems.push(format!(
            "grading took {took:?}, more than {within:?}: the judge waited for the code's leftovers"
        ));
    }
    let (passed, total) = graded.score();
    let text = text_report(&graded)?;
    let (_, outside) = outside_bonus(&graded);
    if !text.contains(&format!("({outside}/{outside} verificaciones)")) {
        problems.push(format!("the report is not {outside}/{outside}:\n{text}"));
    }
    match side {
        Ok(seen) if problems.is_empty() => Ok(format!(
            "puntaje {passed}/{total} en {:.1} s; {seen}",
            took.as_secs_f64()
        )),
        Ok(_) => Err(problems.join("\n")),
        Err(e) => {
            problems.push(e);
            Err(problems.join("\n"))
        }
    }
}

/// A kit whose answers are right: its name, its misbehaviour, how long its
/// grading may take, what the test lays in its folder first and what it
/// checks there after.
type SideEffects = (
    &'static str,
    &'static str,
    Option<Duration>,
    fn(&Path) -> std::io::Result<()>,
    fn(&Path) -> Result<String, String>,
);

/// A kit, its time limit, lists of jobs (the second with a misbehaving job
/// second), the misbehaviour's kind and words.
type SharedLists = (&'static str, Duration, Vec<Vec<Job>>, Kind, &'static str);

fn nothing_to_prepare(_: &Path) -> std::io::Result<()> {
    Ok(())
}

fn nothing_to_see(_: &Path) -> Result<String, String> {
    Ok("sin efectos que revisar".to_string())
}

fn a_report_to_delete(dir: &Path) -> std::io::Result<()> {
    std::fs::write(dir.join("informe.txt"), "Puntaje: 0/100")
}

/// The file kit ran its side effects: its file is there, the "report" gone.
fn files_touched(dir: &Path) -> Result<String, String> {
    if dir.join("informe.txt").exists() || !dir.join("escrito-por-el-estudiante.txt").exists() {
        return Err("the kit did not write and delete its files: the case proves nothing".into());
    }
    Ok("el código escribió un archivo y borró otro, y el juez siguió".to_string())
}

/// Every `sleep 30` the process kit started is dead (gone, or a zombie
/// waiting for a parent that does not reap it).
fn sleepers_dead(dir: &Path) -> Result<String, String> {
    let pids: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.strip_prefix("sleep-").map(str::to_string)
        })
        .collect();
    if pids.is_empty() {
        return Err("the kit started no process: the case proves nothing".into());
    }
    let alive = |pid: &String| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                let state = stat.rsplit_once(')')?.1.split_whitespace().next()?;
                Some(state != "Z" && state != "X")
            })
            .unwrap_or(false)
    };
    // The group is killed when the answers are in: give the signal a moment.
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut running: Vec<&String> = pids.iter().filter(|p| alive(p)).collect();
    while !running.is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
        running.retain(|p| alive(p));
    }
    if running.is_empty() {
        Ok(format!(
            "{} procesos `sleep 30` dejados corriendo, todos terminados",
            pids.len()
        ))
    } else {
        Err(format!(
            "still running after grading: sleep pids {running:?}"
        ))
    }
}

/// `run` on each of `items`, two at a time, the results in `items`' order.
/// For the cases that grade one kit each, unsandboxed or plain (as `curso`
/// grades a class): each has its own harness processes and side folder
/// (named after its kit), and a case's time limits count the time its
/// harness could run (the judge's job clock), so a neighbour on the other
/// core does not turn a verdict into a time-out. Not in the sandbox, whose
/// runs kill their user's processes at their end, nor for the cases that
/// look at the whole machine (processes left behind, files): those run
/// alone, after these.
fn two_at_a_time<T: Sync, R: Send>(items: &[T], run: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let done: std::sync::Mutex<Vec<(usize, R)>> = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(item) = items.get(i) else { break };
                    let r = run(item);
                    done.lock().unwrap().push((i, r));
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap();
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, r)| r).collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some(CHILD_FLAG) {
        serve(args.get(2).map_or("", String::as_str));
        return;
    }
    let catalog = catalog();
    assert_eq!(catalog.scenarios.len(), SCENARIOS.len(), "fixtures missing");
    let mut results: Vec<(String, Result<String, String>)> = two_at_a_time(CASES, |case| {
        (
            format!("{} ({})", case.kit, case.what),
            judge(case, &catalog, Isolation::unsandboxed()),
        )
    });
    // The process kit's `sleep 30` must not hold the judge: its whole
    // grading takes about a second.
    let side_effects: [SideEffects; 4] = [
        (
            "ChattyReconcile",
            "megabytes de println!",
            None,
            nothing_to_prepare,
            nothing_to_see,
        ),
        (
            "FileWritingClient",
            "escribe y borra archivos",
            None,
            a_report_to_delete,
            files_touched,
        ),
        (
            "ProcessLeavingServer",
            "deja un proceso corriendo",
            Some(Duration::from_secs(20)),
            nothing_to_prepare,
            sleepers_dead,
        ),
        (
            "HoggingRightReconcile",
            "toma medio gigabyte y la CPU, y responde bien",
            None,
            nothing_to_prepare,
            nothing_to_see,
        ),
    ];
    for &(kit, what, within, prepare, after) in &side_effects {
        results.push((
            format!("{kit} ({what})"),
            full_marks(
                &catalog,
                kit,
                within,
                prepare,
                after,
                Isolation::unsandboxed(),
            ),
        ));
    }
    // Plain (macOS, Windows): the same verdicts with no limit but time. A
    // grading that ends proves the kill: the judge waits for each process
    // it kills. Not unbounded memory: only the machine would stop it.
    let plain: Vec<&Case> = CASES
        .iter()
        .filter(|c| c.kit != "MemoryHungryClient")
        .collect();
    results.extend(two_at_a_time(&plain, |case| {
        (
            format!("{} ({}) sin sandbox", case.kit, case.what),
            judge(case, &catalog, Isolation::Plain),
        )
    }));
    results.push((
        "ProcessLeavingServer (deja un proceso corriendo) sin sandbox".to_string(),
        full_marks(
            &catalog,
            "ProcessLeavingServer",
            Some(Duration::from_secs(20)),
            nothing_to_prepare,
            sleepers_dead,
            Isolation::Plain,
        ),
    ));
    // Round 4 again in the sandbox, as root: each harness process its own
    // unprivileged user, as on Gradescope; the same verdicts.
    #[cfg(target_os = "linux")]
    match judge::runner::sandbox::Sandbox::detect() {
        Ok(Some(sandbox)) => {
            let confined = Isolation::Confined(Some(sandbox));
            // One at a time: the end of a run in the sandbox kills every
            // process of the sandbox's user, a neighbour's too (an abort
            // was once told as SIGKILL).
            for case in CASES.iter().filter(|c| ROUND_4.contains(&c.kit)) {
                results.push((
                    format!("{} ({}) en el sandbox", case.kit, case.what),
                    judge(case, &catalog, confined),
                ));
            }
            for &(kit, what, within, prepare, after) in
                side_effects.iter().filter(|s| ROUND_4.contains(&s.0))
            {
                results.push((
                    format!("{kit} ({what}) en el sandbox"),
                    full_marks(&catalog, kit, within, prepare, after, confined),
                ));
            }
        }
        Ok(None) => println!("(sin sandbox: no corre como root; la ronda 4 corrió sin él)"),
        Err(e) => results.push(("el sandbox".to_string(), Err(e))),
    }
    // Shared harness processes give the verdicts of one process per list.
    // The process kit passes everything, its `sleep 30` running beside
    // the shared process's later jobs.
    // Two at a time, as the first round.
    let shared = [
        ("AbortingReconcile", GENEROUS, true),
        ("ExitingServer", GENEROUS, true),
        ("StackOverflowClient", GENEROUS, true),
        ("PanicServer", GENEROUS, true),
        ("LoopingReconcile", TIMEOUT, true),
        ("ProcessLeavingServer", GENEROUS, false),
    ];
    results.extend(two_at_a_time(&shared, |&(kit, limit, fails)| {
        (
            format!("{kit} compartido = uno por lista"),
            shared_as_alone(&catalog, kit, limit, fails),
        )
    }));
    let clean = || vec![reconcile_job(0), reconcile_job(1)];
    let lists: [SharedLists; 3] = [
        (
            "AbortingReconcile",
            GENEROUS,
            vec![
                clean(),
                vec![reconcile_job(1), reconcile_job(2), reconcile_job(1)],
                clean(),
            ],
            Kind::Crashed,
            "abortó",
        ),
        (
            "LoopingReconcile",
            TIMEOUT,
            vec![
                vec![reconcile_job(0)],
                vec![reconcile_job(0), reconcile_job(1), reconcile_job(0)],
                vec![reconcile_job(0)],
            ],
            Kind::TimedOut,
            "no terminó en 0.5 s",
        ),
        (
            "ExitingServer",
            GENEROUS,
            vec![
                vec![charges_job(1)],
                vec![charges_job(1), charges_job(2), charges_job(1)],
                vec![charges_job(1)],
            ],
            Kind::Crashed,
            "std::process::exit(3)",
        ),
    ];
    for (kit, limit, jobs, kind, says) in lists {
        results.push((
            format!("{kit} en medio de una lista compartida"),
            lists_as_alone(kit, limit, &jobs, (1, 1), kind, says),
        ));
    }
    results.push((
        "una corrida con un trabajo que se pasó de tiempo o murió lo anota".to_string(),
        machine_dependence_is_noted(),
    ));
    // A passing case's summary quotes the verdicts it expected ("el proceso
    // murió: abortó …"): shown only when asked for, as libtest shows a
    // passing test's output only with --nocapture.
    let detail = std::env::args().any(|a| a == "--nocapture" || a == "--show-output");
    let mut failed = 0;
    for (name, result) in &results {
        match result {
            Ok(summary) if detail => println!("test {name} ... ok: {summary}"),
            Ok(_) => println!("test {name} ... ok"),
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
