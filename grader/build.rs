//! Identifies this build of the judge by its sources: the hash of its build
//! inputs (`src/judge_sources.rs`) becomes `GRADER_BUILD_INPUTS` for the
//! compiler, read by the verdict cache's key (`src/verdict_cache.rs`). The
//! script runs again when one of those inputs changes.

#[path = "src/judge_sources.rs"]
mod judge_sources;
#[path = "../judge/src/stable_hash.rs"]
#[allow(dead_code)]
mod stable_hash;

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().unwrap_or(&manifest).to_path_buf();
    for rel in judge_sources::INPUTS {
        // Only those present: cargo runs a script whose listed path is
        // missing on every build.
        let path = root.join(rel);
        if path.exists() {
            println!("cargo::rerun-if-changed={}", path.display());
        }
    }
    println!(
        "cargo::rustc-env=GRADER_BUILD_INPUTS={:032x}",
        judge_sources::hash(&root)
    );
}
