//! The grader's commands: grading (no subcommand), `vigilar`, `escenario`,
//! `comparar` and `barrido`. Each takes the parsed command line and returns the exit
//! status (0 passed, 1 failed, pending or not compiling, 2 bad arguments or
//! fixtures). `vigilar`, `escenario` and `barrido` are behind the
//! `herramientas` feature; without it, [`tools`] runs them in a judge built
//! with it.

#[cfg(feature = "herramientas")]
pub mod barrido;
pub mod comparar;
pub mod curso;
#[cfg(feature = "herramientas")]
pub mod escenario;
pub mod grade;
pub mod horario;
pub mod servicio;
pub mod tools;
pub mod ver;
#[cfg(feature = "herramientas")]
pub mod vigilar;

use std::process::ExitCode;

use crate::cli::{self, Cli, Command};
use judge::fixture::FixtureError;
use judge::paths;
use judge::runner::build::{self, Flavor, Implementation};
use judge::runner::cleanup;
use judge::runner::diagnostics::Cause;
use judge::runner::explorer::Lazy;
use judge::runner::isolation::Isolation;
use judge::runner::process::{HarnessProcess, TimeLimits};
use judge::verdict::Exercise;

/// The judge's program (`grader`, and `grader-herramientas`, the same with
/// the student's tools): parses and checks the command line; in a judge
/// built without the tools, `vigilar`, `escenario` and `barrido` go to
/// [`tools::run_with_tools`] before anything is read or started (the seed
/// stays for the judge that runs them); otherwise takes the seed and runs
/// the command.
///
/// Exit status: 0 everything passed, 1 something failed, is pending or does
/// not compile, 2 bad arguments, fixtures or rubric.
pub fn main() -> ExitCode {
    let cli = match cli::parse_checked() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if let Some(tool) = tools::missing(&cli) {
        return tools::run_with_tools(tool);
    }
    let cli = match cli::take_seed(cli) {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // Nothing a grading started outlives the judge, however it ends.
    cleanup::on_signals();
    let code = run(cli);
    cleanup::unless_interrupted();
    cleanup::shutdown();
    code
}

/// Runs the command of `cli`.
fn run(cli: Cli) -> ExitCode {
    match &cli.command {
        None => grade::run(&cli),
        #[cfg(feature = "herramientas")]
        Some(Command::Vigilar) => vigilar::run(cli),
        #[cfg(feature = "herramientas")]
        Some(Command::Escenario { nombre }) => escenario::run(&cli, nombre.as_deref()),
        #[cfg(feature = "herramientas")]
        Some(Command::Barrido(args)) => barrido::run(&cli, args),
        // Never here without the tools (`main` sent them to a judge with
        // them); the same answer if it were.
        #[cfg(not(feature = "herramientas"))]
        Some(Command::Vigilar | Command::Escenario { .. } | Command::Barrido(_)) => {
            tools::missing(&cli).map_or(ExitCode::from(2), tools::run_with_tools)
        }
        Some(Command::Comparar(args)) => comparar::run(&cli, args),
        Some(Command::Ver(args)) => ver::run(&cli, args),
        Some(Command::RepetirHorario(args)) => horario::run(&cli, args),
        Some(Command::Curso(args)) => curso::run(&cli, args),
        Some(Command::Servicio(args)) => servicio::run(&cli, args),
        Some(Command::Superponer { entrega, kit }) => judge::intake::overlay_command(entrega, kit),
    }
}

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
    harness_without(cli, &paths::repo_root(), which, &[])
}

/// As [`harness`], for the copy of the kit at `root` (`curso` builds one
/// copy per submission), compiled without the files of the `refused`
/// exercises (each replaced by its [`judge::checks::Module::refused_stub`]):
/// nothing of refused code is compiled or run. With no refused exercise, the workspace at `root` is
/// built in place.
///
/// # Errors
/// As [`harness`].
pub fn harness_without(
    cli: &Cli,
    root: &std::path::Path,
    which: Implementation,
    refused: &[Exercise],
) -> Result<HarnessProcess, Cause> {
    let stubs: Vec<(String, String)> = refused
        .iter()
        .map(|e| {
            let stub = judge::checks::module(*e).refused_stub;
            (e.file().to_string(), stub.to_string())
        })
        .collect();
    // One build and its private copy at a time per target folder, across
    // processes too.
    let turn = build::turn(root);
    let mut plain = launch(cli, build_of(root, which, Flavor::Plain, &stubs, refused)?)?;
    drop(turn);
    // The schedules of an exercise with explored checks (exercise 4's):
    // built only if one of its checks asks for it, and never when that
    // exercise itself was refused.
    let graded: Vec<Exercise> = Exercise::ALL
        .into_iter()
        .filter(|e| !refused.contains(e))
        .collect();
    let explored = judge::checks::need_explorer(&graded);
    if explored {
        let (root, refused, timeout) = (root.to_path_buf(), refused.to_vec(), cli.timeout);
        plain.explorer = Some(Lazy::new(move || {
            let _turn = build::turn(&root);
            let built = build_of(&root, which, Flavor::Explorer, &stubs, &refused)?;
            launch_with(timeout, built)
        }));
    }
    Ok(plain)
}

/// The harness of `which` in `flavor`, built in place, or in a copy without
/// the refused files (`stubs`: each refused exercise's file and its stub).
fn build_of(
    root: &std::path::Path,
    which: Implementation,
    flavor: Flavor,
    stubs: &[(String, String)],
    refused: &[Exercise],
) -> Result<std::path::PathBuf, Cause> {
    if stubs.is_empty() {
        return match flavor {
            Flavor::Plain => build::harness(root, which),
            Flavor::Explorer => build::explorer(root, which),
        };
    }
    let stubs: Vec<(&str, &str)> = stubs
        .iter()
        .map(|(f, t)| (f.as_str(), t.as_str()))
        .collect();
    match flavor {
        Flavor::Plain => build::harness_without(root, which, &stubs),
        Flavor::Explorer => build::explorer_without(root, which, &stubs),
    }
    .map_err(|cause| without(cause, refused))
}

fn launch(cli: &Cli, built: std::path::PathBuf) -> Result<HarnessProcess, Cause> {
    launch_with(cli.timeout, built)
}

/// The executor of the harness cargo built at `built`, with `timeout` as
/// the least time a job gets.
fn launch_with(
    timeout: std::time::Duration,
    built: std::path::PathBuf,
) -> Result<HarnessProcess, Cause> {
    // A private copy, taken right after the build: another copy of the kit
    // built into the same target folder (several submissions graded with one
    // CARGO_TARGET_DIR) cannot swap the binary under this run.
    cleanup::remove_stale();
    let isolation = Isolation::detect().map_err(Cause::Other)?;
    // A fresh folder (0711: the sandbox's users may run what is in it, not
    // list or change it), never a path that might already exist.
    let owned = judge::runner::folders::new_folder(judge::runner::folders::COPY_PREFIX, 0o711)
        .map_err(|e| Cause::Other(format!("no se pudo crear la carpeta del harness: {e}")))?;
    let name = built
        .file_name()
        .map_or_else(|| "harness".into(), |n| n.to_os_string());
    let program = owned.join(name);
    // A hard link where the folder is on the same file system: cargo never
    // writes a built binary in place (the linker writes a new file, cargo
    // links it to the binary's name), so the link keeps what was built now
    // as a copy would, without copying megabytes on every run. Not on
    // Windows, which locks a running program's file (every link of it):
    // cargo could not replace what this run is running.
    let linked = !cfg!(windows) && std::fs::hard_link(&built, &program).is_ok();
    if !linked && let Err(e) = std::fs::copy(&built, &program) {
        judge::runner::folders::remove_folder(&owned);
        return Err(Cause::Other(format!(
            "no se pudo copiar el harness compilado: {e}"
        )));
    }
    Ok(HarnessProcess {
        program,
        args: Vec::new(),
        limits: TimeLimits::new(timeout),
        isolation,
        owned: Some(owned),
        pool: Default::default(),
        explorer: None,
    })
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

/// A build without the refused files that failed: the rest of the code
/// needs them. The first error says so before the compiler's.
fn without(cause: Cause, refused: &[Exercise]) -> Cause {
    let files: Vec<&str> = refused.iter().map(|e| e.file()).collect();
    let head = format!(
        "el juez compiló tus demás ejercicios sin {} (rechazado por la política de código) y el resto de tu código no compila sin él:",
        files.join(" ni ")
    );
    match cause {
        Cause::Compile(mut errors) => {
            let first = errors.first().cloned().unwrap_or_default();
            match errors.first_mut() {
                Some(e) => *e = format!("{head}\n{first}"),
                None => errors.push(head),
            }
            Cause::Compile(errors)
        }
        Cause::Other(log) => Cause::Other(format!("{head}\n{log}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_build_without_the_refused_files_says_why_before_the_compilers_error() {
        let cause = Cause::Compile(vec![
            "error[E0425]: cannot find function `helper` in module `client`\n --> exercises/src/reconciliation.rs:3:13".to_string(),
        ]);
        let Cause::Compile(errors) = without(cause, &[Exercise::Cliente]) else {
            panic!("a compile error stays one");
        };
        assert_eq!(
            errors,
            [
                "el juez compiló tus demás ejercicios sin exercises/src/client.rs (rechazado por la política de código) y el resto de tu código no compila sin él:\nerror[E0425]: cannot find function `helper` in module `client`\n --> exercises/src/reconciliation.rs:3:13"
            ]
        );
    }
}
