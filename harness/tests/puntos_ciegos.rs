//! Wrong solutions that the fixed checks cannot see (issue 10): each breaks a
//! rule its exercise's doc comment states, in a place no hand-picked script
//! reaches — a key replayed after many other keys, a key sent again with
//! another order, a client that gives up or changes its key only after many
//! attempts, an order with several rows that together do not exceed its
//! amount. Every fixed check of the exercise passes; the model-based check
//! must catch each one, with a shrunk counterexample of a handful of steps.
//!
//! Issue 15 adds one per range the generators gained (see the domain table
//! in `judge/src/checks/model.rs`), each written against the old
//! generators' limits: a store keyed by the key folded to 32 bits, a store
//! that forgets past 65,536 keys and charge ids counted in a `u16` (only the
//! fixed large history reaches them, then of 100,000 keys: a large case, reported
//! unshrunk), a client that sends whole dollars, a client whose attempt
//! arithmetic is `u8`, a reconciliation that joins a row to
//! `orders[id - 1]`, and one that misses unknown ids below the smallest
//! known id.
//!
//! Issue 15's breaker adds three more, each reached only by the cases the
//! generators gained then: charge ids counted in a `u16` only without
//! idempotency (the large history now runs in both modes), a client that
//! caps its attempts with `max_attempts as u16` (the fixed case of 65,537
//! attempts, every response lost), and a reconciliation that joins by
//! `order_id.0 as u32` (rows of unknown order `id + 2^32`).
//!
//! `cargo test -p harness --test suite puntos_ciegos:: -- --nocapture` prints, per
//! mutant, the checks that catch it (fixed, scenario, model-based) and the
//! shrunk trace.
//!
//! Issue 27, round 2, adds one per dimension the generators gained then
//! (written after reading them), each caught by the case named: a store
//! and a client cap "bounded" at 2^17 (the large cases of 2^20 + 1 keys and
//! attempts), a reconciliation that counts charges from the charge ids
//! (ledgers that start anywhere and skip ids), one that counts unknown rows
//! by key (retried rows), one whose rows per order are a `u16` (the large
//! books' order of 65,537 rows), and exercise 4's store emptied at 2^17
//! keys and charge ids in a `u16` (its long histories).

use crate::support;
use crate::{client, kit, store_mistake};

use std::collections::{BTreeMap, HashMap};

use judge::checks::CheckTarget;
use judge::grading::Graded;
use judge::verdict::{Exercise, Verdict};
use sim::{
    ChargeId, ChargeOutcome, ChargeResult, IdempotencyKey, LedgerEntry, Money, Order, OrderId,
    Payments, Percent, Reconciliation,
};
use solutions::reconciliation::reconcile;
use support::mistakes::{reconcile_read_as, retry_with_key};
use support::{Changed, ServerChange, lesson_server};

/// Server: the store is a cache of the last `KEYS` keys (first in, first
/// out: a bounded cache used as an idempotency store), so a key replayed
/// after `KEYS` others is charged again. The wrapped server runs without
/// idempotency, so its ledger lists the stored keys in order of arrival.
struct ForgetsAfter<const KEYS: usize>;

impl<const KEYS: usize> ServerChange for ForgetsAfter<KEYS> {
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
            let rows = s.inner.ledger();
            if rows.len() > KEYS {
                // Evict the oldest key (KEYS rows before the new one).
                let oldest = rows[rows.len() - 1 - KEYS].key;
                s.results.remove(&oldest);
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
        // Keyed by (key, order): the amount slot of `by_request` stays zero.
        if s.idempotent
            && let Some(stored) = s.by_request.get(&(k, o, Money::ZERO))
        {
            return *stored;
        }
        let result = s.inner.charge(k, o, a);
        if s.idempotent {
            s.by_request.insert((k, o, Money::ZERO), result);
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

/// Server: the store keyed by the key folded to 32 bits (`(k ^ k >> 32) as
/// u32`, a common "hash"): two keys whose halves have the same XOR are one.
struct FoldedKey;

impl ServerChange for FoldedKey {
    fn inner(_: bool) -> solutions::PaymentsServer {
        solutions::PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if !s.idempotent {
            return s.inner.charge(k, o, a);
        }
        let folded = IdempotencyKey(u64::from((k.0 ^ (k.0 >> 32)) as u32));
        if let Some(stored) = s.results.get(&folded) {
            return *stored;
        }
        let result = s.inner.charge(k, o, a);
        s.results.insert(folded, result);
        result
    }
}

/// Server: the row counter is a `u16` (`rows as u16`), so the 65,537th
/// row is `ch_0001` again.
struct ChargeIdsU16;

impl ServerChange for ChargeIdsU16 {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let id = ChargeId::next_after(usize::from(s.rows.len() as u16));
        lesson_server(s, k, o, a, id)
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

client! {
    /// Client: sends the amount in whole dollars (`amount / 100 * 100`),
    /// "the fixtures are in dollars anyway".
    fn whole_dollars(server, network, keys, order, max_attempts) {
        let rounded = Order {
            amount: Money::from_cents(order.amount.cents() / 100 * 100),
            ..*order
        };
        retry_with_key(server, network, &rounded, keys.new_key(), max_attempts)
    }
}

client! {
    /// Client: counts attempts in a `u8` (`max_attempts as u8`), "nobody
    /// retries 256 times".
    fn attempts_in_u8(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        let max = max_attempts as u8;
        let mut attempts: u8 = 0;
        while attempts < max {
            attempts += 1;
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome { attempts: u32::from(attempts), confirmed: Some(result) };
            }
        }
        ChargeOutcome { attempts: u32::from(attempts), confirmed: None }
    }
}

/// Reconciliation: a row joins `orders[id - 1]` (the fixtures number their
/// orders 1..n in order); a row whose position is out of range is unknown.
fn joined_by_position(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let mut r = Reconciliation::default();
    let mut per = vec![(Money::ZERO, 0u64); orders.len()];
    for row in ledger {
        r.charged += row.amount;
        r.charges += 1;
        let position = (row.order_id.0 as usize)
            .checked_sub(1)
            .filter(|&i| i < orders.len());
        match position {
            Some(i) => {
                per[i].0 += row.amount;
                per[i].1 += 1;
            }
            None => r.unknown_order_rows += 1,
        }
    }
    for (o, (charged, rows)) in orders.iter().zip(&per) {
        r.intended += o.amount;
        r.overcharge += charged.saturating_excess(o.amount);
        r.undercharge += o.amount.saturating_excess(*charged);
        r.orders_charged_twice_or_more += u64::from(*rows >= 2);
        r.orders_never_charged += u64::from(*rows == 0);
    }
    r.overcharge_pct = Percent::of(r.overcharge, r.intended);
    r
}

/// Reconciliation: counts as unknown only the rows at or above the smallest
/// known id (a lower id is taken for an order of an earlier period).
fn unknown_from_smallest_id(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let known: HashMap<OrderId, ()> = orders.iter().map(|o| (o.id, ())).collect();
    let smallest = orders.iter().map(|o| o.id).min();
    let unknown = ledger
        .iter()
        .filter(|row| !known.contains_key(&row.order_id))
        .filter(|row| smallest.is_none_or(|m| row.order_id >= m))
        .count() as u64;
    Reconciliation {
        unknown_order_rows: unknown,
        ..reconcile(orders, ledger)
    }
}

/// Server: right with idempotency; without it, the row counter is a
/// `u16` (`rows as u16`), so the 65,537th row is `ch_0001` again: only
/// the fixed large history without idempotency reaches it.
struct ChargeIdsU16WithoutIdempotency;

impl ServerChange for ChargeIdsU16WithoutIdempotency {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let rows = if s.idempotent {
            s.rows.len()
        } else {
            usize::from(s.rows.len() as u16)
        };
        lesson_server(s, k, o, a, ChargeId::next_after(rows))
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

client! {
    /// Client: caps its attempts with `max_attempts as u16`, "nobody
    /// retries 65,536 times".
    fn max_attempts_in_u16(server, network, keys, order, max_attempts) {
        let max = u32::from(max_attempts as u16);
        retry_with_key(server, network, order, keys.new_key(), max)
    }
}

/// Reconciliation: orders and rows joined by the id cut to `u32`
/// (`order_id.0 as u32`, "ids never pass four billion"), so a row of
/// unknown order `id + 2^32` is taken for order `id`.
fn joined_by_u32_id(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let cut = |id: OrderId| OrderId(u64::from(id.0 as u32));
    reconcile_read_as(
        orders,
        ledger,
        |o| Order { id: cut(o.id), ..o },
        |r| LedgerEntry {
            order_id: cut(r.order_id),
            ..r
        },
    )
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

client! {
    /// Client: a "safety cap" of 2^17 attempts (`max_attempts.min(131_072)`,
    /// "nobody retries more than that"), past the old large case's 65,537.
    fn safety_cap_131072(server, network, keys, order, max_attempts) {
        retry_with_key(server, network, order, keys.new_key(), max_attempts.min(131_072))
    }
}

client! {
    /// Client: confirms with its key's first row in `server.ledger()` ("the
    /// ledger is the truth") instead of the answer that arrived: the same
    /// with idempotency, where every retry replays the first row; without
    /// it, the first row is not the delivered retry's charge.
    fn confirms_from_the_ledger(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        let outcome = retry_with_key(server, network, order, key, max_attempts);
        let confirmed = outcome.confirmed.map(|delivered| {
            server
                .ledger()
                .iter()
                .find(|r| r.key == key)
                .map_or(delivered, |r| ChargeResult {
                    charge_id: r.charge_id,
                    ..delivered
                })
        });
        ChargeOutcome { confirmed, ..outcome }
    }
}

/// Reconciliation: the charges counted from the charge ids ("the ledger's
/// ids run `ch_0001…ch_N`": the last id's number minus the first's, plus
/// one), wrong on a ledger that starts elsewhere or skips ids.
fn charges_from_ids(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = reconcile(orders, ledger);
    let charges = match (ledger.first(), ledger.last()) {
        (Some(a), Some(b)) => b.charge_id.0.wrapping_sub(a.charge_id.0).wrapping_add(1),
        _ => 0,
    };
    Reconciliation { charges, ..r }
}

/// Reconciliation: the rows of unknown orders counted by distinct keys
/// ("one charge per key"), so a retried unknown charge counts once.
fn unknown_rows_by_key(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let known: std::collections::HashSet<OrderId> = orders.iter().map(|o| o.id).collect();
    let keys: std::collections::HashSet<IdempotencyKey> = ledger
        .iter()
        .filter(|r| !known.contains(&r.order_id))
        .map(|r| r.key)
        .collect();
    Reconciliation {
        unknown_order_rows: keys.len() as u64,
        ..reconcile(orders, ledger)
    }
}

/// Reconciliation: each order's rows counted in a `u16` ("no order is
/// charged 65,536 times"), so an order with 65,537 rows counts as charged
/// once.
fn rows_per_order_in_u16(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = reconcile(orders, ledger);
    let per = charged_per_order(ledger);
    let twice = orders
        .iter()
        .filter(|o| per.get(&o.id).is_some_and(|&(_, n)| n as u16 >= 2))
        .count() as u64;
    Reconciliation {
        orders_charged_twice_or_more: twice,
        ..r
    }
}

store_mistake!(StoreClearedAt131072, StoreClearedAt131072);
store_mistake!(StoreChargeIdsU16, ChargeIdsU16);

kit!(ServerForgetsPast131072 {
    server: ForgetsAfter<131072>
});
kit!(ClientConfirmsFromTheLedger {
    client: confirms_from_the_ledger
});
kit!(ClientSafetyCap131072 {
    client: safety_cap_131072
});
kit!(ReconcileChargesFromIds {
    reconcile: charges_from_ids
});
kit!(ReconcileUnknownRowsByKey {
    reconcile: unknown_rows_by_key
});
kit!(ReconcileRowsPerOrderInU16 {
    reconcile: rows_per_order_in_u16
});
kit!(AtomicStoreClearedAt131072 {
    atomic: support::Shared<StoreClearedAt131072>
});
kit!(AtomicChargeIdsU16 {
    atomic: support::Shared<StoreChargeIdsU16>
});

kit!(ServerForgetsAfterFourKeys {
    server: ForgetsAfter<4>
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

kit!(ServerFoldedKey { server: FoldedKey });
kit!(ServerForgetsPast65536 {
    server: ForgetsAfter<65536>
});
kit!(ServerChargeIdsU16 {
    server: ChargeIdsU16
});
kit!(ClientWholeDollars {
    client: whole_dollars
});
kit!(ClientAttemptsInU8 {
    client: attempts_in_u8
});
kit!(ReconcileJoinedByPosition {
    reconcile: joined_by_position
});
kit!(ReconcileUnknownFromSmallestId {
    reconcile: unknown_from_smallest_id
});
kit!(ServerChargeIdsU16WithoutIdempotency {
    server: ChargeIdsU16WithoutIdempotency
});
kit!(ClientMaxAttemptsInU16 {
    client: max_attempts_in_u16
});
kit!(ReconcileJoinedByU32Id {
    reconcile: joined_by_u32_id
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
    let (scenarios, summary, trace, _) = caught_by_model(name, &graded, exercise);
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

/// Like [`assert_blind_spot`], for a mistake only the family's fixed large
/// case reaches: no scenario check fails either, and the model-based check
/// fails on that case (reported as it is, unshrunk), with `words` in its
/// trace or hint.
fn assert_large_case(name: &str, graded: Graded, exercise: Exercise, words: &[&str]) {
    let (scenarios, summary, trace, hint) = caught_by_model(name, &graded, exercise);
    assert!(
        scenarios.is_empty(),
        "{name}: scenarios caught it: {scenarios:?}"
    );
    assert!(
        summary.contains("un caso grande fijo"),
        "{name}: not the large case: {summary}"
    );
    let text = format!("{}\n{hint}", trace.join("\n"));
    for w in words {
        assert!(text.contains(w), "{name}: lacks {w:?}:\n{text}");
    }
    println!(
        "{name}: modelo, caso grande: {summary}\n  {}\n  pista: {hint}",
        trace.join("\n  ")
    );
}

/// Like [`assert_large_case`], for exercise 4's long histories: only its
/// model-based check fails (no explored or fixed one), on a long history
/// told as a summary, with `words` in its summary, trace or hint.
fn assert_long_history(name: &str, graded: Graded, words: &[&str]) {
    let (scenarios, summary, trace, hint) = caught_by_model(name, &graded, Exercise::Store);
    assert!(scenarios.is_empty(), "{name}: {scenarios:?}");
    assert!(trace.len() < 10, "{name}: a long trace: {trace:#?}");
    let text = format!("{summary}\n{}\n{hint}", trace.join("\n"));
    for w in words {
        assert!(text.contains(w), "{name}: lacks {w:?}:\n{text}");
    }
    println!(
        "{name}: modelo, historia larga: {summary}\n  {}\n  pista: {hint}",
        trace.join("\n  ")
    );
}

/// Asserts that only `exercise`'s checks fail, none of them fixed, and that
/// the model-based one gives a counterexample; the failing scenario checks
/// and the counterexample's summary, trace and hint.
fn caught_by_model(
    name: &str,
    graded: &Graded,
    exercise: Exercise,
) -> (Vec<String>, String, Vec<String>, String) {
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
    let Some(Verdict::Counterexample {
        summary,
        trace,
        hint,
    }) = model
    else {
        panic!("{name}: the model-based check did not catch it: {model:?}");
    };
    (scenarios, summary, trace, hint)
}

fn graded<K: sim::Kit>() -> Graded {
    support::grade_in_process::<K>(support::catalog())
}

/// Graded on `exercise` alone, with its large cases (the mistakes only they
/// reach).
fn graded_large<K: sim::Kit>(exercise: Exercise) -> Graded {
    support::grade_in_process::<K>(&support::large_catalog(&[exercise]))
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

#[test]
fn server_folded_key() {
    let g = graded::<ServerFoldedKey>();
    assert_blind_spot("ServerFoldedKey", g, Exercise::Cobro, 2);
}

#[test]
fn server_forgets_past_65536_keys() {
    let g = graded_large::<ServerForgetsPast65536>(Exercise::Cobro);
    assert_large_case(
        "ServerForgetsPast65536",
        g,
        Exercise::Cobro,
        &[
            "es un replay y debe devolver lo guardado",
            "¿Tu store olvida keys",
        ],
    );
}

#[test]
fn server_charge_ids_u16() {
    let g = graded_large::<ServerChargeIdsU16>(Exercise::Cobro);
    assert_large_case(
        "ServerChargeIdsU16",
        g,
        Exercise::Cobro,
        &[
            "65537.  K65537",
            "ch_0001 $295.85",
            "el cobro número 65537 recibió ch_0001 en vez de ch_65537",
        ],
    );
}

#[test]
fn client_whole_dollars() {
    let g = graded::<ClientWholeDollars>();
    assert_blind_spot("ClientWholeDollars", g, Exercise::Cliente, 1);
}

#[test]
fn client_attempts_in_u8() {
    let g = graded::<ClientAttemptsInU8>();
    assert_blind_spot("ClientAttemptsInU8", g, Exercise::Cliente, 1);
}

#[test]
fn reconcile_joined_by_position() {
    let g = graded::<ReconcileJoinedByPosition>();
    assert_blind_spot("ReconcileJoinedByPosition", g, Exercise::Reconciliacion, 2);
}

#[test]
fn reconcile_unknown_from_smallest_id() {
    let g = graded::<ReconcileUnknownFromSmallestId>();
    assert_blind_spot(
        "ReconcileUnknownFromSmallestId",
        g,
        Exercise::Reconciliacion,
        2,
    );
}

#[test]
fn server_charge_ids_u16_without_idempotency() {
    let g = graded_large::<ServerChargeIdsU16WithoutIdempotency>(Exercise::Cobro);
    assert_large_case(
        "ServerChargeIdsU16WithoutIdempotency",
        g,
        Exercise::Cobro,
        &[
            "servidor SIN idempotencia",
            "el cobro número 65537 recibió ch_0001 en vez de ch_65537",
        ],
    );
}

#[test]
fn client_max_attempts_in_u16() {
    let g = graded_large::<ClientMaxAttemptsInU16>(Exercise::Cliente);
    assert_large_case(
        "ClientMaxAttemptsInU16",
        g,
        Exercise::Cliente,
        &["max_attempts=1048577", "perdida ×1048577"],
    );
}

#[test]
fn reconcile_joined_by_u32_id() {
    let g = graded::<ReconcileJoinedByU32Id>();
    let (_, _, _, hint) = caught_by_model("ReconcileJoinedByU32Id", &g, Exercise::Reconciliacion);
    assert!(
        hint.starts_with(
            "tus cifras son exactamente las de unir por el order id cortado a sus 32 bits bajos"
        ),
        "{hint}"
    );
    assert_blind_spot("ReconcileJoinedByU32Id", g, Exercise::Reconciliacion, 2);
}

// Issue 27, round 2: one wrong solution per dimension the generators
// gained (sizes past 2^20, charge ids that start anywhere and skip, keys
// shared by retried rows), each written after reading the generators.

#[test]
fn server_forgets_past_131072_keys() {
    let g = graded_large::<ServerForgetsPast131072>(Exercise::Cobro);
    assert_large_case(
        "ServerForgetsPast131072",
        g,
        Exercise::Cobro,
        &["es un replay y debe devolver lo guardado"],
    );
}

#[test]
fn client_safety_cap_131072() {
    let g = graded_large::<ClientSafetyCap131072>(Exercise::Cliente);
    assert_large_case(
        "ClientSafetyCap131072",
        g,
        Exercise::Cliente,
        &["max_attempts=1048577"],
    );
}

#[test]
fn reconcile_charges_from_ids() {
    let g = graded::<ReconcileChargesFromIds>();
    assert_blind_spot("ReconcileChargesFromIds", g, Exercise::Reconciliacion, 3);
}

#[test]
fn reconcile_unknown_rows_by_key() {
    let g = graded::<ReconcileUnknownRowsByKey>();
    assert_blind_spot("ReconcileUnknownRowsByKey", g, Exercise::Reconciliacion, 3);
}

#[test]
fn reconcile_rows_per_order_in_u16() {
    let g = graded_large::<ReconcileRowsPerOrderInU16>(Exercise::Reconciliacion);
    assert_large_case(
        "ReconcileRowsPerOrderInU16",
        g,
        Exercise::Reconciliacion,
        &[
            "órdenes: 1,048,577",
            "con 65,537",
            "orders_charged_twice_or_more",
        ],
    );
}

#[test]
fn atomic_store_cleared_at_131072() {
    let g = graded_large::<AtomicStoreClearedAt131072>(Exercise::Store);
    assert_long_history(
        "AtomicStoreClearedAt131072",
        g,
        &[
            "historia larga de un hilo",
            "es un replay de una key cobrada",
        ],
    );
}

#[test]
fn atomic_charge_ids_u16() {
    let g = graded_large::<AtomicChargeIdsU16>(Exercise::Store);
    assert_long_history(
        "AtomicChargeIdsU16",
        g,
        &[
            "historia larga de un hilo",
            "el cobro número 65,537 recibió ch_0001 en vez de ch_65537",
        ],
    );
}

#[test]
fn client_confirms_from_the_ledger() {
    let g = graded::<ClientConfirmsFromTheLedger>();
    let (_, summary, trace, _) =
        caught_by_model("ClientConfirmsFromTheLedger", &g, Exercise::Cliente);
    assert!(summary.contains("servidor SIN idempotencia"), "{summary}");
    assert!(
        trace[0].contains("servidor SIN idempotencia (cada intento es una fila)"),
        "{trace:#?}"
    );
    assert_blind_spot("ClientConfirmsFromTheLedger", g, Exercise::Cliente, 1);
}
