//! Which implementation a harness links and grades: the student's
//! `exercises` or the reference `solutions`.

/// The implementation a harness links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Implementation {
    /// The student's `exercises`.
    Exercises,
    /// The reference `solutions` (`--solutions`).
    Solutions,
}

impl Implementation {
    /// The crate's name, for reports.
    pub fn crate_name(self) -> &'static str {
        match self {
            Implementation::Exercises => "exercises",
            Implementation::Solutions => "solutions",
        }
    }

    /// The harness binary that links it.
    pub fn binary(self) -> &'static str {
        match self {
            Implementation::Exercises => "harness",
            Implementation::Solutions => "harness-solutions",
        }
    }

    /// The harness feature that selects it.
    pub fn feature(self) -> &'static str {
        self.crate_name()
    }
}
