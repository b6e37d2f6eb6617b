//! Usage errors in the grader's words: `compile-report` takes the grader's
//! options (`scripts/calificar` passes them through), so a bad option must
//! fail the same way the grader would — one Spanish line on standard error,
//! exit status 2 — and not with clap's English message.
//!
//! The translator is a copy of `exit_on_clap_error` in `grader/src/cli.rs`
//! and the value parsers copies of those in `grader/src/cli.rs` and
//! `grader/src/variants.rs` (this crate cannot link the grader: the grader
//! links `exercises`, which is what does not compile). `grader/tests/` and
//! this crate's tests pin the messages of both.

use std::error::Error as _;
use std::process::ExitCode;
use std::time::Duration;

/// The environment variable with the instructor's secret seed, as in
/// `grader/src/variants.rs`.
pub const SECRET_SEED_ENV: &str = "KIT_SEMILLA_SECRETA";
/// Most variants one run may ask for (`--variantes`), as in the grader.
pub const MAX_VARIANTS: u32 = 50;

/// Prints clap's error `e` as the grader does and gives the exit status:
/// help (`--help`) is printed as is with status 0; anything else is one line,
/// `grader: <qué>. Usa --help para ver las opciones.`, with status 2.
pub fn clap_error(e: clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        let _ = e.print();
        return ExitCode::SUCCESS;
    }
    eprintln!("grader: {}. Usa --help para ver las opciones.", message(&e));
    ExitCode::from(2)
}

/// The Spanish description of a usage error (without prefix or final hint).
pub fn message(e: &clap::Error) -> String {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    let ctx = |kind| match e.get(kind) {
        Some(ContextValue::String(s)) => s.clone(),
        Some(ContextValue::Strings(v)) => v.join(", "),
        Some(other) => other.to_string(),
        None => String::new(),
    };
    let arg = ctx(ContextKind::InvalidArg);
    match e.kind() {
        ErrorKind::UnknownArgument => format!("opción desconocida: {arg}"),
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
    }
}

/// Checks `--variantes`/`--semilla` as the grader's variant plan does:
/// `--variantes` needs a seed (`--semilla S`, or the integer in the
/// environment variable [`SECRET_SEED_ENV`], whose value `env` is), and
/// `--semilla` needs `--variantes`.
///
/// # Errors
/// The grader's Spanish message, for `grader: <mensaje>` and exit status 2.
pub fn check_variants(
    count: Option<u32>,
    seed: Option<u64>,
    env: Option<String>,
) -> Result<(), String> {
    match (count, seed) {
        (None, Some(_)) => Err(
            "--semilla solo tiene efecto con --variantes N (cuántas variantes generar)".to_string(),
        ),
        (Some(_), None) => {
            let Some(text) = env.filter(|t| !t.trim().is_empty()) else {
                return Err(format!(
                    "--variantes necesita una semilla: --semilla S, o la variable de entorno {SECRET_SEED_ENV} (la semilla secreta del instructor)"
                ));
            };
            text.trim().parse::<u64>().map(|_| ()).map_err(|_| {
                format!(
                    "la variable {SECRET_SEED_ENV} debe ser un entero entre 0 y {}; tiene otro valor (no se muestra: es secreta)",
                    u64::MAX
                )
            })
        }
        _ => Ok(()),
    }
}

/// Parses `--variantes`: an integer from 1 to [`MAX_VARIANTS`].
///
/// # Errors
/// A Spanish explanation clap shows after the flag's name.
pub fn parse_count(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_VARIANTS).contains(&n) => Ok(n),
        _ => Err(format!(
            "debe ser un entero entre 1 y {MAX_VARIANTS}; se leyó {text}"
        )),
    }
}

/// Parses `--semilla`: an integer from 0 to 2^64 − 1.
///
/// # Errors
/// A Spanish explanation.
pub fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("debe ser un entero entre 0 y {}; se leyó {text}", u64::MAX))
}

/// Parses `--variante`: a variant's own seed, an integer from 0 to 2^32 − 1.
///
/// # Errors
/// A Spanish explanation.
pub fn parse_variant_seed(text: &str) -> Result<u32, String> {
    text.trim().parse().map_err(|_| {
        format!(
            "debe ser la semilla de una variante, un entero entre 0 y {}; se leyó {text}",
            u32::MAX
        )
    })
}

/// Parses `--timeout`: a positive number of seconds, at most 600.
///
/// # Errors
/// A Spanish explanation.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| format!("«{text}» no es un número de segundos (p. ej. 5 o 0.5)"))?;
    if !(secs > 0.0 && secs <= 600.0) {
        return Err(
            "debe ser un número de segundos mayor que 0 y a lo sumo 600, p. ej. 5 o 0.5"
                .to_string(),
        );
    }
    Ok(Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_need_a_seed_and_a_seed_needs_variants() {
        assert_eq!(check_variants(None, None, None), Ok(()));
        assert_eq!(check_variants(Some(5), Some(3), None), Ok(()));
        assert_eq!(check_variants(Some(5), None, Some(" 42 ".into())), Ok(()));
        let missing = check_variants(Some(5), None, None).unwrap_err();
        assert!(
            missing.starts_with("--variantes necesita una semilla: --semilla S, o la variable de entorno KIT_SEMILLA_SECRETA"),
            "{missing}"
        );
        assert_eq!(
            check_variants(Some(5), None, Some("  ".into())),
            Err(missing)
        );
        let bad = check_variants(Some(5), None, Some("secreto".into())).unwrap_err();
        assert!(bad.contains("KIT_SEMILLA_SECRETA") && !bad.contains("secreto"));
        assert_eq!(
            check_variants(None, Some(3), None).unwrap_err(),
            "--semilla solo tiene efecto con --variantes N (cuántas variantes generar)"
        );
    }

    #[test]
    fn values_are_checked_like_the_grader_does() {
        assert_eq!(parse_count("50"), Ok(50));
        assert_eq!(
            parse_count("0").unwrap_err(),
            "debe ser un entero entre 1 y 50; se leyó 0"
        );
        assert!(parse_count("51").is_err());
        assert_eq!(parse_seed("18446744073709551615"), Ok(u64::MAX));
        assert!(parse_seed("-1").is_err());
        assert_eq!(parse_variant_seed("4294967295"), Ok(u32::MAX));
        assert!(parse_variant_seed("4294967296").is_err());
        assert_eq!(parse_timeout("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_timeout("0").is_err() && parse_timeout("601").is_err());
        assert!(parse_timeout("cinco").unwrap_err().contains("«cinco»"));
    }
}
