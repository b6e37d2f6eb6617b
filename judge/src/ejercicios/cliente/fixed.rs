//! Exercise 2's checks: the client, against lesson 2's idempotent server in
//! the harness (a real ledger and store, every call recorded); its recorded
//! calls are replayed through the judge's model server.

use protocol::Call;
use sim::{ChargeOutcome, Delivery, Fleet, IdempotencyKey, Money, Order, OrderId, Payments};

use crate::runner::{self, Execute};
use crate::spy::SpyServer;
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

/// What the implementation's client did with one order of $500 on a
/// scripted network (against the harness's lesson 2 idempotent server: the
/// operation's first call writes `ch_0001`, its retries replay it).
struct Run {
    outcome: ChargeOutcome,
    calls: Vec<Call>,
    issued: Vec<IdempotencyKey>,
    /// Attempts that went through `network.send` (the calls that reached
    /// the server another way are the difference).
    sent: u64,
}

fn run_client(h: &dyn Execute, script: Vec<Delivery>, max_attempts: u32) -> Result<Run, Verdict> {
    let mut fleet = Fleet::scripted(vec![Money::from_dollars(500)], script, max_attempts);
    fleet.key_seed = 2;
    let protocol::ClientRun {
        orders,
        attempts: sent,
    } = runner::client(h, &fleet, None)?;
    let order = orders
        .into_iter()
        .next()
        .ok_or_else(|| runner::unexpected("falta la orden"))?;
    Ok(Run {
        outcome: order.outcome,
        calls: order.calls().collect(),
        issued: order.keys_issued,
        sent,
    })
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
    let keys: Vec<_> = run.calls.iter().map(|c| c.key).collect();
    format!(
        "{} intento(s) al server con keys {}; keys creadas: {}; informó attempts={} {}",
        run.calls.len(),
        describe_keys(&keys),
        run.issued.len(),
        run.outcome.attempts,
        match run.outcome.confirmed {
            Some(r) => format!("confirmado {}", r.charge_id),
            None => "sin confirmar".to_string(),
        }
    )
}

/// Runs fixed check `id` against the implementation's client.
///
/// # Panics
/// On an unknown `id`.
pub fn run(h: &dyn Execute, id: &str) -> Result<(), Verdict> {
    match id {
        "misma-key-en-cada-reintento" => same_key(h),
        "se-detiene-en-la-primera-respuesta" => stops_at_first_response(h),
        "se-rinde-tras-max-attempts" => gives_up(h),
        "operaciones-distintas-keys-distintas" => distinct_operations(h),
        other => panic!("unknown client check {other}"),
    }
}

/// One operation, its attempts' responses and `max_attempts`: the client
/// must create one key and send it on every attempt.
fn same_key(h: &dyn Execute) -> Result<(), Verdict> {
    let scripts: [(Vec<Delivery>, u32, &str); 2] = [
        (
            vec![LOST, LOST, DELIVERED],
            4,
            "respuestas perdida, perdida, entregada (max_attempts=4) → los 3 intentos con la misma key, la única creada con keys.new_key()",
        ),
        (
            vec![LOST, LOST, LOST, LOST, LOST, DELIVERED],
            8,
            "5 respuestas perdidas y la 6.ª entregada (max_attempts=8) → los 6 intentos con la misma key, la única creada con keys.new_key()",
        ),
    ];
    for (script, max, expected) in scripts {
        let attempts = script.len();
        let r = run_client(h, script, max)?;
        let keys: Vec<_> = r.calls.iter().map(|c| c.key).collect();
        let ok =
            keys.len() >= attempts && r.issued.len() == 1 && keys.iter().all(|k| *k == r.issued[0]);
        if !ok {
            return Err(Verdict::failed(
                expected,
                describe(&r),
                around_the_network(&r).unwrap_or_else(|| key_hint(&keys, &r.issued, attempts)),
            ));
        }
    }
    Ok(())
}

/// Names the key mistake from the keys the attempts carried and the keys
/// the client created.
fn key_hint(keys: &[sim::IdempotencyKey], issued: &[sim::IdempotencyKey], needed: usize) -> String {
    let all_distinct = keys.iter().enumerate().all(|(i, k)| !keys[..i].contains(k));
    let from_source = keys.iter().all(|k| issued.contains(k));
    if keys.len() < needed {
        return format!(
            "el cliente hizo {} intento(s) y la respuesta llegaba en el intento {needed}: con una respuesta perdida no sabes si el cobro ocurrió, así que reintenta (hasta max_attempts) con la misma key.",
            keys.len()
        );
    }
    if !from_source {
        return "la key enviada no salió de keys.new_key(): una key fija, o derivada del contenido de la orden (order_id, amount), se repite entre operaciones distintas. Pide una key nueva con keys.new_key() al empezar cada operación.".to_string();
    }
    if all_distinct {
        let charged = 500 * keys.len();
        return format!(
            "cada reintento llevó una key nueva: el servidor ve operaciones distintas y cobra cada una (${charged} en vez de $500, lección 3). Crea la key una vez, antes del primer intento, y reenvíala idéntica."
        );
    }
    if keys.iter().all(|k| *k == keys[0]) {
        return format!(
            "todos los intentos llevaron la misma key (bien), pero el cliente creó {} keys con keys.new_key() y usó solo una: llama a keys.new_key() exactamente una vez por operación, antes del primer intento (cada key creada es una operación para el servidor; las que sobran no deben existir).",
            issued.len()
        );
    }
    let changes_at = (1..keys.len())
        .find(|&i| keys[i] != keys[i - 1])
        .unwrap_or(1);
    let rest_same = keys[changes_at..].iter().all(|k| *k == keys[changes_at]);
    if changes_at == 1 && rest_same {
        return format!(
            "el primer intento llevó una key y los {} reintentos otra: la key se creó después del primer intento. El servidor ve dos operaciones y cobra dos veces ($1000 en vez de $500). Crea la key con keys.new_key() antes del primer intento y envía esa misma en todos.",
            keys.len() - 1
        );
    }
    format!(
        "los intentos 1 a {changes_at} llevaron la misma key, y el intento {} llevó otra: el servidor ve una operación nueva y la cobra otra vez. La key se crea una sola vez por operación, antes del primer intento, y se reenvía idéntica en todos los reintentos, sean cuantos sean.",
        changes_at + 1
    )
}

fn stops_at_first_response(h: &dyn Execute) -> Result<(), Verdict> {
    for (script, n) in [(vec![DELIVERED], 1u32), (vec![LOST, DELIVERED], 2)] {
        let r = run_client(h, script, 4)?;
        // What the harness's lesson 2 server (idempotent) answered the last
        // call: the result that arrived.
        let mut server = SpyServer::new(true);
        let last_charge = r
            .calls
            .iter()
            .map(|c| server.charge(c.key, c.order_id, c.amount).charge_id)
            .last();
        let ok = r.calls.len() == n as usize
            && r.outcome.attempts == n
            && r.outcome.confirmed.is_some()
            && r.outcome.confirmed.map(|c| c.charge_id) == last_charge;
        if !ok {
            return Err(Verdict::failed(
                format!(
                    "la respuesta del intento {n} llega → {n} intento(s), attempts={n}, confirmado con el resultado que llegó"
                ),
                describe(&r),
                stop_hint(&r, n, last_charge),
            ));
        }
    }
    Ok(())
}

/// When some calls reached the server without `network.send` (the network
/// counts fewer attempts than the server got calls), that is what differs,
/// whatever else does.
fn around_the_network(r: &Run) -> Option<String> {
    let calls = r.calls.len() as u64;
    (r.sent < calls).then(|| format!(
        "{} de las {calls} llamadas a charge no pasaron por network.send: tu cliente llamó al servidor directamente. Cada intento va por la red (network.send(server, key, order.id, order.amount)), que es donde la respuesta puede perderse.",
        calls - r.sent
    ))
}

/// What differs when a client does not stop at the first response that
/// arrives (the `n`-th): the step the observation shows, not a guess.
fn stop_hint(r: &Run, n: u32, last_charge: Option<sim::ChargeId>) -> String {
    if let Some(hint) = around_the_network(r) {
        return hint;
    }
    let calls = r.calls.len() as u64;
    if calls > u64::from(n) {
        return format!(
            "la respuesta del intento {n} llegó y tu cliente envió {calls} intento(s): reintentar después de una respuesta entregada es enviar un cobro que nadie pidió; devuelve en cuanto network.send dé Some(resultado)."
        );
    }
    if calls < u64::from(n) {
        return format!(
            "tu cliente envió {calls} intento(s) y se detuvo, pero la respuesta del intento {calls} se perdió (network.send dio None): con max_attempts=4 se reintenta con la misma key hasta que una respuesta llegue."
        );
    }
    if r.outcome.attempts != n {
        return format!(
            "envió {n} intento(s) pero informó attempts={}: attempts cuenta las veces que llamaste a network.send.",
            r.outcome.attempts
        );
    }
    match r.outcome.confirmed {
        None => format!(
            "la respuesta del intento {n} llegó y tu cliente informó el cobro sin confirmar: devuelve confirmed: Some(resultado) con lo que dio network.send."
        ),
        Some(c) => format!(
            "tu cliente confirmó {} y la respuesta que llegó fue {}: devuelve el resultado tal como lo dio network.send, sin armarlo ni buscarlo en otro lado.",
            c.charge_id,
            last_charge.map_or_else(|| "ninguna".to_string(), |id| id.to_string())
        ),
    }
}

/// The limits `gives_up` tries, in order: the lesson's 4, the edges 1 and
/// 2, and limits past any small fixed cap.
const GIVE_UP_LIMITS: [u32; 5] = [4, 1, 2, 10, 25];

fn gives_up(h: &dyn Execute) -> Result<(), Verdict> {
    // 1000 lost responses: a client that never gives up stops only after them.
    let mut runs: Vec<(u32, Run)> = Vec::new();
    for max in GIVE_UP_LIMITS {
        runs.push((max, run_client(h, vec![LOST; 1000], max)?));
    }
    for (max, r) in &runs {
        let max = *max;
        let ok = r.calls.len() == max as usize
            && r.outcome.attempts == max
            && r.outcome.confirmed.is_none();
        if ok {
            continue;
        }
        let calls = r.calls.len();
        // "1 intento", "2 intentos".
        let intentos = if calls == 1 { "intento" } else { "intentos" };
        // Another, larger limit that stopped at the same count: a fixed cap.
        let capped = runs
            .iter()
            .find(|(m, other)| *m > max && other.calls.len() == calls)
            .map(|(m, _)| *m);
        let hint = if calls > max as usize + 1 {
            format!(
                "hizo {calls} {intentos} con max_attempts={max}: nunca se rindió, siguió reintentando mientras las respuestas se perdían (solo paró cuando la red dejó de perderlas). Cuenta los intentos y, con max_attempts perdidos, ríndete: el cobro queda sin confirmar."
            )
        } else if calls > max as usize {
            format!(
                "hizo {calls} {intentos} con max_attempts={max}: un intento de más. Son hasta max_attempts intentos en total, contando el primero (como el `while attempts < max_attempts` de la lección 2)."
            )
        } else if r.outcome.confirmed.is_some() {
            format!(
                "se perdieron todas las respuestas y tu cliente informó un cobro confirmado ({calls} intento(s) con max_attempts={max}): sin una respuesta, orders no sabe si el cobro ocurrió. Esa información vive en el ledger de payments, que orders no ve (en producción no hay server.ledger() del otro lado de la red): no lo leas para \"recuperar\" la respuesta. Reintenta hasta max_attempts y, si todas se pierden, ríndete con confirmed: None."
            )
        } else if let (true, Some(larger)) = (calls < max as usize, capped) {
            format!(
                "hizo {calls} {intentos} con max_attempts={max}, y también {calls} con max_attempts={larger}: se rindió antes de tiempo, en un tope fijo de {calls} {intentos} que no es max_attempts. El límite es el max_attempts que recibes, sea cual sea, contando el primero."
            )
        } else if calls < max as usize {
            format!(
                "hizo {calls} {intentos} con max_attempts={max}: se rindió antes de tiempo. Son hasta max_attempts intentos en total, contando el primero."
            )
        } else {
            "al agotar los intentos, informa attempts == max_attempts y confirmed: None (el cobro queda sin confirmar, sin pánico).".to_string()
        };
        return Err(Verdict::failed(
            format!(
                "todas las respuestas se pierden, max_attempts={max} → {max} intento(s), attempts={max}, sin confirmar"
            ),
            describe(r),
            around_the_network(r).unwrap_or(hint),
        ));
    }
    Ok(())
}

fn distinct_operations(h: &dyn Execute) -> Result<(), Verdict> {
    // Two operations with the same content, then one with other content,
    // on a network that delivers every response.
    let operations = [(1, 500), (1, 500), (2, 300)].map(|(id, dollars)| Order {
        id: OrderId(id),
        amount: Money::from_dollars(dollars),
    });
    let mut fleet = Fleet::scripted(Vec::new(), Vec::new(), 4);
    fleet.key_seed = 3;
    let runs = runner::client(h, &fleet, Some(operations.to_vec()))?.orders;
    // The recorded calls through lesson 2's idempotent server.
    let mut server = SpyServer::new(true);
    for c in runs.iter().flat_map(|r| r.calls()) {
        server.charge(c.key, c.order_id, c.amount);
    }
    let first_keys: Vec<IdempotencyKey> = runs
        .iter()
        .filter_map(|r| r.sent.first().map(|s| s.call.key))
        .collect();
    let confirmed = runs
        .iter()
        .filter(|r| r.outcome.confirmed.is_some())
        .count();
    let distinct = first_keys.len() == 3
        && first_keys[0] != first_keys[1]
        && first_keys[0] != first_keys[2]
        && first_keys[1] != first_keys[2];
    if distinct && server.ledger().len() == 3 && confirmed == 3 {
        return Ok(());
    }
    let silent = runs.iter().position(|r| r.sent.is_empty());
    let hint = if let Some(i) = silent {
        format!(
            "la operación {} no envió ningún intento y se dio por cobrada: dos órdenes idénticas son dos operaciones, y cada una se cobra aunque el ledger ya tenga una fila de la misma orden por el mismo monto. orders no ve el ledger de payments; deduplicar por contenido es el error de la lección 2 (errores comunes). Cada operación lleva su key de keys.new_key() y se envía.",
            i + 1
        )
    } else if first_keys.len() == 3 && first_keys.iter().all(|k| *k == first_keys[0]) {
        "el cliente usó la misma key para todas las operaciones, aun para órdenes distintas: el servidor cree que todo es un reintento de la primera y solo cobra esa. Cada operación necesita su propia key, creada con keys.new_key() al empezar.".to_string()
    } else if first_keys.len() == 3 && first_keys[0] == first_keys[1] {
        "las dos operaciones con el mismo contenido llevaron la misma key: una key derivada del contenido de la orden (order_id, amount) hace que el servidor confunda \"un cobro nuevo que casualmente es igual\" con \"el mismo cobro otra vez\" y no cobre el segundo (lección 2, errores comunes).".to_string()
    } else {
        "cada operación necesita su propia key, creada con keys.new_key() al empezar la operación; la respuesta llega siempre, así que cada operación termina confirmada.".to_string()
    };
    Err(Verdict::failed(
        "tres operaciones (orden 1 por $500, otra vez orden 1 por $500, orden 2 por $300) → tres keys distintas, tres filas en el ledger, tres cobros confirmados",
        format!(
            "keys de cada operación {}; {} fila(s) en el ledger; {confirmed} confirmado(s)",
            describe_keys(&first_keys),
            server.ledger().len()
        ),
        hint,
    ))
}
