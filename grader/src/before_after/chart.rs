//! The sweep as a chart: overcharge (% of the intended total) against the
//! probability of losing a response, before and after, with the model's
//! expected curve. Drawn with plotters' pure-SVG backend (no system
//! libraries, no fonts: the browser lays out the text).

use judge::fixture::Scenario;
use plotters::prelude::*;

use crate::before_after::sweep::{self, SweepPoint};

/// Width and height of the chart, in SVG pixels.
pub const SIZE: (u32, u32) = (960, 600);

const BEFORE: RGBColor = RGBColor(200, 40, 40);
const AFTER: RGBColor = RGBColor(20, 120, 60);
const EXPECTED: RGBColor = RGBColor(60, 60, 60);

/// The chart of `points` (one sweep of `scenario`, run with `crate_name`)
/// as an SVG document.
///
/// # Errors
/// plotters' drawing error, as text (it cannot happen with a string
/// backend, but is not hidden).
pub fn svg(scenario: &Scenario, crate_name: &str, points: &[SweepPoint]) -> Result<String, String> {
    let m = scenario.fleet.max_attempts;
    let ps: Vec<f64> = points.iter().map(|pt| pt.p).collect();
    let (mut x_lo, mut x_hi) = (
        ps.iter().copied().fold(f64::INFINITY, f64::min) * 100.0,
        ps.iter().copied().fold(f64::NEG_INFINITY, f64::max) * 100.0,
    );
    if x_hi <= x_lo {
        x_lo = (x_lo - 5.0).max(0.0);
        x_hi = (x_hi + 5.0).min(100.0);
    }
    let expected_at = |x: f64| 100.0 * sweep::expected_overcharge_ratio(x / 100.0, m);
    let curve: Vec<(f64, f64)> = (0..=200)
        .map(|i| {
            let x = x_lo + (x_hi - x_lo) * f64::from(i) / 200.0;
            (x, expected_at(x))
        })
        .collect();
    let before: Vec<(f64, f64)> = points
        .iter()
        .map(|pt| (pt.p * 100.0, pt.worlds.before.overcharge_pct().as_f64()))
        .collect();
    let after: Vec<(f64, f64)> = points
        .iter()
        .map(|pt| (pt.p * 100.0, pt.worlds.after.overcharge_pct().as_f64()))
        .collect();
    let y_max = before
        .iter()
        .chain(&after)
        .chain(&curve)
        .map(|&(_, y)| y)
        .fold(1.0, f64::max)
        * 1.12;

    // The lesson's own point (ejemplo trabajado II), on the lesson's fleet.
    let lesson = points
        .iter()
        .find(|pt| scenario.name == "flota-1000" && (pt.p - 0.15).abs() < 1e-9)
        .map(|pt| {
            let w = &pt.worlds.before;
            let label = format!(
                "la lección: p = 15% → {} de más ({})",
                w.overcharge_pct(),
                w.overcharge
            );
            (15.0, w.overcharge_pct().as_f64(), label)
        });
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, SIZE).into_drawing_area();
        draw(
            &root,
            scenario,
            crate_name,
            (x_lo..x_hi, -0.03 * y_max..y_max),
            &before,
            &after,
            &curve,
            lesson.as_ref(),
        )
        .map_err(|e| format!("no se pudo dibujar el gráfico: {e}"))?;
        root.present()
            .map_err(|e| format!("no se pudo dibujar el gráfico: {e}"))?;
    }
    Ok(out)
}

/// Whose code the chart measured, in the student's words: `tu código` for
/// the exercises, `la referencia` for the solutions.
fn whose(crate_name: &str) -> &'static str {
    if crate_name == "solutions" {
        "la referencia"
    } else {
        "tu código"
    }
}

type Area<'a> = DrawingArea<SVGBackend<'a>, plotters::coord::Shift>;

#[allow(clippy::too_many_arguments)]
fn draw(
    root: &Area<'_>,
    scenario: &Scenario,
    crate_name: &str,
    (xs, ys): (std::ops::Range<f64>, std::ops::Range<f64>),
    before: &[(f64, f64)],
    after: &[(f64, f64)],
    curve: &[(f64, f64)],
    lesson: Option<&(f64, f64, String)>,
) -> Result<(), DrawingAreaErrorKind<<SVGBackend<'static> as DrawingBackend>::ErrorType>> {
    root.fill(&WHITE)?;
    let m = scenario.fleet.max_attempts;
    let caption = format!(
        "Sobrecobro según la pérdida de respuestas · {} (N={}, max_attempts={m}, {})",
        scenario.name,
        sim::money::group_thousands(scenario.fleet.order_count()),
        whose(crate_name)
    );
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 20))
        .margin(20)
        .x_label_area_size(55)
        .y_label_area_size(75)
        .build_cartesian_2d(xs, ys)?;
    chart
        .configure_mesh()
        .x_desc("Probabilidad de perder la respuesta, p (%)")
        .y_desc("Sobrecobro (% de la intención)")
        .axis_desc_style(("sans-serif", 16))
        .label_style(("sans-serif", 14))
        .x_label_formatter(&|x| format!("{x:.0}%"))
        .y_label_formatter(&|y| format!("{y:.0}%"))
        .light_line_style(RGBColor(242, 242, 242))
        .draw()?;

    // The two measured worlds: a line with a dot on every measured point.
    for (points, colour, label) in [
        (before, BEFORE, "Antes: SIN idempotencia (medido)"),
        (after, AFTER, "Después: CON idempotency_key (medido)"),
    ] {
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                colour.stroke_width(3),
            ))?
            .label(label)
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 24, y)], colour.stroke_width(3))
            });
        chart.draw_series(
            points
                .iter()
                .map(|&(x, y)| Circle::new((x, y), 4, colour.filled())),
        )?;
    }
    let expected_label = format!("Esperado por el modelo: {}", sweep::expected_formula(m));
    chart
        .draw_series(DashedLineSeries::new(
            curve.iter().copied(),
            8,
            5,
            EXPECTED.stroke_width(2),
        ))?
        .label(expected_label)
        .legend(|(x, y)| {
            EmptyElement::at((x, y))
                + PathElement::new(vec![(0, 0), (8, 0)], EXPECTED.stroke_width(2))
                + PathElement::new(vec![(14, 0), (24, 0)], EXPECTED.stroke_width(2))
        });
    if let Some((x, y, label)) = lesson {
        chart.draw_series(std::iter::once(Circle::new(
            (*x, *y),
            9,
            BEFORE.stroke_width(2),
        )))?;
        // Above and to the left of the point, clear of both curves.
        chart.draw_series(std::iter::once(
            EmptyElement::at((*x, *y))
                + Text::new(
                    label.clone(),
                    (-245, -46),
                    ("sans-serif", 15).into_font().color(&BLACK),
                )
                + PathElement::new(vec![(-30, -28), (-8, -8)], BLACK.stroke_width(1)),
        ))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .margin(12)
        .label_font(("sans-serif", 15))
        .background_style(WHITE.mix(0.9))
        .border_style(RGBColor(180, 180, 180))
        .draw()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::before_after::comparison::Worlds;
    use crate::before_after::fleet::{self, FleetArgs};
    use judge::figures::WorldFigures;
    use sim::Money;

    /// The title names whose code was measured in the student's words, not
    /// the crate's name.
    #[test]
    fn the_title_says_tu_codigo() {
        let scenario = fleet::load(None, &[], &FleetArgs::default()).unwrap();
        let world = |overcharge: i64| WorldFigures {
            intended: Money::from_dollars(256_979),
            overcharge: Money::from_dollars(overcharge),
            ..WorldFigures::default()
        };
        let points: Vec<SweepPoint> = [(0.0, 0), (0.15, 48_139)]
            .iter()
            .map(|&(p, over)| SweepPoint {
                p,
                worlds: Worlds {
                    before: world(over),
                    after: world(0),
                },
            })
            .collect();
        let chart = svg(&scenario, "exercises", &points).unwrap();
        assert!(
            chart.contains("(N=1,000, max_attempts=4, tu código)"),
            "{}",
            &chart[..chart.len().min(2000)]
        );
        assert!(!chart.contains("exercises"));
    }
}
