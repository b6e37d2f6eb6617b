//! `curso ENTREGAS --salida SALIDA` (alias `class`): grades a whole class.
//!
//! Every submission of `ENTREGAS` ([`discover`]) is graded from the student
//! template ([`workspace`]: never the instructor's `solutions/`), exactly as
//! it would score alone (the same checks, rubric and variants as a single
//! grading with the same options), `--trabajos J` at a time. What each one
//! scored stays in `SALIDA/entregas/NOMBRE/` ([`record`]) with its content
//! hash: a second run grades again only the submissions whose sources (or
//! the judge, its rubric or its options) changed. Then `SALIDA/libro.csv`
//! ([`gradebook`]) and `SALIDA/clase.md` + `clase.html` ([`class_report`]).
//! `--particion i/n` grades one share; `--unir CARPETA...` merges shares.

pub mod discover;
pub mod workspace;

#[cfg(feature = "curso")]
pub mod class_report;
#[cfg(feature = "curso")]
pub mod gradebook;
#[cfg(feature = "curso")]
pub mod record;
#[cfg(feature = "curso")]
mod run;

use std::process::ExitCode;

use crate::cli::{Cli, CursoArgs};

/// Runs `curso`. Exit 0 when the gradebook was written (whatever the
/// students scored), 2 for bad arguments, folders, fixtures or rubric.
pub fn run(cli: &Cli, args: &CursoArgs) -> ExitCode {
    #[cfg(feature = "curso")]
    {
        run::run(cli, args)
    }
    #[cfg(not(feature = "curso"))]
    {
        let _ = (cli, args);
        eprintln!(
            "grader: este juez se compiló sin `curso`, que es para los instructores; pídelo con `cargo run -p grader --features curso -- curso ENTREGAS --salida SALIDA`"
        );
        ExitCode::from(2)
    }
}
