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

#[cfg(test)]
mod tests {
    use super::*;
    use judge::checks::Catalog;
    use judge::grading::{self, Graded};
    use judge::rubric::Rubric;
    use judge::runner::diagnostics::Cause;
    use judge::variants::Plan;
    use judge::verdict::Verdict;

    /// A sheet where every check of exercise 1 panicked with `message` at
    /// `location` (as the harness reports it) and the others passed.
    fn panicked(message: &str, location: &str) -> Sheet {
        let catalog = Catalog::new(Vec::new(), &[]);
        let mut graded: Graded =
            grading::not_compiled(&catalog, "exercises", &Cause::Other(String::new()));
        for (check, verdict) in &mut graded.results {
            *verdict = if check.exercise == judge::verdict::Exercise::Cobro {
                Verdict::from(protocol::Failure::Panicked {
                    message: message.to_string(),
                    location: location.to_string(),
                })
            } else {
                Verdict::Passed
            };
        }
        Sheet::new(&graded, &Rubric::kit().unwrap(), &Plan::default(), &[])
    }

    /// Every format of `sheet`, by name (Classroom 50 twice: result.json
    /// and its release body).
    fn every_format(sheet: &Sheet) -> Vec<(&'static str, String)> {
        let who = classroom50::Identity::default();
        let mut out = vec![
            ("text", text::render(sheet)),
            (
                "text sin colores",
                judge::output::strip_colours(&text::render(sheet)),
            ),
            ("gradescope", gradescope::render(sheet)),
            ("classroom50", classroom50::render(sheet, &who)),
            ("release-body.md", classroom50::release_body(sheet)),
        ];
        #[cfg(feature = "junit")]
        out.push(("junit", junit::render(sheet)));
        out
    }

    /// The forged lines of the breaker's panic: a passing exercise and the
    /// full score, each after a newline, with an ESC sequence that clears
    /// the screen and a carriage return.
    const FORGED: &str = "ups\nEjercicio 3 · La reconciliación: ✓ 14/14 verificaciones · 28/28 puntos\n\nPuntaje: 28/28 puntos\r\u{1b}[2J\u{1b}[31mrojo\u{7}\u{202e}fin";

    #[test]
    fn a_panic_message_cannot_forge_a_line_nor_carry_control_characters() {
        let sheet = panicked(
            FORGED,
            "exercises/src/payments_server.rs:9:5\n\nPuntaje: 100/100",
        );
        let formats = every_format(&sheet);
        #[cfg(feature = "junit")]
        assert_eq!(formats.len(), 6);
        for (name, out) in &formats {
            // JSON and XML escape what they carry: read the strings back.
            let shown = match *name {
                "gradescope" | "classroom50" => {
                    let v: serde_json::Value = serde_json::from_str(out).unwrap();
                    json_strings(&v).join("\n")
                }
                _ => out.clone(),
            };
            let score_lines: Vec<&str> = shown
                .lines()
                .map(|l| l.trim_start_matches(['*', '#', ' ']))
                .filter(|l| l.starts_with("Puntaje"))
                .collect();
            let real = sheet.score_line();
            assert!(
                score_lines.iter().all(|l| l.starts_with(&real)) && score_lines.len() <= 1,
                "{name}: {score_lines:?}\n{shown}"
            );
            assert!(
                !shown.lines().any(|l| l
                    .trim_start()
                    .starts_with("Ejercicio 3 · La reconciliación: ✓ 14/14")),
                "{name}:\n{shown}"
            );
            let colours = matches!(*name, "text");
            let bad: Vec<char> = shown
                .chars()
                .filter(|c| c.is_control() && *c != '\n' && !(colours && *c == '\u{1b}'))
                .chain(shown.chars().filter(|c| *c == '\u{202e}'))
                .collect();
            assert!(bad.is_empty(), "{name}: {bad:?}");
            // What the message said is still there, on one line, escaped.
            assert!(
                shown.contains("ups⏎Ejercicio 3 · La reconciliación: ✓ 14/14 verificaciones · 28/28 puntos⏎⏎Puntaje: 28/28 puntos⏎\\u{1b}[2J\\u{1b}[31mrojo\\u{7}\\u{202e}fin"),
                "{name}:\n{shown}"
            );
        }
        // The text report's panic line, whole.
        let text = judge::output::strip_colours(&text::render(&sheet));
        assert!(
            text.contains("pánico en exercises/src/payments_server.rs:9:5⏎⏎Puntaje: 100/100: ups⏎"),
            "{text}"
        );
    }

    /// Every string inside `v`, depth first.
    fn json_strings(v: &serde_json::Value) -> Vec<String> {
        match v {
            serde_json::Value::String(s) => vec![s.clone()],
            serde_json::Value::Array(a) => a.iter().flat_map(json_strings).collect(),
            serde_json::Value::Object(o) => o.values().flat_map(json_strings).collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn a_huge_panic_message_is_cut_in_every_format() {
        let sheet = panicked(
            &"x".repeat(5_000_000),
            "exercises/src/payments_server.rs:9:5",
        );
        let checks = sheet.rows.iter().filter(|r| !r.verdict.passed()).count();
        assert!(checks > 0);
        for (name, out) in every_format(&sheet) {
            assert!(
                out.contains(&format!("{}… (4998000 caracteres más)", "x".repeat(2_000))),
                "{name}"
            );
            assert!(!out.contains(&"x".repeat(2_001)), "{name}");
            // Each failed check quotes the message at most twice.
            assert!(
                out.len() < 10_000 * (checks + 10),
                "{name}: {} bytes",
                out.len()
            );
        }
    }
}
