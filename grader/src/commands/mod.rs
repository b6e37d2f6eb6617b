//! The grader's subcommands.

pub mod escenario;
