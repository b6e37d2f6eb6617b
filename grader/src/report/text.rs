//! The Spanish report students read: each exercise, its checks with their
//! points, and the score.
//!
//! Rendered with ANSI colours; [`judge::output`] strips them when the output
//! is not a terminal or `NO_COLOR` is set.

use std::fmt::Write;

use crate::report::sheet::{Row, Sheet};
use judge::checks::CheckTarget;
use judge::verdict::{Exercise, Verdict};

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
        if sheet.of(exercise).next().is_some() {
            out.push('\n');
            out.push_str(&exercise_block(sheet, exercise, RERUN, Hints::Shown));
        }
    }
    let colour = if sheet.full_marks() { GREEN } else { RED };
    let _ = writeln!(out, "\n{BOLD}{colour}{}{RESET}", sheet.score_line());
    let _ = writeln!(out, "{}", progress(sheet));
    out
}

/// Whether an exercise block shows the hints of its failing checks (the
/// report) or leaves them for the student to ask for (`vigilar`'s `h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hints {
    /// Every failing check with its `pista:` line.
    Shown,
    /// No `pista:` lines.
    OnRequest,
}

/// What the report tells a student to do after filling in a `todo!()`.
const RERUN: &str = "vuelve a correr `cargo run -p grader`";

/// One exercise of `sheet` as the report shows it: its title, file and
/// function, its checks (or the pending `todo!()`, or "no compila"), and its
/// points; empty when the sheet has no checks of it. `rerun` ends the
/// pending line ("Complétalo y {rerun}."); `hints` says whether the failing
/// checks show their `pista:` lines.
pub fn exercise_block(sheet: &Sheet, exercise: Exercise, rerun: &str, hints: Hints) -> String {
    let mut out = String::new();
    let results: Vec<&Row> = sheet.of(exercise).collect();
    if results.is_empty() {
        return out;
    }
    let passed = results.iter().filter(|r| r.verdict.passed()).count();
    let (points, max) = Sheet::points_of(results.iter().copied());
    let of_bonus = if results.iter().any(|r| r.bonus) {
        " de bonus"
    } else {
        ""
    };
    if passed == results.len() {
        // Done: one line, so the report leads to what is left.
        let _ = writeln!(
            out,
            "{BOLD}Ejercicio {} · {}{RESET}: {GREEN}✓{RESET} {passed}/{passed} verificaciones · {points}/{max} puntos{of_bonus}",
            exercise.number(),
            exercise.title()
        );
        return out;
    }
    let _ = writeln!(
        out,
        "{BOLD}Ejercicio {} · {}{RESET}",
        exercise.number(),
        exercise.title()
    );
    let _ = writeln!(out, "  {} · {}", exercise.file(), exercise.function());
    let pending: Vec<&Verdict> = results
        .iter()
        .map(|r| &r.verdict)
        .filter(|v| matches!(v, Verdict::Pending { .. }))
        .collect();
    let broken = sheet.compile_exercises();
    if sheet.compile_errors().is_some() && (broken.is_empty() || broken.contains(&exercise)) {
        let _ = writeln!(
            out,
            "  {RED}✗{RESET} no compila: ninguna verificación pudo correr (los errores, arriba)."
        );
    } else if sheet.compile_errors().is_some() {
        let files: Vec<&str> = broken.iter().map(|e| e.file()).collect();
        let _ = writeln!(
            out,
            "  {YELLOW}…{RESET} sin verificar: los errores del compilador (arriba) están en {}; corrígelos y este ejercicio se verifica.",
            files.join(" y ")
        );
    } else if pending.len() == results.len() {
        let location = match pending[0] {
            Verdict::Pending { location } => location.as_str(),
            _ => "",
        };
        let _ = writeln!(
            out,
            "  {YELLOW}… PENDIENTE{RESET}: {} todavía es todo!() ({location}). Complétalo y {rerun}.",
            exercise.function()
        );
    } else {
        rows(&mut out, &results, &sheet.failing_in_order(exercise), hints);
    }
    let _ = writeln!(
        out,
        "  {passed}/{} verificaciones · {points}/{max} puntos{of_bonus}",
        results.len()
    );
    out
}

/// Whether every check of `exercise` in `sheet` passed (false when it has
/// none).
pub fn exercise_done(sheet: &Sheet, exercise: Exercise) -> bool {
    let mut rows = sheet.of(exercise).peekable();
    rows.peek().is_some() && rows.all(|r| r.verdict.passed())
}

/// One exercise's checks, when some failed (`in_order`: the failing ones,
/// as [`Sheet::failing_in_order`] orders them): every failing fixed and
/// model-based check with its explanation; the failing whole-scenario checks
/// in one line when a check above already failed (the same cause), so the
/// first failing check is the one to read; everything that passes in one
/// line.
fn rows(out: &mut String, results: &[&Row], in_order: &[&Row], hints: Hints) {
    let is_scenario = |r: &Row| matches!(r.check.target, CheckTarget::Scenario(_));
    let unit_failed = results
        .iter()
        .any(|r| !is_scenario(r) && !r.verdict.passed());
    let mut fixed_failed = false;
    let mut seen_causes: Vec<Option<String>> = Vec::new();
    for row in in_order.iter().filter(|r| !is_scenario(r)) {
        let is_model = matches!(row.check.target, CheckTarget::Model(_));
        if is_model && fixed_failed {
            let _ = writeln!(
                out,
                "  {RED}✗{RESET} {} ({}/{} pts): la misma causa que arriba; corrígela primero",
                row.check.title, row.points, row.max
            );
            continue;
        }
        // A second check failing with the very hint (or panic) of one above:
        // the same mistake, said once.
        let cause = same_cause_key(&row.verdict);
        if cause.is_some() && seen_causes.contains(&cause) {
            let _ = writeln!(
                out,
                "  {RED}✗{RESET} {} ({}/{} pts): la misma causa que arriba",
                row.check.title, row.points, row.max
            );
            continue;
        }
        seen_causes.push(cause);
        fixed_failed |= !is_model;
        row_in_full(out, row, hints);
    }
    let failing: Vec<&Row> = in_order
        .iter()
        .copied()
        .filter(|r| is_scenario(r))
        .collect();
    if unit_failed && !failing.is_empty() {
        let names: Vec<&str> = failing.iter().map(|r| scenario_name(r)).collect();
        let (points, max) = Sheet::points_of(failing.iter().copied());
        let _ = writeln!(
            out,
            "  {RED}✗{RESET} {} escenario(s) fallan por la misma causa que arriba: {} ({points}/{max} pts)",
            failing.len(),
            names.join(", ")
        );
    } else {
        for row in &failing {
            row_in_full(out, row, hints);
        }
    }
    let all_passing: Vec<&Row> = results
        .iter()
        .copied()
        .filter(|r| r.verdict.passed())
        .collect();
    if !all_passing.is_empty() {
        let (points, max) = Sheet::points_of(all_passing.iter().copied());
        let _ = writeln!(
            out,
            "  {GREEN}✓{RESET} {} verificación(es) más pasan ({points}/{max} pts)",
            all_passing.len()
        );
    }
}

/// What makes two failing checks the same mistake: the hint of a wrong
/// answer, or the place and message of a panic; `None` for the rest.
fn same_cause_key(verdict: &Verdict) -> Option<String> {
    match verdict {
        Verdict::Failed { hint, .. } => Some(hint.clone()),
        // The same rule broken (exercise 4's concurrent checks: one
        // check-then-insert breaks four of them), told once.
        Verdict::Counterexample { hint, .. } => Some(hint.clone()),
        Verdict::Panicked { message, location } => Some(format!("pánico en {location}: {message}")),
        Verdict::Refused { uses } => Some(uses.join("\n")),
        _ => None,
    }
}

/// The scenario's name in a check id (`cobro/flota-1000` → `flota-1000`).
fn scenario_name(row: &Row) -> &str {
    row.check
        .id
        .split_once('/')
        .map_or(&row.check.id, |(_, n)| n)
}

/// One check with its mark, points and explanation.
fn row_in_full(out: &mut String, row: &Row, hints: Hints) {
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
    let explanation = match hints {
        Hints::Shown => row.verdict.explanation(),
        Hints::OnRequest => row.verdict.explanation_without_hint(),
    };
    for line in explanation.iter().chain(&row.notes) {
        let _ = writeln!(out, "      {line}");
    }
    if matches!(row.verdict, Verdict::TimedOut { .. }) {
        // Only where the student runs the grader: Gradescope and JUnit
        // reports come from a command they cannot change.
        let _ = writeln!(
            out,
            "      si tu código es correcto pero lento, sube el mínimo con --timeout SEGUNDOS"
        );
    }
}

/// `Progreso: 1/3 ejercicios · siguiente: …`: how many of the graded
/// exercises pass whole (the bonus apart), and where to go next (the bonus
/// after the others).
fn progress(sheet: &Sheet) -> String {
    if sheet.compile_errors().is_some() {
        return "Progreso: tu código no compila · siguiente: corrige el primer error del compilador (arriba) y vuelve a correr `cargo run -p grader`".to_string();
    }
    let bonus = |e: &Exercise| sheet.of(*e).any(|r| r.bonus);
    let graded = sheet.exercises();
    let main: Vec<Exercise> = graded.iter().copied().filter(|e| !bonus(e)).collect();
    let done: Vec<Exercise> = main
        .iter()
        .copied()
        .filter(|e| exercise_done(sheet, *e))
        .collect();
    // Every exercise of the course graded (a rubric may count the bonus in:
    // then it is one of them).
    let whole = Exercise::ALL
        .iter()
        .filter(|e| !e.bonus())
        .all(|e| main.contains(e));
    let mut head = if whole {
        format!("Progreso: {}/{} ejercicios", done.len(), main.len())
    } else if main.is_empty() {
        // Only the bonus was graded (`--ejercicio atomico`).
        let names: Vec<&str> = graded.iter().map(|e| e.id()).collect();
        format!("Progreso: {} (bonus)", names.join(", "))
    } else {
        let (points, max) = sheet.total();
        let names: Vec<&str> = graded.iter().map(|e| e.id()).collect();
        format!(
            "Progreso: {} · {points}/{max} puntos de lo calificado",
            names.join(", ")
        )
    };
    let bonus_left: Vec<Exercise> = graded
        .iter()
        .copied()
        .filter(|e| bonus(e) && !exercise_done(sheet, *e))
        .collect();
    if whole && graded.iter().any(bonus) {
        head.push_str(if bonus_left.is_empty() {
            " + el bonus"
        } else {
            " (el bonus, aparte)"
        });
    }
    let next = main.iter().find(|e| !done.contains(e));
    let next_step =
        |e: &Exercise| format!("Ejercicio {} ({}, {})", e.number(), e.file(), e.function());
    match next {
        Some(e) => format!("{head} · siguiente: {}", next_step(e)),
        None if whole && !bonus_left.is_empty() => format!(
            "{head} · los {} pasan; si quieres el bonus: {}",
            judge::catalog::course_count_in_words(),
            next_step(&bonus_left[0])
        ),
        None if whole && sheet.target == "solutions" => {
            format!("{head} · la referencia pasa todo")
        }
        None if whole => format!(
            "{head} · ¡listo! Mira tu flota: `cargo run -p grader -- escenario flota-1000`, `comparar` y el ledger orden por orden con `ver --html ledger.html`"
        ),
        None if main.is_empty() => match bonus_left.first() {
            Some(e) => format!("{head} · siguiente: {}", next_step(e)),
            None => format!("{head} · el bonus pasa"),
        },
        None => {
            let rest: Vec<&str> = Exercise::ALL
                .iter()
                .filter(|e| !e.bonus() && !graded.contains(e))
                .map(|e| e.id())
                .collect();
            // The others were not graded: whether they pass is not known.
            format!(
                "{head} · {} no se verificaron en esta corrida: `cargo run -p grader` verifica los {}",
                judge::catalog::listed(&rest, "y"),
                judge::catalog::course_count_in_words()
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use judge::checks::Catalog;
    use judge::grading;
    use judge::rubric::Rubric;
    use judge::runner::diagnostics::Cause;
    use judge::variants::Plan;

    /// A sheet where nothing compiled, the compiler naming `file`.
    fn not_compiled(file: &str) -> Sheet {
        let error = format!("error: expected one of `!` or `::`\n --> {file}:12:5");
        let catalog = Catalog::new(Vec::new(), &[]);
        let graded = grading::not_compiled(&catalog, "exercises", &Cause::Compile(vec![error]));
        Sheet::new(&graded, &Rubric::kit().unwrap(), &Plan::default(), &[])
    }

    /// A compile error in client.rs is shown under exercise 2; the other
    /// exercises say where the errors are.
    #[test]
    fn compile_errors_are_shown_under_the_exercise_whose_file_has_them() {
        let sheet = not_compiled("exercises/src/client.rs");
        assert_eq!(sheet.compile_exercises(), [Exercise::Cliente]);
        let block = |e| {
            exercise_block(&sheet, e, RERUN, Hints::Shown)
                .replace(YELLOW, "")
                .replace(RED, "")
                .replace(RESET, "")
        };
        assert!(
            block(Exercise::Cliente).contains(
                "  ✗ no compila: ninguna verificación pudo correr (los errores, arriba)."
            ),
            "{}",
            block(Exercise::Cliente)
        );
        for e in [Exercise::Cobro, Exercise::Reconciliacion] {
            let text = block(e);
            assert!(
                text.contains("  … sin verificar: los errores del compilador (arriba) están en exercises/src/client.rs; corrígelos y este ejercicio se verifica."),
                "{text}"
            );
            assert!(!text.contains("no compila"), "{text}");
        }
    }
}
