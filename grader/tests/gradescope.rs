//! The Gradescope autograder as Gradescope runs it, through
//! `autograder/gradescope/probar`: the zip of `empaquetar` unpacked into
//! `RAIZ/source/`, the submission in `RAIZ/submission/`, `setup.sh` run from
//! `source/`, and `source/run_autograder` copied to `RAIZ/run_autograder` and
//! run from `RAIZ` with `env -i` (PATH, HOME, AUTOGRADER_DIR and the
//! toolchain's CARGO_HOME/RUSTUP_HOME only). The zip carries a secret seed,
//! which must show in no output. Also: `empaquetar` keeps the zip (and the
//! seed) out of the student template.
//!
//! Slow (nested cargo builds) and marked `#[ignore]`: `.ci/run` runs it with
//! `cargo test -p grader --test compilacion --test plantilla --test gradescope -- --ignored`.
//! The kit is built once (the first `setup.sh`); each submission then only
//! recompiles `exercises` and the grader that links it, in the nested target
//! folder the other slow tests share (`anidado::target()`).

mod anidado;
mod informes;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Instant;

use anidado::{copy_repo, repo};
use serde_json::Value;

/// The secret seed packed into the zip: long enough not to appear by chance.
const SEED: &str = "918273645546372819";

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh, empty scratch folder `name`.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `empaquetar DEST` with `env` added.
fn empaquetar(dest: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(repo().join("autograder/gradescope/empaquetar"));
    cmd.arg(dest)
        .env_remove("KIT_SEMILLA_SECRETA")
        .env_remove("KIT_VARIANTES");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("empaquetar runs")
}

/// A correct server for `exercises/` (the reference's uses crates the
/// students' crate does not depend on).
const SERVER_BODY: &str = r#"if self.idempotent {
            if let Some(saved) = self.store.get(&key) {
                return *saved;
            }
        }
        let charge_id = sim::ChargeId::next_after(self.ledger.len());
        self.ledger.push(LedgerEntry { key, order_id, amount, charge_id });
        let result = ChargeResult { charge_id, amount, status: sim::ChargeStatus::Captured };
        if self.idempotent {
            self.store.insert(key, result);
        }
        result"#;

/// The three solved files: the stub server with [`SERVER_BODY`], the
/// reference client, and the reference reconciliation on `std`'s `HashMap`.
fn solved_files() -> [(&'static str, String); 3] {
    let read = |p: &str| std::fs::read_to_string(repo().join(p)).unwrap();
    let stub = read("exercises/src/payments_server.rs");
    let todo = "todo!(\"Ejercicio 1: el cobro idempotente\")";
    assert!(stub.contains(todo));
    let reconciliation = read("solutions/src/reconciliation.rs");
    let fx = "use rustc_hash::FxHashMap;";
    assert!(reconciliation.contains(fx));
    [
        ("payments_server.rs", stub.replace(todo, SERVER_BODY)),
        ("client.rs", read("solutions/src/client.rs")),
        (
            "reconciliation.rs",
            reconciliation.replace(
                fx,
                "type FxHashMap<K, V> = std::collections::HashMap<K, V>;",
            ),
        ),
    ]
}

/// A copy of the repository with `exercises/` solved.
fn solved_repository(dest: &Path) {
    copy_repo(dest);
    for (name, code) in solved_files() {
        std::fs::write(dest.join("exercises/src").join(name), code).unwrap();
    }
}

/// A reconciliation that never ends on the 2,500-order fleet (and only
/// there: no variant has more than 1,500 orders).
fn looping_reconciliation() -> String {
    let [.., (_, reconciliation)] = solved_files();
    let head = "pub fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {";
    assert!(reconciliation.contains(head));
    reconciliation.replace(
        head,
        &format!("{head}\n    if orders.len() == 2500 {{\n        loop {{}}\n    }}"),
    )
}

/// A client that reports what student code can find around it: its own
/// environment, and the environment and command line of every process above
/// it, up to the first one.
const SNOOPING_CLIENT: &str = r#"//! Fisgón: busca la semilla en el entorno y en los procesos de arriba.
use sim::{ChargeOutcome, KeySource, Network, Order, Payments};

pub fn charge_order<P: Payments, K: KeySource>(
    _server: &mut P,
    _network: &mut Network,
    _keys: &mut K,
    _order: &Order,
    _max_attempts: u32,
) -> ChargeOutcome {
    let mut seen: Vec<String> = std::env::vars().map(|(k, v)| format!("{k}={v}")).collect();
    let mut pid = std::process::id().to_string();
    while pid != "0" && pid != "1" {
        for what in ["environ", "cmdline"] {
            let raw = std::fs::read(format!("/proc/{pid}/{what}")).unwrap_or_default();
            seen.push(format!("[{pid} {what}] {}", String::from_utf8_lossy(&raw).replace('\0', " ")));
        }
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        pid = status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .map(|p| p.trim().to_string())
            .unwrap_or_else(|| "0".to_string());
    }
    panic!("FISGON {}", seen.join(" | "));
}
"#;

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

/// One graded submission: results.json, probar's output, and the seconds
/// it took.
struct Graded {
    results: Value,
    stdout: String,
    secs: f64,
}

impl Graded {
    fn score(&self) -> f64 {
        self.results["score"].as_f64().unwrap()
    }

    fn max(&self) -> f64 {
        informes::gradescope_max(&self.results)
    }

    fn test(&self, name: &str) -> &Value {
        self.results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"].as_str().unwrap().starts_with(name))
            .unwrap_or_else(|| panic!("no test {name} in {}", self.results))
    }

    fn output_of(&self, name: &str) -> &str {
        self.test(name)["output"].as_str().unwrap()
    }

    /// The names of the tests that failed.
    fn failed(&self) -> Vec<String> {
        self.results["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| t["status"] != "passed")
            .map(|t| {
                t["name"]
                    .as_str()
                    .unwrap()
                    .split(' ')
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect()
    }
}

/// Grades `submission` (whose contents go to `submission/`) with `zip` in
/// the layout at `root`, through `probar`; the seed must show nowhere.
fn grade(label: &str, zip: &Path, root: &Path, submission: &[&Path]) -> Graded {
    let started = Instant::now();
    let mut cmd = Command::new(repo().join("autograder/gradescope/probar"));
    cmd.arg("--raiz").arg(root).arg(zip).args(submission);
    let o = cmd
        .env("CARGO_TARGET_DIR", anidado::target())
        .output()
        .expect("probar runs");
    let secs = started.elapsed().as_secs_f64();
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{label}:\n{stdout}\n{stderr}");
    let json = std::fs::read_to_string(root.join("results/results.json")).unwrap();
    for (what, output) in [
        ("results.json", &json),
        ("stdout", &stdout),
        ("stderr", &stderr),
    ] {
        assert!(
            !output.contains(SEED),
            "{label}: the seed is in {what}:\n{output}"
        );
    }
    let results = informes::gradescope(&json);
    let graded = Graded {
        results,
        stdout,
        secs,
    };
    // What the final report quotes, for each submission.
    let failed = graded.failed();
    eprintln!(
        "== {label}: {}/{} in {:.1} s; {} failed{}",
        graded.score(),
        graded.max(),
        graded.secs,
        failed.len(),
        if failed.len() <= 3 {
            format!(": {failed:?}")
        } else {
            String::new()
        }
    );
    for line in graded.stdout.lines().filter(|l| {
        l.starts_with("probar:")
            || l.starts_with("Puntaje")
            || l.starts_with("scripts/calificar")
            || l.starts_with("    ")
    }) {
        eprintln!("   {}", line.chars().take(240).collect::<String>());
    }
    graded
}

/// The tests of variants, which Gradescope shows only once published.
fn variant_tests(v: &Value) -> Vec<&Value> {
    v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().unwrap().contains("/variante-"))
        .collect()
}

#[test]
#[ignore = "nested cargo builds (slow); .ci/run runs it with --ignored"]
fn gradescope_as_it_really_runs_grades_every_kind_of_submission() {
    let dir = scratch("kit-gradescope");
    let zip = dir.join("autograder.zip");
    let o = empaquetar(&zip, &[("KIT_SEMILLA_SECRETA", SEED)]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stdout).contains("Semilla secreta: incluida, con 5 variantes ocultas por ejercicio (after_published). Total de la tarea en Gradescope: 130 puntos."),
        "{}",
        text(&o.stdout)
    );
    assert!(!text(&o.stdout).contains(SEED) && !text(&o.stderr).contains(SEED));

    // Every submission is written before any is graded, so each one's files
    // are older than the builds of the ones graded before it.
    let subs = dir.join("entregas");
    let correct = subs.join("correcta");
    solved_repository(&correct);
    let stubs = subs.join("stubs");
    copy_repo(&stubs);
    // Beside the stubs, a rubric and a grader of the student's own: only
    // exercises/ is taken.
    let rubric = stubs.join("grader/rubrica.toml");
    let r = std::fs::read_to_string(&rubric).unwrap();
    std::fs::write(&rubric, r.replace("puntos = 5 }", "puntos = 500 }")).unwrap();
    std::fs::write(
        stubs.join("grader/src/lib.rs"),
        "compile_error!(\"trampa\");",
    )
    .unwrap();
    let loose = subs.join("sueltos");
    std::fs::create_dir_all(&loose).unwrap();
    let loose_files: Vec<PathBuf> = solved_files()
        .into_iter()
        .map(|(name, code)| {
            let file = loose.join(name);
            std::fs::write(&file, code).unwrap();
            file
        })
        .collect();
    let broken = subs.join("no-compila");
    solved_repository(&broken);
    std::fs::write(broken.join("exercises/src/client.rs"), INCLUDING_CLIENT).unwrap();
    let looping = subs.join("bucle");
    solved_repository(&looping);
    std::fs::write(
        looping.join("exercises/src/reconciliation.rs"),
        looping_reconciliation(),
    )
    .unwrap();
    let snooping = subs.join("fisgon");
    solved_repository(&snooping);
    std::fs::write(snooping.join("exercises/src/client.rs"), SNOOPING_CLIENT).unwrap();
    let forging = subs.join("forja");
    solved_repository(&forging);
    std::fs::write(
        forging.join("exercises/src/reconciliation.rs"),
        FORGING_RECONCILIATION,
    )
    .unwrap();
    let needs_solutions = subs.join("depende-de-solutions");
    solved_repository(&needs_solutions);
    anidado::depend_on_solutions(&needs_solutions);

    // Two autograder roots (two kit copies) and one CARGO_TARGET_DIR.
    let (a, b) = (dir.join("raiz-a"), dir.join("raiz-b"));

    // A correct repository: everything, hidden variants included.
    let g = grade("correct repository", &zip, &a, &[&correct]);
    assert_eq!((g.score(), g.max()), (130.0, 130.0), "{}", g.results);
    assert!(g.failed().is_empty());
    let hidden = variant_tests(&g.results);
    assert_eq!(hidden.len(), 15, "5 variants per exercise");
    assert!(hidden.iter().all(|t| t["visibility"] == "after_published"));
    assert!(
        g.stdout
            .contains("Puntaje: 130/130 (52 pruebas; results.json)")
    );
    assert!(
        g.stdout
            .contains("probar: el paquete trae semilla secreta (5 variantes")
    );
    // run_autograder left the seed readable by its owner only.
    let mode = std::os::unix::fs::PermissionsExt::mode(
        &std::fs::metadata(a.join("source/semilla-secreta"))
            .unwrap()
            .permissions(),
    );
    assert_eq!(mode & 0o777, 0o600);

    // The untouched stubs, in the other kit copy with the same target
    // folder, written before the correct build: graded as what they are.
    let g = grade(
        "untouched stubs (other copy, same target)",
        &zip,
        &b,
        &[&stubs],
    );
    assert_eq!((g.score(), g.max()), (0.0, 130.0), "{}", g.results);
    assert!(
        g.output_of("cliente/flota-1000")
            .starts_with("pendiente: charge_order todavía es todo!()")
    );
    assert_eq!(variant_tests(&g.results).len(), 15);

    // Loose files at the submission's top level.
    let files: Vec<&Path> = loose_files.iter().map(PathBuf::as_path).collect();
    let g = grade("correct loose files", &zip, &a, &files);
    assert_eq!((g.score(), g.max()), (130.0, 130.0), "{}", g.results);

    // A compile error (the reference included by path: there is none in
    // the kit): 0, and the compiler's first error.
    let g = grade("compile error", &zip, &a, &[&broken]);
    assert_eq!((g.score(), g.max()), (0.0, 130.0), "{}", g.results);
    let out = g.output_of("cobro");
    assert!(out.starts_with("Tu código no compila"), "{out}");
    assert!(
        out.contains("couldn't read `exercises/src/../../solutions/src/client.rs`"),
        "{out}"
    );
    assert!(out.contains("--> exercises/src/client.rs:"), "{out}");

    // An endless loop in one check: that check times out, the rest pass.
    let g = grade("endless loop", &zip, &a, &[&looping]);
    assert_eq!(g.failed(), ["reconciliacion/flota-2500"], "{}", g.results);
    assert_eq!(g.score(), 128.0);
    let out = g.output_of("reconciliacion/flota-2500");
    assert!(out.contains("no terminó en 5 s"), "{out}");

    // Student code looking for the seed in its environment and in every
    // process above it finds none (grade() checks every output).
    let g = grade("snooping client", &zip, &a, &[&snooping]);
    assert_eq!(g.score(), 130.0 - 36.0 - 10.0, "{}", g.results);
    assert!(g.failed().iter().all(|t| t.starts_with("cliente/")));
    let out = g.output_of("cliente/flota-1000");
    assert!(out.contains("FISGON") && out.contains("PATH="), "{out}");
    assert!(out.contains("cmdline]"), "{out}");

    // A submission that writes its own results.json (where Gradescope reads
    // it and over the grader's report) and kills the grader: its file is
    // discarded and the failure report names the signal.
    let g = grade("forged results.json", &zip, &a, &[&forging]);
    assert!(
        g.stdout
            .contains("scripts/calificar terminó con estado 137"),
        "{}",
        g.stdout
    );
    let report = std::fs::read_to_string(a.join("forjado")).expect("the forger ran");
    assert!(!report.starts_with(a.to_str().unwrap()), "{report}");
    assert_eq!((g.score(), g.max()), (0.0, 130.0), "{}", g.results);
    assert!(!g.results.to_string().contains("forjado"));
    for t in g.results["tests"].as_array().unwrap() {
        assert!(
            t["output"].as_str().unwrap().starts_with(
                "El grader terminó por la señal 9 (SIGKILL, estado 137) sin entregar su informe: esta entrega vale 0."
            ),
            "{t}"
        );
    }

    // A crate depending on solutions: there is none; 0, saying why.
    let g = grade("depends on solutions", &zip, &a, &[&needs_solutions]);
    assert_eq!(g.score(), 0.0);
    assert!(
        g.results["tests"][0]["output"]
            .as_str()
            .unwrap()
            .contains("solutions/Cargo.toml")
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
#[ignore = "runs empaquetar and the student template (needs zip); .ci/run runs it with --ignored"]
fn the_seed_never_reaches_the_student_template() {
    let dir = scratch("kit-semilla");
    // Inside the repository, where the template would pick it up: refused.
    let inside = repo().join("autograder.zip");
    let o = empaquetar(&inside, &[("KIT_SEMILLA_SECRETA", SEED)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).starts_with(&format!(
            "empaquetar: {} está dentro del repositorio",
            inside.display()
        )),
        "{}",
        text(&o.stderr)
    );
    assert!(!inside.exists());

    // Without a seed: a warning and a total of 100.
    let o = empaquetar(&dir.join("sin-semilla"), &[]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stderr).starts_with("AVISO: sin semilla secreta"));
    assert!(
        text(&o.stdout)
            .contains("Semilla secreta: no incluida. Total de la tarea en Gradescope: 100 puntos.")
    );
    assert!(!dir.join("sin-semilla/semilla-secreta").exists());

    // Bad settings, named.
    let o = empaquetar(
        &dir.join("x.zip"),
        &[("KIT_SEMILLA_SECRETA", SEED), ("KIT_VARIANTES", "51")],
    );
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        text(&o.stderr).trim_end(),
        "empaquetar: la variable KIT_VARIANTES debe ser un entero de 1 a 50 (variantes ocultas por ejercicio); tiene «51»"
    );
    let o = empaquetar(&dir.join("x.zip"), &[("KIT_SEMILLA_SECRETA", "semilla")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!text(&o.stderr).contains("semilla\n") && text(&o.stderr).contains("no se muestra"));

    // A zip with 7 variants, then a copy of the repository holding it (and
    // a stray semilla-secreta): the template built from it has neither.
    let zip = dir.join("autograder.zip");
    let o = empaquetar(
        &zip,
        &[("KIT_SEMILLA_SECRETA", SEED), ("KIT_VARIANTES", "7")],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("con 7 variantes ocultas por ejercicio"));
    let listed = Command::new("unzip").arg("-Z1").arg(&zip).output().unwrap();
    let names = text(&listed.stdout);
    assert!(names.lines().any(|l| l == "semilla-secreta"), "{names}");
    assert!(names.lines().any(|l| l == "variantes"), "{names}");
    let variants = Command::new("unzip")
        .args(["-p"])
        .arg(&zip)
        .arg("variantes")
        .output()
        .unwrap();
    assert_eq!(text(&variants.stdout), "7\n");

    let copy = dir.join("repositorio");
    copy_repo(&copy);
    std::fs::copy(&zip, copy.join("autograder.zip")).unwrap();
    std::fs::write(copy.join("exercises/semilla-secreta"), SEED).unwrap();
    let template = dir.join("plantilla");
    let o = Command::new(copy.join("scripts/plantilla-estudiante"))
        .arg(&template)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut stack = vec![template.clone()];
    let mut files = 0;
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            files += 1;
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            assert!(!name.ends_with(".zip"), "{}", path.display());
            let bytes = std::fs::read(&path).unwrap();
            assert!(
                !text(&bytes).contains(SEED),
                "the seed is in {}",
                path.display()
            );
        }
    }
    assert!(files > 50, "{files} files in the template");
    std::fs::remove_dir_all(&dir).unwrap();
}
