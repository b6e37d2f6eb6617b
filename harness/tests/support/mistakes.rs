//! Mistakes more than one test target grades: the mutant suites
//! (`mutantes_*.rs`), the report formats (`formatos.rs`) and the hints
//! suite (`pistas.rs`). Each is the reference with one change.

use sim::{
    ChargeError, ChargeId, ChargeOutcome, ChargeRequest, ChargeResult, IdempotencyKey, KeyState,
    LedgerEntry, Money, Network, Order, OrderId, Payments, Percent, Reconciliation,
};
use solutions::PaymentsServer;
use solutions::reconciliation::reconcile;
use std::collections::HashMap;

use super::{Changed, ServerChange, Shared, StoreChange};

/// Server: the store keyed by the whole request `(key, order_id, amount)`,
/// so a retry carrying another amount is charged again.
pub struct StoreByRequest;

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

/// Lesson 2's loop with the key chosen by the caller: sends `order` with
/// `key` on every attempt until a response arrives, at most `max_attempts`
/// times. `sim` does not ship it (the harness keeps lesson 2's client
/// private), so the client mistakes that get only the key or the limit
/// wrong call this copy.
pub fn retry_with_key<P: Payments>(
    server: &mut P,
    network: &mut Network,
    order: &Order,
    key: IdempotencyKey,
    max_attempts: u32,
) -> ChargeOutcome {
    let mut attempts = 0;
    while attempts < max_attempts {
        attempts += 1;
        if let Some(result) = network.send(server, key, order.id, order.amount) {
            return ChargeOutcome {
                attempts,
                confirmed: Some(result),
            };
        }
    }
    ChargeOutcome {
        attempts,
        confirmed: None,
    }
}

/// Client: `attempts <= max_attempts`, one attempt too many.
pub fn one_attempt_too_many<P: Payments, K: sim::KeySource>(
    server: &mut P,
    network: &mut Network,
    keys: &mut K,
    order: &Order,
    max_attempts: u32,
) -> ChargeOutcome {
    let key = keys.new_key();
    retry_with_key(server, network, order, key, max_attempts + 1)
}

/// Client: one key, fixed once, reused for every operation.
pub fn one_key_for_all<P: Payments, K: sim::KeySource>(
    server: &mut P,
    network: &mut Network,
    _keys: &mut K,
    order: &Order,
    max_attempts: u32,
) -> ChargeOutcome {
    const THE_KEY: IdempotencyKey = IdempotencyKey(0x0c11_e07e);
    retry_with_key(server, network, order, THE_KEY, max_attempts)
}

/// Reconciliation: the percentage over the charged total.
pub fn percent_of_charged(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = reconcile(orders, ledger);
    Reconciliation {
        overcharge_pct: Percent::of(r.overcharge, r.charged),
        ..r
    }
}

/// Reconciliation: "charged 2+ times" counted per key instead of per order.
pub fn counted_per_key(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
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
pub fn netted(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let r = reconcile(orders, ledger);
    let overcharge = r.charged.saturating_excess(r.intended);
    Reconciliation {
        overcharge,
        undercharge: r.intended.saturating_excess(r.charged),
        overcharge_pct: Percent::of(overcharge, r.intended),
        ..r
    }
}

// ------------------------------------------------- exercise 4 (bonus)

/// The one mistake a kit's shared server makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreMistake {
    /// None: lesson 4's rules (the base every mutant changes).
    None,
    /// Compares only the order: the same key with another amount replays.
    ReuseOtherAmount,
    /// Compares only the amount: the same key with another order replays.
    ReuseOtherOrder,
    /// Rejects a reuse, but writes its row in the ledger first.
    RejectedReuseWritesRow,
    /// Rejects a reuse, but stores the second request under the key.
    RejectedReuseRewritesStore,
    /// A replay charges again (the ledger grows) and answers the stored
    /// result.
    ReplayChargesAgain,
    /// Charge ids numbered by the calls received, not by ledger rows.
    ChargeIdsByCalls,
    /// Answers a reuse with `Err(InFlight)` instead of `Err(KeyReused)`.
    ReuseAnsweredInFlight,
    /// Never stores the result: the key stays `InFlight` for ever.
    InFlightNeverCleared,
    /// A store "bounded" at 2^17 keys: full, it is emptied (a replay of a
    /// key charged before that is charged again).
    StoreClearedAt131072,
    /// Charge ids from the ledger's length cut to `u16`: row 65,537 is
    /// `ch_0001` again.
    ChargeIdsU16,
}

/// Lesson 4's claim-charge-store (as the reference does it) with mistake `m`.
pub fn lesson4<C: StoreChange>(
    s: &Shared<C>,
    key: IdempotencyKey,
    order_id: OrderId,
    amount: Money,
    m: StoreMistake,
) -> Result<ChargeResult, ChargeError> {
    let request = ChargeRequest { order_id, amount };
    {
        let mut store = s.store.lock();
        let found = store.get(&key).copied();
        if let Some(state) = found {
            let first = state.request();
            let same = match m {
                StoreMistake::ReuseOtherAmount => first.order_id == order_id,
                StoreMistake::ReuseOtherOrder => first.amount == amount,
                _ => first == request,
            };
            if !same {
                match m {
                    StoreMistake::RejectedReuseWritesRow => {
                        drop(store);
                        s.charge_new(key, order_id, amount);
                    }
                    StoreMistake::RejectedReuseRewritesStore => {
                        let rewritten = match state {
                            KeyState::Completed(_, r) => KeyState::Completed(request, r),
                            KeyState::InFlight(_) => KeyState::InFlight(request),
                        };
                        store.insert(key, rewritten);
                    }
                    StoreMistake::ReuseAnsweredInFlight => return Err(ChargeError::InFlight),
                    _ => {}
                }
                return Err(ChargeError::KeyReused);
            }
            return match state {
                KeyState::Completed(_, result) => {
                    if m == StoreMistake::ReplayChargesAgain {
                        drop(store);
                        s.charge_new(key, order_id, amount);
                    }
                    Ok(result)
                }
                KeyState::InFlight(_) => Err(ChargeError::InFlight),
            };
        }
        if m == StoreMistake::StoreClearedAt131072 && store.len() >= 131_072 {
            store.clear();
        }
        store.insert(key, KeyState::InFlight(request));
    }
    let result = match m {
        StoreMistake::ChargeIdsByCalls => {
            let calls = *s.calls.lock();
            s.charge_numbered(key, order_id, amount, |_| ChargeId(calls))
        }
        StoreMistake::ChargeIdsU16 => s.charge_numbered(key, order_id, amount, |rows| {
            ChargeId::next_after(usize::from(rows as u16))
        }),
        _ => s.charge_new(key, order_id, amount),
    };
    if m != StoreMistake::InFlightNeverCleared {
        s.store
            .lock()
            .insert(key, KeyState::Completed(request, result));
    }
    Ok(result)
}

/// Declares a [`StoreChange`] named `$name` that makes mistake `$m`
/// ([`StoreMistake`]).
#[macro_export]
macro_rules! store_mistake {
    ($name:ident, $m:ident) => {
        #[doc = concat!("Lesson 4's server with mistake `", stringify!($m), "`.")]
        struct $name;
        impl support::StoreChange for $name {
            fn charge(
                s: &support::Shared<Self>,
                key: sim::IdempotencyKey,
                order_id: sim::OrderId,
                amount: sim::Money,
            ) -> Result<sim::ChargeResult, sim::ChargeError> {
                support::mistakes::lesson4(
                    s,
                    key,
                    order_id,
                    amount,
                    support::mistakes::StoreMistake::$m,
                )
            }
        }
    };
}

/// The reference's reconciliation after `order` changes every order and
/// `row` every ledger row (a mistake in how the inputs are read: amounts
/// cut to dollars, ids cut to 32 bits).
pub fn reconcile_read_as(
    orders: &[Order],
    ledger: &[LedgerEntry],
    order: impl Fn(Order) -> Order,
    row: impl Fn(LedgerEntry) -> LedgerEntry,
) -> Reconciliation {
    let orders: Vec<Order> = orders.iter().copied().map(order).collect();
    let ledger: Vec<LedgerEntry> = ledger.iter().copied().map(row).collect();
    reconcile(&orders, &ledger)
}
