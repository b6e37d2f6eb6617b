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

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use crate::cli::Cli;

/// `curso`'s arguments.
#[derive(Args, Debug, Clone)]
#[command(
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    override_usage = "cargo run -p grader --features curso -- curso ENTREGAS --salida SALIDA [OPCIONES]\n       cargo run -p grader --features curso -- curso --unir CARPETA... --salida SALIDA",
    next_help_heading = "Opciones"
)]
pub struct CursoArgs {
    /// La carpeta de las entregas: una carpeta o un .zip por estudiante (un
    /// repositorio, una carpeta exercises/ o archivos sueltos), la
    /// exportación de Gradescope (submission_ID/ y submission_metadata.yml)
    /// o los clones de `gh teacher download`.
    #[arg(
        value_name = "ENTREGAS",
        help_heading = "Argumentos",
        required_unless_present = "unir"
    )]
    pub entregas: Option<PathBuf>,

    /// Dónde escribir libro.csv, clase.md, clase.html y entregas/NOMBRE/
    /// (results.json, informe.txt, registro.json) (alias: --output).
    #[arg(
        long = "salida",
        alias = "output",
        value_name = "SALIDA",
        required = true
    )]
    pub salida: PathBuf,

    /// Cuántas entregas calificar a la vez; por omisión, los núcleos (alias:
    /// --jobs).
    #[arg(long = "trabajos", alias = "jobs", short = 'j', value_name = "J", value_parser = clap::value_parser!(u16).range(1..=64))]
    pub trabajos: Option<u16>,

    /// Califica solo la parte i de n (las entregas, ordenadas por nombre,
    /// repartidas de a una: la 1.ª a la parte 1, la 2.ª a la 2, …) (alias:
    /// --partition).
    #[arg(long = "particion", alias = "partition", value_name = "i/n", value_parser = discover::parse_partition, conflicts_with = "unir")]
    pub particion: Option<(usize, usize)>,

    /// Semilla de las variantes ocultas, un entero, como al calificar una
    /// entrega (alias: --seed); mejor --archivo-semilla o la variable
    /// KIT_SEMILLA_SECRETA, que no quedan en el historial.
    #[arg(long = "semilla", alias = "seed", value_name = "S", value_parser = crate::variants::parse_seed, help_heading = "Opciones para instructores")]
    pub semilla: Option<u64>,

    /// Une las SALIDA de las partes (--particion) en un solo libro.csv y
    /// clase.md, como si fuera una sola corrida (alias: --merge).
    #[arg(long = "unir", alias = "merge", value_name = "CARPETA", num_args = 1.., conflicts_with = "entregas")]
    pub unir: Vec<PathBuf>,
}

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
