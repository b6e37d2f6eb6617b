//! Wrong solutions of exercise 3, the reconciliation metric (issue 3): each
//! kit is the reference with one small change to its `reconcile`. Every
//! one must lose marks on the check named for its mistake, with an
//! explanation in the lesson's words, and on no check unrelated to it.
//!
//! One test per mutant: `cargo test -p harness reconcile_netted`;
//! `-- --nocapture` prints the failing checks and the catcher's
//! explanation.

use crate::support;
use crate::{kit, mutant};

use std::collections::{BTreeMap, BTreeSet};

use judge::fixture::Scenario;
use judge::oracle::Expected;
use judge::verdict::Verdict;
use sim::{LedgerEntry, Money, Order, OrderId, Percent, Reconciliation};
use support::mistakes::{counted_per_key, netted, percent_of_charged, reconcile_read_as};
use support::{any_retry, never};

use solutions::reconciliation::reconcile;

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
    reconcile_read_as(
        orders,
        ledger,
        |o| Order {
            amount: cut(o.amount),
            ..o
        },
        |r| LedgerEntry {
            amount: cut(r.amount),
            ..r
        },
    )
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

// ---------------------------------------------------------------- the cases

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

kit!(ReconcilePercentOfCharged {
    reconcile: percent_of_charged
});
mutant!(
    reconcile_percent_of_charged:
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
);

kit!(ReconcileCountedPerKey {
    reconcile: counted_per_key
});
mutant!(
    reconcile_counted_per_key:
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
);

kit!(ReconcileNetted { reconcile: netted });
mutant!(
    reconcile_netted:
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
);

kit!(ReconcilePanicsOnEmpty {
    reconcile: panics_on_empty
});
mutant!(
    reconcile_panics_on_empty:
        "reconciliación: pánico con entradas vacías",
        ReconcilePanicsOnEmpty,
        Reconciliacion,
        "reconciliacion/entradas-vacias-dan-ceros",
        ["reconciliacion/entradas-vacias-dan-ceros"],
        never,
        ["pánico", "entradas vacías", "ledger[0]"]
);

kit!(ReconcileNeverChargedByDistinctIds {
    reconcile: never_charged_by_distinct_ids
});
mutant!(
    reconcile_never_charged_by_distinct_ids:
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
);

kit!(ReconcileTwiceCountsUnknown {
    reconcile: twice_counts_unknown
});
mutant!(
    reconcile_twice_counts_unknown:
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
);

kit!(ReconcileUnknownCountsIds {
    reconcile: unknown_counts_ids
});
mutant!(
    reconcile_unknown_counts_ids:
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
);

kit!(ReconcileOverchargeByRows {
    reconcile: overcharge_by_rows
});
mutant!(
    reconcile_overcharge_by_rows:
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
);

kit!(ReconcileUnderchargeIgnoresPartial {
    reconcile: undercharge_ignores_partial
});
mutant!(
    reconcile_undercharge_ignores_partial:
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
);

kit!(ReconcileWholeDollars {
    reconcile: whole_dollars
});
mutant!(
    reconcile_whole_dollars:
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
);

kit!(ReconcileWrappingI32 {
    reconcile: wrapping_i32
});
mutant!(
    reconcile_wrapping_i32:
        "reconciliación: suma en i32 que da la vuelta",
        ReconcileWrappingI32,
        Reconciliacion,
        "reconciliacion/cargos-por-orden-no-por-key",
        ["reconciliacion/cargos-por-orden-no-por-key"],
        never,
        ["intended dio", "2^32", "desbordó", "i32::MAX", "Money"]
);

kit!(ReconcilePanickingI32 {
    reconcile: panicking_i32
});
mutant!(
    reconcile_panicking_i32:
        "reconciliación: suma en i32 que entra en pánico",
        ReconcilePanickingI32,
        Reconciliacion,
        "reconciliacion/cargos-por-orden-no-por-key",
        ["reconciliacion/cargos-por-orden-no-por-key"],
        never,
        [
            // The judge names where it panicked: "pánico en FILE:LINE:COL: …".
            "pánico en ",
            ": attempt to add with overflow",
            "la suma desbordó",
            "i32::MAX",
            "Money"
        ]
);

kit!(ReconcileHardcodedForFleets {
    reconcile: hardcoded_for_fleets
});
mutant!(
    reconcile_hardcoded_for_fleets:
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
);

kit!(ReconcileHardcodedFor1000 {
    reconcile: hardcoded_for_1000_orders
});
mutant!(
    reconcile_hardcoded_for_1000:
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
);

/// The hard-coded figures are the lesson's: on the lesson's own fleet they
/// are right, and only the other fleets can catch them.
#[test]
fn the_hardcoded_fleet_fools_the_lessons_fleet_alone() {
    let catalog = support::catalog();
    for graded in [
        support::grade_in_process::<ReconcileHardcodedForFleets>(catalog),
        support::grade_in_process::<ReconcileHardcodedFor1000>(catalog),
    ] {
        let lessons = graded
            .results
            .iter()
            .find(|(c, _)| c.id == "reconciliacion/flota-1000")
            .expect("the lesson's fleet is graded");
        assert_eq!(lessons.1, Verdict::Passed);
    }
}
