//! The judge of Module 4, lesson 2: it grades the three exercises (or the
//! reference solutions) against an independent oracle and prints the
//! lesson's scenario tables. It never links the code it grades: the harness
//! (its own crate) runs the implementation in separate processes and answers
//! typed jobs with raw observations ([`runner`]).

pub mod before_after;
pub mod catalog;
pub mod checks;
pub mod cli;
pub mod commands;
pub mod figures;
pub mod fixture;
pub mod flags;
pub mod grading;
pub mod intake;
pub mod oracle;
pub mod output;
pub mod paths;
pub mod policy;
pub mod progress;
pub mod report;
pub mod rubric;
pub mod runner;
pub mod spy;
pub mod submission;
pub mod tables;
pub mod toml_errors;
pub mod variants;
pub mod verdict;
pub mod verdict_cache;
pub mod view;
