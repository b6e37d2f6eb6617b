//! The grader's commands: grading (no subcommand), `vigilar`, `escenario`,
//! `comparar` and `barrido`. Each takes the parsed command line and returns the exit
//! status (0 passed, 1 failed, pending or not compiling, 2 bad arguments or
//! fixtures).

pub mod barrido;
pub mod comparar;
pub mod escenario;
pub mod grade;
pub mod vigilar;

use std::process::ExitCode;

use crate::cli::Cli;
use crate::fixture::FixtureError;
use crate::paths;
use crate::runner::build::{self, Implementation};
use crate::runner::diagnostics::Cause;
use crate::runner::process::{HarnessProcess, TimeLimits};
use crate::runner::sandbox::Sandbox;

/// The implementation the command line chooses.
///
/// # Errors
/// Exit status 2, explained, for `--solutions` in the student template.
pub fn implementation(cli: &Cli) -> Result<Implementation, ExitCode> {
    chosen(cli).map_err(|message| {
        eprintln!("grader: {message}");
        ExitCode::from(2)
    })
}

/// The implementation the command line chooses, without printing.
///
/// # Errors
/// Why `--solutions` cannot be graded in the student template.
pub fn chosen(cli: &Cli) -> Result<Implementation, String> {
    if !cli.solutions {
        return Ok(Implementation::Exercises);
    }
    if !paths::repo_root()
        .join("solutions")
        .join("Cargo.toml")
        .is_file()
    {
        return Err(
            "esta copia del kit no incluye solutions/ (es la plantilla del estudiante)."
                .to_string(),
        );
    }
    Ok(Implementation::Solutions)
}

/// Builds the harness of `which` and the executor that runs its jobs with
/// `cli`'s time limits (sandboxed when the judge runs as root).
///
/// # Errors
/// Why the harness could not be built (the compiler's first errors).
pub fn harness(cli: &Cli, which: Implementation) -> Result<HarnessProcess, Cause> {
    let built = build::harness(&paths::repo_root(), which)?;
    // A private copy, taken right after the build: another copy of the kit
    // built into the same target folder (several submissions graded with one
    // CARGO_TARGET_DIR) cannot swap the binary under this run.
    remove_stale_copies();
    let owned = std::env::temp_dir().join(format!("{COPY_PREFIX}{}", std::process::id()));
    let program = owned.join(which.binary());
    std::fs::create_dir_all(&owned)
        .and_then(|()| std::fs::copy(&built, &program))
        .map_err(|e| Cause::Other(format!("no se pudo copiar el harness compilado: {e}")))?;
    Ok(HarnessProcess {
        program,
        args: Vec::new(),
        limits: TimeLimits::new(cli.timeout),
        sandbox: Sandbox::detect(),
        owned: Some(owned),
    })
}

/// The private copies of the harness live in `$TMPDIR/kit-harness-bin-PID`.
const COPY_PREFIX: &str = "kit-harness-bin-";

/// Removes this judge's private copy of the harness, for a command that ends
/// while a grading may still run on another thread (`q` in `vigilar`): its
/// harness processes die with the judge (see `runner::sandbox::confine`),
/// its copy would stay.
pub fn discard_harness_copy() {
    let own = std::env::temp_dir().join(format!("{COPY_PREFIX}{}", std::process::id()));
    let _ = std::fs::remove_dir_all(own);
}

/// Removes the private copies left by judges that ended without cleaning up
/// (Ctrl-C, or `q` in `vigilar` while a grading ran): those whose process is
/// gone. Copies of other users stay where they cannot be removed.
fn remove_stale_copies() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(COPY_PREFIX))
            .and_then(|p| p.parse::<i32>().ok())
        else {
            continue;
        };
        let gone = nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None)
            == Err(nix::errno::Errno::ESRCH);
        if gone && pid > 0 {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Prints on stderr why the harness could not be built, for commands other
/// than grading, and gives exit status 1.
pub fn build_failure(cause: &Cause) -> ExitCode {
    match cause {
        Cause::Compile(errors) => {
            eprintln!(
                "grader: tu código no compila. Los primeros errores del compilador:\n\n{}",
                errors.join("\n\n")
            );
        }
        Cause::Other(log) => eprintln!("grader: no se pudo compilar el harness:\n{log}"),
    }
    ExitCode::from(1)
}

/// Prints a fixture error (paths relative to the repository) and gives 2.
pub fn fixture_failure(e: FixtureError) -> ExitCode {
    eprintln!("grader: {}", fixture_message(e));
    ExitCode::from(2)
}

/// A fixture error in one line, its path relative to the repository.
pub fn fixture_message(mut e: FixtureError) -> String {
    e.file = paths::display(&e.file).into();
    e.to_string()
}
