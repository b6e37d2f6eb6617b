//! The source policy through the real judge (issue 15): the judge's binary
//! grades copies of the kit whose exercises watch where they run (a client
//! that asks `std::any::type_name` whether its server is the grader's, a
//! server and a reconciliation correct only when the running program is
//! named `harness*`) or read outside the submission at compile time
//! (`include_str!("/etc/shadow")`, `#[path]` into `solutions/`). The files
//! are in `tests/politica/`.
//!
//! When every exercise is refused nothing compiles, so those tests are
//! quick and run with `cargo test`, as the current user (root in CI and
//! Gradescope) and, when that is root, again as an unprivileged user
//! (`setpriv` to uid 65534): the policy is static, the lines are the same.
//! Grading the others as usual needs a harness build (of a copy without the
//! refused files), and one test builds the judge itself (which that copy
//! must leave as it was), so those tests are `#[ignore]`d; `.ci/run` runs
//! them with the other nested builds.

use crate::anidado;
use crate::informes;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anidado::copy_repo;

/// The refusal lines of the files of `tests/politica/`, as the student
/// sees them.
const TYPE_NAME: &str = "exercises/src/client.rs:14:18: usa std::any::type_name (introspección de tipos o del ejecutable): el ejercicio 2 no lo necesita; un resultado que cambia según qué tipo o qué programa lo llama no es el comportamiento que se califica";
const PATH: &str = "exercises/src/client.rs:6:3: usa #[path] (lectura de archivos o del entorno al compilar): el ejercicio 2 no lo necesita; lo que el compilador lea fuera de tu código no es parte de tu entrega";
const SHADOW: &str = "exercises/src/client.rs:9:22: usa include_str! (lectura de archivos o del entorno al compilar): el ejercicio 2 no lo necesita; lo que el compilador lea fuera de tu código no es parte de tu entrega";
const EXE_SERVER: &str = "exercises/src/payments_server.rs:14:5: usa std::env::current_exe (el proceso, el entorno, archivos, la red o el sistema operativo): el ejercicio 1 no lo necesita; su resultado depende solo de lo que recibe, nunca del proceso ni de la máquina donde corre";
const STD_SYNC: &str = "exercises/src/atomic_server.rs:4:16: usa std::sync::Mutex (hilos o sincronización): el ejercicio 4 no lo necesita; usa los candados del mundo, sim::sync::Mutex (`use sim::sync::Mutex;`, con la API de std::sync::Mutex y lock() sin unwrap): el juez los cambia por los de su explorador de horarios para probar los reintentos concurrentes, y los de std::sync no los vería; los hilos los pone el juez, tu servidor no crea ninguno";
const EXE_RECONCILE: &str = "exercises/src/reconciliation.rs:9:18: usa std::env::current_exe (el proceso, el entorno, archivos, la red o el sistema operativo): el ejercicio 3 no lo necesita; su resultado depende solo de lo que recibe, nunca del proceso ni de la máquina donde corre";

/// A copy of the kit in a fresh folder anyone may read, with each
/// `(exercise file, file of tests/politica)` put in place; the student
/// template (`scripts/plantilla-estudiante`: no `solutions/`, as on
/// Gradescope) when `template`.
fn kit(name: &str, files: &[(&str, &str)], template: bool) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("politica-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    if template {
        let o = Command::new(anidado::repo().join("scripts/plantilla-estudiante"))
            .arg(&dir)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", text(&o.stderr));
    } else {
        std::fs::create_dir_all(&dir).unwrap();
        copy_repo(&dir);
    }
    put(&dir, files);
    dir
}

/// Puts each `(exercise file, file of tests/politica)` in the kit at
/// `root`.
fn put(root: &Path, files: &[(&str, &str)]) {
    for (target, source) in files {
        let from = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/politica")
            .join(source);
        std::fs::copy(from, root.join("exercises/src").join(target)).unwrap();
    }
}

/// Runs the judge on the kit at `root` with `args`, as the current user or
/// (`as_nobody`, only when root) as uid 65534 with no groups.
fn judge(root: &Path, args: &[&str], as_nobody: bool) -> Output {
    let grader = env!("CARGO_BIN_EXE_grader");
    let mut cmd = if as_nobody {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", grader]);
        c
    } else {
        Command::new(grader)
    };
    cmd.arg("--raiz")
        .arg(root)
        .args(args)
        .current_dir(root)
        .env_remove("CARGO_MANIFEST_DIR")
        .env("CARGO_TARGET_DIR", anidado::target())
        .env("NO_COLOR", "1")
        .env("KIT_TIEMPO_EJECUCION", "0")
        .env_remove("KIT_GRADER_CHECK")
        .env_remove("KIT_SEMILLA_SECRETA")
        .env_remove("KIT_VARIANTES");
    cmd.output().expect("the judge runs")
}

/// Whether the tests run as root (never outside unix).
fn is_root() -> bool {
    #[cfg(unix)]
    return nix::unistd::Uid::effective().is_root();
    #[cfg(not(unix))]
    false
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Every line of `needles` is a line of `haystack` (indentation aside).
fn has_lines(haystack: &str, needles: &[&str]) {
    for n in needles {
        assert!(
            haystack.lines().any(|l| l.trim() == *n),
            "falta la línea «{n}» en:\n{haystack}"
        );
    }
}

/// The attack of the issue, every exercise at once (the bonus with
/// `std::sync`'s locks, told to take `sim::sync`'s): nothing compiles;
/// each exercise is 0 with its lines in the text, Gradescope and JUnit
/// reports, as root and as an unprivileged user.
#[test]
fn exercises_that_watch_where_they_run_or_read_outside_get_zero_in_every_format() {
    let root = kit(
        "todo",
        &[
            ("client.rs", "cliente_lee_fuera.rs"),
            ("payments_server.rs", "cobro_current_exe.rs"),
            ("reconciliation.rs", "reconciliacion_current_exe.rs"),
            ("atomic_server.rs", "atomico_std_sync.rs"),
        ],
        false,
    );
    let mut users = vec![false];
    if is_root() {
        users.push(true);
    }
    let mut reports = Vec::new();
    for as_nobody in users {
        let out = judge(&root, &[], as_nobody);
        let report = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{report}{}", text(&out.stderr));
        has_lines(
            &report,
            &[
                EXE_SERVER,
                PATH,
                SHADOW,
                EXE_RECONCILE,
                STD_SYNC,
                &format!(
                    "Puntaje: 0/100 puntos (0/40 verificaciones) · bonus 0/{}: rechazado por la política de código",
                    informes::bonus_points()
                ),
            ],
        );
        assert!(!report.contains("no compila"), "{report}");
        reports.push(report);
    }
    // The policy is static: the same report whoever runs the judge.
    assert!(reports.windows(2).all(|w| w[0] == w[1]));
    if let Ok(shadow) = std::fs::read_to_string("/etc/shadow") {
        let first = shadow.lines().next().unwrap_or("root:");
        assert!(!reports[0].contains(first));
    }

    let out = judge(&root, &["--format", "gradescope"], false);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["score"].as_f64(), Some(0.0));
    let tests = json["tests"].as_array().unwrap();
    assert_eq!(tests.len(), informes::default_check_count());
    for t in tests {
        assert_eq!(t["score"].as_f64(), Some(0.0), "{t}");
        let output = t["output"].as_str().unwrap();
        let lines: &[&str] = match t["tags"][0].as_str().unwrap() {
            "cobro" => &[EXE_SERVER],
            "cliente" => &[PATH, SHADOW],
            "atomico" => &[STD_SYNC],
            _ => &[EXE_RECONCILE],
        };
        assert!(
            output.starts_with("el juez no califica este ejercicio (0 puntos)"),
            "{t}"
        );
        has_lines(output, lines);
    }
    let out = judge(&root, &["--format", "junit"], false);
    let xml = text(&out.stdout);
    assert_eq!(
        xml.matches("type=\"rechazado\"").count(),
        informes::default_check_count(),
        "{xml}"
    );
    for line in [EXE_SERVER, PATH, SHADOW, EXE_RECONCILE, STD_SYNC] {
        // Quotes and apostrophes are escaped in XML; these lines have none.
        assert!(xml.contains(line), "{line}");
    }
}

/// The client that asks `type_name` whether its server is the grader's,
/// graded alone (`--ejercicio cliente`, as each GitHub Classroom step):
/// refused with nothing compiled, as root and as an unprivileged user.
#[test]
fn a_client_that_asks_type_name_is_refused_alone() {
    let root = kit(
        "type-name-solo",
        &[("client.rs", "cliente_type_name.rs")],
        false,
    );
    let mut users = vec![false];
    if is_root() {
        users.push(true);
    }
    for as_nobody in users {
        let out = judge(&root, &["--ejercicio", "cliente"], as_nobody);
        let report = text(&out.stdout);
        assert_eq!(out.status.code(), Some(1), "{report}{}", text(&out.stderr));
        has_lines(
            &report,
            &[TYPE_NAME, "Puntaje: 0/36 puntos (0/13 verificaciones)"],
        );
    }
}

/// A use in `lib.rs` reaches all three exercises: all three are refused,
/// with the same line.
#[test]
fn a_use_in_lib_rs_refuses_every_exercise() {
    let root = kit("lib", &[], false);
    let lib = root.join("exercises/src/lib.rs");
    let mut text_of_lib = std::fs::read_to_string(&lib).unwrap();
    let n = text_of_lib.lines().count() + 1;
    text_of_lib.push_str("static LLAMADAS: u64 = 0;\n");
    std::fs::write(&lib, text_of_lib).unwrap();
    let out = judge(&root, &["--format", "gradescope"], is_root());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let line = format!(
        "exercises/src/lib.rs:{n}:1: usa static LLAMADAS (estado global compartido entre llamadas): ningún ejercicio lo necesita; lo que se recuerda entre llamadas vive en el servidor (self) o en los parámetros, no en una variable global"
    );
    let tests = json["tests"].as_array().unwrap();
    // The bonus's checks too: lib.rs reaches every exercise.
    assert_eq!(tests.len(), informes::default_check_count());
    for t in tests {
        assert!(t["output"].as_str().unwrap().contains(&line), "{t}");
    }
    assert_eq!(json["score"].as_f64(), Some(0.0));
}

/// A build script or a dependency other than `sim` stops the judge (exit
/// 2) before anything compiles, naming the file and the field.
#[test]
fn a_build_script_or_another_dependency_stops_the_judge() {
    let root = kit("manifiesto", &[], false);
    std::fs::write(
        root.join("exercises/build.rs"),
        "fn main() { std::fs::read(\"/etc/shadow\").unwrap(); }",
    )
    .unwrap();
    let out = judge(&root, &[], false);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "grader: exercises/build.rs: tu crate no puede tener un script de compilación (cargo lo corre como quien compila, antes del juez); bórralo y vuelve a correr el grader\n"
    );
    std::fs::remove_file(root.join("exercises/build.rs")).unwrap();
    let manifest = root.join("exercises/Cargo.toml");
    let m = std::fs::read_to_string(&manifest).unwrap();
    std::fs::write(
        &manifest,
        m.replace(
            "sim.workspace = true",
            "sim.workspace = true\nsolutions-copia = { path = \"../mio\" }",
        ),
    )
    .unwrap();
    let out = judge(&root, &[], false);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stderr),
        "grader: exercises/Cargo.toml, campo `dependencies.solutions-copia`: tu crate solo puede depender de sim (`sim.workspace = true`); el juez no compila código que no revisó. Quita esa dependencia y vuelve a correr el grader\n"
    );
}

/// The points of exercise `number` in a Gradescope report.
fn points(json: &serde_json::Value, number: u32) -> f64 {
    json["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            t["number"]
                .as_str()
                .is_some_and(|n| n.starts_with(&format!("{number}.")))
        })
        .map(|t| t["score"].as_f64().unwrap())
        .sum()
}

/// One refused exercise scores 0; the others, correct, get full marks: the
/// judge compiles them in a copy without the refused file. The
/// `include_str!` of a root-only file and the `#[path]` into `solutions/`
/// (absent, as in the student template) are never compiled.
#[test]
#[ignore = "builds the harness of copies of the kit (slow); .ci/run runs it with --ignored"]
fn refused_exercises_get_zero_and_the_others_are_graded_as_usual() {
    for (name, files, refused, lines) in [
        (
            "type-name",
            [
                ("client.rs", "cliente_type_name.rs"),
                ("payments_server.rs", "cobro.rs"),
                ("reconciliation.rs", "reconciliacion.rs"),
            ],
            vec![2],
            vec![TYPE_NAME],
        ),
        (
            "current-exe",
            [
                ("client.rs", "cliente.rs"),
                ("payments_server.rs", "cobro_current_exe.rs"),
                ("reconciliation.rs", "reconciliacion_current_exe.rs"),
            ],
            vec![1, 3],
            vec![EXE_SERVER, EXE_RECONCILE],
        ),
        (
            "lee-fuera",
            [
                ("client.rs", "cliente_lee_fuera.rs"),
                ("payments_server.rs", "cobro.rs"),
                ("reconciliation.rs", "reconciliacion.rs"),
            ],
            vec![2],
            vec![PATH, SHADOW],
        ),
    ] {
        let root = kit(name, &files, true);
        let out = judge(&root, &["--format", "gradescope"], false);
        assert_eq!(out.status.code(), Some(1), "{name}: {}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let full = [36.0, 36.0, 28.0];
        for number in 1..=3u32 {
            let expected = if refused.contains(&number) {
                0.0
            } else {
                full[number as usize - 1]
            };
            assert_eq!(
                points(&json, number),
                expected,
                "{name}, ejercicio {number}: {json:#}"
            );
        }
        let outputs: Vec<&str> = json["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|t| t["output"].as_str())
            .collect();
        for line in lines {
            assert!(outputs.iter().any(|o| o.contains(line)), "{name}: {line}");
        }
    }
}

/// The judge's executable at `path`: its inode (unix) and modification
/// time.
fn identity(path: &Path) -> (u64, std::time::SystemTime) {
    let m = std::fs::metadata(path).unwrap();
    #[cfg(unix)]
    let inode = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let inode = 0;
    (inode, m.modified().unwrap())
}

/// Runs the judge at `judge` on the template as Gradescope does:
/// directly, without cargo (so the template is the judge's built-in
/// root), with the template's target folder.
fn direct(judge: &Path, template: &anidado::Template, args: &[&str]) -> Output {
    Command::new(judge)
        .args(args)
        .current_dir(&template.root)
        .env("CARGO_TARGET_DIR", &template.target)
        .env("NO_COLOR", "1")
        .env("KIT_TIEMPO_EJECUCION", "0")
        .env_remove("CARGO_MANIFEST_DIR")
        .env_remove("KIT_GRADER_CHECK")
        .env_remove("KIT_SEMILLA_SECRETA")
        .env_remove("KIT_VARIANTES")
        .output()
        .expect("the judge runs")
}

/// cargo in the template, building into its target folder.
fn cargo(template: &anidado::Template, args: &[&str]) -> Output {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(args)
        .current_dir(&template.root)
        .env("CARGO_TARGET_DIR", &template.target)
        .output()
        .expect("cargo runs")
}

/// A refused file is graded without compiling the judge again (issue 27):
/// the judge built from the shared student template
/// ([`anidado::template`]), run directly as Gradescope runs it, grades a
/// submission whose client is refused (the others in a copy of the kit,
/// in the judge's target folder); afterwards its executable is the same
/// file, cargo finds every crate of the judge as it was (nothing of it
/// compiled over), and run directly again it still grades the template.
/// The copy used to build a second judge there: 40 s, and an executable
/// whose built-in root was the deleted copy ("la carpeta de fixtures no
/// existe").
#[test]
#[ignore = "builds the judge and the harness of the shared student template (slow); .ci/run runs it with --ignored"]
fn grading_a_refused_file_leaves_the_judge_as_it_was() {
    let template = anidado::template();
    put(
        &template.root,
        &[
            ("client.rs", "cliente_type_name.rs"),
            ("payments_server.rs", "cobro.rs"),
            ("reconciliation.rs", "reconciliacion.rs"),
        ],
    );
    let built = cargo(&template, &["build", "-q", "-p", "grader"]);
    assert!(built.status.success(), "{}", text(&built.stderr));
    let judge = template.target.join("debug/grader");
    let before = identity(&judge);

    // Graded directly: the exit status and the points of exercises 1 to 3.
    let graded = |status: i32, expected: [f64; 3]| {
        let out = direct(&judge, &template, &["--format", "gradescope"]);
        assert_eq!(out.status.code(), Some(status), "{}", text(&out.stderr));
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!([1, 2, 3].map(|n| points(&json, n)), expected, "{json:#}");
    };
    graded(1, [36.0, 0.0, 28.0]);
    assert_eq!(
        identity(&judge),
        before,
        "the judge's executable was replaced"
    );
    let again = cargo(
        &template,
        &["build", "-p", "grader", "--message-format=json"],
    );
    assert!(again.status.success(), "{}", text(&again.stderr));
    let compiled: Vec<String> = text(&again.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["fresh"] == false)
        .map(|m| m["target"]["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        compiled.is_empty(),
        "the judge compiled again: {compiled:?}"
    );
    assert_eq!(identity(&judge), before);

    put(&template.root, &[("client.rs", "cliente.rs")]);
    graded(0, [36.0, 36.0, 28.0]);
}
