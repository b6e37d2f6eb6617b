//! Exercise 1's failures as a step table, like the reconciliation's
//! counterexamples: call by call, the lesson's server's answer and the
//! code's, the ledger size of each, and `← aquí se separan` on the first
//! call where they part. One line per call, short enough for a 100-column
//! terminal with the report's indentation; a long script shows its first
//! calls, the call that first used the parting call's key and the last
//! calls up to the difference.

use protocol::Call;
use sim::{ChargeResult, IdempotencyKey, LedgerEntry, Payments};

use crate::runner::Played;
use crate::spy::SpyServer;

/// The widest a table line may be: 100 columns less the report's
/// indentation of explanation lines (6) and of the table (2).
pub const WIDTH: usize = 92;

/// Calls shown before and at the first difference of a long script; the
/// calls between are summed up in one line.
const HEAD: usize = 2;
const TAIL: usize = 3;

/// `ch_0001 $500`: a charge's id and amount (its status is always the
/// lesson's `captured`).
pub fn short_result(r: &ChargeResult) -> String {
    format!("{} {}", r.charge_id, r.amount)
}

/// The first call where `got` parts from `want` (answer or ledger size).
pub fn parting(got: &Played, want: &Played) -> Option<usize> {
    (0..want.answers.len()).find(|&i| got.answers.get(i) != want.answers.get(i))
}

/// The table of `calls` in mode `idempotent`, `got` against the lesson's
/// server (`want`), keys named by `name`.
pub fn table(
    idempotent: bool,
    calls: &[Call],
    got: &Played,
    want: &Played,
    name: &dyn Fn(IdempotencyKey) -> String,
) -> Vec<String> {
    let mut lines = vec![header(idempotent, calls, name)];
    let parts = parting(got, want);
    let shown = parts.map_or(calls.len(), |i| i + 1);
    let first_use = parts.and_then(|p| calls[..p].iter().position(|c| c.key == calls[p].key));
    let visible = |i: usize| {
        shown <= HEAD + TAIL + 2 || i < HEAD || i + TAIL >= shown || Some(i) == first_use
    };
    // Cells first, so that every column is as wide as its widest cell; a
    // gap is the number of calls it hides.
    let mut cells: Vec<Result<[String; 5], usize>> = Vec::new();
    let mut model = SpyServer::new(idempotent);
    let mut hidden = 0usize;
    for (i, c) in calls.iter().enumerate().take(shown) {
        let before = model.ledger().len();
        let result = model.charge(c.key, c.order_id, c.amount);
        if !visible(i) {
            hidden += 1;
            continue;
        }
        if hidden > 0 {
            cells.push(Err(hidden));
            hidden = 0;
        }
        let what = if model.ledger().len() > before {
            "cobra"
        } else {
            "replay"
        };
        let yours = got
            .answers
            .get(i)
            .map_or("sin respuesta".to_string(), |a| short_result(&a.result));
        let rows = format!(
            "{} · {}",
            model.ledger().len(),
            got.answers
                .get(i)
                .map_or("?".to_string(), |a| a.rows.to_string())
        );
        cells.push(Ok(step(
            i,
            c,
            name,
            format!("{} {what}", short_result(&result)),
            yours,
            rows,
        )));
    }
    let marked = parts.map(|p| format!("{}.", p + 1));
    lines.extend(columns(
        [
            "paso",
            "llamada",
            "modelo",
            "tu código",
            "filas: modelo · tú",
        ],
        &cells,
        marked.as_deref(),
    ));
    if idempotent && let Some(p) = parts {
        lines.push(store_line(&calls[..=p], p, name));
    }
    if parts.is_none() {
        lines.push(final_ledger_line(got, want, name));
    }
    lines
}

/// A step table's title line and rows: every column as wide as its widest
/// cell, the step number right-aligned, the last column unpadded; a gap
/// (`Err(n)`) is one line for the `n` calls it hides; the row whose step is
/// `marked` (`"2."`) ends with `← aquí se separan`.
pub fn columns(
    titles: [&str; 5],
    cells: &[Result<[String; 5], usize>],
    marked: Option<&str>,
) -> Vec<String> {
    let mut widths = titles.map(|t| t.chars().count());
    for row in cells.iter().flatten() {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    // The last column is not padded: the mark follows its cell.
    let line = |row: &[String; 5]| {
        let mut out = String::new();
        for (k, cell) in row.iter().enumerate() {
            if k == row.len() - 1 {
                out.push_str(cell);
            } else if k == 0 {
                out.push_str(&format!("{cell:>w$}  ", w = widths[0]));
            } else {
                out.push_str(&format!("{cell:<w$}  ", w = widths[k]));
            }
        }
        out
    };
    let mut lines = vec![line(&titles.map(str::to_string))];
    for row in cells {
        match row {
            Err(gap) => lines.push(format!(
                "{:>w$}  … {gap} llamada(s) en las que tu código y el modelo coinciden",
                "",
                w = widths[0]
            )),
            Ok(r) => {
                let mut text = line(r);
                if marked == Some(r[0].as_str()) {
                    text.push_str("  ← aquí se separan");
                }
                lines.push(text);
            }
        }
    }
    lines
}

/// `servidor CON idempotencia · keys: K1=idem_…, K2=…`, cut to [`WIDTH`].
fn header(idempotent: bool, calls: &[Call], name: &dyn Fn(IdempotencyKey) -> String) -> String {
    let mode = if idempotent {
        "servidor CON idempotencia"
    } else {
        "servidor SIN idempotencia"
    };
    let mut keys: Vec<IdempotencyKey> = Vec::new();
    let mut seen = rustc_hash::FxHashSet::default();
    for c in calls {
        if seen.insert(c.key) {
            keys.push(c.key);
        }
    }
    // Entries spelled only while there is room (a large history has a
    // million keys); a key whose name is itself has none.
    let mut text = format!("{mode} · keys: ");
    let mut shown = 0;
    for (n, k) in keys.iter().enumerate() {
        let label = name(*k);
        let spelled = k.to_string();
        if label == spelled {
            continue;
        }
        let entry = format!("{label}={spelled}");
        let rest = keys.len() - n;
        let more = format!("… (y {rest} más)");
        let sep = if shown == 0 { "" } else { ", " };
        // Room for this entry, and for the "… (y N más)" of the next ones.
        let reserve = if rest > 1 {
            more.chars().count() + 2
        } else {
            0
        };
        if text.chars().count() + sep.len() + entry.chars().count() + reserve > WIDTH {
            text.push_str(sep);
            text.push_str(&more);
            return text;
        }
        text.push_str(sep);
        text.push_str(&entry);
        shown += 1;
    }
    if shown == 0 {
        return mode.to_string();
    }
    text
}

/// The model's store after call `p`: each key and the charge id it keeps.
fn store_line(calls: &[Call], p: usize, name: &dyn Fn(IdempotencyKey) -> String) -> String {
    let mut model = SpyServer::new(true);
    let mut store: Vec<(IdempotencyKey, ChargeResult)> = Vec::new();
    // A set beside the list: a large history's 100,000 keys looked up in
    // the list took a minute to explain one failure.
    let mut stored = rustc_hash::FxHashSet::default();
    for c in calls {
        let result = model.charge(c.key, c.order_id, c.amount);
        if stored.insert(c.key) {
            store.push((c.key, result));
        }
    }
    let entry = |(k, r): &(IdempotencyKey, ChargeResult)| format!("{}→{}", name(*k), r.charge_id);
    let text = if store.len() <= 6 {
        store.iter().map(entry).collect::<Vec<_>>().join(", ")
    } else {
        format!(
            "{} keys: {}, {}, …, {}",
            store.len(),
            entry(&store[0]),
            entry(&store[1]),
            entry(&store[store.len() - 1])
        )
    };
    format!("store del modelo tras el paso {}: {{{text}}}", p + 1)
}

/// When every answer matches: the first ledger row that does not.
fn final_ledger_line(
    got: &Played,
    want: &Played,
    name: &dyn Fn(IdempotencyKey) -> String,
) -> String {
    let n = first_row_difference(&got.ledger, &want.ledger);
    format!(
        "las respuestas coinciden; la fila {} del ledger: modelo {}, tuya {}",
        n + 1,
        describe_row(want.ledger.get(n), name),
        describe_row(got.ledger.get(n), name)
    )
}

/// The first row (0-based) where two ledgers differ; 0 when they do not.
pub fn first_row_difference(got: &[LedgerEntry], want: &[LedgerEntry]) -> usize {
    (0..got.len().max(want.len()))
        .find(|&n| got.get(n) != want.get(n))
        .unwrap_or(0)
}

/// `ch_0001 ord_0001 $500 K1`, or `ninguna`.
pub fn describe_row(r: Option<&LedgerEntry>, name: &dyn Fn(IdempotencyKey) -> String) -> String {
    r.map_or("ninguna".to_string(), |r| {
        format!(
            "{} {} {} {}",
            r.charge_id,
            r.order_id,
            r.amount,
            name(r.key)
        )
    })
}

/// One row of a step table: step `i` (0-based), the call, then the model's,
/// the code's and the row-count cells.
pub fn step(
    i: usize,
    c: &Call,
    name: &dyn Fn(IdempotencyKey) -> String,
    model: String,
    yours: String,
    rows: String,
) -> [String; 5] {
    [
        format!("{}.", i + 1),
        format!("{} {} {}", name(c.key), c.order_id, c.amount),
        model,
        yours,
        rows,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ejercicios::cobro::fixed::play;
    use sim::{Money, OrderId};

    fn call(key: u64, order: u64, dollars: i64) -> Call {
        Call {
            key: IdempotencyKey(key),
            order_id: OrderId(order),
            amount: Money::from_dollars(dollars),
        }
    }

    fn k(key: IdempotencyKey) -> String {
        format!("K{}", key.0)
    }

    /// A replay that charged again: one line per call, the second marked,
    /// and the model's store.
    #[test]
    fn a_replay_that_charged_again_is_marked_where_they_part() {
        let calls = [call(1, 1, 500), call(1, 1, 500)];
        let want = play(&mut SpyServer::new(true), &calls);
        let got = play(&mut SpyServer::new(false), &calls);
        let lines = table(true, &calls, &got, &want, &k);
        assert_eq!(
            lines,
            [
                "servidor CON idempotencia · keys: K1=idem_0000000000000001",
                "paso  llamada           modelo               tu código     filas: modelo · tú",
                "  1.  K1 ord_0001 $500  ch_0001 $500 cobra   ch_0001 $500  1 · 1",
                "  2.  K1 ord_0001 $500  ch_0001 $500 replay  ch_0002 $500  1 · 2  ← aquí se separan",
                "store del modelo tras el paso 2: {K1→ch_0001}",
            ]
        );
    }

    /// 300 calls parting at the 200th: the first two, a gap, the last
    /// three; every line fits.
    #[test]
    fn a_long_script_shows_its_ends_and_fits_100_columns() {
        let calls = vec![call(1, 1, 500); 300];
        let want = play(&mut SpyServer::new(false), &calls);
        let mut got = want.clone();
        got.answers[199].result.charge_id = sim::ChargeId(1);
        let lines = table(false, &calls, &got, &want, &k);
        assert_eq!(lines.len(), 2 + 2 + 1 + 3, "{lines:#?}");
        assert_eq!(
            lines[4],
            "      … 195 llamada(s) en las que tu código y el modelo coinciden"
        );
        assert!(
            lines[7].starts_with("200.  K1 ord_0001 $500"),
            "{}",
            lines[7]
        );
        assert!(lines[7].ends_with("← aquí se separan"), "{}", lines[7]);
        assert!(
            lines.iter().all(|l| l.chars().count() <= WIDTH),
            "{lines:#?}"
        );
    }
}
