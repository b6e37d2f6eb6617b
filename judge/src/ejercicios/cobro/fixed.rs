//! Exercise 1's checks: the idempotent `charge`, called directly with a
//! script of calls.
//!
//! What each call must answer, and the ledger the script must leave, come
//! from the grader's own lesson server ([`SpyServer`], lesson 2's
//! `PaymentsServer`), never from the reference solutions. After every call
//! the check also records how many ledger rows there are, so a wrong answer
//! is explained by the first call that went wrong.

use protocol::Call;
use sim::{
    ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry, Money, OrderId, Payments,
};

use crate::ejercicios::cobro::steps;
use crate::runner::{self, Execute, Played};
use crate::spy::SpyServer;
use crate::verdict::{Hint, Verdict};

/// `(id, title)` of every fixed check of exercise 1.
pub const CHECKS: &[(&str, &str)] = &[
    (
        "sin-idempotencia-cada-llamada-cobra",
        "sin idempotencia, cada llamada cobra (aunque repita la key), con charge ids desde ch_0001",
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
        "keys distintas son cobros distintos (aunque tengan el mismo contenido o se parezcan)",
    ),
];

const K1: IdempotencyKey = IdempotencyKey(0x9001_0000_0000_0001);
const K2: IdempotencyKey = IdempotencyKey(0x9001_0000_0000_0002);
const K3: IdempotencyKey = IdempotencyKey(0x9001_0000_0000_0003);
/// Two keys that differ only above their low 32 bits (the kit's
/// `SeededKeys` never make such a pair, a student's store may confuse them).
const KA: IdempotencyKey = IdempotencyKey(0x0000_0001_0000_0005);
const KB: IdempotencyKey = IdempotencyKey(0x0000_0002_0000_0005);

/// Calls in the non-idempotent check: enough to pass 255 and 256 rows.
const MANY_CALLS: usize = 300;

/// A call of a fixed check's script: `key`, order `order`, `amount`.
pub(crate) fn call(key: IdempotencyKey, order: u64, amount: Money) -> Call {
    Call {
        key,
        order_id: OrderId(order),
        amount,
    }
}

/// `n` whole dollars.
pub(crate) fn dollars(n: i64) -> Money {
    Money::from_dollars(n)
}

/// The short name of a check's key in messages (`K1`), or the key itself.
fn label(key: IdempotencyKey) -> String {
    [(K1, "K1"), (K2, "K2"), (K3, "K3"), (KA, "KA"), (KB, "KB")]
        .iter()
        .find(|(k, _)| *k == key)
        .map_or_else(|| key.to_string(), |(_, name)| name.to_string())
}

fn label_of(key: IdempotencyKey) -> String {
    label(key)
}

/// How many rows call `i` of `p` wrote (negative if the ledger shrank).
fn written(p: &Played, i: usize) -> i64 {
    let before = if i == 0 { 0 } else { p.answers[i - 1].rows };
    p.answers[i].rows as i64 - before as i64
}

fn results(p: &Played) -> Vec<ChargeResult> {
    p.answers.iter().map(|a| a.result).collect()
}

/// Plays `calls` against the model: lesson 2's server.
pub(crate) fn play<P: Payments>(server: &mut P, calls: &[Call]) -> Played {
    let (answers, ledger) = protocol::cobro::play(server, calls);
    Played { answers, ledger }
}

/// Describes a ledger compactly: `[ch_0001 ord_0001 $500 idem_…]`.
pub fn describe_ledger(ledger: &[LedgerEntry]) -> String {
    if ledger.is_empty() {
        return "ledger vacío".to_string();
    }
    let rows: Vec<String> = ledger.iter().map(describe_row).collect();
    format!("{} fila(s): [{}]", ledger.len(), rows.join("; "))
}

pub(crate) fn describe_row(r: &LedgerEntry) -> String {
    format!("{} {} {} {}", r.charge_id, r.order_id, r.amount, r.key)
}

pub(crate) fn describe_result(r: &ChargeResult) -> String {
    // The lesson's own word for the status: `"status": "captured"`.
    let status = match r.status {
        ChargeStatus::Captured => "captured",
    };
    format!("{} {} {status}", r.charge_id, r.amount)
}

/// What the script must leave, in one short line: the calls and the
/// lesson's server's ledger size (the table below shows every answer).
fn describe_want(idempotent: bool, calls: &[Call], want: &Played) -> String {
    let mode = if idempotent {
        "con idempotencia"
    } else {
        "sin idempotencia"
    };
    format!(
        "{} llamada(s) {mode} → las respuestas y el ledger de la lección ({} fila(s))",
        calls.len(),
        want.ledger.len()
    )
}

/// The first difference, in one line, saying only what was observed: the
/// first call whose answer or ledger size differs, or the first ledger row.
fn describe_got(idempotent: bool, calls: &[Call], got: &Played, want: &Played) -> String {
    let Some(i) = steps::parting(got, want) else {
        let n = (0..want.ledger.len().max(got.ledger.len()))
            .find(|&n| want.ledger.get(n) != got.ledger.get(n))
            .unwrap_or(0);
        return format!(
            "las respuestas coinciden, pero la fila {} de tu ledger es {} (la del modelo, {})",
            n + 1,
            got.ledger
                .get(n)
                .map_or("ninguna".to_string(), describe_row),
            want.ledger
                .get(n)
                .map_or("ninguna".to_string(), describe_row)
        );
    };
    let c = calls[i];
    let again = calls[..i]
        .iter()
        .position(|p| p.key == c.key)
        .filter(|_| idempotent)
        .map_or(String::new(), |j| {
            format!(", la key de la llamada {}", j + 1)
        });
    let what = format!(
        "la llamada {} ({} {} {}{again})",
        i + 1,
        label(c.key),
        c.order_id,
        c.amount
    );
    let (g, w) = (written(got, i), written(want, i));
    if g != w {
        return format!(
            "{what} escribió {g} fila(s) en tu ledger; en el del modelo, {w} ({})",
            if w == 0 { "replay" } else { "cobro" }
        );
    }
    let (gr, wr) = (got.answers[i].result, want.answers[i].result);
    let mut text = format!(
        "{what} respondió {}; el modelo, {}",
        steps::short_result(&gr),
        steps::short_result(&wr)
    );
    if same_rows_but_ids(got, want) {
        text.push_str("; tu ledger tiene las filas del modelo salvo los charge ids");
    }
    text
}

/// The ledger's rows without their charge ids.
fn strip_ids(p: &Played) -> Vec<(IdempotencyKey, OrderId, Money)> {
    p.ledger
        .iter()
        .map(|r| (r.key, r.order_id, r.amount))
        .collect()
}

/// Whether the two ledgers have the same rows except for their charge ids.
fn same_rows_but_ids(got: &Played, want: &Played) -> bool {
    got.ledger != want.ledger && strip_ids(got) == strip_ids(want)
}

/// Plays `calls` against a new server of the implementation in mode
/// `idempotent` and compares every answer and the ledger with the lesson's
/// server.
fn check_script(
    h: &dyn Execute,
    idempotent: bool,
    calls: &[Call],
    default_hint: &str,
) -> Result<(), Verdict> {
    let got = runner::charges(h, idempotent, calls)?;
    let want = play(&mut SpyServer::new(idempotent), calls);
    if got == want {
        return Ok(());
    }
    let (hint, owner) =
        diagnose(idempotent, calls, &got, &want).unwrap_or((default_hint.to_string(), None));
    Err(Verdict::failed(
        describe_want(idempotent, calls, &want),
        describe_got(idempotent, calls, &got, &want),
        hint,
    )
    .with_steps(steps::table(idempotent, calls, &got, &want, &label_of))
    .owned_by(owner))
}

const REMEMBERED_WITHOUT_CHARGING: &str = "el ledger quedó vacío: la key se recordó sin ejecutar el cobro. Una key que el store no conoce es un cobro de verdad: primero escribe la fila en el ledger (key, orden, monto, charge id) y después guarda el resultado bajo la key. Recordar la key sin ejecutar el cobro es anotar en el cuaderno un cobro que nunca ocurrió.";

const IGNORES_IDEMPOTENT: &str = "con idempotent = true, cada llamada cobró con un charge id nuevo, también las que repetían una key ya cobrada: el ledger creció como sin idempotencia. En ese modo, antes de cobrar se busca la key en el store; si ya está, es un replay: se devuelve lo guardado sin cobrar (el cajero revisa el cuaderno antes de cobrar). Y para que la próxima llamada la encuentre, el cobro de una key nueva guarda su resultado en el store bajo esa key.";

const DEDUPLICATED_WITHOUT_IDEMPOTENCY: &str = "sin idempotencia el cajero no tiene cuaderno: cada llamada es un cobro nuevo, con su fila en el ledger y su charge id (ch_0001, ch_0002, …), aunque repita la key. Es el mundo del \"antes\" que mide la lección 2 ($1000 por una compra de $500): no lo deduplices.";

const REPLAY_EXECUTED: &str = "el replay volvió a ejecutar el cobro: el ledger creció. Si la key ya está en el store, devuelve lo guardado SIN tocar el ledger (el cajero revisa el cuaderno antes de cobrar).";

const DEDUPLICATED_BY_CONTENT: &str = "dos keys distintas con el mismo contenido se cobraron una sola vez: la \"misma operación\" la define la idempotency key, no el contenido (order_id, amount). Deduplicar por contenido rechaza cobros legítimos (lección 2, errores comunes): busca en el store por key.";

/// The check whose rule a mistake breaks, by its name.
const NEW_KEY: Option<&str> = Some("key-nueva-se-cobra-y-se-registra");
const REPLAY: Option<&str> = Some("replay-devuelve-lo-guardado");
const WITHOUT: Option<&str> = Some("sin-idempotencia-cada-llamada-cobra");
const DISTINCT: Option<&str> = Some("keys-distintas-se-cobran");

/// Names the mistake behind a wrong answer, from the first call where `got`
/// parts from `want`, with the check whose rule it breaks; `None` when it
/// matches none of the known mistakes.
pub(crate) fn diagnose(
    idempotent: bool,
    calls: &[Call],
    got: &Played,
    want: &Played,
) -> Option<Hint> {
    if idempotent {
        if got.ledger.is_empty() && !want.ledger.is_empty() {
            return Some((REMEMBERED_WITHOUT_CHARGING.to_string(), NEW_KEY));
        }
        let results = results(got);
        let mut ids: Vec<ChargeId> = results.iter().map(|r| r.charge_id).collect();
        ids.sort_unstable();
        ids.dedup();
        let all_new = ids.len() == results.len();
        // Said only when some key came back with the same order and amount:
        // when every repeat changed its content, that change is what was
        // observed ([`rows_mistake`] names it). One pass with a set: the
        // model's large case has 100,009 calls.
        let same_request_again = || {
            let mut seen = rustc_hash::FxHashSet::default();
            calls
                .iter()
                .any(|c| !seen.insert((c.key, c.order_id, c.amount)))
        };
        if got.ledger.len() == calls.len()
            && want.ledger.len() < calls.len()
            && all_new
            && same_request_again()
        {
            return Some((IGNORES_IDEMPOTENT.to_string(), REPLAY));
        }
    } else if got.ledger.len() < want.ledger.len() {
        return Some((DEDUPLICATED_WITHOUT_IDEMPOTENCY.to_string(), WITHOUT));
    }
    rows_mistake(calls, got, want)
        .or_else(|| replay_mistake(idempotent, calls, got).map(|h| (h, REPLAY)))
        .or_else(|| charge_id_mistake(got, want).map(|h| (h, WITHOUT)))
}

/// The first call that wrote more or fewer ledger rows than it should.
fn rows_mistake(calls: &[Call], got: &Played, want: &Played) -> Option<Hint> {
    let i = (0..calls.len()).find(|&i| written(got, i) != written(want, i))?;
    let c = calls[i];
    let (g, w) = (written(got, i), written(want, i));
    if g > w && w == 0 {
        let j = calls[..i].iter().position(|p| p.key == c.key)?;
        let first = calls[j];
        if (first.order_id, first.amount) != (c.order_id, c.amount) {
            // Only the content changed: what the store was searched by is
            // not observed, so the hint says what differs and the rule.
            return Some((
                format!(
                    "la llamada {} repite la key {} de la llamada {} con otro contenido ({} {} en vez de {} {}) y tu servidor la cobró de nuevo: no la tomó por un replay. La key ES la operación: si ya está en el store es un replay y devuelve lo guardado SIN tocar el ledger, traiga el contenido que traiga; búscala solo por la key, no por (key, order_id, amount) ni por el contenido.",
                    i + 1,
                    label(c.key),
                    j + 1,
                    c.order_id,
                    c.amount,
                    first.order_id,
                    first.amount
                ),
                None,
            ));
        }
        return Some((REPLAY_EXECUTED.to_string(), REPLAY));
    }
    if g > w {
        return Some((
            format!(
                "la llamada {} escribió {g} filas en el ledger: cada cobro ejecutado escribe exactamente una fila.",
                i + 1
            ),
            None,
        ));
    }
    if let Some(twin) = calls[..i]
        .iter()
        .find(|p| p.key != c.key && p.key.0 as u32 == c.key.0 as u32)
    {
        return Some((
            format!(
                "la key {} ({}) se tomó por un replay de {} ({}): son keys distintas que solo comparten sus 32 bits bajos. Una idempotency key son sus 64 bits: guárdala y compárala entera en el store (nada de key.0 as u32 ni as u16, que confunde operaciones distintas y deja un cobro sin hacer).",
                label(c.key),
                c.key,
                label(twin.key),
                twin.key
            ),
            DISTINCT,
        ));
    }
    if calls[..i]
        .iter()
        .any(|p| p.key != c.key && (p.order_id, p.amount) == (c.order_id, c.amount))
    {
        return Some((DEDUPLICATED_BY_CONTENT.to_string(), DISTINCT));
    }
    // Answered with what another key stored: the store confused the keys
    // some other way (a hash or a fold of the key used as the key).
    if let Some(twin) = (0..i).find(|&j| {
        calls[j].key != c.key && got.answers.get(j).map(|a| a.result) == Some(got.answers[i].result)
    }) {
        let twin = calls[twin].key;
        return Some((
            format!(
                "la key {} ({}) se tomó por un replay de {} ({}): son keys distintas. Una idempotency key son sus 64 bits: guárdala y compárala entera en el store (ni una parte de ella ni un hash de 32 bits como clave, que confunden operaciones distintas y dejan un cobro sin hacer).",
                label(c.key),
                c.key,
                label(twin),
                twin
            ),
            DISTINCT,
        ));
    }
    Some((
        format!(
            "la llamada {} traía una key que el store no conocía ({}) y no se cobró: una key nueva es un cobro de verdad, con su fila en el ledger.",
            i + 1,
            label(c.key)
        ),
        None,
    ))
}

/// The first replay that did not answer what the server itself stored
/// under its key.
fn replay_mistake(idempotent: bool, calls: &[Call], got: &Played) -> Option<String> {
    if !idempotent {
        return None;
    }
    // Where each key was first used (a history can be 100,000 calls long).
    let mut first_use: rustc_hash::FxHashMap<IdempotencyKey, usize> =
        rustc_hash::FxHashMap::default();
    for (i, c) in calls.iter().enumerate() {
        first_use.entry(c.key).or_insert(i);
    }
    for (i, c) in calls.iter().enumerate() {
        let first = first_use[&c.key];
        if first == i {
            continue;
        }
        let (answer, stored) = (got.answers[i].result, got.answers[first].result);
        if answer == stored {
            continue;
        }
        let key = label(c.key);
        if answer.charge_id == stored.charge_id && answer.amount == c.amount {
            return Some(format!(
                "el replay de {key} devolvió el monto que traía el reintento ({}) en vez del guardado ({}): un replay devuelve el resultado guardado idéntico (mismo charge id, mismo monto), como el cajero que entrega de nuevo el mismo recibo, aunque el reintento traiga otro monto.",
                answer.amount, stored.amount
            ));
        }
        let other = (0..i).find(|&j| {
            calls[j].key != c.key
                && got.answers[j].result.charge_id == answer.charge_id
                && first_use[&calls[j].key] == j
        });
        if let Some(j) = other {
            return Some(format!(
                "el replay de {key} devolvió {}, el cobro de otra key ({}), en vez de lo guardado bajo {key} ({}): un replay devuelve el resultado guardado bajo SU key. Busca en el store por la key de la llamada y devuelve ese resultado, idéntico.",
                answer.charge_id,
                label(calls[j].key),
                describe_result(&stored)
            ));
        }
        if got.answers[..i]
            .iter()
            .all(|a| a.result.charge_id != answer.charge_id)
        {
            return Some(format!(
                "el replay de {key} devolvió un resultado nuevo ({}): debe devolver el resultado guardado, idéntico (mismo charge id, {}), como el cajero que entrega de nuevo el recibo #ch_0001.",
                answer.charge_id, stored.charge_id
            ));
        }
        return Some(format!(
            "el replay de {key} devolvió {} en vez de lo guardado bajo {key} ({}): devuelve el resultado guardado, idéntico.",
            describe_result(&answer),
            describe_result(&stored)
        ));
    }
    None
}

/// Charge ids numbered wrong while everything else is right.
fn charge_id_mistake(got: &Played, want: &Played) -> Option<String> {
    let strip_results = |p: &Played| -> Vec<(Money, ChargeStatus)> {
        p.answers
            .iter()
            .map(|a| (a.result.amount, a.result.status))
            .collect()
    };
    if strip_results(got) != strip_results(want) || strip_ids(got) != strip_ids(want) {
        return None;
    }
    let from_zero = got
        .ledger
        .iter()
        .zip(&want.ledger)
        .all(|(g, w)| g.charge_id.0 + 1 == w.charge_id.0);
    let detail = if from_zero {
        format!(
            "empiezan en {} en vez de {}",
            ChargeId(0),
            ChargeId::next_after(0)
        )
    } else {
        let (n, g, w) = got
            .ledger
            .iter()
            .zip(&want.ledger)
            .enumerate()
            .find(|(_, (g, w))| g.charge_id != w.charge_id)
            .map(|(n, (g, w))| (n + 1, g.charge_id, w.charge_id))
            .or_else(|| {
                let i = (0..got.answers.len())
                    .find(|&i| got.answers[i].result != want.answers[i].result)?;
                Some((
                    i + 1,
                    got.answers[i].result.charge_id,
                    want.answers[i].result.charge_id,
                ))
            })?;
        format!("el cobro número {n} recibió {g} en vez de {w}")
    };
    Some(format!(
        "los charge ids están mal numerados: {detail}. El charge id es el número de la fila que escribe el cobro, desde ch_0001: ChargeId::next_after(self.ledger.len()) antes de escribir la fila (lección 2: f\"ch_{{len(self.ledger) + 1:04d}}\"), sin restos ni conversiones a enteros más chicos que den la vuelta."
    ))
}

/// Runs fixed check `id` against the implementation's server.
///
/// # Panics
/// On an unknown `id` (the catalog only hands out known ones).
pub fn run(h: &dyn Execute, id: &str) -> Result<(), Verdict> {
    match id {
        "sin-idempotencia-cada-llamada-cobra" => every_call_charges(h),
        "key-nueva-se-cobra-y-se-registra" => new_key_executes(h),
        "replay-devuelve-lo-guardado" => replay_returns_stored(h),
        "keys-distintas-se-cobran" => distinct_keys_charge(h),
        other => panic!("unknown server check {other}"),
    }
}

/// 300 calls with one key and no idempotency: 300 charges, `ch_0001` to
/// `ch_0300` (past 255 and 256 rows, where narrow counters wrap).
fn every_call_charges(h: &dyn Execute) -> Result<(), Verdict> {
    let calls = vec![call(K1, 1, dollars(500)); MANY_CALLS];
    check_script(
        h,
        false,
        &calls,
        "sin idempotencia cada llamada es un cobro nuevo: una fila en el ledger y un charge id nuevo (ch_0001, ch_0002, …) por llamada, aunque repita la key.",
    )
}

fn new_key_executes(h: &dyn Execute) -> Result<(), Verdict> {
    check_script(
        h,
        true,
        &[call(K1, 7, Money::from_cents(12_345))],
        "una key que el store no conoce es un cobro de verdad: primero escribe la fila en el ledger (key, orden, monto, charge id) y después guarda el resultado bajo la key.",
    )
}

/// K1 three times, K2, K2 again, K2 carrying another amount, K1 again: two
/// rows, and each replay answers its own key's stored result.
fn replay_returns_stored(h: &dyn Execute) -> Result<(), Verdict> {
    let k1 = call(K1, 1, dollars(500));
    let k2 = call(K2, 2, dollars(300));
    let k2_other_amount = call(K2, 2, dollars(999));
    check_script(
        h,
        true,
        &[k1, k1, k1, k2, k2, k2_other_amount, k1],
        "con idempotencia, la primera llamada con una key cobra y guarda su resultado bajo la key; las siguientes con esa key son replays de ese resultado, idéntico, sin tocar el ledger.",
    )
}

/// Two keys with the same content, then (on a new server) two keys that
/// share their low 32 bits: four charges, each key replaying its own.
fn distinct_keys_charge(h: &dyn Execute) -> Result<(), Verdict> {
    let hint = "cada key es una operación: guarda y busca en el store por la key entera, y devuelve a cada key su propio resultado.";
    let same_content = [
        call(K1, 1, dollars(500)),
        call(K2, 1, dollars(500)),
        call(K1, 1, dollars(500)),
        call(K3, 2, dollars(300)),
    ];
    check_script(h, true, &same_content, hint)?;
    let (a, b) = (call(KA, 3, dollars(200)), call(KB, 4, dollars(700)));
    check_script(h, true, &[a, b, b, a], hint)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn captured(n: u64, dollars: i64) -> ChargeResult {
        ChargeResult {
            charge_id: ChargeId(n),
            amount: Money::from_dollars(dollars),
            status: ChargeStatus::Captured,
        }
    }

    /// The replay script's expectations, as the lesson's server gives them.
    #[test]
    fn the_replay_script_expects_each_keys_stored_result() {
        let k1 = call(K1, 1, dollars(500));
        let k2 = call(K2, 2, dollars(300));
        let calls = [k1, k1, k1, k2, k2, call(K2, 2, dollars(999)), k1];
        let want = play(&mut SpyServer::new(true), &calls);
        let (one, two) = (captured(1, 500), captured(2, 300));
        assert_eq!(results(&want), [one, one, one, two, two, two, one]);
        assert_eq!(want.ledger.len(), 2);
    }

    /// Keys sharing their low 32 bits are two charges for the lesson's server.
    #[test]
    fn keys_sharing_low_bits_are_two_charges() {
        let (a, b) = (call(KA, 3, dollars(200)), call(KB, 4, dollars(700)));
        let want = play(&mut SpyServer::new(true), &[a, b, b, a]);
        assert_eq!(KA.0 as u32, KB.0 as u32);
        assert_eq!(
            results(&want),
            [
                captured(1, 200),
                captured(2, 700),
                captured(2, 700),
                captured(1, 200)
            ]
        );
    }

    /// 300 non-idempotent calls: ids 1..=300; a long script is described by
    /// its first difference.
    #[test]
    fn many_calls_count_every_charge() {
        let calls = vec![call(K1, 1, dollars(500)); MANY_CALLS];
        let want = play(&mut SpyServer::new(false), &calls);
        assert_eq!(want.ledger.len(), MANY_CALLS);
        assert_eq!(want.answers[MANY_CALLS - 1].result, captured(300, 500));
        let mut got = play(&mut SpyServer::new(false), &calls);
        got.answers[4].result.charge_id = ChargeId(1);
        got.ledger[4].charge_id = ChargeId(1);
        let text = describe_got(false, &calls, &got, &want);
        assert_eq!(
            text,
            "la llamada 5 (K1 ord_0001 $500) respondió ch_0001 $500; el modelo, ch_0005 $500; tu ledger tiene las filas del modelo salvo los charge ids"
        );
        let hint = charge_id_mistake(&got, &want).expect("ids only");
        assert!(
            hint.contains("el cobro número 5 recibió ch_0001 en vez de ch_0005"),
            "{hint}"
        );
    }
}
