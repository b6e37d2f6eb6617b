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
//! `cargo test -p grader --test suite -- --ignored compilacion:: plantilla:: gradescope::`.
//! The kit is built once (the first `setup.sh`; probar runs it once per root
//! and package, as Gradescope once per image); each submission then only
//! recompiles `exercises` and the grader that links it, in the nested target
//! folder the other slow tests share (`anidado::target()`).
//!
//! Gradescope's containers are Linux; the suite reads `/proc` and sets
//! unix permissions.
#![cfg(unix)]

use crate::anidado;
use crate::informes;

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

use anidado::solved_files;

/// A copy of the repository with `exercises/` solved.
fn solved_repository(dest: &Path) {
    copy_repo(dest);
    for (name, code) in solved_files() {
        std::fs::write(dest.join("exercises/src").join(name), code).unwrap();
    }
}

/// A solved repository at `dir` with `exercises/src/FILE` replaced by
/// `code`; `dir`.
fn solved_but(dir: &Path, file: &str, code: &str) -> PathBuf {
    solved_repository(dir);
    std::fs::write(dir.join("exercises/src").join(file), code).unwrap();
    dir.to_path_buf()
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

/// Where the attacks below leave notes of what they tried (a folder anyone
/// can write, outside the autograder): the test reads them to know each
/// attack really ran, and what it got.
const ATTACKS: &str = "/tmp/kit-gradescope-ataques";

/// Helpers appended to an attacking file: the command lines of every process
/// above it, what they say about where the grade and the seed live, and a
/// note in [`ATTACKS`].
const ATTACK_HELPERS: &str = r##"
/// Los argumentos de cada proceso de arriba, del padre al primero.
fn trampa_ancestros() -> Vec<Vec<String>> {
    let mut todos = Vec::new();
    let mut pid = std::process::id().to_string();
    while !pid.is_empty() && pid != "0" && pid != "1" {
        let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        todos.push(
            raw.split(|b| *b == 0)
                .filter(|a| !a.is_empty())
                .map(|a| String::from_utf8_lossy(a).into_owned())
                .collect(),
        );
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        pid = status
            .lines()
            .find_map(|l| l.strip_prefix("PPid:"))
            .map(|p| p.trim().to_string())
            .unwrap_or_default();
    }
    todos
}

/// Dónde se escribe la nota (results.json, el --output del juez) y dónde
/// está la semilla (source/semilla-secreta, el --archivo-semilla del juez).
fn trampa_objetivos() -> (Vec<String>, Vec<String>) {
    let mut informes = vec!["/autograder/results/results.json".to_string()];
    let mut semillas = vec!["/autograder/source/semilla-secreta".to_string()];
    for args in trampa_ancestros() {
        for (i, a) in args.iter().enumerate() {
            if let Some(raiz) = a.strip_suffix("/run_autograder") {
                informes.push(format!("{raiz}/results/results.json"));
                semillas.push(format!("{raiz}/source/semilla-secreta"));
            }
            let siguiente = args.get(i + 1).cloned();
            match (a.as_str(), siguiente) {
                ("--output", Some(p)) => informes.push(p),
                ("--archivo-semilla", Some(p)) => semillas.push(p),
                _ => {}
            }
        }
    }
    (informes, semillas)
}

/// Forja la nota en cada objetivo y lee cada semilla; lo que obtuvo.
fn trampa_intentar() -> Vec<String> {
    let forjado = r#"{"score": 130, "output": "FORJADO", "tests": []}"#;
    let (informes, semillas) = trampa_objetivos();
    let mut hecho = Vec::new();
    for p in &informes {
        let r = std::fs::write(p, forjado).map_err(|e| e.kind());
        hecho.push(format!("escribir {p}: {r:?}"));
        let r = std::fs::remove_file(p).map_err(|e| e.kind());
        hecho.push(format!("borrar {p}: {r:?}"));
        if let Some(dir) = std::path::Path::new(p).parent() {
            let r = std::fs::write(dir.join("otro.json"), forjado).map_err(|e| e.kind());
            hecho.push(format!("crear en {}: {r:?}", dir.display()));
        }
    }
    for p in &semillas {
        let r = std::fs::read_to_string(p).map_err(|e| e.kind());
        hecho.push(format!("leer {p}: {r:?}"));
    }
    hecho
}

fn trampa_anotar(que: &str, texto: &str) {
    let _ = std::fs::write(format!("@ATTACKS@/{que}-{}", std::process::id()), texto);
}
"##;

/// `code` with the attack helpers appended.
fn with_helpers(code: &str) -> String {
    format!("{code}\n{ATTACK_HELPERS}").replace("@ATTACKS@", ATTACKS)
}

/// Pre-main code on untouched stubs (appended to the server's stub): a
/// function in `.init_array` (no crate needed) that prints a full-marks
/// report and tries to write the grade.
const PRE_MAIN: &str = r##"
#[used]
#[unsafe(link_section = ".init_array")]
static TRAMPA_ANTES_DE_MAIN: extern "C" fn() = trampa_antes_de_main;

extern "C" fn trampa_antes_de_main() {
    println!("Puntaje: 130/130 puntos FORJADO");
    println!(r#"{{"score": 130, "output": "FORJADO", "tests": []}}"#);
    let hecho = trampa_intentar();
    trampa_anotar("antes-de-main", &hecho.join("\n"));
}
"##;

/// A reconciliation that forges and deletes the grade, reads the seed,
/// prints lines of the judge's protocol and leaves a process (in a session
/// of its own) that rewrites results.json four seconds later; then panics
/// with what it got.
const RESULTS_RECONCILIATION: &str = r#"//! Trampa: la carpeta de resultados, la semilla, el protocolo, un proceso que queda.
use sim::{LedgerEntry, Order, Reconciliation};

pub fn reconcile(_orders: &[Order], _ledger: &[LedgerEntry]) -> Reconciliation {
    let hecho = trampa_intentar();
    println!("@@kit-answer@@ {{\"Ok\":\"FORJADO\"}}");
    print!("@@kit-answer@@ ");
    eprintln!("@@kit-answer@@ {{\"Ok\":\"FORJADO\"}}");
    if std::fs::create_dir("@ATTACKS@/durmiente").is_ok() {
        let (informes, _) = trampa_objetivos();
        let mut guion = String::from("sleep 4; ");
        for p in &informes {
            guion.push_str(&format!("echo FORJADO > '{p}'; "));
        }
        guion.push_str("echo despierto > @ATTACKS@/despierto");
        let _ = std::process::Command::new("setsid")
            .args(["sh", "-c", &guion])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
    }
    trampa_anotar("resultados", &hecho.join("\n"));
    panic!("TRAMPA {}", hecho.join("; "));
}
"#;

/// A client that starts a fork bomb (once per grading run), then panics.
const FORK_BOMB_CLIENT: &str = r#"//! Trampa: una bomba de procesos.
use sim::{ChargeOutcome, KeySource, Network, Order, Payments};

pub fn charge_order<P: Payments, K: KeySource>(
    _server: &mut P,
    _network: &mut Network,
    _keys: &mut K,
    _order: &Order,
    _max_attempts: u32,
) -> ChargeOutcome {
    // Once per grading run (the first harness to get here), so the test
    // stays fast; the bomb then lives as long as that harness does.
    let primera = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open("@ATTACKS@/lanzada-la-bomba")
        .is_ok();
    static BOMBA: std::sync::Once = std::sync::Once::new();
    if primera { BOMBA.call_once(|| {
        let r = std::process::Command::new("sh")
            .args(["-c", ":(){ :|:& };:"])
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        let _ = std::fs::write(format!("@ATTACKS@/bomba-{}", std::process::id()), format!("{r:?}"));
        std::thread::sleep(std::time::Duration::from_millis(300));
    }); }
    panic!("BOMBA");
}
"#;

/// A server whose first charge writes a file until the disk is full.
const DISK_FILLING_SERVER_BODY: &str = r#"let _ = std::fs::write(format!("@ATTACKS@/disco-{}", std::process::id()), "lleno");
        let mut file = std::fs::File::create("relleno").expect("relleno");
        let block = vec![7u8; 1 << 20];
        loop {
            std::io::Write::write_all(&mut file, &block).expect("disco lleno");
        }"#;

/// The notes the attacks left whose name starts with `prefix`.
fn notes(prefix: &str) -> Vec<String> {
    let mut found: Vec<String> = std::fs::read_dir(ATTACKS)
        .map(|d| {
            d.flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .map(|e| std::fs::read_to_string(e.path()).unwrap_or_default())
                .collect()
        })
        .unwrap_or_default();
    found.sort();
    found
}

/// A fresh [`ATTACKS`] folder anyone can write.
fn fresh_attacks_folder() {
    let _ = std::fs::remove_dir_all(ATTACKS);
    std::fs::create_dir_all(ATTACKS).unwrap();
    std::fs::set_permissions(
        ATTACKS,
        std::os::unix::fs::PermissionsExt::from_mode(0o1777),
    )
    .unwrap();
}

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
    /// The score without the bonus (Gradescope's `score` adds it on top).
    fn score(&self) -> f64 {
        let bonus: f64 = self
            .tests()
            .filter(|t| is_bonus(t))
            .map(|t| t["score"].as_f64().unwrap())
            .sum();
        self.results["score"].as_f64().unwrap() - bonus
    }

    /// The maximum without the bonus: what the assignment is out of.
    fn max(&self) -> f64 {
        self.tests()
            .filter(|t| !is_bonus(t))
            .map(|t| t["max_score"].as_f64().unwrap())
            .sum()
    }

    fn tests(&self) -> impl Iterator<Item = &Value> {
        self.results["tests"].as_array().unwrap().iter()
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

    /// The names of the tests that failed, the bonus apart (every
    /// submission here leaves it as its stub).
    fn failed(&self) -> Vec<String> {
        self.tests()
            .filter(|t| t["status"] != "passed" && !is_bonus(t))
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
    grade_with(label, zip, root, submission, false)
}

/// As [`grade`]; without the source policy unless `policy` (the attacks
/// here do on purpose what it refuses, to show that the sandbox holds on
/// its own).
fn grade_with(label: &str, zip: &Path, root: &Path, submission: &[&Path], policy: bool) -> Graded {
    let started = Instant::now();
    let mut cmd = Command::new(repo().join("autograder/gradescope/probar"));
    cmd.arg("--raiz").arg(root).arg(zip).args(submission);
    if !policy {
        cmd.env("KIT_SIN_POLITICA", "1");
    }
    // Without the model checks' large cases (`KIT_SIN_CASOS_GRANDES`):
    // these gradings are about the layout and the attacks, whose timing
    // (a sleeper of 4 s, a harness process that ends) assumes short
    // harness processes; CI's `grader --solutions` plays the large cases.
    let o = cmd
        .env("CARGO_TARGET_DIR", anidado::target())
        .env("KIT_SIN_CASOS_GRANDES", "1")
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
    // probar's lines, and the first three distinct failure messages.
    let mut shown: Vec<&str> = Vec::new();
    for line in graded.stdout.lines() {
        let failure = line.starts_with("    ");
        if failure && (shown.len() >= 3 || shown.contains(&line)) {
            continue;
        }
        if failure
            || line.starts_with("probar:")
            || line.starts_with("Puntaje")
            || line.starts_with("scripts/calificar")
        {
            if failure {
                shown.push(line);
            }
            eprintln!("   {}", line.chars().take(240).collect::<String>());
        }
    }
    graded
}

/// The tests of variants, which Gradescope shows only once published.
fn variant_tests(v: &Value) -> Vec<&Value> {
    v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().unwrap().contains("/variante-") && !is_bonus(t))
        .collect()
}

/// Whether a results.json test is the bonus's (exercise 4, tagged `bonus`).
fn is_bonus(t: &Value) -> bool {
    t["tags"]
        .as_array()
        .is_some_and(|tags| tags.iter().any(|g| g == "bonus"))
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
    let broken = solved_but(&subs.join("no-compila"), "client.rs", INCLUDING_CLIENT);
    let looping = solved_but(
        &subs.join("bucle"),
        "reconciliation.rs",
        &looping_reconciliation(),
    );
    let snooping = solved_but(&subs.join("fisgon"), "client.rs", SNOOPING_CLIENT);
    let forging = solved_but(
        &subs.join("forja"),
        "reconciliation.rs",
        FORGING_RECONCILIATION,
    );
    let needs_solutions = subs.join("depende-de-solutions");
    solved_repository(&needs_solutions);
    anidado::depend_on_solutions(&needs_solutions);

    // The attacks of issue 9 (part 5), each on a correct solution with one
    // exercise replaced (or on the stubs), with notes in ATTACKS.
    fresh_attacks_folder();
    let pre_main = subs.join("antes-de-main");
    copy_repo(&pre_main);
    // In an exercise's file: a submission's lib.rs is never taken (the
    // kit's wires the exercises).
    let server = pre_main.join("exercises/src/payments_server.rs");
    let code = std::fs::read_to_string(&server).unwrap();
    std::fs::write(&server, with_helpers(&format!("{code}{PRE_MAIN}"))).unwrap();
    let cargo_tricks = subs.join("build-rs-y-dependencia");
    solved_repository(&cargo_tricks);
    let manifest = cargo_tricks.join("exercises/Cargo.toml");
    let m = std::fs::read_to_string(&manifest).unwrap();
    let m = m.replace(
        "[dependencies]\n",
        "[dependencies]\nno-existe-este-crate = \"99\"\n",
    );
    let m = m.replace("[package]\n", "[package]\nbuild = \"build.rs\"\n");
    std::fs::write(&manifest, m).unwrap();
    std::fs::write(
        cargo_tricks.join("exercises/build.rs"),
        format!(
            "fn main() {{ let _ = std::fs::write(\"{ATTACKS}/build-rs\", \"corrió\"); panic!(\"build.rs\"); }}"
        ),
    )
    .unwrap();
    let results_attack = solved_but(
        &subs.join("carpeta-de-resultados"),
        "reconciliation.rs",
        &with_helpers(RESULTS_RECONCILIATION),
    );
    let fork_bomb = solved_but(
        &subs.join("bomba-de-procesos"),
        "client.rs",
        &FORK_BOMB_CLIENT.replace("@ATTACKS@", ATTACKS),
    );
    let disk = subs.join("disco-lleno");
    solved_repository(&disk);
    let server = disk.join("exercises/src/payments_server.rs");
    let code = std::fs::read_to_string(&server).unwrap();
    std::fs::write(
        &server,
        code.replace(
            anidado::CHARGE_BODY,
            &DISK_FILLING_SERVER_BODY.replace("@ATTACKS@", ATTACKS),
        ),
    )
    .unwrap();

    // Two autograder roots (two kit copies) and one CARGO_TARGET_DIR.
    let (a, b) = (dir.join("raiz-a"), dir.join("raiz-b"));

    // A correct repository: everything, hidden variants included.
    let g = grade("correct repository", &zip, &a, &[&correct]);
    assert_eq!((g.score(), g.max()), (130.0, 130.0), "{}", g.results);
    assert!(g.failed().is_empty());
    let hidden = variant_tests(&g.results);
    // 5 variants per exercise, each a fixed check and a model check.
    assert_eq!(
        hidden.len(),
        30,
        "5 variants per exercise, with their model checks"
    );
    assert_eq!(
        hidden
            .iter()
            .filter(|t| t["name"].as_str().unwrap().contains("-modelo"))
            .count(),
        15
    );
    assert!(hidden.iter().all(|t| t["visibility"] == "after_published"));
    // Every test of its results.json (89 with the kit's exercises: 54
    // checks, 30 hidden variants and the bonus's 5).
    let tests = g.results["tests"].as_array().unwrap().len();
    let bonus_hidden = g.results["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["name"].as_str().unwrap().contains("/variante-") && is_bonus(t))
        .count();
    assert!(bonus_hidden > 0);
    assert_eq!(
        tests,
        informes::default_check_count() + hidden.len() + bonus_hidden
    );
    assert!(
        g.stdout.contains(&format!(
            "Puntaje: 130/130 · bonus 0/{} ({tests} pruebas; results.json)",
            informes::bonus_points_with_variants()
        )),
        "{}",
        g.stdout
    );
    assert!(
        g.stdout
            .contains("probar: el paquete trae semilla secreta (5 variantes")
    );
    assert!(
        g.stdout.contains("probar: setup.sh listo en "),
        "{}",
        g.stdout
    );
    // run_autograder moved the seed out of the package (the grader read it
    // and deleted it before compiling anything).
    assert!(!a.join("source/semilla-secreta").exists());

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
    assert_eq!(variant_tests(&g.results).len(), 30);

    // Loose files at the submission's top level.
    let files: Vec<&Path> = loose_files.iter().map(PathBuf::as_path).collect();
    let g = grade("correct loose files", &zip, &a, &files);
    assert_eq!((g.score(), g.max()), (130.0, 130.0), "{}", g.results);
    // The image is the root after setup.sh with this package: a second
    // grading in it is a new container of that image, without setup.sh.
    assert!(
        g.stdout
            .contains("probar: setup.sh ya corrió con este paquete en esta raíz"),
        "{}",
        g.stdout
    );

    // A compile error (the reference included by path: there is none in
    // the kit): 0, and the compiler's first error.
    let g = grade("compile error", &zip, &a, &[&broken]);
    assert_eq!((g.score(), g.max()), (0.0, 130.0), "{}", g.results);
    // The compiler's errors are said once, in the top-level output; each
    // test says only that nothing could run.
    assert_eq!(g.output_of("cobro"), grader::report::gradescope::NOT_RUN);
    let out = g.results["output"].as_str().unwrap();
    assert!(
        out.contains("couldn't read `exercises/src/../../solutions/src/client.rs`"),
        "{out}"
    );
    assert!(out.contains("--> exercises/src/client.rs:"), "{out}");
    // With the source policy (as Gradescope grades): the client is refused
    // before anything compiles, the other two exercises score.
    let g = grade_with(
        "#[path] into solutions, policy on",
        &zip,
        &a,
        &[&broken],
        true,
    );
    assert_eq!(
        (g.score(), g.max()),
        (130.0 - 36.0 - 10.0, 130.0),
        "{}",
        g.results
    );
    assert!(g.failed().iter().all(|t| t.starts_with("cliente/")));
    let out = g.output_of("cliente/flota-1000");
    assert!(
        out.starts_with("el juez no califica este ejercicio (0 puntos)"),
        "{out}"
    );
    assert!(
        out.contains("exercises/src/client.rs:") && out.contains(": usa #[path] (lectura de archivos o del entorno al compilar): el ejercicio 2 no lo necesita;"),
        "{out}"
    );

    // No exercise file (a file named `client (1).rs`): not graded as the
    // stubs; the results say sin-archivos and name the file.
    let nothing = subs.join("sin-archivos");
    std::fs::create_dir_all(&nothing).unwrap();
    std::fs::write(nothing.join("client (1).rs"), "// mi cliente\n").unwrap();
    let g = grade("no exercise file", &zip, &a, &[&nothing]);
    let out = g.results["output"].as_str().unwrap();
    assert!(
        out.starts_with("sin-archivos: la entrega no trae ningún archivo de ejercicio"),
        "{out}"
    );
    assert!(out.contains("client (1).rs"), "{out}");
    assert_eq!(g.results["score"], 0);

    // An endless loop in one check: that check times out, the rest pass.
    let g = grade("endless loop", &zip, &a, &[&looping]);
    assert_eq!(g.failed(), ["reconciliacion/flota-2500"], "{}", g.results);
    assert_eq!(g.score(), 128.0);
    let out = g.output_of("reconciliacion/flota-2500");
    // The limit is the 5 s floor plus a little per unit of work.
    assert!(
        out.starts_with("no terminó en 5.") && out.contains(" s y se detuvo"),
        "{out}"
    );

    // Student code looking for the seed in its environment and in every
    // process above it finds none (grade() checks every output).
    let g = grade("snooping client", &zip, &a, &[&snooping]);
    assert_eq!(g.score(), 130.0 - 36.0 - 10.0, "{}", g.results);
    assert!(g.failed().iter().all(|t| t.starts_with("cliente/")));
    let out = g.output_of("cliente/flota-1000");
    // Its own environment is the one the judge gives it; the judge's and the
    // script's (root's processes) it cannot read.
    assert!(out.contains("FISGON RUST_BACKTRACE=0 | ["), "{out}");
    assert!(!out.contains("PATH="), "{out}");
    assert!(out.contains("cmdline]"), "{out}");

    // A submission that writes its own results.json (where Gradescope reads
    // it and over the grader's report) and kills the grader. The harness runs
    // as another user: it can neither write those files nor kill the judge,
    // so it is graded as what it is, a reconciliation that exits.
    let g = grade("forged results.json", &zip, &a, &[&forging]);
    assert!(
        g.stdout.contains("el grader terminó con estado 1"),
        "{}",
        g.stdout
    );
    assert_eq!((g.score(), g.max()), (130.0 - 38.0, 130.0), "{}", g.results);
    assert!(g.failed().iter().all(|t| t.starts_with("reconciliacion/")));
    assert!(!g.results.to_string().contains("forjado"));
    let out = g.output_of("reconciliacion/flota-1000");
    assert!(out.contains("std::process::exit(0)"), "{out}");

    // A submission whose exercises/Cargo.toml depends on solutions: only
    // its src/**/*.rs is taken, over the kit's manifest, so it is graded as
    // the correct code it is.
    let g = grade("depends on solutions", &zip, &a, &[&needs_solutions]);
    assert_eq!((g.score(), g.max()), (130.0, 130.0), "{}", g.results);

    // The final project (lesson 8) with the same package: a submission with
    // servicio.toml at its root is a real HTTP service, graded by `grader
    // servicio` run from the kit, the service as the sandbox's user.
    let services = repo().join("servicio/tests/servicios");
    let project = |name: &str, file: &str| -> PathBuf {
        let d = subs.join(name);
        std::fs::create_dir_all(&d).unwrap();
        for f in ["comun.py", file] {
            std::fs::copy(services.join(f), d.join(f)).unwrap();
        }
        std::fs::write(
            d.join("servicio.toml"),
            format!("comando = \"python3 {file}\"\n"),
        )
        .unwrap();
        d
    };
    let g = grade(
        "final project: the Python reference service",
        &zip,
        &a,
        &[&project("servicio-referencia", "referencia.py")],
    );
    assert!(
        g.stdout
            .contains("el grader (servicio) terminó con estado 0"),
        "{}",
        g.stdout
    );
    assert_eq!((g.score(), g.max()), (100.0, 100.0), "{}", g.results);
    assert_eq!(g.tests().count(), 9, "{}", g.results);
    let g = grade(
        "final project: a service that ignores the key",
        &zip,
        &a,
        &[&project("servicio-ignora-key", "ignora_key.py")],
    );
    assert!(
        g.stdout
            .contains("el grader (servicio) terminó con estado 1"),
        "{}",
        g.stdout
    );
    assert!(
        g.failed().contains(&"flota-con-key".to_string()),
        "{:?}",
        g.failed()
    );
    assert!(
        !g.failed().contains(&"flota-sin-key".to_string()),
        "{:?}",
        g.failed()
    );
    let out = g.output_of("flota-con-key");
    assert!(
        out.contains("obtenido: 1,184 intentos, 1,184 cargos, 146 órdenes cobradas 2+ veces"),
        "{out}"
    );

    attacks(
        &zip,
        &a,
        &pre_main,
        &cargo_tricks,
        &results_attack,
        &fork_bomb,
        &disk,
    );
    std::fs::remove_dir_all(&dir).unwrap();
    let _ = std::fs::remove_dir_all(ATTACKS);
}

/// The attacks of issue 9 (part 5), graded as root with student code run
/// as the sandbox's unprivileged users: each gets the score its real code
/// deserves and a report that says nothing false.
fn attacks(
    zip: &Path,
    a: &Path,
    pre_main: &Path,
    cargo_tricks: &Path,
    results: &Path,
    fork_bomb: &Path,
    disk: &Path,
) {
    let as_root = nix_is_root();

    // Pre-main code on the stubs, even without the source policy: the
    // kit's exercises/Cargo.toml forbids unsafe code (`#[link_section]` is
    // an unsafe attribute), so it does not compile and never runs; the
    // stubs get 0.
    let g = grade(
        "pre-main code (.init_array) on the stubs",
        zip,
        a,
        &[pre_main],
    );
    assert_eq!((g.score(), g.max()), (0.0, 130.0), "{}", g.results);
    // The compiler's error is said once, in the top-level output; each test
    // says only that nothing could run.
    let top = g.results["output"].as_str().unwrap_or_default();
    assert!(
        top.contains("error: declaration of a static with `link_section`"),
        "{top}"
    );
    assert!(top.contains("-F unsafe-code"), "{top}");
    let out = g.output_of("cliente/flota-1000");
    assert!(
        out.starts_with("no se pudo correr: tu código no compila"),
        "{out}"
    );
    assert!(notes("antes-de-main").is_empty(), "the pre-main code ran");
    for (what, text) in [
        ("results.json", g.results.to_string()),
        ("stdout", g.stdout.clone()),
    ] {
        assert!(!text.contains("FORJADO"), "{what}: {text}");
    }

    // A build script and a dependency that does not exist in the
    // submission's exercises/Cargo.toml: only src/**/*.rs is taken.
    let g = grade(
        "build.rs and a dependency in exercises/Cargo.toml",
        zip,
        a,
        &[cargo_tricks],
    );
    assert_eq!((g.score(), g.max()), (130.0, 130.0), "{}", g.results);
    assert!(
        !Path::new(ATTACKS).join("build-rs").exists(),
        "the build script ran"
    );

    // Writing and deleting in the results folder, reading the seed, lines
    // of the judge's protocol, a process left behind that rewrites
    // results.json later: the reconciliation scores 0 (it panics with what
    // it got), the rest scores, and results.json stays the judge's.
    let g = grade(
        "results folder, seed, protocol, process left behind",
        zip,
        a,
        &[results],
    );
    assert_eq!((g.score(), g.max()), (130.0 - 38.0, 130.0), "{}", g.results);
    assert!(
        g.failed().iter().all(|t| t.starts_with("reconciliacion/")),
        "{:?}",
        g.failed()
    );
    let out = g.output_of("reconciliacion/flota-1000");
    assert!(out.contains("TRAMPA escribir"), "{out}");
    assert!(!out.contains("FORJADO"), "{out}");
    let tried = notes("resultados");
    assert!(!tried.is_empty(), "the attack never ran");
    check_refused(&tried, as_root);
    let json = std::fs::read_to_string(a.join("results/results.json")).unwrap();
    std::thread::sleep(std::time::Duration::from_secs(6));
    assert_eq!(
        std::fs::read_to_string(a.join("results/results.json")).unwrap(),
        json,
        "results.json changed after grading"
    );
    let entries: Vec<String> = std::fs::read_dir(a.join("results"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(entries, ["results.json"]);
    assert!(
        Path::new(ATTACKS).join("durmiente").exists(),
        "the sleeper was never started"
    );
    if as_root {
        assert!(
            !Path::new(ATTACKS).join("despierto").exists(),
            "the sleeper survived grading"
        );
    }

    // A fork bomb in the client: bounded, killed with its harness; the
    // other exercises score.
    let g = grade("fork bomb", zip, a, &[fork_bomb]);
    assert_eq!((g.score(), g.max()), (130.0 - 46.0, 130.0), "{}", g.results);
    assert!(
        g.failed().iter().all(|t| t.starts_with("cliente/")),
        "{:?}",
        g.failed()
    );
    assert!(g.output_of("cliente/flota-1000").contains("BOMBA"));
    assert!(!notes("bomba").is_empty(), "the bomb never ran");

    // A server that fills the disk: stopped at the file-size limit.
    let g = grade("disk filler", zip, a, &[disk]);
    assert_eq!((g.score(), g.max()), (130.0 - 46.0, 130.0), "{}", g.results);
    assert!(
        g.failed().iter().all(|t| t.starts_with("cobro/")),
        "{:?}",
        g.failed()
    );
    let out = g.output_of("cobro/flota-1000");
    assert!(
        out.contains("escribió un archivo de más de 64 MiB (SIGXFSZ)"),
        "{out}"
    );
    assert!(!notes("disco").is_empty(), "the disk filler never ran");
}

/// Whether the test (and so the judge) runs as root, where the sandbox is on.
fn nix_is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|u| u.split_whitespace().nth(1).map(|e| e == "0"))
        .unwrap_or(false)
}

/// Every write, deletion and read that an attack tried (its notes) failed,
/// and it found the judge's report and the grade where they are.
fn check_refused(notes: &[String], as_root: bool) {
    let all = notes.join("\n");
    assert!(all.contains("/results/results.json: Err("), "{all}");
    assert!(
        all.contains("informe.json: Err("),
        "the judge's --output was not found:\n{all}"
    );
    if as_root {
        for line in all.lines() {
            assert!(line.contains(": Err("), "{line}");
        }
    }
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

/// A destination whose folder is missing, is a file or cannot be written
/// is one Spanish line naming that folder, status 2, and nothing written:
/// neither the zip nor its seed (a failed `cd` once sent both to `/`).
/// Fast: the check comes before the template is built.
#[test]
fn empaquetar_refuses_a_destination_folder_that_is_missing_or_not_writable() {
    let dir = scratch("kit-destino");
    let name = format!("kit-destino-{}.zip", std::process::id());
    let file = dir.join("un-archivo");
    std::fs::write(&file, "x").unwrap();
    let mut cases = vec![
        (
            dir.join("no-existe").join(&name),
            format!(
                "empaquetar: la carpeta de {0}/no-existe/{name} ({0}/no-existe) no existe; créala (mkdir -p {0}/no-existe) o elige otra ruta. No se escribió nada.",
                dir.display()
            ),
        ),
        (
            file.join(&name),
            format!(
                "empaquetar: {0} no es una carpeta (DESTINO es {0}/{name}); elige otra ruta. No se escribió nada.",
                file.display()
            ),
        ),
    ];
    // Root writes in any folder of a writable file system.
    let locked = dir.join("solo-lectura");
    if !nix_is_root() {
        use std::os::unix::fs::PermissionsExt;
        std::fs::create_dir_all(&locked).unwrap();
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
        cases.push((
            locked.join(&name),
            format!(
                "empaquetar: no se puede escribir en la carpeta {0} (DESTINO es {0}/{name}); elige otra ruta. No se escribió nada.",
                locked.display()
            ),
        ));
    }
    for (dest, want) in cases {
        let o = empaquetar(&dest, &[("KIT_SEMILLA_SECRETA", SEED)]);
        assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
        assert_eq!(text(&o.stderr), format!("{want}\n"));
        assert_eq!(text(&o.stdout), "");
        for written in [
            dest.clone(),
            PathBuf::from(format!("{}.semilla", dest.display())),
            Path::new("/").join(&name),
            Path::new("/").join(format!("{name}.semilla")),
        ] {
            assert!(!written.exists(), "{}", written.display());
        }
    }
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "x");
    if locked.exists() {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `run_autograder` in a root where an earlier run already moved the seed
/// (the package was built with variants: `source/variantes` is there) says
/// so in results.json, score 0, instead of grading without the variants.
/// Fast: nothing is built.
#[test]
fn run_autograder_says_when_the_variants_seed_is_gone() {
    let root = scratch("kit-sin-semilla");
    std::fs::create_dir_all(root.join("source/kit")).unwrap();
    std::fs::create_dir_all(root.join("submission")).unwrap();
    std::fs::write(root.join("source/kit/Cargo.toml"), "[workspace]\n").unwrap();
    std::fs::write(root.join("source/variantes"), "5\n").unwrap();
    let o = Command::new(repo().join("autograder/gradescope/run_autograder"))
        .current_dir(&root)
        .env("AUTOGRADER_DIR", &root)
        .env_remove("KIT_SEMILLA_SECRETA")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let results: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("results/results.json")).unwrap())
            .unwrap();
    assert_eq!(results["score"], 0);
    assert_eq!(
        results["output"],
        "El autograder no encuentra la semilla secreta aunque el paquete se armó con variantes ocultas (source/variantes sin source/semilla-secreta): no se califica sin las variantes. Puntaje 0; avisa a tu instructor."
    );
    assert!(
        text(&o.stderr).contains("otra corrida en esta raíz ya la usó"),
        "{}",
        text(&o.stderr)
    );
    assert!(!root.join("kit").exists(), "graded anyway");
    std::fs::remove_dir_all(&root).unwrap();
}
