//! Usage errors of the command line, in the student's language (clap's
//! errors told in Spanish).

use std::error::Error as _;
use std::process::ExitCode;

/// Prints clap's error `e` in Spanish and gives the exit status: help
/// (`--help`) is printed as is with status 0; anything else is one line,
/// `grader: <qué>. Usa --help para ver las opciones.`, with status 2.
/// `commands` are the subcommands an unknown one is listed against.
pub fn clap_error(e: &clap::Error, commands: &[String]) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    eprintln!(
        "grader: {}. Usa --help para ver las opciones.",
        clap_message(e, commands)
    );
    ExitCode::from(2)
}

/// The Spanish description of a usage error (without prefix or final hint);
/// an unknown subcommand is listed against `commands`, with clap's
/// suggestion.
pub fn clap_message(e: &clap::Error, commands: &[String]) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let ctx = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let arg = ctx(ContextKind::InvalidArg);
    match e.kind() {
        ErrorKind::UnknownArgument => {
            let suggested = ctx(ContextKind::SuggestedArg);
            if suggested.is_empty() {
                format!("opción desconocida: {arg}")
            } else {
                format!("opción desconocida: {arg} (¿quisiste decir {suggested}?)")
            }
        }
        ErrorKind::InvalidSubcommand => {
            let suggested = ctx(ContextKind::SuggestedSubcommand);
            let guess = if suggested.is_empty() {
                String::new()
            } else {
                format!(" (¿quisiste decir {suggested}?)")
            };
            format!(
                "comando desconocido: {}{guess}; los comandos son: {}",
                ctx(ContextKind::InvalidSubcommand),
                commands.join(", ")
            )
        }
        ErrorKind::InvalidValue | ErrorKind::ValueValidation => {
            let flag = arg.split(' ').next().unwrap_or(&arg).to_string();
            let value = ctx(ContextKind::InvalidValue);
            let allowed = ctx(ContextKind::ValidValue);
            let why = e.source().map(|s| s.to_string()).unwrap_or_default();
            if value.is_empty() && allowed.is_empty() && why.is_empty() {
                let name = arg.split_once(' ').map_or("", |(_, n)| n);
                let name = name.trim_matches(['<', '>']);
                return format!(
                    "{flag} necesita un valor ({name}) y llegó vacío: escríbelo después de {flag}, p. ej. {flag} {}",
                    example(&flag, name)
                );
            }
            let mut m = format!("{flag} no acepta «{value}»");
            let suggested = ctx(ContextKind::SuggestedValue);
            if !suggested.is_empty() {
                m.push_str(&format!(" (¿quisiste decir {suggested}?)"));
            }
            if !allowed.is_empty() {
                m.push_str(&format!("; se permiten: {allowed}"));
            }
            if !why.is_empty() {
                m.push_str(&format!(": {why}"));
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
    }
}

/// An example value for `flag`, whose value is named `name` in `--help`.
fn example(flag: &str, name: &str) -> &'static str {
    match (flag, name) {
        ("--svg", _) => "barrido.svg",
        ("--fixtures", _) => "mis-fixtures",
        ("--raiz", _) => "../otra-copia-del-kit",
        ("--unir", _) => "salida-1 salida-2",
        (_, "ARCHIVO") => "informe.txt",
        (_, "CARPETA") => "mi-carpeta",
        (_, "SEGUNDOS") => "5",
        (_, "P") => "0.15",
        _ => "…",
    }
}
