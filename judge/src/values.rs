//! The values an instructor or student gives a grading run (seeds of the
//! hidden variants, counts, time limits), checked with Spanish messages.

use std::time::Duration;

/// The environment variable with the instructor's secret seed of the hidden
/// variants. It never reaches the processes that run student code.
pub const SECRET_SEED_ENV: &str = "KIT_SEMILLA_SECRETA";
/// Most hidden variants per exercise one run may ask for (`--variantes`).
pub const MAX_VARIANTS: u32 = 50;

/// The master seed of the hidden variants: `--semilla`, or the integer in
/// [`SECRET_SEED_ENV`] (whose value is `env`), with `true` when it came from
/// there; `None` without `--variantes`.
///
/// # Errors
/// A Spanish message (for exit status 2) when `--variantes` has no seed,
/// `--semilla` comes without `--variantes`, or the variable is not an
/// integer (its value is not shown: it is secret).
pub fn master_seed(
    count: Option<u32>,
    seed: Option<u64>,
    env: Option<String>,
) -> Result<Option<(u64, bool)>, String> {
    match (count, seed) {
        (None, Some(_)) => Err(
            "--semilla solo tiene efecto con --variantes N (cuántas variantes generar)".to_string(),
        ),
        (None, None) => Ok(None),
        (Some(_), Some(s)) => Ok(Some((s, false))),
        (Some(_), None) => {
            let Some(text) = env.filter(|t| !t.trim().is_empty()) else {
                return Err(format!(
                    "--variantes necesita una semilla: --semilla S, o la variable de entorno {SECRET_SEED_ENV} (la semilla secreta del instructor)"
                ));
            };
            let s = text.trim().parse::<u64>().map_err(|_| {
                format!(
                    "la variable {SECRET_SEED_ENV} debe ser un entero entre 0 y {}; tiene otro valor (no se muestra: es secreta)",
                    u64::MAX
                )
            })?;
            Ok(Some((s, true)))
        }
    }
}

/// Reads the master seed from `path` (`--archivo-semilla`) and deletes the
/// file, so that nothing started later (student code) can read it there.
///
/// # Errors
/// A Spanish message naming the file (never its contents: they are secret)
/// when it cannot be read, is not an integer, or cannot be deleted.
pub fn take_seed_file(path: &std::path::Path) -> Result<u64, String> {
    let shown = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("--archivo-semilla {shown}: no se pudo leer ({e})"))?;
    std::fs::remove_file(path).map_err(|e| {
        format!("--archivo-semilla {shown}: no se pudo borrar después de leerlo ({e}); la semilla secreta quedaría a la vista")
    })?;
    text.trim().parse::<u64>().map_err(|_| {
        format!(
            "--archivo-semilla {shown}: debe contener un entero entre 0 y {}; tiene otro contenido (no se muestra: es secreto)",
            u64::MAX
        )
    })
}

/// Parses `--timeout`: seconds, from 0.1 to 600.
///
/// # Errors
/// A Spanish explanation clap shows after the flag's name.
pub fn parse_timeout(text: &str) -> Result<Duration, String> {
    let secs: f64 = text
        .trim()
        .parse()
        .map_err(|_| "no es un número de segundos (p. ej. 5 o 0.5)".to_string())?;
    if !(0.1..=600.0).contains(&secs) {
        return Err("debe ser un número de segundos entre 0.1 y 600, p. ej. 5 o 0.5".to_string());
    }
    Ok(Duration::from_secs_f64(secs))
}

/// Parses `--variantes`: an integer from 1 to [`MAX_VARIANTS`].
///
/// # Errors
/// A Spanish explanation.
pub fn parse_count(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(n) if (1..=MAX_VARIANTS).contains(&n) => Ok(n),
        _ => Err(format!("debe ser un entero entre 1 y {MAX_VARIANTS}")),
    }
}

/// Parses a seed (`--semilla`): an integer from 0 to 2^64 − 1.
///
/// # Errors
/// A Spanish explanation.
pub fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("debe ser un entero entre 0 y {}", u64::MAX))
}

/// Parses a variant's own seed (`--variante`): an integer from 0 to 2^32 − 1.
///
/// # Errors
/// A Spanish explanation.
pub fn parse_variant_seed(text: &str) -> Result<u32, String> {
    text.trim().parse().map_err(|_| {
        format!(
            "debe ser la semilla de una variante, un entero entre 0 y {}",
            u32::MAX
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variants_need_a_seed_and_a_seed_needs_variants() {
        assert_eq!(master_seed(None, None, None), Ok(None));
        assert_eq!(master_seed(Some(5), Some(3), None), Ok(Some((3, false))));
        assert_eq!(
            master_seed(Some(5), None, Some(" 42 ".into())),
            Ok(Some((42, true)))
        );
        let missing = master_seed(Some(5), None, None).unwrap_err();
        assert!(
            missing.starts_with("--variantes necesita una semilla: --semilla S, o la variable de entorno KIT_SEMILLA_SECRETA"),
            "{missing}"
        );
        assert_eq!(master_seed(Some(5), None, Some("  ".into())), Err(missing));
        let bad = master_seed(Some(5), None, Some("secreto".into())).unwrap_err();
        assert!(bad.contains("KIT_SEMILLA_SECRETA") && !bad.contains("secreto"));
        assert_eq!(
            master_seed(None, Some(3), None).unwrap_err(),
            "--semilla solo tiene efecto con --variantes N (cuántas variantes generar)"
        );
    }

    #[test]
    fn the_seed_file_is_read_once_and_deleted() {
        let dir = std::env::temp_dir().join(format!("kit-flags-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("semilla");
        std::fs::write(&file, " 4242\n").unwrap();
        assert_eq!(take_seed_file(&file), Ok(4242));
        assert!(!file.exists(), "the seed file is still there");
        let missing = take_seed_file(&file).unwrap_err();
        assert!(
            missing.starts_with(&format!(
                "--archivo-semilla {}: no se pudo leer",
                file.display()
            )),
            "{missing}"
        );
        std::fs::write(&file, "clave-x").unwrap();
        let bad = take_seed_file(&file).unwrap_err();
        assert!(
            bad.contains("debe contener un entero") && !bad.contains("clave-x"),
            "{bad}"
        );
        assert!(!file.exists(), "a bad seed file is deleted too");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn values_are_checked_with_spanish_messages() {
        assert_eq!(parse_count("50"), Ok(50));
        assert_eq!(
            parse_count("0").unwrap_err(),
            "debe ser un entero entre 1 y 50"
        );
        assert!(parse_count("51").is_err());
        assert_eq!(parse_seed(" 7 "), Ok(7));
        assert!(
            parse_seed("-1")
                .unwrap_err()
                .starts_with("debe ser un entero entre 0 y")
        );
        assert_eq!(parse_variant_seed("4294967295"), Ok(u32::MAX));
        assert!(parse_variant_seed("4294967296").is_err());
        assert_eq!(parse_timeout("0.5"), Ok(Duration::from_millis(500)));
        assert!(parse_timeout("0.05").is_err() && parse_timeout("601").is_err());
        // clap shows the value once («cinco»); the reason does not repeat it.
        assert_eq!(
            parse_timeout("cinco").unwrap_err(),
            "no es un número de segundos (p. ej. 5 o 0.5)"
        );
    }
}
