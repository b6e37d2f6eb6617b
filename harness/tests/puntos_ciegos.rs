//! Wrong solutions that the fixed checks cannot see (issue 10): each breaks a
//! rule its exercise's doc comment states, in a place no hand-picked script
//! reaches — a key replayed after many other keys, a key sent again with
//! another order, a client that gives up or changes its key only after many
//! attempts, an order with several rows that together do not exceed its
//! amount. Every fixed check of the exercise passes; the model-based check
//! must catch each one, with a shrunk counterexample of a handful of steps.
//!
//! `cargo test -p harness --test puntos_ciegos -- --nocapture` prints, per
//! mutant, the checks that catch it (fixed, scenario, model-based) and the
//! shrunk trace.

mod support;

use std::collections::BTreeMap;

use grader::checks::CheckTarget;
use grader::grading::Graded;
use grader::verdict::{Exercise, Verdict};
use sim::{
    ChargeOutcome, ChargeResult, IdempotencyKey, LedgerEntry, Money, Order, OrderId, Payments,
    Reconciliation,
};
use solutions::reconciliation::reconcile;
use support::{Changed, ServerChange};

/// Server: the store remembers only the last four keys (a bounded cache
/// used as an idempotency store), so a key replayed after four others is
/// charged again.
struct ForgetsAfterFourKeys;

impl ServerChange for ForgetsAfterFourKeys {
    fn inner(_: bool) -> solutions::PaymentsServer {
        solutions::PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if s.idempotent
            && let Some(stored) = s.results.get(&k)
        {
            return *stored;
        }
        let result = s.inner.charge(k, o, a);
        if s.idempotent {
            s.results.insert(k, result);
            if s.results.len() > 4 {
                // Evict the oldest key (the one with the lowest charge id).
                if let Some(oldest) = s
                    .results
                    .iter()
                    .min_by_key(|(_, r)| r.charge_id)
                    .map(|(k, _)| *k)
                {
                    s.results.remove(&oldest);
                }
            }
        }
        result
    }
}

/// Server: the store is looked up by `(key, order_id)`: the same key sent
/// again with another order is charged as a new operation.
struct KeyedByKeyAndOrder;

impl ServerChange for KeyedByKeyAndOrder {
    fn inner(_: bool) -> solutions::PaymentsServer {
        solutions::PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if s.idempotent
            && let Some((_, stored)) = s
                .by_request
                .iter()
                .find(|((key, order, _), _)| (*key, *order) == (k, o))
        {
            return *stored;
        }
        let result = s.inner.charge(k, o, a);
        if s.idempotent {
            s.by_request.insert((k, o, a), result);
        }
        result
    }
}

client! {
    /// Client: a hard cap of 50 attempts, whatever `max_attempts` says.
    fn caps_at_fifty(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        let mut attempts = 0;
        while attempts < max_attempts.min(50) {
            attempts += 1;
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome { attempts, confirmed: Some(result) };
            }
        }
        ChargeOutcome { attempts, confirmed: None }
    }
}

client! {
    /// Client: takes a fresh key after the 7th lost response ("the old one
    /// must have expired").
    fn new_key_after_seven(server, network, keys, order, max_attempts) {
        let mut key = keys.new_key();
        let mut attempts = 0;
        while attempts < max_attempts {
            attempts += 1;
            if attempts == 8 {
                key = keys.new_key();
            }
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome { attempts, confirmed: Some(result) };
            }
        }
        ChargeOutcome { attempts, confirmed: None }
    }
}

/// The amount each order was charged in all, by order id.
fn charged_per_order(ledger: &[LedgerEntry]) -> BTreeMap<OrderId, (Money, u64)> {
    let mut per: BTreeMap<OrderId, (Money, u64)> = BTreeMap::new();
    for row in ledger {
        let e = per.entry(row.order_id).or_default();
        e.0 += row.amount;
        e.1 += 1;
    }
    per
}

/// Reconciliation: "charged 2+ times" counts the orders charged beyond their
/// amount, not the orders with two or more rows.
fn twice_means_beyond(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let per = charged_per_order(ledger);
    let beyond = orders
        .iter()
        .filter(|o| per.get(&o.id).is_some_and(|(m, _)| *m > o.amount))
        .count() as u64;
    Reconciliation {
        orders_charged_twice_or_more: beyond,
        ..reconcile(orders, ledger)
    }
}

/// Reconciliation: an order with several rows adds `charged − amount` to the
/// overcharge, negative when its rows together fall short.
fn signed_excess(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let per = charged_per_order(ledger);
    let r = reconcile(orders, ledger);
    let mut overcharge = Money::ZERO;
    for o in orders {
        let (charged, rows) = per.get(&o.id).copied().unwrap_or_default();
        if rows >= 2 {
            overcharge += Money::from_cents(charged.cents() - o.amount.cents());
        } else {
            overcharge += charged.saturating_excess(o.amount);
        }
    }
    Reconciliation {
        overcharge,
        overcharge_pct: sim::Percent::of(overcharge, r.intended),
        ..r
    }
}

kit!(ServerForgetsAfterFourKeys {
    server: ForgetsAfterFourKeys
});
kit!(ServerKeyedByKeyAndOrder {
    server: KeyedByKeyAndOrder
});
kit!(ClientCapsAtFifty {
    client: caps_at_fifty
});
kit!(ClientNewKeyAfterSeven {
    client: new_key_after_seven
});
kit!(ReconcileTwiceMeansBeyond {
    reconcile: twice_means_beyond
});
kit!(ReconcileSignedExcess {
    reconcile: signed_excess
});

/// The size of a shrunk counterexample: the first number of its summary
/// (`6 llamada(s) a charge…`, `1 operación(es)…`), plus the second for
/// reconciliation (`2 orden(es) y 3 fila(s)…`).
fn size(summary: &str) -> usize {
    let numbers: Vec<usize> = summary
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|w| w.parse().ok())
        .take(2)
        .collect();
    if summary.contains(" orden(es) y ") {
        numbers.iter().sum()
    } else {
        numbers.first().copied().unwrap_or(usize::MAX)
    }
}

/// Grades `graded`'s mutant of `exercise` and asserts the blind spot: every
/// fixed check passes, the other exercises are untouched, and the public
/// model-based check fails with a counterexample of at most `max_size`
/// steps. Prints the catchers and the trace.
fn assert_blind_spot(name: &str, graded: Graded, exercise: Exercise, max_size: usize) {
    let mut fixed = Vec::new();
    let mut scenarios = Vec::new();
    let mut model = None;
    for (check, verdict) in &graded.results {
        if verdict.passed() {
            continue;
        }
        assert_eq!(
            check.exercise, exercise,
            "{name}: {} failed: {verdict:?}",
            check.id
        );
        match check.target {
            CheckTarget::Fixed(_) => fixed.push(check.id.clone()),
            CheckTarget::Scenario(_) => scenarios.push(check.id.clone()),
            CheckTarget::Model(_) => model = Some(verdict.clone()),
        }
    }
    assert!(
        fixed.is_empty(),
        "{name}: a fixed check caught it: {fixed:?}"
    );
    let Some(Verdict::Counterexample { summary, trace, .. }) = model else {
        panic!("{name}: the model-based check did not catch it: {model:?}");
    };
    let n = size(&summary);
    assert!(
        n <= max_size,
        "{name}: shrunk to {n} > {max_size}: {summary}"
    );
    println!(
        "{name}: fijas 0 · escenarios {} {scenarios:?} · modelo: contraejemplo de tamaño {n}\n  {summary}\n  {}",
        scenarios.len(),
        trace.join("\n  ")
    );
}

fn graded<K: sim::Kit>() -> Graded {
    support::grade_in_process::<K>(support::catalog())
}

#[test]
fn server_forgets_after_four_keys() {
    let g = graded::<ServerForgetsAfterFourKeys>();
    assert_blind_spot("ServerForgetsAfterFourKeys", g, Exercise::Cobro, 6);
}

#[test]
fn server_keyed_by_key_and_order() {
    let g = graded::<ServerKeyedByKeyAndOrder>();
    assert_blind_spot("ServerKeyedByKeyAndOrder", g, Exercise::Cobro, 6);
}

#[test]
fn client_caps_at_fifty() {
    let g = graded::<ClientCapsAtFifty>();
    assert_blind_spot("ClientCapsAtFifty", g, Exercise::Cliente, 2);
}

#[test]
fn client_new_key_after_seven() {
    let g = graded::<ClientNewKeyAfterSeven>();
    assert_blind_spot("ClientNewKeyAfterSeven", g, Exercise::Cliente, 2);
}

#[test]
fn reconcile_twice_means_beyond() {
    let g = graded::<ReconcileTwiceMeansBeyond>();
    assert_blind_spot("ReconcileTwiceMeansBeyond", g, Exercise::Reconciliacion, 5);
}

#[test]
fn reconcile_signed_excess() {
    let g = graded::<ReconcileSignedExcess>();
    assert_blind_spot("ReconcileSignedExcess", g, Exercise::Reconciliacion, 5);
}
