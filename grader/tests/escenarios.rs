//! The lesson's scenario tables, printed with the reference solutions, are
//! kept as insta snapshots in `fixtures/snapshots/`: the grader shows students
//! the difference between their table and these. With `CI` set a mismatch
//! fails; locally, review changes with `cargo insta review`. The tables
//! come from the reference's harness, as `escenario --solutions` runs it
//! (in the student template, without the reference, only the comparison
//! test runs).

use crate::informes;

use std::path::Path;

use grader::commands::escenario;
use informes::{fixtures, solutions_harness};
use judge::fixture::Scenario;

/// The table of `scenario` with the reference solutions.
fn table(scenario: &Scenario) -> Option<String> {
    let h = solutions_harness()?;
    Some(escenario::table(h, scenario).expect("the reference runs every world"))
}

#[test]
fn every_fixture_table_matches_its_snapshot() {
    let scenarios = fixtures();
    assert!(scenarios.len() >= 4);
    for scenario in &scenarios {
        let Some(table) = table(scenario) else {
            return;
        };
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path("../../fixtures/snapshots");
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_description(format!(
            "cargo run -p grader -- escenario {} --solutions",
            scenario.name
        ));
        settings.bind(|| insta::assert_snapshot!(scenario.name.clone(), table));
    }
}

#[test]
fn the_fleet_table_is_the_lessons_to_the_dollar() {
    let scenario =
        Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/flota-1000.toml"))
            .unwrap();
    let Some(table) = table(&scenario) else {
        return;
    };
    let lesson = "\
ESCENARIO C  ·  Flota de 1000 ordenes con perdidas de respuesta
N=1000 ordenes | p(respuesta perdida)=0.15 | max_attempts=4

  Cobro correcto (intencion)         : $   256,979  (1000 cargos)

  SIN idempotencia:
    intentos totales al server       :      1,184
    cargos en el ledger              :      1,184
    ordenes cobradas 2+ veces        :        146
    TOTAL COBRADO                    : $   305,118
    SOBRECOBRO                       : $    48,139  (18.7% de mas)

  CON idempotency_key:
    intentos totales al server       :      1,184
    ejecuciones reales del cobro     :      1,000
    cargos en el ledger              :      1,000
    ordenes cobradas 2+ veces        :          0
    TOTAL COBRADO                    : $   256,979
    SOBRECOBRO                       : $         0
";
    assert_eq!(table, lesson);
}

#[test]
fn the_one_buyer_scenarios_are_the_lessons() {
    let load = |n: &str| {
        Scenario::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../fixtures/{n}.toml")))
            .unwrap()
    };
    let Some(a) = table(&load("escenario-a")) else {
        return;
    };
    assert!(
        a.contains("  SIN idempotencia       -> reintentos=2  cargos=2  TOTAL COBRADO=$1000\n"),
        "{a}"
    );
    assert!(
        a.contains("  CON idempotency_key    -> reintentos=2  cargos=1  TOTAL COBRADO=$500\n"),
        "{a}"
    );
    assert!(
        a.ends_with("  Cobro correcto esperado: $500\n  (reintentos=2, como en la lección, cuenta cada intento: el primero y 1 reintento(s))\n"),
        "{a}"
    );
    let b = table(&load("escenario-b")).unwrap();
    assert!(b.contains("cargos=3  TOTAL COBRADO=$1500"), "{b}");
    assert!(
        b.contains("CON idempotency_key    -> reintentos=3  cargos=1  TOTAL COBRADO=$500"),
        "{b}"
    );
    let l3 = table(&load("leccion-3-key-por-intento")).unwrap();
    assert!(
        l3.contains("  CON key por intento    -> reintentos=3  cargos=3  TOTAL COBRADO=$1500\n"),
        "{l3}"
    );
    assert!(
        l3.contains("  CON idempotency_key    -> reintentos=3  cargos=1  TOTAL COBRADO=$500\n"),
        "{l3}"
    );
}

#[test]
fn a_students_difference_is_shown_line_by_line() {
    let expected = "A\n  TOTAL COBRADO=$500\nC\n";
    let got = "A\n  TOTAL COBRADO=$1000\nC\n";
    let diff = escenario::compare(expected, got).unwrap();
    assert_eq!(
        diff,
        "  Diferencias con la salida esperada (- esperado, + tu salida):\n  -   TOTAL COBRADO=$500\n  +   TOTAL COBRADO=$1000\n"
    );
    assert_eq!(escenario::compare("A  \nB\n", "A\nB"), None);
}
