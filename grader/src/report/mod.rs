//! Reports of a grading run: the scored [`sheet::Sheet`] and its three
//! formats (`--format text|gradescope|junit`).

pub mod classroom50;
pub mod gradescope;
#[cfg(feature = "junit")]
pub mod junit;
pub mod sheet;
pub mod text;

use sheet::Sheet;

/// The report formats of `--format` (alias `--formato`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The Spanish report (colours only on a terminal).
    #[default]
    Text,
    /// Gradescope's `results.json`.
    Gradescope,
    /// JUnit XML (only in a judge built with `--features junit`).
    Junit,
    /// Classroom 50's `result.json` (with `release-body.md` beside it).
    Classroom50,
}

impl Format {
    /// `self` when this build of the judge can write it; the `--format`
    /// parser calls it, so an unavailable format is a usage error (exit 2).
    ///
    /// # Errors
    /// For [`Format::Junit`] in a judge built without the `junit` feature:
    /// the Spanish line that says how to build it.
    pub fn available(self) -> Result<Format, String> {
        if self == Format::Junit && !cfg!(feature = "junit") {
            return Err("este juez se compiló sin el formato junit, que es para \
                        los instructores; pídelo con `cargo run -p grader \
                        --features junit -- --format junit`"
                .to_string());
        }
        Ok(self)
    }
}

/// `sheet` in `format`, which must be [`Format::available`]. Text keeps its ANSI colours: the writer strips them
/// where they do not belong.
///
/// # Panics
/// For [`Format::Junit`] in a judge built without the `junit` feature
/// (the command line refuses it first).
pub fn render(sheet: &Sheet, format: Format) -> String {
    match format {
        Format::Text => text::render(sheet),
        Format::Gradescope => gradescope::render(sheet),
        // `grade::run` checks the environment before grading; elsewhere
        // (nothing asks for it) the identity fields would be empty.
        Format::Classroom50 => classroom50::render(
            sheet,
            &classroom50::Identity::from_env().unwrap_or_default(),
        ),
        #[cfg(feature = "junit")]
        Format::Junit => junit::render(sheet),
        #[cfg(not(feature = "junit"))]
        Format::Junit => unreachable!("`--format junit` is refused by Format::available"),
    }
}
