//! A reconciliation that memorized the kit's fleets passes every fixture
//! and fails every hidden variant, and the command each variant failure
//! prints, parsed as the grader parses it, grades the same variant to the
//! same verdict. Graded by the judge's checks in this process. (Moved from
//! `grader/tests/variantes.rs`: the judge no longer links implementations.)

use crate::informes;

use crate::kit;
use crate::support;

use std::collections::BTreeMap;
use std::sync::OnceLock;

use clap::Parser;
use grader::cli::Cli;
use grader::report::sheet::Sheet;
use informes::{args_of, fixtures, reproduction};
use judge::checks::Catalog;
use judge::rubric::Rubric;
use judge::variants::Plan;
use judge::verdict::Exercise;
use sim::{Kit, LedgerEntry, Money, Order, Reconciliation};
use solutions::Solutions;

type Fingerprint = (usize, usize, Money);

fn fingerprint(orders: &[Order], ledger: &[LedgerEntry]) -> Fingerprint {
    (
        orders.len(),
        ledger.len(),
        ledger.iter().map(|r| r.amount).sum(),
    )
}

/// The answers for every ledger of the kit's fleets, "looked up once".
fn answers() -> &'static BTreeMap<Fingerprint, Reconciliation> {
    static ANSWERS: OnceLock<BTreeMap<Fingerprint, Reconciliation>> = OnceLock::new();
    ANSWERS.get_or_init(|| {
        let mut table = BTreeMap::new();
        for s in fixtures() {
            let orders = s.fleet.orders();
            for idempotent in [false, true] {
                // The ledger the lesson's client and server leave for
                // this fleet: the one the checks reconcile.
                let ledger = protocol::lesson::ledger(&s.fleet, &orders, idempotent);
                table.insert(
                    fingerprint(&orders, &ledger),
                    Solutions::reconcile(&orders, &ledger),
                );
            }
        }
        table
    })
}

/// Correct on tiny inputs, memorized on the kit's fleets, and on any
/// other fleet the lesson's "one row per order" guess.
fn memorized(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    if orders.len() <= 10 {
        return Solutions::reconcile(orders, ledger);
    }
    if let Some(r) = answers().get(&fingerprint(orders, ledger)) {
        return *r;
    }
    let mut guess = Solutions::reconcile(orders, &[]);
    guess.charged = guess.intended;
    guess.charges = orders.len() as u64;
    guess.orders_never_charged = 0;
    guess.undercharge = Money::ZERO;
    guess
}

kit!(Memorized {
    reconcile: memorized
});

/// Grades `Memorized` with the command line `args` (as the binary would
/// build its catalog from them).
///
/// Without the large cases: the one the first variant's model check plays
/// (2^20 orders) catches `Memorized` too, as
/// [`the_large_case_catches_it_too`] shows; here the fleets are the point.
fn grade(args: &[String]) -> (Plan, Sheet) {
    grade_with(args, false)
}

/// [`grade`], with or without the large cases.
fn grade_with(args: &[String], large: bool) -> (Plan, Sheet) {
    let cli =
        Cli::try_parse_from(std::iter::once("grader".to_string()).chain(args.iter().cloned()))
            .unwrap();
    let plan = Plan::from_parts(cli.variants, cli.seed, &cli.variant, None).unwrap();
    let mut scenarios = fixtures();
    scenarios.extend(plan.scenarios());
    let mut catalog =
        Catalog::new(scenarios, &grader::commands::grade::exercises(&cli)).without_explored();
    catalog.add_model_variants(&plan.variants);
    catalog.large_cases = large;
    let graded = support::grade_in_process::<Memorized>(&catalog);
    let sheet = Sheet::new(&graded, &Rubric::kit().unwrap(), &plan, &[]);
    (plan, sheet)
}

#[test]
fn passes_every_kit_fixture_and_fails_every_variant_reproducibly() {
    let args: Vec<String> = [
        "--ejercicio",
        "reconciliacion",
        "--variantes",
        "4",
        "--semilla",
        "77",
    ]
    .map(String::from)
    .to_vec();
    let (plan, sheet) = grade(&args);
    assert_eq!(plan.variants.len(), 4);
    let rows: Vec<_> = sheet.of(Exercise::Reconciliacion).collect();
    // A variant's fleet is not one the solution memorized; its model check
    // is small random books (at most 10 orders), which it answers right.
    let fleet_variant =
        |r: &grader::report::sheet::Row| r.variant && !r.check.id.ends_with("-modelo");
    for row in &rows {
        assert_eq!(
            row.verdict.passed(),
            !fleet_variant(row),
            "{}: {:?}",
            row.check.id,
            row.verdict
        );
    }
    assert_eq!(rows.iter().filter(|r| r.variant).count(), 8);
    assert_eq!(rows.iter().filter(|r| fleet_variant(r)).count(), 4);
    // Every kit check earned, and the variant pool's 10 points shared by 8
    // checks: only the 4 model checks' 1.25 each.
    let (points, max) = sheet.total();
    assert_eq!(points.to_string(), "33");
    assert_eq!(max.to_string(), "38");

    for row in rows.iter().filter(|r| fleet_variant(r)) {
        let variant = plan
            .find(row.check.id.trim_start_matches("reconciliacion/"))
            .unwrap();
        let explanation = row.explanation();
        assert!(explanation.contains(&variant.describe()), "{explanation}");
        let command = reproduction(&explanation);
        assert_eq!(
            command,
            format!(
                "cargo run -p grader -- --ejercicio reconciliacion --variante {}",
                variant.seed
            )
        );
        // The printed command, parsed as the binary parses it, grades the
        // same variant to the same verdict.
        let (again_plan, again) = grade(&args_of(&command));
        assert_eq!(again_plan.variants, vec![variant.clone()]);
        let same = again
            .rows
            .iter()
            .find(|r| r.check.id == row.check.id)
            .unwrap();
        assert_eq!(same.verdict, row.verdict);
        assert!(!same.verdict.passed());
    }
}

/// The large case the first variant's model check plays (2^20 + 1 orders,
/// drawn from its seed) is no kit fleet: `Memorized` guesses, and loses
/// that check, told as a summary.
#[test]
fn the_large_case_catches_it_too() {
    let args: Vec<String> = [
        "--ejercicio",
        "reconciliacion",
        "--variantes",
        "1",
        "--semilla",
        "77",
    ]
    .map(String::from)
    .to_vec();
    let (plan, sheet) = grade_with(&args, true);
    let failing: Vec<_> = sheet
        .of(Exercise::Reconciliacion)
        .filter(|r| !r.verdict.passed())
        .map(|r| r.check.id.clone())
        .collect();
    let carrier = format!("reconciliacion/{}-modelo", plan.variants[0].name());
    assert!(failing.contains(&carrier), "{failing:?}");
    let row = sheet
        .of(Exercise::Reconciliacion)
        .find(|r| r.check.id == carrier)
        .unwrap();
    let explanation = row.explanation();
    assert!(
        explanation.contains("1,048,577 orden(es)")
            && explanation.contains("demasiadas para listarlas"),
        "{explanation}"
    );
}
