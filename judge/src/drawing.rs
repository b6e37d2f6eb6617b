//! A run drawn as a sequence diagram in inline SVG (no scripts, no fonts,
//! no network): one column per actor, one row per step in the order it
//! happened, a note in the margin, each step's whole text as its tooltip.
//! The kit draws two kinds of run with it: `servicio --html` (orders#1,
//! orders#2, …, the processor: lección 8) and `repetir-horario --html`
//! (exercise 4's threads under one schedule: lección 4).

use std::fmt::Write as _;

/// How a step is coloured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tone {
    /// Anything else (grey).
    Plain,
    /// A request sent (blue).
    Sent,
    /// A charge the processor or the ledger took as it should (green).
    Charged,
    /// What goes wrong or is lost: a lost answer, a held charge, the step
    /// where a schedule breaks lesson 4's rules (red).
    Wrong,
}

impl Tone {
    /// The colour this tone is drawn in (CSS hex).
    pub fn colour(self) -> &'static str {
        match self {
            Tone::Plain => "#555",
            Tone::Sent => "#1a4fa0",
            Tone::Charged => "#176b2c",
            Tone::Wrong => "#b00020",
        }
    }
}

/// One step of the diagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The column (an index into the lanes).
    pub lane: usize,
    /// The margin's note (`+3 ms`, `12.`).
    pub margin: String,
    /// What happened, in the lesson's words; cut to [`LABEL_CHARS`] in the
    /// drawing, whole in its tooltip.
    pub text: String,
    /// Its colour.
    pub tone: Tone,
}

/// The most characters of a step's text written in its column.
pub const LABEL_CHARS: usize = 34;

/// `text` with `&`, `<`, `>` and `"` escaped for HTML and SVG.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `text` cut to `n` characters, `…` marking the cut.
pub fn short(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_string()
    } else {
        format!("{}…", text.chars().take(n).collect::<String>())
    }
}

/// The diagram: `lanes` are the columns' titles, left to right; `steps` the
/// rows, top to bottom. A step whose lane is past the last column is drawn
/// in the first.
pub fn sequence(lanes: &[String], steps: &[Step]) -> String {
    let col = 260usize;
    let row = 22usize;
    let width = 70 + col * lanes.len();
    let height = 30 + row * (steps.len() + 1);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" role=\"img\">\n"
    );
    for (i, lane) in lanes.iter().enumerate() {
        let x = 70 + col * i;
        let _ = writeln!(
            svg,
            "<text x=\"{x}\" y=\"16\" font-weight=\"bold\">{}</text><line x1=\"{x}\" y1=\"22\" x2=\"{x}\" y2=\"{height}\" stroke=\"#ccc\"/>",
            escape(lane)
        );
    }
    for (i, step) in steps.iter().enumerate() {
        let y = 40 + row * i;
        let lane = if step.lane < lanes.len() {
            step.lane
        } else {
            0
        };
        let x = 70 + col * lane;
        let colour = step.tone.colour();
        let _ = writeln!(
            svg,
            "<text x=\"4\" y=\"{y}\" fill=\"#888\">{}</text><circle cx=\"{x}\" cy=\"{}\" r=\"5\" fill=\"{colour}\"/><text x=\"{}\" y=\"{y}\" fill=\"{colour}\">{}</text>",
            escape(&step.margin),
            y - 4,
            x + 9,
            escape(&short(&step.text, LABEL_CHARS))
        );
        let _ = writeln!(svg, "<title>{}</title>", escape(&step.text));
    }
    svg.push_str("</svg>\n");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each step in its lane's column, in its tone, its text cut in the
    /// drawing and whole in the tooltip, everything escaped.
    #[test]
    fn steps_are_drawn_in_their_lanes_and_tones() {
        let lanes = vec!["hilo 1".to_string(), "hilo <2>".to_string()];
        let long = "busca K1 → no está y marca K1 en curso y guarda K1 → ch_0001";
        let steps = vec![
            Step {
                lane: 1,
                margin: "1.".into(),
                text: long.into(),
                tone: Tone::Wrong,
            },
            Step {
                lane: 0,
                margin: "2.".into(),
                text: "cobra ch_0001 & más".into(),
                tone: Tone::Charged,
            },
        ];
        let svg = sequence(&lanes, &steps);
        assert!(svg.starts_with(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"590\" height=\"96\" role=\"img\">\n"
        ));
        assert!(svg.contains("font-weight=\"bold\">hilo &lt;2&gt;</text>"));
        assert!(svg.contains(&format!(
            "<circle cx=\"330\" cy=\"36\" r=\"5\" fill=\"#b00020\"/><text x=\"339\" y=\"40\" fill=\"#b00020\">{}…</text>",
            long.chars().take(LABEL_CHARS).collect::<String>()
        )));
        assert!(svg.contains(&format!("<title>{long}</title>")));
        assert!(svg.contains(
            "<circle cx=\"70\" cy=\"58\" r=\"5\" fill=\"#176b2c\"/><text x=\"79\" y=\"62\" fill=\"#176b2c\">cobra ch_0001 &amp; más</text>"
        ));
        assert!(svg.ends_with("</svg>\n"));
    }
}
