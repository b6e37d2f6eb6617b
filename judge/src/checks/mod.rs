//! The catalog of checks: fixed checks per exercise, plus one whole-scenario
//! check per exercise for every fixture (and seeded variant) being graded.
//!
//! Each exercise of [`crate::catalog`] has its own checks module here,
//! described to the rest of the judge by one [`Module`] ([`module`]): its
//! fixed checks, its model family, its whole-scenario check and the
//! stand-in that replaces its file when the source policy refuses it.

pub mod model;
pub mod module;
pub mod scenario;

use crate::catalog::COUNT;
use crate::fixture::Scenario;
use crate::runner::Execute;
use crate::verdict::{Exercise, Verdict};

pub use module::{Module, Outcome};

/// The checks' modules of [`crate::ejercicios`]' folders.
macro_rules! modules {
    ($($id:ident),+) => {
        [$(crate::ejercicios::$id::checks::MODULE),+]
    };
}

/// Every exercise's checks, in catalog order (made from the same list as
/// the catalog's entries, [`crate::ejercicios::kit_exercises!`]).
const MODULES: [Module; COUNT] = crate::ejercicios::kit_exercises!(modules);

/// The checks of `exercise`.
pub fn module(exercise: Exercise) -> &'static Module {
    &MODULES[exercise.index()]
}

/// What a check runs (serialized in the verdict cache's key:
/// [`crate::verdict_cache`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
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
    /// The first hidden variant's seed, when the run has hidden variants:
    /// what a run draws once, and what the kit's source must not show in a
    /// graded run (code that recognises a case by its inputs can be right
    /// only there, issue 27), is drawn from it: the model families' large
    /// cases ([`model::Family::large`], played by the model-based check of
    /// this seed instead of the public one) and exercise 4's generated
    /// concurrent histories ([`store_schedules::run_in`]). `None`: the
    /// public ones.
    pub hidden_seed: Option<u64>,
    /// Whether the model-based check of the run's seed plays its family's
    /// large cases ([`model::Family::large`], [`model::Family::long`]):
    /// every report does; `vigilar`'s loop does not (its report after a
    /// save must stay within a second or two, and the large cases take
    /// seconds: `docs/src/diseño/tamaños.md`).
    pub large_cases: bool,
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

/// Whether `check` runs in the explorer's harness (one of its exercise's
/// [`Module::explored`] checks).
pub fn is_explored(check: &Check) -> bool {
    matches!(check.target, CheckTarget::Fixed(id) if module(check.exercise).explored.iter().any(|(n, _)| *n == id))
}

/// Whether grading `exercises` needs the harness's second build (the
/// schedule explorer's): only when one of them has explored checks, so that
/// a run without such an exercise never pays for it.
pub fn need_explorer(exercises: &[Exercise]) -> bool {
    exercises.iter().any(|e| !module(*e).explored.is_empty())
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
            for &(name, title) in module.fixed.iter().chain(module.explored) {
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
        Catalog {
            scenarios,
            checks,
            hidden_seed: None,
            large_cases: true,
        }
    }

    /// Adds, for each exercise already in the catalog, one model-based check
    /// per hidden variant, seeded with the variant's own seed
    /// (`cobro/variante-2718281828-modelo`); the first one is the run's
    /// hidden seed ([`Catalog::hidden_seed`]).
    pub fn add_model_variants(&mut self, variants: &[crate::variants::Variant]) {
        if let Some(first) = variants.first() {
            self.hidden_seed = Some(u64::from(first.seed));
        }
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
    /// ([`Module::explored`]), for an executor that has none (the kit's tests
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
            CheckTarget::Fixed(id) if is_explored(check) => module
                .run_explored
                .map_or(Ok(()), |run| run(h, id, self.hidden_seed)),
            CheckTarget::Fixed(id) => (module.run_fixed)(h, id),
            CheckTarget::Scenario(i) => module
                .scenario
                .map_or(Ok(()), |run| run(h, &self.scenarios[i])),
            CheckTarget::Model(seed) => {
                let large =
                    self.large_cases && seed == self.hidden_seed.unwrap_or(model::PUBLIC_SEED);
                module.model.map_or(Ok(()), |run| run(h, seed, large))
            }
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
            assert_eq!(
                module(e).explored.is_empty(),
                module(e).run_explored.is_none(),
                "{e:?}"
            );
        }
    }

    #[test]
    fn only_an_exercise_with_explored_checks_needs_the_second_build() {
        assert!(need_explorer(&Exercise::ALL));
        assert!(need_explorer(&[Exercise::Store]));
        assert!(need_explorer(&[Exercise::Cobro, Exercise::Store]));
        assert!(!need_explorer(&[
            Exercise::Cobro,
            Exercise::Cliente,
            Exercise::Reconciliacion
        ]));
        assert!(!need_explorer(&[]));
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
