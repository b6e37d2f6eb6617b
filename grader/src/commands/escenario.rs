//! `grader escenario [NOMBRE]`: the lesson's scenario tables, run with the
//! chosen implementation ("un simulador que puedes correr tú mismo"), compared
//! line by line with the expected output kept as an insta snapshot.

use std::path::{Path, PathBuf};

use sim::{Kit, Scenario};
use similar::{ChangeTag, TextDiff};

use crate::paths;
use crate::tables::{self, ScenarioRuns};
use crate::world::{ClientKind, run_world};

/// Runs every world of `scenario` with `K` and renders its table.
pub fn table<K: Kit>(scenario: &Scenario) -> String {
    let runs = ScenarioRuns {
        before: run_world::<K>(scenario, false, ClientKind::PerOperation),
        after: run_world::<K>(scenario, true, ClientKind::PerOperation),
        key_per_attempt: scenario
            .show_key_per_attempt
            .then(|| run_world::<K>(scenario, true, ClientKind::PerAttempt)),
    };
    tables::render(scenario, &runs)
}

/// Resolves a scenario name (`flota-1000`) or a path to a `.toml`.
pub fn resolve(name: &str, extra_dirs: &[PathBuf]) -> PathBuf {
    let as_path = Path::new(name);
    if name.ends_with(".toml") || as_path.components().count() > 1 {
        return as_path.to_path_buf();
    }
    for dir in extra_dirs.iter().rev() {
        let p = dir.join(format!("{name}.toml"));
        if p.is_file() {
            return p;
        }
    }
    paths::fixtures_dir().join(format!("{name}.toml"))
}

/// The expected table of scenario `name`, from its insta snapshot, if any.
pub fn expected(name: &str) -> Option<String> {
    let path = paths::snapshot_path(name);
    if !path.is_file() {
        return None;
    }
    let snap = insta::Snapshot::from_file(&path).ok()?;
    Some(snap.as_text()?.to_string())
}

/// A line-by-line comparison of `got` with the expected table, in Spanish;
/// `None` when they match (ignoring trailing whitespace, as insta does).
pub fn compare(expected: &str, got: &str) -> Option<String> {
    let norm = |s: &str| s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
    let (e, g) = (norm(expected), norm(got));
    if e == g {
        return None;
    }
    let mut out = String::from("  Diferencias con la salida esperada (- esperado, + tu salida):\n");
    for change in TextDiff::from_lines(&e, &g).iter_all_changes() {
        let sign = match change.tag() {
            ChangeTag::Delete => '-',
            ChangeTag::Insert => '+',
            ChangeTag::Equal => continue,
        };
        out.push_str(&format!("  {sign} {}\n", change.value().trim_end()));
    }
    Some(out)
}
