//! A report with nothing changed shows the verdicts of the last run without
//! building or running anything (issue 17; `grader/src/verdict_cache.rs`).
//! Shown by writing into the stored file a verdict that no code gives: a
//! run with the same key shows it, the same judge copied to another path
//! too (issue 26: the judge is its sources, not its executable); a change
//! of the key (an option, a `KIT_*` variable), `--de-nuevo`, `CI` and the
//! machine-read formats grade for real.

use crate::informes;

use std::path::{Path, PathBuf};
use std::process::Output;

use informes::{grader_binary, has_solutions, judge_with_env_without, stdout};
use serde_json::Value;

/// The reference's stored verdicts in this repository's target folder.
fn stored_file() -> PathBuf {
    let profile = PathBuf::from(env!("CARGO_BIN_EXE_grader"))
        .parent()
        .unwrap()
        .to_path_buf();
    let mut found: Vec<PathBuf> = std::fs::read_dir(&profile)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.starts_with("kit-veredictos-harness-solutions-") && !n.contains('.')
            })
        })
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    found.pop().unwrap()
}

/// Replaces the first stored verdict with a failure no code gives.
fn plant_impossible_failure() {
    let path = stored_file();
    let mut stored: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    stored["veredictos"][0] = serde_json::json!({
        "estado": "failed",
        "expected": "PLANTADO",
        "got": "PLANTADO",
        "hint": "",
    });
    std::fs::write(&path, stored.to_string()).unwrap();
}

/// The reference's reconciliation graded with `extra` and `env`, outside
/// CI unless `env` names it.
fn run(extra: &[&str], env: &[(&str, &str)]) -> Output {
    run_judge(grader_binary(), extra, env)
}

/// As [`run`], with the judge executable at `judge`.
fn run_judge(judge: &Path, extra: &[&str], env: &[(&str, &str)]) -> Output {
    let args: Vec<&str> = ["--solutions", "--ejercicio", "reconciliacion"]
        .iter()
        .chain(extra)
        .copied()
        .collect();
    let in_ci = env.iter().any(|(k, _)| *k == "CI");
    judge_with_env_without(judge, &args, env, if in_ci { &[] } else { &["CI"] })
}

/// Extra arguments and environment variables of one run.
type Change<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)]);

fn planted(o: &Output) -> bool {
    stdout(o).contains("PLANTADO")
}

#[test]
fn a_report_with_nothing_changed_reuses_the_stored_verdicts_and_any_change_grades_again() {
    if !has_solutions() {
        return;
    }
    // The other tests of this binary run the judge too: none while this
    // one plants and reads its verdict.
    informes::with_verdict_store(reuse_and_regrade);
}

fn reuse_and_regrade() {
    // Twice: a first run may still build the harness, whose dep-info (an
    // input of its fingerprint) that build writes: the key after grading
    // differs from the one before, and nothing is stored.
    run(&["--de-nuevo"], &[]);
    let graded = run(&["--de-nuevo"], &[]);
    assert_eq!(graded.status.code(), Some(0), "{}", stdout(&graded));
    let report = stdout(&graded);

    // Nothing changed: the stored verdicts, whatever they say.
    plant_impossible_failure();
    let again = run(&[], &[]);
    assert!(planted(&again), "{}", stdout(&again));
    assert_eq!(again.status.code(), Some(1));

    // The same judge at another path (another inode, another time): the
    // same judge, the same key.
    let elsewhere = tempfile::tempdir().unwrap();
    let copy = elsewhere.path().join("grader");
    std::fs::copy(grader_binary(), &copy).unwrap();
    let copied = run_judge(&copy, &[], &[]);
    assert!(planted(&copied), "{}", stdout(&copied));

    // Another option, another KIT_ variable, CI, another format: graded.
    let changed: [Change; 4] = [
        (&["--timeout", "6"], &[]),
        (&[], &[("KIT_PRUEBA_CACHE", "1")]),
        (&[], &[("CI", "true")]),
        (&["--format", "gradescope"], &[]),
    ];
    for (extra, env) in changed {
        let o = run(extra, env);
        assert!(!planted(&o), "{extra:?} {env:?}: {}", stdout(&o));
        assert_eq!(o.status.code(), Some(0), "{extra:?} {env:?}");
    }

    // `--de-nuevo` grades again and stores what it graded: the next run
    // without it is the real report again, byte for byte.
    plant_impossible_failure();
    assert!(!planted(&run(&["--de-nuevo"], &[])));
    let next = run(&[], &[]);
    assert_eq!(stdout(&next), report);
    assert_eq!(next.status.code(), Some(0));
}
