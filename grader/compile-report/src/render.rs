//! The failure report in the grader's three formats: every exercise scored 0
//! of its rubric points, failed, with the compiler's errors as explanation.

use quick_junit::{NonSuccessKind, Property, Report, TestCase, TestCaseStatus, TestSuite};
use serde::Serialize;

use crate::diagnostics::{Cause, signal_name};
use crate::rubric::{Points, Visibility};
use crate::verdict::Exercise;

/// What the report says.
#[derive(Clone, Debug)]
pub struct Failure {
    /// Why nothing could be graded.
    pub cause: Cause,
    /// The exercises that would have been graded, with the points each was
    /// worth.
    pub exercises: Vec<(Exercise, Points)>,
    /// Seconds, for Gradescope's `execution_time`.
    pub execution_time: u64,
}

impl Failure {
    /// The Spanish headline.
    pub fn headline(&self) -> String {
        match &self.cause {
            Cause::Compile(_) => {
                "Tu código no compila: el grader no puede correr ninguna verificación.".to_string()
            }
            Cause::Other(_) => "El grader no pudo calificar esta entrega.".to_string(),
            Cause::Ended { status, .. } => {
                let how = match status {
                    0 | 1 => format!(
                        "terminó (estado {status}) pero su informe falta o no se puede leer"
                    ),
                    129..=192 => {
                        let n = status - 128;
                        match signal_name(n) {
                            Some(name) => format!(
                                "terminó por la señal {n} ({name}, estado {status}) sin entregar su informe"
                            ),
                            None => format!(
                                "terminó por la señal {n} (estado {status}) sin entregar su informe"
                            ),
                        }
                    }
                    _ => format!("terminó con estado {status} sin entregar su informe"),
                };
                format!("El grader {how}: esta entrega vale 0.")
            }
        }
    }

    /// The explanation: the headline, then the errors.
    pub fn explanation(&self) -> String {
        match &self.cause {
            Cause::Compile(errors) => format!(
                "{}\nLos primeros errores del compilador (rutas relativas al repositorio):\n\n{}",
                self.headline(),
                errors.join("\n\n")
            ),
            Cause::Other(log) => format!(
                "{}\nLo que se dijo al intentarlo:\n\n{log}",
                self.headline()
            ),
            Cause::Ended { log, .. } => {
                let log = if log.is_empty() {
                    "(nada en su salida de error)"
                } else {
                    log
                };
                format!(
                    "{}\nSolo cuenta el informe que el grader entrega al terminar normalmente; \
                     cualquier results.json que haya quedado escrito se descarta. Si tu código \
                     termina procesos o escribe archivos fuera de exercises/, quítalo; si no, \
                     avisa a tu instructor.\nLo que dijo el grader:\n\n{log}",
                    self.headline()
                )
            }
        }
    }

    /// Points possible over every exercise.
    pub fn max(&self) -> Points {
        self.exercises.iter().map(|(_, p)| *p).sum()
    }

    /// The last line of the text report.
    pub fn score_line(&self) -> String {
        let why = match self.cause {
            Cause::Compile(_) => "no compila",
            Cause::Other(_) | Cause::Ended { .. } => "no se pudo calificar",
        };
        format!("Puntaje: 0/{} puntos ({why})", self.max())
    }
}

/// The Spanish text report.
pub fn text(f: &Failure) -> String {
    let mut out = String::from(
        "Módulo 4 · Lección 2 — El doble cargo del reintento, medido\nVerificando: exercises (tu código)\n\n",
    );
    let mut lines = f
        .explanation()
        .lines()
        .map(str::to_string)
        .collect::<Vec<_>>();
    if let Some(first) = lines.first_mut() {
        *first = format!("✗ {first}");
    }
    for (i, line) in lines.iter().enumerate() {
        let indent = if i == 0 || line.is_empty() { "" } else { "  " };
        out.push_str(&format!("{indent}{line}\n"));
    }
    out.push('\n');
    for (exercise, max) in &f.exercises {
        out.push_str(&format!(
            "Ejercicio {} · {}: 0/{max} puntos\n",
            exercise.number(),
            exercise.title()
        ));
    }
    out.push_str(&format!("\n{}\n", f.score_line()));
    out
}

#[derive(Serialize)]
struct Results {
    score: Points,
    execution_time: u64,
    output: String,
    output_format: &'static str,
    test_output_format: &'static str,
    tests: Vec<Test>,
}

#[derive(Serialize)]
struct Test {
    name: String,
    number: String,
    score: Points,
    max_score: Points,
    status: &'static str,
    output: String,
    visibility: Visibility,
    tags: Vec<String>,
    extra_data: Extra,
}

#[derive(Serialize)]
struct Extra {
    id: String,
}

/// Gradescope's `results.json`: one failed test per exercise.
pub fn gradescope(f: &Failure) -> String {
    let tests = f
        .exercises
        .iter()
        .map(|(exercise, max)| Test {
            name: format!(
                "{}/compilacion — Ejercicio {} · {}",
                exercise.id(),
                exercise.number(),
                exercise.title()
            ),
            number: exercise.number().to_string(),
            score: Points::ZERO,
            max_score: *max,
            status: "failed",
            output: f.explanation(),
            visibility: Visibility::Visible,
            tags: vec![exercise.id().to_string()],
            extra_data: Extra {
                id: format!("{}/compilacion", exercise.id()),
            },
        })
        .collect();
    let results = Results {
        score: Points::ZERO,
        execution_time: f.execution_time,
        output: format!(
            "Módulo 4 · Lección 2 — El doble cargo del reintento, medido\n{}\n{}\n",
            f.headline(),
            f.score_line()
        ),
        output_format: "text",
        test_output_format: "text",
        tests,
    };
    let mut json = serde_json::to_string_pretty(&results)
        .unwrap_or_else(|e| format!("{{\"score\": 0, \"output\": \"error interno: {e}\"}}"));
    json.push('\n');
    json
}

/// JUnit XML: one suite per exercise with one failed case.
pub fn junit(f: &Failure) -> String {
    let mut report = Report::new("grader · Módulo 4 · Lección 2");
    for (exercise, max) in &f.exercises {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
        status.set_type(match f.cause {
            Cause::Compile(_) => "compilacion",
            Cause::Other(_) | Cause::Ended { .. } => "sin-calificar",
        });
        status.set_message(f.headline());
        status.set_description(f.explanation());
        let mut case = TestCase::new(format!("{}/compilacion", exercise.id()), status);
        case.set_classname(exercise.id());
        let mut suite = TestSuite::new(exercise.id());
        suite.add_properties([
            Property::new(
                "titulo",
                format!("Ejercicio {} · {}", exercise.number(), exercise.title()),
            ),
            Property::new("archivo", exercise.file()),
            Property::new("puntos", format!("0/{max}")),
        ]);
        suite.add_test_case(case);
        report.add_test_suite(suite);
    }
    let mut xml = report.to_string().unwrap_or_else(|e| {
        format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- error interno: {e} -->")
    });
    if !xml.ends_with('\n') {
        xml.push('\n');
    }
    xml
}
