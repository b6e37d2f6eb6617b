//! Exercise 3's checks: reconciliation of hand-made ledgers.

use sim::{
    ChargeId, IdempotencyKey, Kit, LedgerEntry, Money, Order, OrderId, Percent, Reconciliation,
};

use crate::verdict::Verdict;

/// `(id, title)` of every fixed check of exercise 3.
pub const CHECKS: &[(&str, &str)] = &[
    (
        "entradas-vacias-dan-ceros",
        "sin órdenes ni ledger todo es cero (sin dividir por cero)",
    ),
    (
        "cargos-por-orden-no-por-key",
        "las órdenes cobradas 2+ veces se cuentan por orden, no por key",
    ),
    (
        "sin-compensar-ordenes",
        "un cobro faltante no compensa un doble cargo de otra orden",
    ),
    (
        "porcentaje-sobre-la-intencion",
        "el porcentaje de sobrecobro es sobre la intención, no sobre lo cobrado",
    ),
    (
        "filas-de-ordenes-desconocidas",
        "las filas de órdenes desconocidas se cuentan aparte",
    ),
];

fn order(id: u64, dollars: i64) -> Order {
    Order {
        id: OrderId(id),
        amount: Money::from_dollars(dollars),
    }
}

fn rows(spec: &[(u64, u64, i64)]) -> Vec<LedgerEntry> {
    spec.iter()
        .enumerate()
        .map(|(i, &(key, order, dollars))| LedgerEntry {
            key: IdempotencyKey(key),
            order_id: OrderId(order),
            amount: Money::from_dollars(dollars),
            charge_id: ChargeId(i as u64 + 1),
        })
        .collect()
}

/// Lists the fields where `got` differs from `want`, in Spanish.
pub fn differences(want: &Reconciliation, got: &Reconciliation) -> (String, String) {
    let fields: [(&str, String, String); 9] = [
        (
            "intended",
            want.intended.to_string(),
            got.intended.to_string(),
        ),
        ("charged", want.charged.to_string(), got.charged.to_string()),
        ("charges", want.charges.to_string(), got.charges.to_string()),
        (
            "orders_charged_twice_or_more",
            want.orders_charged_twice_or_more.to_string(),
            got.orders_charged_twice_or_more.to_string(),
        ),
        (
            "orders_never_charged",
            want.orders_never_charged.to_string(),
            got.orders_never_charged.to_string(),
        ),
        (
            "unknown_order_rows",
            want.unknown_order_rows.to_string(),
            got.unknown_order_rows.to_string(),
        ),
        (
            "overcharge",
            want.overcharge.to_string(),
            got.overcharge.to_string(),
        ),
        (
            "undercharge",
            want.undercharge.to_string(),
            got.undercharge.to_string(),
        ),
        (
            "overcharge_pct",
            want.overcharge_pct.to_string(),
            got.overcharge_pct.to_string(),
        ),
    ];
    let pct_differs = want.overcharge_pct != got.overcharge_pct;
    let (mut w, mut g) = (Vec::new(), Vec::new());
    for (name, a, b) in fields {
        if a != b || (name == "overcharge_pct" && pct_differs) {
            w.push(format!("{name}={a}"));
            g.push(format!("{name}={b}"));
        }
    }
    (w.join(", "), g.join(", "))
}

fn compare(case: &str, want: Reconciliation, got: Reconciliation, hint: &str) -> Verdict {
    if want == got {
        return Verdict::Passed;
    }
    let (w, g) = differences(&want, &got);
    Verdict::failed(format!("{case}: {w}"), g, hint)
}

/// Runs fixed check `id` against `K`'s reconciliation.
///
/// # Panics
/// On an unknown `id`.
pub fn run<K: Kit>(id: &str) -> Verdict {
    match id {
        "entradas-vacias-dan-ceros" => empty::<K>(),
        "cargos-por-orden-no-por-key" => per_order::<K>(),
        "sin-compensar-ordenes" => no_netting::<K>(),
        "porcentaje-sobre-la-intencion" => percentage::<K>(),
        "filas-de-ordenes-desconocidas" => unknown_orders::<K>(),
        other => panic!("unknown reconciliation check {other}"),
    }
}

fn empty<K: Kit>() -> Verdict {
    let hint = "con entradas vacías todo es cero: no dividas por una intención de $0 (Percent::of ya devuelve 0%) ni leas ledger[0].";
    let v = compare(
        "sin órdenes ni ledger",
        Reconciliation::default(),
        K::reconcile(&[], &[]),
        hint,
    );
    if !v.passed() {
        return v;
    }
    let orders = [order(1, 500), order(2, 300)];
    let want = Reconciliation {
        intended: Money::from_dollars(800),
        orders_never_charged: 2,
        undercharge: Money::from_dollars(800),
        ..Reconciliation::default()
    };
    compare(
        "dos órdenes ($500, $300) y ledger vacío",
        want,
        K::reconcile(&orders, &[]),
        hint,
    )
}

fn per_order<K: Kit>() -> Verdict {
    // Order 1 charged twice under two keys (lesson 3's key per attempt);
    // orders 2 and 3 charged once each, under one shared key.
    let orders = [order(1, 500), order(2, 300), order(3, 200)];
    let ledger = rows(&[(11, 1, 500), (12, 1, 500), (20, 2, 300), (20, 3, 200)]);
    let want = Reconciliation {
        intended: Money::from_dollars(1000),
        charged: Money::from_dollars(1500),
        charges: 4,
        orders_charged_twice_or_more: 1,
        overcharge: Money::from_dollars(500),
        overcharge_pct: Percent::of(Money::from_dollars(500), Money::from_dollars(1000)),
        ..Reconciliation::default()
    };
    compare(
        "orden 1 cobrada con dos keys distintas, órdenes 2 y 3 con una key compartida",
        want,
        K::reconcile(&orders, &ledger),
        "une el ledger con las órdenes por order id: una orden cobrada dos veces con keys distintas (el error de la lección 3) también es un doble cargo, y una key repetida en dos órdenes no lo es.",
    )
}

fn no_netting<K: Kit>() -> Verdict {
    let orders = [order(1, 500), order(2, 300)];
    let ledger = rows(&[(1, 1, 500), (2, 1, 500)]);
    let want = Reconciliation {
        intended: Money::from_dollars(800),
        charged: Money::from_dollars(1000),
        charges: 2,
        orders_charged_twice_or_more: 1,
        orders_never_charged: 1,
        overcharge: Money::from_dollars(500),
        undercharge: Money::from_dollars(300),
        overcharge_pct: Percent::of(Money::from_dollars(500), Money::from_dollars(800)),
        ..Reconciliation::default()
    };
    compare(
        "orden 1 ($500) cobrada dos veces, orden 2 ($300) nunca",
        want,
        K::reconcile(&orders, &ledger),
        "suma el sobrecobro orden por orden (lo cobrado de más a cada una) y el cobro faltante aparte: charged − intended = $200 esconde $500 cobrados de más a un comprador y $300 sin cobrar a otro.",
    )
}

fn percentage<K: Kit>() -> Verdict {
    let orders = [order(1, 600), order(2, 400)];
    let ledger = rows(&[(1, 1, 600), (2, 1, 600), (3, 2, 400)]);
    let want = Reconciliation {
        intended: Money::from_dollars(1000),
        charged: Money::from_dollars(1600),
        charges: 3,
        orders_charged_twice_or_more: 1,
        overcharge: Money::from_dollars(600),
        overcharge_pct: Percent::of(Money::from_dollars(600), Money::from_dollars(1000)),
        ..Reconciliation::default()
    };
    compare(
        "intención $1,000, orden 1 ($600) cobrada dos veces",
        want,
        K::reconcile(&orders, &ledger),
        "el porcentaje es sobre la intención: $48,139 de $256,979 es el 18.7% de más de la lección (Percent::of(overcharge, intended)), no sobre el total cobrado.",
    )
}

fn unknown_orders<K: Kit>() -> Verdict {
    let orders = [order(1, 500)];
    let ledger = rows(&[(1, 1, 500), (2, 99, 70)]);
    let want = Reconciliation {
        intended: Money::from_dollars(500),
        charged: Money::from_dollars(570),
        charges: 2,
        unknown_order_rows: 1,
        ..Reconciliation::default()
    };
    compare(
        "orden 1 cobrada una vez y una fila de $70 para la orden 99, que no existe",
        want,
        K::reconcile(&orders, &ledger),
        "una fila cuyo order id no está entre las órdenes no es sobrecobro de ninguna orden: cuéntala en unknown_order_rows (y en charged y charges, porque está en el ledger).",
    )
}
