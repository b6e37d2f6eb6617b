//! A wrong solution (the reference, except the overcharge percentage),
//! graded by the judge's checks in this process and rendered in every
//! report format: the same failures, with the same explanation, in text,
//! Gradescope and JUnit. (Moved from `grader/tests/formatos.rs`: the judge
//! no longer links implementations.)

use crate::informes;

use crate::kit;
use crate::support;

use support::mistakes::percent_of_charged;

use grader::report::{self, Format, sheet::Sheet};
use informes::{fixtures, gradescope, junit, junit_failure, score_line};
use judge::checks::Catalog;
use judge::rubric::{Points, Rubric};
use judge::variants::Plan;
use judge::verdict::Exercise;

kit!(PercentOfCharged {
    reconcile: percent_of_charged
});

fn sheet() -> Sheet {
    let graded = support::grade_in_process::<PercentOfCharged>(
        &Catalog::new(fixtures(), &Exercise::LESSONS).without_explored(),
    );
    Sheet::new(&graded, &Rubric::kit().unwrap(), &Plan::default(), &[])
}

#[test]
fn is_reported_the_same_way_in_every_format() {
    let sheet = sheet();
    let failed: Vec<&str> = sheet
        .rows
        .iter()
        .filter(|r| !r.verdict.passed())
        .map(|r| r.check.id.as_str())
        .collect();
    assert!(failed.contains(&"reconciliacion/porcentaje-sobre-la-intencion"));
    assert!(failed.contains(&"reconciliacion/flota-1000"));
    assert!(
        failed.iter().all(|id| id.starts_with("reconciliacion/")),
        "{failed:?}"
    );
    let lost: Points = sheet
        .rows
        .iter()
        .filter(|r| !r.verdict.passed())
        .map(|r| r.max)
        .sum();
    let (points, max) = sheet.total();
    assert_eq!(max, Points::whole(100));
    assert_eq!(points + lost, max);
    let (passed, total) = sheet.passed();

    // Text: the cross, the explanation, the exercise's points, the score.
    let text = judge::output::strip_colours(&report::render(&sheet, Format::Text));
    assert!(text.contains(
        "✗ el porcentaje de sobrecobro es sobre la intención, no sobre lo cobrado (0/2 pts)"
    ));
    assert!(text.contains("36/36 puntos"), "{text}");
    assert!(text.contains(&format!(
        "{}/28 puntos",
        Sheet::points_of(sheet.of(Exercise::Reconciliacion)).0
    )));
    assert_eq!(
        score_line(&text),
        // In process, exercise 4 has only its sequential half (10 of its 20
        // points): its schedules need the explorer's harness.
        format!("Puntaje: {points}/100 puntos ({passed}/{total} verificaciones) · bonus 10/10")
    );

    // Gradescope: the same failures, with the Spanish explanation.
    let v = gradescope(&report::render(&sheet, Format::Gradescope));
    // The bonus (the reference's exercise 4, its sequential 10/10 in
    // process) is extra credit on top.
    assert_eq!(sheet.bonus(), (Points::whole(10), Points::whole(10)));
    assert_eq!(v["score"].as_f64().unwrap(), points.as_f64() + 10.0);
    let json_failed: Vec<&str> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["status"] == "failed")
        .map(|t| t["extra_data"]["id"].as_str().unwrap())
        .collect();
    assert_eq!(json_failed, failed);
    let flota = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["extra_data"]["id"] == "reconciliacion/flota-1000")
        .unwrap();
    let output = flota["output"].as_str().unwrap();
    assert!(
        output.contains("esperado: ")
            && output.contains("obtenido: ")
            && output.contains("pista: "),
        "{output}"
    );
    assert!(output.contains("18.7%"), "{output}");

    // JUnit: the same failures, each carrying the explanation.
    let xml = junit(&report::render(&sheet, Format::Junit));
    assert_eq!(xml.failures, failed.len());
    assert_eq!(
        junit_failure(&xml, "reconciliacion/flota-1000").as_deref(),
        Some(output)
    );
    assert_eq!(junit_failure(&xml, "cobro/flota-1000"), None);
}

/// Exercise 4 left as its stub (`todo!()`).
struct BonusUntouched;

impl support::StoreChange for BonusUntouched {
    fn charge(
        _: &support::Shared<Self>,
        _: sim::IdempotencyKey,
        _: sim::OrderId,
        _: sim::Money,
    ) -> Result<sim::ChargeResult, sim::ChargeError> {
        todo!("Ejercicio 4: el store atómico")
    }
}

kit!(ThreeSolvedBonusUntouched {
    atomic: support::Shared<BonusUntouched>
});

/// The three exercises solved and the bonus still its stub: 100/100 in
/// every format, the bonus pending and never a failure of the grade.
#[test]
fn three_solved_and_the_bonus_stub_score_100_of_100_in_every_format() {
    let graded = support::grade_in_process::<ThreeSolvedBonusUntouched>(&Catalog::new(
        fixtures(),
        &Exercise::LESSONS,
    ));
    let sheet = Sheet::new(&graded, &Rubric::kit().unwrap(), &Plan::default(), &[]);
    assert_eq!(sheet.total(), (Points::whole(100), Points::whole(100)));
    assert_eq!(sheet.bonus(), (Points::ZERO, Points::whole(20)));
    assert!(sheet.full_marks());
    assert!(
        sheet
            .of(Exercise::Store)
            .all(|r| matches!(r.verdict, judge::verdict::Verdict::Pending { .. }))
    );

    let text = judge::output::strip_colours(&report::render(&sheet, Format::Text));
    assert_eq!(
        score_line(&text),
        "Puntaje: 100/100 puntos (40/40 verificaciones) · bonus 0/20: pendiente, todavía es todo!()"
    );
    assert!(
        text.trim_end().ends_with(
            "Progreso: 3/3 ejercicios (el bonus, aparte) · los tres pasan; si quieres el bonus: Ejercicio 4 (exercises/src/atomic_server.rs, AtomicPaymentsServer::charge)"
        ),
        "{text}"
    );
    assert!(!text.contains('✗'), "{text}");

    let v = gradescope(&report::render(&sheet, Format::Gradescope));
    assert_eq!(v["score"].as_f64(), Some(100.0));

    let who = grader::report::classroom50::Identity::default();
    let r = grader::report::classroom50::result(&sheet, &who);
    assert_eq!((r.score, r.max_score), (100, 100));
    assert_eq!(r.tests.iter().filter(|t| !t.passed).count(), 14);
    assert!(
        r.tests
            .iter()
            .filter(|t| !t.passed)
            .all(|t| t.test_name.starts_with("bonus · atomico/"))
    );

    let xml = junit(&report::render(&sheet, Format::Junit));
    assert_eq!((xml.failures, xml.errors), (0, 0));
    assert_eq!(xml.tests, sheet.rows.len());
}
