//! Exercise 4's long histories (issue 27): a store, or a way of numbering
//! charges, that breaks only after some tens of thousands of keys or a
//! million charges passes every short history and every explored
//! schedule. Two histories past [`KEYS`] keys, run once per grading with
//! the model-based check's large cases ([`crate::checks::model::Family::long`]):
//! one thread, every key new, then replays and reuses of keys at the edges
//! of round sizes, compared call by call with lesson 4's model; and
//! [`THREADS`] threads side by side, each with its own keys, whose results
//! and ledger must keep lesson 4's rules (one row per key, charge ids in
//! the ledger's order, a replay returns its key's charge, a reuse is
//! refused). With the public seed the kit's keys; with a hidden variant's,
//! keys, orders and amounts drawn from it.

use rustc_hash::FxHashMap;

use protocol::{Call, Long};
use sim::{ChargeError, ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, Money, OrderId};

use super::rules::{Model, short};
use crate::runner::Execute;
use crate::verdict::Verdict;

/// Distinct keys of each long history: 2^20 + 1, past any `u16` counter
/// and any store bounded at a power of two up to 2^20.
pub const KEYS: usize = (1 << 20) + 1;

/// Threads of the concurrent long history.
pub const THREADS: usize = 4;

/// Keys replayed after all the others: the edges of round sizes, the
/// middle and the end.
const EDGES: [usize; 10] = [
    0,
    1,
    4_095,
    4_096,
    65_535,
    65_536,
    131_071,
    131_072,
    KEYS / 2,
    KEYS - 2,
];

/// Order and amount of key `i` (amounts in cents, from 1 to 50,000).
fn request(i: usize, salt: u64) -> (OrderId, Money) {
    let i = i as u64;
    (
        OrderId(1 + (i.wrapping_mul(31) ^ salt) % 1_000),
        Money::from_cents(1 + ((i.wrapping_mul(7_919) ^ salt) % 50_000) as i64),
    )
}

fn call(key: IdempotencyKey, (order_id, amount): (OrderId, Money)) -> Call {
    Call {
        key,
        order_id,
        amount,
    }
}

/// The salt of `seed`'s orders and amounts (0 for the public seed).
fn salt(seed: u64) -> u64 {
    if seed == crate::checks::model::PUBLIC_SEED {
        0
    } else {
        seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40
    }
}

/// The sequential long history of `seed`: [`KEYS`] − 1 new keys, replays
/// of the keys at [`EDGES`], a reuse with another amount and one with
/// another order (both refused), the last key new, and the first key
/// replayed once more.
pub fn sequential(seed: u64) -> Vec<Call> {
    let keys = crate::ejercicios::cobro::model::large_keys(seed, KEYS);
    let salt = salt(seed);
    let mut calls: Vec<Call> = (0..KEYS - 1)
        .map(|i| call(keys[i], request(i, salt)))
        .collect();
    calls.extend(EDGES.iter().map(|&i| call(keys[i], request(i, salt))));
    let (order, amount) = request(65_536, salt);
    calls.push(call(keys[65_536], (order, amount + Money::from_cents(1))));
    let (order, amount) = request(KEYS - 2, salt);
    calls.push(call(keys[KEYS - 2], (OrderId(order.0 + 1_000), amount)));
    calls.push(call(keys[KEYS - 1], request(KEYS - 1, salt)));
    calls.push(call(keys[0], request(0, salt)));
    calls
}

/// Key `i` of the concurrent long history of `seed`: its low half is
/// `i + 1` under a xor chosen by the seed (so the judge finds a key's
/// number without hashing a million keys), its high half mixed from it.
fn concurrent_key(i: usize, seed: u64) -> IdempotencyKey {
    let n = i as u64 + 1;
    let low = n ^ (salt(seed) & 0xffff_0000);
    let high = n.wrapping_mul(0x9e37_79b9_7f4a_7c15 ^ seed) >> 32;
    IdempotencyKey(high << 32 | low)
}

/// The number of key `key` of the concurrent long history of `seed`, if it
/// is one of its keys.
fn concurrent_index(key: IdempotencyKey, seed: u64) -> Option<usize> {
    let n = (key.0 & 0xffff_ffff) ^ (salt(seed) & 0xffff_0000);
    let i = usize::try_from(n).ok()?.checked_sub(1)?;
    (i < KEYS && concurrent_key(i, seed) == key).then_some(i)
}

/// The concurrent long history of `seed`: key `i` belongs to thread
/// `i % THREADS`; each thread charges its keys, replays its first, its
/// 4,096th and its last, and reuses its first with another order.
pub fn concurrent(seed: u64) -> Vec<Vec<Call>> {
    let keys: Vec<IdempotencyKey> = (0..KEYS).map(|i| concurrent_key(i, seed)).collect();
    let salt = salt(seed) ^ 0x55;
    (0..THREADS)
        .map(|t| {
            let own: Vec<usize> = (t..KEYS).step_by(THREADS).collect();
            let mut calls: Vec<Call> = own
                .iter()
                .map(|&i| call(keys[i], request(i, salt)))
                .collect();
            for &i in [own[0], own[4_095], own[own.len() - 1]].iter() {
                calls.push(call(keys[i], request(i, salt)));
            }
            let (order, amount) = request(own[0], salt);
            calls.push(call(keys[own[0]], (OrderId(order.0 + 1_000), amount)));
            calls
        })
        .collect()
}

/// Runs both long histories of `seed` against the implementation.
///
/// # Errors
/// The first difference, told as a summary (sizes, the first call that
/// differs, what was expected), or why the implementation gave no answer.
pub fn run(h: &dyn Execute, seed: u64) -> Result<(), Verdict> {
    let calls = sequential(seed);
    let got = crate::runner::ask(
        h,
        Long {
            threads: vec![calls.clone()],
        },
    )
    .map_err(|v| timed_out(v, "la historia larga de un hilo", calls.len()))?;
    judge_sequential(&calls, &got.results.concat(), &got.ledger)?;
    let threads = concurrent(seed);
    let total = threads.iter().map(Vec::len).sum();
    let got = crate::runner::ask(
        h,
        Long {
            threads: threads.clone(),
        },
    )
    .map_err(|v| timed_out(v, "la historia larga de 4 hilos a la vez", total))?;
    judge_concurrent(seed, &threads, &got.results, &got.ledger)
}

/// A time-out on a long history says which and how long it is.
fn timed_out(verdict: Verdict, which: &str, calls: usize) -> Verdict {
    match verdict {
        Verdict::TimedOut { limit_ms, .. } => Verdict::TimedOut {
            limit_ms,
            case: Some(format!(
                "en {which} ({} llamadas a charge sobre {} keys distintas): la lección responde cada llamada con una búsqueda por key; si tu código recorre el ledger o el store en cada llamada, su tiempo crece con el cuadrado de las llamadas",
                sim::money::group_thousands(calls as u64),
                sim::money::group_thousands(KEYS as u64),
            )),
        },
        other => other,
    }
}

/// A long history's disagreement: a summary, not a million-line trace.
fn differs(summary: String, trace: Vec<String>, hint: String) -> Verdict {
    Verdict::Counterexample {
        summary,
        trace,
        hint,
    }
}

/// What call `i` of `calls` is: a new key, a replay of the call that first
/// used its key, or a reuse of it with another amount or order.
fn what(calls: &[Call], first: &FxHashMap<IdempotencyKey, usize>, i: usize) -> String {
    let c = calls[i];
    let head = format!(
        "la llamada {} ({}, {}, {})",
        sim::money::group_thousands(i as u64 + 1),
        c.key,
        c.order_id,
        c.amount
    );
    match first.get(&c.key) {
        Some(&j) if j < i => {
            let p = calls[j];
            let kind = if p.order_id != c.order_id {
                "con otra orden"
            } else if p.amount != c.amount {
                "con otro monto"
            } else {
                "igual: un replay"
            };
            format!(
                "{head}, la key de la llamada {} otra vez, {kind}",
                sim::money::group_thousands(j as u64 + 1)
            )
        }
        _ => format!("{head}, una key nueva"),
    }
}

/// The first use of every key of `calls`.
fn first_uses(calls: &[Call]) -> FxHashMap<IdempotencyKey, usize> {
    let mut first = FxHashMap::default();
    first.reserve(calls.len());
    for (i, c) in calls.iter().enumerate() {
        first.entry(c.key).or_insert(i);
    }
    first
}

/// The sequential history against lesson 4's model, call by call, then the
/// ledger.
fn judge_sequential(
    calls: &[Call],
    got: &[Result<ChargeResult, ChargeError>],
    ledger: &[sim::LedgerEntry],
) -> Result<(), Verdict> {
    let (want, want_ledger) = Model::play_long(calls);
    let summary = format!(
        "historia larga de un hilo: {} llamadas a charge sobre {} keys distintas (demasiado grande para reducirla)",
        sim::money::group_thousands(calls.len() as u64),
        sim::money::group_thousands(KEYS as u64)
    );
    if let Some(i) = (0..want.len()).find(|&i| got.get(i) != Some(&want[i])) {
        let first = first_uses(calls);
        let g = got.get(i).map_or("nada".to_string(), short);
        let trace = vec![
            format!(
                "las llamadas 1 a {} respondieron como el modelo",
                sim::money::group_thousands(i as u64)
            ),
            what(calls, &first, i),
            format!("modelo:    {}", short(&want[i])),
            format!("tu código: {g}   ← aquí se separan"),
        ];
        let hint = match (&want[i], got.get(i)) {
            (Ok(w), Some(Ok(g))) if w.charge_id != g.charge_id && first[&calls[i].key] == i => format!(
                "el cobro número {} recibió {} en vez de {}: el charge id de un cobro nuevo es el de su fila en el ledger, y el ledger ya tenía {} filas.",
                sim::money::group_thousands(w.charge_id.0),
                g.charge_id,
                w.charge_id,
                sim::money::group_thousands(w.charge_id.0 - 1)
            ),
            (Ok(_), _) if first[&calls[i].key] < i => format!(
                "es un replay de una key cobrada {} llamadas antes y debe devolver lo guardado; con menos keys de por medio tu servidor sí lo hace.",
                sim::money::group_thousands((i - first[&calls[i].key]) as u64)
            ),
            (Err(_), _) => "la key ya se usó con otro cuerpo: se rechaza con Err(KeyReused), sin tocar el ledger, también después de un millón de cobros.".to_string(),
            _ => "una key nueva se cobra y guarda su resultado, también después de un millón de keys.".to_string(),
        };
        return Err(differs(summary, trace, hint));
    }
    if ledger != want_ledger.as_slice() {
        let i = (0..want_ledger.len().max(ledger.len()))
            .find(|&i| ledger.get(i) != want_ledger.get(i))
            .unwrap_or_default();
        let row = |r: Option<&sim::LedgerEntry>| {
            r.map_or("ninguna".to_string(), |r| {
                format!("{} {} {} {}", r.charge_id, r.key, r.order_id, r.amount)
            })
        };
        return Err(differs(
            summary,
            vec![
                format!(
                    "cada llamada respondió como el modelo; el ledger final tiene {} filas (el modelo, {})",
                    sim::money::group_thousands(ledger.len() as u64),
                    sim::money::group_thousands(want_ledger.len() as u64)
                ),
                format!(
                    "fila {}: modelo {}, tu ledger {}   ← aquí se separan",
                    sim::money::group_thousands(i as u64 + 1),
                    row(want_ledger.get(i)),
                    row(ledger.get(i))
                ),
            ],
            "ledger() devuelve una fila por cobro nuevo, en el orden en que se cobraron, también después de un millón de cobros.".to_string(),
        ));
    }
    Ok(())
}

/// The concurrent history of `seed` against lesson 4's rules (its order of
/// rows is the threads' interleaving, so there is no one model to compare
/// with). Keys are found by their number ([`concurrent_index`]), not
/// hashed: the judge is unoptimised.
fn judge_concurrent(
    seed: u64,
    threads: &[Vec<Call>],
    got: &[Vec<Result<ChargeResult, ChargeError>>],
    ledger: &[sim::LedgerEntry],
) -> Result<(), Verdict> {
    let calls: usize = threads.iter().map(Vec::len).sum();
    let summary = format!(
        "historia larga de {THREADS} hilos a la vez: {} llamadas a charge sobre {} keys distintas, cada hilo con las suyas (demasiado grande para reducirla)",
        sim::money::group_thousands(calls as u64),
        sim::money::group_thousands(KEYS as u64)
    );
    let fail =
        |trace: Vec<String>, hint: &str| Err(differs(summary.clone(), trace, hint.to_string()));
    let group = |n: usize| sim::money::group_thousands(n as u64);
    // The ledger: one row per key of the history, charge ids in its order.
    let mut row_of: Vec<Option<usize>> = vec![None; KEYS];
    for (r, row) in ledger.iter().enumerate() {
        if row.charge_id != ChargeId::next_after(r) {
            return fail(
                vec![format!(
                    "la fila {} del ledger tiene {}; su charge id es {}",
                    group(r + 1),
                    row.charge_id,
                    ChargeId::next_after(r)
                )],
                "el charge id de un cobro es el de su fila en el ledger (ch_0001, ch_0002, … en orden), también con varios hilos cobrando a la vez: se toma y se escribe en el mismo paso atómico.",
            );
        }
        let Some(i) = concurrent_index(row.key, seed) else {
            return fail(
                vec![format!(
                    "la fila {} del ledger es de la key {}, que ninguna llamada envió",
                    group(r + 1),
                    row.key
                )],
                "una fila del ledger lleva la key de la llamada que la cobró.",
            );
        };
        if let Some(before) = row_of[i].replace(r) {
            return fail(
                vec![format!(
                    "las filas {} y {} del ledger son de la misma key, {}",
                    group(before + 1),
                    group(r + 1),
                    row.key
                )],
                "una key se cobra una sola vez: el resto de sus llamadas son replays o se rechazan.",
            );
        }
    }
    // Each thread: a new key's result is its row's; a replay, the stored
    // result; a reuse, refused.
    let mut stored: Vec<Option<(Call, ChargeResult)>> = vec![None; KEYS];
    for (t, (calls, results)) in threads.iter().zip(got).enumerate() {
        for (i, c) in calls.iter().enumerate() {
            let result = results.get(i);
            let at = || {
                format!(
                    "hilo {}, su llamada {} ({}, {}, {})",
                    t + 1,
                    group(i + 1),
                    c.key,
                    c.order_id,
                    c.amount
                )
            };
            let shown = || result.map_or("nada".to_string(), short);
            let k = concurrent_index(c.key, seed).expect("the history's own key");
            let new_key = stored[k].is_none();
            let want = match stored[k] {
                None => {
                    let Some(r) = row_of[k] else {
                        return fail(
                            vec![
                                format!("{}: una key nueva", at()),
                                format!(
                                    "tu código respondió {}, y el ledger no tiene ninguna fila de esa key",
                                    shown()
                                ),
                            ],
                            "una key nueva se cobra: una fila en el ledger y su resultado guardado, también después de un millón de keys.",
                        );
                    };
                    let row = ledger[r];
                    if (row.order_id, row.amount) != (c.order_id, c.amount) {
                        return fail(
                            vec![format!(
                                "{}: su fila del ledger ({}) dice {} {}",
                                at(),
                                row.charge_id,
                                row.order_id,
                                row.amount
                            )],
                            "la fila de un cobro lleva la orden y el monto de la llamada que lo hizo.",
                        );
                    }
                    let want = ChargeResult {
                        charge_id: row.charge_id,
                        amount: c.amount,
                        status: ChargeStatus::Captured,
                    };
                    stored[k] = Some((*c, want));
                    Ok(want)
                }
                Some((first, result))
                    if (first.order_id, first.amount) == (c.order_id, c.amount) =>
                {
                    Ok(result)
                }
                Some(_) => Err(ChargeError::KeyReused),
            };
            if result != Some(&want) {
                return fail(
                    vec![
                        at(),
                        format!("esperado:  {}", short(&want)),
                        format!("tu código: {}   ← aquí se separan", shown()),
                    ],
                    match want {
                        Ok(_) if new_key => {
                            "el resultado de un cobro nuevo lleva el charge id de la fila que escribió en el ledger y el monto de la llamada."
                        }
                        Ok(_) => {
                            "un replay devuelve lo guardado de su key: el resultado de su cobro, con el charge id de su fila en el ledger."
                        }
                        Err(_) => {
                            "la key ya se usó con otro cuerpo: se rechaza con Err(KeyReused), sin tocar el ledger."
                        }
                    },
                );
            }
        }
    }
    if ledger.len() != KEYS {
        return fail(
            vec![format!(
                "el ledger tiene {} filas; las keys distintas son {}",
                group(ledger.len()),
                group(KEYS)
            )],
            "una fila por key: ni más (un cobro doble) ni menos.",
        );
    }
    Ok(())
}
