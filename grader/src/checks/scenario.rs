//! Checks that run a whole fixture (or a seeded variant) through one exercise
//! and compare every figure with the oracle.

use sim::{Kit, Money, Payments, Reconciliation, Scenario, clients};

use crate::checks::reconciliation::{differences, explain};
use crate::oracle::{self, Expected, WorldFigures};
use crate::spy::SpyServer;
use crate::verdict::{Exercise, Verdict};

/// Figures measured on one world, comparable with the oracle's.
#[derive(Debug, PartialEq, Eq)]
struct Measured {
    attempts: u64,
    charges: u64,
    charged: Money,
    unconfirmed: u64,
}

impl Measured {
    fn from_oracle(w: &WorldFigures) -> Measured {
        Measured {
            attempts: w.attempts,
            charges: w.charges,
            charged: w.charged,
            unconfirmed: w.unconfirmed,
        }
    }

    fn text(&self) -> String {
        format!(
            "intentos={} cargos en el ledger={} total cobrado={} sin confirmar={}",
            sim::money::group_thousands(self.attempts),
            sim::money::group_thousands(self.charges),
            self.charged,
            self.unconfirmed
        )
    }
}

/// One line naming the scenario, for messages.
pub fn describe_scenario(s: &Scenario) -> String {
    let p = s
        .p_response_lost()
        .map_or_else(|| "guion fijo".to_string(), |p| format!("p={p}"));
    let n = s.order_count();
    let orders = if n == 1 { "orden" } else { "órdenes" };
    format!(
        "{} (N={n} {orders}, {p}, max_attempts={})",
        s.name, s.max_attempts
    )
}

/// Runs `exercise`'s whole-scenario check of `scenario` against `K`.
pub fn run<K: Kit>(exercise: Exercise, scenario: &Scenario) -> Verdict {
    let expected = oracle::expect(scenario);
    match exercise {
        Exercise::Cobro => server::<K>(scenario, &expected),
        Exercise::Cliente => client::<K>(scenario, &expected),
        Exercise::Reconciliacion => reconciliation::<K>(scenario, &expected),
    }
}

/// Charges every order with the kit's correct client (lesson 2's loop, one
/// key per operation) against `server`.
fn lesson_client<P: Payments>(scenario: &Scenario, server: &mut P) -> Measured {
    let mut network = scenario.network();
    let mut keys = scenario.keys();
    let mut unconfirmed = 0;
    for order in scenario.orders() {
        let key = sim::KeySource::new_key(&mut keys);
        let o = clients::charge_with_key(server, &mut network, &order, key, scenario.max_attempts);
        unconfirmed += u64::from(o.confirmed.is_none());
    }
    let ledger = server.ledger();
    Measured {
        attempts: network.attempts(),
        charges: ledger.len() as u64,
        charged: ledger.iter().map(|r| r.amount).sum(),
        unconfirmed,
    }
}

fn server<K: Kit>(scenario: &Scenario, e: &Expected) -> Verdict {
    let name = describe_scenario(scenario);
    let before = lesson_client(scenario, &mut K::new_server(false));
    if before != Measured::from_oracle(&e.before) {
        return Verdict::failed(
            format!(
                "{name}, SIN idempotencia: {}",
                Measured::from_oracle(&e.before).text()
            ),
            before.text(),
            "sin idempotencia cada intento es un cargo: el ledger debe tener tantas filas como intentos (es el \"antes\" del proyecto final).",
        );
    }
    let after = lesson_client(scenario, &mut K::new_server(true));
    if after != Measured::from_oracle(&e.after) {
        return Verdict::failed(
            format!(
                "{name}, CON idempotency_key: {}",
                Measured::from_oracle(&e.after).text()
            ),
            after.text(),
            "con idempotency_key los reintentos son replays: una fila por orden y el total cobrado igual a la intención, al centavo.",
        );
    }
    if scenario.show_key_per_attempt {
        let mut s = K::new_server(true);
        let mut network = scenario.network();
        let mut keys = scenario.keys();
        for order in scenario.orders() {
            clients::charge_with_key_per_attempt(
                &mut s,
                &mut network,
                &mut keys,
                &order,
                scenario.max_attempts,
            );
        }
        let charges = s.ledger().len() as u64;
        if charges != e.key_per_attempt.charges {
            return Verdict::failed(
                format!(
                    "{name}, servidor idempotente y una key nueva por intento: {} cargos",
                    e.key_per_attempt.charges
                ),
                format!("{charges} cargos"),
                "keys distintas son operaciones distintas: el servidor debe cobrarlas todas, aunque tengan el mismo contenido. Deduplicar por contenido esconde el error del cliente de la lección 3.",
            );
        }
    }
    Verdict::Passed
}

fn client<K: Kit>(scenario: &Scenario, e: &Expected) -> Verdict {
    let name = describe_scenario(scenario);
    for (idempotent, want, world) in [
        (true, &e.after, "CON idempotency_key"),
        (false, &e.before, "SIN idempotencia"),
    ] {
        let mut server = SpyServer::new(idempotent);
        let mut network = scenario.network();
        let mut keys = scenario.keys();
        let mut unconfirmed = 0;
        let mut per_order = Vec::new();
        for order in scenario.orders() {
            let o = K::charge_order(
                &mut server,
                &mut network,
                &mut keys,
                &order,
                scenario.max_attempts,
            );
            unconfirmed += u64::from(o.confirmed.is_none());
            per_order.push(o.attempts);
        }
        let got = Measured {
            attempts: network.attempts(),
            charges: server.ledger().len() as u64,
            charged: server.ledger().iter().map(|r| r.amount).sum(),
            unconfirmed,
        };
        if got != Measured::from_oracle(want) {
            return Verdict::failed(
                format!("{name}, {world}: {}", Measured::from_oracle(want).text()),
                got.text(),
                client_hint(
                    scenario,
                    e,
                    &per_order,
                    idempotent && got.charges != want.charges,
                ),
            );
        }
        if per_order != e.attempts_per_order {
            let i = per_order
                .iter()
                .zip(&e.attempts_per_order)
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            return Verdict::failed(
                format!(
                    "{name}: la orden {} tuvo {} intento(s)",
                    i + 1,
                    e.attempts_per_order.get(i).copied().unwrap_or(0)
                ),
                format!(
                    "tu cliente informó attempts={}",
                    per_order.get(i).copied().unwrap_or(0)
                ),
                "ChargeOutcome::attempts es cuántas veces enviaste el cobro, contando el primero.",
            );
        }
    }
    Verdict::Passed
}

/// Names the client's mistake from the attempts it made per order (against
/// the oracle's) and whether the idempotent world got the wrong number of
/// charges.
fn client_hint(
    scenario: &Scenario,
    e: &Expected,
    per_order: &[u32],
    wrong_charges: bool,
) -> String {
    let max = scenario.max_attempts;
    let first_difference = per_order
        .iter()
        .zip(&e.attempts_per_order)
        .position(|(got, want)| got != want);
    if let Some(i) = first_difference {
        let (got, want) = (per_order[i], e.attempts_per_order[i]);
        let order = i + 1;
        let why = if got > want && want < max {
            "la respuesta llegó y aun así reintentó: la operación ya había terminado"
        } else if got > max {
            "pasó de max_attempts: con max_attempts respuestas perdidas hay que rendirse"
        } else {
            "se rindió antes de tiempo: son hasta max_attempts intentos, contando el primero"
        };
        return format!(
            "la orden {order} necesitaba {want} intento(s) y tu cliente hizo {got} (max_attempts={max}): {why}. Los intentos dependen solo de la red: reintenta mientras la respuesta se pierda, hasta max_attempts."
        );
    }
    if wrong_charges {
        return "los intentos son los correctos, pero el servidor idempotente cobró otra cantidad de veces: la key debe ser una por operación (creada con keys.new_key() antes del primer intento y reenviada en cada reintento), ni una por intento (lección 3) ni una compartida entre órdenes.".to_string();
    }
    "con el servidor de la lección, tu cliente debe reintentar solo mientras la respuesta se pierde, hasta max_attempts, con una sola key por orden: los intentos dependen de la red, los cargos de la key.".to_string()
}

fn reconciliation<K: Kit>(scenario: &Scenario, e: &Expected) -> Verdict {
    let name = describe_scenario(scenario);
    let orders = scenario.orders();
    for (idempotent, w, world) in [
        (false, &e.before, "SIN idempotencia"),
        (true, &e.after, "CON idempotency_key"),
    ] {
        let mut server = SpyServer::new(idempotent);
        lesson_client(scenario, &mut server);
        let want = Reconciliation {
            intended: e.intended,
            charged: w.charged,
            charges: w.charges,
            orders_charged_twice_or_more: w.orders_charged_twice_or_more,
            orders_never_charged: 0,
            unknown_order_rows: 0,
            overcharge: w.overcharge,
            undercharge: Money::ZERO,
            overcharge_pct: w.overcharge_pct,
        };
        let got = K::reconcile(&orders, server.ledger());
        if got != want {
            let (w_text, g_text) = differences(&want, &got);
            return Verdict::failed(
                format!("{name}, ledger {world}: {w_text}"),
                g_text,
                explain(
                    server.ledger(),
                    &want,
                    &got,
                    "reconcilia por order id: intención contra ledger, el sobrecobro orden por orden y el porcentaje sobre la intención (en la flota de la lección: $48,139, 18.7%, 146 órdenes cobradas 2+ veces).",
                ),
            );
        }
    }
    Verdict::Passed
}
