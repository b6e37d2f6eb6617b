//! Reports of a grading run.

pub mod text;
