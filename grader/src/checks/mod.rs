//! The catalog of checks: fixed checks per exercise, plus one whole-scenario
//! check per exercise for every fixture (and seeded variant) being graded.

pub mod charge_steps;
pub mod client;
pub mod model;
pub mod reconciliation;
pub mod scenario;
pub mod server;
pub mod store;
pub mod store_schedules;
pub mod store_steps;

use crate::fixture::Scenario;
use crate::runner::Execute;
use crate::verdict::{Exercise, Verdict};

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

fn fixed(exercise: Exercise) -> &'static [(&'static str, &'static str)] {
    match exercise {
        Exercise::Cobro => server::CHECKS,
        Exercise::Cliente => client::CHECKS,
        Exercise::Reconciliacion => reconciliation::CHECKS,
        Exercise::Store => store::CHECKS,
    }
}

/// The concurrent checks of `exercise`, run under the schedule explorer
/// (only exercise 4's).
fn concurrent(exercise: Exercise) -> &'static [(&'static str, &'static str)] {
    match exercise {
        Exercise::Store => store_schedules::CHECKS,
        _ => &[],
    }
}

impl Catalog {
    /// The checks of `exercises` (all of them when empty) over `scenarios`
    /// (only for the exercises that [`Exercise::has_scenarios`]).
    pub fn new(scenarios: Vec<Scenario>, exercises: &[Exercise]) -> Catalog {
        let chosen: Vec<Exercise> = if exercises.is_empty() {
            Exercise::ALL.to_vec()
        } else {
            exercises.to_vec()
        };
        let mut checks = Vec::new();
        for exercise in chosen {
            for &(name, title) in fixed(exercise).iter().chain(concurrent(exercise)) {
                checks.push(Check {
                    id: format!("{}/{name}", exercise.id()),
                    exercise,
                    title: title.to_string(),
                    target: CheckTarget::Fixed(name),
                });
            }
            checks.push(Check {
                id: format!("{}/{MODEL}", exercise.id()),
                exercise,
                title: model_title(model::PUBLIC_SEED),
                target: CheckTarget::Model(model::PUBLIC_SEED),
            });
            let graded_by_scenarios = if exercise.has_scenarios() {
                scenarios.len()
            } else {
                0
            };
            for (i, s) in scenarios.iter().enumerate().take(graded_by_scenarios) {
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

    /// The check with this id.
    pub fn find(&self, id: &str) -> Option<&Check> {
        self.checks.iter().find(|c| c.id == id)
    }

    /// Runs `check` against the implementation behind `h`.
    pub fn run(&self, h: &dyn Execute, check: &Check) -> Verdict {
        let result = match (check.exercise, check.target) {
            (Exercise::Cobro, CheckTarget::Fixed(id)) => server::run(h, id),
            (Exercise::Cliente, CheckTarget::Fixed(id)) => client::run(h, id),
            (Exercise::Reconciliacion, CheckTarget::Fixed(id)) => reconciliation::run(h, id),
            (Exercise::Store, CheckTarget::Fixed(id)) if store_schedules::owns(id) => {
                store_schedules::run(h, id)
            }
            (Exercise::Store, CheckTarget::Fixed(id)) => store::run(h, id),
            (exercise, CheckTarget::Scenario(i)) => scenario::run(h, exercise, &self.scenarios[i]),
            (exercise, CheckTarget::Model(seed)) => model::run(h, exercise, seed),
        };
        result.err().unwrap_or(Verdict::Passed)
    }
}
