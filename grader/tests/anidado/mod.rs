//! What the slow tests' nested builds of the kit share: the student
//! template that the compile-error, template, source-policy and Classroom 50
//! suites build and grade ([`template`], one copy at one path with a target
//! folder of its own, so its judge is compiled once per change of the kit),
//! and the target folder of the other copies (`target/tmp/kit-anidado`,
//! [`target`]: Gradescope's layout, the harnesses of the policy's copies).
//!
//! Before the first nested build it is seeded with the registry crates that
//! the outer build already compiled (`target/debug/{deps,build,.fingerprint}`
//! entries whose crate is a registry package of `Cargo.lock`), so a copy only
//! compiles the kit's own crates instead of every dependency again. Cargo's
//! artifacts of registry crates do not depend on where the workspace lives;
//! nor do those of the kit's crates in [`LENT`], seeded too; the kit's
//! other crates are never copied, so a copy always builds its own.

// Each test target uses part of this module.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Once;

/// The repository's root.
pub fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// Copies the repository's files (tracked and new, not ignored) to `dest`,
/// each with its modification time (as `cp -a`): the copies share one target
/// folder, where a file newer than the last build makes cargo compile its
/// crate again (the judge, 13 s, in every copy). The judge's own guard
/// makes each copy's `exercises` its own (`runner::build`).
pub fn copy_repo(dest: &Path) {
    for rel in repo_files() {
        let from = repo().join(&rel);
        if !from.is_file() {
            continue;
        }
        let to = dest.join(&rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        copy_with_time(&from, &to);
    }
}

/// The repository's files, tracked and new (not ignored), relative to its
/// root.
fn repo_files() -> Vec<String> {
    let listed = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .current_dir(repo())
        .output()
        .expect("git runs");
    assert!(listed.status.success());
    listed
        .stdout
        .split(|b| *b == 0)
        .filter(|f| !f.is_empty())
        .map(|f| String::from_utf8(f.to_vec()).unwrap())
        .collect()
}

/// Copies the file `from` to `to` (written over) with its modification
/// time.
fn copy_with_time(from: &Path, to: &Path) {
    let _ = std::fs::remove_file(to);
    std::fs::copy(from, to).unwrap();
    let modified = std::fs::metadata(from).unwrap().modified().unwrap();
    std::fs::File::options()
        .write(true)
        .open(to)
        .unwrap()
        .set_modified(modified)
        .unwrap();
}

/// Makes the `exercises` crate under `root` depend on `solutions` (which a
/// submission may not do).
pub fn depend_on_solutions(root: &Path) {
    let manifest = root.join("exercises/Cargo.toml");
    let m = std::fs::read_to_string(&manifest).unwrap();
    assert!(m.contains("[dependencies]\n"), "{m}");
    std::fs::write(
        &manifest,
        m.replace(
            "[dependencies]\n",
            "[dependencies]\nsolutions = { path = \"../solutions\" }\n",
        ),
    )
    .unwrap();
}

/// The shared nested target folder, seeded on first use.
pub fn target() -> PathBuf {
    static SEED: Once = Once::new();
    let nested = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kit-anidado");
    SEED.call_once(|| seed_from_outer(&nested));
    nested
}

/// The kit's crates whose builds the outer target folder lends to the
/// nested ones: the judge's harnesses and the template's tests build them at
/// opt-level 3 (`protocol`) and 1 (`sim`), some 6 s of CPU each time, and
/// the judge (6 s), in each nested folder (issue 28). Their artifacts do not
/// depend on where the kit lives: none reads its own path at compile time
/// (the judge's built-in root comes from the grader's binaries,
/// `judge::paths::set_built_in_manifest_dir`), and cargo names their builds
/// by their paths inside the workspace. Not the harness, which links the
/// student's crate, nor the grader: lent, it was still built again in the
/// template (2026-12-07, cause not found).
/// A copy made with its files' times (`copy_repo`,
/// `scripts/plantilla-estudiante`) takes them as built; a copy whose source
/// is newer builds its own.
const LENT: [&str; 3] = ["sim", "protocol", "judge"];

/// Seeds the target folder `nested` with the registry crates of the outer
/// build (`target/debug`, those `Cargo.lock` names) and the kit's crates
/// of [`LENT`].
pub fn seed_from_outer(nested: &Path) {
    use grader::commands::curso::workspace;
    if let Some(outer) = Path::new(env!("CARGO_TARGET_TMPDIR")).parent() {
        let lock = std::fs::read_to_string(repo().join("Cargo.lock")).unwrap_or_default();
        let mut crates = workspace::registry_crates(&lock);
        crates.extend(LENT.map(String::from));
        workspace::seed_crates(&outer.join("debug"), &nested.join("debug"), &crates);
    }
}

/// The student template the slow suites share, held by one test at a time
/// (a lock on a file, across the suites' processes): `root` is
/// `scripts/plantilla-estudiante`'s output as it made it (whatever an
/// earlier test changed in it put back, what it added removed), and
/// `target` its own target folder, where only this copy builds (`target`
/// in the template is a link to it). The template is made again only when
/// a file of the repository changed since it was made (`sello`: every
/// file's path, contents and permissions, and `HEAD`, whose `exercises/`
/// it takes); it always lives at
/// the same path, so cargo finds its judge built, and no other copy's
/// judge is ever there (a copy elsewhere, its own built-in root).
pub struct Template {
    /// The template's root.
    pub root: PathBuf,
    /// Its target folder (`CARGO_TARGET_DIR`), seeded with the outer
    /// build's registry crates.
    pub target: PathBuf,
    /// A scratch folder of the holder's, emptied at each hold.
    pub scratch: PathBuf,
    /// Held until dropped.
    _lock: std::fs::File,
}

/// Takes the shared student template (waits while another test holds it).
pub fn template() -> Template {
    static SEED: Once = Once::new();
    let base = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kit-plantilla-compartida");
    std::fs::create_dir_all(&base).unwrap();
    // Open to all: as root, the services and harnesses that grade it run
    // as the sandbox's unprivileged users.
    #[cfg(unix)]
    std::fs::set_permissions(&base, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let lock = std::fs::File::create(base.join("candado")).unwrap();
    lock.lock().unwrap();
    let original = base.join("original");
    let root = base.join("kit");
    let target = base.join("target");
    let seal = stamp();
    let seal_file = base.join("sello");
    if std::fs::read_to_string(&seal_file).ok().as_deref() != Some(seal.as_str()) {
        let _ = std::fs::remove_file(&seal_file);
        let _ = std::fs::remove_dir_all(&original);
        let o = Command::new(repo().join("scripts/plantilla-estudiante"))
            .arg(&original)
            .output()
            .expect("plantilla-estudiante runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::write(&seal_file, &seal).unwrap();
    }
    mirror(&original, &root, true);
    link_target(&root.join("target"), &target);
    SEED.call_once(|| seed_from_outer(&target));
    let scratch = base.join("trabajo");
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    Template {
        root,
        target,
        scratch,
        _lock: lock,
    }
}

/// Makes `link` (the template's own `target`) a link to its target
/// folder `target`, whatever it was: cargo run in the template without
/// `CARGO_TARGET_DIR` (Classroom 50's runner, someone at a terminal)
/// builds there too, and a link left dangling or a folder of its own never
/// stays.
fn link_target(link: &Path, target: &Path) {
    std::fs::create_dir_all(target).unwrap();
    match std::fs::symlink_metadata(link) {
        Ok(m) if m.file_type().is_symlink() => {
            if std::fs::read_link(link).ok().as_deref() == Some(target) {
                return;
            }
            std::fs::remove_file(link).unwrap();
        }
        Ok(m) if m.is_dir() => std::fs::remove_dir_all(link).unwrap(),
        Ok(_) => std::fs::remove_file(link).unwrap(),
        Err(_) => {}
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink(target, link).unwrap();
}

/// What the template is made from: `HEAD` and every file `copy_repo`
/// copies, with a hash of its contents and its permissions (an edit that
/// keeps the file's size and time is a change too).
fn stamp() -> String {
    use std::hash::{Hash, Hasher};
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(repo())
        .output()
        .expect("git runs");
    assert!(head.status.success());
    let mut seal = String::from_utf8(head.stdout).unwrap();
    for rel in repo_files() {
        let path = repo().join(&rel);
        if let (Ok(m), Ok(bytes)) = (std::fs::metadata(&path), std::fs::read(&path)) {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            bytes.hash(&mut h);
            format!("{:?}", m.permissions()).hash(&mut h);
            seal.push_str(&format!("{rel} {:016x}\n", h.finish()));
        }
    }
    seal
}

/// Makes the folder `to` hold what `from` holds: a file missing or
/// different (in size, time, permissions or contents) is copied with its
/// time and permissions, each folder gets its permissions back, and what
/// `from` lacks is removed (at the top, `target` stays when `top`).
pub fn mirror(from: &Path, to: &Path, top: bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(to).unwrap().flatten() {
        let name = entry.file_name();
        if top && name == "target" {
            continue;
        }
        let there = from.join(&name);
        let kind = entry.file_type().unwrap();
        let keep = if kind.is_dir() {
            there.is_dir() && !there.is_symlink()
        } else {
            kind.is_file() && there.is_file() && !there.is_symlink()
        };
        if !keep {
            if kind.is_dir() {
                std::fs::remove_dir_all(entry.path()).unwrap();
            } else {
                std::fs::remove_file(entry.path()).unwrap();
            }
        }
    }
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type().unwrap().is_dir() {
            mirror(&src, &dst, false);
            continue;
        }
        let m = entry.metadata().unwrap();
        let same = std::fs::metadata(&dst).is_ok_and(|d| {
            d.len() == m.len()
                && d.modified().ok() == m.modified().ok()
                && d.permissions() == m.permissions()
        }) && std::fs::read(&src).ok() == std::fs::read(&dst).ok();
        if !same {
            copy_with_time(&src, &dst);
        }
    }
    std::fs::set_permissions(to, std::fs::metadata(from).unwrap().permissions()).unwrap();
}

/// A correct body for the stub `PaymentsServer::charge` (plain `HashMap`
/// store, as a student would write it), for the copies the slow tests solve.
#[allow(dead_code)]
pub const CHARGE_BODY: &str = r#"if self.idempotent
            && let Some(saved) = self.store.get(&key)
        {
            return *saved;
        }
        let charge_id = sim::ChargeId::next_after(self.ledger.len());
        self.ledger.push(LedgerEntry { key, order_id, amount, charge_id });
        let result = ChargeResult { charge_id, amount, status: sim::ChargeStatus::Captured };
        if self.idempotent {
            self.store.insert(key, result);
        }
        result"#;

/// The three solved files for `exercises/`: the stub server with
/// [`CHARGE_BODY`], the reference client, and the reference reconciliation
/// on `std`'s `HashMap` (the reference's uses crates the students' crate
/// does not depend on).
#[allow(dead_code)]
pub fn solved_files() -> [(&'static str, String); 3] {
    let read = |p: &str| std::fs::read_to_string(repo().join(p)).unwrap();
    let stub = read("exercises/src/payments_server.rs");
    let todo = "todo!(\"Ejercicio 1: el cobro idempotente\")";
    assert!(stub.contains(todo));
    let reconciliation = read("solutions/src/reconciliation.rs");
    let fx = "use rustc_hash::FxHashMap;";
    assert!(reconciliation.contains(fx));
    [
        ("payments_server.rs", stub.replace(todo, CHARGE_BODY)),
        ("client.rs", read("solutions/src/client.rs")),
        (
            "reconciliation.rs",
            reconciliation.replace(
                fx,
                "type FxHashMap<K, V> = std::collections::HashMap<K, V>;",
            ),
        ),
    ]
}
