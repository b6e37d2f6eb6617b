//! Hostile code, round 4 (issue 27): answers written by someone who has
//! read the judge, to get more than their real behaviour deserves. Graded
//! by the judge's checks in this process (wrong answers, not misbehaving
//! processes: those are `tests/misbehaving.rs`, where round 4's hogs and
//! aborts are).
//!
//! - A server right only for the first N calls of each server it sees (a
//!   store that "nobody fills past N"): it must lose every check whose
//!   history is longer than N, and only those.
//! - Code that recognises one of the judge's fixed cases by its exact
//!   inputs and is right only there: a server that forgets keys after
//!   10,000 calls except in the public large history (its first key is in
//!   the judge's source), a client that caps its attempts at 20,000 except
//!   when `max_attempts` is the public large case's 2^20 + 1. Every random
//!   case and every scenario, hidden variants' included, is shorter, so the
//!   large case is their only catcher: in a graded run (hidden variants)
//!   it is drawn from the secret seed and catches them; the public run,
//!   whose every input is in the kit's source, cannot tell them from right
//!   code. (A reconciliation that memorised the kit's fleets is
//!   `tests/variantes.rs`.)
//!
//! Each costs the other exercises nothing: their checks all pass.
//!
//! `cargo test -p harness --test suite hostil:: -- --nocapture` prints what
//! caught each one.

use crate::support;
use crate::{client, kit};

use std::collections::BTreeSet;

use judge::checks::{Catalog, CheckTarget};
use judge::grading::Graded;
use judge::oracle;
use judge::variants::Variant;
use judge::verdict::{Exercise, Verdict};
use sim::{ChargeId, ChargeResult, IdempotencyKey, LedgerEntry, Money, OrderId};
use support::{Changed, ServerChange, lesson_server};

/// The first key of the judge's public large history of exercise 1
/// (`large_key(0)` in `judge/src/ejercicios/cobro/model.rs`), as an attacker
/// copies it from the source.
const PUBLIC_LARGE_FIRST_KEY: u64 = 0x9e37_79b9_0000_0001;

/// `max_attempts` of the judge's public large case of exercise 2
/// (`LARGE_ATTEMPTS`).
const PUBLIC_LARGE_ATTEMPTS: u32 = (1 << 20) + 1;

/// Server: lesson 2's, for the first `N` calls of each server; after that
/// it no longer looks keys up (a replay is charged again). With
/// `RECOGNISES`, a server whose first call carries the public large
/// history's first key stays right to the end.
struct RightForFirst<const N: u64, const RECOGNISES: bool>;

impl<const N: u64, const RECOGNISES: bool> ServerChange for RightForFirst<N, RECOGNISES> {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        s.calls += 1;
        if RECOGNISES && s.calls == 1 && k.0 == PUBLIC_LARGE_FIRST_KEY {
            // Remembered in the server, as a student's field would be.
            s.first_key.insert((o, a), k);
        }
        let recognised = !s.first_key.is_empty();
        let id = ChargeId::next_after(s.rows.len());
        if s.calls <= N || recognised {
            return lesson_server(s, k, o, a, id);
        }
        let idempotent = std::mem::replace(&mut s.idempotent, false);
        let result = lesson_server(s, k, o, a, id);
        s.idempotent = idempotent;
        result
    }

    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

client! {
    /// Client: the lesson's, with its attempts capped at 20,000 ("nobody
    /// retries more"), except for the public large case's `max_attempts`.
    fn caps_unless_public_large_case(server, network, keys, order, max_attempts) {
        let cap = if max_attempts == PUBLIC_LARGE_ATTEMPTS {
            max_attempts
        } else {
            max_attempts.min(20_000)
        };
        solutions::client::charge_order(server, network, keys, order, cap)
    }
}

kit!(Reference {});
kit!(ServerRightFor24 {
    server: RightForFirst<24, false>
});
kit!(ServerRightFor3000 {
    server: RightForFirst<3_000, false>
});
kit!(ServerRecognisesLargeCase {
    server: RightForFirst<10_000, true>
});
kit!(ClientRecognisesLargeCase {
    client: caps_unless_public_large_case
});

/// The hidden variants of the graded catalog (their seeds stand for the
/// secret ones: none of them is the public seed).
const VARIANT_SEEDS: [u32; 3] = [1, 3, 5];

/// A graded run's catalog: the kit's fixtures and three hidden variants,
/// with their model-based checks.
fn graded_catalog() -> Catalog {
    let variants: Vec<Variant> = VARIANT_SEEDS.map(Variant::from_seed).to_vec();
    let mut scenarios = support::fixtures();
    scenarios.extend(variants.iter().map(Variant::scenario));
    let mut catalog = Catalog::new(scenarios, &[]).without_explored();
    catalog.add_model_variants(&variants);
    catalog
}

/// The failing checks of `graded`, asserting first that they are all of
/// `exercise`: the other exercises lose nothing.
fn failing_in(name: &str, graded: &Graded, exercise: Exercise) -> BTreeSet<String> {
    let failing = support::failing(graded);
    for (id, verdict) in &failing {
        let check = graded.results.iter().find(|(c, _)| &c.id == id).unwrap();
        assert_eq!(
            check.0.exercise, exercise,
            "{name}: another exercise lost {id}: {verdict:?}"
        );
    }
    failing.keys().cloned().collect()
}

/// The summary of `id`'s counterexample in `graded`.
fn counterexample(name: &str, graded: &Graded, id: &str) -> String {
    match support::failing(graded).get(id) {
        Some(Verdict::Counterexample { summary, .. }) => summary.clone(),
        other => panic!("{name}: {id} is not a counterexample: {other:?}"),
    }
}

/// Asserts that `graded`, a server right for its first `n` calls, failed
/// exactly exercise 1's checks that run a history of more than `n` calls
/// with a replay: the model-based check, and each scenario whose world
/// with keys makes more than `n` attempts (some of them retries).
fn loses_what_is_longer(name: &str, graded: &Graded, catalog: &Catalog, n: u64) -> String {
    let failing = failing_in(name, graded, Exercise::Cobro);
    let mut want = BTreeSet::from(["cobro/modelo".to_string()]);
    for (check, _) in &graded.results {
        if let (Exercise::Cobro, CheckTarget::Scenario(i)) = (check.exercise, check.target) {
            let e = oracle::expect(&catalog.scenarios[i].fleet);
            if e.after.attempts > n && e.after.attempts > e.orders {
                want.insert(check.id.clone());
            }
        }
    }
    assert_eq!(failing, want, "{name}");
    let (passed, total) = graded.score();
    assert_eq!(passed, total - want.len(), "{name}");
    counterexample(name, graded, "cobro/modelo")
}

/// Right for its first 24 calls (every fixed check and the short random
/// histories): loses the model-based check, caught by a long random
/// history shrunk to the fewest calls the long band has, and every
/// scenario of more than one order; keeps what is that short.
#[test]
fn a_server_right_for_its_first_24_calls_loses_every_longer_history() {
    let catalog = support::catalog();
    let graded = support::grade_in_process::<ServerRightFor24>(catalog);
    let summary = loses_what_is_longer("ServerRightFor24", &graded, catalog, 24);
    assert!(
        summary.starts_with("300 llamada(s) a charge, con idempotencia"),
        "{summary}"
    );
    println!("ServerRightFor24: {summary}");
}

/// Right for its first 3,000 calls: past every random history (1,500
/// calls) and every fixture's world (2,640 attempts); only the large
/// history of 1,048,586 calls reaches it, and catches it. (Graded on
/// exercise 1 alone: the other exercises' large cases take seconds, and
/// the test above shows they lose nothing.)
#[test]
fn a_server_right_for_its_first_3000_calls_is_caught_by_the_large_history() {
    let catalog = &support::large_catalog(&[Exercise::Cobro]);
    let graded = support::grade_in_process::<ServerRightFor3000>(catalog);
    let summary = loses_what_is_longer("ServerRightFor3000", &graded, catalog, 3_000);
    assert!(summary.contains("(un caso grande fijo,"), "{summary}");
    println!("ServerRightFor3000: {summary}");
}

/// The reference gets full marks in the graded run, the large cases drawn
/// from the first variant's seed included: what the cases below lose is
/// their own.
#[test]
fn the_reference_gets_full_marks_in_a_graded_run() {
    let graded = support::grade_in_process::<Reference>(&graded_catalog());
    assert_eq!(
        support::failing(&graded).len(),
        0,
        "{:?}",
        support::failing(&graded)
    );
}

/// Asserts that `graded`, code right only where it recognises the public
/// large case of `exercise`, lost exactly that exercise's check that plays
/// the graded run's large case (the first hidden variant's model-based
/// check), on that case; returns its summary.
fn caught_by_the_hidden_large_case(name: &str, graded: &Graded, exercise: Exercise) -> String {
    let carrier = format!("{}/variante-{}-modelo", exercise.id(), VARIANT_SEEDS[0]);
    let failing = failing_in(name, graded, exercise);
    assert_eq!(failing, BTreeSet::from([carrier.clone()]), "{name}");
    let summary = counterexample(name, graded, &carrier);
    let words = format!(
        "(un caso grande, después de los 200 aleatorios, semilla {};",
        VARIANT_SEEDS[0]
    );
    assert!(summary.contains(&words), "{name}: {summary}");
    summary
}

/// Forgets keys after 10,000 calls, except in the public large history,
/// which it recognises by its first key: in a graded run the large history
/// is drawn from the secret seed, and catches it.
#[test]
fn a_server_that_recognises_the_public_large_history_loses_the_graded_one() {
    let graded = support::grade_in_process::<ServerRecognisesLargeCase>(&graded_catalog());
    let summary =
        caught_by_the_hidden_large_case("ServerRecognisesLargeCase", &graded, Exercise::Cobro);
    assert!(
        summary.starts_with("1,048,586 llamada(s) a charge, con idempotencia"),
        "{summary}"
    );
    println!("ServerRecognisesLargeCase: {summary}");
}

/// Caps its attempts at 20,000 except for the public large case's
/// `max_attempts`: the graded run's large case has another one, and
/// catches it.
#[test]
fn a_client_that_recognises_the_public_large_case_loses_the_graded_one() {
    let graded = support::grade_in_process::<ClientRecognisesLargeCase>(&graded_catalog());
    let summary =
        caught_by_the_hidden_large_case("ClientRecognisesLargeCase", &graded, Exercise::Cliente);
    assert!(
        summary.starts_with("1 operación(es)") && !summary.contains("max_attempts=65537"),
        "{summary}"
    );
    println!("ClientRecognisesLargeCase: {summary}");
}
