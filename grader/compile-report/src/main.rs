//! `compile-report`: the report of a submission the grader cannot even be
//! built with (a syntax error in `exercises/`, a broken manifest).
//!
//! `scripts/calificar` runs it when `cargo build -p grader` fails, with the
//! same options it was given for the grader (`--format`, `--output`,
//! `--ejercicio`, `--rubrica`, `--variantes`, `--fixtures`…) plus the build's
//! JSON messages (`--diagnosticos`) and standard error (`--registro`). It
//! writes the report in the chosen format: score 0, every exercise failed,
//! the first compiler errors (paths relative to the repository) as the
//! explanation. It does not link `exercises`, so it always builds.
//!
//! Exit status: 1 (the submission fails), or 2 for bad arguments or rubric.

mod diagnostics;
mod render;
#[allow(dead_code)]
#[path = "../../src/rubric.rs"]
mod rubric;
#[allow(dead_code)]
#[path = "../../src/verdict.rs"]
mod verdict;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};

use render::Failure;
use rubric::{Points, Rubric};
use verdict::Exercise;

/// The report formats, as the grader names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Format {
    Text,
    Gradescope,
    Junit,
}

/// Informe de una entrega que no compila (lo usa scripts/calificar).
#[derive(Parser, Debug)]
#[command(name = "compile-report", disable_version_flag = true)]
struct Args {
    /// Formato: text, gradescope o junit (alias: --formato).
    #[arg(long = "format", alias = "formato", value_enum, default_value = "text")]
    format: Format,
    /// Archivo del informe; por omisión la salida estándar (alias: --salida).
    #[arg(long = "output", alias = "salida")]
    output: Option<PathBuf>,
    /// Solo estos ejercicios (cobro, cliente, reconciliacion).
    #[arg(long = "ejercicio", alias = "exercise", value_parser = ["cobro", "cliente", "reconciliacion"])]
    exercises: Vec<String>,
    /// La rúbrica; por omisión grader/rubrica.toml (alias: --rubric).
    #[arg(long = "rubrica", alias = "rubric")]
    rubric: Option<PathBuf>,
    /// Variantes ocultas que se habrían calificado (alias: --variants).
    #[arg(long = "variantes", alias = "variants")]
    variants: Option<u32>,
    /// Variantes sueltas que se habrían calificado (alias: --variant).
    #[arg(long = "variante", alias = "variant")]
    variant: Vec<u32>,
    /// Carpetas de fixtures extra (alias: --carpeta-fixtures).
    #[arg(long = "fixtures", alias = "carpeta-fixtures")]
    fixtures: Vec<PathBuf>,
    /// Aceptada por compatibilidad con el grader; no cambia el informe.
    #[arg(long = "semilla", alias = "seed", hide = true)]
    seed: Option<String>,
    /// Aceptada por compatibilidad con el grader; no cambia el informe.
    #[arg(long = "timeout", alias = "limite", hide = true)]
    timeout: Option<String>,
    /// Aceptada por compatibilidad con el grader; no cambia el informe.
    #[arg(long = "solutions", alias = "soluciones", hide = true)]
    solutions: bool,
    /// Los mensajes JSON de `cargo build --message-format=json`.
    #[arg(long = "diagnosticos")]
    diagnostics: Option<PathBuf>,
    /// La salida de error de cargo.
    #[arg(long = "registro")]
    log: Option<PathBuf>,
    /// La raíz del repositorio, que se quita de las rutas; por omisión la
    /// carpeta actual.
    #[arg(long = "raiz")]
    root: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) if e.kind() == clap::error::ErrorKind::DisplayHelp => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let first = e.to_string();
            let first = first
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ");
            eprintln!("compile-report: argumentos inválidos: {first}");
            return ExitCode::from(2);
        }
    };
    let rubric = match &args.rubric {
        Some(p) => Rubric::load(p, &p.display().to_string()),
        None => Rubric::kit(),
    };
    let rubric = match rubric {
        Ok(r) => r,
        Err(e) => {
            eprintln!("compile-report: {e}");
            return ExitCode::from(2);
        }
    };
    let read = |p: &Option<PathBuf>| {
        p.as_ref()
            .and_then(|p| std::fs::read_to_string(p).ok())
            .unwrap_or_default()
    };
    let root = args
        .root
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .map(|p| p.canonicalize().unwrap_or(p).display().to_string())
        .unwrap_or_default();
    let failure = Failure {
        cause: diagnostics::cause(&read(&args.diagnostics), &read(&args.log), &root),
        exercises: maxima(&args, &rubric),
        execution_time: std::env::var("KIT_TIEMPO_EJECUCION")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0),
    };
    let report = match args.format {
        Format::Text => render::text(&failure),
        Format::Gradescope => render::gradescope(&failure),
        Format::Junit => render::junit(&failure),
    };
    match &args.output {
        None => print!("{report}"),
        Some(path) => {
            if let Err(e) = std::fs::write(path, report) {
                eprintln!(
                    "compile-report: --output {}: no se pudo escribir el informe: {e}",
                    path.display()
                );
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::from(1)
}

/// The points each chosen exercise was worth in this run: its listed
/// checks, its variant pool when variants were asked for, and the unlisted
/// points of each extra fixture.
fn maxima(args: &Args, rubric: &Rubric) -> Vec<(Exercise, Points)> {
    let chosen: Vec<Exercise> = if args.exercises.is_empty() {
        Exercise::ALL.to_vec()
    } else {
        Exercise::ALL
            .into_iter()
            .filter(|e| args.exercises.iter().any(|x| x == e.id()))
            .collect()
    };
    let extra_fixtures = args
        .fixtures
        .iter()
        .filter_map(|d| std::fs::read_dir(d).ok())
        .flat_map(|entries| entries.filter_map(|e| e.ok()))
        .filter(|e| e.path().extension().is_some_and(|x| x == "toml"))
        .count() as u32;
    let with_variants = args.variants.is_some_and(|n| n > 0) || !args.variant.is_empty();
    chosen
        .into_iter()
        .map(|e| {
            let mut max = rubric.listed_total(e.id());
            if with_variants {
                max += rubric.variant_pool(e.id());
            }
            for _ in 0..extra_fixtures {
                max += rubric.unlisted.points;
            }
            (e, max)
        })
        .collect()
}
