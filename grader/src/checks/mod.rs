//! The catalog of checks: fixed checks per exercise, plus one whole-scenario
//! check per exercise for every fixture (and seeded variant) being graded.
//!
//! Each exercise of [`crate::catalog`] has its own checks module here,
//! described to the rest of the judge by one [`Module`] ([`module`]): its
//! fixed checks, its model family, its whole-scenario check and the
//! stand-in that replaces its file when the source policy refuses it.

pub mod charge_steps;
pub mod client;
pub mod model;
pub mod reconciliation;
pub mod scenario;
pub mod server;
pub mod store;
pub mod store_schedules;
pub mod store_steps;

use crate::catalog::COUNT;
use crate::fixture::Scenario;
use crate::runner::Execute;
use crate::verdict::{Exercise, Verdict};

/// What a check of one exercise concludes: `Ok` when it passed.
pub type Outcome = Result<(), Verdict>;

/// What the judge knows of one exercise's checks: everything outside its
/// module reaches them through this.
#[derive(Clone, Copy, Debug)]
pub struct Module {
    /// The exercise's id in [`crate::catalog::ENTRIES`] (a test keeps the
    /// two tables in the same order).
    pub id: &'static str,
    /// `(name, title)` of every fixed check, in report order.
    pub fixed: &'static [(&'static str, &'static str)],
    /// Runs the fixed check with this name.
    pub run_fixed: fn(&dyn Execute, &str) -> Outcome,
    /// Runs the model family with this seed, when the exercise has one.
    pub model: Option<fn(&dyn Execute, u64) -> Outcome>,
    /// Runs the whole-scenario check over a fixture, when the exercise has
    /// one.
    pub scenario: Option<fn(&dyn Execute, &Scenario) -> Outcome>,
    /// The source the judge compiles instead of the exercise's file when
    /// the source policy refuses it: the exercise's items with the kit's
    /// signatures and bodies that never run.
    pub refused_stub: &'static str,
    /// The exercise's own reason for refusing a kind of use, by the kind's
    /// label in [`crate::policy`] (`hilos o sincronización`), where the
    /// general reason does not fit it; empty for the general reasons.
    pub policy_reasons: &'static [(&'static str, &'static str)],
}

/// Every exercise's checks, in catalog order.
const MODULES: [Module; COUNT] = [
    server::MODULE,
    client::MODULE,
    reconciliation::MODULE,
    store::MODULE,
];

/// The checks of `exercise`.
pub fn module(exercise: Exercise) -> &'static Module {
    &MODULES[exercise.index()]
}

/// What a check runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CheckTarget {
    /// A fixed check of the exercise's module, by its id.
    Fixed(&'static str),
    /// The whole-scenario check of the catalog's scenario at this index.
    Scenario(usize),
    /// The model-based family of the exercise, with this seed.
    Model(u64),
}

/// The id suffix of the public model-based check (`cobro/modelo`).
pub const MODEL: &str = "modelo";

/// One check, as reports list it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Check {
    /// Stable id, `exercise/name` (`cobro/replay-devuelve-lo-guardado`,
    /// `cobro/flota-1000`): rubrics refer to it.
    pub id: String,
    /// The exercise it grades.
    pub exercise: Exercise,
    /// What it verifies, in Spanish.
    pub title: String,
    /// What it runs.
    pub target: CheckTarget,
}

/// The checks of one grading run, in report order.
#[derive(Clone, Debug)]
pub struct Catalog {
    /// The scenarios the scenario checks run, in order.
    pub scenarios: Vec<Scenario>,
    /// Every check, grouped by exercise.
    pub checks: Vec<Check>,
}

/// The name of a variant's model-based checks, `variante-SEMILLA-modelo`.
pub fn model_check_name(v: &crate::variants::Variant) -> String {
    format!("{}-{MODEL}", v.name())
}

/// The variant scenario a check name belongs to: the name itself, or a
/// variant's model-based check name without its `-modelo`.
pub fn variant_name(check_name: &str) -> &str {
    check_name
        .strip_suffix(MODEL)
        .and_then(|n| n.strip_suffix('-'))
        .unwrap_or(check_name)
}

/// The title of a model-based check.
fn model_title(seed: u64) -> String {
    format!(
        "{} casos aleatorios contra el modelo de la lección (semilla {seed}), reducidos al contraejemplo mínimo",
        model::CASES
    )
}

/// The concurrent checks of `exercise`, run under the schedule explorer in
/// the harness's second build ([`store_schedules`]): those of the exercise
/// whose catalog entry asks for that build (exercise 4's shared server).
fn explored(exercise: Exercise) -> &'static [(&'static str, &'static str)] {
    if exercise.explorer_build() {
        store_schedules::CHECKS
    } else {
        &[]
    }
}

/// Whether `check` runs in the explorer's harness.
pub fn is_explored(check: &Check) -> bool {
    matches!(check.target, CheckTarget::Fixed(id) if explored(check.exercise).iter().any(|(n, _)| *n == id))
}

impl Catalog {
    /// The checks of `exercises` (all of them when empty) over `scenarios`.
    pub fn new(scenarios: Vec<Scenario>, exercises: &[Exercise]) -> Catalog {
        let chosen: Vec<Exercise> = if exercises.is_empty() {
            Exercise::ALL.to_vec()
        } else {
            exercises.to_vec()
        };
        let mut checks = Vec::new();
        for exercise in chosen {
            let module = module(exercise);
            for &(name, title) in module.fixed.iter().chain(explored(exercise)) {
                checks.push(Check {
                    id: format!("{}/{name}", exercise.id()),
                    exercise,
                    title: title.to_string(),
                    target: CheckTarget::Fixed(name),
                });
            }
            if module.model.is_some() {
                checks.push(Check {
                    id: format!("{}/{MODEL}", exercise.id()),
                    exercise,
                    title: model_title(model::PUBLIC_SEED),
                    target: CheckTarget::Model(model::PUBLIC_SEED),
                });
            }
            if module.scenario.is_none() {
                continue;
            }
            for (i, s) in scenarios.iter().enumerate() {
                checks.push(Check {
                    id: format!("{}/{}", exercise.id(), s.name),
                    exercise,
                    title: format!("escenario {}", scenario::describe_scenario(s)),
                    target: CheckTarget::Scenario(i),
                });
            }
        }
        Catalog { scenarios, checks }
    }

    /// Adds, for each exercise already in the catalog, one model-based check
    /// per hidden variant, seeded with the variant's own seed
    /// (`cobro/variante-2718281828-modelo`).
    pub fn add_model_variants(&mut self, variants: &[crate::variants::Variant]) {
        let exercises: Vec<Exercise> = Exercise::ALL
            .into_iter()
            .filter(|e| module(*e).model.is_some())
            .filter(|e| self.checks.iter().any(|c| c.exercise == *e))
            .collect();
        for exercise in exercises {
            for v in variants {
                self.checks.push(Check {
                    id: format!("{}/{}", exercise.id(), model_check_name(v)),
                    exercise,
                    title: format!(
                        "variante oculta {}: {}",
                        v.seed,
                        model_title(u64::from(v.seed))
                    ),
                    target: CheckTarget::Model(u64::from(v.seed)),
                });
            }
        }
    }

    /// This catalog without the checks that run in the explorer's harness
    /// ([`store_schedules`]), for an executor that has none (the kit's tests
    /// that grade kits in their own process; the concurrent checks are
    /// graded by `harness/tests/mutantes_store_carreras.rs`, built with the
    /// explorer).
    pub fn without_explored(mut self) -> Catalog {
        self.checks.retain(|c| !is_explored(c));
        self
    }

    /// The check with this id.
    pub fn find(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// Runs `check` against the implementation behind `h`.
    pub fn run(&self, h: &dyn Execute, check: &Check) -> Verdict {
        let module = module(check.exercise);
        let result = match check.target {
            CheckTarget::Fixed(id) if is_explored(check) => store_schedules::run(h, id),
            CheckTarget::Fixed(id) => (module.run_fixed)(h, id),
            CheckTarget::Scenario(i) => module
                .scenario
                .map_or(Ok(()), |run| run(h, &self.scenarios[i])),
            CheckTarget::Model(seed) => module.model.map_or(Ok(()), |run| run(h, seed)),
        };
        result.err().unwrap_or(Verdict::Passed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exercise_has_its_checks_module_in_catalog_order() {
        for e in Exercise::ALL {
            assert_eq!(module(e).id, e.id());
            assert!(!module(e).fixed.is_empty(), "{e:?}");
        }
    }

    #[test]
    fn each_exercise_lists_its_fixed_model_and_scenario_checks() {
        let catalog = Catalog::new(Vec::new(), &[Exercise::Cliente]);
        let ids: Vec<&str> = catalog.checks.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(
            ids,
            [
                "cliente/misma-key-en-cada-reintento",
                "cliente/se-detiene-en-la-primera-respuesta",
                "cliente/se-rinde-tras-max-attempts",
                "cliente/operaciones-distintas-keys-distintas",
                "cliente/modelo",
            ]
        );
    }
}
