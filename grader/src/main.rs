//! `cargo run -p grader`: the judge. It builds the harness of the student's
//! `exercises` (or `--solutions`), runs the checks' jobs in harness
//! processes and prints the Spanish report; `vigilar` grades again on every
//! save of the student's files; `escenario`, `comparar` and
//! `barrido` print the lesson's tables. It never links the code it grades.
//!
//! Exit status: 0 everything passed, 1 something failed, is pending or does
//! not compile, 2 bad arguments, fixtures or rubric.

use std::process::ExitCode;

use grader::cli::{self, Command};
use grader::commands;
use judge::runner::cleanup;

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    // Nothing a grading started outlives the judge, however it ends.
    cleanup::on_signals();
    let code = match &cli.command {
        None => commands::grade::run(&cli),
        #[cfg(feature = "herramientas")]
        Some(Command::Vigilar) => commands::vigilar::run(cli),
        #[cfg(feature = "herramientas")]
        Some(Command::Escenario { nombre }) => commands::escenario::run(&cli, nombre.as_deref()),
        #[cfg(feature = "herramientas")]
        Some(Command::Barrido(args)) => commands::barrido::run(&cli, args),
        // In a judge built without the student's tools: the same command
        // in one built with them.
        #[cfg(not(feature = "herramientas"))]
        Some(Command::Vigilar) => commands::tools::run_with_tools("vigilar"),
        #[cfg(not(feature = "herramientas"))]
        Some(Command::Escenario { .. }) => commands::tools::run_with_tools("escenario"),
        #[cfg(not(feature = "herramientas"))]
        Some(Command::Barrido(_)) => commands::tools::run_with_tools("barrido"),
        Some(Command::Comparar(args)) => commands::comparar::run(&cli, args),
        Some(Command::Ver(args)) => commands::ver::run(&cli, args),
        Some(Command::RepetirHorario(args)) => commands::horario::run(&cli, args),
        Some(Command::Curso(args)) => commands::curso::run(&cli, args),
        Some(Command::Servicio(args)) => commands::servicio::run(&cli, args),
        Some(Command::Superponer { entrega, kit }) => judge::intake::overlay_command(entrega, kit),
    };
    cleanup::unless_interrupted();
    cleanup::shutdown();
    code
}
