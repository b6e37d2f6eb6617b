//! Whether a file is a readable Gradescope `results.json`
//! (`compile-report --comprobar-gradescope ARCHIVO`).
//!
//! The Gradescope autograder (`autograder/gradescope/run_autograder`) asks
//! this before installing the grader's report as `results.json`: a report
//! cut short (the grader killed while writing it) or replaced by something
//! else must not reach Gradescope; the failure report goes instead. It checks
//! the shape Gradescope needs, not the figures: those are the grader's.

use serde_json::Value;

/// Checks that `text` is a Gradescope results object: a JSON object with a
/// finite, non-negative number `score` and a list `tests` whose entries are
/// objects with a finite number `score`.
///
/// # Errors
/// A Spanish phrase saying what is wrong (for `ARCHIVO: <frase>`).
pub fn check(text: &str) -> Result<(), String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("no es JSON válido ({e})"))?;
    let top = v
        .as_object()
        .ok_or("no es un objeto JSON con los campos de Gradescope")?;
    let score = top
        .get("score")
        .and_then(Value::as_f64)
        .ok_or("falta el campo `score` (un número)")?;
    if !(score.is_finite() && score >= 0.0) {
        return Err(format!(
            "el campo `score` debe ser un número mayor o igual que 0; vale {score}"
        ));
    }
    let tests = top
        .get("tests")
        .and_then(Value::as_array)
        .ok_or("falta el campo `tests` (una lista)")?;
    for (i, t) in tests.iter().enumerate() {
        if !t
            .get("score")
            .and_then(Value::as_f64)
            .is_some_and(f64::is_finite)
        {
            return Err(format!(
                "la prueba {} de `tests` no es un objeto con un `score` numérico",
                i + 1
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_with_score_and_tests_passes() {
        assert_eq!(check(r#"{"score": 0, "tests": []}"#), Ok(()));
        assert_eq!(
            check(
                r#"{"score": 42.5, "execution_time": 3, "tests": [{"score": 5, "max_score": 5}]}"#
            ),
            Ok(())
        );
    }

    #[test]
    fn anything_else_is_refused_with_the_reason() {
        assert!(check("").unwrap_err().starts_with("no es JSON válido"));
        assert!(check(r#"{"score": 10, "tests": ["#).is_err());
        assert_eq!(
            check("[1, 2]").unwrap_err(),
            "no es un objeto JSON con los campos de Gradescope"
        );
        assert_eq!(
            check(r#"{"tests": []}"#).unwrap_err(),
            "falta el campo `score` (un número)"
        );
        assert_eq!(
            check(r#"{"score": "100", "tests": []}"#).unwrap_err(),
            "falta el campo `score` (un número)"
        );
        assert_eq!(
            check(r#"{"score": -1, "tests": []}"#).unwrap_err(),
            "el campo `score` debe ser un número mayor o igual que 0; vale -1"
        );
        assert_eq!(
            check(r#"{"score": 1}"#).unwrap_err(),
            "falta el campo `tests` (una lista)"
        );
        assert_eq!(
            check(r#"{"score": 1, "tests": [{"score": 1}, "x"]}"#).unwrap_err(),
            "la prueba 2 de `tests` no es un objeto con un `score` numérico"
        );
    }
}
