//! The target folder that the nested builds of the kit (copies of the
//! repository built by the slow tests) share: `target/tmp/kit-anidado`.
//!
//! Before the first nested build it is seeded with the registry crates that
//! the outer build already compiled (`target/debug/{deps,build,.fingerprint}`
//! entries whose crate is a registry package of `Cargo.lock`), so a copy only
//! compiles the kit's own crates instead of every dependency again. Cargo's
//! artifacts of registry crates do not depend on where the workspace lives;
//! the kit's own crates are never copied, so a copy always builds its own.

// Each test target uses part of this module.
#![allow(dead_code)]

use std::collections::BTreeSet;
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

/// Copies the repository's files (tracked and new, not ignored) to `dest`.
pub fn copy_repo(dest: &Path) {
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
    for file in listed.stdout.split(|b| *b == 0).filter(|f| !f.is_empty()) {
        let rel = Path::new(std::str::from_utf8(file).unwrap());
        let from = repo().join(rel);
        if !from.is_file() {
            continue;
        }
        let to = dest.join(rel);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(&from, &to).unwrap();
    }
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
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let nested = tmp.join("kit-anidado");
    SEED.call_once(|| {
        if let Some(outer) = tmp.parent() {
            seed(&outer.join("debug"), &nested.join("debug"));
        }
    });
    nested
}

/// Registry package names of the workspace's `Cargo.lock`, with `-` as `_`.
fn registry_crates() -> BTreeSet<String> {
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock");
    let text = std::fs::read_to_string(lock).unwrap_or_default();
    let mut names = BTreeSet::new();
    let mut name = None;
    for line in text.lines() {
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
/// `serde-1a2b/`) belongs to a registry crate.
fn is_registry_artifact(file: &str, registry: &BTreeSet<String>) -> bool {
    let stem = file.split('.').next().unwrap_or(file);
    let Some((krate, _hash)) = stem.rsplit_once('-') else {
        return false;
    };
    let krate = krate.replace('-', "_");
    registry.contains(&krate)
        || krate
            .strip_prefix("lib")
            .is_some_and(|k| registry.contains(k))
}

fn seed(outer: &Path, nested: &Path) {
    let registry = registry_crates();
    for sub in ["deps", "build", ".fingerprint"] {
        let (from, to) = (outer.join(sub), nested.join(sub));
        let Ok(entries) = std::fs::read_dir(&from) else {
            continue;
        };
        let _ = std::fs::create_dir_all(&to);
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if is_registry_artifact(&name, &registry) && !to.join(&name).exists() {
                copy(&entry.path(), &to.join(&name));
            }
        }
    }
}

fn copy(from: &Path, to: &Path) {
    if from.is_dir() {
        let _ = std::fs::create_dir_all(to);
        for entry in std::fs::read_dir(from).into_iter().flatten().flatten() {
            copy(&entry.path(), &to.join(entry.file_name()));
        }
    } else {
        let _ = std::fs::copy(from, to);
    }
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
