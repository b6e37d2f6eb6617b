//! `grader-herramientas`: the judge with the student's tools (`vigilar`,
//! `escenario`, `barrido`; the `herramientas` feature), the same program as
//! `grader` otherwise. `cargo run -p grader -- vigilar` runs it
//! ([`grader::commands::tools`]); a binary of its own, so that building it
//! never replaces the `grader` that is running (Windows locks a running
//! program's file).
//!
//! Exit status: as `grader`'s.

fn main() -> std::process::ExitCode {
    // The kit's root when no other names it (judge::paths::repo_root).
    judge::paths::set_built_in_manifest_dir(env!("CARGO_MANIFEST_DIR"));
    grader::commands::main()
}
