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
        let modified = std::fs::metadata(&from).unwrap().modified().unwrap();
        std::fs::File::options()
            .write(true)
            .open(&to)
            .unwrap()
            .set_modified(modified)
            .unwrap();
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

fn seed(outer: &Path, nested: &Path) {
    let lock = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../Cargo.lock"))
        .unwrap_or_default();
    grader::commands::curso::workspace::seed(outer, nested, &lock);
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
