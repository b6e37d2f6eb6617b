//! JUnit XML (the Jenkins schema most CIs read), written with quick-junit:
//! one test suite per exercise, one test case per check; a wrong answer or a
//! pending `todo!()` is a `<failure>`, a panic, time-out or crash an
//! `<error>`, each carrying the Spanish explanation. The bonus (exercise 4)
//! is its own suite with the property `bonus`; its checks still pending are
//! `<skipped>`, not failures (an untouched bonus fails nothing).
//!
//! No times, timestamps or ids are written, so the same run gives the same
//! bytes.

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};

use crate::report::sheet::{Row, Sheet};
use judge::verdict::Verdict;

/// The XML report of `sheet`.
pub fn render(sheet: &Sheet) -> String {
    let mut report = Report::new("grader · Módulo 4 · Lección 2");
    for exercise in sheet.exercises() {
        let rows: Vec<&Row> = sheet.of(exercise).collect();
        let (points, max) = Sheet::points_of(rows.iter().copied());
        let mut suite = TestSuite::new(exercise.id());
        suite.add_properties([
            Property::new(
                "titulo",
                format!("Ejercicio {} · {}", exercise.number(), exercise.title()),
            ),
            Property::new("archivo", exercise.file()),
            Property::new("puntos", format!("{points}/{max}")),
        ]);
        if rows.iter().any(|r| r.bonus) {
            suite.add_property(Property::new(
                "bonus",
                "sus puntos se cuentan aparte del puntaje",
            ));
        }
        suite.add_test_cases(rows.into_iter().map(case));
        report.add_test_suite(suite);
    }
    let mut xml = report.to_string().unwrap_or_else(|e| {
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- error interno: {e} -->")
    });
    if !xml.ends_with('\n') {
        xml.push('\n');
    }
    xml
}

fn case(row: &Row) -> TestCase {
    let status = match &row.verdict {
        Verdict::Passed => TestCaseStatus::success(),
        Verdict::Pending { .. } if row.bonus => {
            let mut s = TestCaseStatus::skipped();
            s.set_type("bonus-pendiente");
            s.set_message(row.explanation());
            s
        }
        verdict => {
            let (kind, ty) = match verdict {
                Verdict::Failed { .. } => (NonSuccessKind::Failure, "incorrecto"),
                Verdict::Counterexample { .. } => (NonSuccessKind::Failure, "contraejemplo"),
                Verdict::Pending { .. } => (NonSuccessKind::Failure, "pendiente"),
                Verdict::Panicked { .. } => (NonSuccessKind::Error, "panico"),
                Verdict::TimedOut { .. } => (NonSuccessKind::Error, "limite-de-tiempo"),
                Verdict::NotCompiled { .. } => (NonSuccessKind::Error, "no-compila"),
                Verdict::Refused { .. } => (NonSuccessKind::Failure, "rechazado"),
                _ => (NonSuccessKind::Error, "proceso-caido"),
            };
            let mut s = TestCaseStatus::non_success(kind);
            let explanation = row.explanation();
            s.set_type(ty);
            s.set_message(explanation.lines().next().unwrap_or(ty).to_string());
            s.set_description(explanation);
            s
        }
    };
    let mut case = TestCase::new(row.check.id.clone(), status);
    case.set_classname(row.check.exercise.id());
    case.set_system_out(format!(
        "{} · {} · {}/{} puntos",
        row.number, row.check.title, row.points, row.max
    ));
    case
}

/// The JUnit report of `grader servicio`'s checks: one suite, `servicio`,
/// one case per check (a wrong answer a `<failure>`, a service that did
/// not answer an `<error>`), with the command that repeats a failing one.
#[cfg(feature = "servicio")]
pub fn servicio(outcome: &servicio::Outcome, repro: &dyn Fn(&str) -> String) -> String {
    let mut report = Report::new("grader · servicio · proyecto final");
    let (got, max) = outcome.score();
    let mut suite = TestSuite::new("servicio");
    suite.add_property(Property::new("puntos", format!("{got}/{max}")));
    suite.add_test_cases(outcome.checks.iter().map(|c| {
        let status = match &c.verdict {
            Verdict::Passed => TestCaseStatus::success(),
            verdict => {
                let (kind, ty) = match verdict {
                    Verdict::Failed { .. } => (NonSuccessKind::Failure, "incorrecto"),
                    _ => (NonSuccessKind::Error, "sin-respuesta"),
                };
                let mut s = TestCaseStatus::non_success(kind);
                let mut explanation = verdict.explanation().join("\n");
                explanation.push_str(&format!("\nrepite solo esta: {}", repro(c.spec.id)));
                s.set_type(ty);
                s.set_message(explanation.lines().next().unwrap_or(ty).to_string());
                s.set_description(explanation);
                s
            }
        };
        let mut case = TestCase::new(c.spec.id, status);
        case.set_classname("servicio");
        case.set_system_out(format!(
            "{} · {}/{} puntos",
            c.spec.title,
            if c.verdict.passed() { c.spec.points } else { 0 },
            c.spec.points
        ));
        case
    }));
    report.add_test_suite(suite);
    let mut xml = report.to_string().unwrap_or_else(|e| {
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- error interno: {e} -->")
    });
    if !xml.ends_with('\n') {
        xml.push('\n');
    }
    xml
}
