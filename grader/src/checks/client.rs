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
        "operaciones distintas llevan keys distintas, aunque tengan el mismo contenido",
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

/// `[a ×3, b]`: the keys in order, runs of one key collapsed, so a client
/// that never stops still gets a one-line description.
fn describe_keys(keys: &[sim::IdempotencyKey]) -> String {
    let mut runs: Vec<(sim::IdempotencyKey, usize)> = Vec::new();
    for &k in keys {
        match runs.last_mut() {
            Some((last, n)) if *last == k => *n += 1,
            _ => runs.push((k, 1)),
        }
    }
    let shown: Vec<String> = runs
        .iter()
        .take(6)
        .map(|(k, n)| {
            if *n == 1 {
                k.to_string()
            } else {
                format!("{k} ×{n}")
            }
        })
        .collect();
    let more = if runs.len() > 6 {
        format!(", … ({} keys más)", runs.len() - 6)
    } else {
        String::new()
    };
    format!("[{}{more}]", shown.join(", "))
}

fn describe(run: &Run) -> String {
    let keys: Vec<_> = run.server.calls.iter().map(|c| c.key).collect();
    format!(
        "{} intento(s) al server con keys {}; keys creadas: {}; informó attempts={} {}",
        run.server.calls.len(),
        describe_keys(&keys),
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
    let expected = "respuestas perdida, perdida, entregada → los 3 intentos con la misma key, la única creada con keys.new_key()";
    let keys: Vec<_> = r.server.calls.iter().map(|c| c.key).collect();
    let ok =
        keys.len() >= 3 && r.keys.issued.len() == 1 && keys.iter().all(|k| *k == r.keys.issued[0]);
    if ok {
        return Verdict::Passed;
    }
    let hint = if keys.len() < 3 {
        "la respuesta se perdió y el cliente no reintentó: con una respuesta perdida no sabes si el cobro ocurrió, así que reintenta (hasta max_attempts) con la misma key."
    } else if r.keys.issued.len() > 1 || keys.windows(2).any(|w| w[0] != w[1]) {
        "cada reintento llevó una key nueva: el servidor ve operaciones distintas y cobra cada una ($1500 en vez de $500, lección 3). Crea la key una vez, antes del primer intento, y reenvíala idéntica."
    } else {
        "la key enviada no salió de keys.new_key(): una key fija, o derivada del contenido de la orden (order_id, amount), se repite entre operaciones distintas. Pide una key nueva con keys.new_key() al empezar cada operación."
    };
    Verdict::failed(expected, describe(&r), hint)
}

fn stops_at_first_response<K: Kit>() -> Verdict {
    for (script, n) in [(vec![DELIVERED], 1u32), (vec![LOST, DELIVERED], 2)] {
        let r = run_client::<K>(script, 4);
        let last_charge = r.server.ledger().last().map(|row| row.charge_id);
        let ok = r.server.calls.len() == n as usize
            && r.outcome.attempts == n
            && r.outcome.confirmed.is_some()
            && r.outcome.confirmed.map(|c| c.charge_id) == last_charge;
        if !ok {
            return Verdict::failed(
                format!(
                    "la respuesta del intento {n} llega → {n} intento(s), attempts={n}, confirmado con el resultado que llegó"
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
            let hint = if calls > max as usize + 1 {
                format!(
                    "hizo {calls} intentos con max_attempts={max}: nunca se rindió, siguió reintentando mientras las respuestas se perdían (solo paró cuando la red dejó de perderlas). Cuenta los intentos y, con max_attempts perdidos, ríndete: el cobro queda sin confirmar."
                )
            } else if calls > max as usize {
                format!(
                    "hizo {calls} intentos con max_attempts={max}: un intento de más. Son hasta max_attempts intentos en total, contando el primero (como el `while attempts < max_attempts` de la lección 2)."
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
    // Two operations with the same content, then one with other content.
    let operations = [(1, 500), (1, 500), (2, 300)].map(|(id, dollars)| Order {
        id: OrderId(id),
        amount: Money::from_dollars(dollars),
    });
    let mut first_keys = Vec::new();
    let mut confirmed = 0;
    for order in &operations {
        let before = server.calls.len();
        let o = K::charge_order(&mut server, &mut network, &mut keys, order, 4);
        confirmed += usize::from(o.confirmed.is_some());
        if let Some(call) = server.calls.get(before) {
            first_keys.push(call.key);
        }
    }
    let distinct = first_keys.len() == 3
        && first_keys[0] != first_keys[1]
        && first_keys[0] != first_keys[2]
        && first_keys[1] != first_keys[2];
    if distinct && server.ledger().len() == 3 && confirmed == 3 {
        return Verdict::Passed;
    }
    let hint = if first_keys.len() == 3 && first_keys.iter().all(|k| *k == first_keys[0]) {
        "el cliente usó la misma key para todas las operaciones, aun para órdenes distintas: el servidor cree que todo es un reintento de la primera y solo cobra esa. Cada operación necesita su propia key, creada con keys.new_key() al empezar."
    } else if first_keys.len() == 3 && first_keys[0] == first_keys[1] {
        "las dos operaciones con el mismo contenido llevaron la misma key: una key derivada del contenido de la orden (order_id, amount) hace que el servidor confunda \"un cobro nuevo que casualmente es igual\" con \"el mismo cobro otra vez\" y no cobre el segundo (lección 2, errores comunes)."
    } else {
        "cada operación necesita su propia key, creada con keys.new_key() al empezar la operación; la respuesta llega siempre, así que cada operación termina confirmada."
    };
    Verdict::failed(
        "tres operaciones (orden 1 por $500, otra vez orden 1 por $500, orden 2 por $300) → tres keys distintas, tres filas en el ledger, tres cobros confirmados",
        format!(
            "keys de cada operación {}; {} fila(s) en el ledger; {confirmed} confirmado(s)",
            describe_keys(&first_keys),
            server.ledger().len()
        ),
        hint,
    )
}
