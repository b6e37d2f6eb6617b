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
    let next = AtomicUsize::new(0);
    let verdicts: Mutex<Vec<Option<Verdict>>> = Mutex::new(vec![None; checks.len()]);
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, checks.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(check) = checks.get(i) else { break };
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
