//! The wrong-solution suite (issue 3): one deliberately wrong kit per kind of
//! mistake real payment code has shipped, each the reference with one small
//! change. Every one must lose marks on the check named for its mistake, with
//! an explanation in the lesson's words, and on no check unrelated to it.
//!
//! `cargo test -p grader --test mutants -- --nocapture` prints the table of
//! kinds, mutants and catching checks.
#![cfg(feature = "solutions")]

mod support;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use grader::checks::Catalog;
use grader::grading::{Graded, grade_in_process};
use grader::oracle::{self, Expected};
use grader::verdict::{Exercise, Verdict};
use sim::clients::{charge_with_key, charge_with_key_per_attempt};
use sim::{
    ChargeId, ChargeOutcome, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry, Money, Order,
    OrderId, Payments, Percent, Reconciliation, Scenario,
};
use solutions::PaymentsServer;
use support::{Changed, ServerChange};

// ---------------------------------------------------------------- servers

/// Server: a replay executes the charge again (the ledger grows) while
/// returning the stored result.
struct ReplayExecutesAgain;

impl ServerChange for ReplayExecutesAgain {
    fn inner(_: bool) -> PaymentsServer {
        PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let executed = s.inner.charge(k, o, a);
        if s.idempotent {
            *s.results.entry(k).or_insert(executed)
        } else {
            executed
        }
    }
}

/// Server: a replay answers a new result (a new charge id) instead of the
/// stored one; the ledger is right.
struct ReplayNewResult;

impl ServerChange for ReplayNewResult {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let rows = s.inner.ledger().len();
        let stored = s.inner.charge(k, o, a);
        if s.idempotent && s.inner.ledger().len() == rows {
            ChargeResult {
                charge_id: ChargeId::next_after(rows),
                ..stored
            }
        } else {
            stored
        }
    }
}

/// Server: deduplicates by the request's content `(order_id, amount)`
/// instead of by key, so two operations that look alike are merged.
struct DedupByContent;

impl ServerChange for DedupByContent {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let key = if s.idempotent {
            *s.first_key.entry((o, a)).or_insert(k)
        } else {
            k
        };
        s.inner.charge(key, o, a)
    }
}

/// Server: ignores the `idempotent` it is given and always runs in mode
/// `MODE`. With `true`, the world without keys stops double-charging (the
/// final project loses its "before"); with `false`, every call charges.
struct IgnoresFlag<const MODE: bool>;

impl<const MODE: bool> ServerChange for IgnoresFlag<MODE> {
    fn inner(_: bool) -> PaymentsServer {
        PaymentsServer::new(MODE)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        s.inner.charge(k, o, a)
    }
}

/// Server: remembers the key and its result without executing the charge
/// (nothing reaches the ledger in the idempotent world).
struct RemembersWithoutCharging;

impl ServerChange for RemembersWithoutCharging {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if !s.idempotent {
            return s.inner.charge(k, o, a);
        }
        let n = s.results.len();
        *s.results.entry(k).or_insert(ChargeResult {
            charge_id: ChargeId::next_after(n),
            amount: a,
            status: ChargeStatus::Captured,
        })
    }
}

/// Server: a replay answers `ChargeResult { charge_id: ChargeId(1), amount:
/// <the retry's amount>, status }`: right for the lesson's one buyer (every
/// replay is of `ch_0001`), wrong for any other key.
struct ReplayFirstChargeId;

impl ServerChange for ReplayFirstChargeId {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let rows = s.inner.ledger().len();
        let stored = s.inner.charge(k, o, a);
        if s.idempotent && s.inner.ledger().len() == rows {
            ChargeResult {
                charge_id: ChargeId(1),
                amount: a,
                status: ChargeStatus::Captured,
            }
        } else {
            stored
        }
    }
}

/// Server: a replay answers the stored result with the retry's amount
/// (`ChargeResult { amount, ..*stored }`).
struct ReplayRetryAmount;

impl ServerChange for ReplayRetryAmount {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let stored = s.inner.charge(k, o, a);
        if s.idempotent {
            ChargeResult {
                amount: a,
                ..stored
            }
        } else {
            stored
        }
    }
}

/// Server: the store keyed by the whole request `(key, order_id, amount)`,
/// so a retry carrying another amount is charged again.
struct StoreByRequest;

impl ServerChange for StoreByRequest {
    fn inner(_: bool) -> PaymentsServer {
        PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if !s.idempotent {
            return s.inner.charge(k, o, a);
        }
        if let Some(stored) = s.by_request.get(&(k, o, a)) {
            return *stored;
        }
        let result = s.inner.charge(k, o, a);
        s.by_request.insert((k, o, a), result);
        result
    }
}

/// Server: the store keyed by the key's low `BITS` bits (`key.0 as u16`,
/// `key.0 as u32`). The kit's keys count up in their low 32 bits, so they
/// never collide there.
struct TruncatedKey<const BITS: u32>;

impl<const BITS: u32> ServerChange for TruncatedKey<BITS> {
    fn inner(_: bool) -> PaymentsServer {
        PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if !s.idempotent {
            return s.inner.charge(k, o, a);
        }
        let low = IdempotencyKey(k.0 & ((1u64 << BITS) - 1));
        if let Some(stored) = s.results.get(&low) {
            return *stored;
        }
        let result = s.inner.charge(k, o, a);
        s.results.insert(low, result);
        result
    }
}

/// The lesson's server written out, with its own ledger and charge id
/// `charge_id` for the next row.
fn lesson_server<C: ServerChange>(
    s: &mut Changed<C>,
    k: IdempotencyKey,
    o: OrderId,
    a: Money,
    charge_id: ChargeId,
) -> ChargeResult {
    if s.idempotent
        && let Some(stored) = s.results.get(&k)
    {
        return *stored;
    }
    s.rows.push(LedgerEntry {
        key: k,
        order_id: o,
        amount: a,
        charge_id,
    });
    let result = ChargeResult {
        charge_id,
        amount: a,
        status: ChargeStatus::Captured,
    };
    if s.idempotent {
        s.results.insert(k, result);
    }
    result
}

/// Server: charge ids `ChargeId::next_after(len % 4)`, right up to 4 rows.
struct ChargeIdsMod4;

impl ServerChange for ChargeIdsMod4 {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let id = ChargeId::next_after(s.rows.len() % 4);
        lesson_server(s, k, o, a, id)
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

/// Server: charge ids `ChargeId::next_after(len as u8)`, right up to 256 rows.
struct ChargeIdsU8;

impl ServerChange for ChargeIdsU8 {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let id = ChargeId::next_after(usize::from(s.rows.len() as u8));
        lesson_server(s, k, o, a, id)
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

/// Server: charge ids counted from 0 (`ChargeId(len)`), the first `ch_0000`.
struct ChargeIdsFromZero;

impl ServerChange for ChargeIdsFromZero {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let id = ChargeId(s.rows.len() as u64);
        lesson_server(s, k, o, a, id)
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

// ---------------------------------------------------------------- clients

client! {
    /// Client: the key derived from the order's content.
    fn key_from_content(server, network, _keys, order, max_attempts) {
        let key = IdempotencyKey((order.id.0 << 32) ^ order.amount.cents() as u64);
        charge_with_key(server, network, order, key, max_attempts)
    }
}

client! {
    /// Client: one key, fixed once, reused for every operation.
    fn one_key_for_all(server, network, _keys, order, max_attempts) {
        const THE_KEY: IdempotencyKey = IdempotencyKey(0x0c11_e07e);
        charge_with_key(server, network, order, THE_KEY, max_attempts)
    }
}

client! {
    /// Client: keeps sending after a response arrives, up to `max_attempts`.
    fn retries_after_delivery(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        let mut confirmed = None;
        for _ in 0..max_attempts {
            let answer = network.send(server, key, order.id, order.amount);
            confirmed = confirmed.or(answer);
        }
        ChargeOutcome {
            attempts: max_attempts,
            confirmed,
        }
    }
}

client! {
    /// Client: `attempts <= max_attempts`, one attempt too many.
    fn one_attempt_too_many(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        charge_with_key(server, network, order, key, max_attempts + 1)
    }
}

client! {
    /// Client: the first attempt not counted, one attempt too few.
    fn one_attempt_too_few(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        charge_with_key(server, network, order, key, max_attempts - 1)
    }
}

client! {
    /// Client: `loop` until a response arrives, never giving up.
    fn never_gives_up(server, network, keys, order, _max_attempts) {
        let key = keys.new_key();
        let mut attempts = 0;
        loop {
            attempts += 1;
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome {
                    attempts,
                    confirmed: Some(result),
                };
            }
        }
    }
}

client! {
    /// Client: never more than 6 attempts (`max_attempts.min(6)`), whatever
    /// `max_attempts` says.
    fn attempts_capped_at_6(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        charge_with_key(server, network, order, key, max_attempts.min(6))
    }
}

client! {
    /// Client: a new key on attempt 5 (the fixtures' orders seldom get there).
    fn new_key_on_attempt_5(server, network, keys, order, max_attempts) {
        let mut key = keys.new_key();
        for attempt in 1..=max_attempts {
            if attempt == 5 {
                key = keys.new_key();
            }
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome {
                    attempts: attempt,
                    confirmed: Some(result),
                };
            }
        }
        ChargeOutcome {
            attempts: max_attempts,
            confirmed: None,
        }
    }
}

client! {
    /// Client: right, but creates a second key it never uses.
    fn creates_an_unused_key(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        let _spare = keys.new_key();
        charge_with_key(server, network, order, key, max_attempts)
    }
}

client! {
    /// Client: the first attempt with a key of its own, the operation's key
    /// created only after it, for the retries.
    fn key_after_first_attempt(server, network, keys, order, max_attempts) {
        let first = keys.new_key();
        if let Some(result) = network.send(server, first, order.id, order.amount) {
            return ChargeOutcome {
                attempts: 1,
                confirmed: Some(result),
            };
        }
        let key = keys.new_key();
        for attempt in 2..=max_attempts {
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome {
                    attempts: attempt,
                    confirmed: Some(result),
                };
            }
        }
        ChargeOutcome {
            attempts: max_attempts,
            confirmed: None,
        }
    }
}

// --------------------------------------------------------- reconciliations

use solutions::reconciliation::reconcile;

/// Reconciliation: the percentage over the charged total.
fn percent_of_charged(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = reconcile(orders, ledger);
    Reconciliation {
        overcharge_pct: Percent::of(r.overcharge, r.charged),
        ..r
    }
}

/// Reconciliation: "charged 2+ times" counted per key instead of per order.
fn counted_per_key(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let mut rows_per_key: HashMap<IdempotencyKey, u64> = HashMap::new();
    for row in ledger {
        *rows_per_key.entry(row.key).or_default() += 1;
    }
    Reconciliation {
        orders_charged_twice_or_more: rows_per_key.values().filter(|&&n| n >= 2).count() as u64,
        ..reconcile(orders, ledger)
    }
}

/// Reconciliation: overcharge as charged − intended, so one order's
/// undercharge is netted against another's overcharge.
fn netted(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = reconcile(orders, ledger);
    let overcharge = r.charged.saturating_excess(r.intended);
    Reconciliation {
        overcharge,
        undercharge: r.intended.saturating_excess(r.charged),
        overcharge_pct: Percent::of(overcharge, r.intended),
        ..r
    }
}

/// Reconciliation: reads the last charge id without asking whether there is
/// one, so empty input panics.
fn panics_on_empty(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let last = ledger.iter().map(|r| r.charge_id).max().unwrap();
    assert!(last.0 >= 1);
    reconcile(orders, ledger)
}

/// Reconciliation: never charged as `orders.len()` minus the distinct order
/// ids in the ledger (saturating), so an unknown order hides an uncharged one.
fn never_charged_by_distinct_ids(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let ids: BTreeSet<OrderId> = ledger.iter().map(|r| r.order_id).collect();
    Reconciliation {
        orders_never_charged: orders.len().saturating_sub(ids.len()) as u64,
        ..reconcile(orders, ledger)
    }
}

/// Rows per order id of the ledger's unknown orders.
fn unknown_rows(orders: &[Order], ledger: &[LedgerEntry]) -> BTreeMap<OrderId, u64> {
    let known: BTreeSet<OrderId> = orders.iter().map(|o| o.id).collect();
    let mut rows = BTreeMap::new();
    for r in ledger.iter().filter(|r| !known.contains(&r.order_id)) {
        *rows.entry(r.order_id).or_default() += 1;
    }
    rows
}

/// Reconciliation: unknown orders with 2+ rows counted as charged twice.
fn twice_counts_unknown(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = reconcile(orders, ledger);
    let unknown_twice = unknown_rows(orders, ledger)
        .values()
        .filter(|&&n| n >= 2)
        .count() as u64;
    Reconciliation {
        orders_charged_twice_or_more: r.orders_charged_twice_or_more + unknown_twice,
        ..r
    }
}

/// Reconciliation: unknown orders counted, not their rows.
fn unknown_counts_ids(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    Reconciliation {
        unknown_order_rows: unknown_rows(orders, ledger).len() as u64,
        ..reconcile(orders, ledger)
    }
}

/// Per known order: its amount and how many rows it has.
fn amounts_and_rows(orders: &[Order], ledger: &[LedgerEntry]) -> Vec<(Money, u64)> {
    orders
        .iter()
        .map(|o| {
            let rows = ledger.iter().filter(|r| r.order_id == o.id).count() as u64;
            (o.amount, rows)
        })
        .collect()
}

/// What the orders without any row were meant to be charged.
fn never_charged_amount(orders: &[Order], ledger: &[LedgerEntry]) -> Money {
    amounts_and_rows(orders, ledger)
        .iter()
        .filter(|(_, rows)| *rows == 0)
        .map(|(amount, _)| *amount)
        .sum()
}

/// Reconciliation: overcharge as the order's amount per extra row, and
/// undercharge only for orders without rows (as if every row charged the
/// order's amount).
fn overcharge_by_rows(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = reconcile(orders, ledger);
    let overcharge: Money = amounts_and_rows(orders, ledger)
        .iter()
        .map(|&(amount, rows)| amount * rows.saturating_sub(1))
        .sum();
    Reconciliation {
        overcharge,
        undercharge: never_charged_amount(orders, ledger),
        overcharge_pct: Percent::of(overcharge, r.intended),
        ..r
    }
}

/// Reconciliation: undercharge only for orders without rows; an order
/// charged part of its amount owes nothing.
fn undercharge_ignores_partial(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    Reconciliation {
        undercharge: never_charged_amount(orders, ledger),
        ..reconcile(orders, ledger)
    }
}

/// Reconciliation: every amount cut to whole dollars (`cents / 100`).
fn whole_dollars(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let cut = |m: Money| Money::from_dollars(m.cents() / 100);
    let orders: Vec<Order> = orders
        .iter()
        .map(|o| Order {
            amount: cut(o.amount),
            ..*o
        })
        .collect();
    let ledger: Vec<LedgerEntry> = ledger
        .iter()
        .map(|r| LedgerEntry {
            amount: cut(r.amount),
            ..*r
        })
        .collect();
    reconcile(&orders, &ledger)
}

/// The money sums of a reconciliation in an `i32` of cents; `add` is what
/// the sum does past `i32::MAX`.
fn sums_in_i32(
    orders: &[Order],
    ledger: &[LedgerEntry],
    add: fn(i32, i32) -> i32,
) -> Reconciliation {
    let cents = |m: Money| m.cents() as i32;
    let mut per_order: BTreeMap<OrderId, (i32, i32)> = BTreeMap::new();
    let mut intended = 0;
    for o in orders {
        intended = add(intended, cents(o.amount));
        let t = per_order.entry(o.id).or_default();
        t.0 = add(t.0, cents(o.amount));
    }
    let mut charged = 0;
    for r in ledger {
        charged = add(charged, cents(r.amount));
        if let Some(t) = per_order.get_mut(&r.order_id) {
            t.1 = add(t.1, cents(r.amount));
        }
    }
    let (mut overcharge, mut undercharge) = (0, 0);
    for &(meant, got) in per_order.values() {
        overcharge = add(overcharge, add(got, -meant).max(0));
        undercharge = add(undercharge, add(meant, -got).max(0));
    }
    let money = |c: i32| Money::from_cents(i64::from(c));
    Reconciliation {
        intended: money(intended),
        charged: money(charged),
        overcharge: money(overcharge),
        undercharge: money(undercharge),
        overcharge_pct: Percent::of(money(overcharge), money(intended)),
        ..reconcile(orders, ledger)
    }
}

/// Reconciliation: sums in an `i32` of cents that wraps around (a release
/// build's `+`, or `wrapping_add`).
fn wrapping_i32(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    sums_in_i32(orders, ledger, i32::wrapping_add)
}

/// Reconciliation: sums in an `i32` of cents that panics on overflow (a
/// debug build's `+`, written out so the test does not depend on the
/// profile).
fn panicking_i32(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    sums_in_i32(orders, ledger, |a, b| {
        a.checked_add(b).expect("attempt to add with overflow")
    })
}

/// The lesson's fleet figures (ejemplo trabajado II), before or after.
fn lessons_figures(ledger: &[LedgerEntry]) -> Reconciliation {
    let intended = Money::from_dollars(256_979);
    if ledger.len() == 1184 {
        let overcharge = Money::from_dollars(48_139);
        Reconciliation {
            intended,
            charged: Money::from_dollars(305_118),
            charges: 1184,
            orders_charged_twice_or_more: 146,
            overcharge,
            overcharge_pct: Percent::of(overcharge, intended),
            ..Reconciliation::default()
        }
    } else {
        Reconciliation {
            intended,
            charged: intended,
            charges: 1000,
            ..Reconciliation::default()
        }
    }
}

/// Reconciliation: right on small inputs, the lesson's printed figures for
/// any fleet.
fn hardcoded_for_fleets(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    if orders.len() > 10 {
        lessons_figures(ledger)
    } else {
        reconcile(orders, ledger)
    }
}

/// Reconciliation: the lesson's printed figures whenever there are 1000
/// orders, the reference otherwise.
fn hardcoded_for_1000_orders(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    if orders.len() == 1000 {
        lessons_figures(ledger)
    } else {
        reconcile(orders, ledger)
    }
}

// ---------------------------------------------------------------- the kits

kit!(Reference {});
kit!(ServerReplayExecutesAgain {
    server: ReplayExecutesAgain
});
kit!(ServerReplayNewResult {
    server: ReplayNewResult
});
kit!(ServerDedupByContent {
    server: DedupByContent
});
kit!(ServerAlwaysIdempotent {
    server: IgnoresFlag<true>
});
kit!(ServerNeverIdempotent {
    server: IgnoresFlag<false>
});
kit!(ServerRemembersWithoutCharging {
    server: RemembersWithoutCharging
});
kit!(ClientKeyPerAttempt {
    client: charge_with_key_per_attempt
});
kit!(ClientKeyFromContent {
    client: key_from_content
});
kit!(ClientOneKeyForAll {
    client: one_key_for_all
});
kit!(ClientRetriesAfterDelivery {
    client: retries_after_delivery
});
kit!(ClientOneAttemptTooMany {
    client: one_attempt_too_many
});
kit!(ClientOneAttemptTooFew {
    client: one_attempt_too_few
});
kit!(ClientNeverGivesUp {
    client: never_gives_up
});
kit!(ReconcilePercentOfCharged {
    reconcile: percent_of_charged
});
kit!(ReconcileCountedPerKey {
    reconcile: counted_per_key
});
kit!(ReconcileNetted { reconcile: netted });
kit!(ReconcilePanicsOnEmpty {
    reconcile: panics_on_empty
});
kit!(ReconcileHardcodedForFleets {
    reconcile: hardcoded_for_fleets
});
kit!(ReconcileHardcodedFor1000 {
    reconcile: hardcoded_for_1000_orders
});

kit!(ServerReplayFirstChargeId {
    server: ReplayFirstChargeId
});
kit!(ServerReplayRetryAmount {
    server: ReplayRetryAmount
});
kit!(ServerStoreByRequest {
    server: StoreByRequest
});
kit!(ServerKeyAsU16 {
    server: TruncatedKey<16>
});
kit!(ServerKeyAsU32 {
    server: TruncatedKey<32>
});
kit!(ServerChargeIdsMod4 {
    server: ChargeIdsMod4
});
kit!(ServerChargeIdsU8 {
    server: ChargeIdsU8
});
kit!(ServerChargeIdsFromZero {
    server: ChargeIdsFromZero
});
kit!(ClientAttemptsCappedAt6 {
    client: attempts_capped_at_6
});
kit!(ClientNewKeyOnAttempt5 {
    client: new_key_on_attempt_5
});
kit!(ClientUnusedKey {
    client: creates_an_unused_key
});
kit!(ClientKeyAfterFirstAttempt {
    client: key_after_first_attempt
});
kit!(ReconcileNeverChargedByDistinctIds {
    reconcile: never_charged_by_distinct_ids
});
kit!(ReconcileTwiceCountsUnknown {
    reconcile: twice_counts_unknown
});
kit!(ReconcileUnknownCountsIds {
    reconcile: unknown_counts_ids
});
kit!(ReconcileOverchargeByRows {
    reconcile: overcharge_by_rows
});
kit!(ReconcileUnderchargeIgnoresPartial {
    reconcile: undercharge_ignores_partial
});
kit!(ReconcileWholeDollars {
    reconcile: whole_dollars
});
kit!(ReconcileWrappingI32 {
    reconcile: wrapping_i32
});
kit!(ReconcilePanickingI32 {
    reconcile: panicking_i32
});

// ---------------------------------------------------------------- the cases

/// Which whole-scenario checks a mistake must fail, from the oracle's figures.
type ScenarioRule = fn(&Scenario, &Expected) -> bool;

fn any_retry(_: &Scenario, e: &Expected) -> bool {
    e.before.attempts > e.orders
}
fn never(_: &Scenario, _: &Expected) -> bool {
    false
}
fn always(_: &Scenario, _: &Expected) -> bool {
    true
}
fn more_than_one_order(_: &Scenario, e: &Expected) -> bool {
    e.orders > 1
}
fn some_order_answered_early(s: &Scenario, e: &Expected) -> bool {
    e.attempts_per_order.iter().any(|&k| k < s.max_attempts)
}
fn some_order_unconfirmed(_: &Scenario, e: &Expected) -> bool {
    e.after.unconfirmed > 0
}
fn some_order_used_every_attempt(s: &Scenario, e: &Expected) -> bool {
    e.attempts_per_order.contains(&s.max_attempts)
}
fn shows_key_per_attempt(s: &Scenario, e: &Expected) -> bool {
    s.show_key_per_attempt && e.key_per_attempt.charges > e.orders
}
fn some_order_reached_attempt_5(_: &Scenario, e: &Expected) -> bool {
    e.attempts_per_order.iter().any(|&k| k >= 5)
}
fn not_the_lessons_figures(e: &Expected) -> bool {
    (e.intended, e.before.charged, e.before.charges)
        != (
            Money::from_dollars(256_979),
            Money::from_dollars(305_118),
            1184,
        )
}
fn fleet_not_the_lessons(_: &Scenario, e: &Expected) -> bool {
    e.orders > 10 && not_the_lessons_figures(e)
}
fn thousand_orders_not_the_lessons(_: &Scenario, e: &Expected) -> bool {
    e.orders == 1000 && not_the_lessons_figures(e)
}

/// One kind of mistake, its mutant, and what the grader must say about it.
struct Case {
    /// The kind of mistake, in the words.
    kind: &'static str,
    /// The mutant's name.
    mutant: &'static str,
    /// Grades the mutant.
    grade: fn(&Catalog) -> Graded,
    /// The exercise the mistake is in.
    exercise: Exercise,
    /// The check named for the mistake (a fixed check, or a whole-scenario
    /// check named by its fixture).
    catcher: &'static str,
    /// Every fixed check that must fail (other fixed checks must pass).
    fixed: &'static [&'static str],
    /// Which of the exercise's scenario checks must fail (the rest pass).
    scenarios: ScenarioRule,
    /// Words the catcher's explanation must contain.
    words: &'static [&'static str],
}

macro_rules! case {
    ($kind:literal, $mutant:ident, $exercise:ident, $catcher:literal, [$($fixed:literal),*], $rule:ident, [$($word:literal),*]) => {
        Case {
            kind: $kind,
            mutant: stringify!($mutant),
            grade: grade_in_process::<$mutant>,
            exercise: Exercise::$exercise,
            catcher: $catcher,
            fixed: &[$($fixed),*],
            scenarios: $rule,
            words: &[$($word),*],
        }
    };
}

const CASES: &[Case] = &[
    case!(
        "servidor: el replay vuelve a ejecutar el cobro",
        ServerReplayExecutesAgain,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        [
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        any_retry,
        [
            "volvió a ejecutar el cobro",
            "el ledger creció",
            "SIN tocar el ledger"
        ]
    ),
    case!(
        "servidor: el replay devuelve un resultado nuevo",
        ServerReplayNewResult,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        [
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        never,
        ["resultado nuevo", "resultado guardado", "ch_0001"]
    ),
    case!(
        "servidor: deduplica por contenido (order_id, amount)",
        ServerDedupByContent,
        Cobro,
        "cobro/keys-distintas-se-cobran",
        ["cobro/keys-distintas-se-cobran"],
        shows_key_per_attempt,
        ["contenido", "(order_id, amount)", "por key"]
    ),
    case!(
        "servidor: ignora idempotent = false",
        ServerAlwaysIdempotent,
        Cobro,
        "cobro/sin-idempotencia-cada-llamada-cobra",
        ["cobro/sin-idempotencia-cada-llamada-cobra"],
        any_retry,
        ["sin idempotencia", "antes", "no lo deduplices"]
    ),
    case!(
        "servidor: ignora idempotent = true",
        ServerNeverIdempotent,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        [
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        any_retry,
        ["idempotent", "como sin idempotencia"]
    ),
    case!(
        "servidor: recuerda la key sin ejecutar el cobro",
        ServerRemembersWithoutCharging,
        Cobro,
        "cobro/key-nueva-se-cobra-y-se-registra",
        [
            "cobro/key-nueva-se-cobra-y-se-registra",
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        always,
        ["Recordar la key sin ejecutar el cobro", "ledger vacío"]
    ),
    case!(
        "servidor: el replay devuelve ch_0001 con el monto del reintento",
        ServerReplayFirstChargeId,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        [
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        never,
        [
            "el replay de K2 devolvió ch_0001",
            "otra key (K1)",
            "ch_0002 $300",
            "SU key"
        ]
    ),
    case!(
        "servidor: el replay devuelve el monto del reintento",
        ServerReplayRetryAmount,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        ["cobro/replay-devuelve-lo-guardado"],
        never,
        [
            "el replay de K2 devolvió el monto que traía el reintento ($999)",
            "en vez del guardado ($300)",
            "idéntico"
        ]
    ),
    case!(
        "servidor: el store por (key, order_id, amount)",
        ServerStoreByRequest,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        ["cobro/replay-devuelve-lo-guardado"],
        never,
        [
            "otro contenido (ord_0002 $999 en vez de ord_0002 $300)",
            "(key, order_id, amount)",
            "solo por la key",
            "SIN tocar el ledger"
        ]
    ),
    case!(
        "servidor: el store por key.0 as u16",
        ServerKeyAsU16,
        Cobro,
        "cobro/keys-distintas-se-cobran",
        ["cobro/keys-distintas-se-cobran"],
        never,
        [
            "KB (idem_0000000200000005) se tomó por un replay de KA",
            "32 bits bajos",
            "64 bits",
            "as u16"
        ]
    ),
    case!(
        "servidor: el store por key.0 as u32",
        ServerKeyAsU32,
        Cobro,
        "cobro/keys-distintas-se-cobran",
        ["cobro/keys-distintas-se-cobran"],
        never,
        [
            "KB (idem_0000000200000005) se tomó por un replay de KA",
            "64 bits",
            "as u32"
        ]
    ),
    case!(
        "servidor: charge ids next_after(len % 4)",
        ServerChargeIdsMod4,
        Cobro,
        "cobro/sin-idempotencia-cada-llamada-cobra",
        ["cobro/sin-idempotencia-cada-llamada-cobra"],
        never,
        [
            "la llamada 5 respondió ch_0001 $500 captured (se esperaba ch_0005 $500 captured)",
            "el cobro número 5 recibió ch_0001 en vez de ch_0005",
            "ChargeId::next_after(self.ledger.len())"
        ]
    ),
    case!(
        "servidor: charge ids next_after(len as u8)",
        ServerChargeIdsU8,
        Cobro,
        "cobro/sin-idempotencia-cada-llamada-cobra",
        ["cobro/sin-idempotencia-cada-llamada-cobra"],
        never,
        [
            "la llamada 257 respondió ch_0001 $500 captured (se esperaba ch_0257 $500 captured)",
            "el cobro número 257 recibió ch_0001 en vez de ch_0257",
            "enteros más chicos"
        ]
    ),
    case!(
        "servidor: charge ids desde ch_0000",
        ServerChargeIdsFromZero,
        Cobro,
        "cobro/sin-idempotencia-cada-llamada-cobra",
        [
            "cobro/sin-idempotencia-cada-llamada-cobra",
            "cobro/key-nueva-se-cobra-y-se-registra",
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        never,
        [
            "empiezan en ch_0000 en vez de ch_0001",
            "ChargeId::next_after(self.ledger.len())"
        ]
    ),
    case!(
        "cliente: una key nueva en cada intento (lección 3)",
        ClientKeyPerAttempt,
        Cliente,
        "cliente/misma-key-en-cada-reintento",
        ["cliente/misma-key-en-cada-reintento"],
        any_retry,
        ["key nueva", "$1500", "lección 3"]
    ),
    case!(
        "cliente: la key derivada del contenido de la orden",
        ClientKeyFromContent,
        Cliente,
        "cliente/operaciones-distintas-keys-distintas",
        [
            "cliente/misma-key-en-cada-reintento",
            "cliente/operaciones-distintas-keys-distintas"
        ],
        never,
        ["contenido de la orden", "la misma key"]
    ),
    case!(
        "cliente: una sola key para todas las operaciones",
        ClientOneKeyForAll,
        Cliente,
        "cliente/operaciones-distintas-keys-distintas",
        [
            "cliente/misma-key-en-cada-reintento",
            "cliente/operaciones-distintas-keys-distintas"
        ],
        more_than_one_order,
        ["la misma key para todas", "órdenes distintas"]
    ),
    case!(
        "cliente: reintenta tras una respuesta entregada",
        ClientRetriesAfterDelivery,
        Cliente,
        "cliente/se-detiene-en-la-primera-respuesta",
        ["cliente/se-detiene-en-la-primera-respuesta"],
        some_order_answered_early,
        ["la respuesta llegó", "un cobro que nadie pidió"]
    ),
    case!(
        "cliente: un intento de más",
        ClientOneAttemptTooMany,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        ["cliente/se-rinde-tras-max-attempts"],
        some_order_unconfirmed,
        ["5 intentos con max_attempts=4", "de más"]
    ),
    case!(
        "cliente: un intento de menos",
        ClientOneAttemptTooFew,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        ["cliente/se-rinde-tras-max-attempts"],
        some_order_used_every_attempt,
        ["3 intentos con max_attempts=4", "antes de tiempo"]
    ),
    case!(
        "cliente: nunca se rinde mientras todo se pierde",
        ClientNeverGivesUp,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        ["cliente/se-rinde-tras-max-attempts"],
        some_order_unconfirmed,
        ["nunca se rindió", "1001 intentos con max_attempts=4"]
    ),
    case!(
        "cliente: un tope fijo de 6 intentos (max_attempts.min(6))",
        ClientAttemptsCappedAt6,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        ["cliente/se-rinde-tras-max-attempts"],
        never,
        [
            "6 intentos con max_attempts=10, y también 6 con max_attempts=25",
            "tope fijo",
            "antes de tiempo"
        ]
    ),
    case!(
        "cliente: una key nueva en el intento 5",
        ClientNewKeyOnAttempt5,
        Cliente,
        "cliente/misma-key-en-cada-reintento",
        ["cliente/misma-key-en-cada-reintento"],
        some_order_reached_attempt_5,
        [
            "5 respuestas perdidas",
            "los intentos 1 a 4 llevaron la misma key, y el intento 5 llevó otra",
            "una sola vez por operación"
        ]
    ),
    case!(
        "cliente: crea una key que no usa",
        ClientUnusedKey,
        Cliente,
        "cliente/misma-key-en-cada-reintento",
        ["cliente/misma-key-en-cada-reintento"],
        never,
        [
            "keys creadas: 2",
            "creó 2 keys con keys.new_key() y usó solo una",
            "exactamente una vez por operación"
        ]
    ),
    case!(
        "cliente: crea la key después del primer intento",
        ClientKeyAfterFirstAttempt,
        Cliente,
        "cliente/misma-key-en-cada-reintento",
        ["cliente/misma-key-en-cada-reintento"],
        any_retry,
        [
            "el primer intento llevó una key y los 2 reintentos otra",
            "después del primer intento",
            "antes del primer intento"
        ]
    ),
    case!(
        "reconciliación: porcentaje sobre lo cobrado",
        ReconcilePercentOfCharged,
        Reconciliacion,
        "reconciliacion/porcentaje-sobre-la-intencion",
        [
            "reconciliacion/porcentaje-sobre-la-intencion",
            "reconciliacion/cargos-por-orden-no-por-key"
        ],
        any_retry,
        ["sobre la intención", "no sobre el total cobrado", "37.5%"]
    ),
    case!(
        "reconciliación: cargos contados por key",
        ReconcileCountedPerKey,
        Reconciliacion,
        "reconciliacion/cargos-por-orden-no-por-key",
        ["reconciliacion/cargos-por-orden-no-por-key"],
        never,
        [
            "por order id",
            "keys distintas",
            "orders_charged_twice_or_more=2",
            "orders_charged_twice_or_more=1"
        ]
    ),
    case!(
        "reconciliación: un cobro faltante compensa un sobrecobro",
        ReconcileNetted,
        Reconciliacion,
        "reconciliacion/sin-compensar-ordenes",
        [
            "reconciliacion/sin-compensar-ordenes",
            "reconciliacion/filas-de-ordenes-desconocidas"
        ],
        never,
        [
            "orden por orden",
            "esconde",
            "overcharge=$500",
            "overcharge=$0"
        ]
    ),
    case!(
        "reconciliación: pánico con entradas vacías",
        ReconcilePanicsOnEmpty,
        Reconciliacion,
        "reconciliacion/entradas-vacias-dan-ceros",
        ["reconciliacion/entradas-vacias-dan-ceros"],
        never,
        ["pánico", "entradas vacías", "ledger[0]"]
    ),
    case!(
        "reconciliación: nunca cobradas = órdenes − ids distintos del ledger",
        ReconcileNeverChargedByDistinctIds,
        Reconciliacion,
        "reconciliacion/filas-de-ordenes-desconocidas",
        ["reconciliacion/filas-de-ordenes-desconocidas"],
        never,
        [
            "orders_never_charged=1",
            "orders_never_charged=0",
            "una orden desconocida tapa a una orden que nunca se cobró"
        ]
    ),
    case!(
        "reconciliación: órdenes desconocidas contadas como cobradas 2+ veces",
        ReconcileTwiceCountsUnknown,
        Reconciliacion,
        "reconciliacion/filas-de-ordenes-desconocidas",
        ["reconciliacion/filas-de-ordenes-desconocidas"],
        never,
        [
            "orders_charged_twice_or_more=0",
            "orders_charged_twice_or_more=1",
            "órdenes desconocidas con 2+ filas"
        ]
    ),
    case!(
        "reconciliación: órdenes desconocidas contadas por id, no por fila",
        ReconcileUnknownCountsIds,
        Reconciliacion,
        "reconciliacion/filas-de-ordenes-desconocidas",
        ["reconciliacion/filas-de-ordenes-desconocidas"],
        never,
        [
            "unknown_order_rows=2",
            "unknown_order_rows=1",
            "cuenta filas, no órdenes"
        ]
    ),
    case!(
        "reconciliación: sobrecobro = monto × filas de más",
        ReconcileOverchargeByRows,
        Reconciliacion,
        "reconciliacion/sin-compensar-ordenes",
        ["reconciliacion/sin-compensar-ordenes"],
        never,
        [
            "overcharge=$300",
            "overcharge=$500",
            "no su monto por cada fila de más",
            "le faltó por cobrar"
        ]
    ),
    case!(
        "reconciliación: cobro faltante solo de órdenes sin filas",
        ReconcileUnderchargeIgnoresPartial,
        Reconciliacion,
        "reconciliacion/sin-compensar-ordenes",
        ["reconciliacion/sin-compensar-ordenes"],
        never,
        [
            "undercharge=$300",
            "undercharge=$0",
            "cobrada $200 tiene $300 de cobro faltante"
        ]
    ),
    case!(
        "reconciliación: pierde los centavos",
        ReconcileWholeDollars,
        Reconciliacion,
        "reconciliacion/cargos-por-orden-no-por-key",
        ["reconciliacion/cargos-por-orden-no-por-key"],
        never,
        [
            "intended=$40,000,123.45",
            "intended=$40,000,123",
            "se perdieron los centavos"
        ]
    ),
    case!(
        "reconciliación: suma en i32 que da la vuelta",
        ReconcileWrappingI32,
        Reconciliacion,
        "reconciliacion/cargos-por-orden-no-por-key",
        ["reconciliacion/cargos-por-orden-no-por-key"],
        never,
        ["intended dio", "2^32", "desbordó", "i32::MAX", "Money"]
    ),
    case!(
        "reconciliación: suma en i32 que entra en pánico",
        ReconcilePanickingI32,
        Reconciliacion,
        "reconciliacion/cargos-por-orden-no-por-key",
        ["reconciliacion/cargos-por-orden-no-por-key"],
        never,
        [
            "pánico: attempt to add with overflow",
            "la suma desbordó",
            "i32::MAX",
            "Money"
        ]
    ),
    case!(
        "cifras de la lección fijas en el código (flotas)",
        ReconcileHardcodedForFleets,
        Reconciliacion,
        "reconciliacion/flota-2500",
        [],
        fleet_not_the_lessons,
        [
            "intended=$256,979",
            "cifras de la flota de la lección",
            "no copies"
        ]
    ),
    case!(
        "cifras de la lección fijas en el código (1000 órdenes)",
        ReconcileHardcodedFor1000,
        Reconciliacion,
        "reconciliacion/flota-1000-semilla-7",
        [],
        thousand_orders_not_the_lessons,
        [
            "intended=$256,979",
            "cifras de la flota de la lección",
            "no copies"
        ]
    ),
];

// ---------------------------------------------------------------- the tests

fn catalog() -> Catalog {
    Catalog::new(support::fixtures(), &[])
}

/// The ids of the checks `case` must fail, from the oracle.
fn must_fail(case: &Case, catalog: &Catalog) -> BTreeSet<String> {
    let mut ids: BTreeSet<String> = case.fixed.iter().map(|s| s.to_string()).collect();
    for s in &catalog.scenarios {
        if (case.scenarios)(s, &oracle::expect(s)) {
            ids.insert(format!("{}/{}", case.exercise.id(), s.name));
        }
    }
    ids
}

fn failing(graded: &Graded) -> BTreeMap<String, &Verdict> {
    graded
        .results
        .iter()
        .filter(|(_, v)| !v.passed())
        .map(|(c, v)| (c.id.clone(), v))
        .collect()
}

/// Checks one case; `Err` says what the grader got wrong about it. `Ok`
/// carries every failing check and the catcher's explanation.
fn judge(case: &Case, catalog: &Catalog) -> Result<String, String> {
    let graded = (case.grade)(catalog);
    let failed = failing(&graded);
    if failed.is_empty() {
        return Err("full marks: the mistake slipped through".into());
    }
    let want = must_fail(case, catalog);
    let got: BTreeSet<String> = failed.keys().cloned().collect();
    if got != want {
        return Err(format!(
            "failing checks differ\n  unexpected: {:?}\n  missing:    {:?}",
            got.difference(&want).collect::<Vec<_>>(),
            want.difference(&got).collect::<Vec<_>>()
        ));
    }
    let Some(verdict) = failed.get(case.catcher) else {
        return Err(format!("{} did not fail", case.catcher));
    };
    if !matches!(verdict, Verdict::Failed { .. }) {
        return Err(format!(
            "{} is not a wrong answer: {verdict:?}",
            case.catcher
        ));
    }
    let text = verdict.explanation().join("\n");
    let missing: Vec<_> = case.words.iter().filter(|w| !text.contains(*w)).collect();
    if !missing.is_empty() {
        return Err(format!("explanation lacks {missing:?}:\n{text}"));
    }
    let all: Vec<&str> = got.iter().map(String::as_str).collect();
    Ok(format!("[{}]\n{text}", all.join(", ")))
}

#[test]
fn every_kind_of_mistake_is_caught_by_the_check_named_for_it() {
    let catalog = catalog();
    let mut problems = Vec::new();
    let mut explanations = Vec::new();
    println!("| kind of mistake | mutant | check that catches it | caught |");
    println!("|---|---|---|---|");
    for case in CASES {
        let verdict = judge(case, &catalog);
        println!(
            "| {} | {} | {} | {} |",
            case.kind,
            case.mutant,
            case.catcher,
            if verdict.is_ok() { "yes" } else { "NO" }
        );
        match verdict {
            Ok(text) => explanations.push(format!("{} → {}\n{text}", case.mutant, case.catcher)),
            Err(e) => problems.push(format!("{} ({}): {e}", case.mutant, case.kind)),
        }
    }
    let caught = CASES.len() - problems.len();
    println!("caught: {caught}/{}\n", CASES.len());
    println!("{}", explanations.join("\n\n"));
    assert!(problems.is_empty(), "{}", problems.join("\n\n"));
}

#[test]
fn the_wrapped_reference_gets_full_marks() {
    let graded = grade_in_process::<Reference>(&catalog());
    let failed = failing(&graded);
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(graded.score().0, graded.results.len());
}

#[test]
fn the_hardcoded_fleet_fools_the_lessons_fleet_alone() {
    let catalog = catalog();
    for graded in [
        grade_in_process::<ReconcileHardcodedForFleets>(&catalog),
        grade_in_process::<ReconcileHardcodedFor1000>(&catalog),
    ] {
        let lessons = graded
            .results
            .iter()
            .find(|(c, _)| c.id == "reconciliacion/flota-1000")
            .expect("the lesson's fleet is graded");
        assert_eq!(lessons.1, Verdict::Passed);
    }
}
