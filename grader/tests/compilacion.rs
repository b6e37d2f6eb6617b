//! A submission that does not compile still gets a report in the chosen
//! format (`scripts/calificar` → `grader/compile-report`), and bad options
//! still fail as the grader's do; a submission whose crate depends on
//! `solutions` is refused; the Gradescope autograder
//! (`autograder/gradescope/run_autograder`) always writes `results.json`,
//! never one the submission forged, and its kit has no `solutions/` to
//! include.
//!
//! Each test builds a copy of the repository with cargo, so they are slow
//! (minutes on a cold cache) and marked `#[ignore]`: `.ci/run` runs them
//! explicitly with
//! `cargo test -p grader --test compilacion --test plantilla -- --ignored`.
//! The copies share one target folder, `target/tmp/kit-anidado`, so the
//! dependencies are compiled once.
#![cfg(feature = "solutions")]

mod anidado;
mod informes;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Serializes the tests of this file. The copies of the kit share one target
/// folder, and cargo names a workspace's artifacts by paths relative to the
/// workspace root: two copies built at once would reuse each other's
/// artifacts (an older broken file could look fresh next to a newer build).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The target folder the nested builds share.
fn nested_target() -> PathBuf {
    anidado::target()
}

/// A fresh, empty scratch folder for test `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("kit-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Copies the repository's files (tracked and new, not ignored) to `dest`.
fn copy_repo(dest: &Path) {
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(repo())
        .output()
        .expect("git runs");
    assert!(listed.status.success());
    for file in listed.stdout.split(|b| *b == 0).filter(|f| !f.is_empty()) {
        let rel = Path::new(std::str::from_utf8(file).unwrap());
        let from = repo().join(rel);
        if !from.is_file() {
            continue;
        }
        let to = dest.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
}

/// Runs `program` in `dir` with the shared target folder, no colours, a
/// fixed execution time, and no grader variables from outside.
fn run(dir: &Path, program: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", nested_target())
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
#[ignore = "builds a copy of the repository (slow); .ci/run runs it with --ignored"]
fn a_submission_with_a_syntax_error_gets_a_report_in_every_format() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("compilacion");
    let root = dir.join("entrega");
    copy_repo(&root);
    break_syntax(&root);
    let calificar = root.join("scripts/calificar");
    let root_text = root.display().to_string();

    let o = run(&root, &calificar, &[], &[]);
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
        "Ejercicio 2 · Una idempotency key por operación (cliente de orders): 0/36 puntos"
    ));
    assert_eq!(
        report.trim_end().lines().last().unwrap(),
        "Puntaje: 0/100 puntos (no compila)"
    );

    let json_file = dir.join("results.json");
    let o = run(
        &root,
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
    assert_eq!(informes::gradescope_max(&v), 100.0);
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3);
    for t in tests {
        assert_eq!(t["status"], "failed");
        let out = t["output"].as_str().unwrap();
        assert!(out.contains("--> exercises/src/client.rs:"), "{out}");
        assert!(!out.contains(&root_text));
    }

    let o = run(
        &root,
        &calificar,
        &["--formato", "junit", "--ejercicio", "cliente"],
        &[],
    );
    assert_eq!(o.status.code(), Some(1));
    let xml = informes::junit(&text(&o.stdout));
    assert_eq!(xml.test_suites.len(), 1);
    assert_eq!(xml.failures, 1);
    let failure = informes::junit_failure(&xml, "cliente/compilacion").unwrap();
    assert!(failure.starts_with("Tu código no compila"), "{failure}");
    assert!(failure.contains("exercises/src/client.rs"));

    // Bad options fail as the grader's would, even though it cannot be built.
    for (args, expected) in [
        (
            &["--variantes", "5"][..],
            "grader: --variantes necesita una semilla: --semilla S, o la variable de entorno KIT_SEMILLA_SECRETA (la semilla secreta del instructor)",
        ),
        (
            &["--format", "xml"][..],
            "grader: valor inválido para --format <FORMATO>: «xml»; se permiten: text, gradescope, junit. Usa --help para ver las opciones.",
        ),
        (
            &["--bogus"][..],
            "grader: opción desconocida: --bogus. Usa --help para ver las opciones.",
        ),
    ] {
        let o = run(&root, &calificar, args, &[]);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", text(&o.stdout));
        assert!(o.stdout.is_empty(), "{args:?}");
        assert_eq!(text(&o.stderr).trim_end(), expected, "{args:?}");
    }
    let o = run(
        &root,
        &calificar,
        &["--variantes", "5", "--format", "gradescope"],
        &[("KIT_SEMILLA_SECRETA", "4242")],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    assert_eq!(
        informes::gradescope_max(&informes::gradescope(&text(&o.stdout))),
        130.0
    );

    // Fixed, but now depending on the reference solutions: refused.
    let manifest = root.join("exercises/Cargo.toml");
    std::fs::copy(
        repo().join("exercises/src/client.rs"),
        root.join("exercises/src/client.rs"),
    )
    .unwrap();
    let m = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        m.replace(
            "[dependencies]\n",
            "[dependencies]\nsolutions = { path = \"../solutions\" }\n",
        ),
    )
    .unwrap();
    let o = run(&root, &calificar, &[], &[]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    assert_eq!(
        text(&o.stderr).trim_end(),
        "grader: exercises/Cargo.toml, campo `dependencies.solutions`: tu crate no puede depender de la solución de referencia (solutions); quita esa dependencia y vuelve a correr el grader"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A reconciliation that cheats on Gradescope: it writes a full-marks
/// `results.json` where Gradescope reads it and over the grader's own report
/// (the `--output` on the grader's command line), then kills the grader.
const FORGING_RECONCILIATION: &str = r##"//! Trampa: forja el results.json y mata al grader.
use sim::{LedgerEntry, Order, Reconciliation};

pub fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let forged = r#"{"score": 130, "execution_time": 0, "output": "forjado", "tests": []}"#;
    let dir = std::env::var("AUTOGRADER_DIR").unwrap_or_else(|_| "/autograder".to_string());
    let _ = std::fs::write(format!("{dir}/results/results.json"), forged);
    let parent = std::os::unix::process::parent_id();
    let cmdline = std::fs::read(format!("/proc/{parent}/cmdline")).unwrap_or_default();
    let args: Vec<&[u8]> = cmdline.split(|b| *b == 0).collect();
    if let Some(i) = args.iter().position(|a| *a == b"--output") {
        if let Some(report) = args.get(i + 1) {
            let _ = std::fs::write(String::from_utf8_lossy(report).as_ref(), forged);
            let _ = std::fs::write(format!("{dir}/forjado"), report);
        }
    }
    let _ = std::process::Command::new("kill")
        .args(["-9", &parent.to_string()])
        .status();
    std::process::exit(0)
}
"##;

/// A client that includes the reference solution by path instead of
/// writing one (it compiles in the instructor's repository).
const INCLUDING_CLIENT: &str = r#"//! Trampa: la solución de referencia, incluida por ruta.
#[path = "../../solutions/src/client.rs"]
mod referencia;
pub use referencia::charge_order;
"#;

#[test]
#[ignore = "builds a copy of the repository (slow); .ci/run runs it with --ignored"]
fn the_gradescope_autograder_always_writes_results_json() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = scratch("gradescope");
    let source = dir.join("source");
    let o = Command::new(repo().join("autograder/gradescope/empaquetar"))
        .arg(&source)
        .env("KIT_SEMILLA_SECRETA", "4242")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    for f in [
        "setup.sh",
        "run_autograder",
        "kit/Cargo.toml",
        "kit/grader/rubrica.toml",
        "kit/grader/compile-report/src/main.rs",
        "kit/scripts/calificar",
        "kit/fixtures/flota-1000.toml",
    ] {
        assert!(source.join(f).is_file(), "{f}");
    }
    assert_eq!(
        std::fs::read_to_string(source.join("semilla-secreta")).unwrap(),
        "4242\n"
    );
    // The kit is the student template: no reference solutions to include.
    assert!(
        !source.join("kit/solutions").exists(),
        "solutions/ in the kit"
    );
    let kit_manifest = std::fs::read_to_string(source.join("kit/Cargo.toml")).unwrap();
    assert!(!kit_manifest.contains("solutions"), "{kit_manifest}");
    let grader_manifest = std::fs::read_to_string(source.join("kit/grader/Cargo.toml")).unwrap();
    assert!(
        !grader_manifest.contains("dep:solutions"),
        "{grader_manifest}"
    );

    let autograder = dir.join("autograder");
    let submission = autograder.join("submission");
    let results = autograder.join("results/results.json");
    let run_autograder = source.join("run_autograder");
    let env = [
        ("AUTOGRADER_DIR", autograder.to_str().unwrap()),
        ("KIT_VARIANTES", "1"),
    ];
    let submit = |prepare: &dyn Fn(&Path)| {
        let _ = std::fs::remove_dir_all(&submission);
        std::fs::create_dir_all(&submission).unwrap();
        copy_repo(&submission);
        prepare(&submission);
        let o = run(&dir, &run_autograder, &[], &env);
        assert!(o.status.success(), "{}", text(&o.stderr));
        let json = std::fs::read_to_string(&results).unwrap();
        (informes::gradescope(&json), text(&o.stdout))
    };

    // The stubs, with a tampered rubric and grader beside them: only
    // exercises/ is taken, the rest is the instructor's.
    let (v, _) = submit(&|s: &Path| {
        let rubric = s.join("grader/rubrica.toml");
        let r = std::fs::read_to_string(&rubric).unwrap();
        std::fs::write(&rubric, r.replace("puntos = 5 }", "puntos = 500 }")).unwrap();
        std::fs::write(s.join("grader/src/lib.rs"), "compile_error!(\"trampa\");").unwrap();
    });
    assert_eq!(v["score"], 0);
    assert_eq!(informes::gradescope_max(&v), 130.0);
    let hidden: Vec<_> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["visibility"] == "after_published")
        .collect();
    assert_eq!(hidden.len(), 3, "one variant per exercise");
    assert!(
        hidden
            .iter()
            .all(|t| t["name"].as_str().unwrap().contains("/variante-"))
    );

    // A reconciliation that forges results.json (where Gradescope reads it
    // and over the grader's report) and kills the grader: the forgery is
    // thrown away and the failure report names the signal.
    let forged_marker = autograder.join("forjado");
    let (v, log) = submit(&|s: &Path| {
        std::fs::write(
            s.join("exercises/src/reconciliation.rs"),
            FORGING_RECONCILIATION,
        )
        .unwrap();
    });
    assert!(
        log.contains("scripts/calificar terminó con estado 137"),
        "{log}"
    );
    let report = std::fs::read_to_string(&forged_marker).expect("the forger ran");
    assert!(
        !report.starts_with(autograder.to_str().unwrap()),
        "{report}"
    );
    assert_eq!(v["score"], 0, "{v}");
    assert!(!v.to_string().contains("forjado"), "{v}");
    assert_eq!(informes::gradescope_max(&v), 130.0);
    let tests = v["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3);
    for t in tests {
        assert_eq!(t["status"], "failed");
        let out = t["output"].as_str().unwrap();
        assert!(
            out.starts_with(
                "El grader terminó por la señal 9 (SIGKILL, estado 137) sin entregar su informe: esta entrega vale 0."
            ),
            "{out}"
        );
    }

    // Including the reference by path: there is none in the kit, so it does
    // not compile (score 0, the compile-error report).
    let (v, _) = submit(&|s: &Path| {
        std::fs::write(s.join("exercises/src/client.rs"), INCLUDING_CLIENT).unwrap();
    });
    assert_eq!(v["score"], 0);
    assert_eq!(v["tests"].as_array().unwrap().len(), 3);
    let out = v["tests"][0]["output"].as_str().unwrap();
    assert!(out.starts_with("Tu código no compila"), "{out}");
    assert!(out.contains("--> exercises/src/client.rs:"), "{out}");
    assert!(
        out.contains("couldn't read `exercises/src/../../solutions/src/client.rs`"),
        "{out}"
    );

    // A crate depending on solutions: there is none to depend on; still a
    // results.json, score 0, saying why.
    let (v, _) = submit(&|s: &Path| {
        let manifest = s.join("exercises/Cargo.toml");
        let m = std::fs::read_to_string(&manifest).unwrap();
        std::fs::write(
            &manifest,
            m.replace(
                "[dependencies]\n",
                "[dependencies]\nsolutions = { path = \"../solutions\" }\n",
            ),
        )
        .unwrap();
    });
    assert_eq!(v["score"], 0);
    let out = v["tests"][0]["output"].as_str().unwrap();
    assert!(out.contains("solutions/Cargo.toml"), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}
