//! The lesson's fleet played over HTTP against the service: each order's
//! attempts, each answer read whole and then delivered or lost as the
//! fleet's loss stream decides (lección 2, `client_charge`: "el server YA
//! cobró"), and the figures from the processor's record.

use std::time::Instant;

use serde::Serialize;
use sim::{Delivery, Fleet, IdempotencyKey, KeySource, LedgerEntry, OrderId};

use judge::figures::WorldFigures;

use crate::client::Client;
use crate::processor::{Charge, Processor};
use crate::timeline::{Lane, Timeline};

/// One attempt of one order.
#[derive(Clone, Debug, Serialize)]
pub struct Attempt {
    /// The HTTP status.
    pub status: u16,
    /// The charge id the answer named, if any.
    pub charge_id: Option<String>,
    /// Whether the loss stream lost it (the kit read it and discarded it).
    pub lost: bool,
}

/// One order as the kit played it.
#[derive(Clone, Debug, Serialize)]
pub struct OrderTrace {
    /// `ord_0001`.
    pub order_id: String,
    /// Its amount, in cents.
    pub amount_cents: i64,
    /// Its key (`None` in the world without idempotency).
    pub key: Option<String>,
    /// Its attempts, in order.
    pub attempts: Vec<Attempt>,
}

/// One world played against the service.
#[derive(Clone, Debug)]
pub struct WorldRun {
    /// The lesson's figures, from the processor's record.
    pub figures: WorldFigures,
    /// Each order, in order.
    pub orders: Vec<OrderTrace>,
    /// The processor's ledger.
    pub ledger: Vec<Charge>,
    /// Delivered answers that broke the contract (not 200/201, a bad
    /// body, another order or amount), one Spanish line each, at most 20.
    pub problems: Vec<String>,
    /// How many delivered answers broke the contract.
    pub problem_count: u64,
    /// Wall-clock seconds the world took (for the requests per second;
    /// never printed in the deterministic outputs).
    pub seconds: f64,
}

/// Plays `fleet` through `client` (keys when `with_keys`), the processor
/// recording the charges; `deadline` bounds the whole world.
///
/// # Errors
/// A request that got no HTTP answer, or the deadline, in Spanish: the
/// world cannot be measured.
pub fn play(
    fleet: &Fleet,
    client: &Client,
    processor: &Processor,
    with_keys: bool,
    deadline: Instant,
    timeline: &Timeline,
) -> Result<WorldRun, String> {
    let started = Instant::now();
    let orders = fleet.orders();
    let mut losses = fleet.loss_model();
    let mut keys = fleet.keys();
    let mut traces = Vec::with_capacity(orders.len());
    let mut problems = Vec::new();
    let mut problem_count = 0u64;
    let mut attempts_total = 0u64;
    let mut unconfirmed = 0u64;
    for order in &orders {
        let order_id = order.id.to_string();
        // One key per operation, made before the first attempt (lección 3).
        let key = with_keys.then(|| keys.new_key().to_string());
        let mut trace = OrderTrace {
            order_id: order_id.clone(),
            amount_cents: order.amount.cents(),
            key: key.clone(),
            attempts: Vec::new(),
        };
        // A delivered success that names this order's charge; a delivered
        // error (a 500) ends the retries too, but confirms nothing.
        let mut confirmed = false;
        for _ in 0..fleet.max_attempts {
            if Instant::now() >= deadline {
                return Err(format!(
                    "se acabó el tiempo de la corrida (--limite-corrida) en la orden {order_id}"
                ));
            }
            attempts_total += 1;
            let answer = client
                .charge(1, &order_id, order.amount, key.as_deref())
                .map_err(|e| format!("orden {order_id}: {e}"))?;
            let lost = losses.next_delivery() == Delivery::Lost;
            timeline.push(
                Lane::Orders(1),
                &order_id,
                if lost { "perdida" } else { "respuesta" },
                if lost {
                    format!(
                        "recibió {} y la descarta (respuesta perdida)",
                        answer.describe()
                    )
                } else {
                    format!("recibió {}", answer.describe())
                },
            );
            trace.attempts.push(Attempt {
                status: answer.status,
                charge_id: answer.charge.as_ref().map(|c| c.charge_id.clone()),
                lost,
            });
            if lost {
                continue;
            }
            let problem = match &answer.charge {
                None => Some(format!(
                    "{order_id}: se esperaba 200 o 201 con el cargo y llegó {}",
                    answer.describe()
                )),
                Some(c) if c.order_id != order_id || c.amount_cents != order.amount.cents() => {
                    Some(format!(
                        "{order_id}: la respuesta nombra la orden {} por {} centavos, no {order_id} por {}",
                        judge::verdict::student_text(&c.order_id),
                        c.amount_cents,
                        order.amount.cents()
                    ))
                }
                Some(_) => None,
            };
            confirmed = problem.is_none();
            if let Some(p) = problem {
                problem_count += 1;
                if problems.len() < 20 {
                    problems.push(p);
                }
            }
            break;
        }
        unconfirmed += u64::from(!confirmed);
        traces.push(trace);
    }
    let ledger = processor.ledger();
    let entries: Vec<LedgerEntry> = ledger
        .iter()
        .enumerate()
        .map(|(i, c)| LedgerEntry {
            key: IdempotencyKey(0),
            order_id: parse_order_id(&c.order_id),
            amount: sim::Money::from_cents(c.amount_cents),
            charge_id: sim::ChargeId(i as u64 + 1),
        })
        .collect();
    let r = judge::oracle::reconcile(&orders, &entries);
    let figures = WorldFigures {
        attempts: attempts_total,
        executions: ledger.len() as u64,
        charges: r.charges,
        orders_charged_twice_or_more: r.orders_charged_twice_or_more,
        unconfirmed,
        intended: r.intended,
        charged: r.charged,
        overcharge: r.overcharge,
    };
    Ok(WorldRun {
        figures,
        orders: traces,
        ledger,
        problems,
        problem_count,
        seconds: started.elapsed().as_secs_f64(),
    })
}

/// `ord_0042` → order 42; anything else → an id no order has (`u64::MAX`),
/// counted by the reconciliation as a row of an unknown order.
fn parse_order_id(text: &str) -> OrderId {
    text.strip_prefix("ord_")
        .and_then(|n| n.parse::<u64>().ok())
        .map_or(OrderId(u64::MAX), OrderId)
}
