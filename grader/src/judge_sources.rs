//! What identifies a build of the judge (issue 26): a hash of its own build
//! inputs, the verdict cache's judge ([`crate::verdict_cache::Judge`]), in
//! place of its executable's path, size, time or inode. `grader/build.rs`
//! includes this file, hashes the sources the judge is being built from and
//! hands the hash to the compiler (`GRADER_BUILD_INPUTS`), so a running judge
//! knows the sources it was built from, not those on disk now.
//!
//! The inputs ([`INPUTS`], relative to the workspace root): the judge's
//! manifest, build script, rubric (`include_str!`) and `src/`; the same of
//! the workspace crates it links (`judge`, `sim`, `protocol`); the workspace's
//! `Cargo.toml` and `Cargo.lock` (the versions of every crate it links).
//! Not its tests, nor the crates it only builds and runs (`harness`, the
//! graded crate: the harness's fingerprint covers them), nor the toolchain
//! that compiles the judge (the same sources check alike with any release;
//! the harness's toolchain, which can change what the graded code does, is
//! in the harness's fingerprint).
//!
//! The hash is the 128-bit [`crate::stable_hash`] of each file's path,
//! relative and with `/`, and its contents, in path order: the same sources
//! give the same hash in any folder, on any machine and with any Rust
//! release. Only `std` and [`crate::stable_hash`] here: the build script
//! compiles both files on their own.

use std::path::{Path, PathBuf};

/// The judge's build inputs, relative to the workspace root: files, and
/// folders whose every file counts. Those missing are left out.
pub const INPUTS: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "grader/Cargo.toml",
    "grader/build.rs",
    "grader/rubrica.toml",
    "grader/src",
    "judge/Cargo.toml",
    "judge/build.rs",
    "judge/src",
    "sim/Cargo.toml",
    "sim/build.rs",
    "sim/src",
    "protocol/Cargo.toml",
    "protocol/build.rs",
    "protocol/src",
];

/// Every file of [`INPUTS`] in the workspace at `root`, as its path
/// relative to `root` (with `/`) and its path, in relative path order.
pub fn files(root: &Path) -> Vec<(String, PathBuf)> {
    let mut files = Vec::new();
    let mut pending: Vec<(String, PathBuf)> = INPUTS
        .iter()
        .map(|rel| ((*rel).to_string(), root.join(rel)))
        .collect();
    while let Some((rel, path)) = pending.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).into_iter().flatten().flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                pending.push((format!("{rel}/{name}"), entry.path()));
            }
        } else if path.is_file() {
            files.push((rel, path));
        }
    }
    files.sort();
    files
}

/// The hash of the judge's build inputs in the workspace at `root` (see the
/// module's documentation); a file that cannot be read counts as empty.
pub fn hash(root: &Path) -> u128 {
    hash_of(&files(root))
}

/// The hash of `files` as [`files`] lists them (relative path, path), in
/// that order; a file that cannot be read counts as empty.
pub fn hash_of(files: &[(String, PathBuf)]) -> u128 {
    let mut h = crate::stable_hash::StableHasher::default();
    for (rel, path) in files {
        h.part(rel.as_bytes())
            .part(&std::fs::read(path).unwrap_or_default());
    }
    h.finish128()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A workspace with the judge's inputs and some files that are not.
    fn workspace() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in [
            ("Cargo.toml", "[workspace]\n"),
            ("Cargo.lock", "version = 4\n"),
            ("grader/Cargo.toml", "[package]\nname = \"grader\"\n"),
            ("grader/src/lib.rs", "pub mod a;\n"),
            ("grader/src/a/mod.rs", "pub fn a() {}\n"),
            ("grader/tests/t.rs", "#[test]\nfn t() {}\n"),
            ("sim/src/lib.rs", "pub fn b() {}\n"),
            ("protocol/src/lib.rs", "\n"),
            ("exercises/src/client.rs", "pub fn charge() {}\n"),
        ] {
            write(dir.path(), rel, text);
        }
        dir
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn the_same_sources_in_another_folder_give_the_same_hash() {
        let (a, b) = (workspace(), workspace());
        assert_ne!(a.path(), b.path());
        assert_eq!(hash(a.path()), hash(b.path()));
        let names: Vec<String> = files(a.path()).into_iter().map(|(rel, _)| rel).collect();
        assert_eq!(
            names,
            [
                "Cargo.lock",
                "Cargo.toml",
                "grader/Cargo.toml",
                "grader/src/a/mod.rs",
                "grader/src/lib.rs",
                "protocol/src/lib.rs",
                "sim/src/lib.rs",
            ]
        );
    }

    #[test]
    fn every_input_counts_and_nothing_else() {
        let base = hash(workspace().path());
        for (rel, text) in [
            ("Cargo.lock", "version = 3\n"),
            ("Cargo.toml", "[workspace]\nmembers = []\n"),
            ("grader/src/a/mod.rs", "pub fn a() { }\n"),
            ("grader/src/b.rs", ""),
            ("grader/build.rs", "fn main() {}\n"),
            ("grader/rubrica.toml", ""),
            ("sim/src/lib.rs", "pub fn c() {}\n"),
            ("protocol/Cargo.toml", "[package]\n"),
        ] {
            let w = workspace();
            write(w.path(), rel, text);
            assert_ne!(hash(w.path()), base, "{rel}");
        }
        // A file renamed with the same contents.
        let w = workspace();
        std::fs::rename(
            w.path().join("grader/src/a/mod.rs"),
            w.path().join("grader/src/a/otro.rs"),
        )
        .unwrap();
        assert_ne!(hash(w.path()), base);
        for (rel, text) in [
            ("grader/tests/t.rs", "#[test]\nfn u() {}\n"),
            ("exercises/src/client.rs", "pub fn charge() { }\n"),
            ("harness/src/main.rs", "fn main() {}\n"),
            ("README.md", "# kit\n"),
        ] {
            let w = workspace();
            write(w.path(), rel, text);
            assert_eq!(hash(w.path()), base, "{rel}");
        }
    }

    /// The hash of a fixed workspace: a change of the hashing (its order,
    /// the lengths, the algorithm) would give the judge of the same sources
    /// another identity.
    #[test]
    fn the_hash_of_a_fixed_workspace_is_pinned() {
        assert_eq!(
            format!("{:032x}", hash(workspace().path())),
            "72779705c0c5913b654e52b75af8c52c"
        );
    }
}
