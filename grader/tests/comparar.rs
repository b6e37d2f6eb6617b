//! `comparar` and `barrido`: the final project's before and after, and the
//! loss-rate sweep, pinned to the lesson's figures and kept as insta
//! snapshots (`grader/tests/snapshots/`).

use crate::informes;

use informes::{grader, stderr, stdout};

/// With the reference solutions (not in the student template: each test
/// returns early there).
mod with_solutions {
    use super::*;
    use grader::before_after::comparison;
    use grader::before_after::fleet::{self, FleetArgs};
    use grader::progress::Progress;
    use informes::{has_solutions, solutions_harness};
    use judge::fixture::Scenario;

    /// The lesson's fleet and both its worlds, run by the reference's
    /// harness as `comparar --solutions` runs them.
    fn lesson_worlds() -> Option<(Scenario, comparison::Worlds)> {
        let h = solutions_harness()?;
        let scenario = fleet::load(None, &[], &FleetArgs::default()).unwrap();
        let compared = comparison::run_worlds(h, &scenario, &Progress::bar(0, ""))
            .expect("the reference runs both worlds");
        // The reference's reconciliation agrees with both ledgers.
        assert_eq!(compared.doubts, Vec::<String>::new());
        Some((scenario, compared.worlds))
    }

    #[test]
    fn the_comparison_is_the_lessons_before_and_after() {
        let Some((scenario, w)) = lesson_worlds() else {
            return;
        };
        assert_eq!(w.before.attempts, 1184);
        assert_eq!(w.after.attempts, 1184);
        assert_eq!(w.before.executions, 1184);
        assert_eq!(w.after.executions, 1000);
        assert_eq!(w.before.orders_charged_twice_or_more, 146);
        assert_eq!(w.after.orders_charged_twice_or_more, 0);
        assert_eq!(w.before.charged.cents(), 30_511_800);
        assert_eq!(w.before.overcharge.cents(), 4_813_900);
        assert_eq!(w.before.overcharge_pct().to_string(), "18.7%");
        assert_eq!(w.after.charged.cents(), 25_697_900);
        assert_eq!(w.after.overcharge.cents(), 0);
        let table = comparison::render(&scenario, "solutions", &w);
        for figure in [
            "$305,118", "$48,139", "18.7%", "$256,979", "-$48,139", "-18.7 pp",
        ] {
            assert!(table.contains(figure), "{figure} missing from\n{table}");
        }
        insta::with_settings!({
            description => "cargo run -p grader -- comparar --solutions",
            omit_expression => true,
        }, {
            insta::assert_snapshot!("comparar_flota_1000", table);
        });
    }

    #[test]
    fn the_command_prints_the_same_table() {
        let Some((scenario, w)) = lesson_worlds() else {
            return;
        };
        let o = grader(&["comparar", "--solutions"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let out = stdout(&o);
        let table = comparison::render(&scenario, "solutions", &w);
        assert!(out.starts_with(&table), "{out}");
        // Then lesson 4's race with the reference's store.
        let race = &out[table.len()..];
        assert!(
            race.starts_with(
                "\nDOS REINTENTOS A LA VEZ  ·  lección 4 (bonus)  ·  escenario carrera\n"
            ),
            "{race}"
        );
        assert!(
            race.contains(
                "    TOTAL COBRADO                    :              $1000                  $500\n"
            ),
            "{race}"
        );
        // `--sin-carrera`: the fleet's table alone.
        let o = grader(&["comparar", "--solutions", "--sin-carrera"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(stdout(&o), table);
        assert_eq!(stderr(&o), "", "no progress bar off a terminal");
    }

    #[test]
    fn json_carries_the_same_figures() {
        if !has_solutions() {
            return;
        }
        let o = grader(&["comparar", "flota-1000", "--solutions", "--json"]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
        assert_eq!(v["escenario"], "flota-1000");
        assert_eq!(v["ordenes"], 1000);
        assert_eq!(v["intencion_centavos"], 25_697_900);
        assert_eq!(v["antes"]["intentos"], 1184);
        assert_eq!(v["antes"]["total_cobrado_centavos"], 30_511_800);
        assert_eq!(v["antes"]["sobrecobro_centavos"], 4_813_900);
        assert_eq!(v["despues"]["total_cobrado_centavos"], 25_697_900);
        assert_eq!(v["despues"]["sobrecobro_centavos"], 0);
        assert_eq!(v["diferencia"]["cargos_en_el_ledger"], -184);
        let race = &v["carrera"];
        assert_eq!(race["estado"], "corrio");
        assert_eq!(race["sin_atomicidad"]["total_cobrado_centavos"], 100_000);
        assert_eq!(race["con_tu_store"]["total_cobrado_centavos"], 50_000);
        assert_eq!(race["con_tu_store"]["sobrecobro_centavos"], 0);
        assert_eq!(race["con_tu_store"]["cumple_la_leccion_4"], true);
        let pct = v["antes"]["sobrecobro_porcentaje"].as_f64().unwrap();
        assert!((pct - 18.732659).abs() < 1e-5, "{pct}");
    }

    /// `--semilla S` seeds the amounts with S and the losses with S + 1:
    /// `--semilla 42` is the lesson's fleet, whatever the fixture's seeds.
    #[test]
    fn fleet_flags_describe_a_fleet_like_the_lessons() {
        if !has_solutions() {
            return;
        }
        let lesson = grader(&["comparar", "--solutions", "--json"]);
        let flags = grader(&[
            "comparar",
            "flota-300-chacha",
            "--solutions",
            "--json",
            "--ordenes",
            "1000",
            "--p-perdida",
            "0.15",
            "--max-intentos",
            "4",
            "--semilla",
            "42",
            "--monto-min",
            "10",
            "--monto-max",
            "500",
            "--stream",
            "cpython",
        ]);
        assert_eq!(flags.status.code(), Some(0), "{}", stderr(&flags));
        let a: serde_json::Value = serde_json::from_str(&stdout(&lesson)).unwrap();
        let b: serde_json::Value = serde_json::from_str(&stdout(&flags)).unwrap();
        assert_eq!(a["antes"], b["antes"]);
        assert_eq!(a["despues"], b["despues"]);
        // Python: random.Random(7) amounts, random.Random(8) losses.
        let seven = grader(&["comparar", "--solutions", "--json", "--semilla", "7"]);
        let c: serde_json::Value = serde_json::from_str(&stdout(&seven)).unwrap();
        assert_ne!(a["antes"], c["antes"]);
    }

    #[test]
    fn the_sweep_puts_the_lessons_fleet_next_to_the_model() {
        if !has_solutions() {
            return;
        }
        let dir = std::env::temp_dir().join(format!("barrido-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let svg = dir.join("barrido.svg");
        let o = grader(&["barrido", "--solutions", "--svg", svg.to_str().unwrap()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let table = stdout(&o);
        let row = table
            .lines()
            .find(|l| l.trim_start().starts_with("0.15 "))
            .unwrap_or_else(|| panic!("no 0.15 row in\n{table}"));
        let cells: Vec<&str> = row.split_whitespace().collect();
        assert_eq!(
            cells,
            ["0.15", "1,184", "$48,139", "18.73%", "17.59%", "0.00%"]
        );
        assert_eq!(table.lines().filter(|l| l.ends_with("0.00%")).count(), 11);
        insta::with_settings!({
            description => "cargo run -p grader -- barrido --solutions",
            omit_expression => true,
        }, {
            insta::assert_snapshot!("barrido_flota_1000", table);
        });
        let chart = std::fs::read_to_string(&svg).unwrap();
        assert!(
            chart.starts_with("<svg"),
            "{}",
            &chart[..80.min(chart.len())]
        );
        for label in [
            "Probabilidad de perder la respuesta, p (%)",
            "Sobrecobro (% de la intención)",
            "Antes: SIN idempotencia (medido)",
            "Después: CON idempotency_key (medido)",
            "p + p² + p³",
            "max_attempts=4, la referencia)",
        ] {
            assert!(chart.contains(label), "{label} missing from the chart");
        }
        assert!(
            !chart.contains("solutions)"),
            "the crate's name in the title"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn bad_fleet_flags_are_one_spanish_line_with_status_2() {
    let cases: [(&[&str], &str); 6] = [
        (&["comparar", "--ordenes", "0"], "--ordenes"),
        (&["comparar", "--p-perdida", "1.5"], "--p-perdida"),
        (
            &["comparar", "escenario-a", "--ordenes", "5"],
            "--ordenes solo vale",
        ),
        (
            &["comparar", "no-existe"],
            "escenario desconocido «no-existe»",
        ),
        (&["barrido", "escenario-a"], "guion de pérdidas"),
        (&["barrido", "--paso", "0"], "--paso"),
    ];
    for (args, expected) in cases {
        let o = grader(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(err.contains(expected), "{args:?}: {err}");
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
}

/// With the untouched stubs, both commands say what is pending (in a child
/// process: no backtrace reaches the student) and exit 1.
#[test]
fn the_stubs_are_reported_pending_not_as_a_backtrace() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../exercises/src");
    let untouched = std::fs::read_to_string(dir.join("client.rs"))
        .is_ok_and(|s| s.contains("todo!(\"Ejercicio 2"));
    if !untouched {
        return; // a student has started: nothing to pin here
    }
    for args in [&["comparar"][..], &["barrido", "--hasta", "0.1"][..]] {
        let o = grader(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("pendiente: charge_order todavía es todo!()"),
            "{err}"
        );
        assert!(err.contains("exercises/src/client.rs"), "{err}");
        assert!(
            !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
            "{err}"
        );
        assert!(stdout(&o).is_empty(), "{args:?}");
    }
}
