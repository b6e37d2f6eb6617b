//! The kit's exercises, one folder each: everything the judge knows of
//! exercise X (its catalog entry, fixed checks, model, hints, whole-scenario
//! check, the stand-in compiled when the source policy refuses its file)
//! lives in `ejercicios/X/`, named after its id.
//!
//! - `X/mod.rs`: its [`Entry`] (`ENTRY`): id, title, file, function, lesson,
//!   pool.
//! - `X/fixed.rs`, `X/model.rs`, `X/scenario.rs` (and what they share, such
//!   as a step table): its checks.
//! - `X/checks.rs`: its [`crate::checks::module::Module`] (`MODULE`), how the
//!   rest of the judge reaches those checks.
//!
//! [`kit_exercises!`] lists the folders once, in the order students work
//! through them; the catalog's entries ([`crate::catalog::ENTRIES`]) and the
//! checks' modules ([`crate::checks::module`]) are both made from that one
//! list, so they cannot fall out of step. Adding an exercise, step by step
//! and with what else it touches today: `docs/src/diseño/agregar-un-ejercicio.md`.

pub mod atomico;
pub mod cliente;
pub mod cobro;
pub mod reconciliacion;

/// Calls `$then!` with the folder of every exercise, in the order students
/// work through them (exercise `n` is the `n`-th): the one list of the kit's
/// exercises.
#[macro_export]
#[doc(hidden)]
macro_rules! kit_exercises {
    ($then:ident) => {
        $then!(cobro, cliente, reconciliacion, atomico)
    };
}
pub use kit_exercises;

/// The pool an exercise's points count in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pool {
    /// The kit's 100 points (`Puntaje: 42/100 puntos`).
    Course,
    /// Points outside the 100, shown apart (`Puntaje: 100/100 puntos ·
    /// bonus 0/20`): a student who skips the exercise still gets 100.
    Bonus,
}

/// One exercise, as every part of the judge names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The name used on the command line, in check ids, rubric keys and
    /// `curso`'s columns (`cobro`): lowercase ASCII letters only.
    pub id: &'static str,
    /// The Spanish title reports show
    /// (`El cobro idempotente (servidor de payments)`).
    pub title: &'static str,
    /// The title in the README's table, when it says more than `title`
    /// (the lesson the exercise comes from).
    pub readme_title: &'static str,
    /// The student's file, relative to the repository root.
    pub file: &'static str,
    /// The function the student fills in (`PaymentsServer::charge`).
    pub function: &'static str,
    /// The lesson of Module 4 the exercise comes from (2; the client's is
    /// lesson 3's cure, measured in lesson 2).
    pub lesson: u32,
    /// Where its points count.
    pub pool: Pool,
}

/// The course as the lessons give it: the one place a test writes the kit's
/// exercises by hand (their ids, files, functions, lessons and pools, in
/// order). Every other test of the kit reads them from the catalog, so a new
/// exercise changes this test and its own folder, not the tests of the
/// mechanisms it goes through.
#[cfg(test)]
mod tests {
    use super::{Pool, Pool::*};
    use crate::catalog::ENTRIES;

    #[test]
    fn the_kits_exercises_are_the_courses() {
        let got: Vec<(&str, &str, &str, u32, Pool)> = ENTRIES
            .iter()
            .map(|e| (e.id, e.file, e.function, e.lesson, e.pool))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "cobro",
                    "exercises/src/payments_server.rs",
                    "PaymentsServer::charge",
                    2,
                    Course
                ),
                (
                    "cliente",
                    "exercises/src/client.rs",
                    "charge_order",
                    3,
                    Course
                ),
                (
                    "reconciliacion",
                    "exercises/src/reconciliation.rs",
                    "reconcile",
                    2,
                    Course
                ),
                (
                    "atomico",
                    "exercises/src/atomic_server.rs",
                    "AtomicPaymentsServer::charge",
                    4,
                    Bonus
                ),
            ]
        );
        assert_eq!(crate::catalog::count_in_words(), "cuatro");
        assert_eq!(crate::catalog::course_count_in_words(), "tres");
    }
}
