//! Writing to the terminal: colours only where they belong.

use std::io::Write;

/// Prints `text` to standard output through anstream, which drops the ANSI
/// colours when stdout is not a terminal or `NO_COLOR` is set.
pub fn print_stdout(text: &str) {
    let mut out = anstream::stdout();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// `text` without ANSI colour codes (for files and machine-read output).
pub fn strip_colours(text: &str) -> String {
    anstream::adapter::strip_str(text).to_string()
}
