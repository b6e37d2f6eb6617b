//! `cargo run -p grader`: grades `exercises` (or `--solutions`) and prints
//! the Spanish report; `escenario` prints the lesson's tables.
//!
//! Exit status: 0 everything passed, 1 something failed or is pending, 2 bad
//! arguments or fixtures.

use std::process::ExitCode;

use grader::cli::{self, Cli, Command};
use grader::commands;
use sim::Kit;

fn main() -> ExitCode {
    let cli = match cli::parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    #[cfg(feature = "solutions")]
    if cli.solutions {
        return run::<solutions::Solutions>(&cli);
    }
    #[cfg(not(feature = "solutions"))]
    if cli.solutions {
        eprintln!(
            "grader: esta copia del kit no incluye solutions/ (es la plantilla del estudiante)."
        );
        return ExitCode::from(2);
    }
    run::<exercises::Exercises>(&cli)
}

/// Runs the chosen command with implementation `K`.
fn run<K: Kit>(cli: &Cli) -> ExitCode {
    match &cli.command {
        None => commands::grade::run::<K>(cli),
        Some(Command::Escenario { nombre }) => {
            commands::escenario::run::<K>(cli, nombre.as_deref())
        }
        Some(Command::Comparar(args)) => commands::comparar::run::<K>(cli, args),
        Some(Command::Barrido(args)) => commands::barrido::run::<K>(cli, args),
    }
}
