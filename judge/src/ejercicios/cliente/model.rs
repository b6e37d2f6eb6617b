//! Exercise 2 against the model: random operations (orders with sparse,
//! unordered, repeated ids, identical operations, amounts from one cent to
//! $10 trillion), loss scripts with long runs of lost responses that spill
//! from one operation into the next, `max_attempts` from 1 to 10,000 (and
//! one fixed case of 2^20 + 1, every response lost) and key seeds, through
//! lesson 2's idempotent server in the harness; every
//! order's attempts, calls sent (key, order and amount), stop point and
//! outcome compared with lesson 2's `client_charge` with one key per
//! operation. The domain table is in [`super`].

use proptest::prelude::*;
use protocol::{Call, ClientRun, OrderRun, Sent};
use sim::{
    ChargeId, ChargeOutcome, ChargeResult, ChargeStatus, Delivery, Fleet, KeySource, Money, Order,
    OrderId,
};

use crate::checks::model::{Family, Outcome};

/// The largest `max_attempts` generated: far past the fixtures' 100 and any
/// `u8`, while a case stays a few tens of thousands of calls.
pub const MAX_ATTEMPTS: u32 = 10_000;

/// `max_attempts` of the public large case: 2^20 + 1, past any `u16` and
/// any "safety cap" at a power of two up to 2^20, with every response lost
/// (a hidden variant's draws it from here to 2^20 + 4,097).
pub const LARGE_ATTEMPTS: u32 = (1 << 20) + 1;

/// How many responses in a row the network loses before it delivers one.
#[derive(Clone, Copy, Debug)]
pub enum Losses {
    /// A few (0 to 3).
    Few(usize),
    /// A run scaled to `max_attempts` (from none to `max_attempts + 1`: a
    /// run that exhausts the attempts spills into the next operation).
    Long(prop::sample::Index),
    /// Exactly this many (the fixed large case).
    Exactly(usize),
}

/// One operation: its order and what the network does to its attempts.
#[derive(Clone, Copy, Debug)]
pub struct Operation {
    /// The same order as the operation before (two identical legitimate
    /// operations: one buyer paying twice the same order).
    pub repeat: bool,
    /// The order id; `None` is the operation's position (1, 2, …), the
    /// simple case shrinking goes back to.
    pub id: Option<u64>,
    /// The amount, in cents.
    pub amount: Money,
    /// The lost responses before the one that arrives.
    pub losses: Losses,
}

/// A case: the operations, `max_attempts`, the key seed and the server.
#[derive(Clone, Debug)]
pub struct Operations {
    /// In order.
    pub operations: Vec<Operation>,
    /// Most attempts per order.
    pub max_attempts: u32,
    /// Seed of the key source.
    pub key_seed: u64,
    /// The server behind the client: lesson 2's with idempotency or
    /// without it (issue 27: a client that reads the answer from the
    /// ledger, not from the response, is right only with it).
    pub idempotent: bool,
}

impl Operations {
    /// The orders the client charges, in order.
    pub fn orders(&self) -> Vec<Order> {
        let mut orders: Vec<Order> = Vec::with_capacity(self.operations.len());
        for (i, op) in self.operations.iter().enumerate() {
            let order = match orders.last() {
                Some(previous) if op.repeat => *previous,
                _ => Order {
                    id: OrderId(op.id.unwrap_or(i as u64 + 1)),
                    amount: op.amount,
                },
            };
            orders.push(order);
        }
        orders
    }

    /// The network's script: per operation its lost responses, then one
    /// delivered; after the script every response arrives.
    pub fn script(&self) -> Vec<Delivery> {
        let mut script = Vec::new();
        for op in &self.operations {
            let lost = match op.losses {
                Losses::Few(n) | Losses::Exactly(n) => n,
                Losses::Long(i) => i.index(self.max_attempts as usize + 2),
            };
            script.extend(std::iter::repeat_n(Delivery::Lost, lost));
            script.push(Delivery::Delivered);
        }
        script
    }

    /// The fleet the job runs (its listed amounts are the orders', so that
    /// it counts them; the job sends the orders themselves).
    pub fn fleet(&self) -> Fleet {
        let amounts = self.orders().iter().map(|o| o.amount).collect();
        let mut fleet = Fleet::scripted(amounts, self.script(), self.max_attempts);
        fleet.key_seed = self.key_seed;
        fleet
    }
}

/// The client family.
#[derive(Default)]
pub struct Client;

/// What lesson 2's client with one key per operation does with `orders`
/// on `fleet`'s network and keys, against lesson 2's server: with
/// idempotency the `n`-th operation's key is the `n`-th distinct key, so
/// its first attempt writes row `n` (`ch_n`) and every retry replays it;
/// without it every attempt writes a row, and the answer that arrives is
/// the last attempt's own row.
pub fn model(fleet: &Fleet, orders: &[Order], idempotent: bool) -> Vec<OrderRun> {
    let mut keys = fleet.keys();
    let mut rows = 0usize;
    orders
        .iter()
        .zip(protocol::lesson::attempts(fleet))
        .enumerate()
        .map(|(i, (order, a))| {
            rows += a.attempts as usize;
            let row = if idempotent { i } else { rows - 1 };
            let key = keys.new_key();
            let call = Call {
                key,
                order_id: order.id,
                amount: order.amount,
            };
            OrderRun {
                outcome: ChargeOutcome {
                    attempts: a.attempts,
                    confirmed: a.delivered.then_some(ChargeResult {
                        charge_id: ChargeId::next_after(row),
                        amount: order.amount,
                        status: ChargeStatus::Captured,
                    }),
                },
                sent: vec![Sent {
                    call,
                    times: a.attempts,
                }],
                keys_issued: vec![key],
            }
        })
        .collect()
}

impl Family for Client {
    const TAG: u8 = 2;
    type Case = Operations;
    type Request = protocol::Client;

    fn strategy(&self) -> impl Strategy<Value = Operations> {
        let id = prop::option::of(crate::checks::model::order_id(4));
        let losses = prop_oneof![
            3 => (0usize..=3).prop_map(Losses::Few),
            1 => any::<prop::sample::Index>().prop_map(Losses::Long),
        ];
        let operation = (
            prop::bool::weighted(0.15),
            id,
            crate::checks::model::amount(),
            losses,
        )
            .prop_map(|(repeat, id, amount, losses)| Operation {
                repeat,
                id,
                amount,
                losses,
            });
        (
            prop::collection::vec(operation, 1..=6),
            prop_oneof![3 => 1u32..=6, 1 => 1u32..=100, 1 => 1u32..=MAX_ATTEMPTS],
            any::<u64>(),
            // Mostly the CON world (what shrinking goes back to).
            prop::bool::weighted(0.75),
        )
            .prop_map(
                |(operations, max_attempts, key_seed, idempotent)| Operations {
                    operations,
                    max_attempts,
                    key_seed,
                    idempotent,
                },
            )
    }

    fn job(&self, case: &Operations) -> protocol::Client {
        protocol::Client {
            fleet: case.fleet(),
            orders: Some(case.orders()),
            idempotent: case.idempotent,
        }
    }

    fn judge(&self, case: &Operations, got: ClientRun) -> Outcome {
        let got = got.orders;
        let fleet = case.fleet();
        let orders = case.orders();
        let want = model(&fleet, &orders, case.idempotent);
        if got == want {
            return Outcome::Agrees;
        }
        let mut lines = vec![format!(
            "max_attempts={}{} · red (un resultado por intento, en orden): {}",
            case.max_attempts,
            if case.idempotent {
                ""
            } else {
                " · servidor SIN idempotencia (cada intento es una fila)"
            },
            network(case)
        )];
        let parts = (0..want.len().max(got.len())).find(|&i| got.get(i) != want.get(i));
        let mut hint = String::new();
        for i in 0..parts.map_or(want.len(), |p| p + 1) {
            let (Some(w), Some(order)) = (want.get(i), orders.get(i)) else {
                break;
            };
            let g = got.get(i);
            let mark = if Some(i) == parts {
                "   ← aquí se separan"
            } else {
                ""
            };
            lines.push(format!(
                "{}. charge_order({}, {}) → modelo: {}",
                i + 1,
                order.id,
                order.amount,
                describe(w, order)
            ));
            lines.push(format!(
                "   tu código: {}{mark}",
                g.map_or_else(|| "no cobró esta orden".to_string(), |g| describe(g, order))
            ));
            if Some(i) == parts {
                hint = g.map_or_else(String::new, |g| hint_for(w, g, order, case.max_attempts));
            }
        }
        if hint.is_empty() {
            hint = "una key por operación, creada con keys.new_key() antes del primer intento y reenviada idéntica; reintenta solo mientras la respuesta se pierda, hasta max_attempts, y confirma con el resultado que llegó.".to_string();
        }
        Outcome::Disagrees { trace: lines, hint }
    }

    /// One operation with `max_attempts` = [`LARGE_ATTEMPTS`] and every
    /// response lost: that many attempts, all with the operation's key,
    /// then `attempts` = `max_attempts` and `confirmed: None` (a `u16`
    /// count or cap, or a "safety cap" at a power of two up to 2^20, stops
    /// short). A seed other than the public one draws `max_attempts` from
    /// there to 4,096 more, the amount and the key seed.
    fn large(&self, seed: u64) -> Vec<Operations> {
        let (max_attempts, cents, key_seed) = if seed == crate::checks::model::PUBLIC_SEED {
            (LARGE_ATTEMPTS, 12_345, 65_537)
        } else {
            let mut s = sim::Stream::new(sim::StreamKind::Chacha, seed);
            let attempts = LARGE_ATTEMPTS + s.next_u32() % 4_096;
            let cents = 1 + i64::from(s.next_u32() % 50_000);
            (
                attempts,
                cents,
                u64::from(s.next_u32()) << 32 | u64::from(s.next_u32()),
            )
        };
        vec![Operations {
            operations: vec![Operation {
                repeat: false,
                id: None,
                amount: Money::from_cents(cents),
                losses: Losses::Exactly(max_attempts as usize),
            }],
            max_attempts,
            key_seed,
            idempotent: true,
        }]
    }

    fn describe(&self, case: &Operations) -> String {
        format!(
            "{} operación(es), {} resultado(s) de red, max_attempts={}{}",
            case.operations.len(),
            sim::money::group_thousands(case.script().len() as u64),
            case.max_attempts,
            if case.idempotent {
                ""
            } else {
                ", servidor SIN idempotencia"
            }
        )
    }
}

/// The network's script in words: `perdida ×3, entregada, …`.
fn network(case: &Operations) -> String {
    let mut runs: Vec<(Delivery, usize)> = Vec::new();
    for d in case.script() {
        match runs.last_mut() {
            Some((l, n)) if *l == d => *n += 1,
            _ => runs.push((d, 1)),
        }
    }
    let mut parts: Vec<String> = runs
        .iter()
        .map(|(d, n)| {
            let word = if *d == Delivery::Lost {
                "perdida"
            } else {
                "entregada"
            };
            if *n == 1 {
                word.to_string()
            } else {
                format!("{word} ×{n}")
            }
        })
        .collect();
    parts.push("después todas entregadas".to_string());
    parts.join(", ")
}

/// One order's run in words; the order and amount it sent when they are
/// not `order`'s.
fn describe(run: &OrderRun, order: &Order) -> String {
    let mut keys: Vec<String> = Vec::new();
    for c in run.calls() {
        let k = c.key.to_string();
        if keys.last() != Some(&k) {
            keys.push(k);
        }
    }
    let confirmed = run.outcome.confirmed.map_or_else(
        || "sin confirmar".to_string(),
        |r| format!("confirmado {}", r.charge_id),
    );
    let other = run
        .calls()
        .find(|c| (c.order_id, c.amount) != (order.id, order.amount))
        .map_or(String::new(), |c| {
            format!(" (envió {} por {})", c.order_id, c.amount)
        });
    format!(
        "{} intento(s) con key(s) [{}]{other}, {} key(s) creada(s), informó attempts={}, {confirmed}",
        run.call_count(),
        keys.join(", "),
        run.keys_issued.len(),
        run.outcome.attempts
    )
}

/// The mistake behind one order's difference.
fn hint_for(want: &OrderRun, got: &OrderRun, order: &Order, max: u32) -> String {
    let sent: Vec<_> = got.calls().map(|c| c.key).collect();
    let (got_n, want_n) = (got.call_count(), want.call_count());
    if got_n == 0 {
        return "no envió ningún intento para esta operación: cada operación se cobra, aunque el ledger ya tenga una fila de la misma orden por el mismo monto (dos órdenes idénticas son dos operaciones). orders no ve el ledger de payments; deduplicar por contenido es el error de la lección 2 (errores comunes): la key creada con keys.new_key() es la que distingue las operaciones.".to_string();
    }
    if let Some(c) = got
        .calls()
        .find(|c| (c.order_id, c.amount) != (order.id, order.amount))
    {
        return format!(
            "envió {} por {} y la orden es {} por {}: cada intento lleva el order id y el monto de la orden tal cual (en centavos, sin redondear ni convertir).",
            c.order_id, c.amount, order.id, order.amount
        );
    }
    if got_n != want_n {
        return if got_n > want_n && want.outcome.confirmed.is_some() {
            "la respuesta llegó y aun así reintentó: detente en la primera respuesta que llegue."
                .to_string()
        } else if got_n > u64::from(max) {
            format!(
                "hizo {got_n} intentos con max_attempts={max}: son como mucho max_attempts intentos, contando el primero."
            )
        } else {
            format!(
                "hizo {got_n} intentos y la red pedía {want_n}: reintenta mientras la respuesta se pierda, hasta max_attempts (contando el primero)."
            )
        };
    }
    if got.keys_issued.len() != 1 || sent.iter().any(|k| Some(k) != got.keys_issued.first()) {
        return "cada operación lleva UNA key: créala con keys.new_key() una sola vez, antes del primer intento, y reenvía esa misma en cada reintento (una key por intento cobra cada reintento: el error de la lección 3).".to_string();
    }
    if got.outcome.attempts != want.outcome.attempts {
        return "ChargeOutcome::attempts es cuántas veces enviaste el cobro, contando el primero."
            .to_string();
    }
    if want.outcome.confirmed.is_none() && got.outcome.confirmed.is_some() {
        return format!(
            "se perdieron las {max} respuestas y tu cliente informó un cobro confirmado: sin respuesta, orders no sabe si el cobro ocurrió (esa información vive en el ledger de payments, que orders no ve); ríndete con confirmed: None."
        );
    }
    "confirmed es el resultado que llegó (Some del último intento) o None si se perdieron las max_attempts respuestas.".to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn operation(id: Option<u64>, dollars: i64, lost: usize) -> Operation {
        Operation {
            repeat: false,
            id,
            amount: Money::from_dollars(dollars),
            losses: Losses::Few(lost),
        }
    }

    /// Two operations, the first with two lost responses, behind a server
    /// with or without idempotency.
    fn two_operations(idempotent: bool) -> Operations {
        Operations {
            operations: vec![operation(None, 500, 2), operation(Some(0), 300, 0)],
            max_attempts: 4,
            key_seed: 9,
            idempotent,
        }
    }

    /// Two operations, the first with two lost responses: 3 + 1 calls, one
    /// key each; lesson 2's idempotent server confirms them with ch_0001
    /// (a replay of the first row) and ch_0002.
    #[test]
    fn the_model_is_lesson_twos_client() {
        let case = two_operations(true);
        let orders = case.orders();
        assert_eq!(orders[0].id, OrderId(1));
        assert_eq!(orders[1].id, OrderId(0));
        let runs = model(&case.fleet(), &orders, case.idempotent);
        assert_eq!(runs[0].call_count(), 3);
        assert_eq!(runs[0].outcome.confirmed.unwrap().charge_id, ChargeId(1));
        assert_eq!(runs[1].call_count(), 1);
        assert_eq!(runs[1].outcome.confirmed.unwrap().charge_id, ChargeId(2));
        assert_ne!(runs[0].keys_issued, runs[1].keys_issued);
        assert_eq!(
            network(&case),
            "perdida ×2, entregada ×2, después todas entregadas"
        );
    }

    /// Without idempotency every attempt is a row: the same two operations
    /// as above are confirmed with the rows of their delivered attempts,
    /// ch_0003 and ch_0004; the calls and keys are the same.
    #[test]
    fn without_idempotency_the_answer_is_the_delivered_attempts_row() {
        let case = two_operations(false);
        let runs = model(&case.fleet(), &case.orders(), false);
        assert_eq!(runs[0].outcome.confirmed.unwrap().charge_id, ChargeId(3));
        assert_eq!(runs[1].outcome.confirmed.unwrap().charge_id, ChargeId(4));
        let with = model(&case.fleet(), &case.orders(), true);
        assert_eq!(runs[0].sent, with[0].sent);
        assert_eq!(
            Client.describe(&case),
            "2 operación(es), 4 resultado(s) de red, max_attempts=4, servidor SIN idempotencia"
        );
    }

    /// A hidden variant's large case: past any `u16` too, every response
    /// lost, its `max_attempts`, amount and key seed drawn from the seed.
    #[test]
    fn a_variants_large_case_is_drawn_from_its_seed() {
        let public = &Client.large(crate::checks::model::PUBLIC_SEED)[0];
        let mut attempts = Vec::new();
        for seed in [7, 895_581_019, 864_360_894] {
            let case = &Client.large(seed)[0];
            assert!((LARGE_ATTEMPTS..LARGE_ATTEMPTS + 4_096).contains(&case.max_attempts));
            assert_ne!(case.key_seed, public.key_seed);
            let runs = model(&case.fleet(), &case.orders(), case.idempotent);
            assert_eq!(runs[0].outcome.attempts, case.max_attempts);
            assert_eq!(runs[0].outcome.confirmed, None);
            assert_eq!(runs[0].keys_issued.len(), 1);
            attempts.push(case.max_attempts);
        }
        attempts.dedup();
        assert_eq!(attempts.len(), 3, "{attempts:?}");
    }

    /// The large case: 2^20 + 1 attempts, every response lost, one key.
    #[test]
    fn the_large_case_exhausts_a_million_attempts() {
        let case = &Client.large(crate::checks::model::PUBLIC_SEED)[0];
        assert_eq!(case.script().len(), 1_048_578);
        let runs = model(&case.fleet(), &case.orders(), case.idempotent);
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].outcome.attempts, 1_048_577);
        assert_eq!(runs[0].outcome.confirmed, None);
        assert_eq!(runs[0].call_count(), 1_048_577);
        assert_eq!(runs[0].keys_issued.len(), 1);
        assert_eq!(
            Client.describe(case),
            "1 operación(es), 1,048,578 resultado(s) de red, max_attempts=1048577"
        );
    }

    /// A repeated operation is the previous order again, with a key of its
    /// own; 300 lost responses with max_attempts=300 exhaust the first
    /// operation (unconfirmed, its row ch_0001 written), and the delivery
    /// meant for it answers the second (row ch_0002); the shortest long run
    /// loses nothing.
    #[test]
    fn repeats_and_exhausted_runs() {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let mut tree = any::<prop::sample::Index>().new_tree(&mut runner).unwrap();
        while tree.simplify() {}
        let mut second = operation(Some(7), 1, 0);
        second.repeat = true;
        second.losses = Losses::Long(tree.current());
        let case = Operations {
            operations: vec![operation(Some(u64::MAX), 250, 300), second],
            max_attempts: 300,
            key_seed: 1,
            idempotent: true,
        };
        let orders = case.orders();
        assert_eq!(orders[0], orders[1]);
        assert_eq!(orders[1].id, OrderId(u64::MAX));
        assert_eq!(case.script().len(), 302);
        let runs = model(&case.fleet(), &orders, case.idempotent);
        assert_eq!(runs[0].outcome.attempts, 300);
        assert_eq!(runs[0].outcome.confirmed, None);
        assert_eq!(runs[1].outcome.attempts, 1);
        assert_eq!(runs[1].outcome.confirmed.unwrap().charge_id, ChargeId(2));
        assert_ne!(runs[0].keys_issued, runs[1].keys_issued);
    }
}
