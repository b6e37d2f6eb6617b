//! Exercise 3's checks: reconciliation of hand-made ledgers.

use std::collections::{BTreeMap, BTreeSet};

use sim::{ChargeId, IdempotencyKey, LedgerEntry, Money, Order, OrderId, Percent, Reconciliation};

use crate::runner::{self, Execute};
use crate::verdict::{Hint, Verdict};

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
    join_hints(hints(ledger, want, got), default).0
}

/// Like [`explain`], for a case whose `orders` are known too: also names the
/// mistakes that only the orders reveal (rows of unknown orders, partial
/// charges).
pub(crate) fn explain_case(
    orders: &[Order],
    ledger: &[LedgerEntry],
    want: &Reconciliation,
    got: &Reconciliation,
    default: &str,
) -> Hint {
    // Every figure is explained by the cut: other ways of counting that
    // happen to give some of them prove nothing more.
    if let Some(hint) = cut_ids_hint(orders, ledger, want, got) {
        return hint;
    }
    let mut all = hints(ledger, want, got);
    all.extend(order_hints(orders, ledger, want, got));
    if all.is_empty()
        && let Some(hint) = field_hint(want, got)
    {
        return (hint.to_string(), None);
    }
    join_hints(all, default)
}

/// The hint of a large case (a million rows): only what the figures show,
/// the meaning of the one field that differs (or `default`); the other
/// hints recompute the books several ways, which takes the unoptimised
/// judge seconds per way.
pub(crate) fn explain_large(want: &Reconciliation, got: &Reconciliation, default: &str) -> String {
    field_hint(want, got).unwrap_or(default).to_string()
}

/// When exactly one field is wrong (the percentage aside when the
/// overcharge is wrong too), what that field means: a check's own hint
/// would point at another rule.
fn field_hint(want: &Reconciliation, got: &Reconciliation) -> Option<&'static str> {
    let (differing, _) = differences(want, got);
    let mut wrong: Vec<&str> = differing
        .split(", ")
        .filter_map(|part| part.split_once('=').map(|(name, _)| name))
        .collect();
    if wrong.contains(&"overcharge") {
        wrong.retain(|f| *f != "overcharge_pct");
    }
    let [field] = wrong[..] else {
        return None;
    };
    Some(match field {
        "intended" => "intended es la suma de los montos de todas las órdenes (la intención).",
        "charged" => {
            "charged es la suma de todas las filas del ledger, también las de órdenes desconocidas."
        }
        "charges" => "charges es el número de filas del ledger, todas.",
        "orders_charged_twice_or_more" => {
            "orders_charged_twice_or_more cuenta las órdenes que tienen 2 o más filas en el ledger (\"ordenes cobradas 2+ veces\"): 2 filas ya cuentan, por order id, sin mirar los montos ni las keys."
        }
        "orders_never_charged" => {
            "orders_never_charged cuenta las órdenes sin ninguna fila en el ledger."
        }
        "unknown_order_rows" => {
            "unknown_order_rows cuenta las filas (no los order ids distintos) cuyo order id no está entre las órdenes."
        }
        "overcharge" => {
            "overcharge suma, orden por orden, lo cobrado por encima de su monto: nunca negativo y sin compensar con otras órdenes."
        }
        "undercharge" => {
            "undercharge suma, orden por orden, lo que le faltó cobrar a cada una: nunca negativo y sin compensar con otras órdenes."
        }
        "overcharge_pct" => {
            "overcharge_pct es el sobrecobro como porcentaje de la intención: Percent::of(overcharge, intended)."
        }
        _ => return None,
    })
}

/// The hints in one text, owned by the first one's check; `default` (owned
/// by no check) when there are none.
fn join_hints(hints: Vec<Hint>, default: &str) -> Hint {
    let owner = hints.first().and_then(|h| h.1);
    if hints.is_empty() {
        return (default.to_string(), None);
    }
    let texts: Vec<String> = hints.into_iter().map(|h| h.0).collect();
    (texts.join(" Además, "), owner)
}

/// The money fields of a reconciliation, by name.
fn money_fields(r: &Reconciliation) -> [(&'static str, Money); 4] {
    [
        ("intended", r.intended),
        ("charged", r.charged),
        ("overcharge", r.overcharge),
        ("undercharge", r.undercharge),
    ]
}

/// The hints that `ledger`, `want` and `got` alone reveal.
fn hints(ledger: &[LedgerEntry], want: &Reconciliation, got: &Reconciliation) -> Vec<Hint> {
    let mut hints: Vec<Hint> = Vec::new();
    let over_charged = |r: &Reconciliation| Percent::of(r.overcharge, r.charged);
    if got.overcharge_pct != want.overcharge_pct
        && got.overcharge != Money::ZERO
        && got.overcharge_pct == over_charged(got)
        && got.overcharge_pct != Percent::of(got.overcharge, got.intended)
    {
        hints.push((
            "el porcentaje es sobre la intención, no sobre el total cobrado: $48,139 de $256,979 es el 18.7% de más de la lección (Percent::of(overcharge, intended)).".to_string(),
            Some("porcentaje-sobre-la-intencion"),
        ));
    }
    let net_over = |r: &Reconciliation| r.charged.saturating_excess(r.intended);
    let net_under = |r: &Reconciliation| r.intended.saturating_excess(r.charged);
    // Both figures are the net, and the net is wrong for at least one.
    let netted = (got.overcharge, got.undercharge) != (want.overcharge, want.undercharge)
        && (got.overcharge, got.undercharge) == (net_over(got), net_under(got))
        && (want.overcharge, want.undercharge) != (net_over(want), net_under(want));
    if netted {
        hints.push((
            "el sobrecobro salió de charged − intended, y ese neto esconde lo que pasa orden por orden: un cobro faltante en una orden compensa un doble cargo en otra, y una fila de una orden desconocida cuenta como sobrecobro. Suma el sobrecobro orden por orden y el cobro faltante aparte.".to_string(),
            Some("sin-compensar-ordenes"),
        ));
    }
    // A count that equals another way of counting, and only when that way
    // gives a number of its own on this ledger (keys that repeat, orders
    // charged above their amount): otherwise the coincidence proves nothing.
    let twice = |r: &Reconciliation| r.orders_charged_twice_or_more;
    let per_key = twice_or_more_per_key(ledger);
    if twice(got) != twice(want) && twice(got) == per_key && repeated_keys(ledger) {
        hints.push((
            format!(
                "tu orders_charged_twice_or_more ({}) es el número de keys con 2+ filas, no el de órdenes con 2+ filas ({}): las órdenes cobradas 2+ veces se contaron por key, no por order id. Una orden cobrada con keys distintas (el error de la lección 3) también es un doble cargo, y una key repetida en dos órdenes no lo es.",
                twice(got),
                twice(want)
            ),
            Some("cargos-por-orden-no-por-key"),
        ));
    }
    hints.extend(money_hints(want, got));
    hints
}

/// Whether some key has two or more rows in `ledger`.
fn repeated_keys(ledger: &[LedgerEntry]) -> bool {
    let mut keys: Vec<IdempotencyKey> = ledger.iter().map(|r| r.key).collect();
    keys.sort_unstable();
    keys.windows(2).any(|w| w[0] == w[1])
}

/// The hints about money fields: sums that wrapped in 32 bits or lost
/// their cents.
fn money_hints(want: &Reconciliation, got: &Reconciliation) -> Vec<Hint> {
    let mut hints: Vec<Hint> = Vec::new();
    let fields = money_fields(want).into_iter().zip(money_fields(got));
    let pairs: Vec<(&str, Money, Money)> = fields.map(|((n, w), (_, g))| (n, w, g)).collect();
    // A sum that wrapped around in 32 bits is off by a multiple of 2^32.
    let wrapped = |w: Money, g: Money| w != g && (w.cents() - g.cents()).rem_euclid(1 << 32) == 0;
    if let Some((name, w, g)) = pairs.iter().find(|(_, w, g)| wrapped(*w, *g)) {
        hints.push((format!(
            "{name} dio {g} en vez de {w}: la diferencia es un múltiplo exacto de 2^32 centavos, la huella de una suma que desbordó un entero de 32 bits (i32::MAX centavos son $21,474,836.47). Suma en Money, que guarda i64 de centavos; nunca en i32 ni u32."
        ), None));
    } else if let Some((name, w, g)) = pairs
        .iter()
        .find(|(_, w, g)| w != g && w.cents() % 100 != 0 && g.cents() % 100 == 0)
    {
        hints.push((format!(
            "{name} dio {g} en vez de {w}: se perdieron los centavos. Los montos son centavos enteros (Money): súmalos tal cual, sin pasarlos a dólares enteros ni a f64."
        ), None));
    }
    hints
}

/// The hints that need the orders: what was never charged, rows of unknown
/// orders, charges of part of an order's amount.
fn order_hints(
    orders: &[Order],
    ledger: &[LedgerEntry],
    want: &Reconciliation,
    got: &Reconciliation,
) -> Vec<Hint> {
    let mut per_order: BTreeMap<OrderId, (Money, Money, u64)> = BTreeMap::new();
    for o in orders {
        per_order.entry(o.id).or_default().0 += o.amount;
    }
    let mut unknown: BTreeMap<OrderId, u64> = BTreeMap::new();
    for row in ledger {
        match per_order.get_mut(&row.order_id) {
            Some(t) => {
                t.1 += row.amount;
                t.2 += 1;
            }
            None => *unknown.entry(row.order_id).or_default() += 1,
        }
    }
    let mut hints = Vec::new();
    let ledger_ids: BTreeSet<OrderId> = ledger.iter().map(|r| r.order_id).collect();
    let by_distinct_ids = (per_order.len() as u64).saturating_sub(ledger_ids.len() as u64);
    if got.orders_never_charged != want.orders_never_charged
        && got.orders_never_charged == by_distinct_ids
    {
        hints.push((
            "orders_never_charged salió de restar los order ids distintos del ledger al número de órdenes, y así una orden desconocida tapa a una orden que nunca se cobró. Una orden nunca cobrada es una orden de la intención sin ninguna fila con su order id: búscala orden por orden.".to_string(),
            Some("filas-de-ordenes-desconocidas"),
        ));
    }
    let unknown_twice = unknown.values().filter(|&&n| n >= 2).count() as u64;
    if unknown_twice > 0
        && got.orders_charged_twice_or_more == want.orders_charged_twice_or_more + unknown_twice
    {
        hints.push((
            "orders_charged_twice_or_more contó también órdenes desconocidas con 2+ filas: solo una orden de la intención puede estar cobrada de más; las filas de una orden que no existe van a unknown_order_rows, no a los dobles cargos.".to_string(),
            Some("filas-de-ordenes-desconocidas"),
        ));
    }
    if got.unknown_order_rows != want.unknown_order_rows
        && got.unknown_order_rows == unknown.len() as u64
    {
        hints.push((
            "unknown_order_rows cuenta filas, no órdenes: dos filas de la misma orden desconocida son 2 (cada una es un cobro que nadie pidió y que hay que investigar).".to_string(),
            Some("filas-de-ordenes-desconocidas"),
        ));
    }
    let over_by_rows: Money = per_order
        .values()
        .map(|&(amount, _, rows)| amount * rows.saturating_sub(1))
        .sum();
    if got.overcharge != want.overcharge && got.overcharge == over_by_rows {
        hints.push((
            "el sobrecobro de una orden es lo cobrado por encima de su monto (la suma de sus filas menos su monto), no su monto por cada fila de más: una orden de $300 cobrada $300 + $100 tiene $100 de sobrecobro, no $300.".to_string(),
            Some("sin-compensar-ordenes"),
        ));
    }
    let never_charged: Money = per_order.values().filter(|t| t.2 == 0).map(|t| t.0).sum();
    if got.undercharge != want.undercharge && got.undercharge == never_charged {
        hints.push((
            "el cobro faltante de una orden es lo que le faltó por cobrar (su monto menos lo cobrado), también cuando se le cobró una parte: una orden de $500 cobrada $200 tiene $300 de cobro faltante aunque tenga su fila en el ledger.".to_string(),
            Some("sin-compensar-ordenes"),
        ));
    }
    let over_amount = per_order
        .values()
        .filter(|&&(amount, charged, _)| charged > amount)
        .count() as u64;
    let by_rows = want.orders_charged_twice_or_more;
    if got.orders_charged_twice_or_more != by_rows
        && got.orders_charged_twice_or_more == over_amount
        && hints.is_empty()
    {
        hints.push((
            format!(
                "tu orders_charged_twice_or_more ({}) es el número de órdenes a las que se cobró más que su monto, no el de órdenes con 2+ filas en el ledger ({by_rows}): dos filas que juntas no pasan el monto de la orden (dos cobros parciales) también son una orden cobrada 2+ veces. Cuenta las filas de cada order id, sin mirar los montos.",
                got.orders_charged_twice_or_more
            ),
            None,
        ));
    }
    hints
}

/// The hint for figures that are exactly those of joining by the order id
/// cut to 32 or 16 bits, when on this case the cut makes a row of an
/// unknown order share its id with a known one (otherwise the coincidence
/// proves nothing).
fn cut_ids_hint(
    orders: &[Order],
    ledger: &[LedgerEntry],
    want: &Reconciliation,
    got: &Reconciliation,
) -> Option<Hint> {
    if got == want {
        return None;
    }
    for bits in [32u32, 16] {
        let mask = (1u64 << bits) - 1;
        let cut = |id: OrderId| OrderId(id.0 & mask);
        let known: BTreeMap<OrderId, OrderId> = orders.iter().map(|o| (cut(o.id), o.id)).collect();
        let Some((row, order)) = ledger.iter().find_map(|r| {
            let own = known.get(&cut(r.order_id))?;
            (*own != r.order_id && !orders.iter().any(|o| o.id == r.order_id))
                .then_some((r.order_id, *own))
        }) else {
            continue;
        };
        let cut_orders: Vec<Order> = orders
            .iter()
            .map(|o| Order {
                id: cut(o.id),
                ..*o
            })
            .collect();
        let cut_ledger: Vec<LedgerEntry> = ledger
            .iter()
            .map(|r| LedgerEntry {
                order_id: cut(r.order_id),
                ..*r
            })
            .collect();
        if crate::oracle::reconcile(&cut_orders, &cut_ledger) == *got {
            return Some((
                format!(
                    "tus cifras son exactamente las de unir por el order id cortado a sus {bits} bits bajos: así la fila de {row}, una orden desconocida, queda unida a {order}, que comparte con ella esos {bits} bits. Un OrderId es un u64 entero: úsalo tal cual para unir (sin as u{bits} ni otro corte)."
                ),
                Some("filas-de-ordenes-desconocidas"),
            ));
        }
    }
    None
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

/// Runs the implementation's `reconcile` on one case and compares every
/// field with `want`. A panic (other than `todo!()`) is a wrong answer of
/// this case.
fn compare(
    h: &dyn Execute,
    case: &str,
    orders: &[Order],
    ledger: &[LedgerEntry],
    want: Reconciliation,
    hint: &str,
) -> Result<(), Verdict> {
    match runner::reconcile(h, orders, ledger) {
        Ok(got) => verdict_of(case, orders, ledger, want, got, hint),
        Err(Verdict::Panicked { message, location }) => Err(Verdict::failed(
            format!("{case}: {}", describe_zero_or(&want)),
            format!("pánico en {location}: {message}"),
            panic_hint(&message, hint),
        )),
        Err(other) => Err(other),
    }
}

/// What a panic with `message` says about the code, or `hint`.
fn panic_hint(message: &str, hint: &str) -> String {
    if message.contains("overflow") {
        format!(
            "la suma desbordó ({message}): los totales de este caso pasan de i32::MAX centavos ($21,474,836.47). Suma en Money, que guarda i64 de centavos; nunca en i32 ni u32."
        )
    } else {
        hint.to_string()
    }
}

/// Compares `got` with `want` field by field, naming the mistake.
fn verdict_of(
    case: &str,
    orders: &[Order],
    ledger: &[LedgerEntry],
    want: Reconciliation,
    got: Reconciliation,
    hint: &str,
) -> Result<(), Verdict> {
    if want == got {
        return Ok(());
    }
    let (w, g) = differences(&want, &got);
    let (hint, owner) = explain_case(orders, ledger, &want, &got, hint);
    Err(Verdict::failed(format!("{case}: {w}"), g, hint).owned_by(owner))
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

/// Runs fixed check `id` against the implementation's reconciliation.
///
/// # Panics
/// On an unknown `id`.
pub fn run(h: &dyn Execute, id: &str) -> Result<(), Verdict> {
    match id {
        "entradas-vacias-dan-ceros" => empty(h),
        "cargos-por-orden-no-por-key" => per_order(h),
        "sin-compensar-ordenes" => no_netting(h),
        "porcentaje-sobre-la-intencion" => percentage(h),
        "filas-de-ordenes-desconocidas" => unknown_orders(h),
        other => panic!("unknown reconciliation check {other}"),
    }
}

fn empty(h: &dyn Execute) -> Result<(), Verdict> {
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
        compare(h, case, orders, &[], want, hint)?;
    }
    Ok(())
}

fn per_order(h: &dyn Execute) -> Result<(), Verdict> {
    let hint = "une el ledger con las órdenes por order id: una orden cobrada dos veces con keys distintas (el error de la lección 3) también es un doble cargo, y una key repetida en dos órdenes no lo es.";
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
    compare(
        h,
        "órdenes 1 y 4 cobradas dos veces con keys distintas, órdenes 2 y 3 con una key compartida",
        &orders,
        &ledger,
        want,
        hint,
    )?;
    // The same idea at scale and to the cent: an order of $123.45 and two of
    // $20,000,000, the first of those charged twice under two keys. Every
    // amount fits in an i32 of cents; the totals do not (charged does not
    // fit in a u32 either).
    let cents = Money::from_cents(12_345);
    let big = Money::from_dollars(20_000_000);
    let orders = [
        Order {
            id: OrderId(1),
            amount: cents,
        },
        Order {
            id: OrderId(2),
            amount: big,
        },
        Order {
            id: OrderId(3),
            amount: big,
        },
    ];
    let ledger: Vec<LedgerEntry> = [(11, 1, cents), (21, 2, big), (22, 2, big), (31, 3, big)]
        .iter()
        .enumerate()
        .map(|(i, &(key, id, amount))| LedgerEntry {
            key: IdempotencyKey(key),
            order_id: OrderId(id),
            amount,
            charge_id: ChargeId(i as u64 + 1),
        })
        .collect();
    let intended = cents + big + big;
    let want = Reconciliation {
        intended,
        charged: intended + big,
        charges: 4,
        orders_charged_twice_or_more: 1,
        overcharge: big,
        overcharge_pct: Percent::of(big, intended),
        ..Reconciliation::default()
    };
    compare(
        h,
        "órdenes de $123.45, $20,000,000 y $20,000,000, la segunda cobrada dos veces con keys distintas (totales de más de i32::MAX centavos)",
        &orders,
        &ledger,
        want,
        hint,
    )
}

fn no_netting(h: &dyn Execute) -> Result<(), Verdict> {
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
    compare(
        h,
        "orden 1 ($500) cobrada dos veces, orden 2 ($500) nunca",
        &orders,
        &ledger,
        want,
        "suma el sobrecobro orden por orden (lo cobrado de más a cada una) y el cobro faltante aparte: charged − intended = $0 esconde $500 cobrados de más a un comprador y $500 sin cobrar a otro.",
    )?;
    // Partial amounts: order 1 charged less than its amount; orders 2 and 3
    // charged twice (each under one key, as a server without idempotency
    // writes a retry), order 2's second row for less than its amount. In
    // total, charged = intended again.
    let orders = [order(1, 500), order(2, 300), order(3, 200)];
    let ledger = rows(&[
        (1, 1, 200),
        (2, 2, 300),
        (2, 2, 100),
        (3, 3, 200),
        (3, 3, 200),
    ]);
    let want = Reconciliation {
        intended: Money::from_dollars(1000),
        charged: Money::from_dollars(1000),
        charges: 5,
        orders_charged_twice_or_more: 2,
        overcharge: Money::from_dollars(300),
        undercharge: Money::from_dollars(300),
        overcharge_pct: Percent::of(Money::from_dollars(300), Money::from_dollars(1000)),
        ..Reconciliation::default()
    };
    compare(
        h,
        "orden 1 ($500) cobrada una vez por $200, orden 2 ($300) cobrada $300 + $100, orden 3 ($200) cobrada dos veces",
        &orders,
        &ledger,
        want,
        "compara cada orden con lo que se le cobró: el sobrecobro es lo cobrado por encima de su monto y el cobro faltante lo que le faltó, aunque tenga filas en el ledger.",
    )
}

fn percentage(h: &dyn Execute) -> Result<(), Verdict> {
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
    compare(
        h,
        "intención $1,000, orden 1 ($600) cobrada dos veces",
        &orders,
        &ledger,
        want,
        "el porcentaje es sobre la intención: $48,139 de $256,979 es el 18.7% de más de la lección (Percent::of(overcharge, intended)), no sobre el total cobrado.",
    )
}

fn unknown_orders(h: &dyn Execute) -> Result<(), Verdict> {
    // Order 2 is never charged; the unknown order 99 has two rows. Counted
    // by distinct ids, 99 would hide order 2 and count once.
    let orders = [order(1, 500), order(2, 300)];
    let ledger = rows(&[(1, 1, 500), (2, 99, 70), (3, 99, 70)]);
    let want = Reconciliation {
        intended: Money::from_dollars(800),
        charged: Money::from_dollars(640),
        charges: 3,
        orders_never_charged: 1,
        unknown_order_rows: 2,
        undercharge: Money::from_dollars(300),
        ..Reconciliation::default()
    };
    compare(
        h,
        "orden 1 ($500) cobrada una vez, orden 2 ($300) nunca, y dos filas de $70 para la orden 99, que no existe",
        &orders,
        &ledger,
        want,
        "una fila cuyo order id no está entre las órdenes no es sobrecobro de ninguna orden: cuéntala en unknown_order_rows (y en charged y charges, porque está en el ledger); una orden sin filas con su order id nunca se cobró: su monto entero es cobro faltante (undercharge), y las filas de la orden 99 no lo compensan.",
    )
}
