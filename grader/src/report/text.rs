//! The Spanish report students read: each exercise, its checks with their
//! points, and the score.
//!
//! Rendered with ANSI colours; [`crate::output`] strips them when the output
//! is not a terminal or `NO_COLOR` is set.

use std::fmt::Write;

use crate::report::sheet::{Row, Sheet};
use crate::verdict::{Exercise, Verdict};

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// The whole report: each exercise with its checks and points, ending with
/// the score line (`Puntaje: 42/100 puntos (7/34 verificaciones)`).
pub fn render(sheet: &Sheet) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{BOLD}Módulo 4 · Lección 2 — El doble cargo del reintento, medido{RESET}"
    );
    let _ = writeln!(out, "Verificando: {}", sheet.who());
    if let Some(line) = sheet.variants_line() {
        let _ = writeln!(out, "{line}");
    }
    if let Some(block) = sheet.compile_block() {
        let _ = write!(out, "\n{RED}✗{RESET} {block}");
    }
    for exercise in Exercise::ALL {
        let results: Vec<&Row> = sheet.of(exercise).collect();
        if results.is_empty() {
            continue;
        }
        let passed = results.iter().filter(|r| r.verdict.passed()).count();
        let (points, max) = Sheet::points_of(results.iter().copied());
        let _ = writeln!(
            out,
            "\n{BOLD}Ejercicio {} · {}{RESET}",
            exercise.number(),
            exercise.title()
        );
        let _ = writeln!(out, "  {} · {}", exercise.file(), exercise.function());
        let pending: Vec<&Verdict> = results
            .iter()
            .map(|r| &r.verdict)
            .filter(|v| matches!(v, Verdict::Pending { .. }))
            .collect();
        if sheet.compile_errors().is_some() {
            let _ = writeln!(
                out,
                "  {RED}✗{RESET} no compila: ninguna verificación pudo correr (los errores, arriba)."
            );
        } else if pending.len() == results.len() {
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
            for row in &results {
                let mark = match row.verdict {
                    Verdict::Passed => format!("{GREEN}✓{RESET}"),
                    Verdict::Pending { .. } => format!("{YELLOW}…{RESET}"),
                    _ => format!("{RED}✗{RESET}"),
                };
                let _ = writeln!(
                    out,
                    "  {mark} {} ({}/{} pts)",
                    row.check.title, row.points, row.max
                );
                for line in row.verdict.explanation().iter().chain(&row.notes) {
                    let _ = writeln!(out, "      {line}");
                }
                if matches!(row.verdict, Verdict::TimedOut { .. }) {
                    // Only where the student runs the grader: Gradescope
                    // and JUnit reports come from a command they cannot change.
                    let _ = writeln!(
                        out,
                        "      si tu código es correcto pero lento, sube el mínimo con --timeout SEGUNDOS"
                    );
                }
            }
        }
        let _ = writeln!(
            out,
            "  {passed}/{} verificaciones · {points}/{max} puntos",
            results.len()
        );
    }
    let (passed, total) = sheet.passed();
    let colour = if passed == total { GREEN } else { RED };
    let _ = writeln!(out, "\n{BOLD}{colour}{}{RESET}", sheet.score_line());
    out
}
