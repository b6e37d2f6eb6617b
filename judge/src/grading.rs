//! One grading run: the catalog's checks against one implementation, a few
//! at a time, each check's jobs in harness processes.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::checks::{Catalog, Check};
use crate::runner::Execute;
use crate::runner::diagnostics::Cause;
use crate::verdict::{Exercise, Verdict};

/// Every check with its verdict, in catalog order.
#[derive(Clone, Debug)]
pub struct Graded {
    /// `"exercises"` or `"solutions"`.
    pub target: &'static str,
    /// Checks and verdicts.
    pub results: Vec<(Check, Verdict)>,
}

impl Graded {
    /// Passed checks and all checks.
    pub fn score(&self) -> (usize, usize) {
        (
            self.results.iter().filter(|(_, v)| v.passed()).count(),
            self.results.len(),
        )
    }

    /// Whether every check passed.
    pub fn all_passed(&self) -> bool {
        self.results.iter().all(|(_, v)| v.passed())
    }

    /// The results of one exercise.
    pub fn of(&self, exercise: Exercise) -> impl Iterator<Item = &(Check, Verdict)> {
        self.results
            .iter()
            .filter(move |(c, _)| c.exercise == exercise)
    }
}

/// Grades the implementation behind `h` (named `target`), `workers` checks
/// at a time; verdicts come back in catalog order.
pub fn grade(catalog: &Catalog, h: &dyn Execute, target: &'static str, workers: usize) -> Graded {
    grade_except(catalog, h, target, workers, &BTreeMap::new())
}

/// Refusal lines by exercise ([`crate::policy::Review::refused`]).
pub type Refusals = BTreeMap<Exercise, Vec<String>>;

/// As [`grade`], except that the checks of the exercises in `refused` do
/// not run: each is [`Verdict::Refused`] with its exercise's lines.
pub fn grade_except(
    catalog: &Catalog,
    h: &dyn Execute,
    target: &'static str,
    workers: usize,
    refused: &Refusals,
) -> Graded {
    let checks = &catalog.checks;
    let order = heavy_first(checks);
    let next = AtomicUsize::new(0);
    let verdicts: Mutex<Vec<Option<Verdict>>> = Mutex::new(vec![None; checks.len()]);
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, checks.len().max(1)) {
            scope.spawn(|| {
                while let Some(&i) = order.get(next.fetch_add(1, Ordering::SeqCst)) {
                    let check = &checks[i];
                    let v = match refused.get(&check.exercise) {
                        Some(uses) => Verdict::Refused { uses: uses.clone() },
                        None => catalog.run(h, check),
                    };
                    verdicts.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(v);
                }
            });
        }
    });
    let verdicts = verdicts.into_inner().unwrap_or_else(|e| e.into_inner());
    Graded {
        target,
        results: checks
            .iter()
            .cloned()
            .zip(verdicts.into_iter().map(|v| {
                v.unwrap_or(Verdict::Crashed {
                    what: "no se ejecutó".to_string(),
                })
            }))
            .collect(),
    }
}

/// The order the checks start in: the long ones first, each group in
/// catalog order. A model-based family or an exploration of schedules takes
/// tenths of a second where a fixed check takes milliseconds; started last,
/// one kept a core busy while the other sat idle. First of all comes one
/// check of the explorer's schedules: when exercise 4 is started after an
/// edit, it builds the explorer's harness while the model-based families
/// run on the other core (the other explored checks, which wait for that
/// build, come after the families). Verdicts stay in catalog order
/// whatever order they ran in.
fn heavy_first(checks: &[Check]) -> Vec<usize> {
    let explored = |i: &usize| crate::checks::is_explored(&checks[*i]);
    let model = |i: &usize| matches!(checks[*i].target, crate::checks::CheckTarget::Model(_));
    let mut explorations = (0..checks.len()).filter(explored);
    let builds = explorations.next();
    builds
        .into_iter()
        .chain((0..checks.len()).filter(model))
        .chain(explorations)
        .chain((0..checks.len()).filter(|i| !explored(i) && !model(i)))
        .collect()
}

/// The result of an implementation that did not compile: every check
/// [`Verdict::NotCompiled`], with the compiler's first errors.
pub fn not_compiled(catalog: &Catalog, target: &'static str, cause: &Cause) -> Graded {
    let errors = match cause {
        Cause::Compile(errors) => errors.clone(),
        Cause::Other(log) => vec![log.clone()],
    };
    Graded {
        target,
        results: catalog
            .checks
            .iter()
            .map(|c| {
                (
                    c.clone(),
                    Verdict::NotCompiled {
                        errors: errors.clone(),
                    },
                )
            })
            .collect(),
    }
}

/// Marks every check of the exercises in `refused` [`Verdict::Refused`]
/// with its exercise's lines (0 points), whatever it was.
pub fn refuse(graded: &mut Graded, refused: &Refusals) {
    for (check, verdict) in &mut graded.results {
        if let Some(uses) = refused.get(&check.exercise) {
            *verdict = Verdict::Refused { uses: uses.clone() };
        }
    }
}

/// The result of a run the source policy refused whole: nothing compiled,
/// every check [`Verdict::Refused`] with its exercise's lines (`refused`
/// holds every exercise of the catalog).
pub fn all_refused(catalog: &Catalog, target: &'static str, refused: &Refusals) -> Graded {
    Graded {
        target,
        results: catalog
            .checks
            .iter()
            .map(|c| {
                let uses = refused.get(&c.exercise).cloned().unwrap_or_default();
                (c.clone(), Verdict::Refused { uses })
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_explorer_build_and_the_model_families_start_first() {
        let catalog = Catalog::new(Vec::new(), &Exercise::LESSONS);
        let ids = |order: &[usize]| -> Vec<String> {
            order
                .iter()
                .map(|&i| catalog.checks[i].id.clone())
                .collect()
        };
        let order = heavy_first(&catalog.checks);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..catalog.checks.len()).collect::<Vec<_>>());
        assert_eq!(
            ids(&order[..6]),
            [
                "atomico/dos-reintentos-a-la-vez-un-solo-cobro",
                "cobro/modelo",
                "cliente/modelo",
                "reconciliacion/modelo",
                "atomico/modelo",
                "atomico/tres-reintentos-a-la-vez-un-solo-cobro",
            ]
        );
        // The fixed checks last, in catalog order.
        let rest = ids(&order[10..]);
        assert_eq!(rest[0], catalog.checks[0].id);
        assert_eq!(rest.len(), catalog.checks.len() - 10);
        assert!(rest.iter().all(|id| !id.ends_with("/modelo")));
        // Without exercise 4, the families lead.
        let plain = Catalog::new(Vec::new(), &[Exercise::Cobro]);
        let order = heavy_first(&plain.checks);
        assert_eq!(plain.checks[order[0]].id, "cobro/modelo");
    }
}
