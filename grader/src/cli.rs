//! The command line, in the student's language (clap).

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Parser, Subcommand};

use crate::report::Format;

/// Corrector del Módulo 4, lección 2: «El doble cargo del reintento, medido».
///
/// Sin comando, verifica tus tres ejercicios (exercises/) e imprime el
/// informe; el estado de salida es 0 si todo pasa, 1 si algo falla y 2 si los
/// argumentos o los fixtures son inválidos.
#[derive(Parser, Debug)]
#[command(
    name = "grader",
    disable_help_flag = true,
    disable_version_flag = true,
    disable_help_subcommand = true,
    allow_negative_numbers = true,
    subcommand_help_heading = "Comandos",
    next_help_heading = "Opciones",
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    override_usage = "cargo run -p grader -- [OPCIONES] [COMANDO]"
)]
pub struct Cli {
    /// Verifica la solución de referencia (solutions/) en vez de tu código
    /// (alias: --soluciones).
    #[arg(long, alias = "soluciones", global = true)]
    pub solutions: bool,

    /// Límite de tiempo de cada verificación, en segundos; por omisión 5
    /// (alias: --limite).
    #[arg(long, alias = "limite", value_name = "SEGUNDOS", default_value = "5", hide_default_value = true, allow_negative_numbers = true, value_parser = parse_timeout, global = true)]
    pub timeout: Duration,

    /// Carpeta de fixtures (*.toml) a usar además de fixtures/; se puede
    /// repetir (alias: --carpeta-fixtures).
    #[arg(
        long,
        alias = "carpeta-fixtures",
        value_name = "CARPETA",
        global = true
    )]
    pub fixtures: Vec<PathBuf>,

    /// Formato del informe: text (el de siempre), gradescope (results.json)
    /// o junit (XML); por omisión text (alias: --formato).
    #[arg(
        long = "format",
        alias = "formato",
        value_name = "FORMATO",
        value_enum,
        default_value = "text",
        hide_default_value = true,
        hide_possible_values = true
    )]
    pub format: Format,

    /// Escribe el informe en ARCHIVO en vez de la salida estándar (alias:
    /// --salida).
    #[arg(long = "output", alias = "salida", value_name = "ARCHIVO")]
    pub output: Option<PathBuf>,

    /// Califica solo un ejercicio: cobro, cliente o reconciliacion; se puede
    /// repetir (alias: --exercise).
    #[arg(long = "ejercicio", alias = "exercise", value_name = "NOMBRE", value_parser = ["cobro", "cliente", "reconciliacion"], hide_possible_values = true)]
    pub exercises: Vec<String>,

    /// Rúbrica (TOML) con los puntos y la visibilidad de cada verificación;
    /// por omisión grader/rubrica.toml (alias: --rubric).
    #[arg(long = "rubrica", alias = "rubric", value_name = "ARCHIVO")]
    pub rubric: Option<PathBuf>,

    /// Agrega N variantes ocultas (flotas generadas) por ejercicio, de 1 a
    /// 50; la semilla sale de --semilla o de la variable KIT_SEMILLA_SECRETA
    /// (alias: --variants).
    #[arg(long = "variantes", alias = "variants", value_name = "N", value_parser = crate::variants::parse_count)]
    pub variants: Option<u32>,

    /// Semilla de las variantes ocultas, un entero (alias: --seed).
    #[arg(long = "semilla", alias = "seed", value_name = "S", value_parser = crate::variants::parse_seed)]
    pub seed: Option<u64>,

    /// Califica también la variante de esta semilla (la que da el informe
    /// para reproducir un fallo); se puede repetir (alias: --variant).
    #[arg(long = "variante", alias = "variant", value_name = "SEMILLA", value_parser = crate::variants::parse_variant_seed)]
    pub variant: Vec<u32>,

    /// Muestra esta ayuda (alias: --ayuda).
    #[arg(short = 'h', long = "help", alias = "ayuda", action = ArgAction::Help, global = true)]
    pub help: Option<bool>,

    /// Qué hacer (sin comando: verificar los ejercicios).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Los comandos.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Imprime la tabla de un escenario de la lección con tu código (o con
    /// --solutions) y la compara con la salida esperada.
    #[command(
        help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
        override_usage = "cargo run -p grader -- escenario [OPCIONES] [NOMBRE]",
        next_help_heading = "Opciones"
    )]
    Escenario {
        /// Nombre del fixture (p. ej. flota-1000) o ruta a un .toml; sin nombre, todos.
        #[arg(value_name = "NOMBRE", help_heading = "Argumentos")]
        nombre: Option<String>,
    },
    /// El antes y el después del proyecto final: la flota SIN idempotencia y
    /// CON idempotency_key (tu servidor y tu cliente, o --solutions), lado a
    /// lado con la diferencia; por omisión flota-1000.
    Comparar(crate::commands::comparar::CompararArgs),
    /// La flota con varias probabilidades de pérdida (mismas semillas), los
    /// dos mundos, junto al sobrecobro esperado p + p² + … + p^(m−1);
    /// --svg ARCHIVO dibuja el gráfico.
    Barrido(crate::commands::barrido::BarridoArgs),
}

/// Parses `--timeout`: a positive number of seconds, at most 600.
fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("«{text}» no es un número de segundos (p. ej. 5 o 0.5)"))?;
    if !(0.1..=600.0).contains(&secs) {
        return Err("debe ser un número de segundos entre 0.1 y 600, p. ej. 5 o 0.5".to_string());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Parses the command line; on a usage error prints a Spanish one-line
/// message and exits with status 2 (help exits 0).
pub fn parse() -> Cli {
    match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => exit_on_clap_error(e),
    }
}

/// Prints a clap error in Spanish and exits (0 for help, 2 otherwise).
pub fn exit_on_clap_error(e: clap::Error) -> ! {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        std::process::exit(0);
    }
    let ctx = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let arg = ctx(ContextKind::InvalidArg);
    let message = match e.kind() {
        ErrorKind::UnknownArgument => format!("opción desconocida: {arg}"),
        ErrorKind::InvalidSubcommand => format!(
            "comando desconocido: {}; los comandos son: escenario, comparar, barrido",
            ctx(ContextKind::InvalidSubcommand)
        ),
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let value = ctx(ContextKind::InvalidValue);
            let allowed = ctx(ContextKind::ValidValue);
            let why = e.source().map(|s| s.to_string()).unwrap_or_default();
            let mut m = format!("valor inválido para {arg}: «{value}»");
            if !allowed.is_empty() {
                m.push_str(&format!("; se permiten: {allowed}"));
            }
            if !why.is_empty() {
                m.push_str(&format!(" ({why})"));
            }
            m
        }
        ErrorKind::MissingRequiredArgument => format!("falta el argumento obligatorio {arg}"),
        ErrorKind::ArgumentConflict => format!(
            "{arg} no se puede usar junto con {}",
            ctx(ContextKind::PriorArg)
        ),
        ErrorKind::TooManyValues | ErrorKind::NoEquals => format!("argumento inesperado: {arg}"),
        _ => format!(
            "argumentos inválidos: {}",
            e.to_string()
                .lines()
                .next()
                .unwrap_or("")
                .trim_start_matches("error: ")
        ),
    };
    eprintln!("grader: {message}. Usa --help para ver las opciones.");
    std::process::exit(2);
}

use std::error::Error as _;
