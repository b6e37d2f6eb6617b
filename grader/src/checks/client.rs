//! Exercise 2's checks: the client, against the grader's own spy server.

use sim::{ChargeOutcome, Delivery, Kit, LossModel, Money, Network, Order, OrderId, Payments};

use crate::spy::{RecordingKeys, SpyServer};
use crate::verdict::Verdict;

/// `(id, title)` of every fixed check of exercise 2.
pub const CHECKS: &[(&str, &str)] = &[
    (
        "misma-key-en-cada-reintento",
        "una sola key por operación, creada con keys.new_key() y reenviada en cada reintento",
    ),
    (
        "se-detiene-en-la-primera-respuesta",
        "se detiene en la primera respuesta que llega",
    ),
    (
        "se-rinde-tras-max-attempts",
        "tras max_attempts respuestas perdidas se rinde: cobro sin confirmar",
    ),
    (
        "operaciones-distintas-keys-distintas",
        "dos operaciones con el mismo contenido llevan keys distintas",
    ),
];

const LOST: Delivery = Delivery::Lost;
const DELIVERED: Delivery = Delivery::Delivered;

/// One client call against a spy server on a scripted network.
struct Run {
    outcome: ChargeOutcome,
    server: SpyServer,
    keys: RecordingKeys,
}

fn run_client<K: Kit>(script: Vec<Delivery>, max_attempts: u32) -> Run {
    let mut server = SpyServer::new(true);
    let mut network = Network::new(LossModel::scripted(script));
    let mut keys = RecordingKeys::new(2);
    let order = Order {
        id: OrderId(1),
        amount: Money::from_dollars(500),
    };
    let outcome = K::charge_order(&mut server, &mut network, &mut keys, &order, max_attempts);
    Run {
        outcome,
        server,
        keys,
    }
}

fn describe(run: &Run) -> String {
    let keys: Vec<String> = run.server.calls.iter().map(|c| c.key.to_string()).collect();
    format!(
        "{} intento(s) al server con keys [{}]; keys creadas: {}; informó attempts={} {}",
        run.server.calls.len(),
        keys.join(", "),
        run.keys.issued.len(),
        run.outcome.attempts,
        match run.outcome.confirmed {
            Some(r) => format!("confirmado {}", r.charge_id),
            None => "sin confirmar".to_string(),
        }
    )
}

/// Runs fixed check `id` against `K`'s client.
///
/// # Panics
/// On an unknown `id`.
pub fn run<K: Kit>(id: &str) -> Verdict {
    match id {
        "misma-key-en-cada-reintento" => same_key::<K>(),
        "se-detiene-en-la-primera-respuesta" => stops_at_first_response::<K>(),
        "se-rinde-tras-max-attempts" => gives_up::<K>(),
        "operaciones-distintas-keys-distintas" => distinct_operations::<K>(),
        other => panic!("unknown client check {other}"),
    }
}

fn same_key<K: Kit>() -> Verdict {
    let r = run_client::<K>(vec![LOST, LOST, DELIVERED], 4);
    let expected = "3 intentos (perdida, perdida, entregada), los 3 con la misma key, la única creada con keys.new_key(); attempts=3, confirmado ch_0001";
    let keys: Vec<_> = r.server.calls.iter().map(|c| c.key).collect();
    let hint = if r.keys.issued.len() > 1 || keys.windows(2).any(|w| w[0] != w[1]) {
        "cada reintento llevó una key nueva: el servidor ve operaciones distintas y cobra cada una ($1500 en vez de $500, lección 3). Crea la key una vez, antes del primer intento, y reenvíala idéntica."
    } else if keys.iter().any(|k| !r.keys.issued.contains(k)) {
        "la key enviada no salió de keys.new_key(): no la derives del contenido de la orden (order_id, amount), porque dos operaciones iguales tendrían la misma key."
    } else {
        "crea la key con keys.new_key() antes del primer intento, reintenta con network.send mientras la respuesta se pierda, y devuelve el resultado de la primera respuesta que llega."
    };
    let ok = keys.len() == 3
        && r.keys.issued.len() == 1
        && keys.iter().all(|k| *k == r.keys.issued[0])
        && r.outcome.attempts == 3
        && r.outcome.confirmed.map(|c| c.charge_id.0) == Some(1)
        && r.server.ledger().len() == 1;
    if ok {
        Verdict::Passed
    } else {
        Verdict::failed(expected, describe(&r), hint)
    }
}

fn stops_at_first_response<K: Kit>() -> Verdict {
    for (script, n) in [(vec![DELIVERED], 1u32), (vec![LOST, DELIVERED], 2)] {
        let r = run_client::<K>(script, 4);
        let ok = r.server.calls.len() == n as usize
            && r.outcome.attempts == n
            && r.outcome.confirmed.map(|c| c.charge_id.0) == Some(1);
        if !ok {
            return Verdict::failed(
                format!(
                    "la respuesta del intento {n} llega → {n} intento(s), attempts={n}, confirmado ch_0001"
                ),
                describe(&r),
                "la respuesta llegó: la operación terminó. Reintentar después de una respuesta entregada es enviar un cobro que nadie pidió; devuelve en cuanto network.send dé Some(resultado).",
            );
        }
    }
    Verdict::Passed
}

fn gives_up<K: Kit>() -> Verdict {
    // 1000 lost responses: a client that never gives up stops only after them.
    for max in [4u32, 1, 2] {
        let r = run_client::<K>(vec![LOST; 1000], max);
        let ok = r.server.calls.len() == max as usize
            && r.outcome.attempts == max
            && r.outcome.confirmed.is_none();
        if !ok {
            let calls = r.server.calls.len();
            let hint = if calls > max as usize {
                format!(
                    "hizo {calls} intentos con max_attempts={max}: uno o más de la cuenta. Con max_attempts intentos perdidos, ríndete (como el `while attempts < max_attempts` de la lección 2)."
                )
            } else if calls < max as usize {
                format!(
                    "hizo {calls} intentos con max_attempts={max}: se rindió antes de tiempo. Son hasta max_attempts intentos en total, contando el primero."
                )
            } else {
                "al agotar los intentos, informa attempts == max_attempts y confirmed: None (el cobro queda sin confirmar, sin pánico).".to_string()
            };
            return Verdict::failed(
                format!(
                    "todas las respuestas se pierden, max_attempts={max} → {max} intento(s), attempts={max}, sin confirmar"
                ),
                describe(&r),
                hint,
            );
        }
    }
    Verdict::Passed
}

fn distinct_operations<K: Kit>() -> Verdict {
    let mut server = SpyServer::new(true);
    let mut network = Network::reliable();
    let mut keys = RecordingKeys::new(3);
    let order = Order {
        id: OrderId(1),
        amount: Money::from_dollars(500),
    };
    let first = K::charge_order(&mut server, &mut network, &mut keys, &order, 4);
    let second = K::charge_order(&mut server, &mut network, &mut keys, &order, 4);
    let sent: Vec<_> = server.calls.iter().map(|c| c.key).collect();
    let ok = sent.len() == 2
        && sent[0] != sent[1]
        && server.ledger().len() == 2
        && first.confirmed.is_some()
        && second.confirmed.is_some();
    if ok {
        return Verdict::Passed;
    }
    let keys_text: Vec<String> = sent.iter().map(|k| k.to_string()).collect();
    Verdict::failed(
        "dos cobros de la misma orden por $500 (dos operaciones) → dos keys distintas, dos filas en el ledger",
        format!(
            "keys enviadas [{}]; {} fila(s) en el ledger",
            keys_text.join(", "),
            server.ledger().len()
        ),
        "cada operación necesita su propia key: una key reutilizada (o derivada del contenido) hace que el servidor confunda \"un cobro nuevo que casualmente es igual\" con \"el mismo cobro otra vez\" y no cobre el segundo (lección 2, errores comunes).",
    )
}
