//! The last report's verdicts, reused when nothing they depend on changed
//! (issue 17: no fixed cost when nothing changed).
//!
//! A report is a function of its inputs: the same sources, toolchain, judge,
//! fixtures, options and seed give the same verdicts, byte for byte (the
//! kit's determinism). The judge already skips the harness build when the
//! build's fingerprint ([`judge::runner::fingerprint`]) is unchanged; with
//! the same fingerprint the harness is the same program, so its verdicts
//! are the same too, except those that depend on the machine's load or
//! memory: a time-out and a process that died ([`Verdict::TimedOut`],
//! [`Verdict::Crashed`]), and any verdict of a run in which some job timed
//! out or died on the way (a shrink step that timed out changes the
//! counterexample: [`judge::runner::process::HarnessProcess::machine_dependent`]).
//! A run with none of them stores its verdicts beside the fingerprint
//! (`target/PERFIL/kit-veredictos-BINARIO-…`, one per copy of the kit); the
//! next run whose key is the same shows them without building or starting
//! anything, and says so. Code whose answers change from run to run with
//! the same input (a `HashMap`'s order with its random hasher) keeps the
//! verdicts of the run that stored them until it changes or `--de-nuevo`
//! runs it again: the line on stderr says so.
//!
//! The key is the stable hash of an explicit description of everything a
//! verdict can depend on, [`VerdictInputs`], and of nothing else (issue 26):
//! - the fingerprint of the harness's inputs, computed as the build computes
//!   it ([`judge::runner::build::inputs`]: every source file of `sim/`,
//!   `protocol/`, `harness/` and the graded crate by contents, the
//!   manifests, the toolchain, the build's environment; the toolchain as
//!   the fingerprint identifies it, by the files of its installation on
//!   this machine, so another installation of the same release gives
//!   another key: a grading again, never a wrong reuse);
//! - the judge, by its version and the hash of its own build inputs
//!   ([`Judge`], [`crate::judge_sources`]), not by its executable's path,
//!   size, time or inode: two copies of the kit with the same sources, in
//!   any folder, have the same judge;
//! - the options that can change a verdict ([`Options`]: the graded crate,
//!   `--timeout`, whether the sandbox runs the code); the command line's
//!   other options either reach the verdicts through the checks or only
//!   change how the report is written (its documentation goes flag by
//!   flag); `--de-nuevo` is not one of them, so it stores under the key of
//!   the same run without it;
//! - the checks of the run (ids and what each runs: a fixed check, a
//!   scenario, the model-based family with its seed) and the scenarios they
//!   run (the fixtures, `--fixtures`, the hidden variants' fleets);
//! - the source policy's review of the sources;
//! - every `KIT_*` variable of the environment.
//!
//! The description is serialized as JSON (fields in their declared order,
//! maps in key order, no spaces) and hashed with [`judge::stable_hash`]
//! (XXH3-128): the same inputs give the same key on every machine and with
//! every Rust release. A field left out of the description is left out of
//! the key, visibly; the serialization of a new field of a scenario or a
//! check target is in the key without a line here (both derive it).
//!
//! Only the student's own text report uses it: never a machine-read format
//! (Gradescope, Classroom 50, JUnit), never under `CI` ([`in_ci`]: a workflow that
//! keeps `target/` between runs, where code graded without the sandbox
//! could have written the file); `--de-nuevo` grades again and stores what
//! it graded. The key is computed before the build and again after
//! grading: a file saved while the checks ran stores nothing.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::report::Format;
use judge::checks::{Catalog, CheckTarget};
use judge::fixture::Scenario;
use judge::grading::Graded;
use judge::policy::Review;
use judge::runner::build::{self, Implementation};
use judge::runner::fingerprint::{self, Fingerprint};
use judge::stable_hash::StableHasher;
use judge::verdict::Verdict;

/// What one graded run is keyed by ([`Key::of`]): the 128-bit stable hash
/// of its [`VerdictInputs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key(u128);

/// Everything a verdict of a run can depend on: what its [`Key`] hashes,
/// and nothing else (see the module's documentation).
#[derive(Debug, Serialize)]
pub struct VerdictInputs<'a> {
    /// The judge that grades.
    pub judge: Judge,
    /// The harness's build inputs, as the build fingerprints them: input
    /// name (`archivo exercises/src/client.rs`, `entorno`, `herramientas`,
    /// …) → stable hash of its contents.
    pub harness: BTreeMap<String, u64>,
    /// The options that can change a verdict.
    pub options: Options,
    /// The scenarios the scenario checks run, whole, in catalog order.
    pub scenarios: &'a [Scenario],
    /// Every check of the run, in report order.
    pub checks: Vec<CheckInput<'a>>,
    /// What the source policy concluded about the graded sources.
    pub review: ReviewInput<'a>,
    /// Every `KIT_*` variable of the environment: name → value (lossy
    /// UTF-8).
    pub kit_env: BTreeMap<String, String>,
}

/// A build of the judge: what checks the observations and writes the
/// verdicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Judge {
    /// Its package version (`CARGO_PKG_VERSION`).
    pub version: &'static str,
    /// The hash of its build inputs, 32 hex digits
    /// ([`crate::judge_sources`]), computed by `grader/build.rs` when it was
    /// built.
    pub build_inputs: &'static str,
}

impl Judge {
    /// The running judge.
    pub const THIS: Judge = Judge {
        version: env!("CARGO_PKG_VERSION"),
        build_inputs: env!("GRADER_BUILD_INPUTS"),
    };
}

/// The options of the command line that can change a verdict, each from
/// its flag; the command turns its flags into these.
///
/// The others, flag by flag, and why they are not here:
/// - `--ejercicio`, `--fixtures`, `--variantes`, `--semilla`,
///   `--archivo-semilla` (and `KIT_SEMILLA_SECRETA`), `--variante`: they
///   change the checks of the run and the scenarios those run, which are in
///   [`VerdictInputs`] as the run grades them (so `--semilla 7` and a seed
///   file holding 7 grade, and key, alike);
/// - `--de-nuevo`: whether to reuse, not what a verdict is; a run with it
///   stores under the key of the same run without it;
/// - `--format`, `--output`: how the report is written (and only the text
///   report reuses verdicts);
/// - `--rubrica`: the points each verdict earns, scored again on every
///   run, reused verdicts included;
/// - `--help` and the subcommands: no grading, or (`vigilar`, `curso`) one
///   that never reuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Options {
    /// The graded crate (`--solutions`): `exercises` or `solutions`.
    #[serde(serialize_with = "crate_name")]
    pub which: Implementation,
    /// Each check's time limit (`--timeout`): a check that takes 5.5 s
    /// passes with 6 and times out with 5.
    pub timeout: Duration,
    /// Whether the graded code runs in the sandbox (the judge as root):
    /// another user, no network, process and memory limits.
    pub sandboxed: bool,
}

fn crate_name<S: serde::Serializer>(which: &Implementation, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(which.crate_name())
}

/// One check as the key sees it: its id (`cobro/flota-1000`, which names
/// its exercise) and what it runs (its title is display only).
#[derive(Debug, Serialize)]
pub struct CheckInput<'a> {
    /// The check's id.
    pub id: &'a str,
    /// What it runs (a scenario by its index in
    /// [`VerdictInputs::scenarios`]).
    pub target: CheckTarget,
}

/// The source policy's review ([`Review`]) as the key sees it.
#[derive(Debug, Serialize)]
pub struct ReviewInput<'a> {
    /// The refused exercises by id, each with its refusal lines.
    pub refused: BTreeMap<&'static str, &'a [String]>,
    /// The files the policy could not parse, with the parser's error.
    pub unparsed: &'a [(String, String)],
}

impl<'a> VerdictInputs<'a> {
    /// The inputs of grading with `options` the checks of `catalog` in the
    /// kit at `root`, after the policy's `review`: this judge, the harness's
    /// fingerprint now and this process's environment.
    pub fn now(
        options: Options,
        root: &Path,
        catalog: &'a Catalog,
        review: &'a Review,
    ) -> VerdictInputs<'a> {
        VerdictInputs::new(
            Judge::THIS,
            build::inputs(root, options.which),
            options,
            catalog,
            review,
            std::env::vars_os(),
        )
    }

    /// The inputs from their parts: `env` is an environment (every
    /// variable; only the `KIT_*` ones with a UTF-8 name are kept).
    pub fn new(
        judge: Judge,
        harness: Fingerprint,
        options: Options,
        catalog: &'a Catalog,
        review: &'a Review,
        env: impl IntoIterator<Item = (OsString, OsString)>,
    ) -> VerdictInputs<'a> {
        VerdictInputs {
            judge,
            harness: harness.inputs,
            options,
            scenarios: &catalog.scenarios,
            checks: catalog
                .checks
                .iter()
                .map(|c| CheckInput {
                    id: &c.id,
                    target: c.target,
                })
                .collect(),
            review: ReviewInput {
                refused: review
                    .refused
                    .iter()
                    .map(|(e, lines)| (e.id(), lines.as_slice()))
                    .collect(),
                unparsed: &review.unparsed,
            },
            kit_env: env
                .into_iter()
                .filter_map(|(k, v)| {
                    let k = k.into_string().ok()?;
                    k.starts_with("KIT_")
                        .then(|| (k, v.to_string_lossy().into_owned()))
                })
                .collect(),
        }
    }

    /// The canonical serialization the key hashes: JSON, fields in their
    /// declared order, maps in key order, no spaces; `None` if it cannot be
    /// serialized (then nothing is reused or stored).
    pub fn canonical(&self) -> Option<Vec<u8>> {
        serde_json::to_vec(self).ok()
    }

    /// The key: the 128-bit [`judge::stable_hash`] of [`Self::canonical`].
    pub fn key(&self) -> Option<Key> {
        let bytes = self.canonical()?;
        Some(Key(StableHasher::default().part(&bytes).finish128()))
    }
}

/// What is stored: the key and the verdicts in catalog order.
#[derive(Serialize, Deserialize)]
struct Stored {
    clave: String,
    veredictos: Vec<Verdict>,
}

impl Key {
    /// The key of grading with `options` the checks of `catalog` in the kit
    /// at `root`, after the policy's `review`: the hash of
    /// [`VerdictInputs::now`]; `None` if they cannot be serialized.
    pub fn of(options: Options, root: &Path, catalog: &Catalog, review: &Review) -> Option<Key> {
        VerdictInputs::now(options, root, catalog, review).key()
    }

    /// The verdicts stored under this key for `which` in the kit at `root`,
    /// as the run that stored them graded `catalog`; `None` when there are
    /// none, when they are another key's, or when the file is unreadable.
    pub fn recall(self, root: &Path, which: Implementation, catalog: &Catalog) -> Option<Graded> {
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

    /// The key in 32 hex digits, as stored.
    pub fn hex(self) -> String {
        format!("{:032x}", self.0)
    }
}

/// Whether a run that writes its report in `format` may reuse and store
/// verdicts: the text report, outside CI (`CI` unset, empty, `false` or
/// `0`). With `--de-nuevo` it reuses nothing but stores what it graded.
pub fn applies(format: Format) -> bool {
    applies_in(format, in_ci(std::env::var("CI").ok().as_deref()))
}

/// [`applies`], with `ci` whether the `CI` variable says this runs in CI.
fn applies_in(format: Format, ci: bool) -> bool {
    format == Format::Text && !ci
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
    use judge::checks::Check;
    use judge::runner::fingerprint::test_kit::{kit, of as fingerprint};
    use judge::variants::Plan;
    use judge::verdict::Exercise;
    use sim::{Delivery, Fleet, LossSpec, Money, OrdersSpec, StreamKind};

    #[test]
    fn only_the_text_report_outside_ci_reuses_verdicts() {
        assert!(applies_in(Format::Text, false));
        assert!(!applies_in(Format::Text, true));
        assert!(!applies_in(Format::Gradescope, false));
        assert!(!applies_in(Format::Classroom50, false));
    }

    /// The kit's own fixtures (fixtures/).
    fn fixtures() -> Vec<Scenario> {
        judge::fixture::load_all(&[]).unwrap()
    }

    /// Every input of a key, owned: a test changes one at a time.
    #[derive(Clone)]
    struct Parts {
        judge: Judge,
        harness: Fingerprint,
        options: Options,
        catalog: Catalog,
        review: Review,
        env: Vec<(OsString, OsString)>,
    }

    impl Parts {
        fn new(root: &Path) -> Parts {
            Parts {
                judge: Judge {
                    version: "0.1.0",
                    build_inputs: "0123456789abcdef0123456789abcdef",
                },
                harness: fingerprint(root),
                options: Options {
                    which: Implementation::Exercises,
                    timeout: Duration::from_secs(5),
                    sandboxed: false,
                },
                catalog: Catalog::new(fixtures(), &[]),
                review: Review::default(),
                env: vec![
                    ("KIT_SIN_POLITICA".into(), "1".into()),
                    ("PATH".into(), "/usr/bin".into()),
                ],
            }
        }

        fn inputs(&self) -> VerdictInputs<'_> {
            VerdictInputs::new(
                self.judge,
                self.harness.clone(),
                self.options,
                &self.catalog,
                &self.review,
                self.env.clone(),
            )
        }

        fn key(&self) -> Key {
            self.inputs().key().unwrap()
        }
    }

    /// The checks and scenarios of `--variantes 2 --semilla SEED`.
    fn with_variants(seed: u64) -> Catalog {
        let plan = Plan::from_parts(Some(2), Some(seed), &[], None).unwrap();
        let mut scenarios = fixtures();
        scenarios.extend(plan.scenarios());
        let mut catalog = Catalog::new(scenarios, &[]);
        catalog.add_model_variants(&plan.variants);
        catalog
    }

    #[test]
    fn every_input_changes_the_key() {
        let k = kit();
        let base = Parts::new(k.path());
        type Change = fn(&mut Parts, &Path);
        let changes: Vec<(&str, Change)> = vec![
            ("the judge's version", |p, _| p.judge.version = "0.1.1"),
            ("the judge's sources", |p, _| {
                p.judge.build_inputs = "0123456789abcdef0123456789abcdee";
            }),
            ("a harness source (the student's file)", |p, root| {
                let file = root.join("exercises/src/client.rs");
                std::fs::write(&file, "pub fn charge() -> u8 { 2 }\n").unwrap();
                p.harness = fingerprint(root);
                std::fs::write(&file, "pub fn charge() -> u8 { 1 }\n").unwrap();
            }),
            ("a new harness source", |p, root| {
                let file = root.join("sim/src/extra.rs");
                std::fs::write(&file, "").unwrap();
                p.harness = fingerprint(root);
                std::fs::remove_file(file).unwrap();
            }),
            ("--solutions", |p, _| {
                p.options.which = Implementation::Solutions;
            }),
            ("--timeout 6", |p, _| {
                p.options.timeout = Duration::from_secs(6);
            }),
            ("--timeout 5.001", |p, _| {
                p.options.timeout = Duration::from_millis(5001);
            }),
            ("the sandbox", |p, _| p.options.sandboxed = true),
            ("--ejercicio cobro", |p, _| {
                p.catalog = Catalog::new(fixtures(), &[Exercise::Cobro]);
            }),
            ("--fixtures with one more scenario", |p, _| {
                let mut scenarios = fixtures();
                let mut extra = scenarios[0].clone();
                extra.name = "otro".to_string();
                scenarios.push(extra);
                p.catalog = Catalog::new(scenarios, &[]);
            }),
            ("a fixture's fleet", |p, _| {
                let mut scenarios = fixtures();
                scenarios[0].fleet.max_attempts += 1;
                p.catalog = Catalog::new(scenarios, &[]);
            }),
            ("a fixture's text", |p, _| {
                let mut scenarios = fixtures();
                scenarios[0].description.push('.');
                p.catalog = Catalog::new(scenarios, &[]);
            }),
            ("--variantes 2 --semilla 7", |p, _| {
                p.catalog = with_variants(7)
            }),
            ("--variantes 2 --semilla 8", |p, _| {
                p.catalog = with_variants(8)
            }),
            ("a model-based check's seed", |p, _| {
                let check = p
                    .catalog
                    .checks
                    .iter_mut()
                    .find(|c| matches!(c.target, CheckTarget::Model(_)));
                check.unwrap().target = CheckTarget::Model(1);
            }),
            ("an exercise refused", |p, _| {
                p.review
                    .refused
                    .insert(Exercise::Cliente, vec!["1:1: usa std::fs".to_string()]);
            }),
            ("a file the policy cannot parse", |p, _| {
                p.review
                    .unparsed
                    .push(("exercises/src/client.rs".to_string(), "1:1".to_string()));
            }),
            ("a new KIT_ variable", |p, _| {
                p.env.push(("KIT_PRUEBA".into(), "1".into()));
            }),
            ("a KIT_ variable's value", |p, _| p.env[0].1 = "0".into()),
        ];
        let mut seen = std::collections::BTreeMap::new();
        seen.insert(base.key().hex(), "nothing");
        for (what, change) in changes {
            let mut parts = base.clone();
            change(&mut parts, k.path());
            if let Some(other) = seen.insert(parts.key().hex(), what) {
                panic!("{what}: the same key as with {other}");
            }
        }
        // The kit as it was: the key as it was.
        assert_eq!(Parts::new(k.path()).key(), base.key());
    }

    #[test]
    fn what_cannot_change_a_verdict_leaves_the_key() {
        let (a, b) = (kit(), kit());
        let base = Parts::new(a.path());
        // Another copy of the kit, at another path, with the same sources.
        let copy = Parts::new(b.path());
        assert_eq!(copy.harness, base.harness);
        assert_eq!(copy.key(), base.key());
        let json = String::from_utf8(base.inputs().canonical().unwrap()).unwrap();
        let judge = std::env::current_exe().unwrap();
        for path in [a.path(), judge.as_path()] {
            assert!(!json.contains(&*path.to_string_lossy()), "{path:?}");
        }
        // Variables other than KIT_*, and their order.
        let mut other = base.clone();
        other.env.push(("HOME".into(), "/home/otra".into()));
        other.env.push(("KITE".into(), "1".into()));
        other.env.reverse();
        assert_eq!(other.key(), base.key());
        // A check's title (display only).
        let mut titled = base.clone();
        titled.catalog.checks[0].title.push('!');
        assert_eq!(titled.key(), base.key());
    }

    /// The judge is identified by the sources it was built from: the test
    /// binary was built from these.
    #[test]
    fn the_running_judge_is_its_version_and_the_hash_of_its_sources() {
        assert_eq!(Judge::THIS.version, env!("CARGO_PKG_VERSION"));
        assert_eq!(
            Judge::THIS.build_inputs,
            format!(
                "{:032x}",
                crate::judge_sources::hash(&judge::paths::repo_root())
            )
        );
    }

    /// A fixed description, its canonical form and its key: a change of the
    /// serialization or of the hash would make every stored verdict
    /// another key's (or worse, the same key for other inputs). The key is
    /// what XXH3's reference tool gives for the JSON framed by its length
    /// (`xxhsum -H2` of 8 little-endian length bytes and the JSON).
    #[test]
    fn the_key_of_a_fixed_description_is_pinned() {
        let scenarios = [Scenario {
            name: "escenario-a".to_string(),
            title: "Ana".to_string(),
            description: String::new(),
            fleet: Fleet {
                orders: OrdersSpec::Listed(vec![Money::from_dollars(500)]),
                losses: LossSpec::Scripted(vec![Delivery::Lost, Delivery::Delivered]),
                max_attempts: 4,
                stream: StreamKind::Cpython,
                key_seed: 0,
            },
            show_key_per_attempt: false,
        }];
        let refusal = ["1:1: usa std::fs".to_string()];
        let unparsed = [("exercises/src/a.rs".to_string(), "1:2".to_string())];
        let inputs = VerdictInputs {
            judge: Judge {
                version: "0.1.0",
                build_inputs: "0123456789abcdef0123456789abcdef",
            },
            harness: [
                ("archivo exercises/src/client.rs".to_string(), 1),
                ("herramientas".to_string(), u64::MAX),
            ]
            .into(),
            options: Options {
                which: Implementation::Exercises,
                timeout: Duration::from_millis(5500),
                sandboxed: true,
            },
            scenarios: &scenarios,
            checks: vec![
                CheckInput {
                    id: "cobro/replay",
                    target: CheckTarget::Fixed("replay"),
                },
                CheckInput {
                    id: "cliente/escenario-a",
                    target: CheckTarget::Scenario(0),
                },
                CheckInput {
                    id: "cobro/modelo",
                    target: CheckTarget::Model(7),
                },
            ],
            review: ReviewInput {
                refused: [("cliente", refusal.as_slice())].into(),
                unparsed: &unparsed,
            },
            kit_env: [("KIT_SIN_POLITICA".to_string(), "1".to_string())].into(),
        };
        let expected = concat!(
            r#"{"judge":{"version":"0.1.0","build_inputs":"0123456789abcdef0123456789abcdef"},"#,
            r#""harness":{"archivo exercises/src/client.rs":1,"herramientas":18446744073709551615},"#,
            r#""options":{"which":"exercises","timeout":{"secs":5,"nanos":500000000},"sandboxed":true},"#,
            r#""scenarios":[{"name":"escenario-a","title":"Ana","description":"","#,
            r#""fleet":{"orders":{"listed":[50000]},"losses":{"scripted":["lost","delivered"]},"#,
            r#""max_attempts":4,"stream":"cpython","key_seed":0},"show_key_per_attempt":false}],"#,
            r#""checks":[{"id":"cobro/replay","target":{"fixed":"replay"}},"#,
            r#"{"id":"cliente/escenario-a","target":{"scenario":0}},"#,
            r#"{"id":"cobro/modelo","target":{"model":7}}],"#,
            r#""review":{"refused":{"cliente":["1:1: usa std::fs"]},"#,
            r#""unparsed":[["exercises/src/a.rs","1:2"]]},"#,
            r#""kit_env":{"KIT_SIN_POLITICA":"1"}}"#,
        );
        assert_eq!(
            String::from_utf8(inputs.canonical().unwrap()).unwrap(),
            expected
        );
        assert_eq!(
            inputs.key().unwrap().hex(),
            "d0608aacba52a5f6a2d2427dbe1ef4f3"
        );
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
                    exercise: judge::verdict::Exercise::ALL[0],
                    title: String::new(),
                    target: judge::checks::CheckTarget::Fixed("x"),
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
