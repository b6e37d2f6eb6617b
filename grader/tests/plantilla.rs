//! The student template (`scripts/plantilla-estudiante DIR`): the repository
//! without `solutions/` and the instructor's tools, which still builds,
//! grades (`cargo run -p grader`, `scripts/calificar`) and passes
//! `cargo test`.
//!
//! It builds and tests the template the slow suites share
//! ([`anidado::template`]), so it is slow (minutes on a cold cache) and
//! marked `#[ignore]`: `.ci/run` runs it with the other slow suites
//! (`cargo test --workspace --test suite plantilla:: -- --ignored`).

use crate::anidado;
use crate::informes;

use anidado::repo;

use std::process::{Command, Output};

fn cargo(template: &anidado::Template, args: &[&str]) -> Output {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    Command::new(cargo)
        .args(args)
        .current_dir(&template.root)
        .env("CARGO_TARGET_DIR", &template.target)
        .env("NO_COLOR", "1")
        .env("CI", "true")
        .env("KIT_TIEMPO_EJECUCION", "0")
        .env_remove("KIT_GRADER_CHECK")
        .env_remove("KIT_SEMILLA_SECRETA")
        .output()
        .expect("cargo runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
#[ignore = "builds and tests the shared student template (slow); .ci/run runs it with --ignored"]
fn the_student_template_builds_grades_and_passes_its_tests_without_solutions() {
    let template = anidado::template();
    let dir = template.root.clone();

    // What it holds, and what it does not.
    for gone in [
        "solutions",
        ".ci",
        "autograder",
        ".github/workflows/kit.yml",
        ".github/workflows/instructor-variantes.yml",
        ".github/workflows/instructor-curso.yml",
        ".github/workflows/classroom.yml",
        ".github/workflows/sistemas.yml",
        "autograder/classroom50/autograder.py",
        "scripts/plantilla-estudiante",
        "scripts/bench/run",
        "grader/tests/plantilla.rs",
        "grader/tests/compilacion.rs",
        "grader/tests/gradescope.rs",
        "grader/tests/politica.rs",
        "grader/tests/politica",
        "servicio-referencia",
        "servicio/tests/servicios/referencia.py",
        "grader/tests/servicio.rs",
        "grader/tests/libro.rs",
        "docs/src/instructores",
        "docs/src/diseño",
    ] {
        assert!(!dir.join(gone).exists(), "{gone} is in the template");
    }
    for kept in [
        "exercises/src/client.rs",
        "grader/rubrica.toml",
        "fixtures/flota-1000.toml",
        "scripts/calificar",
        "scripts/bench/leccion2.py",
        "README.md",
        "plantilla-servicio/app.py",
        "docs/src/estudiantes/servicio.md",
        "docs/book.toml",
        "docs/src/SUMMARY.md",
        "docs/src/estudiantes/informe.md",
        "docs/src/estudiantes/codigo-aceptado.md",
    ] {
        assert!(dir.join(kept).exists(), "{kept} is missing");
    }
    // The README keeps the students' parts and loses the instructors'
    // (the blocks marked <!-- solo-instructores -->).
    let readme = std::fs::read_to_string(dir.join("README.md")).unwrap();
    let full = std::fs::read_to_string(repo().join("README.md")).unwrap();
    for instructors_only in [
        "--solutions",
        "autograder",
        "plantilla-estudiante",
        ".ci/run",
        "solo-instructores",
        "## Para instructores",
    ] {
        assert!(full.contains(instructors_only), "{instructors_only}");
        assert!(
            !readme.contains(instructors_only),
            "«{instructors_only}» in the template's README:\n{readme}"
        );
    }
    for students in [
        "## Para estudiantes",
        "cargo run -p grader   # verifica tus ejercicios",
        "cargo run -p grader -- barrido --svg barrido.svg",
        "| `scripts/` | `calificar` (`cargo run -q -p grader --`)",
    ] {
        assert!(readme.contains(students), "{students} missing:\n{readme}");
    }
    assert!(!readme.contains("\n\n\n"), "{readme}");
    // The book's index keeps the students' part only (its links are checked
    // on a template by grader/tests/libro.rs).
    let summary = std::fs::read_to_string(dir.join("docs/src/SUMMARY.md")).unwrap();
    assert!(summary.contains("](estudiantes/informe.md)"), "{summary}");
    for instructors_only in ["instructores/", "diseño/", "solo-instructores"] {
        assert!(
            !summary.contains(instructors_only),
            "«{instructors_only}» in the template's SUMMARY.md:\n{summary}"
        );
    }
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(!manifest.contains("solutions"), "{manifest}");
    let harness_manifest = std::fs::read_to_string(dir.join("harness/Cargo.toml")).unwrap();
    assert!(
        !harness_manifest.contains("solutions"),
        "{harness_manifest}"
    );
    assert!(harness_manifest.contains("default = [\"exercises\"]"));
    assert!(!dir.join("harness/tests").exists());

    let build = cargo(&template, &["build", "--workspace"]);
    assert!(build.status.success(), "{}", text(&build.stderr));
    // No warning of cargo's own about the manifest on each of the
    // student's builds (a profile setting for a crate the template no
    // longer has: libtest-mimic, once).
    let warnings: Vec<&str> = std::str::from_utf8(&build.stderr)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with("warning: profile package spec"))
        .collect();
    assert!(warnings.is_empty(), "{warnings:#?}");

    // It grades: the stubs, pending, 0 of 100.
    let graded = cargo(&template, &["run", "-q", "-p", "grader"]);
    assert_eq!(graded.status.code(), Some(1), "{}", text(&graded.stderr));
    let out = text(&graded.stdout);
    assert!(
        out.contains("… PENDIENTE: charge_order todavía es todo!()"),
        "{out}"
    );
    // The bonus ships as a stub too: pending, apart from the 100.
    assert!(
        out.contains("Ejercicio 4 · El store atómico (lección 4, bonus)")
            && out.contains("… PENDIENTE: AtomicPaymentsServer::charge todavía es todo!()"),
        "{out}"
    );
    // The score, then the progress line.
    let score = out.trim_end().lines().rev().nth(1).unwrap();
    assert!(score.starts_with("Puntaje: 0/100 puntos (0/"), "{out}");
    assert!(
        score.ends_with(&format!(
            " · bonus 0/{}: pendiente, todavía es todo!()",
            informes::bonus_points()
        )),
        "{out}"
    );
    // There is no reference to grade.
    let refused = cargo(
        &template,
        &["run", "-q", "-p", "grader", "--", "--solutions"],
    );
    assert_eq!(refused.status.code(), Some(2));
    assert!(text(&refused.stderr).contains("no incluye solutions/"));

    // The CI command works there too.
    let ci = Command::new(dir.join("scripts/calificar"))
        .args(["--format", "gradescope", "--ejercicio", "cobro"])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", &template.target)
        .env("KIT_TIEMPO_EJECUCION", "0")
        .env_remove("KIT_GRADER_CHECK")
        .output()
        .unwrap();
    assert_eq!(ci.status.code(), Some(1), "{}", text(&ci.stderr));
    let v = informes::gradescope(&text(&ci.stdout));
    assert_eq!(v["score"], 0);
    assert_eq!(informes::gradescope_max(&v), 36.0);

    // The student's `cargo test`: the student's crate and the lesson's
    // world (the workspace's default members), not the judge's suites,
    // which run in the kit's own CI.
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("\ndefault-members = [\"sim\", \"protocol\", \"exercises\"]\n"),
        "{manifest}"
    );
    let tests = cargo(&template, &["test"]);
    let (out, err) = (text(&tests.stdout), text(&tests.stderr));
    assert!(
        tests.status.success(),
        "cargo test failed in the template:\n{out}\n{err}"
    );
    assert!(out.contains("test result: ok."), "{out}");
    assert!(!out.contains("FAILED"), "{out}");
    for crate_name in ["sim", "protocol", "exercises"] {
        assert!(
            err.contains(&format!("Doc-tests {crate_name}\n")),
            "{crate_name} was not tested:\n{err}"
        );
    }
    assert!(!err.contains("Doc-tests judge"), "{err}");
    // What it leaves out still compiles there: the judge's tests that the
    // template keeps (a student may run `cargo test -p grader`).
    let kept = cargo(
        &template,
        &["check", "-p", "grader", "-p", "judge", "--tests"],
    );
    assert!(kept.status.success(), "{}", text(&kept.stderr));
}
