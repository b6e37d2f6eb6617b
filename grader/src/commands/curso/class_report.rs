//! `clase.md` and `clase.html`: what the class got wrong. For each check,
//! how many of the graded submissions failed it; then the class's mistakes
//! grouped by cause (the words of the hint the report gives the student),
//! each with how many submissions made it, the checks it broke and the
//! shortest counterexample among them, without the submission's name. The
//! HTML page is self-contained (no network): the same tables and an inline
//! SVG bar chart of the failure rate of every check. Same records, same
//! bytes: no dates, everything sorted.

use std::collections::BTreeMap;

use super::record::{Record, Status};
use judge::rubric::Points;

/// One check's failures over the graded submissions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckStat {
    /// The check id.
    pub id: String,
    /// Submissions that failed it.
    pub failed: usize,
    /// Submissions whose checks ran.
    pub of: usize,
}

/// One cause of failure over the class.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CauseStat {
    /// The hint's words.
    pub cause: String,
    /// Submissions with at least one check failing for it.
    pub submissions: usize,
    /// The checks it broke, in catalog order.
    pub checks: Vec<String>,
    /// The shortest failure explanation of that cause (fewest characters,
    /// then first in text order).
    pub example: Vec<String>,
}

/// What the class report says, computed once for both formats.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Submissions, by status.
    pub by_status: Vec<(Status, usize)>,
    /// All submissions.
    pub total: usize,
    /// Submissions whose checks ran.
    pub ran: usize,
    /// Mean score over all submissions, hundredths, rounded to the
    /// nearest (a half up): 0, 38 and 0 points are 12.67.
    pub mean: u64,
    /// Median score (lower middle), hundredths.
    pub median: u64,
    /// Points possible (the most common maximum), hundredths.
    pub max: u64,
    /// Every check, in catalog order.
    pub checks: Vec<CheckStat>,
    /// Every cause, most frequent first (then by text).
    pub causes: Vec<CauseStat>,
}

/// Computes the summary of `records`.
pub fn summarize(records: &[Record]) -> Summary {
    let ids = super::gradebook::check_ids(records);
    let ran: Vec<&Record> = records.iter().filter(|r| r.estado.ran()).collect();
    let checks = ids
        .iter()
        .map(|id| CheckStat {
            id: id.clone(),
            failed: ran
                .iter()
                .filter(|r| r.verificaciones.iter().any(|c| &c.id == id && !c.paso))
                .count(),
            of: ran.len(),
        })
        .collect();
    // cause → (submissions, checks, shortest example)
    type Tally = (usize, Vec<String>, Option<Vec<String>>);
    let mut causes: BTreeMap<String, Tally> = BTreeMap::new();
    for r in &ran {
        let mut seen: Vec<&str> = Vec::new();
        for c in &r.verificaciones {
            let Some(cause) = &c.causa else { continue };
            let entry = causes.entry(cause.clone()).or_default();
            if !seen.contains(&cause.as_str()) {
                seen.push(cause);
                entry.0 += 1;
            }
            if !entry.1.contains(&c.id) {
                entry.1.push(c.id.clone());
            }
            let shorter = match &entry.2 {
                None => true,
                Some(best) => {
                    let (a, b) = (c.ejemplo.join("\n"), best.join("\n"));
                    (a.chars().count(), &a) < (b.chars().count(), &b)
                }
            };
            if shorter {
                entry.2 = Some(c.ejemplo.clone());
            }
        }
    }
    let mut causes: Vec<CauseStat> = causes
        .into_iter()
        .map(|(cause, (submissions, mut checks, example))| {
            checks.sort_by_key(|id| ids.iter().position(|i| i == id));
            CauseStat {
                cause,
                submissions,
                checks,
                example: example.unwrap_or_default(),
            }
        })
        .collect();
    causes.sort_by(|a, b| {
        b.submissions
            .cmp(&a.submissions)
            .then(a.cause.cmp(&b.cause))
    });
    let mut scores: Vec<u64> = records.iter().map(|r| r.puntaje).collect();
    scores.sort_unstable();
    let mean = mean_rounded(&scores);
    let median = scores
        .get(scores.len().saturating_sub(1) / 2)
        .copied()
        .unwrap_or(0);
    let mut maxima: BTreeMap<u64, usize> = BTreeMap::new();
    for r in records {
        *maxima.entry(r.maximo).or_default() += 1;
    }
    let max = maxima
        .iter()
        .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
        .map_or(0, |(m, _)| *m);
    Summary {
        by_status: Status::ALL
            .into_iter()
            .map(|s| (s, records.iter().filter(|r| r.estado == s).count()))
            .filter(|(_, n)| *n > 0)
            .collect(),
        total: records.len(),
        ran: ran.len(),
        mean,
        median,
        max,
        checks,
        causes,
    }
}

/// The mean of `scores` (hundredths), rounded to the nearest hundredth (a
/// half up); 0 for none.
fn mean_rounded(scores: &[u64]) -> u64 {
    let n = scores.len() as u64;
    if n == 0 {
        return 0;
    }
    (2 * scores.iter().sum::<u64>() + n) / (2 * n)
}

fn pts(h: u64) -> String {
    Points::from_hundredths(h).to_string()
}

fn percent(part: usize, of: usize) -> usize {
    (part * 100 + of / 2).checked_div(of).unwrap_or(0)
}

const TITLE: &str = "La clase — Módulo 4 · Lección 2: El doble cargo del reintento, medido";

fn status_line(s: &Summary) -> String {
    let parts: Vec<String> = s
        .by_status
        .iter()
        .map(|(st, n)| format!("{} {n}", st.word()))
        .collect();
    // The state names are `libro.csv`'s (`calificada`, `no-compila`, …),
    // each with its count: "3 entregas: calificada 2, no-compila 1."
    format!("{} entregas: {}.", s.total, parts.join(", "))
}

fn score_line(s: &Summary) -> String {
    format!(
        "Puntaje: promedio {} y mediana {} de {} puntos (todas las entregas; las que no compilan, sin archivos o rechazadas valen 0).",
        pts(s.mean),
        pts(s.median),
        pts(s.max)
    )
}

/// `clase.md`.
pub fn markdown(s: &Summary) -> String {
    let mut out = format!("# {TITLE}\n\n{}\n\n{}\n\n", status_line(s), score_line(s));
    out.push_str(&format!(
        "## Qué falló, por verificación\n\nDe las {} entregas cuyas verificaciones corrieron:\n\n| Verificación | Fallaron | De | % |\n|---|---:|---:|---:|\n",
        s.ran
    ));
    for c in &s.checks {
        out.push_str(&format!(
            "| `{}` | {} | {} | {}% |\n",
            c.id,
            c.failed,
            c.of,
            percent(c.failed, c.of)
        ));
    }
    out.push_str("\n## Los errores de la clase, por causa\n\n");
    if s.causes.is_empty() {
        out.push_str("Ninguna verificación falló.\n");
    }
    for (k, c) in s.causes.iter().enumerate() {
        out.push_str(&format!(
            "### {}. {} de {}: {}\n\nVerificaciones: {}.\n\nEl contraejemplo más corto (anónimo):\n\n```text\n{}\n```\n\n",
            k + 1,
            c.submissions,
            s.ran,
            c.cause,
            c.checks
                .iter()
                .map(|i| format!("`{i}`"))
                .collect::<Vec<_>>()
                .join(", "),
            c.example.join("\n")
        ));
    }
    out
}

fn esc(t: &str) -> String {
    t.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The inline SVG bar chart: one bar per check, its failure rate.
fn chart(s: &Summary) -> String {
    let (label, bar, row) = (330, 300, 18);
    let height = row * s.checks.len() + 30;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" role=\"img\" aria-label=\"Porcentaje de entregas que fallaron cada verificación\">\n",
        label + bar + 60
    );
    for (k, c) in s.checks.iter().enumerate() {
        let y = 10 + k * row;
        let p = percent(c.failed, c.of);
        let w = bar * p / 100;
        svg.push_str(&format!(
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\" font-family=\"monospace\">{}</text><rect x=\"{}\" y=\"{y}\" width=\"{w}\" height=\"{}\" fill=\"#c0392b\"/><rect x=\"{}\" y=\"{y}\" width=\"{bar}\" height=\"{}\" fill=\"none\" stroke=\"#999\"/><text x=\"{}\" y=\"{}\" font-size=\"11\">{p}%</text>\n",
            label - 6,
            y + 12,
            esc(&c.id),
            label,
            row - 4,
            label,
            row - 4,
            label + bar + 6,
            y + 12
        ));
    }
    svg.push_str("</svg>\n");
    svg
}

/// `clase.html`: self-contained (inline style and SVG, no scripts, no
/// network).
pub fn html(s: &Summary) -> String {
    let mut out = format!(
        "<!DOCTYPE html>\n<html lang=\"es\">\n<head>\n<meta charset=\"utf-8\">\n<title>{}</title>\n<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}}td,th{{padding:2px 8px}}td.n{{text-align:right}}pre{{background:#f4f4f4;padding:8px;overflow-x:auto}}</style>\n</head>\n<body>\n<h1>{}</h1>\n<p>{}</p>\n<p>{}</p>\n",
        esc(TITLE),
        esc(TITLE),
        esc(&status_line(s)),
        esc(&score_line(s))
    );
    out.push_str(&format!(
        "<h2>Qué falló, por verificación</h2>\n<p>De las {} entregas cuyas verificaciones corrieron:</p>\n",
        s.ran
    ));
    out.push_str(&chart(s));
    out.push_str("<table>\n<tr><th>Verificación</th><th>Fallaron</th><th>De</th><th>%</th></tr>\n");
    for c in &s.checks {
        out.push_str(&format!(
            "<tr><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}%</td></tr>\n",
            esc(&c.id),
            c.failed,
            c.of,
            percent(c.failed, c.of)
        ));
    }
    out.push_str("</table>\n<h2>Los errores de la clase, por causa</h2>\n");
    if s.causes.is_empty() {
        out.push_str("<p>Ninguna verificación falló.</p>\n");
    }
    for (k, c) in s.causes.iter().enumerate() {
        out.push_str(&format!(
            "<h3>{}. {} de {}: {}</h3>\n<p>Verificaciones: {}.</p>\n<p>El contraejemplo más corto (anónimo):</p>\n<pre>{}</pre>\n",
            k + 1,
            c.submissions,
            s.ran,
            esc(&c.cause),
            c.checks
                .iter()
                .map(|i| format!("<code>{}</code>", esc(i)))
                .collect::<Vec<_>>()
                .join(", "),
            esc(&c.example.join("\n"))
        ));
    }
    out.push_str("</body>\n</html>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mean_is_rounded_not_cut() {
        // 0, 38 and 0 points: 12.666… is 12.67, not 12.66.
        assert_eq!(mean_rounded(&[0, 3800, 0]), 1267);
        assert_eq!(pts(mean_rounded(&[0, 3800, 0])), "12.67");
        // 12.665 (a half) goes up; 12.664 stays.
        assert_eq!(mean_rounded(&[1266, 1267]), 1267);
        assert_eq!(mean_rounded(&[1264, 1264]), 1264);
        assert_eq!(mean_rounded(&[]), 0);
        assert_eq!(mean_rounded(&[10000]), 10000);
    }
}
