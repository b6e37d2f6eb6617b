//! How the rest of the judge reaches one exercise's checks ([`Module`]),
//! whatever the exercise: each exercise's folder ([`crate::ejercicios`])
//! describes its own.

use crate::fixture::Scenario;
use crate::runner::Execute;
use crate::verdict::Verdict;

/// What a check of one exercise concludes: `Ok` when it passed.
pub type Outcome = Result<(), Verdict>;

/// Runs an exercise's model family with a seed, and its large cases of that
/// seed when the flag says so ([`Module::model`]).
pub type ModelRun = fn(&dyn Execute, u64, bool) -> Outcome;

/// Runs an explored check by name, in a run with this hidden seed
/// ([`Module::run_explored`]).
pub type ExploredRun = fn(&dyn Execute, &str, Option<u64>) -> Outcome;

/// What the judge knows of one exercise's checks: everything outside its
/// module reaches them through this.
#[derive(Clone, Copy, Debug)]
pub struct Module {
    /// The exercise's id (its folder's `ENTRY.id`).
    pub id: &'static str,
    /// `(name, title)` of every fixed check, in report order.
    pub fixed: &'static [(&'static str, &'static str)],
    /// Runs the fixed check with this name.
    pub run_fixed: fn(&dyn Execute, &str) -> Outcome,
    /// Runs the model family with this seed, when the exercise has one;
    /// with its large cases of that seed when the flag says so (one
    /// model-based check per run plays them:
    /// [`crate::checks::Catalog::hidden_seed`]).
    pub model: Option<ModelRun>,
    /// Runs the whole-scenario check over a fixture, when the exercise has
    /// one.
    pub scenario: Option<fn(&dyn Execute, &Scenario) -> Outcome>,
    /// `(name, title)` of every check that runs under the schedule explorer
    /// (lesson 4's concurrent retries), in the harness's second build
    /// ([`Execute::explorer`]), in report order after the fixed ones.
    pub explored: &'static [(&'static str, &'static str)],
    /// Runs the explored check with this name in a run with this hidden
    /// seed ([`crate::checks::Catalog::hidden_seed`]; present when
    /// `explored` is not empty).
    pub run_explored: Option<ExploredRun>,
    /// The source the judge compiles instead of the exercise's file when
    /// the source policy refuses it: the exercise's items with the kit's
    /// signatures and bodies that never run.
    pub refused_stub: &'static str,
    /// The exercise's own reason for refusing a kind of use, by the kind's
    /// label in [`crate::policy`] (`hilos o sincronización`), where the
    /// general reason does not fit it; empty for the general reasons.
    pub policy_reasons: &'static [(&'static str, &'static str)],
}
