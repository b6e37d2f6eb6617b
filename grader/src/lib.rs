//! The student's and the instructor's commands of Module 4's kit, built on
//! the judge ([`judge`]): the report and its formats, `vigilar`, the
//! lesson's tables (`escenario`, `comparar`, `barrido`, `ver`,
//! `repetir-horario`) and, behind the `curso` feature, a whole class. It
//! never links the code it grades.

pub mod before_after;
pub mod cli;
pub mod commands;
pub mod judge_sources;
pub mod progress;
pub mod report;
pub mod tables;
pub mod usage;
pub mod verdict_cache;
pub mod view;

// `judge_sources` (also compiled by `build.rs` on its own) names it here.
use judge::stable_hash;
