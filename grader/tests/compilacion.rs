//! A submission that does not compile still gets a report in the chosen
//! format from the grader itself (`scripts/calificar` is `cargo run -p
//! grader`: the judge never links the student's code, so it always builds),
//! and bad options fail as usual; a submission whose crate depends on
//! `solutions` is refused. (The Gradescope autograder has its own test, in
//! Gradescope's real layout: `tests/gradescope.rs`.)
//!
//! Both tests grade the student template the slow suites share
//! ([`anidado::template`]: its judge is built once), so they are slow
//! (minutes on a cold cache) and marked `#[ignore]`: `.ci/run` runs them
//! with the other slow suites
//! (`cargo test --workspace --test suite compilacion:: -- --ignored`).

use crate::anidado;
use crate::informes;

use std::path::Path;
use std::process::{Command, Output};

use anidado::repo;

/// Runs `program` in the template with its target folder, no colours, a
/// fixed execution time, and no grader variables from outside.
fn run(
    template: &anidado::Template,
    program: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(&template.root)
        .env("CARGO_TARGET_DIR", &template.target)
        .env("NO_COLOR", "1")
        .env("KIT_TIEMPO_EJECUCION", "0")
        .env_remove("KIT_GRADER_CHECK")
        .env_remove("KIT_SEMILLA_SECRETA")
        .env_remove("KIT_VARIANTES");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the command runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Breaks `exercises/src/client.rs` in `root` with a syntax error.
fn break_syntax(root: &Path) {
    let file = root.join("exercises/src/client.rs");
    let src = std::fs::read_to_string(&file).unwrap();
    assert!(src.contains("pub fn charge_order"));
    std::fs::write(
        &file,
        src.replacen("pub fn charge_order", "pub fn charge_order(((", 1),
    )
    .unwrap();
}

#[test]
#[ignore = "builds the shared student template (slow); .ci/run runs it with --ignored"]
fn a_submission_with_a_syntax_error_gets_a_report_in_every_format() {
    let template = anidado::template();
    let root = template.root.clone();
    break_syntax(&root);
    let calificar = root.join("scripts/calificar");
    let root_text = root.display().to_string();

    let o = run(&template, &calificar, &[], &[]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let report = text(&o.stdout);
    assert!(
        report.contains("✗ Tu código no compila: el grader no puede correr ninguna verificación."),
        "{report}"
    );
    assert!(
        report.contains("error: this file contains an unclosed delimiter"),
        "{report}"
    );
    assert!(report.contains("--> exercises/src/client.rs:"), "{report}");
    assert!(!report.contains(&root_text), "absolute path in\n{report}");
    assert!(report.contains(
        "Ejercicio 2 · Una idempotency key por operación (cliente de orders)\n  exercises/src/client.rs · charge_order\n  ✗ no compila: ninguna verificación pudo correr (los errores, arriba).\n  0/13 verificaciones · 0/36 puntos"
    ), "{report}");
    let mut last = report.trim_end().lines().rev();
    assert_eq!(
        last.next().unwrap(),
        "Progreso: tu código no compila · siguiente: corrige el primer error del compilador (arriba) y vuelve a correr `cargo run -p grader`"
    );
    assert_eq!(
        last.next().unwrap(),
        format!(
            "Puntaje: 0/100 puntos (no compila) · bonus 0/{}",
            informes::bonus_points()
        )
    );

    let json_file = template.scratch.join("results.json");
    let o = run(
        &template,
        &calificar,
        &[
            "--format",
            "gradescope",
            "--output",
            json_file.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let v = informes::gradescope(&std::fs::read_to_string(&json_file).unwrap());
    assert_eq!(v["score"], 0);
    // The bonus's tests too (its points on top of the 100).
    assert_eq!(
        informes::gradescope_max(&v),
        100.0 + informes::bonus_points()
    );
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), informes::default_check_count());
    // The compiler's errors are said once, at the top; each test only says
    // that nothing could run.
    let top = v["output"].as_str().unwrap();
    assert!(top.contains("--> exercises/src/client.rs:"), "{top}");
    assert!(!top.contains(&root_text));
    for t in tests {
        assert_eq!(t["status"], "failed");
        let out = t["output"].as_str().unwrap();
        assert!(
            out.contains("no se pudo correr: tu código no compila"),
            "{out}"
        );
        assert!(!out.contains("--> exercises/src/"), "{out}");
    }

    // JUnit is the instructors' format, in a judge built with it: this
    // test's own (tests enable `junit`), given the copy with `--raiz`.
    let o = run(
        &template,
        Path::new(env!("CARGO_BIN_EXE_grader")),
        &[
            "--raiz",
            &root_text,
            "--formato",
            "junit",
            "--ejercicio",
            "cliente",
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let raw = text(&o.stdout);
    let xml = informes::junit(&raw);
    assert_eq!(xml.test_suites.len(), 1);
    assert_eq!(raw.matches("type=\"no-compila\"").count(), 13, "{raw}");
    assert!(raw.contains("tu código no compila; el primer error del compilador:"));
    assert!(raw.contains("exercises/src/client.rs"));

    // Bad options fail as the grader's would, even though it cannot be built.
    for (args, expected) in [
        (
            &["--variantes", "5"][..],
            "grader: --variantes necesita una semilla: --semilla S, o la variable de entorno KIT_SEMILLA_SECRETA (la semilla secreta del instructor)",
        ),
        (
            &["--format", "xml"][..],
            "grader: --format no acepta «xml»; se permiten: text, gradescope, junit, classroom50. Usa --help para ver las opciones.",
        ),
        (
            &["--formato", "junit"][..],
            "grader: --format no acepta «junit»: este juez se compiló sin el formato junit, que es para los instructores; pídelo con `cargo run -p grader --features junit -- --format junit`. Usa --help para ver las opciones.",
        ),
        (
            &["--bogus"][..],
            "grader: opción desconocida: --bogus. Usa --help para ver las opciones.",
        ),
    ] {
        let o = run(&template, &calificar, args, &[]);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stdout));
        assert!(o.stdout.is_empty(), "{args:?}");
        assert_eq!(text(&o.stderr).trim_end(), expected, "{args:?}");
    }
    let o = run(
        &template,
        &calificar,
        &["--variantes", "5", "--format", "gradescope"],
        &[("KIT_SEMILLA_SECRETA", "4242")],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    // 130, and the bonus's points and its variants' on top.
    assert!(
        (informes::gradescope_max(&informes::gradescope(&text(&o.stdout)))
            - 130.0
            - informes::bonus_points_with_variants())
        .abs()
            < 1e-9
    );

    // Fixed, but now depending on the reference solutions (with their
    // folder, as in the instructor's kit: in the template alone cargo would
    // stop first, finding no `solutions/`): refused.
    std::fs::copy(
        repo().join("exercises/src/client.rs"),
        root.join("exercises/src/client.rs"),
    )
    .unwrap();
    anidado::mirror(&repo().join("solutions"), &root.join("solutions"), false);
    anidado::depend_on_solutions(&root);
    let o = run(&template, &calificar, &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    assert_eq!(
        text(&o.stderr).trim_end(),
        "grader: exercises/Cargo.toml, campo `dependencies.solutions`: tu crate no puede depender de la solución de referencia (solutions); quita esa dependencia y vuelve a correr el grader"
    );
}

/// Writes `code` to `file` and gives it back the modification time it had:
/// to cargo, which compares times, the file looks unchanged.
fn write_keeping_time(file: &Path, code: &str) {
    let before = std::fs::metadata(file).unwrap().modified().unwrap();
    std::fs::write(file, code).unwrap();
    std::fs::File::options()
        .write(true)
        .open(file)
        .unwrap()
        .set_modified(before)
        .unwrap();
}

#[test]
#[ignore = "builds the shared student template (slow); .ci/run runs it with --ignored"]
fn an_edited_exercise_is_graded_again_even_with_its_old_time() {
    let template = anidado::template();
    let root = template.root.clone();
    let calificar = root.join("scripts/calificar");
    let client = root.join("exercises/src/client.rs");
    let stub = std::fs::read_to_string(&client).unwrap();
    let solved = std::fs::read_to_string(repo().join("solutions/src/client.rs")).unwrap();
    let pending = "PENDIENTE: charge_order todavía es todo!()";

    // Outside CI, as a student runs it: a report with nothing changed
    // reuses the last run's verdicts (grader/src/verdict_cache.rs), and a
    // file whose contents changed, whatever its time, is graded again.
    let student = [("CI", "")];
    let reused = "nada cambió desde el informe anterior";
    // The first with `--de-nuevo`: the shared template may have been graded
    // as it is now by another test (its verdicts, kept per copy in its
    // target folder, would be reused).
    let o = run(
        &template,
        &calificar,
        &["--ejercicio", "cliente", "--de-nuevo"],
        &student,
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains(pending), "{}", text(&o.stdout));
    assert!(!text(&o.stderr).contains(reused), "{}", text(&o.stderr));
    // Nothing changed: the same report, without building or running.
    let again = run(&template, &calificar, &["--ejercicio", "cliente"], &student);
    assert_eq!(text(&again.stdout), text(&o.stdout));
    assert!(
        text(&again.stderr).contains(reused),
        "{}",
        text(&again.stderr)
    );

    // The solved client, with the stub's old time: graded as solved.
    write_keeping_time(&client, &solved);
    let o = run(&template, &calificar, &["--ejercicio", "cliente"], &student);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert!(!text(&o.stdout).contains(pending));
    assert!(!text(&o.stderr).contains(reused), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("Progreso: cliente"),
        "{}",
        text(&o.stdout)
    );

    // Back to the stub, again with an old time: pending again, not the
    // solved harness (nor the solved verdicts) of the run before.
    write_keeping_time(&client, &stub);
    let o = run(&template, &calificar, &["--ejercicio", "cliente"], &student);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains(pending), "{}", text(&o.stdout));
    assert!(!text(&o.stderr).contains(reused), "{}", text(&o.stderr));
}
