//! The judge builds the harness: `cargo build -p harness` with
//! `--message-format=json`, so that a submission that does not compile is
//! an ordinary result (the compiler's first errors) and the judge itself
//! never fails to build on student code.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::diagnostics::{self, Cause};
use super::fingerprint::{self, Fingerprint, Record, kept_env};
pub use super::implementation::Implementation;

/// Which harness of an implementation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// The harness of every job but exercise 4's schedules (`harness`,
    /// `harness-solutions`).
    Plain,
    /// The second harness, with `sim::sync` under the schedule explorer
    /// (`harness-explorador`, `harness-explorador-solutions`; lesson 4): built
    /// only when exercise 4's concurrent checks run, never with the judge
    /// (the judge's own `sim` stays without the explorer).
    Explorer,
}

/// One harness executable: an implementation and a flavor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Harness {
    which: Implementation,
    flavor: Flavor,
}

impl Harness {
    /// Its binary's name.
    fn binary(self) -> &'static str {
        match (self.flavor, self.which) {
            (Flavor::Plain, which) => which.binary(),
            (Flavor::Explorer, Implementation::Exercises) => "harness-explorador",
            (Flavor::Explorer, Implementation::Solutions) => "harness-explorador-solutions",
        }
    }
}

/// Builds the harness of `which` in the workspace at `root` and returns its
/// executable. When this copy of the kit built it last and nothing it is
/// built from changed since ([`fingerprint`]), cargo is not run at all.
///
/// # Errors
/// The compiler's first errors (paths relative to `root`) when the code does
/// not compile, or cargo's own words when it cannot build at all.
pub fn harness(root: &Path, which: Implementation) -> Result<PathBuf, Cause> {
    harness_at(root, plain(which), None)
}

/// As [`harness`], the explorer's harness of `which` ([`Flavor::Explorer`]):
/// in the same target folder, with its own binary and fingerprint, so it
/// neither invalidates nor rebuilds the plain harness.
///
/// # Errors
/// As [`harness`].
pub fn explorer(root: &Path, which: Implementation) -> Result<PathBuf, Cause> {
    harness_at(
        root,
        Harness {
            which,
            flavor: Flavor::Explorer,
        },
        None,
    )
}

/// The fingerprint of the inputs of the plain harness of `which` in the
/// kit at `root`, as [`harness`] computes it before deciding whether to
/// build (the verdict cache keys on it: [`crate::verdict_cache`]).
pub fn inputs(root: &Path, which: Implementation) -> Fingerprint {
    fingerprint_of(root, plain(which))
}

fn fingerprint_of(root: &Path, which: Harness) -> Fingerprint {
    Fingerprint::compute(
        root,
        which.which,
        &choices(which),
        &|name| std::env::var_os(name),
        Some(&profile_dir(root).join(format!("{}.d", which.binary()))),
    )
}

fn plain(which: Implementation) -> Harness {
    Harness {
        which,
        flavor: Flavor::Plain,
    }
}

/// As [`harness`], with some of the student's files replaced: the workspace
/// at `root` is copied (without `target/` and `.git/`) to a temporary
/// folder, each `(path relative to root, text)` of `replaced` is written
/// over the copy, and the copy is built into the judge's own target folder
/// (`CARGO_TARGET_DIR`, else the folder of the running judge), so only the
/// kit's crates compile again. The judge uses it to compile the exercises
/// the source policy did not refuse without the refused files
/// ([`crate::policy::stub`]); the copy is removed after the build.
///
/// # Errors
/// As [`harness`]; a copy that cannot be made is [`Cause::Other`].
pub fn harness_without(
    root: &Path,
    which: Implementation,
    replaced: &[(&str, &str)],
) -> Result<PathBuf, Cause> {
    build_without(root, plain(which), replaced)
}

/// As [`harness_without`], the explorer's harness ([`explorer`]).
///
/// # Errors
/// As [`harness_without`].
pub fn explorer_without(
    root: &Path,
    which: Implementation,
    replaced: &[(&str, &str)],
) -> Result<PathBuf, Cause> {
    let h = Harness {
        which,
        flavor: Flavor::Explorer,
    };
    build_without(root, h, replaced)
}

fn build_without(root: &Path, which: Harness, replaced: &[(&str, &str)]) -> Result<PathBuf, Cause> {
    let fail = |e: std::io::Error| {
        Cause::Other(format!(
            "no se pudo preparar la copia sin los archivos rechazados: {e}"
        ))
    };
    let target = match std::env::var_os("CARGO_TARGET_DIR") {
        Some(t) => PathBuf::from(t),
        None => std::env::current_exe()
            .map_err(fail)?
            .parent()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_else(|| root.join("target")),
    };
    let copy = tempfile::Builder::new()
        .prefix("kit-sin-rechazados-")
        .tempdir()
        .map_err(fail)?;
    copy_tree(root, copy.path(), &target).map_err(fail)?;
    for (file, text) in replaced {
        std::fs::write(copy.path().join(file), text).map_err(fail)?;
    }
    harness_at(copy.path(), which, Some(&target))
}

/// Copies the files and folders under `from` to `to`, except `target/`,
/// `.git/`, the folder `skip` and symbolic links, each file with its
/// modification time. The copy's crates have the same artifacts' names in
/// the judge's target folder as the originals (cargo names a workspace
/// member's artifacts by its path relative to the workspace), and cargo
/// takes them as fresh while their sources are no newer: with new times
/// the copy compiled `sim` and `protocol` again over the judge's own, and
/// the next `cargo run -p grader` compiled the judge again (40 s).
fn copy_tree(from: &Path, to: &Path, skip: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let path = entry.path();
        let kind = entry.file_type()?;
        let name = entry.file_name();
        if name == "target" || name == ".git" || path == skip {
            continue;
        }
        if kind.is_dir() {
            copy_tree(&path, &to.join(&name), skip)?;
        } else if kind.is_file() {
            let copied = to.join(&name);
            std::fs::copy(&path, &copied)?;
            std::fs::File::open(&copied)?.set_modified(entry.metadata()?.modified()?)?;
        }
    }
    Ok(())
}

fn harness_at(root: &Path, which: Harness, target: Option<&Path>) -> Result<PathBuf, Cause> {
    if let Some(target) = target {
        // A copy (its replaced files new, the others with their times):
        // built once, without a fingerprint; only the crates of the
        // replaced files and those that depend on them compile, and the
        // next build in place must not take the copy's artifacts of those
        // for its own.
        let built = cargo_build(root, which, Some(target))?;
        if let Some(folder) = built.parent().and_then(Path::parent) {
            let _ = std::fs::write(marker(folder, which), A_COPY);
        }
        return Ok(built);
    }
    // The sandbox (two processes to start, as root) is made while the
    // fingerprint is computed.
    std::thread::spawn(|| {
        let _ = super::isolation::Isolation::detect();
    });
    let profile = profile_dir(root);
    let ours = root.to_string_lossy().into_owned();
    let last_copy = |target: &Path| std::fs::read_to_string(marker(target, which)).ok();
    let same_copy = profile
        .parent()
        .is_some_and(|t| last_copy(t).is_some_and(|last| last == ours));
    // Another copy built here last (not: nothing the judge built yet, as in
    // a fresh clone, where touching the sources would only make the kit's
    // own `cargo test` compile them again).
    let other_copy = |target: &Path| last_copy(target).is_some_and(|last| last != ours);
    let now = fingerprint_of(root, which);
    let last = Record::load(&fingerprint::record_path(&profile, root, which.binary()));
    if same_copy && let Some(last) = &last {
        if last.fingerprint == now {
            return Ok(last.executable.clone());
        }
        // A file whose contents changed while its time did not (restored
        // from an archive, two saves within the file system's clock tick)
        // looks fresh to cargo: give it the time of now.
        for file in now.changed_files(&last.fingerprint, root) {
            touch(&file);
        }
    }
    // The target folder remembers which copy of the kit built it last. When
    // another copy did (several submissions graded with one
    // CARGO_TARGET_DIR), cargo may take this copy's older sources for fresh
    // and reuse the other copy's code: the student's sources get the time
    // of now before the build (one build per submission; touching them
    // after a first build and building again cost curso two).
    let student_sources = root.join(which.which.crate_name()).join("src");
    if profile.parent().is_some_and(other_copy) {
        touch_sources(&student_sources);
    }
    let mut built = cargo_build(root, which, None)?;
    let Some(target) = built.parent().and_then(Path::parent).map(Path::to_path_buf) else {
        return Ok(built);
    };
    if last_copy(&target).is_none_or(|last| last != ours) {
        // Built somewhere else than `profile` said (a `target-dir` in
        // cargo's configuration), where another copy built last: the same
        // guard, after the fact.
        let predicted = profile.parent().and_then(|p| std::fs::canonicalize(p).ok());
        if std::fs::canonicalize(&target).ok() != predicted && other_copy(&target) {
            touch_sources(&student_sources);
            built = cargo_build(root, which, None)?;
        }
        let _ = std::fs::write(marker(&target, which), &ours);
    }
    if let Some(dir) = built.parent() {
        Record {
            fingerprint: now,
            executable: built.clone(),
        }
        .store(&fingerprint::record_path(dir, root, which.binary()));
    }
    Ok(built)
}

/// A turn in the target folder the harness of the kit at `root` is built
/// into, across processes: held from the build until the caller has taken
/// its private copy of what was built (dropping it ends the turn). Two
/// judges building into one `CARGO_TARGET_DIR` at once (two `curso` runs,
/// or a class and one submission graded alone with the same target) could
/// otherwise each find the other's code fresh or have the binary replaced
/// before copying it: students got other students' grades. `None` when the
/// lock file cannot be made (then cargo's own lock is all there is).
pub fn turn(root: &Path) -> Option<std::fs::File> {
    turn_in(profile_dir(root).parent()?)
}

/// As [`turn`], for the target folder `target` itself (`curso` seeds its
/// shared target folder in a turn: another judge may be building into it).
pub fn turn_in(target: &Path) -> Option<std::fs::File> {
    std::fs::create_dir_all(target).ok()?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(target.join("kit-turno.lock"))
        .ok()?;
    file.lock().ok()?;
    Some(file)
}

/// What the marker says after a copy with replaced files built
/// ([`harness_at`] with a target): never a kit's path, so the next build in
/// place touches its sources.
const A_COPY: &str = "(una copia del kit con archivos reemplazados)";

/// The file in `target` naming the copy of the kit that built `which` last.
fn marker(target: &Path, which: Harness) -> PathBuf {
    target.join(format!("kit-{}-ultima-copia", which.binary()))
}

/// Where cargo puts the harness: `CARGO_TARGET_DIR` (relative to `root`)
/// or `root/target`, then the judge's profile folder (where the build
/// records and the verdict cache of the kit at `root` live).
pub fn profile_dir(root: &Path) -> PathBuf {
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), |t| root.join(t));
    target.join(if cfg!(debug_assertions) {
        "debug"
    } else {
        "release"
    })
}

/// The build's own choices, an input of the fingerprint.
fn choices(which: Harness) -> String {
    format!(
        "{} debug_assertions={} junit={}",
        which.binary(),
        cfg!(debug_assertions),
        cfg!(feature = "junit")
    )
}

/// Sets the modification time of `file` to now.
fn touch(file: &Path) {
    if let Ok(f) = std::fs::OpenOptions::new().append(true).open(file) {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

/// Sets the modification time of every file under `dir` to now.
fn touch_sources(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            touch_sources(&path);
        } else {
            touch(&path);
        }
    }
}

/// One `cargo build` of the harness; its executable.
fn cargo_build(root: &Path, which: Harness, target: Option<&Path>) -> Result<PathBuf, Cause> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(build_args(which));
    cmd.current_dir(root).env_clear().stdin(Stdio::null());
    for name in kept_env() {
        if let Some(value) = std::env::var_os(name) {
            cmd.env(name, value);
        }
    }
    if let Some(target) = target {
        cmd.env("CARGO_TARGET_DIR", target);
    }
    let output = match cmd.output() {
        Ok(o) => o,
        Err(e) => return Err(Cause::Other(format!("no se pudo ejecutar cargo: {e}"))),
    };
    let json = String::from_utf8_lossy(&output.stdout);
    let log = String::from_utf8_lossy(&output.stderr);
    let root_text = root.to_string_lossy();
    if !output.status.success() {
        return Err(diagnostics::cause(&json, &log, &root_text));
    }
    executable(&json, which.binary()).ok_or_else(|| {
        Cause::Other(format!(
            "cargo compiló pero no informó el ejecutable {}",
            which.binary()
        ))
    })
}

/// cargo's arguments for the build of `which`.
fn build_args(which: Harness) -> Vec<String> {
    let mut args: Vec<String> = ["build", "--quiet", "--message-format=json", "-p", "harness"]
        .map(String::from)
        .to_vec();
    let features = match which.flavor {
        // The judge's package is selected but none of its targets (`--bin`
        // below names only the harness): cargo resolves the dependencies'
        // features as in `cargo run -p grader`, so the harness links the
        // registry crates already compiled for the judge and only the kit's
        // crates compile. Naming `--bin grader` too built the judge of the
        // workspace being built: in the copy without the refused files
        // (another path, another package), a second judge (40 s) that
        // replaced the running judge's binary with one whose built-in root
        // was the deleted copy.
        Flavor::Plain => {
            args.extend(["-p", "grader"].map(String::from));
            format!("harness/{}", which.which.feature())
        }
        // Without the judge: naming it would unify the explorer's `sim`
        // into the judge's and rebuild the judge (and its binary) with it.
        Flavor::Explorer => format!("harness/{},harness/explorar", which.which.feature()),
    };
    // The harness in the judge's own profile: `--release` for benchmarks.
    if cfg!(not(debug_assertions)) {
        args.push("--release".to_string());
    }
    args.extend(
        [
            "--bin",
            which.binary(),
            "--no-default-features",
            "--features",
        ]
        .map(String::from),
    );
    args.push(features);
    // ... and with the judge's own features (`--features junit`; not
    // `grader/junit`, which names the judge's dev-dependency on itself).
    if which.flavor == Flavor::Plain && cfg!(feature = "junit") {
        args.push("--features=junit".to_string());
    }
    args
}

/// The executable of binary `name` in cargo's JSON messages.
fn executable(json: &str, name: &str) -> Option<PathBuf> {
    json.lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A turn excludes another one on the same target folder, from another
    /// open file (another process, or another thread of `curso`), until it
    /// is dropped.
    #[test]
    fn a_turn_excludes_another_until_dropped() {
        let kit = tempfile::tempdir().unwrap();
        let held = turn(kit.path()).expect("the lock file is made");
        let path = profile_dir(kit.path())
            .parent()
            .unwrap()
            .join("kit-turno.lock");
        let other = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        assert!(matches!(
            other.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(held);
        assert!(other.try_lock().is_ok());
    }

    #[test]
    fn the_copy_keeps_times_and_leaves_out_build_folders_git_and_links() {
        let from = tempfile::tempdir().unwrap();
        let to = tempfile::tempdir().unwrap();
        let f = from.path();
        for dir in ["exercises/src", "target/debug", ".git", "otra/carpeta"] {
            std::fs::create_dir_all(f.join(dir)).unwrap();
        }
        std::fs::write(f.join("Cargo.toml"), "[workspace]").unwrap();
        std::fs::write(f.join("exercises/src/lib.rs"), "pub mod client;").unwrap();
        std::fs::write(f.join("target/debug/grader"), "bin").unwrap();
        std::fs::write(f.join(".git/HEAD"), "ref").unwrap();
        std::fs::write(f.join("otra/carpeta/x"), "x").unwrap();
        // (Windows makes a link only with a privilege.)
        #[cfg(unix)]
        std::os::unix::fs::symlink("/etc/shadow", f.join("exercises/src/s.rs")).unwrap();
        let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        let lib = std::fs::File::open(f.join("exercises/src/lib.rs")).unwrap();
        lib.set_modified(old).unwrap();
        copy_tree(f, to.path(), &f.join("otra/carpeta")).unwrap();
        // With its time: cargo takes the copy's unchanged crates as fresh.
        let copied_lib = std::fs::metadata(to.path().join("exercises/src/lib.rs")).unwrap();
        assert_eq!(copied_lib.modified().unwrap(), old);
        let mut copied: Vec<PathBuf> = Vec::new();
        let mut stack = vec![to.path().to_path_buf()];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    copied.push(p.strip_prefix(to.path()).unwrap().to_path_buf());
                }
            }
        }
        copied.sort();
        let expected = ["Cargo.toml", "exercises/src/lib.rs"].map(PathBuf::from);
        assert_eq!(copied, expected);
    }

    /// The binaries a list of cargo arguments names (`--bin NAME`).
    fn binaries(args: &[String]) -> Vec<&str> {
        args.windows(2)
            .filter(|w| w[0] == "--bin")
            .map(|w| w[1].as_str())
            .collect()
    }

    #[test]
    fn the_explorers_build_has_its_own_binary_and_leaves_the_judge_out() {
        let explorer = build_args(Harness {
            which: Implementation::Exercises,
            flavor: Flavor::Explorer,
        });
        let plain = build_args(plain(Implementation::Exercises));
        assert!(
            explorer
                .windows(2)
                .any(|w| w == ["--bin", "harness-explorador"])
        );
        assert!(explorer.ends_with(&[
            "--features".to_string(),
            "harness/exercises,harness/explorar".to_string()
        ]));
        assert!(!explorer.iter().any(|a| a == "grader"), "{explorer:?}");
        // The judge's package takes part in resolving features, but the only
        // target built is the harness: never a second judge.
        assert!(plain.windows(2).any(|w| w == ["-p", "grader"]));
        assert_eq!(binaries(&plain), ["harness"], "{plain:?}");
        assert_eq!(binaries(&explorer), ["harness-explorador"], "{explorer:?}");
        assert!(!plain.iter().any(|a| a.contains("explorar")), "{plain:?}");
        let reference = Harness {
            which: Implementation::Solutions,
            flavor: Flavor::Explorer,
        };
        assert_eq!(reference.binary(), "harness-explorador-solutions");
    }

    #[test]
    fn the_executable_comes_from_cargos_messages() {
        let json = concat!(
            r#"{"reason":"compiler-artifact","target":{"name":"sim"},"executable":null}"#,
            "\n",
            r#"{"reason":"compiler-artifact","target":{"name":"harness"},"executable":"/t/debug/harness"}"#,
            "\n",
            r#"{"reason":"build-finished","success":true}"#
        );
        assert_eq!(
            executable(json, "harness"),
            Some(PathBuf::from("/t/debug/harness"))
        );
        assert_eq!(executable(json, "harness-solutions"), None);
    }
}
