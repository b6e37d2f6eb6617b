//! `cargo run -p grader`: the judge. It builds the harness of the student's
//! `exercises` (or `--solutions`), runs the checks' jobs in harness
//! processes and prints the Spanish report; `vigilar` grades again on every
//! save of the student's files; `escenario`, `comparar` and
//! `barrido` print the lesson's tables. It never links the code it grades.
//! Built without the student's tools (the `herramientas` feature),
//! `vigilar`, `escenario` and `barrido` run in `grader-herramientas`
//! ([`grader::commands::tools`]).
//!
//! Exit status: 0 everything passed, 1 something failed, is pending or does
//! not compile, 2 bad arguments, fixtures or rubric.

fn main() -> std::process::ExitCode {
    // The kit's root when no other names it (judge::paths::repo_root).
    judge::paths::set_built_in_manifest_dir(env!("CARGO_MANIFEST_DIR"));
    grader::commands::main()
}
