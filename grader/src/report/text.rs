//! The Spanish report students read: each exercise, its checks, and the score.
//!
//! Rendered with ANSI colours; [`crate::output`] strips them when the output
//! is not a terminal or `NO_COLOR` is set.

use std::fmt::Write;

use crate::grading::Graded;
use crate::verdict::{Exercise, Verdict};

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// The whole report, ending with the score line.
pub fn render(graded: &Graded) -> String {
    let mut out = String::new();
    let who = if graded.target == "solutions" {
        "solutions (la solución de referencia)"
    } else {
        "exercises (tu código)"
    };
    let _ = writeln!(
        out,
        "{BOLD}Módulo 4 · Lección 2 — El doble cargo del reintento, medido{RESET}"
    );
    let _ = writeln!(out, "Verificando: {who}");
    for exercise in Exercise::ALL {
        let results: Vec<_> = graded.of(exercise).collect();
        if results.is_empty() {
            continue;
        }
        let passed = results.iter().filter(|(_, v)| v.passed()).count();
        let _ = writeln!(
            out,
            "\n{BOLD}Ejercicio {} · {}{RESET}",
            exercise.number(),
            exercise.title()
        );
        let _ = writeln!(out, "  {} · {}", exercise.file(), exercise.function());
        let pending: Vec<&Verdict> = results
            .iter()
            .map(|(_, v)| v)
            .filter(|v| matches!(v, Verdict::Pending { .. }))
            .collect();
        if pending.len() == results.len() {
            let location = match pending[0] {
                Verdict::Pending { location } => location.as_str(),
                _ => "",
            };
            let _ = writeln!(
                out,
                "  {YELLOW}… PENDIENTE{RESET}: {} todavía es todo!() ({location}). Complétalo y vuelve a correr `cargo run -p grader`.",
                exercise.function()
            );
        } else {
            for (check, verdict) in &results {
                let mark = match verdict {
                    Verdict::Passed => format!("{GREEN}✓{RESET}"),
                    Verdict::Pending { .. } => format!("{YELLOW}…{RESET}"),
                    _ => format!("{RED}✗{RESET}"),
                };
                let _ = writeln!(out, "  {mark} {}", check.title);
                for line in verdict.explanation() {
                    let _ = writeln!(out, "      {line}");
                }
            }
        }
        let _ = writeln!(out, "  {passed}/{} verificaciones", results.len());
    }
    let (passed, total) = graded.score();
    let colour = if passed == total { GREEN } else { RED };
    let _ = writeln!(
        out,
        "\n{BOLD}{colour}Puntaje: {passed}/{total} verificaciones{RESET}"
    );
    out
}
