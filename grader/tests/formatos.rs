//! The three report formats (`--format text|gradescope|junit`) on the
//! untouched stubs (score 0) and the reference solutions (score 100);
//! `--output`, `--ejercicio`, `--rubrica`, and byte-identical
//! machine-readable reports. A wrong solution rendered in every format is
//! graded in `harness/tests/formatos.rs` (the judge does not link
//! implementations).

use crate::informes;

use informes::{
    bonus_points, default_check_count, graded_and_bonus_check_counts, grader, grader_with_env,
    gradescope, gradescope_max, junit, score_line, stderr, stdout, stubs_untouched,
};

#[test]
fn the_untouched_stubs_score_0_in_every_format() {
    if !stubs_untouched() {
        return; // A student has started: the stub figures no longer apply.
    }
    let n = default_check_count();
    let (graded, bonus) = graded_and_bonus_check_counts();
    let text = grader(&["--format", "text"]);
    assert_eq!(text.status.code(), Some(1));
    let out = stdout(&text);
    // The bonus apart, pending.
    assert_eq!(
        score_line(&out),
        format!(
            "Puntaje: 0/100 puntos (0/{graded} verificaciones) · bonus 0/{}: pendiente, todavía es todo!()",
            bonus_points()
        )
    );
    let cobro = judge::rubric::Rubric::kit().unwrap().listed_total("cobro");
    assert!(
        out.contains(&format!("  0/{cobro} puntos"))
            || out.contains(&format!("· 0/{cobro} puntos")),
        "{out}"
    );

    let json = grader(&["--formato", "gradescope"]);
    assert_eq!(json.status.code(), Some(1));
    let v = gradescope(&stdout(&json));
    assert_eq!(v["score"], 0);
    assert_eq!(v["execution_time"], 0);
    assert_eq!(gradescope_max(&v), 100.0 + bonus_points());
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), n);
    assert_eq!(tests[0]["number"], "1.1");
    for t in tests {
        assert_eq!(t["status"], "failed");
        assert!(t["output"].as_str().unwrap().starts_with("pendiente: "));
    }
    let tagged: Vec<&serde_json::Value> = tests
        .iter()
        .filter(|t| t["tags"].as_array().unwrap().iter().any(|g| g == "bonus"))
        .collect();
    assert_eq!(tagged.len(), bonus);
    assert!(tagged.iter().all(|t| {
        let name = t["name"].as_str().unwrap();
        judge::verdict::Exercise::ALL
            .iter()
            .any(|e| e.bonus() && name.starts_with(&format!("bonus · {}/", e.id())))
    }));
    // "El ejercicio 4 es un bonus: …" (with more bonus exercises, "Los
    // ejercicios 4 y 5 son un bonus: …").
    let output = v["output"].as_str().unwrap();
    let said = output
        .lines()
        .find(|l| l.contains(" un bonus: sus puntos se suman por encima de los 100"))
        .unwrap_or_else(|| panic!("{output}"));
    assert!(
        said.starts_with("El ejercicio 4 es") || said.starts_with("Los ejercicios 4 "),
        "{said}"
    );

    let xml = grader(&["--format", "junit"]);
    assert_eq!(xml.status.code(), Some(1));
    let report = junit(&stdout(&xml));
    assert_eq!(
        report
            .test_suites
            .iter()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        judge::catalog::ids()
    );
    assert_eq!(report.tests, n);
    // The bonus's pending checks are skipped, not failures.
    assert_eq!(report.failures, graded);
    assert_eq!(report.errors, 0);
    let atomico = report
        .test_suites
        .iter()
        .find(|s| s.name.as_str() == "atomico")
        .unwrap();
    assert!(
        atomico
            .test_cases
            .iter()
            .all(|c| matches!(c.status, quick_junit::TestCaseStatus::Skipped { .. }))
    );
}

#[test]
fn the_solutions_score_100_in_every_format() {
    if !informes::has_solutions() {
        return; // The student template has no reference to grade.
    }
    let n = default_check_count();
    let (graded, _) = graded_and_bonus_check_counts();
    let text = grader(&["--solutions"]);
    assert_eq!(text.status.code(), Some(0));
    let out = stdout(&text);
    assert_eq!(
        score_line(&out),
        format!(
            "Puntaje: 100/100 puntos ({graded}/{graded} verificaciones) · bonus {b}/{b}",
            b = bonus_points()
        )
    );
    // A finished exercise is one line, with its points from the kit's
    // rubric; the checks' own lines are in the JSON and XML formats.
    // (Counts from the catalog, points from the rubric: a new fixture or
    // check needs no edit here.)
    let rubric = judge::rubric::Rubric::kit().unwrap();
    for exercise in judge::verdict::Exercise::ALL {
        let checks = judge::checks::Catalog::new(informes::fixtures(), &[exercise])
            .checks
            .len();
        let points = rubric.listed_total(exercise.id());
        let of_bonus = if rubric.is_bonus(exercise.id()) {
            " de bonus"
        } else {
            ""
        };
        let line = format!(
            "Ejercicio {} · {}: ✓ {checks}/{checks} verificaciones · {points}/{points} puntos{of_bonus}",
            exercise.number(),
            exercise.title()
        );
        assert!(out.contains(&line), "missing {line:?} in\n{out}");
    }

    let json = grader(&["--solutions", "--format", "gradescope"]);
    assert_eq!(json.status.code(), Some(0));
    let v = gradescope(&stdout(&json));
    // Extra credit: the bonus on top of the 100.
    assert_eq!(v["score"].as_f64().unwrap(), 100.0 + bonus_points());
    assert_eq!(gradescope_max(&v), 100.0 + bonus_points());
    assert!(
        v["tests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["status"] == "passed" && t["visibility"] == "visible")
    );

    let xml = grader(&["--solutions", "--format", "junit"]);
    assert_eq!(xml.status.code(), Some(0));
    let report = junit(&stdout(&xml));
    assert_eq!(report.tests, n);
    assert_eq!(report.failures + report.errors, 0);
}

#[test]
fn one_exercise_at_a_time_and_unknown_names_list_the_valid_ones() {
    let o = grader(&["--ejercicio", "cliente", "--format", "junit"]);
    let report = junit(&stdout(&o));
    assert_eq!(report.test_suites.len(), 1);
    assert_eq!(report.test_suites[0].name.as_str(), "cliente");
    let v = gradescope(&stdout(&grader(&[
        "--ejercicio",
        "reconciliacion",
        "--format",
        "gradescope",
    ])));
    assert_eq!(gradescope_max(&v), 28.0);
    assert!(
        v["tests"]
            .as_array()
            .unwrap()
            .iter()
            .all(|t| t["number"].as_str().unwrap().starts_with("3."))
    );

    let bad = grader(&["--ejercicio", "pago"]);
    assert_eq!(bad.status.code(), Some(2));
    assert_eq!(
        stderr(&bad).trim_end(),
        format!(
            "grader: --ejercicio no acepta «pago»; se permiten: {}. Usa --help para ver las opciones.",
            judge::catalog::ids().join(", ")
        )
    );
    // A near miss gets clap's suggestion, as a mistyped command does.
    let near = grader(&["--ejercicio", "cobr"]);
    assert_eq!(near.status.code(), Some(2));
    assert_eq!(
        stderr(&near).trim_end(),
        format!(
            "grader: --ejercicio no acepta «cobr» (¿quisiste decir cobro?); se permiten: {}. Usa --help para ver las opciones.",
            judge::catalog::ids().join(", ")
        )
    );
}

/// The grader with colours forced on (as on a terminal), `NO_COLOR` unset.
fn grader_coloured(args: &[&str]) -> std::process::Output {
    let _shared = informes::verdict_store_shared();
    std::process::Command::new(env!("CARGO_BIN_EXE_grader"))
        .args(args)
        .env("CLICOLOR_FORCE", "1")
        .env_remove("NO_COLOR")
        .env_remove("KIT_GRADER_CHECK")
        .env_remove("KIT_SEMILLA_SECRETA")
        .output()
        .unwrap()
}

#[test]
fn the_output_file_gets_the_report_without_colours() {
    let dir = std::env::temp_dir().join(format!("kit-salida-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("informe.txt");
    // With colours forced, standard output gets them...
    let coloured = grader_coloured(&["--ejercicio", "cobro"]);
    assert!(stdout(&coloured).contains("\x1b["));
    // ...but a file never does, and nothing goes to standard output.
    let to_file = grader_coloured(&["--ejercicio", "cobro", "--salida", file.to_str().unwrap()]);
    // Same status as on standard output (1 on the stubs, 0 once solved).
    assert_eq!(to_file.status.code(), coloured.status.code());
    assert!(matches!(to_file.status.code(), Some(0 | 1)));
    assert!(to_file.stdout.is_empty());
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(!written.contains('\x1b'), "{written:?}");
    assert!(written.contains("Ejercicio 1 · El cobro idempotente"));
    // It is the NO_COLOR report, byte for byte.
    assert_eq!(stdout(&grader(&["--ejercicio", "cobro"])), written);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unwritable_output_is_status_2() {
    let o = grader(&["--ejercicio", "cobro", "--output", "/no/such/dir/r.json"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o)
            .starts_with("grader: --output /no/such/dir/r.json: no se pudo escribir el informe:"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn machine_readable_reports_are_byte_identical_across_runs() {
    for format in ["gradescope", "junit", "text"] {
        let args = [
            "--format",
            format,
            "--variantes",
            "2",
            "--semilla",
            "31",
            "--ejercicio",
            "cliente",
        ];
        let a = grader(&args);
        let b = grader(&args);
        assert!(!a.stdout.is_empty());
        assert_eq!(a.stdout, b.stdout, "{format}");
        assert_eq!(a.status.code(), b.status.code());
    }
}

#[test]
fn execution_time_is_the_real_one_unless_fixed() {
    let o = grader_with_env(
        &["--ejercicio", "cobro", "--format", "gradescope"],
        &[("KIT_TIEMPO_EJECUCION", "")],
    );
    let v = gradescope(&stdout(&o));
    // Whole seconds, rounded up: a run that did anything took at least one.
    assert!(v["execution_time"].as_u64().unwrap() >= 1);
    let o = grader_with_env(
        &["--ejercicio", "cobro", "--format", "gradescope"],
        &[("KIT_TIEMPO_EJECUCION", "42")],
    );
    assert_eq!(gradescope(&stdout(&o))["execution_time"], 42);
}

#[test]
fn a_bad_rubric_stops_the_grader_naming_file_and_field() {
    let dir = std::env::temp_dir().join(format!("kit-rubrica-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("mala.toml");
    // The kit's rubric, with an unknown field in the replay check's entry.
    let kit =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/rubrica.toml")).unwrap();
    let entry = kit
        .lines()
        .find(|l| l.starts_with("\"cobro/replay-devuelve-lo-guardado\" = { puntos = "))
        .expect("the kit's rubric lists the replay check");
    let kit = kit.replace(entry, &entry.replace(" }", ", visible = true }"));
    std::fs::write(&path, kit).unwrap();
    let o = grader(&["--rubrica", path.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.starts_with(&format!("grader: rúbrica {}:", path.display()))
            && err.contains(
                ", campo `verificaciones.\"cobro/replay-devuelve-lo-guardado\"`: campo desconocido `visible`; se permiten: `puntos` o `visibilidad`"
            ),
        "{err}"
    );
    assert_eq!(err.trim_end().lines().count(), 1);
    assert!(o.stdout.is_empty());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn another_rubric_changes_points_and_visibility() {
    let dir = std::env::temp_dir().join(format!("kit-rubrica2-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("otra.toml");
    std::fs::write(
        &path,
        r#"
[verificaciones]
"cobro/replay-devuelve-lo-guardado" = { puntos = 40, visibilidad = "after_due_date" }

[variantes]
puntos = { cobro = 0, cliente = 0, reconciliacion = 0 }
visibilidad = "hidden"

[no_listadas]
puntos = 1
visibilidad = "hidden"
"#,
    )
    .unwrap();
    let o = grader(&[
        "--ejercicio",
        "cobro",
        "--rubrica",
        path.to_str().unwrap(),
        "--format",
        "gradescope",
    ]);
    let v = gradescope(&stdout(&o));
    let tests = v["tests"].as_array().unwrap();
    let replay = tests
        .iter()
        .find(|t| t["extra_data"]["id"] == "cobro/replay-devuelve-lo-guardado")
        .unwrap();
    assert_eq!(replay["max_score"], 40);
    assert_eq!(replay["visibility"], "after_due_date");
    assert_eq!(gradescope_max(&v), 40.0 + (tests.len() - 1) as f64);
    assert!(
        tests
            .iter()
            .filter(|t| t["extra_data"]["id"] != "cobro/replay-devuelve-lo-guardado")
            .all(|t| t["visibility"] == "hidden" && t["max_score"] == 1)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_rubric_id_that_matches_no_check_is_refused_and_a_total_other_than_100_is_said() {
    let dir = tempfile::tempdir().unwrap();
    let kit = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("rubrica.toml"),
    )
    .unwrap();
    let id = "\"cobro/replay-devuelve-lo-guardado\"";
    assert!(kit.contains(id));
    let misspelt = dir.path().join("mal.toml");
    std::fs::write(
        &misspelt,
        kit.replace(id, "\"cobro/replay-devuelve-lo-guardad\""),
    )
    .unwrap();
    let o = grader(&["--rubrica", misspelt.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert_eq!(
        err.trim_end(),
        format!(
            "grader: rúbrica {}: la verificación «cobro/replay-devuelve-lo-guardad» no existe: ningún id del informe se escribe así (p. ej. cobro/replay-devuelve-lo-guardado, cliente/flota-1000); corrígelo o quítalo",
            misspelt.display()
        )
    );
    assert!(o.stdout.is_empty());

    // One more point on one check: graded, and said.
    let entry = "\"cobro/replay-devuelve-lo-guardado\" = { puntos = ";
    let at = kit.find(entry).unwrap() + entry.len();
    let points: u32 = kit[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let more = dir.path().join("101.toml");
    std::fs::write(
        &more,
        kit.replacen(
            &format!("{entry}{points}"),
            &format!("{entry}{}", points + 1),
            1,
        ),
    )
    .unwrap();
    let o = grader(&["--rubrica", more.to_str().unwrap(), "--ejercicio", "cobro"]);
    assert!(
        stderr(&o).contains(&format!(
            "grader: aviso: la rúbrica {} da 101 puntos a las verificaciones (sin las variantes ocultas ni el bonus), no 100",
            more.display()
        )),
        "{}",
        stderr(&o)
    );
}
