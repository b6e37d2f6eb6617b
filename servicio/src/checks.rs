//! The checks of the contract (lecciones 2 y 4), each with an id, points,
//! expected and got, and a hint in the lesson's words. The concurrent ones
//! hold the first charge open at the processor until the other requests
//! have arrived: a service that looks up, charges and then stores fails
//! every run, not by chance.

use std::time::{Duration, Instant};

use sim::Money;

use judge::verdict::Verdict;

use crate::client::{Answer, Client};
use crate::processor::{Charge, Processor};
use crate::timeline::{Lane, Timeline};

/// A check of the contract.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckSpec {
    /// Its id (`reintentos-concurrentes`), for `--verificacion`.
    pub id: &'static str,
    /// What it checks, one Spanish line.
    pub title: &'static str,
    /// Points it is worth.
    pub points: u32,
}

/// Every check, in the order they run and are reported (100 points).
pub const CHECKS: [CheckSpec; 9] = [
    CheckSpec {
        id: "flota-sin-key",
        title: "La flota sin key: cada intento es un cargo (el «antes» de la lección)",
        points: 10,
    },
    CheckSpec {
        id: "flota-con-key",
        title: "La flota con una key por operación: un cargo por orden, $0 de sobrecobro",
        points: 20,
    },
    CheckSpec {
        id: "un-comprador",
        title: "Un comprador, la respuesta se pierde: $1,000 sin key, $500 con key",
        points: 10,
    },
    CheckSpec {
        id: "reintento-mismo-cargo",
        title: "Un reintento con la misma key devuelve el mismo charge_id y no cobra; otra key, otro cargo",
        points: 10,
    },
    CheckSpec {
        id: "otra-solicitud-422",
        title: "La misma key con otro monto: 422 y ningún cargo (en curso o terminada)",
        points: 10,
    },
    CheckSpec {
        id: "reintentos-concurrentes",
        title: "Tres reintentos a la vez con la misma key: un solo cargo",
        points: 15,
    },
    CheckSpec {
        id: "dos-instancias",
        title: "Dos instancias sobre el mismo DATA_DIR: un solo cargo por key",
        points: 10,
    },
    CheckSpec {
        id: "reinicio",
        title: "Reinicio tras una respuesta perdida (SIGKILL): el reintento devuelve el mismo charge_id",
        points: 10,
    },
    CheckSpec {
        id: "cliente-que-abandona",
        title: "Un cliente que abandona mientras el cobro está en curso y reintenta: 0 o 1 cargo",
        points: 5,
    },
];

/// The spec of check `id`.
pub fn spec(id: &str) -> Option<&'static CheckSpec> {
    CHECKS.iter().find(|c| c.id == id)
}

/// How long the other requests of a concurrent check get, while the first
/// charge is held, to answer or to reach the processor, before the hold is
/// released (a service that makes them wait for the first is right too,
/// and waits this long). Generous: a racy service on a loaded machine must
/// still have looked its key up before the first charge is released.
pub const GRACE: Duration = Duration::from_secs(5);

/// Hints, in the lesson's words.
pub mod hints {
    /// No key must be a plain charge.
    pub const NO_KEY: &str = "sin Idempotency-Key, cada POST /charges es un cobro nuevo (el mundo sin idempotencia de la lección 2): no dedupliques por order_id ni por monto; la «misma operación» la define la key del cliente, no el contenido";
    /// Another key.
    pub const OTHER_KEY: &str = "otra key es otra operación: cobra otra vez aunque la orden y el monto sean los mismos (el cliente crea una key por operación, lección 3); no dedupliques por order_id ni por monto: la «misma operación» la define la key del cliente, no el contenido";
    /// The stored result.
    pub const STORE: &str = "guarda el resultado por key (el cuaderno del cajero) y, si la key ya está, devuélvelo sin llamar al procesador: una orden deja un solo cargo, por más reintentos que tenga (en la flota de la lección, 1,184 intentos dejan 1,000 cargos)";
    /// The atomic claim.
    pub const ATOMIC: &str = "buscar la key, cobrar y después guardar deja una ventana: dos reintentos a la vez la buscan antes de que ninguno la guarde y cobran los dos (lección 4). Reclama la key de forma atómica ANTES de llamar al procesador (INSERT … ON CONFLICT DO NOTHING, o BEGIN IMMEDIATE) y responde 409 al que llega mientras está en curso";
    /// Two processes.
    pub const SHARED: &str = "la otra instancia cobró la misma key mientras la primera la tenía en curso: lo que reclama un proceso, el otro no lo ve (un lock o un diccionario dentro de un proceso no alcanza). El store y su reclamo atómico tienen que vivir en la base de datos de DATA_DIR (SQLite con WAL y busy_timeout), compartida por las dos instancias";
    /// Another body.
    pub const OTHER_BODY: &str = "guarda con la key lo que pidió la primera request (order_id y amount_cents, o su hash) y, si un reintento trae otro cuerpo, responde 422 sin cobrar (como el ejercicio 4 y el borrador de la IETF)";
    /// No charge reached the processor where one was due.
    pub const NO_CHARGE: &str = "el procesador no recibió ningún cobro: una key que tu servicio no ha visto es una operación nueva, que se cobra con POST $PROCESSOR_URL/charges antes de responder 200 o 201 con el charge_id que devuelve";
    /// Durable, without a second charge: the retry after the restart
    /// did not get the stored result.
    pub const DURABLE_RESULT: &str = "tras el reinicio, el reintento no cobró otra vez, pero tampoco devolvió el charge_id de su cobro: guarda en DATA_DIR el resultado completo de la key (el charge_id) y confírmalo antes de responder; el reintento de una key terminada lo devuelve, con 200";
    /// Durable.
    pub const DURABLE: &str = "lo que tu servicio guardó de la key no sobrevivió al SIGKILL: tras el reinicio, el mismo reintento cobró otra vez. Guárdalo en DATA_DIR (una base de datos en disco, no un diccionario en memoria) y confirma la transacción antes de responder";
    /// A new key.
    pub const NEW_KEY: &str = "una key que tu servicio no ha visto es una operación nueva: reclámala y cobra en el procesador (PROCESSOR_URL), aunque el cliente corte la conexión después; 409 es solo para la key que sigue en curso";
    /// Starting.
    pub const START: &str = "el servicio arranca con el comando de servicio.toml, escucha en 127.0.0.1:$PORT y responde 200 en GET /health dentro de --espera";
    /// Answering.
    pub const ANSWER: &str = "cada request termina con una respuesta HTTP: dentro del límite por petición (--limite-peticion), con un cuerpo JSON pequeño (de a lo más 1 MiB) y sin cerrar la conexión antes de responder";
    /// An HTTP answer the contract does not allow where a charge was due
    /// (a 5xx in the fleet, a success without the contract's body).
    pub const CONTRACT: &str = "cada POST /charges que cobra responde 200 o 201 con {\"charge_id\", \"order_id\", \"amount_cents\"} (el charge_id que dio el procesador); un 5xx o un cuerpo distinto no confirma nada y deja la orden sin confirmar. Arriba, lo que vino en lugar de eso";
    /// Indefinite.
    pub const GIVE_UP: &str = "un cliente que corta la conexión no deshace el cobro: el reintento con la misma key tiene que encontrar la key reclamada (409 mientras sigue en curso, o el resultado guardado), nunca cobrar otra vez";

    /// A harder check failed where a plain retry (`reintento-mismo-cargo`)
    /// already charged again: its own hint (a race, two processes, a
    /// restart) would name a cause not observed.
    pub const PLAIN_RETRY_FIRST: &str = "un reintento solo, con la misma key y el mismo cuerpo y nada más a la vez, ya cobra otra vez (ver reintento-mismo-cargo): tu servicio todavía no devuelve el resultado guardado de una key. Esta verificación pone ese reintento en un caso más difícil; arregla primero reintento-mismo-cargo";

    /// `dos-instancias` failed where one process alone already charged
    /// twice (`reintentos-concurrentes`, the race): [`SHARED`]'s lock
    /// inside one process is not what was observed.
    pub const RACE_FIRST: &str = "en un solo proceso ya cobra dos veces (ver reintentos-concurrentes): la ventana entre buscar la key y guardarla. Arregla eso primero; esta verificación pide además que el reclamo atómico viva en la base de datos de DATA_DIR, compartida por las dos instancias";

    /// A success that names a charge the processor never made for that
    /// order in this run: observed, whatever else the check saw.
    pub fn unknown_charge(order_id: &str, charge_id: &str) -> String {
        format!(
            "tu servicio respondió {charge_id} a {order_id}, pero el procesador de esta corrida nunca hizo ese cargo para esa orden: el resultado salió de algo guardado antes de esta verificación (una base de datos fuera de DATA_DIR, en una ruta fija, sobrevive de una corrida a otra) o el servicio lo inventó. Guarda el store solo en DATA_DIR (el kit te da uno vacío en cada verificación) y responde el charge_id que devolvió POST $PROCESSOR_URL/charges"
        )
    }
}

/// `v` with the hint [`hints::unknown_charge`] when it failed and one of
/// `answered` (`(order_id, charge_id)`, what the service answered during
/// the check) names a charge that `ledger` (the processor's record of the
/// same run) does not have for that order; `v` unchanged otherwise.
pub fn unknown_charge(v: Verdict, answered: &[(String, String)], ledger: &[Charge]) -> Verdict {
    let unknown = answered.iter().find(|(order, id)| {
        !ledger
            .iter()
            .any(|c| &c.order_id == order && &c.charge_id == id)
    });
    match unknown {
        Some((order, id)) => with_hint(v, hints::unknown_charge(order, id)),
        None => v,
    }
}

/// `v` with the hint of the first request that broke the contract during
/// the check (`broken`: no answer, a 5xx, a bad body), when it failed:
/// what the service answered comes before what it did with the key.
pub fn broken_answer(v: Verdict, broken: &[&'static str]) -> Verdict {
    match broken.first() {
        Some(hint) => with_hint(v, (*hint).to_string()),
        None => v,
    }
}

/// `v` with `hint` when it failed; unchanged otherwise.
fn with_hint(v: Verdict, hint: String) -> Verdict {
    match v {
        Verdict::Failed {
            expected,
            got,
            steps,
            owner,
            ..
        } => Verdict::Failed {
            expected,
            got,
            hint,
            steps,
            owner,
        },
        v => v,
    }
}

/// What a check needs: the processor, a client (or two) and the timeline.
pub struct Ctx<'a> {
    /// The processor of this phase.
    pub processor: &'a Processor,
    /// The timeline.
    pub timeline: &'a Timeline,
    /// The end of the whole run (`--limite-corrida`): no wait of a check
    /// goes past it.
    pub deadline: Instant,
    /// How long a check waits for the service's charge to reach the
    /// processor: as long as one request may take (`--limite-peticion`,
    /// 10 s by default).
    pub wait_for_charge: Duration,
}

impl Ctx<'_> {
    /// The instant `limit` from now, or the run's end if it comes first.
    fn until(&self, limit: Duration) -> Instant {
        (Instant::now() + limit).min(self.deadline)
    }
}

fn failed(expected: String, got: String, hint: &str, steps: Vec<String>) -> Verdict {
    Verdict::failed(expected, got, hint).with_steps(steps)
}

/// The first charge of a concurrent case never reached the processor
/// within [`Ctx::wait_for_charge`]: what the service answered instead.
fn never_arrived(ctx: &Ctx, wait: Wait, order: &str, first: &Result<Answer, String>) -> Verdict {
    failed(
        "el primer cobro llega al procesador".to_string(),
        format!("{}; {}", wait.no_charge(ctx), received(first)),
        hints::STORE,
        ctx.timeline.steps(order),
    )
}

/// One answer as the timeline and the verdicts show it: its status and
/// body, or why there was none.
pub(crate) fn answer_line(r: &Result<Answer, String>) -> String {
    match r {
        Ok(a) => a.describe(),
        Err(e) => format!("sin respuesta ({e})"),
    }
}

/// One answer as a client's lane of the timeline shows it: what it received,
/// or why it received nothing.
pub(crate) fn received(r: &Result<Answer, String>) -> String {
    match r {
        Ok(a) => format!("recibió {}", a.describe()),
        Err(e) => format!("sin respuesta ({e})"),
    }
}

/// An answer the network loses on its way back (lección 2): what the
/// client received before dropping it.
pub(crate) fn dropped(r: &Result<Answer, String>) -> String {
    match r {
        Ok(a) => format!("recibió {} y la descarta (respuesta perdida)", a.describe()),
        Err(e) => format!("sin respuesta ({e})"),
    }
}

/// Puts `r` on the timeline as the answer `lane` received for `order`.
pub(crate) fn record(timeline: &Timeline, lane: u32, order: &str, r: &Result<Answer, String>) {
    timeline.push(Lane::Orders(lane), order, "respuesta", received(r));
}

fn money_list(processor: &Processor, order: &str) -> (usize, Money) {
    let charges = processor.charges_for(order);
    let total = charges
        .iter()
        .map(|c| Money::from_cents(c.amount_cents))
        .sum();
    (charges.len(), total)
}

/// `un-comprador`: Ana's $500, the first answer lost, one retry; without a
/// key and with one (lección 2, escenario A).
pub fn one_buyer(ctx: &Ctx, client: &Client) -> Verdict {
    let amount = Money::from_dollars(500);
    let (plain, keyed) = ("ord_9001", "ord_9002");
    let key = "idem_un_comprador_9002";
    let mut answers = Vec::new();
    for (order, k) in [(plain, None), (keyed, Some(key))] {
        for attempt in 0..2 {
            let r = client.charge(1, order, amount, k);
            ctx.timeline.push(
                Lane::Orders(1),
                order,
                if attempt == 0 { "perdida" } else { "respuesta" },
                if attempt == 0 {
                    dropped(&r)
                } else {
                    received(&r)
                },
            );
            answers.push(r);
        }
    }
    let (n_plain, m_plain) = money_list(ctx.processor, plain);
    let (n_keyed, m_keyed) = money_list(ctx.processor, keyed);
    let got =
        format!("sin key: {n_plain} cargo(s), {m_plain}; con key: {n_keyed} cargo(s), {m_keyed}");
    let expected = "sin key: 2 cargos, $1,000; con key: 1 cargo, $500".to_string();
    if n_plain == 2 && m_plain == Money::from_dollars(1000) && n_keyed == 1 && m_keyed == amount {
        return Verdict::Passed;
    }
    let (hint, order) = if n_plain != 2 {
        (hints::NO_KEY, plain)
    } else {
        (hints::STORE, keyed)
    };
    failed(expected, got, hint, ctx.timeline.steps(order))
}

/// The order of `reintento-mismo-cargo`'s plain retry.
pub const PLAIN_RETRY_ORDER: &str = "ord_9101";

/// `reintento-mismo-cargo`: a delivered retry with the same key names the
/// same charge, with the contract's body, and charges nothing more; then
/// the same order and amount under a new key is a new operation (lección
/// 3: the key, not the content, says what is the same): a second charge.
pub fn retry_same_charge(ctx: &Ctx, client: &Client) -> Verdict {
    let (order, key, amount) = (
        PLAIN_RETRY_ORDER,
        "idem_reintento_9101",
        Money::from_dollars(250),
    );
    let first = client.charge(1, order, amount, Some(key));
    record(ctx.timeline, 1, order, &first);
    let second = client.charge(1, order, amount, Some(key));
    record(ctx.timeline, 1, order, &second);
    let charges = ctx.processor.charges_for(order);
    let ids: Vec<String> = charges.iter().map(|c| c.charge_id.clone()).collect();
    let expected = "las dos respuestas 200/201 con el charge_id que dio el procesador, order_id ord_9101, amount_cents 25000; 1 cargo en el procesador".to_string();
    let got = format!(
        "primera: {}; reintento: {}; cargos en el procesador: {}",
        answer_line(&first),
        answer_line(&second),
        if ids.is_empty() {
            "ninguno".to_string()
        } else {
            ids.join(", ")
        }
    );
    let good = |r: &Result<Answer, String>| {
        r.as_ref()
            .ok()
            .and_then(|a| a.charge.clone())
            .is_some_and(|c| {
                charges.len() == 1
                    && c.charge_id == charges[0].charge_id
                    && c.order_id == order
                    && c.amount_cents == amount.cents()
            })
    };
    if !(good(&first) && good(&second)) {
        return failed(expected, got, hints::STORE, ctx.timeline.steps(order));
    }
    // Another key: another operation, another charge.
    let other_key = "idem_reintento_9101_otra";
    let third = client.charge(1, order, amount, Some(other_key));
    record(ctx.timeline, 1, order, &third);
    let after = ctx.processor.charges_for(order);
    let new_charge = third
        .as_ref()
        .ok()
        .and_then(|a| a.charge.as_ref())
        .is_some_and(|c| {
            after.len() == 2 && c.charge_id == after[1].charge_id && c.charge_id != ids[0]
        });
    if new_charge {
        return Verdict::Passed;
    }
    failed(
        format!(
            "la misma orden y el mismo monto con otra key ({other_key}): otra operación, un cargo nuevo con su propio charge_id; 2 cargos en el procesador"
        ),
        format!(
            "con otra key: {}; cargos en el procesador: {}",
            answer_line(&third),
            after
                .iter()
                .map(|c| c.charge_id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        hints::OTHER_KEY,
        ctx.timeline.steps(order),
    )
}

/// `otra-solicitud-422`: the same key with another amount, once the first
/// is done and while the first is held: 422, no charge.
pub fn other_body(ctx: &Ctx, client: &Client) -> Verdict {
    // Done.
    let (order, key) = ("ord_9201", "idem_otro_cuerpo_9201");
    let first = client.charge(1, order, Money::from_dollars(100), Some(key));
    record(ctx.timeline, 1, order, &first);
    let other = client.charge(1, order, Money::from_dollars(200), Some(key));
    record(ctx.timeline, 1, order, &other);
    let (n, _) = money_list(ctx.processor, order);
    let done_ok = first.as_ref().is_ok_and(Answer::ok)
        && other.as_ref().is_ok_and(|a| a.status == 422)
        && n == 1;
    if !done_ok {
        return failed(
            "la primera 200/201; la misma key con $200 en vez de $100: 422; 1 cargo".to_string(),
            format!(
                "primera: {}; con otro monto: {}; cargos en el procesador: {n}",
                answer_line(&first),
                answer_line(&other)
            ),
            hints::OTHER_BODY,
            ctx.timeline.steps(order),
        );
    }
    // In flight.
    let (order, key) = ("ord_9202", "idem_otro_cuerpo_9202");
    ctx.processor.hold(order);
    let (first, other, arrived) = std::thread::scope(|s| {
        let a = s.spawn(|| client.charge(1, order, Money::from_dollars(100), Some(key)));
        let wait = held_unless(ctx, || a.is_finished());
        if wait != Wait::Held {
            ctx.processor.release();
            return (
                a.join().unwrap_or_else(|_| Err("pánico".into())),
                None,
                wait,
            );
        }
        let b = s.spawn(|| client.charge(2, order, Money::from_dollars(200), Some(key)));
        let until = ctx.until(GRACE);
        while !b.is_finished()
            && ctx.processor.charges_for(order).len() < 2
            && Instant::now() < until
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        ctx.processor.release();
        let other = b.join().unwrap_or_else(|_| Err("pánico".into()));
        record(ctx.timeline, 2, order, &other);
        let first = a.join().unwrap_or_else(|_| Err("pánico".into()));
        record(ctx.timeline, 1, order, &first);
        (first, Some(other), Wait::Held)
    });
    let (n, _) = money_list(ctx.processor, order);
    if arrived != Wait::Held {
        return never_arrived(ctx, arrived, order, &first);
    }
    let other = other.unwrap_or_else(|| Err(String::new()));
    let in_flight_ok = other
        .as_ref()
        .is_ok_and(|a| a.status == 422 || a.status == 409)
        && n == 1;
    if in_flight_ok {
        return Verdict::Passed;
    }
    failed(
        "mientras la primera sigue en curso, la misma key con otro monto: 422 (o 409) y ningún cargo; 1 cargo".to_string(),
        format!(
            "con otro monto: {}; primera: {}; cargos en el procesador: {n}",
            answer_line(&other),
            answer_line(&first)
        ),
        // A second charge while the first was held proves the key was not
        // claimed before the processor was called.
        if n >= 2 {
            hints::ATOMIC
        } else {
            hints::OTHER_BODY
        },
        ctx.timeline.steps(order),
    )
}

/// The concurrent scenario: the first request (to `clients[0]`) is held at
/// the processor; then one request to each other client, at once, with the
/// same key and body; released when they all answered, a second charge
/// arrived or [`GRACE`] passed. Then one more retry, alone. One charge, and
/// every success names it.
pub fn concurrent(
    ctx: &Ctx,
    clients: &[&Client],
    order: &str,
    key: &str,
    hint: &'static str,
) -> Verdict {
    let amount = Money::from_dollars(300);
    ctx.processor.hold(order);
    let mut answers: Vec<(u32, Result<Answer, String>)> = Vec::new();
    let arrived = std::thread::scope(|s| {
        let first = s.spawn(|| clients[0].charge(1, order, amount, Some(key)));
        // An answer before any charge: the service did not call the
        // processor, and waiting longer shows nothing more.
        let wait = held_unless(ctx, || first.is_finished());
        if wait != Wait::Held {
            ctx.processor.release();
            answers.push((1, first.join().unwrap_or_else(|_| Err("pánico".into()))));
            return wait;
        }
        let others: Vec<_> = clients[1..]
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let lane = i as u32 + 2;
                (
                    lane,
                    s.spawn(move || c.charge(lane, order, amount, Some(key))),
                )
            })
            .collect();
        let until = ctx.until(GRACE);
        while !others.iter().all(|(_, h)| h.is_finished())
            && ctx.processor.charges_for(order).len() < 2
            && Instant::now() < until
        {
            std::thread::sleep(Duration::from_millis(5));
        }
        ctx.timeline
            .push(Lane::Kit, order, "nota", "suelta el cobro retenido");
        ctx.processor.release();
        for (lane, h) in others {
            let r = h.join().unwrap_or_else(|_| Err("pánico".into()));
            record(ctx.timeline, lane, order, &r);
            answers.push((lane, r));
        }
        let r = first.join().unwrap_or_else(|_| Err("pánico".into()));
        record(ctx.timeline, 1, order, &r);
        answers.insert(0, (1, r));
        Wait::Held
    });
    let charges = ctx.processor.charges_for(order);
    if arrived != Wait::Held {
        return never_arrived(ctx, arrived, order, &answers[0].1);
    }
    // One more retry, alone, after everything (the stored result).
    let last_lane = clients.len() as u32 + 1;
    let last = clients[clients.len() - 1].charge(last_lane, order, amount, Some(key));
    record(ctx.timeline, last_lane, order, &last);
    let charges_after = ctx.processor.charges_for(order);
    let id = charges
        .first()
        .map(|c| c.charge_id.clone())
        .unwrap_or_default();
    let names_it = |r: &Result<Answer, String>, allow_409: bool| match r {
        Ok(a) => match &a.charge {
            Some(c) => c.charge_id == id,
            None => allow_409 && a.status == 409,
        },
        Err(_) => false,
    };
    let ok = charges_after.len() == 1
        && names_it(&answers[0].1, false)
        && answers[1..].iter().all(|(_, r)| names_it(r, true))
        && names_it(&last, false);
    if ok {
        return Verdict::Passed;
    }
    let got = format!(
        "{} cargo(s) en el procesador ({}); respuestas: {}; reintento final: {}",
        charges_after.len(),
        charges_after
            .iter()
            .map(|c| c.charge_id.as_str())
            .collect::<Vec<_>>()
            .join(", "),
        answers
            .iter()
            .map(|(lane, r)| format!("orders#{lane} {}", answer_line(r)))
            .collect::<Vec<_>>()
            .join(", "),
        answer_line(&last)
    );
    failed(
        "1 cargo; la primera y el reintento final con su charge_id; las concurrentes 409 o ese mismo charge_id".to_string(),
        got,
        if charges_after.len() >= 2 { hint } else { hints::STORE },
        ctx.timeline.steps(order),
    )
}

/// `cliente-que-abandona`: the client sends, the charge is held, the client
/// closes the connection, the hold is released, the client retries the
/// same key (while 409, up to 2 s). Indefinite: 0 or 1 charge is right,
/// 2 is wrong.
pub fn gives_up(ctx: &Ctx, client: &Client) -> Verdict {
    let (order, key, amount) = ("ord_9401", "idem_abandona_9401", Money::from_dollars(120));
    ctx.processor.hold(order);
    let sent = send_and_abandon(client.base(), order, amount, key);
    ctx.timeline.push(
        Lane::Orders(1),
        order,
        "envio",
        format!("POST /charges {order} {amount} Idempotency-Key: {key}"),
    );
    let stream = match sent {
        Ok(stream) => stream,
        Err(e) => {
            ctx.processor.release();
            return Verdict::failed(
                "el servicio acepta la request",
                format!("no se pudo enviar la request: {e}"),
                hints::ANSWER,
            );
        }
    };
    // An answer (or a close) before any charge: the service did not call
    // the processor, and waiting longer shows nothing more.
    let held = held_unless(ctx, || answered_already(&stream));
    drop(stream);
    ctx.timeline.push(
        Lane::Orders(1),
        order,
        "perdida",
        "se rinde: cierra la conexión sin esperar la respuesta",
    );
    std::thread::sleep(Duration::from_millis(100));
    ctx.processor.release();
    let until = ctx.until(Duration::from_secs(2));
    let last = loop {
        let last = client.charge(1, order, amount, Some(key));
        record(ctx.timeline, 1, order, &last);
        let busy = last.as_ref().is_ok_and(|a| a.status == 409);
        if !busy || Instant::now() >= until {
            break last;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    if held != Wait::Held {
        return failed(
            "el primer cobro llega al procesador (la request llegó entera antes de que el cliente se rindiera)".to_string(),
            format!("{}; el reintento: {}", held.no_charge(ctx), answer_line(&last)),
            hints::NEW_KEY,
            ctx.timeline.steps(order),
        );
    }
    let charges = ctx.processor.charges_for(order);
    // The retry is answered: 409 while the first is still in flight, or
    // the charge the processor holds (none, or one made by this retry).
    let answered = last.as_ref().is_ok_and(|a| match &a.charge {
        Some(c) => charges.iter().any(|x| x.charge_id == c.charge_id),
        None => a.status == 409,
    });
    if charges.len() <= 1 && answered {
        return Verdict::Passed;
    }
    failed(
        "0 o 1 cargo (el resultado es indefinido: pudo cobrar o no), nunca 2; el reintento responde: 409 si sigue en curso, o 200/201 con el charge_id del procesador".to_string(),
        format!(
            "{} cargo(s) en el procesador; el reintento: {}",
            charges.len(),
            answer_line(&last)
        ),
        hints::GIVE_UP,
        ctx.timeline.steps(order),
    )
}

/// How the wait for a held charge ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Wait {
    /// The charge reached the processor (and is held there).
    Held,
    /// The service answered (or closed the connection) first: it did not
    /// call the processor for that request.
    AnsweredFirst,
    /// Neither, within [`Ctx::wait_for_charge`] (or the run's end).
    TimedOut,
}

impl Wait {
    /// What the check saw instead of the charge, in Spanish.
    fn no_charge(self, ctx: &Ctx) -> String {
        match self {
            Wait::AnsweredFirst => {
                "el servicio terminó la request sin llamar al procesador".to_string()
            }
            _ => format!(
                "el servicio no llamó al procesador en {} s",
                crate::process::seconds(ctx.wait_for_charge)
            ),
        }
    }
}

/// Waits up to [`Ctx::wait_for_charge`] for the armed hold's charge to
/// reach the processor, or until `answered` says the service already
/// answered without it.
fn held_unless(ctx: &Ctx, answered: impl Fn() -> bool) -> Wait {
    let until = ctx.until(ctx.wait_for_charge);
    loop {
        let now = Instant::now();
        if ctx
            .processor
            .wait_held(Duration::from_millis(20).min(until.saturating_duration_since(now)))
        {
            return Wait::Held;
        }
        if answered() {
            return Wait::AnsweredFirst;
        }
        if Instant::now() >= until {
            return Wait::TimedOut;
        }
    }
}

/// Whether the service wrote something back (or closed) on `stream`,
/// without reading or waiting.
fn answered_already(stream: &std::net::TcpStream) -> bool {
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let seen = !matches!(
        stream.peek(&mut [0u8; 1]),
        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock
    );
    let _ = stream.set_nonblocking(false);
    seen
}

/// Writes one `POST /charges` on a raw connection and returns it, open,
/// unread: dropping it is a client that gives up.
fn send_and_abandon(
    base: &str,
    order: &str,
    amount: Money,
    key: &str,
) -> Result<std::net::TcpStream, String> {
    use std::io::Write;
    let addr = base.trim_start_matches("http://");
    let mut stream = std::net::TcpStream::connect(addr).map_err(|e| e.to_string())?;
    let body = serde_json::json!({ "order_id": order, "amount_cents": amount.cents() }).to_string();
    let request = format!(
        "POST /charges HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nIdempotency-Key: {key}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream
        .write_all(request.as_bytes())
        .map_err(|e| e.to_string())?;
    Ok(stream)
}
