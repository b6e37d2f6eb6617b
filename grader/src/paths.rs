//! Where the kit's files are, and how paths are shown.

use std::path::{Path, PathBuf};

/// The repository root (the workspace the grader was built in).
pub fn repo_root() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let root = manifest.parent().unwrap_or(manifest);
    root.canonicalize().unwrap_or_else(|_| root.to_path_buf())
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
/// read the same on every machine.
pub fn display(path: &Path) -> String {
    let root = repo_root();
    if let Ok(rel) = path.strip_prefix(&root) {
        return rel.display().to_string();
    }
    if let Ok(canon) = path.canonicalize()
        && let Ok(rel) = canon.strip_prefix(&root)
    {
        return rel.display().to_string();
    }
    path.display().to_string()
}
