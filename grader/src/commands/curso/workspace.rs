//! Where `curso` builds: the student template (`scripts/plantilla-estudiante`,
//! never the instructor's `solutions/`), one copy of it per job, and one
//! target folder that every copy builds into.
//!
//! Why one shared target folder is safe here: cargo's artifacts of a path
//! crate are named after its path relative to the workspace, so every copy's
//! `exercises` and harness land on the same files, and cargo decides freshness
//! by modification times. Graded in parallel with one `CARGO_TARGET_DIR`, a
//! copy could find another copy's harness fresh (its sources older than the
//! last build) or have the binary replaced between its build and its run
//! (4 of 20 students got another's grade). So the builds take turns (a lock
//! held from writing the student's files, with the current time, until the
//! private copy of the built harness is taken) and only the checks run in
//! parallel. Cargo itself serialises builds in one target folder, so the
//! turns cost nothing.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder `curso` works in: `target/curso` of the kit (git ignores it).
pub fn work_root(repo: &Path) -> PathBuf {
    repo.join("target").join("curso")
}

/// Generates the student template in `dest` with the kit's own
/// `scripts/plantilla-estudiante`.
///
/// # Errors
/// A Spanish line: the script is missing (this copy is already a template)
/// or failed (its last lines).
pub fn template(repo: &Path, dest: &Path) -> Result<(), String> {
    let script = repo.join("scripts").join("plantilla-estudiante");
    if !script.is_file() {
        return Err(format!(
            "{}: no existe; `curso` corre en el repositorio del instructor (la plantilla del estudiante no lo trae)",
            script.display()
        ));
    }
    let out = Command::new(&script)
        .arg(dest)
        .current_dir(repo)
        .output()
        .map_err(|e| format!("{}: no se pudo ejecutar ({e})", script.display()))?;
    if !out.status.success() {
        return Err(format!(
            "{} falló: {}",
            script.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(())
}

/// Copies the folder `from` to `to` keeping modification times (`cp -a`):
/// the copy's kit crates stay fresh in the shared target folder.
///
/// # Errors
/// cp's message.
pub fn copy_tree(from: &Path, to: &Path) -> Result<(), String> {
    cp("-a", from, to).map_err(|e| {
        format!(
            "no se pudo copiar {} a {}: {e}",
            from.display(),
            to.display()
        )
    })
}

/// Puts the template's stubs back into the copy at `kit` (a new file each,
/// with the current time), so nothing of the previous submission graded in
/// this copy survives.
///
/// # Errors
/// As [`copy_tree`].
pub fn reset_exercises(template: &Path, kit: &Path) -> Result<(), String> {
    let src = kit.join("exercises").join("src");
    let _ = std::fs::remove_dir_all(&src);
    cp("-r", &template.join("exercises").join("src"), &src).map_err(|e| {
        format!(
            "no se pudieron restaurar los stubs en {}: {e}",
            src.display()
        )
    })
}

/// `cp MODE from to`; cp's own message when it fails.
fn cp(mode: &str, from: &Path, to: &Path) -> Result<(), String> {
    let out = Command::new("cp")
        .arg(mode)
        .arg(from)
        .arg(to)
        .output()
        .map_err(|e| format!("no se pudo ejecutar cp: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).trim().to_string())
    }
}

/// The `debug` (or `release`) folder the running judge was built in, if it
/// runs from a cargo target folder.
pub fn own_profile_dir() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let mut dir = exe.parent()?.to_path_buf();
    if dir.file_name().is_some_and(|n| n == "deps") {
        dir = dir.parent()?.to_path_buf();
    }
    dir.join(".fingerprint").is_dir().then_some(dir)
}

/// Registry package names of the workspace's `Cargo.lock` text, with `-`
/// as `_`.
pub fn registry_crates(lock: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut name = None;
    for line in lock.lines() {
        if let Some(n) = line.strip_prefix("name = ") {
            name = Some(n.trim_matches('"').replace('-', "_"));
        } else if line.starts_with("source = \"registry+")
            && let Some(n) = name.take()
        {
            names.insert(n);
        }
    }
    names
}

/// Whether artifact `file` (`libserde-1a2b.rlib`, `serde-1a2b.d`,
/// `serde-1a2b/`) belongs to one of `crates` (names with `_`).
fn is_artifact_of(file: &str, crates: &BTreeSet<String>) -> bool {
    let stem = file.split('.').next().unwrap_or(file);
    let Some((krate, _hash)) = stem.rsplit_once('-') else {
        return false;
    };
    let krate = krate.replace('-', "_");
    crates.contains(&krate)
        || krate
            .strip_prefix("lib")
            .is_some_and(|k| crates.contains(k))
}

/// Seeds the profile folder `nested` (`…/debug`) of a new target folder with
/// the registry crates `outer` already compiled (its `deps`, `build` and
/// `.fingerprint` entries whose crate is a registry package of the lock file
/// `lock`), so copies of the kit only compile the kit's own crates. Cargo's
/// artifacts of registry crates do not depend on where the workspace lives;
/// the kit's own crates are never copied. Files are hard-linked when they
/// can be in `deps` (the compiler's outputs of a fresh crate are written
/// beside and renamed into place), except the dep-info files (`*.d`, which
/// rustc rewrites in place), else copied (cargo rewrites fingerprints and
/// build-script outputs in place) with the outer file's modification
/// time: cargo takes
/// a crate whose dependency's fingerprint or build-script output is newer
/// than its own outputs for stale, so a copy dated now rebuilt every crate
/// with a build script and all that depend on them (syn, serde_derive,
/// serde_json, nix, rustix, proptest…: 40 s of CPU in each nested build of
/// the kit's slow tests, issue 28). Entries already there are kept, and no
/// file is ever written over: see [`link_or_copy`].
pub fn seed(outer: &Path, nested: &Path, lock: &str) {
    seed_crates(outer, nested, &registry_crates(lock));
}

/// As [`seed`], with the entries of `crates` (names with `_`, as
/// [`registry_crates`] gives them). For the crates whose artifacts do not
/// depend on where the workspace lives: the registry's, and (the kit's own
/// tests, which copy the kit with its files' times) the kit's crates that
/// read nothing of their own path at compile time (the tests' `LENT`
/// list). Cargo still builds a crate again when a source of the copy is
/// newer than the seeded build.
pub fn seed_crates(outer: &Path, nested: &Path, crates: &BTreeSet<String>) {
    for sub in ["deps", "build", ".fingerprint"] {
        let (from, to) = (outer.join(sub), nested.join(sub));
        let Ok(entries) = std::fs::read_dir(&from) else {
            continue;
        };
        let _ = std::fs::create_dir_all(&to);
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_artifact_of(&name, crates) && !to.join(&name).exists() {
                let link = sub == "deps" && !name.ends_with(".d");
                link_or_copy(&entry.path(), &to.join(&name), link);
            }
        }
    }
}

/// Puts `from` (a file or a folder, recursively) at `to`, hard-linked when
/// `link` and possible, else copied, never writing over a file that is
/// already at `to`. That file may be `from` itself, linked there a moment
/// earlier by another judge seeding the same folder: copying over it
/// truncated the outer target folder's `librand-….rlib` to nothing, and
/// every build of the kit then failed with `can't find crate for rand`
/// (CI, two `curso` runs at once). A copy is written beside `to`, given
/// `from`'s modification time when it can be (else cargo builds again what
/// is built on it: slower, still right), and linked into place, which
/// fails, leaving `to` as it is, when `to` exists.
fn link_or_copy(from: &Path, to: &Path, link: bool) {
    if from.is_dir() {
        let _ = std::fs::create_dir_all(to);
        for entry in std::fs::read_dir(from).into_iter().flatten().flatten() {
            link_or_copy(&entry.path(), &to.join(entry.file_name()), link);
        }
        return;
    }
    if link {
        match std::fs::hard_link(from, to) {
            Ok(()) => return,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => return,
            Err(_) => {}
        }
    }
    static COPIES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = COPIES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let Some(name) = to.file_name() else {
        return;
    };
    let beside = to.with_file_name(format!(
        ".{}.siembra-{}-{n}",
        name.to_string_lossy(),
        std::process::id()
    ));
    if std::fs::copy(from, &beside).is_ok() {
        same_time(from, &beside);
        let _ = std::fs::hard_link(&beside, to);
    }
    let _ = std::fs::remove_file(&beside);
}

/// Gives the copy `to` the modification time of `from` (see [`seed`]), if
/// it can: opened for writing, or (a read-only copy, as `fs::copy` keeps
/// the mode; its owner may still set its times on unix) for reading.
fn same_time(from: &Path, to: &Path) {
    let Ok(modified) = std::fs::metadata(from).and_then(|m| m.modified()) else {
        return;
    };
    let set =
        |file: std::io::Result<std::fs::File>| file.and_then(|f| f.set_modified(modified)).is_ok();
    let _ = set(std::fs::File::options().write(true).open(to)) || set(std::fs::File::open(to));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The race CI met: a second seeding finds the first one's hard link
    /// already in place. The outer file keeps its bytes, and so does a
    /// copied file that is already there.
    #[test]
    fn seeding_over_a_file_already_there_leaves_both_files_as_they_were() {
        let dir = tempfile::tempdir().unwrap();
        let (outer, nested) = (dir.path().join("outer"), dir.path().join("nested"));
        for sub in ["deps", ".fingerprint/rand-1a2b"] {
            std::fs::create_dir_all(outer.join(sub)).unwrap();
        }
        let rlib = outer.join("deps/librand-1a2b.rlib");
        std::fs::write(&rlib, b"rlib bytes").unwrap();
        std::fs::write(outer.join(".fingerprint/rand-1a2b/lib-rand"), b"new").unwrap();
        std::fs::create_dir_all(nested.join("deps")).unwrap();
        std::fs::hard_link(&rlib, nested.join("deps/librand-1a2b.rlib")).unwrap();
        link_or_copy(&rlib, &nested.join("deps/librand-1a2b.rlib"), true);
        link_or_copy(&rlib, &nested.join("deps/librand-1a2b.rlib"), false);
        assert_eq!(std::fs::read(&rlib).unwrap(), b"rlib bytes");
        std::fs::create_dir_all(nested.join(".fingerprint/rand-1a2b")).unwrap();
        std::fs::write(nested.join(".fingerprint/rand-1a2b/lib-rand"), b"cargo's").unwrap();
        link_or_copy(
            &outer.join(".fingerprint/rand-1a2b"),
            &nested.join(".fingerprint/rand-1a2b"),
            false,
        );
        assert_eq!(
            std::fs::read(nested.join(".fingerprint/rand-1a2b/lib-rand")).unwrap(),
            b"cargo's"
        );
        let left: Vec<_> = std::fs::read_dir(nested.join(".fingerprint/rand-1a2b"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, ["lib-rand"], "no copy left beside it");
    }

    /// An outer profile folder whose `deps` holds `files` (each file's
    /// text is its name), and the path of a nested one beside it.
    fn outer_with(files: &[&str]) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let (outer, nested) = (dir.path().join("outer"), dir.path().join("nested"));
        std::fs::create_dir_all(outer.join("deps")).unwrap();
        for f in files {
            std::fs::write(outer.join("deps").join(f), f).unwrap();
        }
        (dir, outer, nested)
    }

    /// The names in `dir`, sorted.
    fn names_in(dir: &Path) -> Vec<String> {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// A seeding copies the registry crates' entries and nothing of the
    /// kit's own crates.
    #[test]
    fn a_seeding_takes_the_registry_crates_only() {
        let (_dir, outer, nested) =
            outer_with(&["librand-1a2b.rlib", "rand-1a2b.d", "libsim-3c4d.rlib"]);
        let lock = "[[package]]\nname = \"rand\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n[[package]]\nname = \"sim\"\n";
        seed(&outer, &nested, lock);
        assert_eq!(
            names_in(&nested.join("deps")),
            ["librand-1a2b.rlib", "rand-1a2b.d"]
        );
        assert_eq!(
            std::fs::read_to_string(nested.join("deps/rand-1a2b.d")).unwrap(),
            "rand-1a2b.d"
        );
    }

    /// Seeding named crates takes exactly theirs: the kit's `sim` and not
    /// `simulacion` (another crate whose name starts the same), nor a
    /// registry crate.
    #[test]
    fn seeding_named_crates_takes_theirs_only() {
        let (_dir, outer, nested) = outer_with(&[
            "librand-1a2b.rlib",
            "libsim-3c4d.rlib",
            "sim-3c4d.d",
            "libsimulacion-5e6f.rlib",
        ]);
        std::fs::create_dir_all(outer.join(".fingerprint/sim-3c4d")).unwrap();
        seed_crates(&outer, &nested, &BTreeSet::from(["sim".to_string()]));
        assert_eq!(
            names_in(&nested.join("deps")),
            ["libsim-3c4d.rlib", "sim-3c4d.d"]
        );
        assert!(nested.join(".fingerprint/sim-3c4d").is_dir());
    }

    /// Dates `file` to a moment long past (2023-11-14), which it returns.
    fn dated(file: &Path) -> std::time::SystemTime {
        let then =
            std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000);
        std::fs::File::options()
            .write(true)
            .open(file)
            .unwrap()
            .set_modified(then)
            .unwrap();
        then
    }

    /// A copied entry (a fingerprint, a build script's output) keeps the
    /// outer file's modification time: a copy dated now is newer than the
    /// crates built on it, and cargo built them again.
    #[test]
    fn a_seeded_copy_keeps_the_outer_files_modification_time() {
        let dir = tempfile::tempdir().unwrap();
        let (outer, nested) = (dir.path().join("outer"), dir.path().join("nested"));
        let fingerprint = outer.join(".fingerprint/rand-1a2b");
        std::fs::create_dir_all(&fingerprint).unwrap();
        let file = fingerprint.join("lib-rand");
        std::fs::write(&file, b"hash").unwrap();
        let then = dated(&file);
        let lock = "[[package]]\nname = \"rand\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        seed(&outer, &nested, lock);
        let copy = nested.join(".fingerprint/rand-1a2b/lib-rand");
        assert_eq!(std::fs::read(&copy).unwrap(), b"hash");
        assert_eq!(std::fs::metadata(&copy).unwrap().modified().unwrap(), then);
    }

    /// A read-only file (a build script's output keeps its mode) is copied
    /// with its time too, and a dep-info file (`*.d`, which rustc rewrites
    /// in place) is a copy, never a link to the outer one.
    #[cfg(unix)]
    #[test]
    fn a_read_only_output_keeps_its_time_and_dep_info_is_never_shared() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let (outer, nested) = (dir.path().join("outer"), dir.path().join("nested"));
        let out = outer.join("build/libc-1a2b");
        std::fs::create_dir_all(&out).unwrap();
        std::fs::create_dir_all(outer.join("deps")).unwrap();
        let output = out.join("output");
        let dep_info = outer.join("deps/libc-1a2b.d");
        let mut then = std::time::SystemTime::UNIX_EPOCH;
        for file in [&output, &dep_info] {
            std::fs::write(file, b"cargo:rustc-cfg=x").unwrap();
            then = dated(file);
        }
        std::fs::set_permissions(&output, std::fs::Permissions::from_mode(0o444)).unwrap();
        let lock = "[[package]]\nname = \"libc\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n";
        seed(&outer, &nested, lock);
        let copy = nested.join("build/libc-1a2b/output");
        assert_eq!(std::fs::read(&copy).unwrap(), b"cargo:rustc-cfg=x");
        assert_eq!(std::fs::metadata(&copy).unwrap().modified().unwrap(), then);
        let dep_copy = nested.join("deps/libc-1a2b.d");
        assert_eq!(
            std::fs::metadata(&dep_copy).unwrap().modified().unwrap(),
            then
        );
        assert_ne!(
            std::fs::metadata(&dep_copy).unwrap().ino(),
            std::fs::metadata(&dep_info).unwrap().ino()
        );
    }
}
