//! The scored results every report format renders: each check with its
//! number, points and visibility from the rubric, and, for a failed hidden
//! variant, its parameters and the command that reproduces it.

use judge::checks::Check;
use judge::grading::Graded;
use judge::rubric::{Points, Rubric, Visibility};
use judge::variants::Plan;
use judge::verdict::{Exercise, Verdict};

/// One check, scored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Row {
    /// `exercise.index` (`"1.3"`): the exercise number and the check's
    /// position within it, 1-based.
    pub number: String,
    /// The check.
    pub check: Check,
    /// Its verdict.
    pub verdict: Verdict,
    /// Points earned: `max` when it passed, else 0.
    pub points: Points,
    /// Points it is worth.
    pub max: Points,
    /// Who sees it on Gradescope.
    pub visibility: Visibility,
    /// Whether it is a hidden seeded variant.
    pub variant: bool,
    /// Whether its points are a bonus, counted apart from the score (its
    /// exercise is in the rubric's `[bonus]`).
    pub bonus: bool,
    /// Further Spanish lines after the explanation (a failed variant's
    /// parameters and reproduction command).
    pub notes: Vec<String>,
}

impl Row {
    /// The explanation lines and notes, as one text (empty for a pass).
    pub fn explanation(&self) -> String {
        let mut lines = self.verdict.explanation();
        lines.extend(self.notes.iter().cloned());
        lines.join("\n")
    }
}

/// Where a failing row goes in [`Sheet::failing_in_order`]: its kind of
/// check, then how its hint relates to its own title.
fn show_rank(row: &Row) -> (u8, u8) {
    let group = match row.check.target {
        judge::checks::CheckTarget::Fixed(_) => 0,
        judge::checks::CheckTarget::Model(_) => 1,
        judge::checks::CheckTarget::Scenario(_) => 2,
    };
    let own = row.check.id.split_once('/').map_or("", |(_, n)| n);
    let owner = match row.verdict.owner() {
        Some(o) if o == own => 0,
        None => 1,
        Some(_) => 2,
    };
    (group, owner)
}

/// A whole scored run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sheet {
    /// `"exercises"` or `"solutions"`.
    pub target: &'static str,
    /// Every check, in catalog order.
    pub rows: Vec<Row>,
    /// How many hidden variants were graded (per exercise).
    pub variants: usize,
    /// Whether their seed was the secret one from the environment.
    pub secret_seed: bool,
    /// Wall-clock seconds of the run, for Gradescope's `execution_time`.
    pub elapsed_secs: u64,
}

impl Sheet {
    /// Scores `graded` with `rubric`. Checks listed in the rubric get their
    /// entry; a check of one of `plan`'s variants gets its share of the
    /// exercise's variant pool; any other check gets the rubric's
    /// `no_listadas` entry. `repro_args` are the grader arguments a
    /// reproduction command must repeat (`--solutions`, a `--timeout`).
    pub fn new(graded: &Graded, rubric: &Rubric, plan: &Plan, repro_args: &[String]) -> Sheet {
        let variant_of = |c: &Check| {
            let name = c.id.split_once('/').map_or("", |(_, n)| n);
            plan.find(judge::checks::variant_name(name))
        };
        let mut rows = Vec::with_capacity(graded.results.len());
        for exercise in Exercise::ALL {
            let results: Vec<_> = graded.of(exercise).collect();
            let variant_rows = results
                .iter()
                .filter(|(c, _)| !rubric.listed.contains_key(&c.id) && variant_of(c).is_some())
                .count();
            let mut shares = rubric
                .variant_pool(exercise.id())
                .split(variant_rows)
                .into_iter();
            for (i, (check, verdict)) in results.into_iter().enumerate() {
                let variant = variant_of(check);
                let (max, visibility) = if let Some(entry) = rubric.listed.get(&check.id) {
                    (entry.points, entry.visibility)
                } else if variant.is_some() {
                    (shares.next().unwrap_or_default(), rubric.variant_visibility)
                } else {
                    (rubric.unlisted.points, rubric.unlisted.visibility)
                };
                let notes = match variant {
                    Some(v) if !verdict.passed() => vec![
                        v.describe(),
                        format!("reprodúcela: {}", v.reproduce(exercise, repro_args)),
                    ],
                    _ => Vec::new(),
                };
                rows.push(Row {
                    number: format!("{}.{}", exercise.number(), i + 1),
                    check: check.clone(),
                    verdict: verdict.clone(),
                    points: if verdict.passed() { max } else { Points::ZERO },
                    max,
                    visibility,
                    variant: variant.is_some(),
                    bonus: rubric.is_bonus(exercise.id()),
                    notes,
                });
            }
        }
        Sheet {
            target: graded.target,
            rows,
            variants: plan.variants.len(),
            secret_seed: plan.secret,
            elapsed_secs: 0,
        }
    }

    /// The rows of one exercise.
    pub fn of(&self, exercise: Exercise) -> impl Iterator<Item = &Row> {
        self.rows
            .iter()
            .filter(move |r| r.check.exercise == exercise)
    }

    /// The exercises with at least one row, in order.
    pub fn exercises(&self) -> Vec<Exercise> {
        Exercise::ALL
            .into_iter()
            .filter(|e| self.of(*e).next().is_some())
            .collect()
    }

    /// The failing rows of one exercise in the order reports show them:
    /// fixed checks first (the ones whose hint explains their own rule,
    /// then those whose hint only says what differs, then those whose hint
    /// belongs to another check's rule), then the model-based checks, then
    /// the whole-scenario checks; catalog order otherwise.
    pub fn failing_in_order(&self, exercise: Exercise) -> Vec<&Row> {
        let mut failing: Vec<&Row> = self.of(exercise).filter(|r| !r.verdict.passed()).collect();
        failing.sort_by_key(|r| show_rank(r));
        failing
    }

    /// Points earned and points possible, over `rows`.
    pub fn points_of<'a>(rows: impl IntoIterator<Item = &'a Row>) -> (Points, Points) {
        rows.into_iter()
            .fold((Points::ZERO, Points::ZERO), |(p, m), r| {
                (p + r.points, m + r.max)
            })
    }

    /// Points earned and possible in the run, the bonus apart.
    pub fn total(&self) -> (Points, Points) {
        Sheet::points_of(self.rows.iter().filter(|r| !r.bonus))
    }

    /// Bonus points earned and possible (both zero when no bonus check ran).
    pub fn bonus(&self) -> (Points, Points) {
        Sheet::points_of(self.rows.iter().filter(|r| r.bonus))
    }

    /// Whether any bonus check ran.
    pub fn has_bonus(&self) -> bool {
        self.rows.iter().any(|r| r.bonus)
    }

    /// Whether every check outside the bonus passed: full marks, whatever
    /// the bonus says (a pending or failing bonus is never a failure of the
    /// grade). A run that graded only the bonus (`--ejercicio atomico`) is
    /// full marks when every bonus check passed.
    pub fn full_marks(&self) -> bool {
        let only_bonus = self.rows.iter().all(|r| r.bonus);
        self.rows
            .iter()
            .all(|r| (r.bonus && !only_bonus) || r.verdict.passed())
    }

    /// Checks passed and checks run, the bonus apart.
    pub fn passed(&self) -> (usize, usize) {
        let graded = self.rows.iter().filter(|r| !r.bonus);
        (
            graded.clone().filter(|r| r.verdict.passed()).count(),
            graded.count(),
        )
    }

    /// The bonus part of the score line: `bonus 20/20`, `bonus 0/20:
    /// pendiente, todavía es todo!()`; `None` when no bonus check ran.
    pub fn bonus_part(&self) -> Option<String> {
        if !self.has_bonus() {
            return None;
        }
        let (points, max) = self.bonus();
        let rows = || self.rows.iter().filter(|r| r.bonus);
        let state = if self.compile_errors().is_some() {
            ""
        } else if rows().all(|r| matches!(r.verdict, Verdict::Pending { .. })) {
            ": pendiente, todavía es todo!()"
        } else if rows().all(|r| matches!(r.verdict, Verdict::Refused { .. })) {
            ": rechazado por la política de código"
        } else {
            ""
        };
        Some(format!("bonus {points}/{max}{state}"))
    }

    /// Who was graded, in Spanish.
    pub fn who(&self) -> &'static str {
        if self.target == "solutions" {
            "solutions (la solución de referencia)"
        } else {
            "exercises (tu código)"
        }
    }

    /// The compiler's first errors when the code did not compile.
    pub fn compile_errors(&self) -> Option<&[String]> {
        self.rows.iter().find_map(|r| match &r.verdict {
            Verdict::NotCompiled { errors } => Some(errors.as_slice()),
            _ => None,
        })
    }

    /// The exercises whose files the compiler's errors name, in order
    /// (empty when it compiled, or when no error names an exercise file).
    pub fn compile_exercises(&self) -> Vec<Exercise> {
        let Some(errors) = self.compile_errors() else {
            return Vec::new();
        };
        Exercise::ALL
            .into_iter()
            .filter(|e| errors.iter().any(|text| text.contains(e.file())))
            .collect()
    }

    /// The block every format shows when the code did not compile: the
    /// headline and the compiler's first errors.
    pub fn compile_block(&self) -> Option<String> {
        self.compile_errors().map(|errors| {
            format!(
                "Tu código no compila: el grader no puede correr ninguna verificación.\nLos primeros errores del compilador (rutas relativas al repositorio):\n\n{}\n",
                errors.join("\n\n")
            )
        })
    }

    /// The score line every format ends with:
    /// `Puntaje: 42/100 puntos (7/34 verificaciones)`, or
    /// `Puntaje: 0/100 puntos (no compila)`; with the bonus apart when a
    /// bonus check ran: `Puntaje: 100/100 puntos (42/42 verificaciones) ·
    /// bonus 0/20: pendiente, todavía es todo!()`.
    pub fn score_line(&self) -> String {
        let (points, max) = self.total();
        let bonus = self
            .bonus_part()
            .map_or(String::new(), |b| format!(" · {b}"));
        let (passed, total) = self.passed();
        if total == 0 && self.has_bonus() {
            // Only the bonus was graded (`--ejercicio atomico`).
            let bonus = self.bonus_part().unwrap_or_default();
            let state = if self.compile_errors().is_some() {
                " (no compila)"
            } else {
                ""
            };
            return format!("Puntaje: {bonus}{state}");
        }
        if self.compile_errors().is_some() {
            return format!("Puntaje: {points}/{max} puntos (no compila){bonus}");
        }
        format!("Puntaje: {points}/{max} puntos ({passed}/{total} verificaciones){bonus}")
    }

    /// The line about hidden variants, if any were graded.
    pub fn variants_line(&self) -> Option<String> {
        (self.variants > 0).then(|| {
            let source = if self.secret_seed {
                "semilla secreta del instructor".to_string()
            } else {
                "de --semilla o --variante".to_string()
            };
            format!(
                "Variantes ocultas: {} por ejercicio ({source})",
                self.variants
            )
        })
    }
}
