//! Exercise 4's failures as a step table, like exercise 1's
//! ([`crate::ejercicios::cobro::steps`]): call by call, what lesson 4's model
//! answered (a charge, a replay or a rejection) and what the code answered,
//! the ledger size of each, and `← aquí se separan` on the first call whose
//! answer or ledger differs; then the model's store at that step.

use protocol::Call;
use sim::IdempotencyKey;

use super::rules::{Answers, Model, parting, short, written};
use crate::ejercicios::cobro::steps::{WIDTH, columns, step};

/// Calls shown before the difference of a long script, and at its end.
const HEAD: usize = 2;
const TAIL: usize = 3;

/// The table of `calls`, `got` against lesson 4's model (`want`), keys
/// named by `name`.
pub fn table(
    calls: &[Call],
    got: &Answers,
    want: &Answers,
    name: &dyn Fn(IdempotencyKey) -> String,
) -> Vec<String> {
    let mut lines = vec![header(calls, name)];
    let parts = parting(got, want);
    let shown = parts.map_or(calls.len(), |i| i + 1);
    let visible = |i: usize| shown <= HEAD + TAIL + 2 || i < HEAD || i + TAIL >= shown;
    let mut cells: Vec<Result<[String; 5], usize>> = Vec::new();
    let mut hidden = 0usize;
    for (i, c) in calls.iter().enumerate().take(shown) {
        if !visible(i) {
            hidden += 1;
            continue;
        }
        if hidden > 0 {
            cells.push(Err(hidden));
            hidden = 0;
        }
        let what = match &want[i].result {
            Ok(_) if written(want, i) > 0 => "cobra",
            Ok(_) => "replay",
            Err(_) => "rechaza",
        };
        let yours = got
            .get(i)
            .map_or("sin respuesta".to_string(), |a| short(&a.result));
        let rows = format!(
            "{} · {}",
            want[i].ledger.len(),
            got.get(i)
                .map_or("?".to_string(), |a| a.ledger.len().to_string())
        );
        cells.push(Ok(step(
            i,
            c,
            name,
            format!("{} {what}", short(&want[i].result)),
            yours,
            rows,
        )));
    }
    let marked = parts.map(|p| format!("{}.", p + 1));
    lines.extend(columns(
        [
            "paso",
            "llamada",
            "modelo (lección 4)",
            "tu código",
            "filas: modelo · tú",
        ],
        &cells,
        marked.as_deref(),
    ));
    if let Some(p) = parts {
        lines.push(store_line(&calls[..=p], p, name));
    }
    lines
}

/// `servidor compartido, llamadas una tras otra · keys: K1=idem_…`, cut
/// to [`WIDTH`].
fn header(calls: &[Call], name: &dyn Fn(IdempotencyKey) -> String) -> String {
    let mut keys: Vec<IdempotencyKey> = Vec::new();
    for c in calls {
        if !keys.contains(&c.key) {
            keys.push(c.key);
        }
    }
    let mut text = "servidor compartido, llamadas una tras otra".to_string();
    let legend: Vec<String> = keys
        .iter()
        .filter(|k| name(**k) != k.to_string())
        .map(|k| format!("{}={k}", name(*k)))
        .collect();
    for (n, entry) in legend.iter().enumerate() {
        let sep = if n == 0 { " · keys: " } else { ", " };
        if text.chars().count() + sep.chars().count() + entry.chars().count() > WIDTH - 14 {
            text.push_str(&format!("{sep}… (y {} más)", legend.len() - n));
            break;
        }
        text.push_str(sep);
        text.push_str(entry);
    }
    text
}

/// The model's store after call `p`: each key, its request and its result.
fn store_line(calls: &[Call], p: usize, name: &dyn Fn(IdempotencyKey) -> String) -> String {
    let mut model = Model::default();
    for c in calls {
        let _ = model.charge(c);
    }
    let entry = |(k, r, res): &(IdempotencyKey, sim::ChargeRequest, sim::ChargeResult)| {
        format!("{}→{} {} {}", name(*k), r.order_id, r.amount, res.charge_id)
    };
    let store = model.store();
    let text = if store.len() <= 4 {
        store.iter().map(entry).collect::<Vec<_>>().join(", ")
    } else {
        format!(
            "{} keys: {}, …, {}",
            store.len(),
            entry(&store[0]),
            entry(&store[store.len() - 1])
        )
    };
    format!("store del modelo tras el paso {}: {{{text}}}", p + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::{ChargeError, Money, OrderId};

    fn k(key: IdempotencyKey) -> String {
        format!("K{}", key.0)
    }

    /// A replay answered `InFlight`: one line per call, the second marked,
    /// and the model's store.
    #[test]
    fn a_replay_answered_in_flight_is_marked_where_they_part() {
        let c = Call {
            key: IdempotencyKey(1),
            order_id: OrderId(1),
            amount: Money::from_dollars(500),
        };
        let calls = [c, c];
        let want = Model::play(&calls);
        let mut got = want.clone();
        got[1].result = Err(ChargeError::InFlight);
        assert_eq!(
            table(&calls, &got, &want, &k),
            [
                "servidor compartido, llamadas una tras otra · keys: K1=idem_0000000000000001",
                "paso  llamada           modelo (lección 4)   tu código      filas: modelo · tú",
                "  1.  K1 ord_0001 $500  ch_0001 $500 cobra   ch_0001 $500   1 · 1",
                "  2.  K1 ord_0001 $500  ch_0001 $500 replay  Err(InFlight)  1 · 1  ← aquí se separan",
                "store del modelo tras el paso 2: {K1→ord_0001 $500 ch_0001}",
            ]
        );
    }
}
