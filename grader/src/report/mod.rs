//! Reports of a grading run: the scored [`sheet::Sheet`] and its three
//! formats (`--format text|gradescope|junit`).

pub mod gradescope;
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
    /// JUnit XML.
    Junit,
}

/// `sheet` in `format`. Text keeps its ANSI colours: the writer strips them
/// where they do not belong.
pub fn render(sheet: &Sheet, format: Format) -> String {
    match format {
        Format::Text => text::render(sheet),
        Format::Gradescope => gradescope::render(sheet),
        Format::Junit => junit::render(sheet),
    }
}
