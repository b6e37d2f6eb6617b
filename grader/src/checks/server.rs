//! Exercise 1's checks: the idempotent `charge`, called directly.

use sim::{
    ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, Kit, LedgerEntry, Money, OrderId,
    Payments,
};

use crate::verdict::Verdict;

/// `(id, title)` of every fixed check of exercise 1.
pub const CHECKS: &[(&str, &str)] = &[
    (
        "sin-idempotencia-cada-llamada-cobra",
        "sin idempotencia, cada llamada cobra (aunque repita la key)",
    ),
    (
        "key-nueva-se-cobra-y-se-registra",
        "con idempotencia, una key nueva se cobra y deja su fila en el ledger",
    ),
    (
        "replay-devuelve-lo-guardado",
        "replay: la misma key devuelve el resultado guardado sin tocar el ledger",
    ),
    (
        "keys-distintas-se-cobran",
        "dos keys distintas con el mismo contenido son dos cobros",
    ),
];

const K1: IdempotencyKey = IdempotencyKey(0x9001_0000_0000_0001);
const K2: IdempotencyKey = IdempotencyKey(0x9001_0000_0000_0002);
const K3: IdempotencyKey = IdempotencyKey(0x9001_0000_0000_0003);

fn captured(n: u64, dollars: i64) -> ChargeResult {
    ChargeResult {
        charge_id: ChargeId(n),
        amount: Money::from_dollars(dollars),
        status: ChargeStatus::Captured,
    }
}

fn row(key: IdempotencyKey, order: u64, dollars: i64, n: u64) -> LedgerEntry {
    LedgerEntry {
        key,
        order_id: OrderId(order),
        amount: Money::from_dollars(dollars),
        charge_id: ChargeId(n),
    }
}

/// Describes a ledger compactly: `[ch_0001 ord_0001 $500 idem_…]`.
pub fn describe_ledger(ledger: &[LedgerEntry]) -> String {
    if ledger.is_empty() {
        return "ledger vacío".to_string();
    }
    let rows: Vec<String> = ledger
        .iter()
        .map(|r| format!("{} {} {} {}", r.charge_id, r.order_id, r.amount, r.key))
        .collect();
    format!("{} fila(s): [{}]", ledger.len(), rows.join("; "))
}

fn describe_results(results: &[ChargeResult]) -> String {
    let parts: Vec<String> = results
        .iter()
        .map(|r| {
            // The lesson's own word for the status: `"status": "captured"`.
            let status = match r.status {
                ChargeStatus::Captured => "captured",
            };
            format!("{} {} {status}", r.charge_id, r.amount)
        })
        .collect();
    parts.join(", ")
}

/// Names the mistake behind a wrong answer of the idempotent world, from
/// the responses `got` and the `ledger` against what was wanted; `None` when
/// the answer matches none of the known mistakes.
fn diagnose(
    got: &[ChargeResult],
    ledger: &[LedgerEntry],
    want: &[ChargeResult],
    want_ledger: &[LedgerEntry],
) -> Option<&'static str> {
    let all_new = got
        .iter()
        .enumerate()
        .all(|(i, r)| got[..i].iter().all(|p| p.charge_id != r.charge_id));
    if ledger.is_empty() && !want_ledger.is_empty() {
        return Some(
            "el ledger quedó vacío: la key se recordó sin ejecutar el cobro. Una key que el store no conoce es un cobro de verdad: primero escribe la fila en el ledger (key, orden, monto, charge id) y después guarda el resultado bajo la key. Recordar la key sin ejecutar el cobro es anotar en el cuaderno un cobro que nunca ocurrió.",
        );
    }
    if ledger.len() > want_ledger.len() && ledger.len() == got.len() && all_new {
        return Some(
            "con idempotent = true el servidor se comportó como sin idempotencia: cada llamada cobró con un charge id nuevo, también las que repetían una key. ¿Ignoras el parámetro idempotent? En ese modo, una key que ya está en el store es un replay: se devuelve lo guardado sin cobrar.",
        );
    }
    if ledger.len() > want_ledger.len() {
        return Some(
            "el replay volvió a ejecutar el cobro: el ledger creció. Si la key ya está en el store, devuelve lo guardado SIN tocar el ledger (el cajero revisa el cuaderno antes de cobrar).",
        );
    }
    if ledger.len() < want_ledger.len() {
        return Some(
            "dos keys distintas con el mismo contenido se cobraron una sola vez: la \"misma operación\" la define la idempotency key, no el contenido (order_id, amount). Deduplicar por contenido rechaza cobros legítimos (lección 2, errores comunes): busca en el store por key.",
        );
    }
    let replay_changed =
        (0..want.len().min(got.len())).any(|i| got[i] != want[i] && want[..i].contains(&want[i]));
    replay_changed.then_some(
        "el replay devolvió un resultado nuevo: debe devolver el resultado guardado, idéntico (mismo charge id, ch_0001), como el cajero que entrega de nuevo el recibo #ch_0001.",
    )
}

/// Runs fixed check `id` against `K`'s server.
///
/// # Panics
/// On an unknown `id` (the catalog only hands out known ones).
pub fn run<K: Kit>(id: &str) -> Verdict {
    match id {
        "sin-idempotencia-cada-llamada-cobra" => every_call_charges::<K>(),
        "key-nueva-se-cobra-y-se-registra" => new_key_executes::<K>(),
        "replay-devuelve-lo-guardado" => replay_returns_stored::<K>(),
        "keys-distintas-se-cobran" => distinct_keys_charge::<K>(),
        other => panic!("unknown server check {other}"),
    }
}

fn every_call_charges<K: Kit>() -> Verdict {
    let mut s = K::new_server(false);
    let got: Vec<ChargeResult> = (0..3)
        .map(|_| s.charge(K1, OrderId(1), Money::from_dollars(500)))
        .collect();
    let want = vec![captured(1, 500), captured(2, 500), captured(3, 500)];
    let want_ledger = vec![row(K1, 1, 500, 1), row(K1, 1, 500, 2), row(K1, 1, 500, 3)];
    if got == want && s.ledger() == want_ledger.as_slice() {
        return Verdict::Passed;
    }
    Verdict::failed(
        format!(
            "3 llamadas con la misma key → respuestas {}; {}",
            describe_results(&want),
            describe_ledger(&want_ledger)
        ),
        format!(
            "respuestas {}; {}",
            describe_results(&got),
            describe_ledger(s.ledger())
        ),
        "sin idempotencia el cajero no tiene cuaderno: cada llamada es un cobro nuevo, con su fila en el ledger y su charge id (ch_0001, ch_0002, …), aunque repita la key. Es el mundo del \"antes\" que mide la lección 2 ($1000 por una compra de $500): no lo deduplices.",
    )
}

fn new_key_executes<K: Kit>() -> Verdict {
    let mut s = K::new_server(true);
    let amount = Money::from_cents(12_345);
    let got = s.charge(K1, OrderId(7), amount);
    let want = ChargeResult {
        charge_id: ChargeId(1),
        amount,
        status: ChargeStatus::Captured,
    };
    let want_ledger = vec![LedgerEntry {
        key: K1,
        order_id: OrderId(7),
        amount,
        charge_id: ChargeId(1),
    }];
    if got == want && s.ledger() == want_ledger.as_slice() {
        return Verdict::Passed;
    }
    Verdict::failed(
        format!(
            "respuesta {}; {}",
            describe_results(&[want]),
            describe_ledger(&want_ledger)
        ),
        format!(
            "respuesta {}; {}",
            describe_results(&[got]),
            describe_ledger(s.ledger())
        ),
        diagnose(&[got], s.ledger(), &[want], &want_ledger).unwrap_or(
            "una key que el store no conoce es un cobro de verdad: primero escribe la fila en el ledger (key, orden, monto, charge id) y después guarda el resultado bajo la key.",
        ),
    )
}

fn replay_returns_stored<K: Kit>() -> Verdict {
    let mut s = K::new_server(true);
    let got: Vec<ChargeResult> = (0..3)
        .map(|_| s.charge(K1, OrderId(1), Money::from_dollars(500)))
        .collect();
    let want = vec![captured(1, 500); 3];
    let want_ledger = vec![row(K1, 1, 500, 1)];
    if got == want && s.ledger() == want_ledger.as_slice() {
        return Verdict::Passed;
    }
    Verdict::failed(
        format!(
            "3 llamadas con la misma key → respuestas {}; {}",
            describe_results(&want),
            describe_ledger(&want_ledger)
        ),
        format!(
            "respuestas {}; {}",
            describe_results(&got),
            describe_ledger(s.ledger())
        ),
        diagnose(&got, s.ledger(), &want, &want_ledger).unwrap_or(
            "con idempotencia, la primera llamada cobra y guarda su resultado bajo la key; las siguientes con la misma key son replays de ese resultado.",
        ),
    )
}

fn distinct_keys_charge<K: Kit>() -> Verdict {
    let mut s = K::new_server(true);
    let got = vec![
        s.charge(K1, OrderId(1), Money::from_dollars(500)),
        s.charge(K2, OrderId(1), Money::from_dollars(500)),
        s.charge(K1, OrderId(1), Money::from_dollars(500)),
        s.charge(K3, OrderId(2), Money::from_dollars(300)),
    ];
    let want = vec![
        captured(1, 500),
        captured(2, 500),
        captured(1, 500),
        captured(3, 300),
    ];
    let want_ledger = vec![row(K1, 1, 500, 1), row(K2, 1, 500, 2), row(K3, 2, 300, 3)];
    if got == want && s.ledger() == want_ledger.as_slice() {
        return Verdict::Passed;
    }
    Verdict::failed(
        format!(
            "keys K1, K2 (misma orden y monto), K1 otra vez, K3 → respuestas {}; {}",
            describe_results(&want),
            describe_ledger(&want_ledger)
        ),
        format!(
            "respuestas {}; {}",
            describe_results(&got),
            describe_ledger(s.ledger())
        ),
        diagnose(&got, s.ledger(), &want, &want_ledger).unwrap_or(
            "cada key es una operación: guarda y busca en el store por key, y devuelve a cada key su propio resultado.",
        ),
    )
}
