//! The loss-rate sweep (lesson 2: "La proporción escala con la tasa de
//! pérdida, no desaparece"): the same fleet, with the same seeds, at several
//! loss probabilities, both worlds, next to the model's expected overcharge.

use std::fmt::Write;

use clap::Args;
use serde_json::json;
use sim::money::group_thousands;

use judge::fixture::Scenario;

use crate::before_after::comparison::{WorldFigures, Worlds};
use crate::before_after::fleet;

/// Most points one sweep may have.
pub const MAX_POINTS: usize = 1001;

/// The expected overcharge ratio of the model with loss probability `p` and
/// at most `max_attempts` attempts: `p + p² + … + p^(m−1)`.
///
/// Why: an order is attempted a k-th time exactly when the k − 1 responses
/// before were lost, with probability p^(k−1); so the expected attempts per
/// order are `1 + p + … + p^(m−1)` (reference: "Expected attempts per order"),
/// and without idempotency every attempt beyond the first charges the
/// order's amount again. A ratio (0.175875 for p = 0.15, m = 4), not a
/// percentage; 0 for `max_attempts` ≤ 1.
pub fn expected_overcharge_ratio(p: f64, max_attempts: u32) -> f64 {
    let mut term = 1.0;
    let mut sum = 0.0;
    for _ in 1..max_attempts {
        term *= p;
        sum += term;
    }
    sum
}

/// The formula as the chart's legend prints it (`p + p² + p³` for m = 4).
pub fn expected_formula(max_attempts: u32) -> String {
    let power = |k: u32| {
        if k == 1 {
            "p".to_string()
        } else {
            format!("p{}", superscript(k))
        }
    };
    match max_attempts {
        0 | 1 => "0".to_string(),
        m if m <= 5 => (1..m).map(power).collect::<Vec<_>>().join(" + "),
        m => format!("p + p² + … + {}", power(m - 1)),
    }
}

fn superscript(n: u32) -> String {
    const DIGITS: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];
    n.to_string()
        .chars()
        .map(|c| DIGITS[c.to_digit(10).unwrap_or(0) as usize])
        .collect()
}

/// The probabilities a sweep runs.
#[derive(Args, Debug, Clone, PartialEq)]
pub struct SweepRange {
    /// Primera probabilidad de pérdida del barrido, entre 0 y 1 (por
    /// omisión 0).
    #[arg(long, value_name = "P", default_value = "0", hide_default_value = true, value_parser = fleet::parse_probability)]
    pub desde: f64,

    /// Última probabilidad, incluida, entre 0 y 1 (por omisión 0.5).
    #[arg(long, value_name = "P", default_value = "0.5", hide_default_value = true, value_parser = fleet::parse_probability)]
    pub hasta: f64,

    /// Paso entre dos probabilidades, mayor que 0 (por omisión 0.05).
    #[arg(long, value_name = "P", default_value = "0.05", hide_default_value = true, value_parser = fleet::parse_probability)]
    pub paso: f64,
}

impl Default for SweepRange {
    fn default() -> SweepRange {
        SweepRange {
            desde: 0.0,
            hasta: 0.5,
            paso: 0.05,
        }
    }
}

impl SweepRange {
    /// `desde, desde + paso, …` up to `hasta` (included when it falls on a
    /// step, to within 10⁻⁹), each rounded to 9 decimals so that 3 × 0.05 is
    /// exactly the 0.15 of the lesson.
    ///
    /// # Errors
    /// A Spanish line naming the flag: `--paso` of 0, `--desde` above
    /// `--hasta`, or more than [`MAX_POINTS`] points.
    pub fn probabilities(&self) -> Result<Vec<f64>, String> {
        if self.paso <= 0.0 {
            return Err("--paso: debe ser mayor que 0 (p. ej. 0.05)".to_string());
        }
        if self.desde > self.hasta {
            return Err(format!(
                "--desde ({}) debe ser ≤ --hasta ({})",
                self.desde, self.hasta
            ));
        }
        let steps = ((self.hasta - self.desde) / self.paso + 1e-9).floor();
        if steps + 1.0 > MAX_POINTS as f64 {
            return Err(format!(
                "--paso: el barrido tendría {} puntos; el máximo es {MAX_POINTS} (usa un paso mayor)",
                steps as u64 + 1
            ));
        }
        Ok((0..=steps as u64)
            .map(|i| {
                let p = self.desde + i as f64 * self.paso;
                ((p * 1e9).round() / 1e9).min(1.0)
            })
            .collect())
    }
}

/// One probability of a sweep, both worlds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SweepPoint {
    /// The loss probability.
    pub p: f64,
    /// Both worlds' figures at `p`.
    pub worlds: Worlds,
}

/// `scenario` with loss probability `p` (its seeds unchanged).
///
/// # Errors
/// When the scenario's losses are a script, not a probability.
pub fn at(scenario: &Scenario, p: f64) -> Result<Scenario, String> {
    if scenario.fleet.p_response_lost().is_none() {
        return Err(format!(
            "barrido: el fixture {} tiene un guion de pérdidas; el barrido necesita pérdidas aleatorias (`losses.p_response_lost` y `losses.seed`)",
            scenario.name
        ));
    }
    let mut s = scenario.clone();
    fleet::apply(
        &mut s,
        &fleet::FleetArgs {
            p_perdida: Some(p),
            ..fleet::FleetArgs::default()
        },
    )?;
    Ok(s)
}

/// `part / whole` as a percentage with two decimals, rounded half away from
/// zero, from integer cents (`18.73%`); `0.00%` for a zero whole.
pub fn percent_2(part_cents: i64, whole_cents: i64) -> String {
    if whole_cents == 0 {
        return "0.00%".to_string();
    }
    let num = i128::from(part_cents) * 10_000;
    let den = i128::from(whole_cents);
    let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
    let q = if num >= 0 {
        (2 * num + den) / (2 * den)
    } else {
        -((-2 * num + den) / (2 * den))
    };
    let sign = if q < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}%", q.abs() / 100, q.abs() % 100)
}

/// `p` with two decimals (`0.15`, `0.00`), or as many as it needs, up to 9.
pub fn probability(p: f64) -> String {
    (2..=9)
        .map(|d| format!("{p:.d$}"))
        .find(|s| s.parse::<f64>() == Ok(p))
        .unwrap_or_else(|| format!("{p:.9}"))
}

fn pct(f: &WorldFigures) -> String {
    percent_2(f.overcharge.cents(), f.intended.cents())
}

/// The sweep's table, in Spanish: per probability, the attempts, the
/// overcharge without keys in dollars and percent, the model's expected
/// percent, and the overcharge with keys.
pub fn render(scenario: &Scenario, crate_name: &str, points: &[SweepPoint]) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "BARRIDO DE PÉRDIDAS  ·  {}  ·  con {crate_name}",
        scenario.name
    );
    let _ = writeln!(out, "{}", fleet::describe(scenario, false));
    let _ = writeln!(
        out,
        "las mismas semillas en cada p: la red falla igual en los dos mundos\n"
    );
    let m = scenario.fleet.max_attempts;
    let _ = writeln!(
        out,
        "  {:>10}  {:>10}  {:>14}  {:>9}  {:>11}  {:>9}",
        "p(perdida)", "intentos", "SIN keys", "SIN keys", "esperado", "CON keys"
    );
    let _ = writeln!(
        out,
        "  {:>10}  {:>10}  {:>14}  {:>9}  {:>11}  {:>9}",
        "", "", "sobrecobro $", "%", "modelo %", "%"
    );
    for point in points {
        let (b, a) = (&point.worlds.before, &point.worlds.after);
        let expected = 100.0 * expected_overcharge_ratio(point.p, m);
        let _ = writeln!(
            out,
            "  {:>10}  {:>10}  {:>14}  {:>9}  {:>11}  {:>9}",
            probability(point.p),
            group_thousands(b.attempts),
            b.overcharge.to_string(),
            pct(b),
            format!("{expected:.2}%"),
            pct(a),
        );
    }
    let _ = writeln!(
        out,
        "\n  esperado (modelo) = {} con p la probabilidad de perder la respuesta y m = {m} intentos",
        expected_formula(m)
    );
    out
}

/// The same figures for machines (money in cents, Spanish keys).
pub fn to_json(scenario: &Scenario, crate_name: &str, points: &[SweepPoint]) -> serde_json::Value {
    let m = scenario.fleet.max_attempts;
    let rows: Vec<serde_json::Value> = points
        .iter()
        .map(|pt| {
            let (b, a) = (&pt.worlds.before, &pt.worlds.after);
            json!({
                "p_perdida": pt.p,
                "intentos": b.attempts,
                "antes_sobrecobro_centavos": b.overcharge.cents(),
                "antes_sobrecobro_porcentaje": b.overcharge_pct().as_f64(),
                "esperado_porcentaje": 100.0 * expected_overcharge_ratio(pt.p, m),
                "despues_sobrecobro_centavos": a.overcharge.cents(),
                "despues_sobrecobro_porcentaje": a.overcharge_pct().as_f64(),
                "antes_ordenes_cobradas_2_o_mas_veces": b.orders_charged_twice_or_more,
                "ordenes_sin_confirmar": b.unconfirmed,
            })
        })
        .collect();
    json!({
        "escenario": scenario.name,
        "implementacion": crate_name,
        "ordenes": scenario.fleet.order_count(),
        "max_intentos": m,
        "stream": scenario.fleet.stream.name(),
        "puntos": rows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_expected_overcharge_is_the_models() {
        // p = 0.15, m = 4: 0.15 + 0.0225 + 0.003375 (reference: 0.175875).
        assert!((expected_overcharge_ratio(0.15, 4) - 0.175875).abs() < 1e-15);
        assert_eq!(
            format!("{:.4}", expected_overcharge_ratio(0.15, 4)),
            "0.1759"
        );
        assert_eq!(expected_overcharge_ratio(0.5, 4), 0.875);
        assert_eq!(expected_overcharge_ratio(0.5, 2), 0.5);
        assert_eq!(expected_overcharge_ratio(1.0, 4), 3.0);
        assert_eq!(expected_overcharge_ratio(0.0, 4), 0.0);
        assert_eq!(expected_overcharge_ratio(0.9, 1), 0.0);
        assert!((expected_overcharge_ratio(0.01, 4) - 0.010101).abs() < 1e-15);
    }

    #[test]
    fn the_formula_reads_like_the_lesson() {
        assert_eq!(expected_formula(4), "p + p² + p³");
        assert_eq!(expected_formula(2), "p");
        assert_eq!(expected_formula(1), "0");
        assert_eq!(expected_formula(12), "p + p² + … + p¹¹");
    }

    #[test]
    fn the_default_range_hits_the_lessons_probability_exactly() {
        let ps = SweepRange::default().probabilities().unwrap();
        assert_eq!(ps.len(), 11);
        assert_eq!(ps[0], 0.0);
        assert_eq!(ps[3], 0.15);
        assert_eq!(ps[10], 0.5);
        let one = SweepRange {
            desde: 0.15,
            hasta: 0.15,
            paso: 0.05,
        };
        assert_eq!(one.probabilities().unwrap(), vec![0.15]);
    }

    #[test]
    fn bad_ranges_name_the_flag() {
        let zero = SweepRange {
            paso: 0.0,
            ..SweepRange::default()
        };
        assert!(zero.probabilities().unwrap_err().starts_with("--paso"));
        let inverted = SweepRange {
            desde: 0.4,
            hasta: 0.1,
            paso: 0.05,
        };
        assert!(inverted.probabilities().unwrap_err().starts_with("--desde"));
        let tiny = SweepRange {
            desde: 0.0,
            hasta: 1.0,
            paso: 0.0001,
        };
        assert!(tiny.probabilities().unwrap_err().contains("máximo es 1001"));
    }

    #[test]
    fn probabilities_print_with_the_decimals_they_need() {
        assert_eq!(probability(0.0), "0.00");
        assert_eq!(probability(0.1), "0.10");
        assert_eq!(probability(0.15), "0.15");
        assert_eq!(probability(0.125), "0.125");
    }

    #[test]
    fn two_decimal_percentages_round_like_the_lesson() {
        assert_eq!(percent_2(4_813_900, 25_697_900), "18.73%");
        assert_eq!(percent_2(0, 25_697_900), "0.00%");
        assert_eq!(percent_2(1, 0), "0.00%");
        assert_eq!(percent_2(1, 8), "12.50%");
    }
}
