//! The grader of Module 4, lesson 2: it grades the three exercises (or the
//! reference solutions) against an independent oracle, each check in its own
//! child process, and prints the lesson's scenario tables.

pub mod chart;
pub mod checks;
pub mod cli;
pub mod commands;
pub mod comparison;
pub mod flags;
pub mod fleet;
pub mod grading;
pub mod isolated_job;
pub mod isolation;
pub mod oracle;
pub mod output;
pub mod paths;
pub mod progress;
pub mod report;
pub mod rubric;
pub mod spy;
pub mod submission;
pub mod sweep;
pub mod tables;
pub mod variants;
pub mod verdict;
pub mod world;
