//! Race mutants of exercise 4 (lesson 4, *el store atómico*): shared servers
//! that answer every sequential script right and still let two concurrent
//! retries charge twice. Each must be caught by the concurrent checks
//! (`judge::ejercicios::atomico::schedules`) with a trace in the lesson's words;
//! the reference must pass them with every seed. Graded in this process,
//! built with the explorer (`sim::sync` is shuttle's here):
//!
//! `cargo test -p harness --features explorar --test mutantes_store_carreras`

use std::marker::PhantomData;
use std::sync::Mutex as StdMutex;

use grader::before_after::race;
use judge::checks::{Catalog, CheckTarget};
use judge::ejercicios::atomico::schedules::{
    self as schedules, GENERATED, REUSE_RACE, THREE_RETRIES,
};
use judge::ejercicios::atomico::schedules::{REPLAYS_AFTER, TWO_KEYS, TWO_RETRIES};
use judge::grading;
use judge::runner::Execute;
use judge::verdict::{Exercise, Verdict};
use protocol::{Job, Observation};
use sim::sync::Mutex;
use sim::{
    ChargeError, ChargeId, ChargeRequest, ChargeResult, ChargeStatus, IdempotencyKey, KeyState,
    LedgerEntry, Money, OrderId, SharedPayments, SharedStore,
};

/// The jobs of a kit in this process; it is its own explorer.
struct Explorer<K>(PhantomData<fn() -> K>);

/// `harness::catch` takes panics through the process-wide hook: one job at a
/// time.
static ONE_JOB_AT_A_TIME: StdMutex<()> = StdMutex::new(());

impl<K: sim::Kit> Execute for Explorer<K> {
    fn execute(&self, jobs: &[Job]) -> Vec<Result<Observation, Verdict>> {
        jobs.iter()
            .map(|job| {
                let _one = ONE_JOB_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
                harness::answer_caught::<K>(job).map_err(Verdict::from)
            })
            .collect()
    }

    fn explorer(&self) -> Result<&dyn Execute, Verdict> {
        Ok(self)
    }
}

fn exec<K: sim::Kit>() -> Explorer<K> {
    Explorer(PhantomData)
}

/// A kit: the reference, except for exercise 4's server.
macro_rules! kit {
    ($name:ident, $server:ty) => {
        struct $name;

        impl sim::Kit for $name {
            const CRATE: &'static str = "exercises";
            type Server = <solutions::Solutions as sim::Kit>::Server;

            fn new_server(idempotent: bool) -> Self::Server {
                <solutions::Solutions as sim::Kit>::new_server(idempotent)
            }

            fn charge_order<P: sim::Payments, K: sim::KeySource>(
                server: &mut P,
                network: &mut sim::Network,
                keys: &mut K,
                order: &sim::Order,
                max_attempts: u32,
            ) -> sim::ChargeOutcome {
                <solutions::Solutions as sim::Kit>::charge_order(
                    server,
                    network,
                    keys,
                    order,
                    max_attempts,
                )
            }

            fn reconcile(
                orders: &[sim::Order],
                ledger: &[sim::LedgerEntry],
            ) -> sim::Reconciliation {
                <solutions::Solutions as sim::Kit>::reconcile(orders, ledger)
            }

            type AtomicServer = $server;

            fn new_atomic_server() -> Self::AtomicServer {
                <$server>::default()
            }
        }
    };
}

// ---------------------------------------------------------------- servers

/// The ledger and store every mutant keeps, and their common steps.
#[derive(Debug, Default)]
struct Parts {
    ledger: Mutex<Vec<LedgerEntry>>,
    store: Mutex<SharedStore>,
}

impl Parts {
    /// One row under the ledger's lock; its result.
    fn charge(&self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        let mut ledger = self.ledger.lock();
        let charge_id = ChargeId::next_after(ledger.len());
        ledger.push(LedgerEntry {
            key,
            order_id,
            amount,
            charge_id,
        });
        ChargeResult {
            charge_id,
            amount,
            status: ChargeStatus::Captured,
        }
    }

    /// The answer of a key already in the store, if it is there.
    fn known(
        state: Option<KeyState>,
        request: ChargeRequest,
    ) -> Option<Result<ChargeResult, ChargeError>> {
        Some(match state? {
            s if s.request() != request => Err(ChargeError::KeyReused),
            KeyState::Completed(_, result) => Ok(result),
            KeyState::InFlight(_) => Err(ChargeError::InFlight),
        })
    }

    fn store_result(&self, key: IdempotencyKey, request: ChargeRequest, result: ChargeResult) {
        self.store
            .lock()
            .insert(key, KeyState::Completed(request, result));
    }
}

/// The key is claimed atomically, but the store's lock is released between
/// the store and the ledger with the claim taken back ("cleaned up" before
/// charging): a retry arriving in that gap finds nothing and charges too.
#[derive(Debug, Default)]
struct ReleasedBetweenStoreAndLedger(Parts);

impl SharedPayments for ReleasedBetweenStoreAndLedger {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest { order_id, amount };
        {
            let mut store = self.0.store.lock();
            if let Some(answer) = Parts::known(store.get(&key).copied(), request) {
                return answer;
            }
            store.insert(key, KeyState::InFlight(request));
        }
        self.0.store.lock().remove(&key);
        let result = self.0.charge(key, order_id, amount);
        self.0.store_result(key, request, result);
        Ok(result)
    }
    fn ledger(&self) -> Vec<LedgerEntry> {
        self.0.ledger.lock().clone()
    }
}

/// A retry that finds the key in flight answers the conflict (409)… and
/// charges anyway.
#[derive(Debug, Default)]
struct ConflictThatCharges(Parts);

impl SharedPayments for ConflictThatCharges {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest { order_id, amount };
        let found = {
            let mut store = self.0.store.lock();
            let found = store.get(&key).copied();
            if found.is_none() {
                store.insert(key, KeyState::InFlight(request));
            }
            found
        };
        match Parts::known(found, request) {
            Some(Err(ChargeError::InFlight)) => {
                self.0.charge(key, order_id, amount);
                Err(ChargeError::InFlight)
            }
            Some(answer) => answer,
            None => {
                let result = self.0.charge(key, order_id, amount);
                self.0.store_result(key, request, result);
                Ok(result)
            }
        }
    }
    fn ledger(&self) -> Vec<LedgerEntry> {
        self.0.ledger.lock().clone()
    }
}

/// Marks the key in flight only after charging: the lookup, the charge,
/// then the mark and the result.
#[derive(Debug, Default)]
struct MarksAfterCharging(Parts);

impl SharedPayments for MarksAfterCharging {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest { order_id, amount };
        let found = self.0.store.lock().get(&key).copied();
        if let Some(answer) = Parts::known(found, request) {
            return answer;
        }
        let result = self.0.charge(key, order_id, amount);
        self.0.store.lock().insert(key, KeyState::InFlight(request));
        self.0.store_result(key, request, result);
        Ok(result)
    }
    fn ledger(&self) -> Vec<LedgerEntry> {
        self.0.ledger.lock().clone()
    }
}

/// Claims the key atomically, but once a retry has collided with it the
/// call that charged answers `Err(InFlight)` too ("everybody retries"): the
/// caller whose charge went through never gets its result (the breaker's
/// finding: it had full marks).
#[derive(Debug, Default)]
struct ChargerAnswersInFlight(Parts, Mutex<Vec<IdempotencyKey>>);

impl SharedPayments for ChargerAnswersInFlight {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest { order_id, amount };
        {
            let mut store = self.0.store.lock();
            let known = Parts::known(store.get(&key).copied(), request);
            if known == Some(Err(ChargeError::InFlight)) {
                self.1.lock().push(key);
            }
            if let Some(answer) = known {
                return answer;
            }
            store.insert(key, KeyState::InFlight(request));
        }
        let result = self.0.charge(key, order_id, amount);
        self.0.store_result(key, request, result);
        if self.1.lock().contains(&key) {
            return Err(ChargeError::InFlight);
        }
        Ok(result)
    }
    fn ledger(&self) -> Vec<LedgerEntry> {
        self.0.ledger.lock().clone()
    }
}

/// A store atomic only for the keys `W` is careful with, check-then-insert
/// for any other.
#[derive(Debug, Default)]
struct CarefulOnlyWith<W>(
    solutions::AtomicPaymentsServer,
    sim::non_atomic::CheckThenInsertServer,
    PhantomData<fn() -> W>,
);

/// The keys a [`CarefulOnlyWith`] store is careful with.
trait Careful {
    fn with(key: IdempotencyKey) -> bool;
}

impl<W: Careful> SharedPayments for CarefulOnlyWith<W> {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        if W::with(key) {
            self.0.charge(key, order_id, amount)
        } else {
            self.1.charge(key, order_id, amount)
        }
    }
    fn ledger(&self) -> Vec<LedgerEntry> {
        // Only one of the two servers is used in a history of keys of one
        // kind; the caught cases have keys of one kind.
        let mut rows = self.0.ledger();
        rows.extend(self.1.ledger());
        rows
    }
}

/// Careful only with the small keys the fixed checks use (K1, K2) (the
/// breaker's finding: it had full marks).
#[derive(Debug, Default)]
struct SmallKeys;

impl Careful for SmallKeys {
    fn with(key: IdempotencyKey) -> bool {
        key.0 < 1000
    }
}

/// Careful only with the keys of the judge's public concurrent histories:
/// the fixed checks' and those of the generated histories of the public
/// seed (the judge's source draws them: `store_schedules::generated`).
/// The public run cannot tell it from an atomic store; a graded run draws
/// its generated histories from the hidden seed (issue 27).
#[derive(Debug, Default)]
struct PublicKeys;

impl Careful for PublicKeys {
    fn with(key: IdempotencyKey) -> bool {
        static KEYS: std::sync::OnceLock<std::collections::HashSet<u64>> =
            std::sync::OnceLock::new();
        let public = KEYS.get_or_init(|| {
            schedules::generated(schedules::SEED, schedules::HISTORIES)
                .iter()
                .flat_map(|h| h.before.iter().chain(h.threads.iter().flatten()))
                .map(|c| c.key.0)
                .collect()
        });
        key.0 < 1000 || public.contains(&key.0)
    }
}

/// Store: while a key is in flight, a request with the same amount is
/// taken for its retry (409) whatever its order, so the same key under
/// another order racing the first gets `Err(InFlight)` instead of
/// `Err(KeyReused)` (the 422). Right once the key completed, and for
/// another amount: only a generated history whose reuse changes the order
/// (issue 27) catches it.
#[derive(Debug, Default)]
struct InFlightOrderBlind(Parts);

impl SharedPayments for InFlightOrderBlind {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest { order_id, amount };
        {
            let mut store = self.0.store.lock();
            let found = store.get(&key).copied();
            if let Some(KeyState::InFlight(first)) = found
                && first.amount == amount
            {
                return Err(ChargeError::InFlight);
            }
            if let Some(answer) = Parts::known(found, request) {
                return answer;
            }
            store.insert(key, KeyState::InFlight(request));
        }
        let result = self.0.charge(key, order_id, amount);
        self.0.store_result(key, request, result);
        Ok(result)
    }

    fn ledger(&self) -> Vec<LedgerEntry> {
        self.0.ledger.lock().clone()
    }
}

kit!(Reference, solutions::AtomicPaymentsServer);
kit!(InFlightOrderBlindKit, InFlightOrderBlind);
kit!(PublicKeysKit, CarefulOnlyWith<PublicKeys>);
kit!(SmallKeysKit, CarefulOnlyWith<SmallKeys>);
kit!(ChargerInFlightKit, ChargerAnswersInFlight);
// Check-then-insert: the lookup and the insert under two separate critical
// sections, no in-flight mark between them (lesson 4's contrast in `sim`).
kit!(CheckThenInsertKit, sim::non_atomic::CheckThenInsertServer);
kit!(ReleasedKit, ReleasedBetweenStoreAndLedger);
kit!(ConflictKit, ConflictThatCharges);
kit!(MarksAfterKit, MarksAfterCharging);

// ------------------------------------------------------------------ tests

/// The counterexample of concurrent check `id` against kit `K`.
fn caught<K: sim::Kit>(id: &str) -> (String, Vec<String>, String) {
    match schedules::run(&exec::<K>(), id) {
        Err(Verdict::Counterexample {
            summary,
            trace,
            hint,
        }) => (summary, trace, hint),
        other => panic!("{id}: se esperaba un contraejemplo, no {other:?}"),
    }
}

/// The schedule of the replay command in `trace`.
fn schedule_of(trace: &[String]) -> (String, Vec<u32>) {
    let cmd = trace
        .iter()
        .find_map(|l| l.strip_prefix("repite este horario: "))
        .expect("a replay command");
    let (history, schedule) = cmd
        .strip_prefix("cargo run -p grader -- repetir-horario ")
        .and_then(|rest| rest.split_once(" --horario "))
        .expect("history and schedule");
    (
        history.to_string(),
        schedules::parse_schedule(schedule).expect("a schedule"),
    )
}

#[test]
fn the_reference_passes_every_concurrent_check_with_every_seed() {
    for &(id, _) in schedules::CHECKS {
        assert_eq!(schedules::run(&exec::<Reference>(), id), Ok(()), "{id}");
    }
    for seed in 0..6 {
        for id in [GENERATED, THREE_RETRIES] {
            assert_eq!(
                schedules::run_seeded(&exec::<Reference>(), id, seed),
                Ok(()),
                "{id} semilla {seed}"
            );
        }
    }
}

#[test]
fn check_then_insert_is_caught_with_the_lessons_trace() {
    let (summary, trace, hint) = caught::<CheckThenInsertKit>(TWO_RETRIES);
    assert!(
        summary.starts_with("2 hilo(s), 2 llamada(s) · los "),
        "{summary}"
    );
    assert!(
        summary.contains("horarios posibles (exhaustivo)"),
        "{summary}"
    );
    assert!(
        summary.ends_with("se esperaba una sola fila en el ledger para K1"),
        "{summary}"
    );
    assert_eq!(
        trace[0],
        "historia: hilo 1: charge(K1, ord_0001, $500) · hilo 2: charge(K1, ord_0001, $500)"
    );
    let line = &trace[1];
    assert!(line.starts_with("horario: "), "{line}");
    for step in [
        "hilo 1: busca K1 → no está",
        "hilo 2: busca K1 → no está",
        "hilo 1: cobra ch_0001",
    ] {
        assert!(line.contains(step), "{step} en {line}");
    }
    assert!(
        line.ends_with("hilo 2: cobra ch_0002   ← aquí se cuela el segundo cobro"),
        "{line}"
    );
    assert!(
        trace
            .iter()
            .any(|l| l == "ledger al final: 2 fila(s): ch_0001 K1 $500 · ch_0002 K1 $500"),
        "{trace:#?}"
    );
    assert!(hint.contains("un solo paso atómico"), "{hint}");
}

#[test]
fn check_then_insert_replays_exactly_its_schedule() {
    let (_, trace, _) = caught::<CheckThenInsertKit>(TWO_RETRIES);
    let (history, schedule) = schedule_of(&trace);
    assert_eq!(history, "K1:1:500/K1:1:500");
    let history = schedules::parse_history(&history, None).unwrap();
    let wrong = schedules::replay(&exec::<CheckThenInsertKit>(), &history, &schedule).unwrap();
    assert!(!wrong.fine);
    assert_eq!(
        wrong.lines[..trace.len()],
        trace[..],
        "the replay tells the same steps"
    );
    // Its drawing (`repetir-horario --html`): a column per thread, a row
    // per numbered step, the second charge the one step in red.
    let steps = wrong
        .lines
        .iter()
        .filter(|l| {
            l.trim_start()
                .split_once(". ")
                .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
        })
        .count();
    assert!(steps >= 6, "{:#?}", wrong.lines);
    for lane in ["hilo 1", "hilo 2"] {
        assert!(
            wrong
                .drawing
                .contains(&format!("font-weight=\"bold\">{lane}</text>")),
            "{}",
            wrong.drawing
        );
    }
    assert!(
        !wrong.drawing.contains(">antes</text>"),
        "{}",
        wrong.drawing
    );
    assert_eq!(wrong.drawing.matches("<title>").count(), steps);
    assert_eq!(
        wrong
            .drawing
            .matches("fill=\"#b00020\">cobra ch_0002</text>")
            .count(),
        1,
        "{}",
        wrong.drawing
    );
    assert_eq!(wrong.drawing.matches("fill=\"#b00020\"").count(), 2);
    // The same schedule with the reference: one charge, nothing in red.
    let right = schedules::replay(&exec::<Reference>(), &history, &schedule).unwrap();
    assert!(right.fine, "{:#?}", right.lines);
    assert!(!right.drawing.contains("#b00020"), "{}", right.drawing);
    assert_eq!(right.drawing.matches("\">cobra ch_").count(), 1);
}

/// `K` is caught by the generated histories, shrunk to two threads of one
/// call each, with the second charge marked.
fn shrunk_from_the_generated_histories<K: sim::Kit>() {
    let (summary, trace, _) = caught::<K>(GENERATED);
    assert!(
        summary.starts_with("2 hilo(s), 2 llamada(s) · "),
        "{summary}"
    );
    assert!(
        trace[1].contains("← aquí se cuela el segundo cobro"),
        "{}",
        trace[1]
    );
}

#[test]
fn check_then_insert_is_shrunk_from_the_generated_histories() {
    shrunk_from_the_generated_histories::<CheckThenInsertKit>();
}

#[test]
fn a_lock_released_between_store_and_ledger_lets_a_retry_charge() {
    let (summary, trace, _) = caught::<ReleasedKit>(TWO_RETRIES);
    assert!(
        summary.ends_with("se esperaba una sola fila en el ledger para K1"),
        "{summary}"
    );
    assert!(trace[1].contains("quita K1 del store"), "{}", trace[1]);
    assert!(
        trace[1].ends_with("cobra ch_0002   ← aquí se cuela el segundo cobro"),
        "{}",
        trace[1]
    );
    assert!(
        caught::<ReleasedKit>(THREE_RETRIES)
            .0
            .starts_with("2 hilo(s)")
    );
}

#[test]
fn a_conflict_that_still_charges_is_caught() {
    let (summary, trace, _) = caught::<ConflictKit>(TWO_RETRIES);
    assert!(
        summary.ends_with("se esperaba una sola fila en el ledger para K1"),
        "{summary}"
    );
    assert!(trace[1].contains("busca K1 → en curso"), "{}", trace[1]);
    assert!(
        trace[1].ends_with("cobra ch_0002   ← aquí se cuela el segundo cobro"),
        "{}",
        trace[1]
    );
}

#[test]
fn marking_in_flight_only_after_charging_is_caught() {
    let (summary, trace, _) = caught::<MarksAfterKit>(TWO_RETRIES);
    assert!(
        summary.ends_with("se esperaba una sola fila en el ledger para K1"),
        "{summary}"
    );
    assert!(
        trace[1].contains("hilo 2: busca K1 → no está"),
        "{}",
        trace[1]
    );
    // A reuse with another amount racing the first charges too.
    let (summary, _, _) = caught::<MarksAfterKit>(REUSE_RACE);
    assert!(summary.contains("se esperaba"), "{summary}");
}

#[test]
fn the_mutants_pass_the_sequential_checks_and_fail_only_concurrent_ones() {
    // Without the long histories: this binary's locks are the explorer's,
    // where a million calls in real threads cannot run (the plain suite's
    // `puntos_ciegos` grades them).
    let mut catalog = Catalog::new(Vec::new(), &[Exercise::Store]);
    catalog.large_cases = false;
    let reference = grading::grade(&catalog, &exec::<Reference>(), "solutions", 2);
    assert!(reference.all_passed(), "{:#?}", reference.results);
    for (name, graded) in [
        (
            "check-then-insert",
            grading::grade(&catalog, &exec::<CheckThenInsertKit>(), "exercises", 2),
        ),
        (
            "suelta-entre-store-y-ledger",
            grading::grade(&catalog, &exec::<ReleasedKit>(), "exercises", 2),
        ),
        (
            "conflicto-que-cobra",
            grading::grade(&catalog, &exec::<ConflictKit>(), "exercises", 2),
        ),
        (
            "marca-despues-de-cobrar",
            grading::grade(&catalog, &exec::<MarksAfterKit>(), "exercises", 2),
        ),
    ] {
        let failing: Vec<&str> = graded
            .results
            .iter()
            .filter(|(_, v)| !v.passed())
            .map(|(c, _)| c.id.as_str())
            .collect();
        assert!(
            failing.contains(&"atomico/dos-reintentos-a-la-vez-un-solo-cobro"),
            "{name}: {failing:?}"
        );
        for (check, verdict) in &graded.results {
            let concurrent = matches!(check.target, CheckTarget::Fixed(id) if schedules::owns(id));
            assert!(
                concurrent || verdict.passed(),
                "{name}: {} {verdict:?}",
                check.id
            );
        }
        // Replays after completion never race: every mutant answers them.
        assert!(
            graded
                .results
                .iter()
                .any(|(c, v)| c.id.ends_with(REPLAYS_AFTER) && v.passed()),
            "{name}"
        );
    }
}

/// A check-then-insert store breaks the same rule in several concurrent
/// checks: the report tells it in full once, then "la misma causa que
/// arriba" (the student's trial counted ~80 lines of the same schedule).
#[test]
fn one_broken_rule_is_told_once_in_the_report() {
    use grader::report::sheet::Sheet;
    use grader::report::text::{Hints, exercise_block};
    use judge::rubric::Rubric;
    use judge::variants::Plan;
    let catalog = Catalog::new(Vec::new(), &[Exercise::Store]);
    let graded = grading::grade(&catalog, &exec::<CheckThenInsertKit>(), "exercises", 2);
    let sheet = Sheet::new(&graded, &Rubric::kit().unwrap(), &Plan::default(), &[]);
    let text = exercise_block(&sheet, Exercise::Store, "vuelve a correr", Hints::Shown);
    let told = text.matches("horario: hilo").count();
    let same = text.matches("la misma causa que arriba").count();
    assert_eq!(told, 1, "{text}");
    assert!(same >= 2, "{text}");
}

#[test]
fn the_race_scenario_shows_the_second_charge_only_without_atomicity() {
    let r = race::run(&exec::<Reference>()).unwrap();
    assert!(r.fine() && !r.own_schedule);
    let lines = race::lines(&r);
    assert_eq!(
        lines[0],
        "ESCENARIO D  ·  Dos reintentos a la vez, la misma key"
    );
    assert!(
        lines.contains(&"  SIN atomicidad         -> cargos=2  TOTAL COBRADO=$1000".to_string()),
        "{lines:#?}"
    );
    assert!(
        lines.contains(&"  CON store atómico      -> cargos=1  TOTAL COBRADO=$500".to_string()),
        "{lines:#?}"
    );
    let without = lines.iter().position(|l| l.starts_with("  SIN ")).unwrap();
    assert!(
        lines[without + 1].ends_with("hilo 2: cobra ch_0002   ← aquí se cuela el segundo cobro"),
        "{}",
        lines[without + 1]
    );
    assert_eq!(
        r.with.outcome.schedule.len(),
        18,
        "{:?}",
        r.with.outcome.schedule
    );
    // comparar's section: the same figures, side by side.
    let section = race::section(Ok(&r));
    assert!(
        section.contains(
            "    cargos en el ledger              :                  2                     1\n"
        ),
        "{section}"
    );
    assert!(
        section.contains(":               $500                    $0\n"),
        "{section}"
    );
    // Deterministic: the same lines every run.
    assert_eq!(
        race::lines(&race::run(&exec::<Reference>()).unwrap()),
        lines
    );
}

/// Every race mutant is shown charging twice (or breaking another rule of
/// lesson 4) on its own side of `escenario carrera`, whatever its pattern of
/// locks: the schedule shown is one where it breaks, found by exploring it,
/// not the contrast's replayed (where a store that races elsewhere showed
/// one charge).
#[test]
fn every_race_mutant_breaks_on_its_own_side_of_the_race() {
    fn shown<K: sim::Kit>() -> race::Race {
        race::run(&exec::<K>()).unwrap()
    }
    for (name, r) in [
        ("check-then-insert", shown::<CheckThenInsertKit>()),
        ("released", shown::<ReleasedKit>()),
        ("conflict", shown::<ConflictKit>()),
        ("marks after", shown::<MarksAfterKit>()),
        ("charger in flight", shown::<ChargerInFlightKit>()),
    ] {
        assert!(!r.fine(), "{name}");
        let lines = race::lines(&r);
        let con = lines.iter().position(|l| l.starts_with("  CON ")).unwrap();
        assert!(lines[con + 1].contains("← aquí"), "{name}: {lines:#?}");
        assert!(
            lines.iter().any(|l| l.starts_with("  (repite el de tu store con: cargo run -p grader -- repetir-horario K1:1:500/K1:1:500 --horario ")),
            "{name}: {lines:#?}"
        );
        assert!(
            race::section(Ok(&r)).contains("✗ tu store: se esperaba "),
            "{name}"
        );
    }
    // The mutant that marks K1 only after charging races in other schedules
    // than the contrast's first: it charges twice in the one shown.
    let r = shown::<MarksAfterKit>();
    assert_eq!(r.with.charges(), 2);
    assert!(r.own_schedule);
}

/// Locks the store, then the ledger, for odd keys, and the other way round
/// for even ones: two keys at once can deadlock.
#[derive(Debug, Default)]
struct LocksBothWays(Parts);

impl SharedPayments for LocksBothWays {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest { order_id, amount };
        let mut store;
        let ledger;
        if key.0.is_multiple_of(2) {
            ledger = self.0.ledger.lock();
            store = self.0.store.lock();
        } else {
            store = self.0.store.lock();
            ledger = self.0.ledger.lock();
        }
        if let Some(answer) = Parts::known(store.get(&key).copied(), request) {
            return answer;
        }
        let charge_id = ChargeId::next_after(ledger.len());
        drop(ledger);
        let result = ChargeResult {
            charge_id,
            amount,
            status: ChargeStatus::Captured,
        };
        store.insert(key, KeyState::Completed(request, result));
        drop(store);
        self.0.ledger.lock().push(LedgerEntry {
            key,
            order_id,
            amount,
            charge_id,
        });
        Ok(result)
    }
    fn ledger(&self) -> Vec<LedgerEntry> {
        self.0.ledger.lock().clone()
    }
}

kit!(LocksBothWaysKit, LocksBothWays);

#[test]
fn a_deadlock_names_the_schedule_it_happened_in() {
    match schedules::run(&exec::<LocksBothWaysKit>(), TWO_KEYS) {
        Err(Verdict::Failed {
            expected,
            got,
            hint,
            ..
        }) => {
            assert!(
                got.starts_with(
                    "bloqueo mutuo (deadlock): en este horario todos los hilos quedaron esperando"
                ),
                "{got}"
            );
            assert!(
                expected.starts_with("que cada llamada de la historia termine"),
                "{expected}"
            );
            let (_, cmd) = hint.rsplit_once(" · repítelo con: ").expect(&hint);
            assert!(
                cmd.starts_with(
                    "cargo run -p grader -- repetir-horario K1:1:500/K2:2:300 --horario "
                ),
                "{cmd}"
            );
            let schedule = cmd.rsplit_once("--horario ").unwrap().1;
            assert!(schedules::parse_schedule(schedule).is_ok(), "{cmd}");
            assert!(!format!("{got}{hint}").contains("blocked"), "{got}");
        }
        other => panic!("se esperaba el bloqueo mutuo, no {other:?}"),
    }
}

/// Spins until the first request's result is stored: under the explorer
/// a retry that waits in a loop never lets the first one finish.
#[derive(Debug, Default)]
struct SpinsWhileInFlight(Parts);

impl SharedPayments for SpinsWhileInFlight {
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest { order_id, amount };
        loop {
            let mut store = self.0.store.lock();
            match store.get(&key).copied() {
                Some(KeyState::InFlight(_)) => continue,
                Some(KeyState::Completed(r, result)) if r == request => return Ok(result),
                Some(KeyState::Completed(..)) => return Err(ChargeError::KeyReused),
                None => {
                    store.insert(key, KeyState::InFlight(request));
                    break;
                }
            }
        }
        let result = self.0.charge(key, order_id, amount);
        self.0.store_result(key, request, result);
        Ok(result)
    }
    fn ledger(&self) -> Vec<LedgerEntry> {
        self.0.ledger.lock().clone()
    }
}

kit!(SpinsKit, SpinsWhileInFlight);

/// A spin loop is told in Spanish, without shuttle's English nor a schedule
/// of a hundred thousand steps: PCT's schedules (three retries) keep the
/// spinning thread first, and it never lets the first request finish.
#[test]
fn a_spin_loop_is_told_in_spanish_without_its_huge_schedule() {
    match schedules::run(&exec::<SpinsKit>(), THREE_RETRIES) {
        Err(Verdict::Failed { got, hint, .. }) => {
            assert!(
                got.starts_with("el horario no terminó en 100000 pasos del explorador"),
                "{got}"
            );
            assert!(
                got.ends_with("pasos, demasiado largo para repetirlo)"),
                "{got}"
            );
            assert!(got.len() < 400, "{}", got.len());
            assert!(!hint.contains("repítelo"), "{hint}");
            assert!(!got.contains("max_steps"), "{got}");
        }
        other => panic!("se esperaba el horario que no termina, no {other:?}"),
    }
}

#[test]
fn the_call_that_charged_answering_in_flight_is_caught() {
    let (summary, trace, hint) = caught::<ChargerInFlightKit>(TWO_RETRIES);
    assert!(
        summary.ends_with("se esperaba ch_0001 $500 para la llamada que cobró K1"),
        "{summary}"
    );
    assert!(
        trace[1].ends_with("← aquí responde Err(InFlight) (409, en curso)"),
        "{}",
        trace[1]
    );
    assert!(
        hint.starts_with("la llamada que escribió la fila en el ledger recibe su resultado"),
        "{hint}"
    );
}

#[test]
fn a_store_careful_only_with_the_fixed_checks_keys_is_caught() {
    shrunk_from_the_generated_histories::<SmallKeysKit>();
}

/// A store careful only with the keys of the public concurrent histories
/// passes every concurrent check of the public run (the attack works
/// there: its every input is in the kit's source), and fails the
/// generated histories of a graded run, drawn from the hidden seed.
#[test]
fn a_store_careful_only_with_the_public_histories_keys_fails_a_graded_run() {
    let exec = exec::<PublicKeysKit>();
    for &(id, _) in schedules::CHECKS {
        assert_eq!(schedules::run(&exec, id), Ok(()), "{id}");
    }
    let mut graded = Catalog::new(Vec::new(), &[Exercise::Store]);
    graded.large_cases = false;
    graded.add_model_variants(&[judge::variants::Variant::from_seed(1)]);
    for check in graded.checks.iter().filter(|c| c.id.contains('/')) {
        let verdict = graded.run(&exec, check);
        if check.id == format!("atomico/{GENERATED}") {
            assert!(
                matches!(verdict, Verdict::Counterexample { .. }),
                "{}: {verdict:?}",
                check.id
            );
        } else if matches!(check.target, CheckTarget::Fixed(_)) {
            assert_eq!(verdict, Verdict::Passed, "{}", check.id);
        }
    }
}

/// The hint of a second charge says what the thread that charged saw of
/// the key: nothing there (check-then-insert), the key in flight (a
/// conflict that charges), the key removed before its look.
#[test]
fn the_second_charge_hint_follows_what_the_charging_thread_saw() {
    let (_, _, contrast) = caught::<CheckThenInsertKit>(TWO_RETRIES);
    assert!(
        contrast
            .starts_with("buscar la key y marcarla en curso tienen que ser un solo paso atómico"),
        "{contrast}"
    );
    let (_, _, conflict) = caught::<ConflictKit>(TWO_RETRIES);
    assert!(
        conflict.starts_with("hilo 2 encontró K1 en curso (paso ")
            && conflict.contains("y cobró igual"),
        "{conflict}"
    );
    let (_, _, released) = caught::<ReleasedKit>(TWO_RETRIES);
    assert!(
        released.contains("quitó K1 del store (paso ") && released.contains("antes de que hilo"),
        "{released}"
    );
}

/// Issue 27: a reuse under another order while the first request is in
/// flight. Every fixed concurrent check passes (its reuse race changes the
/// amount); the generated histories, whose reuses now change the order
/// too, catch it with a shrunk history.
#[test]
fn a_reuse_with_another_order_in_flight_answered_as_a_retry_is_caught() {
    let exec = exec::<InFlightOrderBlindKit>();
    for &(id, _) in schedules::CHECKS {
        if id != GENERATED {
            assert_eq!(schedules::run(&exec, id), Ok(()), "{id}");
        }
    }
    let (summary, trace, hint) = caught::<InFlightOrderBlindKit>(GENERATED);
    assert!(summary.starts_with("2 hilo(s)"), "{summary}");
    let text = format!("{summary}\n{}\n{hint}", trace.join("\n"));
    assert!(text.contains("Err(KeyReused)"), "{text}");
    println!("InFlightOrderBlind: {text}");
}
