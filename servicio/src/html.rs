//! `servicio --html ARCHIVO`: the run drawn as a self-contained page (HTML
//! and inline SVG, no scripts, no network): each check's requests side by
//! side, lane by lane (orders#1, orders#2, …, the processor), in the order
//! they happened; and, for each fleet world, the orders retried, each
//! attempt (delivered or lost) and what the processor charged for it.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::Outcome;
use crate::fleet::WorldRun;
use crate::timeline::{Event, Lane};
use judge::drawing::{self, Step, Tone, escape as esc};

/// The most orders a world's drawing shows (the retried ones first).
const MAX_ORDERS_DRAWN: usize = 400;

/// The whole page.
pub fn page(outcome: &Outcome, table: &str, source: &str) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"es\"><head><meta charset=\"utf-8\"><title>servicio · {}</title>\n<style>body{{font-family:system-ui,sans-serif;margin:2em;max-width:1100px}}pre{{background:#f6f6f6;padding:1em;overflow:auto}}.ok{{color:#176b2c}}.mal{{color:#b00020}}svg text{{font:12px monospace}}</style></head><body>\n",
        esc(source)
    );
    let _ = writeln!(out, "<h1>El servicio {}</h1>", esc(source));
    if !table.is_empty() {
        let _ = writeln!(out, "<pre>{}</pre>", esc(table));
    }
    let (got, max) = outcome.score();
    let _ = writeln!(out, "<h2>Verificaciones: {got}/{max} puntos</h2>");
    let events = outcome.timeline.events();
    for c in &outcome.checks {
        let passed = c.verdict.passed();
        let _ = writeln!(
            out,
            "<h3 id=\"{}\" class=\"{}\">{} {} · {}</h3>",
            c.spec.id,
            if passed { "ok" } else { "mal" },
            if passed { "✓" } else { "✗" },
            c.spec.id,
            esc(c.spec.title)
        );
        if !passed {
            let _ = writeln!(
                out,
                "<pre>{}</pre>",
                esc(&c.verdict.explanation().join("\n"))
            );
        }
    }
    let _ = writeln!(
        out,
        "<h2>Las verificaciones, request por request</h2>\n<p>Cada columna es quien actúa; cada fila, un paso en el orden en que ocurrió (con los milisegundos desde el primero de su orden). Rojo: una respuesta perdida o un cobro retenido por el procesador.</p>"
    );
    let mut by_order: BTreeMap<&str, Vec<&Event>> = BTreeMap::new();
    for e in events.iter().filter(|e| !e.order_id.is_empty()) {
        by_order.entry(e.order_id.as_str()).or_default().push(e);
    }
    for (order, evs) in &by_order {
        let _ = writeln!(out, "<h3>{}</h3>", esc(order));
        out.push_str(&sequence(evs));
    }
    for (name, world) in [
        ("antes (sin key)", &outcome.before),
        ("después (una key por operación)", &outcome.after),
    ] {
        if let Some(w) = world {
            let _ = writeln!(out, "<h2>La flota, {name}</h2>");
            out.push_str(&fleet(w));
        }
    }
    out.push_str("</body></html>\n");
    out
}

/// One order's events as a sequence diagram ([`judge::drawing`]): a column
/// per lane (the clients in order, then the kit, then the processor), a row
/// per event, the milliseconds since the order's first event in the margin.
fn sequence(events: &[&Event]) -> String {
    let mut lanes: Vec<&Lane> = Vec::new();
    for e in events {
        if !lanes.contains(&&e.lane) {
            lanes.push(&e.lane);
        }
    }
    lanes.sort_by_key(|l| match l {
        Lane::Orders(n) => *n,
        Lane::Kit => 1000,
        Lane::Processor => 1001,
    });
    let t0 = events.first().map_or(0, |e| e.t_us);
    let steps: Vec<Step> = events
        .iter()
        .map(|e| Step {
            lane: lanes.iter().position(|l| **l == e.lane).unwrap_or(0),
            margin: format!("+{} ms", (e.t_us - t0) / 1000),
            text: e.text.clone(),
            tone: match e.kind {
                "perdida" | "retenido" => Tone::Wrong,
                "cargo" => Tone::Charged,
                "envio" => Tone::Sent,
                _ => Tone::Plain,
            },
        })
        .collect();
    let names: Vec<String> = lanes.iter().map(|l| l.to_string()).collect();
    drawing::sequence(&names, &steps)
}

/// A world's retried orders: one row each, its attempts as circles
/// (filled: delivered; red ring: lost) and its charges at the processor as
/// squares (red when the order was charged more than once).
fn fleet(w: &WorldRun) -> String {
    let mut charges: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for c in &w.ledger {
        charges
            .entry(c.order_id.as_str())
            .or_default()
            .push(c.charge_id.as_str());
    }
    let retried: Vec<_> = w
        .orders
        .iter()
        .filter(|o| o.attempts.len() > 1)
        .take(MAX_ORDERS_DRAWN)
        .collect();
    let shown = retried.len();
    let total_retried = w.orders.iter().filter(|o| o.attempts.len() > 1).count();
    let mut out = format!(
        "<p>{} órdenes, {} con reintentos ({} dibujadas). Círculo lleno: respuesta entregada; anillo rojo: respuesta perdida (el kit la leyó entera y la descartó). Cuadrado: un cargo en el procesador (rojo si la orden se cobró 2+ veces).</p>\n",
        w.orders.len(),
        total_retried,
        shown
    );
    let row = 18usize;
    let height = 10 + row * shown.max(1);
    let _ = writeln!(
        out,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"620\" height=\"{height}\" role=\"img\">"
    );
    for (i, o) in retried.iter().enumerate() {
        let y = 14 + row * i;
        let _ = write!(
            out,
            "<text x=\"0\" y=\"{y}\">{} ${}</text>",
            esc(&o.order_id),
            o.amount_cents / 100
        );
        for (j, a) in o.attempts.iter().enumerate() {
            let x = 150 + 22 * j;
            if a.lost {
                let _ = write!(
                    out,
                    "<circle cx=\"{x}\" cy=\"{}\" r=\"6\" fill=\"none\" stroke=\"#b00020\" stroke-width=\"2\"><title>intento {}: {} perdida</title></circle>",
                    y - 4,
                    j + 1,
                    a.status
                );
            } else {
                let _ = write!(
                    out,
                    "<circle cx=\"{x}\" cy=\"{}\" r=\"6\" fill=\"#1a4fa0\"><title>intento {}: {} entregada</title></circle>",
                    y - 4,
                    j + 1,
                    a.status
                );
            }
        }
        let mine = charges
            .get(o.order_id.as_str())
            .cloned()
            .unwrap_or_default();
        let colour = if mine.len() >= 2 {
            Tone::Wrong
        } else {
            Tone::Charged
        }
        .colour();
        for (j, id) in mine.iter().enumerate() {
            let x = 260 + 16 * j;
            let _ = write!(
                out,
                "<rect x=\"{x}\" y=\"{}\" width=\"11\" height=\"11\" fill=\"{colour}\"><title>{}</title></rect>",
                y - 10,
                esc(id)
            );
        }
        out.push('\n');
    }
    out.push_str("</svg>\n");
    out
}
