//! Where the kit's files are, and how paths are shown.

use std::path::{Path, PathBuf};

/// The root chosen on the command line (`grader --raiz CARPETA`), if any.
static CHOSEN_ROOT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Makes `root` the repository root for the rest of the process: the
/// grader's `--raiz CARPETA` (a built judge grading another copy of the kit,
/// which then builds only that copy's harness, never a second judge). Set
/// once, before anything reads the root; a second call is ignored.
pub fn set_root(root: &Path) {
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let _ = CHOSEN_ROOT.set(root);
}

/// The manifest folder of the program that links the judge (the grader's
/// binaries: their `env!("CARGO_MANIFEST_DIR")`), set with
/// [`set_built_in_manifest_dir`].
static BUILT_IN_MANIFEST_DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// Records `dir`, the manifest folder the running program was built in
/// (`grader/`, whose parent is the kit's root): the root when neither
/// [`set_root`] nor cargo (`CARGO_MANIFEST_DIR` at run time) names one. The
/// grader's binaries call it first thing with their own
/// `env!("CARGO_MANIFEST_DIR")`, so that this library never reads its
/// own path at compile time: its build is then the same in every copy of
/// the kit, and the tests' nested copies borrow it from the outer target
/// folder instead of compiling it again (issue 28). A second call is
/// ignored.
pub fn set_built_in_manifest_dir(dir: &str) {
    let _ = BUILT_IN_MANIFEST_DIR.set(PathBuf::from(dir));
}

/// The repository root: the one chosen with [`set_root`] (`--raiz`), else
/// the workspace `cargo run` (or `cargo test`) ran the program from (its
/// `CARGO_MANIFEST_DIR` at run time), else the one the grader was built in
/// ([`set_built_in_manifest_dir`]), else the current folder. Two copies of
/// the kit built into one target folder share the grader's binary; each
/// must still grade its own files.
pub fn repo_root() -> PathBuf {
    if let Some(root) = CHOSEN_ROOT.get() {
        return root.clone();
    }
    let runtime = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from);
    let Some(manifest) = runtime.or_else(|| BUILT_IN_MANIFEST_DIR.get().cloned()) else {
        return std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    };
    let root = manifest.parent().unwrap_or(&manifest).to_path_buf();
    root.canonicalize().unwrap_or(root)
}

/// The kit's own fixtures folder, `fixtures/`.
pub fn fixtures_dir() -> PathBuf {
    repo_root().join("fixtures")
}

/// The snapshot of scenario `name`'s table: `fixtures/snapshots/NAME.snap`.
pub fn snapshot_path(name: &str) -> PathBuf {
    fixtures_dir()
        .join("snapshots")
        .join(format!("{name}.snap"))
}

/// `path` relative to the repository root when it is inside it, so reports
/// read the same on every machine (`/` between its parts, Windows too).
pub fn display(path: &Path) -> String {
    let root = repo_root();
    if let Ok(rel) = path.strip_prefix(&root) {
        return slashed(rel);
    }
    if let Ok(canon) = path.canonicalize()
        && let Ok(rel) = canon.strip_prefix(&root)
    {
        return slashed(rel);
    }
    path.display().to_string()
}

/// A relative path as text, its parts joined by `/` on every system.
pub fn slashed(rel: &Path) -> String {
    let text = rel.to_string_lossy();
    if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text.into_owned()
    }
}
