//! Identifies this build of the judge by its sources: the hash of its build
//! inputs (`src/judge_sources.rs`) becomes `GRADER_BUILD_INPUTS` for the
//! compiler, read by the verdict cache's key (`src/verdict_cache.rs`). The
//! script runs again when one of those inputs changes.

#[path = "src/judge_sources.rs"]
#[allow(dead_code)] // `hash`: the judge's own, from its root at run time
mod judge_sources;
#[path = "../judge/src/stable_hash.rs"]
#[allow(dead_code)]
mod stable_hash;

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest.parent().unwrap_or(&manifest).to_path_buf();
    // Every file of the inputs, each relative to this package's root (cargo
    // joins it to the root of the copy being built): a copy of the kit
    // elsewhere, with the same files and dates, building into the same
    // target folder, finds the script fresh, as every other unit of the
    // judge (absolute paths, and folders, whose dates a copy does not keep,
    // made it run again, and the grader compile again, in each copy: issue
    // 28). A file added to a folder changes a listed one (its `mod`), or
    // nothing that is compiled.
    let files = judge_sources::files(&root);
    for (rel, _) in &files {
        println!("cargo::rerun-if-changed=../{rel}");
    }
    println!(
        "cargo::rustc-env=GRADER_BUILD_INPUTS={:032x}",
        judge_sources::hash_of(&files)
    );
}
