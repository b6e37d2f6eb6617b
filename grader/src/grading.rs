//! One grading run: the catalog's checks against one implementation.

use sim::Kit;

use crate::checks::{Catalog, Check};
use crate::isolation::{self, Runner};
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

/// Grades `K` with each check in its own child process.
pub fn grade_isolated<K: Kit>(catalog: &Catalog, runner: &Runner) -> Graded {
    let ids: Vec<String> = catalog.checks.iter().map(|c| c.id.clone()).collect();
    let verdicts = runner.run_all(&ids);
    Graded {
        target: K::CRATE,
        results: catalog.checks.iter().cloned().zip(verdicts).collect(),
    }
}

/// Grades `K` in this process: panics are caught, but an endless loop or a
/// crash is not contained. For tests of well-behaved (if wrong) code.
pub fn grade_in_process<K: Kit>(catalog: &Catalog) -> Graded {
    let results = catalog
        .checks
        .iter()
        .map(|c| {
            let v = isolation::catch(|| catalog.run::<K>(c)).unwrap_or_else(|v| v);
            (c.clone(), v)
        })
        .collect();
    Graded {
        target: K::CRATE,
        results,
    }
}
