//! What decides a grade in Module 4's kit: the exercises ([`catalog`]), their
//! checks ([`checks`]) against an independent oracle ([`oracle`]), the
//! harness run as a separate, limited process ([`runner`]), the verdicts
//! ([`verdict`]), the rubric ([`rubric`]) and the source policy
//! ([`policy`]). It never links the code it grades: the harness (its own
//! crate) runs the implementation and answers typed jobs with raw
//! observations.
//!
//! The student's binary (`cargo run -p grader`) and the instructor's tools
//! build on this library; nothing here knows the command line.

pub mod catalog;
pub mod checks;
pub mod drawing;
pub mod ejercicios;
pub mod figures;
pub mod fixture;
pub mod grading;
pub mod intake;
pub mod oracle;
pub mod output;
pub mod paths;
pub mod policy;
pub mod rubric;
pub mod runner;
pub mod spy;
pub mod stable_hash;
pub mod submission;
pub mod toml_errors;
pub mod values;
pub mod variants;
pub mod verdict;
