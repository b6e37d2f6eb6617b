//! Helpers shared by the tests that run the grader binary (`cli.rs`,
//! `comparar.rs`, `formatos.rs`, `variantes.rs`, …): run it, run the
//! reference's harness, and check a report's structure against its format.
//! The harness's tests (`harness/tests/formatos.rs`, …) include this module
//! for the format checks.

// Each test target uses part of this module.
#![allow(dead_code)]

use std::cell::Cell;
use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Output};
use std::sync::{OnceLock, RwLock, RwLockReadGuard};

use judge::runner::build::Implementation;
use judge::runner::process::HarnessProcess;
use serde_json::Value;

/// The judge's stored verdicts are one file per harness in the target folder
/// (`target/debug/kit-veredictos-…`), and the tests of one binary run in
/// parallel threads (issue 28: one test binary per crate). The test that
/// plants a verdict in that file (`informe_guardado`) holds this for
/// writing ([`with_verdict_store`]); every other run of the judge from these
/// tests holds it for reading ([`verdict_store_shared`]), so none rewrites
/// the file under it.
static VERDICT_STORE: RwLock<()> = RwLock::new(());

thread_local! {
    /// Whether this thread is inside [`with_verdict_store`].
    static OWNS_VERDICT_STORE: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` with the stored verdicts to itself (see [`VERDICT_STORE`]).
pub fn with_verdict_store<T>(f: impl FnOnce() -> T) -> T {
    let _own = VERDICT_STORE.write().unwrap_or_else(|e| e.into_inner());
    OWNS_VERDICT_STORE.set(true);
    let result = f();
    OWNS_VERDICT_STORE.set(false);
    result
}

/// A share of the stored verdicts for one run of the judge (none needed
/// inside [`with_verdict_store`]).
pub fn verdict_store_shared() -> Option<RwLockReadGuard<'static, ()>> {
    if OWNS_VERDICT_STORE.get() {
        return None;
    }
    Some(VERDICT_STORE.read().unwrap_or_else(|e| e.into_inner()))
}

/// The repository root.
fn repo() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// Runs the grader binary with `args`, no colours, a fixed
/// `execution_time`, and no secret seed or child marker from the outside.
pub fn grader(args: &[&str]) -> Output {
    grader_with_env(args, &[])
}

/// As [`grader`], with extra environment variables.
pub fn grader_with_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    grader_with_env_without(args, env, &[])
}

/// As [`grader_with_env`], without the variables named in `remove` (`CI`:
/// the verdict cache is off under CI).
pub fn grader_with_env_without(args: &[&str], env: &[(&str, &str)], remove: &[&str]) -> Output {
    judge_with_env_without(grader_binary(), args, env, remove)
}

/// The grader binary cargo built for these tests.
pub fn grader_binary() -> &'static Path {
    // Only the grader's own tests have the binary (the harness's tests use
    // the format checks alone).
    let Some(grader) = option_env!("CARGO_BIN_EXE_grader") else {
        panic!("only the grader's tests run the grader");
    };
    Path::new(grader)
}

/// As [`grader_with_env_without`], with the judge executable at `judge`
/// (a copy of the grader binary elsewhere).
pub fn judge_with_env_without(
    judge: &Path,
    args: &[&str],
    env: &[(&str, &str)],
    remove: &[&str],
) -> Output {
    let _shared = verdict_store_shared();
    let mut cmd = Command::new(judge);
    cmd.args(args)
        .env("NO_COLOR", "1")
        .env("KIT_TIEMPO_EJECUCION", "0")
        // The large cases take seconds per report: left out unless a test
        // removes this (`grader::commands::grade::NO_LARGE_CASES_ENV`).
        .env("KIT_SIN_CASOS_GRANDES", "1")
        .env_remove("KIT_GRADER_CHECK")
        .env_remove("KIT_SEMILLA_SECRETA")
        .env_remove("CLICOLOR_FORCE");
    for k in remove {
        cmd.env_remove(k);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("the grader runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Standard error as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Whether this copy of the kit has the reference solutions (the student
/// template has not: tests that need `--solutions` have nothing to check
/// there).
pub fn has_solutions() -> bool {
    repo().join("solutions").join("Cargo.toml").is_file()
}

/// The reference's harness as the grader builds and runs it for
/// `--solutions` (built once per test binary), or `None` in the student
/// template.
pub fn solutions_harness() -> Option<&'static HarnessProcess> {
    static HARNESS: OnceLock<Option<HarnessProcess>> = OnceLock::new();
    HARNESS
        .get_or_init(|| {
            if !has_solutions() {
                return None;
            }
            let cli = <grader::cli::Cli as clap::Parser>::try_parse_from(["grader", "--solutions"])
                .expect("--solutions parses");
            let h = grader::commands::harness(&cli, Implementation::Solutions)
                .unwrap_or_else(|cause| panic!("the reference's harness builds: {cause:?}"));
            Some(h)
        })
        .as_ref()
}

/// The score line (`Puntaje: …`) of a text report, checking that the
/// report closes with it and the progress line (`Progreso: …`).
pub fn score_line(report: &str) -> &str {
    let lines: Vec<&str> = report.trim_end().lines().collect();
    let [.., score, progress] = lines[..] else {
        panic!("a report of fewer than two lines:\n{report}");
    };
    assert!(score.starts_with("Puntaje: "), "{report}");
    assert!(progress.starts_with("Progreso: "), "{report}");
    score
}

/// Whether `exercises/` still holds the three untouched `todo!()` stubs.
pub fn stubs_untouched() -> bool {
    let dir = repo().join("exercises/src");
    [
        ("payments_server.rs", 1),
        ("client.rs", 2),
        ("reconciliation.rs", 3),
    ]
    .iter()
    .all(|(f, n)| {
        std::fs::read_to_string(dir.join(f))
            .is_ok_and(|s| s.contains(&format!("todo!(\"Ejercicio {n}")))
    })
}

/// Number of checks in the default catalog (the kit's fixtures).
pub fn default_check_count() -> usize {
    judge::checks::Catalog::new(fixtures(), &[]).checks.len()
}

/// How many checks of the kit's default catalog count for the 100 (the
/// bonus exercises' checks apart), and how many are the bonus's.
pub fn graded_and_bonus_check_counts() -> (usize, usize) {
    let rubric = judge::rubric::Rubric::kit().unwrap();
    let catalog = judge::checks::Catalog::new(fixtures(), &[]);
    let bonus = catalog
        .checks
        .iter()
        .filter(|c| rubric.is_bonus(c.exercise.id()))
        .count();
    (catalog.checks.len() - bonus, bonus)
}

/// The points of the kit's bonus: its listed checks.
pub fn bonus_points() -> f64 {
    let rubric = judge::rubric::Rubric::kit().unwrap();
    rubric
        .bonus
        .iter()
        .map(|e| rubric.listed_total(e).as_f64())
        .sum()
}

/// The points of the kit's bonus with hidden variants: its listed checks
/// and its exercises' variant pools.
pub fn bonus_points_with_variants() -> f64 {
    let rubric = judge::rubric::Rubric::kit().unwrap();
    bonus_points()
        + rubric
            .bonus
            .iter()
            .map(|e| rubric.variant_pool(e).as_f64())
            .sum::<f64>()
}

/// The kit's fixtures (`fixtures/*.toml`), as the grader loads them.
pub fn fixtures() -> Vec<judge::fixture::Scenario> {
    judge::fixture::Scenario::load_dir(&repo().join("fixtures")).expect("the kit's fixtures load")
}

/// The grader arguments of a printed `cargo run -p grader -- ARGS` command.
pub fn args_of(command: &str) -> Vec<String> {
    let rest = command
        .strip_prefix("cargo run -p grader -- ")
        .unwrap_or_else(|| panic!("not a grader command: {command}"));
    rest.split_whitespace().map(str::to_string).collect()
}

/// The command after `reprodúcela: ` in a failure's explanation.
pub fn reproduction(explanation: &str) -> String {
    explanation
        .lines()
        .find_map(|l| l.trim().strip_prefix("reprodúcela: "))
        .unwrap_or_else(|| panic!("no reproduction command in {explanation}"))
        .to_string()
}

/// The top-level fields of Gradescope's `results.json`, from its published
/// spec.
pub const GRADESCOPE_TOP: [&str; 11] = [
    "score",
    "execution_time",
    "output",
    "output_format",
    "test_output_format",
    "test_name_format",
    "visibility",
    "stdout_visibility",
    "extra_data",
    "tests",
    "leaderboard",
];
/// The fields of one test, from the same spec.
pub const GRADESCOPE_TEST: [&str; 11] = [
    "score",
    "max_score",
    "status",
    "name",
    "name_format",
    "number",
    "output",
    "output_format",
    "tags",
    "visibility",
    "extra_data",
];
const VISIBILITIES: [&str; 4] = ["hidden", "after_due_date", "after_published", "visible"];
const FORMATS: [&str; 5] = ["text", "html", "simple_format", "md", "ansi"];

/// Parses `json` and checks it against Gradescope's field list: only known
/// fields, the right types, `status` passed/failed, known visibilities and
/// formats, `score ≤ max_score`, and a top-level score equal to the sum of
/// the tests'. Returns the parsed value.
pub fn gradescope(json: &str) -> Value {
    let v: Value = serde_json::from_str(json).expect("results.json is JSON");
    let top = v.as_object().expect("an object");
    for key in top.keys() {
        assert!(
            GRADESCOPE_TOP.contains(&key.as_str()),
            "unknown top-level field {key}"
        );
    }
    for key in ["score", "execution_time", "output", "tests"] {
        assert!(top.contains_key(key), "missing {key}");
    }
    assert!(v["score"].is_number());
    assert!(v["execution_time"].is_u64());
    assert!(v["output"].is_string());
    for key in ["output_format", "test_output_format"] {
        if let Some(f) = top.get(key) {
            assert!(FORMATS.contains(&f.as_str().unwrap()), "{key}: {f}");
        }
    }
    let tests = v["tests"].as_array().expect("tests is a list");
    let mut sum = 0.0;
    let mut numbers = BTreeSet::new();
    for t in tests {
        let obj = t.as_object().expect("a test is an object");
        for key in obj.keys() {
            assert!(
                GRADESCOPE_TEST.contains(&key.as_str()),
                "unknown test field {key}"
            );
        }
        for key in [
            "name",
            "number",
            "score",
            "max_score",
            "status",
            "output",
            "visibility",
        ] {
            assert!(obj.contains_key(key), "test without {key}: {t}");
        }
        assert!(t["name"].is_string() && t["number"].is_string() && t["output"].is_string());
        let (score, max) = (
            t["score"].as_f64().unwrap(),
            t["max_score"].as_f64().unwrap(),
        );
        assert!((0.0..=max).contains(&score), "{t}");
        let status = t["status"].as_str().unwrap();
        assert!(["passed", "failed"].contains(&status), "{t}");
        assert_eq!(status == "passed", score == max && t["output"] == "", "{t}");
        assert!(VISIBILITIES.contains(&t["visibility"].as_str().unwrap()));
        assert!(
            numbers.insert(t["number"].as_str().unwrap().to_string()),
            "{t}"
        );
        sum += score;
    }
    assert!((v["score"].as_f64().unwrap() - sum).abs() < 1e-9);
    v
}

/// Sum of the tests' `max_score`.
pub fn gradescope_max(v: &Value) -> f64 {
    v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["max_score"].as_f64().unwrap())
        .sum()
}

/// Parses a JUnit report and checks its shape: one suite per exercise (named
/// by its id, in order), one case per check named by its id, and the counts
/// consistent. Returns it.
pub fn junit(xml: &str) -> quick_junit::Report {
    let report = quick_junit::Report::deserialize_from_str(xml).expect("JUnit XML parses");
    let mut tests = 0;
    let mut failures = 0;
    let mut errors = 0;
    let known = judge::catalog::ids();
    let mut last = 0;
    for suite in &report.test_suites {
        let i = known
            .iter()
            .position(|k| *k == suite.name.as_str())
            .unwrap_or_else(|| panic!("suite {}", suite.name.as_str()));
        assert!(i >= last, "suites out of order");
        last = i;
        assert_eq!(suite.tests, suite.test_cases.len());
        for case in &suite.test_cases {
            assert!(
                case.name
                    .as_str()
                    .starts_with(&format!("{}/", suite.name.as_str())),
                "{}",
                case.name.as_str()
            );
            if let quick_junit::TestCaseStatus::NonSuccess {
                kind,
                description,
                message,
                ..
            } = &case.status
            {
                assert!(message.is_some() && description.is_some());
                match kind {
                    quick_junit::NonSuccessKind::Failure => failures += 1,
                    quick_junit::NonSuccessKind::Error => errors += 1,
                }
            }
        }
        tests += suite.tests;
    }
    assert_eq!(report.tests, tests);
    assert_eq!(report.failures, failures);
    assert_eq!(report.errors, errors);
    report
}

/// The failure text (description) of the case called `id`, if it failed.
pub fn junit_failure(report: &quick_junit::Report, id: &str) -> Option<String> {
    report
        .test_suites
        .iter()
        .flat_map(|s| &s.test_cases)
        .find(|c| c.name.as_str() == id)
        .and_then(|c| match &c.status {
            quick_junit::TestCaseStatus::NonSuccess { description, .. } => {
                description.as_ref().map(|d| d.as_str().to_string())
            }
            _ => None,
        })
}
