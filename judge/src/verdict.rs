//! What one check concluded, and the exercises checks belong to (re-exported
//! from [`crate::catalog`], where they are listed).

use serde::{Deserialize, Serialize};

pub use crate::catalog::Exercise;

/// The most characters of student-provided text (a panic message, a
/// location, the lines the code printed) a verdict keeps; the rest is
/// counted, not shown.
pub const STUDENT_TEXT_CHARS: usize = 2_000;

/// `text`, which the student's code produced, made safe for every report
/// format: one line (a newline shows as `⏎`, a tab as a space), no control
/// character (each other one shows as its `\u{..}` escape, so an ESC
/// sequence cannot colour, move or clear anything), and at most
/// [`STUDENT_TEXT_CHARS`] characters, followed by `… (N caracteres más)`.
/// The only entrance of such text into a verdict: [`From<Failure>`] and
/// the quoted output of a dead process use it.
pub fn student_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len().min(4 * STUDENT_TEXT_CHARS));
    let mut shown = 0usize;
    let mut chars = text.chars();
    // `\r\n` is one line break.
    let mut last_cr = false;
    for c in chars.by_ref() {
        if c == '\n' && last_cr {
            last_cr = false;
            continue;
        }
        last_cr = c == '\r';
        let piece: std::borrow::Cow<'static, str> = match c {
            '\n' | '\r' | '\u{2028}' | '\u{2029}' | '\u{85}' => "⏎".into(),
            '\t' => " ".into(),
            c if c.is_control() || is_invisible_format(c) => {
                format!("\\u{{{:x}}}", c as u32).into()
            }
            c => c.to_string().into(),
        };
        out.push_str(&piece);
        shown += 1;
        if shown == STUDENT_TEXT_CHARS {
            break;
        }
    }
    let rest = chars.count();
    if rest > 0 {
        out.push_str(&format!("… ({rest} caracteres más)"));
    }
    out
}

/// Characters that change how the text around them is shown without being
/// shown themselves (bidirectional overrides and isolates, zero-width
/// joiners, the byte-order mark): a message could reorder a report line
/// with them.
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{206f}' | '\u{feff}')
}

impl From<protocol::Failure> for Verdict {
    /// The verdict of a `todo!()` or a panic the harness caught; its
    /// message and location come from the student's code, so they pass
    /// through [`student_text`].
    fn from(f: protocol::Failure) -> Verdict {
        match f {
            protocol::Failure::Pending { location } => Verdict::Pending {
                location: student_text(&location),
            },
            protocol::Failure::Panicked { message, location } => Verdict::Panicked {
                message: student_text(&message),
                location: student_text(&location),
            },
        }
    }
}

/// A hint and the fixed check (its name within the exercise) whose rule it
/// explains; `None` when the hint only says what differs.
pub type Hint = (String, Option<&'static str>);

/// The outcome of one check.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "estado", rename_all = "snake_case")]
pub enum Verdict {
    /// Everything matched.
    Passed,
    /// The code ran and answered wrong.
    Failed {
        /// What the check expected, in Spanish.
        expected: String,
        /// What came back.
        got: String,
        /// What the lesson says about this mistake.
        hint: String,
        /// The calls of the check step by step, the model's answer and the
        /// code's, marked where they part (exercise 1); empty otherwise.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        steps: Vec<String>,
        /// The name of the fixed check of the same exercise whose rule the
        /// hint explains (`porcentaje-sobre-la-intencion`), when the
        /// observation proves that mistake; `None` when the hint only says
        /// what differs. Reports show first the check that owns its hint.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        owner: Option<String>,
    },
    /// The code still reaches a `todo!()`.
    Pending {
        /// `file:line` of the `todo!()`.
        location: String,
    },
    /// The code panicked.
    Panicked {
        /// The panic message.
        message: String,
        /// `file:line:column` of the panic.
        location: String,
    },
    /// The code did not return within the limit and was stopped.
    TimedOut {
        /// The limit, in milliseconds.
        limit_ms: u64,
        /// Which case did not finish and what it needs, when the check
        /// knows (a model-based check's fixed large case: `en el caso
        /// grande fijo: …`); `None`: only that no answer came in time.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        case: Option<String>,
    },
    /// The process running the code died without answering.
    Crashed {
        /// What happened, in Spanish.
        what: String,
    },
    /// The code disagreed with the model on a generated input: the
    /// smallest such input, shrunk, as a numbered trace.
    Counterexample {
        /// The shrunk case in one line (size, seed, where it came from).
        summary: String,
        /// Numbered Spanish lines, the last marked where the code parts
        /// from the model.
        trace: Vec<String>,
        /// What the lesson says about it.
        hint: String,
    },
    /// The source policy refused the exercise before compiling
    /// ([`crate::policy`]): its code uses what the exercise does not need,
    /// so none of its checks ran.
    Refused {
        /// One Spanish line per use: file, line, column, what and why.
        uses: Vec<String>,
    },
    /// The code did not compile: no check could run.
    NotCompiled {
        /// The compiler's first errors, paths relative to the repository.
        errors: Vec<String>,
    },
}

impl Verdict {
    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        matches!(self, Verdict::Passed)
    }

    /// A failure with these three texts.
    pub fn failed(
        expected: impl Into<String>,
        got: impl Into<String>,
        hint: impl Into<String>,
    ) -> Verdict {
        Verdict::Failed {
            expected: expected.into(),
            got: got.into(),
            hint: hint.into(),
            steps: Vec::new(),
            owner: None,
        }
    }

    /// This failure with its step table (no change to other verdicts).
    pub fn with_steps(mut self, table: Vec<String>) -> Verdict {
        if let Verdict::Failed { steps, .. } = &mut self {
            *steps = table;
        }
        self
    }

    /// This failure with the check that owns its hint (no change to other
    /// verdicts).
    pub fn owned_by(mut self, check: Option<&str>) -> Verdict {
        if let Verdict::Failed { owner, .. } = &mut self {
            *owner = check.map(str::to_string);
        }
        self
    }

    /// The check that owns this failure's hint, if it is known.
    pub fn owner(&self) -> Option<&str> {
        match self {
            Verdict::Failed { owner, .. } => owner.as_deref(),
            _ => None,
        }
    }

    /// The explanation as plain Spanish lines (empty for a pass).
    pub fn explanation(&self) -> Vec<String> {
        self.explain(true)
    }

    /// As [`Verdict::explanation`], without the `pista:` line (`vigilar`
    /// shows the hint when the student asks for it, with `h`).
    pub fn explanation_without_hint(&self) -> Vec<String> {
        self.explain(false)
    }

    fn explain(&self, with_hint: bool) -> Vec<String> {
        let hint_line = |hint: &str| with_hint.then(|| format!("pista: {hint}"));
        match self {
            Verdict::Passed => Vec::new(),
            Verdict::Failed {
                expected,
                got,
                hint,
                steps,
                ..
            } => {
                let mut lines = vec![format!("esperado: {expected}"), format!("obtenido: {got}")];
                lines.extend(steps.iter().map(|l| format!("  {l}")));
                lines.extend(hint_line(hint));
                lines
            }
            Verdict::Pending { location } => {
                let what = Exercise::from_file(location)
                    .map_or(String::new(), |e| format!("{} ", e.function()));
                vec![format!("pendiente: {what}todavía es todo!() ({location})")]
            }
            Verdict::Panicked { message, location } => {
                vec![format!("pánico en {location}: {message}")]
            }
            Verdict::TimedOut { limit_ms, case } => {
                // Whole seconds as such, else one decimal: "10.2", not the
                // "10.242" of 5 s and 5 µs per call.
                let seconds = if limit_ms % 1000 == 0 {
                    (limit_ms / 1000).to_string()
                } else {
                    format!("{:.1}", *limit_ms as f64 / 1000.0)
                };
                vec![match case {
                    Some(case) => format!("no terminó en {seconds} s y se detuvo {case}"),
                    None => format!(
                        "no terminó en {seconds} s y se detuvo: tu código no devolvió ninguna respuesta en ese tiempo (el límite crece con el trabajo de la verificación)"
                    ),
                }]
            }
            Verdict::Crashed { what } => vec![format!("el proceso murió: {what}")],
            Verdict::Counterexample {
                summary,
                trace,
                hint,
            } => {
                let mut lines = vec![format!("contraejemplo: {summary}")];
                lines.extend(trace.iter().map(|l| format!("  {l}")));
                lines.extend(hint_line(hint));
                lines
            }
            Verdict::Refused { uses } => {
                let mut lines = vec![
                    "el juez no califica este ejercicio (0 puntos): tu código usa lo que el ejercicio no necesita (ver «Qué código acepta el juez» en el README):".to_string(),
                ];
                lines.extend(uses.iter().map(|u| format!("  {u}")));
                lines
            }
            Verdict::NotCompiled { errors } => {
                let mut lines =
                    vec!["tu código no compila; el primer error del compilador:".to_string()];
                lines.extend(
                    errors
                        .first()
                        .into_iter()
                        .flat_map(|e| e.lines().map(str::to_string)),
                );
                lines
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn student_text_is_one_line_without_control_characters() {
        assert_eq!(student_text("a\nb\r\nc\rd\te"), "a⏎b⏎c⏎d e");
        assert_eq!(
            student_text("\u{1b}[2J\u{7}\u{0}\u{202e}x\u{85}y"),
            "\\u{1b}[2J\\u{7}\\u{0}\\u{202e}x⏎y"
        );
        assert_eq!(student_text("ñandú ✓ 日本"), "ñandú ✓ 日本");
    }

    #[test]
    fn student_text_is_cut_at_its_limit_counting_characters() {
        let long = "é".repeat(STUDENT_TEXT_CHARS + 5);
        assert_eq!(
            student_text(&long),
            format!("{}… (5 caracteres más)", "é".repeat(STUDENT_TEXT_CHARS))
        );
        let exact = "é".repeat(STUDENT_TEXT_CHARS);
        assert_eq!(student_text(&exact), exact);
    }

    #[test]
    fn a_caught_panic_enters_the_verdict_through_student_text() {
        let v = Verdict::from(protocol::Failure::Panicked {
            message: "uno\nPuntaje: 100/100".to_string(),
            location: "exercises/src/client.rs:3:1".to_string(),
        });
        assert_eq!(
            v.explanation(),
            ["pánico en exercises/src/client.rs:3:1: uno⏎Puntaje: 100/100"]
        );
        let p = Verdict::from(protocol::Failure::Pending {
            location: "exercises/src/client.rs:3\u{1b}".to_string(),
        });
        assert_eq!(
            p,
            Verdict::Pending {
                location: "exercises/src/client.rs:3\\u{1b}".to_string()
            }
        );
    }
}
