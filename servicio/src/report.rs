//! The checks' report: text (Spanish, as the grader's), JSON, and
//! Gradescope's `results.json`. Deterministic: no timing, no ports, no
//! paths (the timelines' milliseconds only in a failing check's steps).

use std::fmt::Write;

use serde_json::json;

use crate::Outcome;

/// The text report of the checks: one line per check, a failing one with
/// expected, got, its steps, the hint and the command `repro(id)` that
/// runs it alone; then the score.
pub fn text(outcome: &Outcome, source: &str, repro: &dyn Fn(&str) -> String) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "VERIFICACIONES DEL CONTRATO  ·  {source}");
    for c in &outcome.checks {
        let passed = c.verdict.passed();
        let _ = writeln!(
            out,
            "  {} {} ({}/{}): {}",
            if passed { "✓" } else { "✗" },
            c.spec.id,
            if passed { c.spec.points } else { 0 },
            c.spec.points,
            c.spec.title
        );
        if !passed {
            for line in c.verdict.explanation() {
                let _ = writeln!(out, "      {line}");
            }
            let _ = writeln!(out, "      repite solo esta: {}", repro(c.spec.id));
        }
    }
    let (got, max) = outcome.score();
    let _ = writeln!(out, "\nPuntaje: {got}/{max} puntos");
    out
}

/// The checks as JSON: id, points, whether it passed, the explanation.
pub fn json_checks(outcome: &Outcome) -> serde_json::Value {
    let (got, max) = outcome.score();
    json!({
        "puntaje": got,
        "puntaje_maximo": max,
        "verificaciones": outcome.checks.iter().map(|c| json!({
            "id": c.spec.id,
            "titulo": c.spec.title,
            "puntos": if c.verdict.passed() { c.spec.points } else { 0 },
            "puntos_maximos": c.spec.points,
            "pasa": c.verdict.passed(),
            "explicacion": c.verdict.explanation(),
        })).collect::<Vec<_>>(),
    })
}

/// Gradescope's `results.json`: one test per check (`number` `8.N`:
/// lesson 8's project), the table in `output`, `execution_time` in whole
/// seconds.
pub fn gradescope(
    outcome: &Outcome,
    table: &str,
    repro: &dyn Fn(&str) -> String,
    execution_time: u64,
) -> String {
    let (got, max) = outcome.score();
    let tests: Vec<serde_json::Value> = outcome
        .checks
        .iter()
        .map(|c| {
            // The check's place in the whole list: the same number whether
            // or not the others ran.
            let i = crate::checks::CHECKS
                .iter()
                .position(|s| s.id == c.spec.id)
                .unwrap_or(0);
            let passed = c.verdict.passed();
            let mut output = c.verdict.explanation().join("\n");
            if !passed {
                output.push_str(&format!("\nrepite solo esta: {}", repro(c.spec.id)));
            }
            json!({
                "name": format!("{} · {}", c.spec.id, c.spec.title),
                "number": format!("8.{}", i + 1),
                "score": if passed { c.spec.points } else { 0 },
                "max_score": c.spec.points,
                "status": if passed { "passed" } else { "failed" },
                "output": output,
                "output_format": "text",
                "visibility": "visible",
            })
        })
        .collect();
    let value = json!({
        "score": got,
        "execution_time": execution_time,
        "output": table,
        "output_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": tests,
        "extra_data": { "puntaje_maximo": max },
    });
    serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::CHECKS;
    use crate::timeline::Timeline;
    use crate::{CheckResult, Outcome};
    use judge::verdict::Verdict;

    fn outcome() -> Outcome {
        Outcome {
            before: None,
            after: None,
            checks: vec![
                CheckResult {
                    spec: CHECKS[0],
                    verdict: Verdict::Passed,
                },
                CheckResult {
                    spec: CHECKS[6],
                    verdict: Verdict::failed("1 cargo", "2 cargo(s) <b>", "pista"),
                },
            ],
            timeline: Timeline::new(),
            world_timelines: Vec::new(),
        }
    }

    #[test]
    fn the_reports_score_each_check_and_name_the_command_that_repeats_it() {
        let o = outcome();
        assert_eq!(o.score(), (10, 20));
        let repro = |id: &str| format!("repetir {id}");
        let text = text(&o, "«x»", &repro);
        assert!(text.contains("  ✓ flota-sin-key (10/10): "), "{text}");
        assert!(text.contains("  ✗ dos-instancias (0/10): "), "{text}");
        assert!(text.contains("      obtenido: 2 cargo(s) <b>\n"), "{text}");
        assert!(
            text.contains("      repite solo esta: repetir dos-instancias\n"),
            "{text}"
        );
        assert!(text.ends_with("\nPuntaje: 10/20 puntos\n"), "{text}");
        let g: serde_json::Value =
            serde_json::from_str(&gradescope(&o, "tabla", &repro, 3)).unwrap();
        assert_eq!(g["score"], 10);
        assert_eq!(g["execution_time"], 3);
        assert_eq!(g["tests"][1]["number"], "8.7");
        assert_eq!(g["tests"][1]["status"], "failed");
        assert_eq!(g["tests"][1]["max_score"], 10);
        let j = json_checks(&o);
        assert_eq!(j["verificaciones"][1]["pasa"], false);
        let page = crate::html::page(&o, "tabla <i>", "«x»");
        assert!(page.contains("2 cargo(s) &lt;b&gt;") && page.contains("tabla &lt;i&gt;"));
        assert!(!page.contains("<b>") && !page.contains("<i>"));
    }
}
