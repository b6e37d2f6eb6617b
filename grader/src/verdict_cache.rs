//! The last report's verdicts, reused when nothing they depend on changed
//! (issue 17: no fixed cost when nothing changed).
//!
//! A report is a function of its inputs: the same sources, toolchain, judge,
//! fixtures, options and seed give the same verdicts, byte for byte (the
//! kit's determinism). The judge already skips the harness build when the
//! build's fingerprint ([`crate::runner::fingerprint`]) is unchanged; with
//! the same fingerprint the harness is the same program, so its verdicts
//! are the same too, except those that depend on the machine's load or
//! memory: a time-out and a process that died ([`Verdict::TimedOut`],
//! [`Verdict::Crashed`]), and any verdict of a run in which some job timed
//! out or died on the way (a shrink step that timed out changes the
//! counterexample: [`crate::runner::process::HarnessProcess::machine_dependent`]).
//! A run with none of them stores its verdicts beside the fingerprint
//! (`target/PERFIL/kit-veredictos-BINARIO-…`, one per copy of the kit); the
//! next run whose key is the same shows them without building or starting
//! anything, and says so. Code whose answers change from run to run with
//! the same input (a `HashMap`'s order with its random hasher) keeps the
//! verdicts of the run that stored them until it changes or `--de-nuevo`
//! runs it again: the line on stderr says so.
//!
//! The key hashes everything a verdict can depend on:
//! - the fingerprint of the harness's inputs, computed as the build computes
//!   it ([`crate::runner::build::inputs`]: every source file of `sim/`,
//!   `protocol/`, `harness/` and the graded crate, the manifests, the
//!   toolchain, the build's environment);
//! - the judge's own executable (path, size, time, inode): a rebuilt judge
//!   may check differently;
//! - the command line as parsed (options, `--timeout`, `--ejercicio`, …);
//! - the checks of the run (fixtures, `--fixtures`, hidden variants and
//!   their seeds), the source policy's review of the sources, and every
//!   `KIT_*` variable of the environment.
//!
//! Only the student's own text report uses it: never a machine-read format
//! (Gradescope, Classroom 50, JUnit), never under `CI` ([`in_ci`]: a workflow that
//! keeps `target/` between runs, where code graded without the sandbox
//! could have written the file); `--de-nuevo` grades again and stores what
//! it graded. The key is computed before the build and again after
//! grading: a file saved while the checks ran stores nothing.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::checks::Catalog;
use crate::cli::Cli;
use crate::grading::Graded;
use crate::policy::Review;
use crate::report::Format;
use crate::runner::build::{self, Implementation};
use crate::runner::fingerprint;
use crate::verdict::Verdict;

/// What one graded run is keyed by ([`Key::of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key(u64);

/// What is stored: the key and the verdicts in catalog order.
#[derive(Serialize, Deserialize)]
struct Stored {
    clave: String,
    veredictos: Vec<Verdict>,
}

impl Key {
    /// The key of grading `which` in the kit at `root` with `cli`, the
    /// checks of `catalog` and the policy's `review`; `None` when this run
    /// must neither reuse nor store verdicts: a format other than text, or
    /// `CI` set.
    pub fn of(
        cli: &Cli,
        root: &Path,
        which: Implementation,
        catalog: &Catalog,
        review: &Review,
    ) -> Option<Key> {
        if !applies(cli, in_ci(std::env::var("CI").ok().as_deref())) {
            return None;
        }
        let judge = std::env::current_exe().ok()?;
        let mut h = std::hash::DefaultHasher::new();
        "kit-veredictos 1".hash(&mut h);
        build::inputs(root, which).inputs.hash(&mut h);
        fingerprint::stat_line(&judge).hash(&mut h);
        // `--de-nuevo` stores under the key of the same run without it.
        let options = Cli {
            again: false,
            ..cli.clone()
        };
        format!("{options:?}").hash(&mut h);
        format!("{catalog:?}").hash(&mut h);
        format!("{review:?}").hash(&mut h);
        let mut kit_env: Vec<(String, String)> = std::env::vars_os()
            .filter_map(|(k, v)| {
                let k = k.into_string().ok()?;
                k.starts_with("KIT_")
                    .then(|| (k, v.to_string_lossy().into_owned()))
            })
            .collect();
        kit_env.sort();
        kit_env.hash(&mut h);
        Some(Key(h.finish()))
    }

    /// The verdicts stored under this key for `which` in the kit at `root`,
    /// as the run that stored them graded `catalog`; `None` with
    /// `--de-nuevo` in `cli`, when there are none, when they are another
    /// key's, or when the file is unreadable.
    pub fn recall(
        self,
        cli: &Cli,
        root: &Path,
        which: Implementation,
        catalog: &Catalog,
    ) -> Option<Graded> {
        if cli.again {
            return None;
        }
        let text = std::fs::read_to_string(path(root, which)).ok()?;
        let stored: Stored = serde_json::from_str(&text).ok()?;
        if stored.clave != self.hex() || stored.veredictos.len() != catalog.checks.len() {
            return None;
        }
        Some(Graded {
            target: which.crate_name(),
            results: catalog
                .checks
                .iter()
                .cloned()
                .zip(stored.veredictos)
                .collect(),
        })
    }

    /// Stores `graded` under this key (best effort: a file that cannot be
    /// written only means the next run grades again), unless one of its
    /// verdicts depends on the machine ([`reusable`]).
    pub fn store(self, root: &Path, which: Implementation, graded: &Graded) {
        if !reusable(graded) {
            return;
        }
        let stored = Stored {
            clave: self.hex(),
            veredictos: graded.results.iter().map(|(_, v)| v.clone()).collect(),
        };
        let Ok(text) = serde_json::to_string(&stored) else {
            return;
        };
        fingerprint::write_whole(&path(root, which), &text);
    }

    fn hex(self) -> String {
        format!("{:016x}", self.0)
    }
}

/// Whether a run with `cli` may reuse and store verdicts: the text report,
/// outside CI (`ci`: the `CI` variable is set). With `--de-nuevo` it
/// reuses nothing but stores what it graded ([`Key::recall`]).
fn applies(cli: &Cli, ci: bool) -> bool {
    cli.format == Format::Text && !ci
}

/// Whether the `CI` variable (`value`, `None` when unset) says this runs in
/// CI: set to anything but an empty text, `false` or `0` (GitHub Actions,
/// Classroom 50's runner and `.ci/run` set `true`).
fn in_ci(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// Whether every verdict of `graded` is one the same program gives on any
/// machine: no time-out, no process that died.
fn reusable(graded: &Graded) -> bool {
    graded
        .results
        .iter()
        .all(|(_, v)| !matches!(v, Verdict::TimedOut { .. } | Verdict::Crashed { .. }))
}

/// Where the verdicts of `which` in the kit at `root` are kept: beside the
/// harness's fingerprint record, one file per copy of the kit.
fn path(root: &Path, which: Implementation) -> PathBuf {
    fingerprint::per_copy(
        &build::profile_dir(root),
        "kit-veredictos",
        root,
        which.binary(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::Check;
    use clap::Parser;

    fn cli(line: &str) -> Cli {
        Cli::parse_from(std::iter::once("grader").chain(line.split_whitespace()))
    }

    #[test]
    fn only_the_text_report_outside_ci_reuses_verdicts() {
        assert!(applies(&cli(""), false));
        assert!(applies(&cli("--solutions --ejercicio cobro"), false));
        assert!(applies(&cli("--de-nuevo"), false));
        assert!(!applies(&cli(""), true));
        assert!(!applies(&cli("--format gradescope"), false));
        assert!(!applies(&cli("--formato classroom50"), false));
    }

    #[test]
    fn ci_is_any_value_but_empty_false_or_0() {
        assert!(in_ci(Some("true")));
        assert!(in_ci(Some("1")));
        assert!(!in_ci(None));
        assert!(!in_ci(Some("")));
        assert!(!in_ci(Some("false")));
        assert!(!in_ci(Some("0")));
    }

    #[test]
    fn a_time_out_or_a_death_is_never_stored() {
        let check = |v: Verdict| {
            (
                Check {
                    id: "cobro/x".to_string(),
                    exercise: crate::verdict::Exercise::ALL[0],
                    title: String::new(),
                    target: crate::checks::CheckTarget::Fixed("x"),
                },
                v,
            )
        };
        let graded = |vs: Vec<Verdict>| Graded {
            target: "exercises",
            results: vs.into_iter().map(check).collect(),
        };
        let failed = Verdict::Failed {
            expected: "1".to_string(),
            got: "2".to_string(),
            hint: String::new(),
            steps: Vec::new(),
            owner: None,
        };
        assert!(reusable(&graded(vec![Verdict::Passed, failed.clone()])));
        let timed_out = Verdict::TimedOut {
            limit_ms: 5000,
            case: None,
        };
        assert!(!reusable(&graded(vec![Verdict::Passed, timed_out])));
        let crashed = Verdict::Crashed {
            what: "abortó".to_string(),
        };
        assert!(!reusable(&graded(vec![failed, crashed])));
    }
}
