//! The command line, in the student's language (clap).

use std::path::PathBuf;
use std::time::Duration;

use std::process::ExitCode;

use clap::builder::{EnumValueParser, TypedValueParser};
use clap::{ArgAction, Args, Parser, Subcommand};

use crate::before_after::fleet::FleetArgs;
use crate::before_after::sweep::SweepRange;
use crate::usage;
use judge::values;

use crate::report::Format;

/// `--ejercicio`'s help line, naming every exercise of [`judge::catalog`]:
/// `Califica solo un ejercicio: cobro, cliente o reconciliacion; se puede
/// repetir (alias: --exercise).`
fn exercise_help() -> String {
    format!(
        "Califica solo un ejercicio: {}; se puede repetir (alias: --exercise).",
        judge::catalog::listed(&judge::catalog::ids(), "o")
    )
}

/// The `--help` heading of the options students do not need (formats,
/// rubrics, hidden variants, other fixture folders).
const INSTRUCTORS: &str = "Opciones para instructores";

/// Corrector del Módulo 4, lección 2: «El doble cargo del reintento, medido».
///
/// Sin comando, verifica tus ejercicios (exercises/) e imprime el informe;
/// el estado de salida es 0 si todo lo que cuenta para los 100 pasa (el bonus
/// aparte), 1 si algo falla y 2 si los argumentos o los fixtures son
/// inválidos.
#[derive(Parser, Debug, Clone)]
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
    // Hidden from --help: students have no reference (the book's
    // instructor part documents it: docs/src/instructores/referencia.md).
    #[arg(long, alias = "soluciones", global = true, hide = true)]
    pub solutions: bool,

    /// Límite de tiempo de cada verificación, en segundos; por omisión 5
    /// (alias: --limite).
    #[arg(long, alias = "limite", value_name = "SEGUNDOS", default_value = "5", hide_default_value = true, allow_negative_numbers = true, value_parser = values::parse_timeout, global = true, display_order = 1)]
    pub timeout: Duration,

    /// Verifica todo de nuevo aunque nada haya cambiado: sin esta opción,
    /// un informe sin cambios en tu código ni en las opciones repite los
    /// veredictos del anterior sin volver a correr nada (alias: --no-cache).
    #[arg(long = "de-nuevo", alias = "no-cache", display_order = 1)]
    pub again: bool,

    /// Carpeta de fixtures (*.toml) a usar además de fixtures/; se puede
    /// repetir (alias: --carpeta-fixtures).
    #[arg(
        long,
        alias = "carpeta-fixtures",
        value_name = "CARPETA",
        global = true,
        help_heading = INSTRUCTORS
    )]
    pub fixtures: Vec<PathBuf>,

    /// Califica la copia del kit que está en CARPETA (la que tiene el
    /// Cargo.toml del kit) con este juez ya compilado, en vez de la carpeta
    /// desde donde corre cargo: solo se compila el harness de esa copia,
    /// nunca otro juez (alias: --root).
    #[arg(long = "raiz", alias = "root", value_name = "CARPETA", global = true, help_heading = INSTRUCTORS)]
    pub root: Option<PathBuf>,

    /// Formato del informe: text (el de siempre), gradescope (results.json),
    /// classroom50 (result.json y release-body.md de Classroom 50)
    /// o junit (XML, con `--features junit`); por omisión text (alias:
    /// --formato).
    #[arg(
        long = "format",
        alias = "formato",
        value_name = "FORMATO",
        value_parser = EnumValueParser::<Format>::new().try_map(Format::available),
        default_value = "text",
        hide_default_value = true,
        hide_possible_values = true,
        help_heading = INSTRUCTORS
    )]
    pub format: Format,

    /// Escribe el informe en ARCHIVO en vez de la salida estándar (alias:
    /// --salida).
    #[arg(long = "output", alias = "salida", value_name = "ARCHIVO", help_heading = INSTRUCTORS)]
    pub output: Option<PathBuf>,

    /// Califica solo un ejercicio (uno de los ids del catálogo); se puede
    /// repetir (alias: --exercise).
    #[arg(long = "ejercicio", alias = "exercise", value_name = "NOMBRE", value_parser = clap::builder::PossibleValuesParser::new(judge::catalog::ids()), help = exercise_help(), hide_possible_values = true, display_order = 0)]
    pub exercises: Vec<String>,

    /// Rúbrica (TOML) con los puntos y la visibilidad de cada verificación;
    /// por omisión grader/rubrica.toml (alias: --rubric).
    // Global, like --variantes and --archivo-semilla: `curso` grades a class
    // with the rubric and the seed a single grading would take.
    #[arg(long = "rubrica", alias = "rubric", value_name = "ARCHIVO", global = true, help_heading = INSTRUCTORS)]
    pub rubric: Option<PathBuf>,

    /// Agrega N variantes ocultas (flotas generadas) por ejercicio, de 1 a
    /// 50; la semilla sale de --semilla, de --archivo-semilla o de la
    /// variable KIT_SEMILLA_SECRETA (alias: --variants).
    #[arg(long = "variantes", alias = "variants", value_name = "N", value_parser = judge::variants::parse_count, global = true, help_heading = INSTRUCTORS)]
    pub variants: Option<u32>,

    /// Semilla de las variantes ocultas, un entero (alias: --seed).
    // Not global: `comparar`, `barrido` and `ver` have a `--semilla` of
    // their own (the fleet's); `curso` has its own, merged here by `parse`.
    #[arg(long = "semilla", alias = "seed", value_name = "S", value_parser = judge::variants::parse_seed, help_heading = INSTRUCTORS)]
    pub seed: Option<u64>,

    /// Lee la semilla de las variantes ocultas del archivo RUTA (un entero) y
    /// borra el archivo apenas la lee, antes de correr tu código; necesita
    /// --variantes (alias: --seed-file).
    #[arg(
        long = "archivo-semilla",
        alias = "seed-file",
        value_name = "RUTA",
        global = true,
        help_heading = INSTRUCTORS
    )]
    pub seed_file: Option<PathBuf>,

    /// La semilla leída de --archivo-semilla (el archivo ya está borrado).
    #[arg(skip)]
    pub seed_from_file: Option<u64>,

    /// Califica también la variante de esta semilla (la que da el informe
    /// para reproducir un fallo); se puede repetir (alias: --variant).
    #[arg(long = "variante", alias = "variant", value_name = "SEMILLA", value_parser = judge::variants::parse_variant_seed, help_heading = INSTRUCTORS)]
    pub variant: Vec<u32>,

    /// Muestra esta ayuda (alias: --ayuda).
    #[arg(short = 'h', long = "help", alias = "ayuda", action = ArgAction::Help, global = true, display_order = 2)]
    pub help: Option<bool>,

    /// Qué hacer (sin comando: verificar los ejercicios).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Los comandos.
#[derive(Subcommand, Debug, Clone)]
pub enum Command {
    /// Vigila exercises/src: cada vez que guardas, vuelve a verificar y
    /// muestra tu progreso, el primer ejercicio que falta con lo que falla y
    /// qué hacer; teclas q (salir), r (verificar), n/p (ejercicio siguiente o
    /// anterior), h (pista) (alias: watch).
    #[command(
        alias = "watch",
        help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
        override_usage = "cargo run -p grader -- vigilar",
        next_help_heading = "Opciones"
    )]
    Vigilar,
    /// Imprime la tabla de un escenario de la lección con tu código y la
    /// compara con la salida esperada.
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
    /// CON idempotency_key (tu servidor y tu cliente), lado a lado con la
    /// diferencia; por omisión flota-1000.
    Comparar(CompararArgs),
    /// La flota con varias probabilidades de pérdida (mismas semillas), los
    /// dos mundos, junto al sobrecobro esperado p + p² + … + p^(m−1);
    /// --svg ARCHIVO dibuja el gráfico.
    Barrido(BarridoArgs),
    /// El ledger orden por orden: la flota en los dos mundos con tu código,
    /// cada intento (key, respuesta perdida o entregada) y las filas que
    /// dejó, en una página HTML con las órdenes cobradas 2+ veces resaltadas
    /// (alias: view).
    #[command(alias = "view")]
    Ver(VerArgs),
    /// Repite exactamente un horario del ejercicio 4 (el que imprimió una
    /// verificación concurrente que falla) y lo cuenta paso a paso: qué
    /// hilo buscó, marcó, cobró y guardó cada key (alias: replay-schedule).
    #[command(name = "repetir-horario", alias = "replay-schedule")]
    RepetirHorario(RepetirArgs),
    /// Califica un curso entero: cada entrega de ENTREGAS (una carpeta o zip
    /// por estudiante, la exportación de Gradescope o los clones de
    /// `gh teacher download`) desde la plantilla del estudiante; escribe el
    /// libro de notas y lo que la clase no entendió; para instructores, con
    /// `--features curso` (alias: class).
    #[command(alias = "class")]
    Curso(Box<CursoArgs>),
    /// El «después» del proyecto final medido en tu servicio de pagos real
    /// (HTTP, cualquier lenguaje): la flota de la lección sin key y con una
    /// key por operación, y las verificaciones del contrato de
    /// idempotencia (reintentos concurrentes, dos instancias, reinicio);
    /// con `--features servicio` (alias: service).
    #[command(alias = "service")]
    Servicio(Box<ServicioArgs>),
    /// Pone los archivos de ejercicio de ENTREGA sobre el kit KIT (lo usa
    /// autograder/gradescope/run_autograder); estado 3 si no trae ninguno.
    #[command(hide = true, alias = "overlay")]
    Superponer {
        /// La entrega (una carpeta o un .zip).
        entrega: PathBuf,
        /// El kit sobre el que se pone.
        kit: PathBuf,
    },
}

/// Parses and checks the command line; a usage error is printed as one
/// Spanish line. The seed stays where it was: neither the secret seed's
/// variable nor the `--archivo-semilla` file is touched here
/// ([`take_seed`] does it, so that a judge that hands the same command line
/// to another, [`crate::commands::tools`], leaves them to it).
///
/// # Errors
/// The exit status to end with after a usage error or `--help`
/// ([`usage::clap_error`] has printed it), or 2 with a Spanish line for
/// options that cannot go together.
pub fn parse_checked() -> Result<Cli, ExitCode> {
    use clap::{CommandFactory, FromArgMatches};
    let matches = Cli::command()
        .try_get_matches()
        .map_err(|e| usage::clap_error(&e, &commands()))?;
    let cli = Cli::from_arg_matches(&matches).map_err(|e| usage::clap_error(&e, &commands()))?;
    if let Some(message) = unused_global(&matches) {
        eprintln!("grader: {message}");
        return Err(ExitCode::from(2));
    }
    let cli = merge_curso_seed(cli)?;
    if let Some(root) = &cli.root {
        if !root.join("exercises").join("Cargo.toml").is_file() {
            eprintln!(
                "grader: --raiz {}: no es una copia del kit (no tiene exercises/Cargo.toml); indica la carpeta donde está el Cargo.toml del kit",
                root.display()
            );
            return Err(ExitCode::from(2));
        }
        judge::paths::set_root(root);
    }
    if cli.seed_file.is_some() {
        // (Checked here, not by clap: the option is global, for `curso`.)
        if cli.seed.is_some() {
            eprintln!(
                "grader: --archivo-semilla no se puede usar junto con --semilla: la semilla sale de uno de los dos"
            );
            return Err(ExitCode::from(2));
        }
        if cli.variants.is_none() {
            eprintln!(
                "grader: --archivo-semilla necesita --variantes N (cuántas variantes ocultas por ejercicio, de 1 a 50)"
            );
            return Err(ExitCode::from(2));
        }
    }
    Ok(cli)
}

/// The seed of a checked command line ([`parse_checked`]): the secret
/// seed's variable out of this process ([`without_secret_env`]: the grader
/// runs again without it, and this gives its exit status as the error), or
/// with `--archivo-semilla RUTA` the seed read from RUTA and RUTA deleted,
/// before anything else runs.
///
/// # Errors
/// The other run's exit status, or 2 with a Spanish line when the file
/// cannot be read, holds no integer or cannot be deleted.
pub fn take_seed(mut cli: Cli) -> Result<Cli, ExitCode> {
    if std::env::var_os(judge::variants::SECRET_SEED_ENV).is_some() {
        return Err(without_secret_env(&cli));
    }
    if let Some(path) = &cli.seed_file {
        match values::take_seed_file(path) {
            Ok(seed) => cli.seed_from_file = Some(seed),
            Err(message) => {
                eprintln!("grader: {message}");
                return Err(ExitCode::from(2));
            }
        }
    }
    Ok(cli)
}

/// The global options (clap id, flag) that only a grading reads: the
/// report, `vigilar` and `curso`.
const GRADING_ONLY: [(&str, &str); 3] = [
    ("rubric", "--rubrica"),
    ("variants", "--variantes"),
    ("seed_file", "--archivo-semilla"),
];

/// Why a global option given on the command line does nothing in the
/// subcommand `matches` chose, if one does: `servicio` starts no harness
/// (`--solutions`, `--timeout`: its limits are `--limite-peticion` and
/// `--limite-corrida`), the fleet tools grade nothing (`--rubrica`,
/// `--variantes`, `--archivo-semilla`), `repetir-horario` and `superponer`
/// read no fixtures. Accepted and ignored, a student would think it
/// applied.
fn unused_global(matches: &clap::ArgMatches) -> Option<String> {
    use clap::parser::ValueSource;
    let (name, sub) = matches.subcommand()?;
    let mut unused: Vec<(&str, &str)> = match name {
        "vigilar" | "curso" => return None,
        _ => GRADING_ONLY.to_vec(),
    };
    match name {
        "servicio" => unused.extend([("solutions", "--solutions"), ("timeout", "--timeout")]),
        "repetir-horario" => unused.push(("fixtures", "--fixtures")),
        "superponer" => unused.extend([("fixtures", "--fixtures"), ("root", "--raiz")]),
        _ => {}
    }
    let given = |id: &str| {
        [matches, sub]
            .iter()
            .any(|m| m.value_source(id) == Some(ValueSource::CommandLine))
    };
    let (_, flag) = unused.into_iter().find(|(id, _)| given(id))?;
    let instead = match (name, flag) {
        ("servicio", "--timeout") => {
            ": el límite de cada request es --limite-peticion y el de toda la corrida --limite-corrida"
        }
        ("servicio", "--solutions") => ": el servicio de referencia es --referencia",
        (_, "--fixtures") => ": este comando no lee fixtures",
        (_, "--raiz") => ": la entrega y el kit son sus dos argumentos",
        _ => ": sirve al calificar (cargo run -p grader, vigilar, curso)",
    };
    Some(format!("{flag} no se usa con `{name}`{instead}"))
}

/// `curso --semilla S` means the same as `--semilla S` before the command
/// (the seed a single grading takes): it goes into [`Cli::seed`].
///
/// # Errors
/// Status 2 (the line printed) when both are given with different seeds.
pub fn merge_curso_seed(mut cli: Cli) -> Result<Cli, ExitCode> {
    let Some(Command::Curso(args)) = &cli.command else {
        return Ok(cli);
    };
    if let Some(seed) = args.semilla {
        if cli.seed.is_some_and(|s| s != seed) {
            eprintln!(
                "grader: --semilla aparece dos veces con valores distintos (antes y después de curso); deja una"
            );
            return Err(ExitCode::from(2));
        }
        cli.seed = Some(seed);
    }
    Ok(cli)
}

/// The names of the subcommands `--help` lists, as clap knows them.
pub fn commands() -> Vec<String> {
    <Cli as clap::CommandFactory>::command()
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name().to_string())
        .collect()
}

/// The exit status to end with after another grader process (this one
/// run again) ended with `status`: its own code, or 1 when it ended by a
/// signal or with a code that is not one byte.
pub fn exit_code_of(status: std::process::ExitStatus) -> ExitCode {
    ExitCode::from(status.code().map_or(1, |c| u8::try_from(c).unwrap_or(1)))
}

/// Takes the secret seed out of this process's environment, which the same
/// user can read (`/proc/PID/environ`) for as long as the process lives:
/// runs the grader again without the variable and, when this command line
/// grades variants with it, with the seed in a private file that the new
/// process reads and deletes at once (`--archivo-semilla`). Gives the new
/// process's exit status.
fn without_secret_env(cli: &Cli) -> ExitCode {
    let var = judge::variants::SECRET_SEED_ENV;
    let seed = std::env::var(var).unwrap_or_default();
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().skip(1).collect();
    let uses_it = cli.variants.is_some() && cli.seed.is_none() && cli.seed_file.is_none();
    let private = std::env::temp_dir().join(format!(
        "kit-semilla-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    if uses_it {
        use std::io::Write;
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        // Elsewhere the user's own temporary folder keeps it theirs.
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let written = options
            .open(&private)
            .and_then(|mut f| f.write_all(seed.as_bytes()));
        if let Err(e) = written {
            eprintln!("grader: no se pudo guardar la semilla secreta en un archivo privado: {e}");
            return ExitCode::from(2);
        }
        args.push("--archivo-semilla".into());
        args.push(private.clone().into());
    }
    let program = std::env::current_exe().unwrap_or_else(|_| "grader".into());
    let status = std::process::Command::new(program)
        .args(args)
        .env_remove(var)
        .status();
    let _ = std::fs::remove_file(&private);
    match status {
        Ok(s) => exit_code_of(s),
        Err(e) => {
            eprintln!("grader: no se pudo volver a ejecutar el grader sin {var}: {e}");
            ExitCode::from(2)
        }
    }
}

/// `comparar`'s arguments.
#[derive(Args, Debug, Clone, Default)]
#[command(
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    allow_negative_numbers = true,
    override_usage = "cargo run -p grader -- comparar [FIXTURE] [OPCIONES]",
    next_help_heading = "Opciones",
    next_display_order = 1000
)]
pub struct CompararArgs {
    /// Fixture a comparar: nombre (p. ej. flota-1000, el de la lección y el
    /// valor por omisión) o ruta a un .toml.
    #[arg(value_name = "FIXTURE", help_heading = "Argumentos")]
    pub escenario: Option<String>,

    #[command(flatten)]
    pub flota: FleetArgs,

    /// Imprime las mismas cifras en JSON (dinero en centavos) en vez de la
    /// tabla.
    #[arg(long)]
    pub json: bool,

    /// Solo la flota: sin la carrera de la lección 4 al final (dos
    /// reintentos a la vez con tu store del ejercicio 4).
    #[arg(long, visible_alias = "without-race")]
    pub sin_carrera: bool,
}

/// `ver`'s arguments.
/// `repetir-horario`'s arguments: the history and the schedule a failing
/// concurrent check of exercise 4 printed.
#[derive(Args, Debug, Clone)]
#[command(
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    override_usage = "cargo run -p grader -- repetir-horario HISTORIA [--antes LLAMADAS] --horario HORARIO [--html ARCHIVO]",
    next_help_heading = "Opciones"
)]
pub struct RepetirArgs {
    /// Las llamadas de cada hilo: hilos separados por `/`, llamadas por `,`,
    /// cada una K<key>:<orden>:<dólares> (p. ej. K1:1:500/K1:1:500).
    #[arg(value_name = "HISTORIA", help_heading = "Argumentos")]
    pub historia: String,
    /// Llamadas que terminan antes de que arranquen los hilos (mismo formato,
    /// separadas por `,`).
    #[arg(long, alias = "before", value_name = "LLAMADAS")]
    pub antes: Option<String>,
    /// El hilo que avanza en cada paso, separados por `.` (0 es el hilo
    /// principal), como lo imprimió la verificación.
    #[arg(long, alias = "schedule", value_name = "HORARIO")]
    pub horario: String,
    /// Además, dibuja el horario en ARCHIVO: una página HTML (un solo
    /// archivo, sin red) con una columna por hilo y una fila por paso, el
    /// paso que rompe las reglas en rojo.
    #[arg(long, value_name = "ARCHIVO", value_parser = parse_page_path)]
    pub html: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
#[command(
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    allow_negative_numbers = true,
    override_usage = "cargo run -p grader -- ver [FIXTURE] --html ARCHIVO [OPCIONES]",
    next_help_heading = "Opciones",
    next_display_order = 1000
)]
pub struct VerArgs {
    /// Fixture a mostrar: nombre (p. ej. flota-1000, el valor por omisión)
    /// o ruta a un .toml.
    #[arg(value_name = "FIXTURE", help_heading = "Argumentos")]
    pub escenario: Option<String>,

    /// Escribe la página en ARCHIVO (un solo archivo HTML, sin red).
    #[arg(long, value_name = "ARCHIVO", required = true, value_parser = parse_page_path)]
    pub html: PathBuf,

    #[command(flatten)]
    pub flota: FleetArgs,
}

/// `barrido`'s arguments.
#[derive(Args, Debug, Clone)]
#[command(
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    allow_negative_numbers = true,
    override_usage = "cargo run -p grader -- barrido [FIXTURE] [OPCIONES]",
    next_help_heading = "Opciones",
    next_display_order = 1000
)]
pub struct BarridoArgs {
    /// Fixture a barrer: nombre (p. ej. flota-1000, el valor por omisión) o
    /// ruta a un .toml; necesita pérdidas aleatorias.
    #[arg(value_name = "FIXTURE", help_heading = "Argumentos")]
    pub escenario: Option<String>,

    #[command(flatten)]
    pub rango: SweepRange,

    #[command(flatten)]
    pub flota: FleetArgs,

    /// Escribe además el gráfico (sobrecobro contra probabilidad de pérdida)
    /// en ARCHIVO, en SVG.
    #[arg(long, value_name = "ARCHIVO")]
    pub svg: Option<PathBuf>,

    /// Imprime las cifras en JSON (dinero en centavos) en vez de la tabla.
    #[arg(long)]
    pub json: bool,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// The command line `line` (words split at spaces), parsed.
    fn raw(line: &str) -> Cli {
        Cli::try_parse_from(std::iter::once("grader").chain(line.split_whitespace()))
            .unwrap_or_else(|e| panic!("{line}: {e}"))
    }

    /// As [`raw`], with `curso --semilla` merged as [`parse_checked`] does.
    fn parsed(line: &str) -> Cli {
        merge_curso_seed(raw(line)).unwrap()
    }

    /// `curso` takes the options of grading one submission, after its name
    /// too, into the same fields (the ones `Setup::load` reads).
    #[test]
    fn curso_takes_the_rubric_and_the_seed_of_a_single_grading() {
        let one = raw("--rubrica r.toml --variantes 3 --semilla 7");
        for line in [
            "curso E --salida S --rubrica r.toml --variantes 3 --semilla 7",
            "--rubrica r.toml curso E --salida S --variantes 3 --semilla 7",
        ] {
            let class = parsed(line);
            assert!(matches!(class.command, Some(Command::Curso(_))), "{line}");
            assert_eq!(
                (&class.rubric, class.variants, class.seed),
                (&one.rubric, one.variants, one.seed),
                "{line}"
            );
            assert_eq!(class.rubric, Some(PathBuf::from("r.toml")));
            assert_eq!((class.variants, class.seed), (Some(3), Some(7)));
        }
        let file = parsed("curso E --salida S --variantes 2 --archivo-semilla F");
        assert_eq!(file.seed_file, Some(PathBuf::from("F")));
        assert_eq!(file.seed, None);
        let same = parsed("--semilla 7 curso E --salida S --semilla 7");
        assert_eq!(same.seed, Some(7));
        let differ = raw("--semilla 7 curso E --salida S --semilla 8");
        assert_eq!(merge_curso_seed(differ).unwrap_err(), ExitCode::from(2));
    }

    /// `curso --help` lists the rubric and the seed it now takes.
    #[test]
    fn curso_help_lists_the_rubric_and_the_seed() {
        let mut cmd = <Cli as clap::CommandFactory>::command();
        cmd.build();
        let curso = cmd.find_subcommand_mut("curso").unwrap();
        let help = curso.render_help().to_string();
        for option in ["--rubrica", "--semilla", "--archivo-semilla", "--variantes"] {
            assert!(help.contains(option), "{option} missing in\n{help}");
        }
    }

    /// Every command's options are well formed (clap's debug checks: a
    /// global option may not share a name with a command's own).
    #[test]
    fn every_command_builds() {
        <Cli as clap::CommandFactory>::command().debug_assert();
    }
}

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
    #[arg(long = "particion", alias = "partition", value_name = "i/n", value_parser = crate::commands::curso::discover::parse_partition, conflicts_with = "unir")]
    pub particion: Option<(usize, usize)>,

    /// Semilla de las variantes ocultas, un entero, como al calificar una
    /// entrega (alias: --seed); mejor --archivo-semilla o la variable
    /// KIT_SEMILLA_SECRETA, que no quedan en el historial.
    #[arg(long = "semilla", alias = "seed", value_name = "S", value_parser = judge::variants::parse_seed, help_heading = "Opciones para instructores")]
    pub semilla: Option<u64>,

    /// Une las SALIDA de las partes (--particion) en un solo libro.csv y
    /// clase.md, como si fuera una sola corrida (alias: --merge).
    #[arg(long = "unir", alias = "merge", value_name = "CARPETA", num_args = 1.., conflicts_with = "entregas")]
    pub unir: Vec<PathBuf>,
}

/// `--html ARCHIVO`: any path but an empty one.
///
/// # Errors
/// An empty path, explained.
pub fn parse_page_path(text: &str) -> Result<std::path::PathBuf, String> {
    if text.trim().is_empty() {
        return Err(
            "--html necesita la ruta del archivo que se escribe, p. ej. --html ledger.html"
                .to_string(),
        );
    }
    Ok(text.into())
}

/// `servicio`'s arguments.
#[derive(Args, Debug, Clone)]
#[command(
    help_template = "{about}\n\nUso: {usage}\n\n{all-args}",
    override_usage = "cargo run -p grader --features servicio -- servicio --comando \"python3 app.py\" [OPCIONES] [FIXTURE]\n       cargo run -p grader --features servicio -- servicio --referencia",
    next_help_heading = "Opciones"
)]
pub struct ServicioArgs {
    /// Fixture de la flota: nombre (p. ej. flota-1000, el de la lección y
    /// el valor por omisión) o ruta a un .toml.
    #[arg(value_name = "FIXTURE", help_heading = "Argumentos")]
    pub escenario: Option<String>,

    /// El comando que arranca tu servicio (p. ej. "python3 app.py" o
    /// "cargo run -p mi-servicio"); sin él, el `comando = "…"` de
    /// servicio.toml en la carpeta (alias: --command).
    #[arg(
        long,
        alias = "command",
        value_name = "COMANDO",
        conflicts_with = "referencia"
    )]
    pub comando: Option<String>,

    /// Califica el servicio de referencia del kit (Rust, SQLite) en vez de
    /// un comando (alias: --reference).
    #[arg(long, alias = "reference")]
    pub referencia: bool,

    /// La carpeta donde corre el comando (y donde se busca servicio.toml);
    /// por omisión la actual (alias: --dir).
    #[arg(long, alias = "dir", value_name = "CARPETA")]
    pub carpeta: Option<PathBuf>,

    /// Cuánto esperar a que GET /health responda 200, en segundos; por
    /// omisión 300 (lo que tarda un primer `cargo run` en compilar)
    /// (alias: --wait).
    #[arg(long, alias = "wait", value_name = "SEGUNDOS", default_value = "300", allow_negative_numbers = true, value_parser = parse_long_limit)]
    pub espera: Duration,

    /// Límite de cada request al servicio, en segundos; por omisión 10.
    #[arg(long, value_name = "SEGUNDOS", default_value = "10", allow_negative_numbers = true, value_parser = values::parse_timeout)]
    pub limite_peticion: Duration,

    /// Límite de toda la corrida, en segundos; por omisión 600.
    #[arg(long, value_name = "SEGUNDOS", default_value = "600", allow_negative_numbers = true, value_parser = parse_long_limit)]
    pub limite_corrida: Duration,

    /// Corre solo esta verificación (su id); se puede repetir (alias:
    /// --check).
    #[arg(long = "verificacion", alias = "check", value_name = "ID")]
    pub verificaciones: Vec<String>,

    #[command(flatten)]
    pub flota: FleetArgs,

    /// Imprime las cifras y las verificaciones en JSON (dinero en
    /// centavos).
    #[arg(long)]
    pub json: bool,

    /// El informe de las verificaciones para Gradescope (results.json) en
    /// vez del texto (alias: --gradescope-json).
    #[arg(long, alias = "gradescope-json")]
    pub gradescope: bool,

    /// El informe de las verificaciones en JUnit XML (con `--features
    /// servicio,junit`).
    #[arg(long, conflicts_with_all = ["json", "gradescope"])]
    pub junit: bool,

    /// El informe para Classroom 50: result.json en la salida estándar y
    /// release-body.md en la carpeta actual, con la identidad de las
    /// variables de entorno de su runner (alias: --classroom-50).
    #[arg(long, alias = "classroom-50", conflicts_with_all = ["json", "gradescope", "junit"])]
    pub classroom50: bool,

    /// Dibuja la corrida en ARCHIVO (HTML con SVG): cada orden, sus
    /// intentos, las respuestas perdidas y lo que cobró el procesador.
    #[arg(long, value_name = "ARCHIVO", value_parser = parse_page_path)]
    pub html: Option<PathBuf>,
}

/// A limit of `servicio` in seconds, from 0.1 to a day (a fleet of 100,000
/// orders takes minutes).
///
/// # Errors
/// Anything else, explained.
pub fn parse_long_limit(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if (0.1..=86_400.0).contains(&s) => Ok(Duration::from_secs_f64(s)),
        _ => Err("debe ser un número de segundos entre 0.1 y 86400, p. ej. 300".to_string()),
    }
}
