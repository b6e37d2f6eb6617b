//! Classroom 50's `result.json` (schema `classroom50/result/v1`) and the
//! `release-body.md` shown on the submission's Release (the Spanish report in
//! Markdown). The identity fields come from the environment Classroom 50's
//! runner sets (`CLASSROOM`, `ASSIGNMENT`, `USERNAME`, `SUBMISSION_TAG`,
//! `COMMIT_URL`, `RELEASE_URL`, `REVIEW_URL`); scores are integers (each
//! check's points rounded to the nearest whole point, the total their sum).
//! The bonus (exercise 4) is listed test by test, each `bonus · …`, but
//! stays out of `score` and `max-score` (the schema wants `score ≤
//! max-score`, and a bonus left undone is no failure of the grade): the
//! release body shows it apart, `Puntaje: 100/100 puntos · bonus 20/20`.
//!
//! Everything in a Classroom 50 repository is the student's: this is
//! feedback, not a tamper-proof grade (no hidden variants, no secret seed).

use serde::Serialize;

use crate::report::sheet::{Row, Sheet};
use judge::verdict::Verdict;

/// The schema name every result carries.
pub const SCHEMA: &str = "classroom50/result/v1";

/// The environment variables the runner sets that the result needs, in the
/// order they are checked.
pub const REQUIRED_ENV: [&str; 7] = [
    "CLASSROOM",
    "ASSIGNMENT",
    "USERNAME",
    "SUBMISSION_TAG",
    "COMMIT_URL",
    "RELEASE_URL",
    "REVIEW_URL",
];

/// Optional: `individual` (the default) or `group`.
pub const ASSIGNMENT_TYPE_ENV: &str = "ASSIGNMENT_TYPE";

/// The identity of the submission, from the runner's environment; its
/// fields are `result.json`'s identity fields, in the schema's order.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Identity {
    /// `CLASSROOM`.
    pub classroom: String,
    /// `ASSIGNMENT`.
    pub assignment: String,
    /// `individual` or `group`.
    pub assignment_type: String,
    /// `USERNAME`: the repository's owner.
    pub owner: String,
    /// `SUBMISSION_TAG` (starts with `submit/`).
    pub submission: String,
    /// `COMMIT_URL`.
    pub commit: String,
    /// `RELEASE_URL`.
    pub release: String,
    /// `REVIEW_URL`.
    pub review: String,
    /// `YYYY-MM-DDTHH:MM:SSZ`: now, or `SOURCE_DATE_EPOCH` when set (for
    /// byte-identical runs).
    pub datetime: String,
}

impl Identity {
    /// Reads the identity from the environment through `var`.
    ///
    /// # Errors
    /// One Spanish line naming the first missing or invalid variable (exit
    /// status 2), without the flag that asked for the identity (the caller
    /// names it: `--format classroom50`, `servicio --classroom50`).
    pub fn from(var: impl Fn(&str) -> Option<String>) -> Result<Identity, String> {
        let mut values = Vec::new();
        for name in REQUIRED_ENV {
            match var(name).filter(|v| !v.trim().is_empty()) {
                Some(v) => values.push(v),
                None => {
                    return Err(format!(
                        "falta la variable de entorno {name} (la define el runner de Classroom 50; para probar, defínela: {})",
                        REQUIRED_ENV.join(", ")
                    ));
                }
            }
        }
        if !values[3].starts_with("submit/") {
            return Err(format!(
                "la variable SUBMISSION_TAG debe empezar con submit/ (tiene «{}»)",
                values[3]
            ));
        }
        let assignment_type = var(ASSIGNMENT_TYPE_ENV).unwrap_or_else(|| "individual".into());
        if assignment_type != "individual" && assignment_type != "group" {
            return Err(format!(
                "la variable {ASSIGNMENT_TYPE_ENV} debe ser individual o group (tiene «{assignment_type}»)"
            ));
        }
        let epoch = match var("SOURCE_DATE_EPOCH") {
            Some(v) => v.trim().parse::<u64>().map_err(|_| {
                format!(
                    "la variable SOURCE_DATE_EPOCH debe ser un entero de segundos (tiene «{v}»)"
                )
            })?,
            None => std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
        };
        let mut v = values.into_iter();
        let mut next = || v.next().unwrap_or_default();
        Ok(Identity {
            classroom: next(),
            assignment: next(),
            owner: next(),
            submission: next(),
            commit: next(),
            release: next(),
            review: next(),
            assignment_type,
            datetime: utc(epoch),
        })
    }

    /// [`Identity::from`] the process's environment.
    ///
    /// # Errors
    /// As [`Identity::from`].
    pub fn from_env() -> Result<Identity, String> {
        Identity::from(|name| std::env::var(name).ok())
    }
}

/// `secs` since the epoch as `YYYY-MM-DDTHH:MM:SSZ` (proleptic Gregorian,
/// UTC).
pub fn utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The whole `result.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Result50 {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// The identity fields, as the runner's environment gave them.
    #[serde(flatten)]
    pub identity: Identity,
    /// Whole points earned.
    pub score: u64,
    /// Whole points possible.
    #[serde(rename = "max-score")]
    pub max_score: u64,
    /// One per check.
    pub tests: Vec<Test50>,
}

/// One check.
#[derive(Clone, Debug, Serialize)]
pub struct Test50 {
    /// `id — title`.
    #[serde(rename = "test-name")]
    pub test_name: String,
    /// Whether it passed.
    pub passed: bool,
    /// Whole points earned.
    pub score: u64,
    /// Whole points possible.
    #[serde(rename = "max-score")]
    pub max_score: u64,
    /// The Spanish explanation (empty when it passed).
    pub output: String,
}

fn whole(p: judge::rubric::Points) -> u64 {
    (p.hundredths() + 50) / 100
}

fn test(row: &Row, compiled: bool) -> Test50 {
    let max = whole(row.max);
    let bonus = if row.bonus { "bonus · " } else { "" };
    Test50 {
        test_name: format!("{bonus}{} — {}", row.check.id, row.check.title),
        passed: row.verdict.passed(),
        score: if row.verdict.passed() { max } else { 0 },
        max_score: max,
        output: if compiled {
            row.explanation()
        } else {
            crate::report::gradescope::NOT_RUN.to_string()
        },
    }
}

/// The result of `sheet` for `who`.
pub fn result(sheet: &Sheet, who: &Identity) -> Result50 {
    let compiled = sheet.compile_errors().is_none();
    let tests: Vec<Test50> = sheet.rows.iter().map(|r| test(r, compiled)).collect();
    let graded = || {
        sheet
            .rows
            .iter()
            .zip(&tests)
            .filter(|(r, _)| !r.bonus)
            .map(|(_, t)| t)
    };
    Result50 {
        schema: SCHEMA,
        identity: who.clone(),
        score: graded().map(|t| t.score).sum(),
        max_score: graded().map(|t| t.max_score).sum(),
        tests,
    }
}

/// `result.json` of `sheet`, pretty-printed, ending with a newline.
pub fn render(sheet: &Sheet, who: &Identity) -> String {
    let mut json = serde_json::to_string_pretty(&result(sheet, who)).unwrap_or_default();
    json.push('\n');
    json
}

/// `release-body.md`: the Spanish report in Markdown (the compiler's errors
/// once, at the top, when the code does not compile).
pub fn release_body(sheet: &Sheet) -> String {
    let mut out = format!(
        "# Módulo 4 · Lección 2 — El doble cargo del reintento, medido\n\n**{}**\n\n",
        sheet.score_line()
    );
    if let Some(errors) = sheet.compile_errors() {
        out.push_str("Tu código no compila: el grader no puede correr ninguna verificación. Los primeros errores del compilador:\n\n```text\n");
        out.push_str(&errors.join("\n\n"));
        out.push_str("\n```\n");
        return out;
    }
    for exercise in sheet.exercises() {
        let rows: Vec<&Row> = sheet.of(exercise).collect();
        let (p, m) = Sheet::points_of(rows.iter().copied());
        let of_bonus = if rows.iter().any(|r| r.bonus) {
            " de bonus"
        } else {
            ""
        };
        out.push_str(&format!(
            "## Ejercicio {} — {} · {p}/{m} puntos{of_bonus}\n\n",
            exercise.number(),
            exercise.title()
        ));
        for r in rows {
            let mark = if r.verdict.passed() { "✓" } else { "✗" };
            out.push_str(&format!(
                "- {mark} `{}` — {} ({}/{} pts)\n",
                r.check.id, r.check.title, r.points, r.max
            ));
            if !matches!(r.verdict, Verdict::Passed) {
                out.push_str("\n  ```text\n");
                for line in r.explanation().lines() {
                    out.push_str(&format!("  {line}\n"));
                }
                out.push_str("  ```\n\n");
            }
        }
        out.push('\n');
    }
    out
}

/// Classroom 50's `result.json` of `grader servicio`'s checks (lección 8's
/// final project) for `who`: one test per check, `servicio · id — title`,
/// all or nothing, a failing one's explanation with the command that
/// repeats it.
#[cfg(feature = "servicio")]
pub fn servicio(
    outcome: &servicio::Outcome,
    who: &Identity,
    repro: &dyn Fn(&str) -> String,
) -> String {
    let tests: Vec<Test50> = outcome
        .checks
        .iter()
        .map(|c| {
            let passed = c.verdict.passed();
            let points = u64::from(c.spec.points);
            Test50 {
                test_name: format!("servicio · {} — {}", c.spec.id, c.spec.title),
                passed,
                score: if passed { points } else { 0 },
                max_score: points,
                output: if passed {
                    String::new()
                } else {
                    let mut lines = c.verdict.explanation();
                    lines.push(format!("repite solo esta: {}", repro(c.spec.id)));
                    lines.join("\n")
                },
            }
        })
        .collect();
    let result = Result50 {
        schema: SCHEMA,
        identity: who.clone(),
        score: tests.iter().map(|t| t.score).sum(),
        max_score: tests.iter().map(|t| t.max_score).sum(),
        tests,
    };
    let mut json = serde_json::to_string_pretty(&result).unwrap_or_default();
    json.push('\n');
    json
}

/// `release-body.md` of `grader servicio`: the score, then the before/after
/// table and the checks' report as the terminal shows them (`text`).
#[cfg(feature = "servicio")]
pub fn servicio_release_body(outcome: &servicio::Outcome, text: &str) -> String {
    let (got, max) = outcome.score();
    format!(
        "# Proyecto final (lección 8) — tu servicio, medido\n\n**Puntaje: {got}/{max} puntos**\n\n```text\n{}\n```\n",
        text.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_utc_in_the_schemas_form() {
        assert_eq!(utc(0), "1970-01-01T00:00:00Z");
        assert_eq!(utc(1_796_083_200), "2026-12-01T00:00:00Z");
        assert_eq!(utc(951_827_696), "2000-02-29T12:34:56Z");
    }

    #[test]
    fn a_missing_variable_is_named() {
        let e =
            Identity::from(|n| (n != "RELEASE_URL").then(|| format!("submit/{n}"))).unwrap_err();
        assert!(
            e.contains("falta la variable de entorno RELEASE_URL"),
            "{e}"
        );
        let e = Identity::from(|n| Some(n.to_string())).unwrap_err();
        assert!(e.contains("SUBMISSION_TAG debe empezar con submit/"), "{e}");
    }
}
