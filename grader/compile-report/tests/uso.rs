//! `compile-report` takes the grader's options and fails on bad ones as the
//! grader does (one Spanish line, exit status 2); `--estado` writes the
//! failure report of a grader that ended without one; and
//! `--comprobar-gradescope` tells a readable results.json from anything else.
//!
//! The expected lines are the grader's own (`cargo run -p grader -- ARGS`
//! prints the same ones; `grader/tests/cli.rs` pins the grader's side).

use std::process::{Command, Output};

fn compile_report(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_compile-report"));
    cmd.args(args)
        .env("KIT_TIEMPO_EJECUCION", "0")
        .env_remove("KIT_SEMILLA_SECRETA");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("compile-report runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn bad_options_are_one_spanish_line_and_status_2_like_the_grader() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["--format", "xml"],
            "grader: valor inválido para --format <FORMATO>: «xml»; se permiten: text, gradescope, junit. Usa --help para ver las opciones.",
        ),
        (
            &["--bogus"],
            "grader: opción desconocida: --bogus. Usa --help para ver las opciones.",
        ),
        (
            &["--ejercicio", "pagos"],
            "grader: valor inválido para --ejercicio <NOMBRE>: «pagos»; se permiten: cobro, cliente, reconciliacion. Usa --help para ver las opciones.",
        ),
        (
            &["--variantes", "0"],
            "grader: valor inválido para --variantes <N>: «0» (debe ser un entero entre 1 y 50; se leyó 0). Usa --help para ver las opciones.",
        ),
        (
            &["--timeout", "-1"],
            "grader: valor inválido para --timeout <SEGUNDOS>: «-1» (debe ser un número de segundos entre 0.1 y 600, p. ej. 5 o 0.5). Usa --help para ver las opciones.",
        ),
        (
            &["--variantes", "5"],
            "grader: --variantes necesita una semilla: --semilla S, o la variable de entorno KIT_SEMILLA_SECRETA (la semilla secreta del instructor)",
        ),
        (
            &["--semilla", "3"],
            "grader: --semilla solo tiene efecto con --variantes N (cuántas variantes generar)",
        ),
    ];
    for (args, expected) in cases {
        let o = compile_report(args, &[]);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert_eq!(stderr(&o).trim_end(), expected, "{args:?}");
    }
    // A secret seed that is not an integer is refused without showing it.
    let o = compile_report(
        &["--variantes", "5"],
        &[("KIT_SEMILLA_SECRETA", "abracadabra")],
    );
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.starts_with("grader: la variable KIT_SEMILLA_SECRETA debe ser un entero"));
    assert!(!e.contains("abracadabra"));
}

#[test]
fn variants_with_a_seed_count_their_pool_in_the_report() {
    let o = compile_report(
        &["--format", "gradescope", "--variantes", "5"],
        &[("KIT_SEMILLA_SECRETA", "4242")],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["score"], 0);
    let max: Vec<_> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["max_score"].as_u64().unwrap())
        .collect();
    assert_eq!(max, [46, 46, 38]);
}

#[test]
fn a_grader_killed_by_a_signal_gets_the_failure_report_naming_it() {
    let dir = scratch("uso-estado");
    let log = dir.join("grader.err");
    std::fs::write(
        &log,
        "   Compiling exercises v0.1.0\nhilo principal: adiós\n",
    )
    .unwrap();
    let o = compile_report(
        &[
            "--format",
            "gradescope",
            "--estado",
            "137",
            "--registro",
            log.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["score"], 0);
    assert!(
        v["output"]
            .as_str()
            .unwrap()
            .contains("El grader terminó por la señal 9 (SIGKILL, estado 137) sin entregar su informe: esta entrega vale 0.\nPuntaje: 0/100 puntos (no se pudo calificar)")
    );
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3);
    for t in tests {
        assert_eq!(t["status"], "failed");
        assert_eq!(t["score"], 0);
        let out = t["output"].as_str().unwrap();
        assert!(out.contains("cualquier results.json que haya quedado escrito se descarta"));
        assert!(
            out.ends_with("Lo que dijo el grader:\n\nhilo principal: adiós"),
            "{out}"
        );
    }

    // Other statuses are named as statuses; 0 or 1 mean the report is bad.
    let o = compile_report(&["--estado", "101"], &[]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("✗ El grader terminó con estado 101 sin entregar su informe"));
    assert!(text.contains("(nada en su salida de error)"));
    let o = compile_report(&["--estado", "1", "--format", "junit"], &[]);
    let xml = String::from_utf8_lossy(&o.stdout);
    assert!(
        xml.contains("El grader terminó (estado 1) pero su informe falta o no se puede leer"),
        "{xml}"
    );
    assert!(xml.contains("type=\"sin-calificar\""));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn only_a_readable_results_json_passes_the_check() {
    let dir = scratch("uso-comprobar");
    let good = dir.join("bueno.json");
    std::fs::write(&good, r#"{"score": 12.5, "tests": [{"score": 12.5}]}"#).unwrap();
    let o = compile_report(&["--comprobar-gradescope", good.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(o.stdout.is_empty() && o.stderr.is_empty());

    let cut = dir.join("cortado.json");
    std::fs::write(&cut, r#"{"score": 100, "tests": [{"sco"#).unwrap();
    let o = compile_report(&["--comprobar-gradescope", cut.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).starts_with(&format!(
            "compile-report: {}: no es JSON válido",
            cut.display()
        )),
        "{}",
        stderr(&o)
    );

    let missing = dir.join("no-existe.json");
    let o = compile_report(&["--comprobar-gradescope", missing.to_str().unwrap()], &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("no se pudo leer"));
    std::fs::remove_dir_all(&dir).unwrap();
}
