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

/// The intended total of the lesson's fleet (ejemplo trabajado II).
const LESSONS_INTENDED: Money = Money::from_dollars(256_979);

/// Names the mistake behind `got` (for a case with this `ledger`, where
/// `want` was right), one hint per mistake recognised, or `default` when none is.
pub fn explain(
    ledger: &[LedgerEntry],
    want: &Reconciliation,
    got: &Reconciliation,
    default: &str,
) -> String {
    if got.intended == LESSONS_INTENDED && want.intended != LESSONS_INTENDED {
        return "esas son las cifras de la flota de la lección ($256,979 de intención, $48,139 de sobrecobro, 146 órdenes), pero este escenario es otro: calcula desde las órdenes y el ledger que recibes, no copies la tabla de la lección.".to_string();
    }
    let mut hints: Vec<&str> = Vec::new();
    let over_charged = |r: &Reconciliation| Percent::of(r.overcharge, r.charged);
    if got.overcharge_pct != want.overcharge_pct
        && got.overcharge != Money::ZERO
        && got.overcharge_pct == over_charged(got)
        && got.overcharge_pct != Percent::of(got.overcharge, got.intended)
    {
        hints.push(
            "el porcentaje es sobre la intención, no sobre el total cobrado: $48,139 de $256,979 es el 18.7% de más de la lección (Percent::of(overcharge, intended)).",
        );
    }
    let net = |r: &Reconciliation| r.charged.saturating_excess(r.intended);
    if got.overcharge != want.overcharge
        && got.overcharge == net(got)
        && want.overcharge != net(want)
    {
        hints.push(
            "el sobrecobro salió de charged − intended, y ese neto esconde lo que pasa orden por orden: un cobro faltante en una orden compensa un doble cargo en otra, y una fila de una orden desconocida cuenta como sobrecobro. Suma el sobrecobro orden por orden y el cobro faltante aparte.",
        );
    }
    let per_key = twice_or_more_per_key(ledger);
    if got.orders_charged_twice_or_more != want.orders_charged_twice_or_more
        && got.orders_charged_twice_or_more == per_key
    {
        hints.push(
            "las órdenes cobradas 2+ veces se contaron por key, no por order id: una orden cobrada con keys distintas (el error de la lección 3) también es un doble cargo, y una key repetida en dos órdenes no lo es.",
        );
    }
    if hints.is_empty() {
        default.to_string()
    } else {
        hints.join(" Además, ")
    }
}

/// How many keys have two or more ledger rows (the per-key miscount).
fn twice_or_more_per_key(ledger: &[LedgerEntry]) -> u64 {
    let mut keys: Vec<IdempotencyKey> = ledger.iter().map(|r| r.key).collect();
    keys.sort_unstable();
    let mut count = 0;
    let mut i = 0;
    while i < keys.len() {
        let run = keys[i..].iter().take_while(|k| **k == keys[i]).count();
        count += u64::from(run >= 2);
        i += run;
    }
    count
}

/// Runs `K::reconcile` on one case and compares every field with `want`.
fn compare<K: Kit>(
    case: &str,
    orders: &[Order],
    ledger: &[LedgerEntry],
    want: Reconciliation,
    hint: &str,
) -> Verdict {
    verdict_of(case, ledger, want, K::reconcile(orders, ledger), hint)
}

/// Compares `got` with `want` field by field, naming the mistake.
fn verdict_of(
    case: &str,
    ledger: &[LedgerEntry],
    want: Reconciliation,
    got: Reconciliation,
    hint: &str,
) -> Verdict {
    if want == got {
        return Verdict::Passed;
    }
    let (w, g) = differences(&want, &got);
    Verdict::failed(
        format!("{case}: {w}"),
        g,
        explain(ledger, &want, &got, hint),
    )
}

/// `want` in words for a case where the code panicked.
fn describe_zero_or(want: &Reconciliation) -> String {
    let (w, _) = differences(want, &Reconciliation::default());
    if w.is_empty() {
        "todo en cero, sin pánico".to_string()
    } else {
        format!("{w}, sin pánico")
    }
}

/// Runs `job`; a panic other than `todo!()` becomes `Err(message)`. A
/// `todo!()` keeps unwinding, so the check is reported pending.
fn contain_panic<T>(job: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "(sin mensaje)".to_string());
        if message.starts_with("not yet implemented") {
            std::panic::resume_unwind(payload);
        }
        message
    })
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
    let hint = "con entradas vacías todo es cero: no dividas por una intención de $0 (Percent::of ya devuelve 0%) ni leas ledger[0] ni hagas unwrap() de un máximo o un primer elemento que no existe.";
    let orders = [order(1, 500), order(2, 300)];
    let cases = [
        (
            "sin órdenes ni ledger",
            &orders[..0],
            Reconciliation::default(),
        ),
        (
            "dos órdenes ($500, $300) y ledger vacío",
            &orders[..],
            Reconciliation {
                intended: Money::from_dollars(800),
                orders_never_charged: 2,
                undercharge: Money::from_dollars(800),
                ..Reconciliation::default()
            },
        ),
    ];
    for (case, orders, want) in cases {
        let v = match contain_panic(|| K::reconcile(orders, &[])) {
            Ok(got) => verdict_of(case, &[], want, got, hint),
            Err(message) => Verdict::failed(
                format!("{case}: {}", describe_zero_or(&want)),
                format!("pánico: {message}"),
                hint,
            ),
        };
        if !v.passed() {
            return v;
        }
    }
    Verdict::Passed
}

fn per_order<K: Kit>() -> Verdict {
    // Orders 1 and 4 charged twice, each under two keys (lesson 3's key per
    // attempt); orders 2 and 3 charged once each, under one shared key. Per
    // key that would be one key charged twice instead of two orders.
    let orders = [order(1, 500), order(2, 300), order(3, 200), order(4, 100)];
    let ledger = rows(&[
        (11, 1, 500),
        (12, 1, 500),
        (20, 2, 300),
        (20, 3, 200),
        (41, 4, 100),
        (42, 4, 100),
    ]);
    let want = Reconciliation {
        intended: Money::from_dollars(1100),
        charged: Money::from_dollars(1700),
        charges: 6,
        orders_charged_twice_or_more: 2,
        overcharge: Money::from_dollars(600),
        overcharge_pct: Percent::of(Money::from_dollars(600), Money::from_dollars(1100)),
        ..Reconciliation::default()
    };
    compare::<K>(
        "órdenes 1 y 4 cobradas dos veces con keys distintas, órdenes 2 y 3 con una key compartida",
        &orders,
        &ledger,
        want,
        "une el ledger con las órdenes por order id: una orden cobrada dos veces con keys distintas (el error de la lección 3) también es un doble cargo, y una key repetida en dos órdenes no lo es.",
    )
}

fn no_netting<K: Kit>() -> Verdict {
    // Order 1's retry carried the same key (a server without idempotency);
    // order 2 was never charged. In total, charged = intended.
    let orders = [order(1, 500), order(2, 500)];
    let ledger = rows(&[(1, 1, 500), (1, 1, 500)]);
    let want = Reconciliation {
        intended: Money::from_dollars(1000),
        charged: Money::from_dollars(1000),
        charges: 2,
        orders_charged_twice_or_more: 1,
        orders_never_charged: 1,
        overcharge: Money::from_dollars(500),
        undercharge: Money::from_dollars(500),
        overcharge_pct: Percent::of(Money::from_dollars(500), Money::from_dollars(1000)),
        ..Reconciliation::default()
    };
    compare::<K>(
        "orden 1 ($500) cobrada dos veces, orden 2 ($500) nunca",
        &orders,
        &ledger,
        want,
        "suma el sobrecobro orden por orden (lo cobrado de más a cada una) y el cobro faltante aparte: charged − intended = $0 esconde $500 cobrados de más a un comprador y $500 sin cobrar a otro.",
    )
}

fn percentage<K: Kit>() -> Verdict {
    let orders = [order(1, 600), order(2, 400)];
    let ledger = rows(&[(1, 1, 600), (1, 1, 600), (2, 2, 400)]);
    let want = Reconciliation {
        intended: Money::from_dollars(1000),
        charged: Money::from_dollars(1600),
        charges: 3,
        orders_charged_twice_or_more: 1,
        overcharge: Money::from_dollars(600),
        overcharge_pct: Percent::of(Money::from_dollars(600), Money::from_dollars(1000)),
        ..Reconciliation::default()
    };
    compare::<K>(
        "intención $1,000, orden 1 ($600) cobrada dos veces",
        &orders,
        &ledger,
        want,
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
    compare::<K>(
        "orden 1 cobrada una vez y una fila de $70 para la orden 99, que no existe",
        &orders,
        &ledger,
        want,
        "una fila cuyo order id no está entre las órdenes no es sobrecobro de ninguna orden: cuéntala en unknown_order_rows (y en charged y charges, porque está en el ledger).",
    )
}
