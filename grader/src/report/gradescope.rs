//! Gradescope's autograder `results.json`
//! (<https://gradescope-autograders.readthedocs.io/en/latest/specs/>): the
//! top-level `score`, `execution_time`, `output` and `tests`, and per check
//! `name`, `number`, `score`, `max_score`, `status`, `output` (the Spanish
//! explanation) and `visibility` from the rubric.
//!
//! The bonus (exercise 4) is extra credit: its tests are named `bonus · …`
//! and tagged `bonus`, and the top-level `score` adds their points on top
//! of the 100. Gradescope grades out of the assignment's own points (100,
//! set by the instructor), so a score above them is extra credit.

use serde::Serialize;

use crate::report::sheet::{Row, Sheet};
use judge::rubric::{Points, Visibility};

/// The environment variable that fixes `execution_time` (whole seconds) so
/// that two runs give byte-identical JSON; unset, the run's wall-clock time
/// is used.
pub const FIXED_TIME_ENV: &str = "KIT_TIEMPO_EJECUCION";

/// The whole `results.json`.
#[derive(Clone, Debug, Serialize)]
pub struct Results {
    /// Points earned, over every test (the bonus on top).
    pub score: Points,
    /// Seconds the run took (or [`FIXED_TIME_ENV`]'s value).
    pub execution_time: u64,
    /// Text shown above the tests.
    pub output: String,
    /// Format of `output`.
    pub output_format: &'static str,
    /// Format of every test's `output`.
    pub test_output_format: &'static str,
    /// One per check.
    pub tests: Vec<Test>,
}

/// One check, as Gradescope shows it.
#[derive(Clone, Debug, Serialize)]
pub struct Test {
    /// `id — title`.
    pub name: String,
    /// `"1.3"`: exercise and position.
    pub number: String,
    /// Points earned.
    pub score: Points,
    /// Points possible.
    pub max_score: Points,
    /// `passed` or `failed`.
    pub status: &'static str,
    /// The Spanish explanation (empty when it passed).
    pub output: String,
    /// Who sees it, from the rubric.
    pub visibility: Visibility,
    /// The exercise id.
    pub tags: Vec<String>,
    /// The check's stable id.
    pub extra_data: Extra,
}

/// Machine-readable extras of a test.
#[derive(Clone, Debug, Serialize)]
pub struct Extra {
    /// The check id (`cobro/replay-devuelve-lo-guardado`).
    pub id: String,
}

/// What each test says when the code did not compile.
pub const NOT_RUN: &str =
    "no se pudo correr: tu código no compila (los errores del compilador, arriba, en el informe)";

/// The results of `sheet`.
pub fn results(sheet: &Sheet) -> Results {
    let mut output = format!(
        "Módulo 4 · Lección 2 — El doble cargo del reintento, medido\nVerificando: {}\n",
        sheet.who()
    );
    if let Some(line) = sheet.variants_line() {
        output.push_str(&line);
        output.push('\n');
    }
    match sheet.compile_block() {
        Some(block) => output.push_str(&block),
        None => output.push_str(
            "Cada verificación trae su explicación: lo esperado, lo obtenido y una pista en los términos de la lección.\n",
        ),
    }
    if let Some(bonus) = sheet.bonus_part() {
        output.push_str(&format!(
            "{}: sus puntos se suman por encima de los {} · {bonus}\n",
            bonus_exercises(sheet),
            sheet.total().1
        ));
    }
    Results {
        score: sheet.total().0 + sheet.bonus().0,
        execution_time: sheet.elapsed_secs,
        output,
        output_format: "text",
        test_output_format: "text",
        tests: sheet.rows.iter().map(test).collect(),
    }
}

/// `El ejercicio 4 es un bonus`, or `Los ejercicios 4 y 5 son un bonus`:
/// the exercises of `sheet`'s bonus checks.
fn bonus_exercises(sheet: &Sheet) -> String {
    let mut numbers: Vec<String> = Vec::new();
    for row in sheet.rows.iter().filter(|r| r.bonus) {
        let n = row.check.exercise.number().to_string();
        if !numbers.contains(&n) {
            numbers.push(n);
        }
    }
    let numbers: Vec<&str> = numbers.iter().map(String::as_str).collect();
    match numbers[..] {
        [one] => format!("El ejercicio {one} es un bonus"),
        _ => format!(
            "Los ejercicios {} son un bonus",
            judge::catalog::listed(&numbers, "y")
        ),
    }
}

fn test(row: &Row) -> Test {
    // The compiler's errors are said once, in the top-level `output`.
    let output = if matches!(row.verdict, judge::verdict::Verdict::NotCompiled { .. }) {
        NOT_RUN.to_string()
    } else {
        row.explanation()
    };
    let mut tags = vec![row.check.exercise.id().to_string()];
    if row.bonus {
        tags.push("bonus".to_string());
    }
    Test {
        name: format!(
            "{}{} — {}",
            if row.bonus { "bonus · " } else { "" },
            row.check.id,
            row.check.title
        ),
        number: row.number.clone(),
        score: row.points,
        max_score: row.max,
        status: if row.verdict.passed() {
            "passed"
        } else {
            "failed"
        },
        output,
        visibility: row.visibility,
        tags,
        extra_data: Extra {
            id: row.check.id.clone(),
        },
    }
}

/// `results.json` of `sheet`, pretty-printed, ending with a newline.
pub fn render(sheet: &Sheet) -> String {
    let mut json = serde_json::to_string_pretty(&results(sheet))
        .unwrap_or_else(|e| format!("{{\"score\": 0, \"output\": \"error interno: {e}\"}}"));
    json.push('\n');
    json
}

/// A `results.json` without tests for a submission that could not be
/// graded (`sin-archivos`, `rechazada`): score 0 and `message` as the
/// top-level `output`, as `run_autograder` writes it.
pub fn unscored(message: &str) -> String {
    let value = serde_json::json!({
        "score": 0,
        "execution_time": 0,
        "output": message,
        "output_format": "text",
        "tests": [],
    });
    let mut json = serde_json::to_string_pretty(&value).unwrap_or_default();
    json.push('\n');
    json
}
