//! `compile-report`: the report of a submission the grader cannot even be
//! built with (a syntax error in `exercises/`, a broken manifest), or whose
//! grader ended without handing in a report.
//!
//! `scripts/calificar` runs it when `cargo build -p grader` fails, with the
//! same options it was given for the grader (`--format`, `--output`,
//! `--ejercicio`, `--rubrica`, `--variantes`, `--fixtures`…) plus the build's
//! JSON messages (`--diagnosticos`) and standard error (`--registro`). It
//! writes the report in the chosen format: score 0, every exercise failed,
//! the first compiler errors (paths relative to the repository) as the
//! explanation. It does not link `exercises`, so it always builds.
//!
//! The Gradescope autograder (`autograder/gradescope/run_autograder`) also
//! runs it with `--estado N` when the grader ended with status N and no
//! usable report (killed, crashed), and with `--comprobar-gradescope ARCHIVO`
//! to ask whether the grader's report is a readable `results.json`.
//!
//! The grader's options are checked as the grader checks them: a bad one is
//! one Spanish line (`grader: …`) and exit status 2, as `cargo run -p grader`
//! would give once the code compiles.
//!
//! Exit status: 1 (the submission fails), or 2 for bad arguments or rubric;
//! with `--comprobar-gradescope`, 0 (readable) or 1 (not).

mod diagnostics;
/// The grader's command-line values and usage errors, shared as source.
#[allow(dead_code)]
#[path = "../../src/flags.rs"]
mod flags;
mod render;
mod results;
#[allow(dead_code)]
#[path = "../../src/rubric.rs"]
mod rubric;
#[allow(dead_code)]
#[path = "../../src/verdict.rs"]
mod verdict;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{ArgAction, Parser, ValueEnum};

use diagnostics::Cause;
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

/// Informe de una entrega que no compila (lo usa scripts/calificar) o cuyo
/// grader terminó sin informe (lo usa el autograder de Gradescope). Acepta
/// las opciones del grader y las comprueba igual que él.
#[derive(Parser, Debug)]
#[command(
    name = "compile-report",
    disable_help_flag = true,
    disable_version_flag = true,
    next_help_heading = "Opciones",
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    override_usage = "compile-report [OPCIONES]"
)]
struct Args {
    /// Formato: text, gradescope o junit (alias: --formato).
    #[arg(
        long = "format",
        alias = "formato",
        value_name = "FORMATO",
        value_enum,
        default_value = "text",
        hide_default_value = true,
        hide_possible_values = true
    )]
    format: Format,
    /// Archivo del informe; por omisión la salida estándar (alias: --salida).
    #[arg(long = "output", alias = "salida", value_name = "ARCHIVO")]
    output: Option<PathBuf>,
    /// Solo estos ejercicios: cobro, cliente o reconciliacion (alias:
    /// --exercise).
    #[arg(long = "ejercicio", alias = "exercise", value_name = "NOMBRE", value_parser = ["cobro", "cliente", "reconciliacion"], hide_possible_values = true)]
    exercises: Vec<String>,
    /// La rúbrica; por omisión grader/rubrica.toml (alias: --rubric).
    #[arg(long = "rubrica", alias = "rubric", value_name = "ARCHIVO")]
    rubric: Option<PathBuf>,
    /// Variantes ocultas que se habrían calificado, de 1 a 50; necesitan
    /// --semilla o KIT_SEMILLA_SECRETA (alias: --variants).
    #[arg(long = "variantes", alias = "variants", value_name = "N", value_parser = flags::parse_count)]
    variants: Option<u32>,
    /// Semilla de las variantes ocultas (alias: --seed).
    #[arg(long = "semilla", alias = "seed", value_name = "S", value_parser = flags::parse_seed)]
    seed: Option<u64>,
    /// Archivo con la semilla secreta (alias: --seed-file): como el grader,
    /// lo borra; el informe solo necesita saber que hay semilla.
    #[arg(
        long = "archivo-semilla",
        alias = "seed-file",
        value_name = "RUTA",
        conflicts_with = "seed",
        requires = "variants"
    )]
    seed_file: Option<PathBuf>,
    /// Variantes sueltas que se habrían calificado (alias: --variant).
    #[arg(long = "variante", alias = "variant", value_name = "SEMILLA", value_parser = flags::parse_variant_seed)]
    variant: Vec<u32>,
    /// Carpetas de fixtures extra (alias: --carpeta-fixtures).
    #[arg(long = "fixtures", alias = "carpeta-fixtures", value_name = "CARPETA")]
    fixtures: Vec<PathBuf>,
    /// Aceptada por compatibilidad con el grader; no cambia el informe.
    #[arg(long = "timeout", alias = "limite", value_name = "SEGUNDOS", allow_negative_numbers = true, value_parser = flags::parse_timeout, hide = true)]
    timeout: Option<Duration>,
    /// Aceptada por compatibilidad con el grader; no cambia el informe.
    #[arg(long = "solutions", alias = "soluciones", hide = true)]
    solutions: bool,
    /// Los mensajes JSON de `cargo build --message-format=json`.
    #[arg(long = "diagnosticos", value_name = "ARCHIVO")]
    diagnostics: Option<PathBuf>,
    /// La salida de error de cargo (o del grader, con --estado).
    #[arg(long = "registro", value_name = "ARCHIVO")]
    log: Option<PathBuf>,
    /// La raíz del repositorio, que se quita de las rutas; por omisión la
    /// carpeta actual.
    #[arg(long = "raiz", value_name = "CARPETA")]
    root: Option<PathBuf>,
    /// El grader ya corrió y terminó con el estado N (128 + n si lo terminó
    /// la señal n) sin un informe válido: el informe de falla lo dice.
    #[arg(long = "estado", value_name = "N")]
    status: Option<u8>,
    /// Solo comprueba que ARCHIVO sea un results.json de Gradescope legible:
    /// estado 0 si lo es, 1 (con el motivo) si no.
    #[arg(long = "comprobar-gradescope", value_name = "ARCHIVO")]
    check: Option<PathBuf>,
    /// Muestra esta ayuda (alias: --ayuda).
    #[arg(short = 'h', long = "help", alias = "ayuda", action = ArgAction::Help)]
    help: Option<bool>,
}

fn main() -> ExitCode {
    let args = match Args::try_parse() {
        Ok(a) => a,
        Err(e) => return flags::clap_error(&e),
    };
    if let Some(path) = &args.check {
        return check_results(path);
    }
    // The seed file may already be gone (the grader read it and then died):
    // its contents do not change this report, only that there was one.
    let secret = match &args.seed_file {
        Some(path) => {
            let _ = std::fs::remove_file(path);
            Some("0".to_string())
        }
        None => std::env::var(flags::SECRET_SEED_ENV).ok(),
    };
    if let Err(message) = flags::master_seed(args.variants, args.seed, secret) {
        eprintln!("grader: {message}");
        return ExitCode::from(2);
    }
    let rubric = match &args.rubric {
        Some(p) => Rubric::load(p, &p.display().to_string()),
        None => Rubric::kit(),
    };
    let rubric = match rubric {
        Ok(r) => r,
        Err(e) => {
            eprintln!("grader: {e}");
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
    let cause = match args.status {
        Some(status) => Cause::Ended {
            status,
            log: diagnostics::log_excerpt(&read(&args.log), &root),
        },
        None => diagnostics::cause(&read(&args.diagnostics), &read(&args.log), &root),
    };
    let failure = Failure {
        cause,
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
                    "grader: --output {}: no se pudo escribir el informe: {e}",
                    path.display()
                );
                return ExitCode::from(2);
            }
        }
    }
    ExitCode::from(1)
}

/// `--comprobar-gradescope ARCHIVO`: 0 when `path` is a readable Gradescope
/// results.json, else 1 with one line saying why.
fn check_results(path: &std::path::Path) -> ExitCode {
    let verdict = std::fs::read_to_string(path)
        .map_err(|e| format!("no se pudo leer ({e})"))
        .and_then(|text| results::check(&text));
    match verdict {
        Ok(()) => ExitCode::SUCCESS,
        Err(why) => {
            eprintln!("compile-report: {}: {why}", path.display());
            ExitCode::from(1)
        }
    }
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
