//! Classroom 50: `--format classroom50` writes a `result.json` that obeys
//! every rule of the schema `classroom50/result/v1` (checked one by one
//! below; the reference scores 100/100, the stubs 0), a `release-body.md`,
//! and refuses a missing runner variable by name; `autograder/classroom50/`'s
//! `tests.json` gives each exercise its rubric points; `autograder.py` run
//! with only the runner's environment always leaves a valid result.json and
//! exits 0.

use crate::anidado;
use crate::informes;

use std::path::Path;
use std::process::Command;

use informes::{grader_with_env, has_solutions, stderr, stubs_untouched};
use serde_json::Value;

/// The variables Classroom 50's runner sets (the identity fields).
const RUNNER_ENV: [(&str, &str); 8] = [
    ("CLASSROOM", "sistemas-distribuidos-2026"),
    ("ASSIGNMENT", "m4-l2-doble-cargo"),
    ("USERNAME", "ana-estudiante"),
    ("SUBMISSION_TAG", "submit/3"),
    (
        "COMMIT_URL",
        "https://github.com/curso/m4-l2-ana/commit/0123456789abcdef",
    ),
    (
        "RELEASE_URL",
        "https://github.com/curso/m4-l2-ana/releases/tag/submit/3",
    ),
    ("REVIEW_URL", "https://github.com/curso/m4-l2-ana/pull/1"),
    ("SOURCE_DATE_EPOCH", "1796083200"),
];

fn is_datetime(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 20
        && b.iter().enumerate().all(|(i, c)| match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        })
}

/// Every rule of `classroom50/result/v1`; panics naming the broken one.
fn validate(r: &Value) {
    let top = r.as_object().expect("an object");
    let allowed = [
        "schema",
        "classroom",
        "assignment",
        "assignment_type",
        "owner",
        "submission",
        "commit",
        "release",
        "review",
        "datetime",
        "graded_at",
        "submitted_by",
        "score",
        "max-score",
        "tests",
    ];
    for key in top.keys() {
        assert!(
            allowed.contains(&key.as_str()),
            "extra top-level field {key}"
        );
    }
    assert_eq!(r["schema"], "classroom50/result/v1");
    for key in [
        "classroom",
        "assignment",
        "owner",
        "submission",
        "commit",
        "release",
        "review",
    ] {
        assert!(
            r[key].as_str().is_some_and(|s| !s.is_empty()),
            "{key} must be a non-empty string"
        );
    }
    assert!(matches!(
        r["assignment_type"].as_str(),
        Some("individual" | "group")
    ));
    assert!(r["submission"].as_str().unwrap().starts_with("submit/"));
    assert!(
        is_datetime(r["datetime"].as_str().unwrap()),
        "{}",
        r["datetime"]
    );
    if let Some(g) = r.get("graded_at") {
        assert!(is_datetime(g.as_str().unwrap()));
    }
    let (score, max) = (
        r["score"].as_u64().expect("integer score"),
        r["max-score"].as_u64().expect("integer max-score"),
    );
    assert!(score <= max);
    for t in r["tests"].as_array().expect("tests[]") {
        assert!(t["test-name"].as_str().is_some_and(|s| !s.is_empty()));
        assert!(t["passed"].is_boolean());
        let (s, m) = (
            t["score"].as_u64().expect("integer test score"),
            t["max-score"].as_u64().expect("integer test max-score"),
        );
        assert!(s <= m, "{t}");
    }
}

fn result_of(args: &[&str], env: &[(&str, &str)]) -> (Value, String, Option<i32>) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("result.json");
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--format", "classroom50", "--output", out.to_str().unwrap()]);
    let o = grader_with_env(&all, env);
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let body = std::fs::read_to_string(dir.path().join("release-body.md")).unwrap();
    (json, body, o.status.code())
}

#[test]
fn the_reference_scores_100_of_100_and_the_stubs_0() {
    if has_solutions() {
        let (r, body, code) = result_of(&["--solutions"], &RUNNER_ENV);
        assert_eq!(code, Some(0));
        validate(&r);
        assert_eq!(
            (r["score"].as_u64(), r["max-score"].as_u64()),
            (Some(100), Some(100))
        );
        assert_eq!(r["owner"], "ana-estudiante");
        assert_eq!(r["datetime"], "2026-12-01T00:00:00Z");
        assert!(body.contains("**Puntaje: 100/100 puntos"), "{body}");
        // The bonus: listed test by test, outside score and max-score.
        let b = informes::bonus_points();
        assert!(body.contains(&format!(" · bonus {b}/{b}**")), "{body}");
        let bonus: Vec<&Value> = r["tests"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|t| {
                t["test-name"]
                    .as_str()
                    .unwrap()
                    .starts_with("bonus · atomico/")
            })
            .collect();
        // 8 checks in sequence, 6 under the schedule explorer.
        assert_eq!(bonus.len(), 14);
        assert_eq!(
            bonus
                .iter()
                .map(|t| t["score"].as_u64().unwrap())
                .sum::<u64>(),
            20
        );
    }
    if stubs_untouched() {
        let (r, body, code) = result_of(&[], &RUNNER_ENV);
        assert_eq!(code, Some(1));
        validate(&r);
        assert_eq!(
            (r["score"].as_u64(), r["max-score"].as_u64()),
            (Some(0), Some(100))
        );
        assert!(body.contains("todavía es todo!()"), "{body}");
        assert!(
            body.contains(&format!(
                "bonus 0/{}: pendiente, todavía es todo!()**",
                informes::bonus_points()
            )),
            "{body}"
        );
    }
}

#[test]
fn a_missing_runner_variable_is_named_and_nothing_is_graded() {
    for (missing, _) in &RUNNER_ENV[..7] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("result.json");
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_grader"));
        cmd.args(["--format", "classroom50", "--output"])
            .arg(&out)
            .env_remove("KIT_SEMILLA_SECRETA");
        for (k, v) in RUNNER_ENV {
            if k != *missing {
                cmd.env(k, v);
            } else {
                cmd.env_remove(k);
            }
        }
        let o = cmd.output().unwrap();
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert!(
            err.starts_with(&format!(
                "grader: --format classroom50: falta la variable de entorno {missing} "
            )),
            "{err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1);
        assert!(!out.exists());
    }
}

#[test]
fn the_declarative_tests_give_each_exercise_its_rubric_points() {
    let dir = anidado::repo().join("autograder/classroom50");
    if !dir.is_dir() {
        return; // The student template has no autograder/.
    }
    let tests: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("tests.json")).unwrap()).unwrap();
    assert_eq!(tests["schema"], "classroom50/tests/v1");
    let rubric = judge::rubric::Rubric::kit().unwrap();
    let list = tests["tests"].as_array().unwrap();
    // The declarative tests are the grade: the bonus is not among them
    // (autograder.py lists it apart).
    let graded: Vec<judge::verdict::Exercise> = judge::verdict::Exercise::ALL
        .into_iter()
        .filter(|e| !rubric.is_bonus(e.id()))
        .collect();
    assert_eq!(list.len(), 3);
    assert_eq!(graded.len(), 3);
    for (t, exercise) in list.iter().zip(graded) {
        assert_eq!(t["type"], "run");
        assert_eq!(
            t["run"],
            format!("cargo run -q -p grader -- --ejercicio {}", exercise.id())
        );
        let points = u32::try_from(t["points"].as_u64().unwrap()).unwrap();
        assert_eq!(
            judge::rubric::Points::whole(points),
            rubric.listed_total(exercise.id()),
            "points of {} in tests.json",
            exercise.id()
        );
        let timeout = t["timeout"].as_u64().unwrap();
        assert!((1..=600).contains(&timeout));
    }
    let runtime: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("runtime.json")).unwrap()).unwrap();
    assert_eq!(runtime, serde_json::json!({"rust": "stable"}));
}

/// `autograder.py` in `dir` with only `PATH`, `HOME` and the runner's
/// variables (plus where Rust is installed).
fn autograder_py(dir: &Path, path: &str) -> std::process::Output {
    autograder_py_without(dir, path, "")
}

/// As [`autograder_py`], without the runner's variable `missing`.
fn autograder_py_without(dir: &Path, path: &str, missing: &str) -> std::process::Output {
    let mut cmd = Command::new("python3");
    cmd.arg(anidado::repo().join("autograder/classroom50/autograder.py"))
        .current_dir(dir)
        .env_clear()
        .env("PATH", path)
        .env("HOME", std::env::var_os("HOME").unwrap());
    for name in ["CARGO_HOME", "RUSTUP_HOME"] {
        if let Some(v) = std::env::var_os(name) {
            cmd.env(name, v);
        }
    }
    for (k, v) in RUNNER_ENV {
        if k != missing {
            cmd.env(k, v);
        }
    }
    cmd.output().unwrap()
}

/// The result.json that `autograder.py` (exit status in `o`) left in
/// `dir`: valid, with score 0.
fn zero_score_result(dir: &Path, o: &std::process::Output) -> Value {
    assert_eq!(o.status.code(), Some(0), "{}", stderr(o));
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap();
    validate(&r);
    assert_eq!(r["score"], 0);
    r
}

#[test]
fn autograder_py_always_leaves_a_valid_result_and_exits_0() {
    if !anidado::repo().join("autograder/classroom50").is_dir() {
        return;
    }
    // Without cargo on the PATH the grader cannot run: a 0-score result.
    let dir = tempfile::tempdir().unwrap();
    let o = autograder_py(dir.path(), "/usr/bin:/bin");
    let r = zero_score_result(dir.path(), &o);
    assert!(
        r["tests"][0]["output"].as_str().unwrap().contains("cargo"),
        "{r}"
    );
}

#[test]
fn autograder_py_names_a_missing_runner_variable_in_the_result_without_grading() {
    if !anidado::repo().join("autograder/classroom50").is_dir() {
        return;
    }
    // cargo on the PATH: the grader could run, and must not.
    let dir = tempfile::tempdir().unwrap();
    let path = std::env::var("PATH").unwrap();
    let o = autograder_py_without(dir.path(), &path, "REVIEW_URL");
    let r = zero_score_result(dir.path(), &o);
    let output = r["tests"][0]["output"].as_str().unwrap();
    assert!(output.contains("REVIEW_URL"), "{output}");
    assert!(stderr(&o).contains("REVIEW_URL"), "{}", stderr(&o));
    // No grader ran: autograder.py reports the grader's exit status when
    // one did.
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("el grader terminó"), "{out}");
}

// Classroom 50's runner is Linux (a symlink, a PATH of `:`).
#[cfg(unix)]
#[test]
#[ignore = "slow: builds the shared student template (cargo test --workspace --test suite classroom50:: -- --ignored)"]
fn autograder_py_grades_the_template_with_the_runners_environment() {
    if !anidado::repo()
        .join("scripts/plantilla-estudiante")
        .is_file()
    {
        return; // The student template.
    }
    // The student template the slow suites share, built once (the runner
    // has no CARGO_TARGET_DIR: its `target` links to its target folder).
    let template = anidado::template();
    let dir = template.root.clone();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let cargo_dir = Path::new(&cargo)
        .parent()
        .map_or(String::new(), |p| p.display().to_string());
    let path = format!("{cargo_dir}:/usr/local/bin:/usr/bin:/bin");
    let r = graded(&dir, &path);
    assert_eq!(
        (r["score"].as_u64(), r["max-score"].as_u64()),
        (Some(0), Some(100))
    );
    assert!(dir.join("release-body.md").is_file());
    for (name, code) in anidado::solved_files() {
        std::fs::write(dir.join("exercises/src").join(name), code).unwrap();
    }
    let r = graded(&dir, &path);
    assert_eq!(
        (r["score"].as_u64(), r["max-score"].as_u64()),
        (Some(100), Some(100))
    );

    // The final project (lesson 8): with servicio.toml at the repository's
    // root, autograder.py grades the service it names with `grader
    // servicio`. The template's service is lesson 2's «antes»: it charges
    // every POST, so only the fleet without keys passes (10 of 100). As
    // root the service runs as the sandbox's user, who must reach it (the
    // template's folders are open to all: `anidado::template`).
    std::fs::write(
        dir.join("servicio.toml"),
        "comando = \"python3 plantilla-servicio/app.py\"\n",
    )
    .unwrap();
    let r = graded(&dir, &path);
    assert_eq!(
        (r["score"].as_u64(), r["max-score"].as_u64()),
        (Some(10), Some(100)),
        "{r:#}"
    );
    let tests = r["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 9, "{r:#}");
    assert!(
        tests.iter().any(|t| t["test-name"]
            .as_str()
            .unwrap()
            .starts_with("servicio · flota-sin-key — ")
            && t["passed"] == true),
        "{r:#}"
    );
    let body = std::fs::read_to_string(dir.join("release-body.md")).unwrap();
    assert!(body.contains("flota-con-key"), "{body}");
}

/// Runs autograder.py in `dir` with `path` as the runner would: exit 0 and
/// a `result.json` that keeps every rule of the schema, which it returns.
#[cfg(unix)]
fn graded(dir: &Path, path: &str) -> Value {
    let o = autograder_py(dir, path);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let r: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("result.json")).unwrap()).unwrap();
    validate(&r);
    r
}
