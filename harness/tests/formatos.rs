//! A wrong solution (the reference, except the overcharge percentage),
//! graded by the judge's checks in this process and rendered in every
//! report format: the same failures, with the same explanation, in text,
//! Gradescope and JUnit. (Moved from `grader/tests/formatos.rs`: the judge
//! no longer links implementations.)

#[path = "../../grader/tests/informes/mod.rs"]
mod informes;

mod support;

use support::mistakes::percent_of_charged;

use grader::checks::Catalog;
use grader::report::{self, Format, sheet::Sheet};
use grader::rubric::{Points, Rubric};
use grader::variants::Plan;
use grader::verdict::Exercise;
use informes::{fixtures, gradescope, junit, junit_failure, score_line};

kit!(PercentOfCharged {
    reconcile: percent_of_charged
});

fn sheet() -> Sheet {
    let graded = support::grade_in_process::<PercentOfCharged>(
        &Catalog::new(fixtures(), &[]).without_explored(),
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
    let text = grader::output::strip_colours(&report::render(&sheet, Format::Text));
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
        format!("Puntaje: {points}/100 puntos ({passed}/{total} verificaciones)")
    );

    // Gradescope: the same failures, with the Spanish explanation.
    let v = gradescope(&report::render(&sheet, Format::Gradescope));
    assert_eq!(v["score"].as_f64().unwrap(), points.as_f64());
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
