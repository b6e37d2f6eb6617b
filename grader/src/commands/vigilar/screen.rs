//! What `vigilar` shows after each grading: the three exercises in one
//! progress line, the exercise to work on as the report renders it, what
//! to do next, the hint on request, and, when all three pass, the lesson's
//! fleet with the student's code and its before-and-after.
//!
//! Rendered with ANSI colours, like the text report; the terminal writer
//! strips them with `NO_COLOR`.

use std::fmt::Write;

use sim::money::group_thousands;

use crate::before_after::comparison::Worlds;
use crate::report::sheet::{Row, Sheet};
use crate::report::text::{self, Hints};
use judge::verdict::{Exercise, Verdict};

const GREEN: &str = "\x1b[32m";
const RED: &str = "\x1b[31m";
const YELLOW: &str = "\x1b[33m";
const BOLD: &str = "\x1b[1m";
const RESET: &str = "\x1b[0m";

/// What a pending exercise's line says to do after filling in the `todo!()`.
const RERUN: &str = "guarda";

/// One grading, as `vigilar` keeps it.
pub struct Graded {
    /// The scored checks.
    pub sheet: Sheet,
    /// The lesson's fleet with the student's code, when every exercise
    /// passed.
    pub fleet: Option<Fleet>,
}

/// The lesson's fleet (`escenario flota-1000`) and its before-and-after
/// (`comparar`), run with the student's harness.
pub struct Fleet {
    /// The fixture's name (`flota-1000`).
    pub name: String,
    /// The lesson's table, or why it could not be produced.
    pub table: Result<String, String>,
    /// Whether the table matches the lesson's expected output (`None`: no
    /// expected output to compare with).
    pub matches: Option<bool>,
    /// Both worlds' figures, or why they could not be produced.
    pub worlds: Result<Worlds, String>,
}

/// What is on screen: an exercise, or the fleet once all three pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum View {
    /// One exercise's checks.
    Exercise(Exercise),
    /// The lesson's fleet and the `comparar` line.
    Fleet,
}

impl View {
    /// What `sheet` opens on: the first exercise whose file the compiler's
    /// errors name, else the first exercise that is not done (a bonus only
    /// once it is started: still all `todo!()`, it waits), else the fleet.
    pub fn first(sheet: &Sheet) -> View {
        if let Some(e) = sheet.compile_exercises().first() {
            return View::Exercise(*e);
        }
        let exercises = sheet.exercises();
        let open = |e: &&Exercise| !text::exercise_done(sheet, **e);
        exercises
            .iter()
            .filter(|e| !is_bonus(sheet, **e))
            .find(open)
            .or_else(|| {
                exercises
                    .iter()
                    .filter(|e| is_bonus(sheet, **e) && !untouched(sheet, **e))
                    .find(open)
            })
            .map_or(View::Fleet, |e| View::Exercise(*e))
    }

    /// The views `n` and `p` move through: the graded exercises, and the
    /// fleet when all of them pass (the bonus apart).
    pub fn all(sheet: &Sheet) -> Vec<View> {
        let exercises = sheet.exercises();
        let done = exercises
            .iter()
            .all(|e| is_bonus(sheet, *e) || text::exercise_done(sheet, *e));
        let mut views: Vec<View> = exercises.into_iter().map(View::Exercise).collect();
        if done {
            views.push(View::Fleet);
        }
        views
    }

    /// The view after (or before) this one, wrapping around.
    pub fn step(self, sheet: &Sheet, forward: bool) -> View {
        let views = View::all(sheet);
        let n = views.len();
        if n == 0 {
            return self;
        }
        let i = views.iter().position(|v| *v == self);
        let j = match (i, forward) {
            (Some(i), true) => (i + 1) % n,
            (Some(i), false) => (i + n - 1) % n,
            (None, true) => 0,
            (None, false) => n - 1,
        };
        views[j]
    }
}

/// The whole screen. `graded` is `None` before the first grading ends;
/// `status` is the line about the last or current grading.
pub fn render(graded: Option<&Graded>, view: View, hint: bool, status: &str) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{BOLD}Módulo 4 · Lección 2 — vigilar: verifico tus ejercicios cada vez que guardas{RESET}"
    );
    match graded {
        None => {
            let _ = writeln!(
                out,
                "\nCompilando y verificando tu código (la primera vez tarda más)…"
            );
        }
        Some(g) => body(&mut out, g, view, hint),
    }
    let _ = writeln!(out, "\n{status}");
    let _ = writeln!(
        out,
        "Teclas: q salir · r verificar de nuevo · n/p ejercicio siguiente/anterior · h pista"
    );
    out
}

fn body(out: &mut String, g: &Graded, view: View, hint: bool) {
    let sheet = &g.sheet;
    let _ = writeln!(out, "{}", progress(sheet));
    let colour = if sheet.full_marks() { GREEN } else { RED };
    let _ = writeln!(out, "{colour}{}{RESET}", sheet.score_line());
    if let Some(block) = sheet.compile_block() {
        let _ = write!(out, "\n{RED}✗{RESET} {block}");
    }
    match view {
        View::Exercise(e) => {
            out.push('\n');
            out.push_str(&text::exercise_block(sheet, e, RERUN, Hints::OnRequest));
            if hint {
                let _ = writeln!(out, "\n{}", hint_of(sheet, e));
            }
            let _ = writeln!(out, "\n{}", next_step(sheet, e, hint));
        }
        View::Fleet => match &g.fleet {
            Some(fleet) => fleet_block(out, fleet),
            None => {
                let _ = writeln!(
                    out,
                    "\n{GREEN}¡Todo pasa!{RESET} Siguiente: `cargo run -p grader` para el informe completo, con los casos grandes (más de un millón de keys, intentos y órdenes), que `vigilar` no corre."
                );
            }
        },
    }
}

/// `Progreso: ✓ 1 cobro · ✗ 2 cliente · … 3 reconciliacion · … 4 atomico
/// (bonus)`: ✓ every check passes, … still `todo!()`, ✗ anything else.
/// When the code does not compile and the errors name some exercises'
/// files, those are ✗ and the others `– … sin verificar` (nothing ran).
pub fn progress(sheet: &Sheet) -> String {
    let broken = sheet.compile_exercises();
    let unverified = sheet.compile_errors().is_some() && !broken.is_empty();
    let marks: Vec<String> = sheet
        .exercises()
        .into_iter()
        .map(|e| {
            let bonus = if is_bonus(sheet, e) { " (bonus)" } else { "" };
            if unverified && !broken.contains(&e) {
                return format!(
                    "{YELLOW}–{RESET} {} {}{bonus} sin verificar",
                    e.number(),
                    e.id()
                );
            }
            let mark = if text::exercise_done(sheet, e) {
                format!("{GREEN}✓{RESET}")
            } else if untouched(sheet, e) {
                format!("{YELLOW}…{RESET}")
            } else {
                format!("{RED}✗{RESET}")
            };
            format!("{mark} {} {}{bonus}", e.number(), e.id())
        })
        .collect();
    format!("Progreso: {}", marks.join(" · "))
}

/// Whether `e`'s checks are a bonus in `sheet`.
fn is_bonus(sheet: &Sheet, e: Exercise) -> bool {
    sheet.of(e).any(|r| r.bonus)
}

/// Whether every check of `e` is still a `todo!()`.
fn untouched(sheet: &Sheet, e: Exercise) -> bool {
    sheet
        .of(e)
        .all(|r| matches!(r.verdict, Verdict::Pending { .. }))
}

/// The first check of `e` that does not pass, as the report shows it.
fn first_failing(sheet: &Sheet, e: Exercise) -> Option<&Row> {
    sheet.failing_in_order(e).into_iter().next()
}

/// `Siguiente: …` for the exercise on screen (`hint`: its hint is shown).
fn next_step(sheet: &Sheet, e: Exercise, hint: bool) -> String {
    if sheet.compile_errors().is_some() {
        return "Siguiente: corrige el primer error del compilador (arriba) y guarda; vuelvo a verificar solo.".to_string();
    }
    match first_failing(sheet, e) {
        Some(row) if matches!(row.verdict, Verdict::Pending { .. }) => format!(
            "Siguiente: reemplaza el todo!() de {} en {} y guarda.",
            e.function(),
            e.file()
        ),
        Some(row) => format!(
            "Siguiente: arregla «{}» en {} y guarda · `h` {}.",
            row.check.title,
            e.file(),
            if hint {
                "oculta la pista"
            } else {
                "muestra su pista"
            }
        ),
        None => match View::first(sheet) {
            // `n` moves forward, `p` back: the key that goes there.
            View::Exercise(next) => format!(
                "{GREEN}Este ejercicio pasa.{RESET} Siguiente: Ejercicio {} ({}, {}) · `{}` lleva hasta él.",
                next.number(),
                next.file(),
                next.function(),
                if next.number() > e.number() { 'n' } else { 'p' }
            ),
            View::Fleet => format!(
                "{GREEN}Los {} ejercicios pasan.{RESET} `n` muestra tu flota de la lección.",
                judge::catalog::course_count_in_words()
            ),
        },
    }
}

/// The hint of `e`'s first failing check, in the lesson's terms.
fn hint_of(sheet: &Sheet, e: Exercise) -> String {
    let Some(row) = first_failing(sheet, e) else {
        return format!("{YELLOW}Pista{RESET}: este ejercicio pasa todas sus verificaciones.");
    };
    let text = match &row.verdict {
        Verdict::Failed { hint, .. } | Verdict::Counterexample { hint, .. } => hint.clone(),
        Verdict::Pending { location } => format!(
            "reemplaza el todo!() de {} ({location}); la tarea está en el comentario de la función.",
            e.function()
        ),
        Verdict::Panicked { message, location } => format!(
            "tu código entró en pánico en {location}: {message}. Abre esa línea: ¿un índice fuera de rango, un unwrap de None o una cuenta que se desborda?"
        ),
        Verdict::NotCompiled { .. } => {
            "lee el primer error del compilador (arriba): dice el archivo, la línea y qué esperaba."
                .to_string()
        }
        Verdict::Refused { .. } => {
            "quita lo que señalan las líneas de arriba (archivo:línea:columna): el ejercicio no lo necesita (ver «Qué código acepta el juez» en el README)."
                .to_string()
        }
        other => other.explanation().join(" "),
    };
    format!(
        "{YELLOW}Pista{RESET} ({} {}): {text}",
        row.number, row.check.title
    )
}

/// Every exercise passes: the lesson's table with the student's code and the
/// `comparar` line.
fn fleet_block(out: &mut String, fleet: &Fleet) {
    let _ = writeln!(
        out,
        "\n{GREEN}¡Los {} ejercicios pasan!{RESET} La flota de la lección con tu código (escenario {}):\n",
        judge::catalog::course_count_in_words(),
        fleet.name
    );
    match &fleet.table {
        Ok(table) => out.push_str(table),
        Err(why) => {
            let _ = writeln!(out, "  {RED}✗{RESET} no se pudo correr la flota: {why}");
        }
    }
    match fleet.matches {
        Some(true) => {
            let _ = writeln!(
                out,
                "\n  {GREEN}✓{RESET} Coincide con la tabla de la lección."
            );
        }
        Some(false) => {
            let _ = writeln!(
                out,
                "\n  {RED}✗{RESET} No coincide con la tabla de la lección: `cargo run -p grader -- escenario {}` muestra las diferencias.",
                fleet.name
            );
        }
        None => {}
    }
    match &fleet.worlds {
        Ok(w) => {
            let _ = writeln!(out, "\n{}", comparar_line(w));
        }
        Err(why) => {
            let _ = writeln!(out, "\ncomparar: {RED}no se pudo correr{RESET}: {why}");
        }
    }
    let _ = writeln!(
        out,
        "\nSiguiente: `cargo run -p grader -- comparar` para el antes y el después completo, `barrido --svg barrido.svg` para el gráfico, o `ver --html ledger.html` para el ledger orden por orden."
    );
}

/// `comparar: sobrecobro $48,139 (18.7%) SIN idempotencia → $0 (0.0%) CON
/// idempotency_key · 1,184 intentos en cada mundo`.
fn comparar_line(w: &Worlds) -> String {
    let (b, a) = (&w.before, &w.after);
    let attempts = if b.attempts == a.attempts {
        format!("{} intentos en cada mundo", group_thousands(b.attempts))
    } else {
        format!(
            "{} y {} intentos",
            group_thousands(b.attempts),
            group_thousands(a.attempts)
        )
    };
    format!(
        "{BOLD}comparar{RESET}: sobrecobro {} ({}) SIN idempotencia → {} ({}) CON idempotency_key · {attempts}",
        b.overcharge,
        b.overcharge_pct(),
        a.overcharge,
        a.overcharge_pct(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use judge::checks::Catalog;
    use judge::grading;
    use judge::rubric::Rubric;
    use judge::runner::diagnostics::Cause;
    use judge::variants::Plan;

    /// `vigilar` opens on the exercise whose file does not compile, not on
    /// exercise 1.
    #[test]
    fn a_compile_error_opens_the_exercise_whose_file_has_it() {
        let catalog = Catalog::new(Vec::new(), &Exercise::LESSONS);
        let error = "error: mismatched types\n --> exercises/src/client.rs:40:9".to_string();
        let graded = grading::not_compiled(&catalog, "exercises", &Cause::Compile(vec![error]));
        let sheet = Sheet::new(&graded, &Rubric::kit().unwrap(), &Plan::default(), &[]);
        assert_eq!(View::first(&sheet), View::Exercise(Exercise::Cliente));
        let screen = render(
            Some(&Graded { sheet, fleet: None }),
            View::Exercise(Exercise::Cliente),
            false,
            "",
        );
        assert!(
            screen.contains("Ejercicio 2 · Una idempotency key por operación"),
            "{screen}"
        );
        assert!(!screen.contains("Ejercicio 1 ·"), "{screen}");
        // Only the exercise whose file has the error is ✗; nothing ran for
        // the others.
        let line = screen.lines().find(|l| l.starts_with("Progreso:")).unwrap();
        assert_eq!(
            judge::output::strip_colours(line),
            "Progreso: – 1 cobro sin verificar · ✗ 2 cliente · – 3 reconciliacion sin verificar · – 4 atomico (bonus) sin verificar"
        );
    }
}
