//! The grader of Module 4, lesson 2: it grades the three exercises (or the
//! reference solutions) against an independent oracle, each check in its own
//! child process, and prints the lesson's scenario tables.

pub mod checks;
pub mod cli;
pub mod commands;
pub mod grading;
pub mod isolation;
pub mod oracle;
pub mod output;
pub mod paths;
pub mod report;
pub mod spy;
pub mod tables;
pub mod verdict;
pub mod world;
