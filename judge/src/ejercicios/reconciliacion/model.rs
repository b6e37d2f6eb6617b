//! Exercise 3 against the model: random orders and ledgers (orders with
//! sparse, unordered, distinct ids, 0 and `u64::MAX` among them; rows of
//! unknown orders below, between and above the known ids, and at a known
//! id plus 2^32 or with its top bit flipped; several full or partial
//! rows per order, orders never charged, amounts from one cent past the
//! 32-bit and `f64` limits, empty inputs) reconciled by the implementation
//! and by the oracle. The domain table is in [`super`].

use std::collections::BTreeSet;

use proptest::prelude::*;
use sim::Reconciliation;
use sim::{ChargeId, IdempotencyKey, LedgerEntry, Money, Order, OrderId};

use crate::checks::model::{Family, Outcome};
use crate::ejercicios::reconciliacion::fixed::{differences, explain_case};
use crate::oracle;

/// An amount: any of the model's ([`crate::checks::model::amount`]), or near the limits
/// of 32-bit sums in dollars.
fn amount() -> impl Strategy<Value = Money> {
    prop_oneof![
        5 => crate::checks::model::amount(),
        1 => (10_000_000i64..=20_000_000).prop_map(Money::from_dollars),
    ]
}

/// What a row charges, relative to its order.
#[derive(Clone, Copy, Debug)]
pub enum Charge {
    /// The order's amount.
    Full,
    /// Half of it, rounded down to the cent (at least one cent).
    Half,
    /// Another amount.
    Other(Money),
}

/// Where an unknown order's id falls among the known ids.
#[derive(Clone, Copy, Debug)]
pub enum Unknown {
    /// Above the largest known id.
    Above,
    /// Below the smallest.
    Below,
    /// Between two known ids.
    Between,
    /// Id 0.
    Zero,
    /// Id `u64::MAX`.
    Max,
    /// A known id plus 2^32: the same low 32 (and 16) bits as a known
    /// order, so a join on the id cut to `u32` or `u16` takes it for that
    /// order.
    Plus32,
    /// A known id with its top bit flipped (`id ^ 1 << 63`): the same low
    /// 63 bits as a known order.
    TopBit,
}

/// Which order a row names.
#[derive(Clone, Copy, Debug)]
pub enum Target {
    /// A known order (an index scaled to the number of orders, so it still
    /// names one after shrinking removes others).
    Known(prop::sample::Index),
    /// An order that does not exist, placed relative to the known ids
    /// (the index picks among the places that fit).
    Unknown(Unknown, prop::sample::Index),
}

/// A case: the orders and the ledger's rows.
#[derive(Clone, Debug)]
pub struct Books {
    /// Per order its id (`None`: its position 1, 2, …, the simple case
    /// shrinking goes back to) and amount. An id already taken by an
    /// earlier order drops the order: ids are unique, as "unidos por order
    /// id" needs.
    pub orders: Vec<(Option<u64>, Money)>,
    /// Per row: which order, and how much.
    pub rows: Vec<(Target, Charge)>,
}

/// An unknown id at `place` among `known` (unique, sorted), never a known
/// one: the nearest free id past the chosen spot.
fn unknown_id(known: &BTreeSet<u64>, place: Unknown, index: prop::sample::Index) -> u64 {
    let (min, max) = match (known.first(), known.last()) {
        (Some(&a), Some(&b)) => (a, b),
        // No orders: two unknown orders, 90 and 91.
        _ => return 90 + index.index(2) as u64,
    };
    let gaps: Vec<u64> = known
        .iter()
        .zip(known.iter().skip(1))
        .filter(|(a, b)| **b > **a + 1)
        .map(|(a, _)| a + 1)
        .collect();
    let wanted = match place {
        Unknown::Above => max.checked_add(1 + index.index(2) as u64),
        Unknown::Below => min.checked_sub(1 + index.index(2) as u64),
        Unknown::Between => (!gaps.is_empty()).then(|| gaps[index.index(gaps.len())]),
        Unknown::Zero => Some(0),
        Unknown::Max => Some(u64::MAX),
        Unknown::Plus32 => Some(nth(known, index).wrapping_add(1 << 32)),
        Unknown::TopBit => Some(nth(known, index) ^ 1 << 63),
    };
    let mut id = wanted.unwrap_or(max.wrapping_add(1));
    while known.contains(&id) {
        id = id.wrapping_add(1);
    }
    id
}

/// The known id `index` picks.
fn nth(known: &BTreeSet<u64>, index: prop::sample::Index) -> u64 {
    known
        .iter()
        .nth(index.index(known.len()))
        .copied()
        .unwrap_or_default()
}

impl Books {
    /// The orders, ids unique.
    pub fn orders(&self) -> Vec<Order> {
        let mut seen = BTreeSet::new();
        self.orders
            .iter()
            .enumerate()
            .map(|(i, &(id, amount))| Order {
                id: OrderId(id.unwrap_or(i as u64 + 1)),
                amount,
            })
            .filter(|o| seen.insert(o.id))
            .collect()
    }

    /// The ledger.
    pub fn ledger(&self) -> Vec<LedgerEntry> {
        let orders = self.orders();
        let known: BTreeSet<u64> = orders.iter().map(|o| o.id.0).collect();
        self.rows
            .iter()
            .enumerate()
            .map(|(n, (target, charge))| {
                let own = match target {
                    Target::Known(i) if !orders.is_empty() => Some(orders[i.index(orders.len())]),
                    _ => None,
                };
                let amount = match (*charge, own) {
                    (Charge::Full, Some(o)) => o.amount,
                    (Charge::Half, Some(o)) => Money::from_cents((o.amount.cents() / 2).max(1)),
                    (Charge::Other(m), _) => m,
                    (_, None) => Money::from_dollars(70),
                };
                let order_id = match (own, target) {
                    (Some(o), _) => o.id,
                    (None, Target::Unknown(place, i)) => OrderId(unknown_id(&known, *place, *i)),
                    (None, Target::Known(i)) => OrderId(unknown_id(&known, Unknown::Above, *i)),
                };
                LedgerEntry {
                    key: IdempotencyKey(0x7000 + n as u64),
                    order_id,
                    amount,
                    charge_id: ChargeId::next_after(n),
                }
            })
            .collect()
    }
}

/// The reconciliation family.
#[derive(Default)]
pub struct Reconcile;

impl Family for Reconcile {
    const TAG: u8 = 3;
    type Case = Books;
    type Request = protocol::Reconcile;

    fn strategy(&self) -> impl Strategy<Value = Books> {
        let charge = prop_oneof![
            3 => Just(Charge::Full),
            1 => Just(Charge::Half),
            1 => amount().prop_map(Charge::Other),
        ];
        let id = prop::option::of(crate::checks::model::order_id(8));
        let place = prop_oneof![
            Just(Unknown::Above),
            Just(Unknown::Below),
            Just(Unknown::Between),
            Just(Unknown::Zero),
            Just(Unknown::Max),
            Just(Unknown::Plus32),
            Just(Unknown::TopBit),
        ];
        let target = prop_oneof![
            16 => any::<prop::sample::Index>().prop_map(Target::Known),
            4 => (place, any::<prop::sample::Index>()).prop_map(|(p, i)| Target::Unknown(p, i)),
        ];
        (
            prop::collection::vec((id, amount()), 0..=5),
            prop::collection::vec((target, charge), 0..=10),
        )
            .prop_map(|(orders, rows)| Books { orders, rows })
    }

    fn job(&self, case: &Books) -> protocol::Reconcile {
        protocol::Reconcile {
            orders: case.orders(),
            ledger: case.ledger(),
        }
    }

    fn judge(&self, case: &Books, got: Reconciliation) -> Outcome {
        let (orders, ledger) = (case.orders(), case.ledger());
        let want = oracle::reconcile(&orders, &ledger);
        if got == want {
            return Outcome::Agrees;
        }
        let mut lines = Vec::new();
        let listed: Vec<String> = orders
            .iter()
            .map(|o| format!("{} {}", o.id, o.amount))
            .collect();
        lines.push(format!(
            "órdenes: {}",
            if listed.is_empty() {
                "ninguna".to_string()
            } else {
                listed.join(", ")
            }
        ));
        if ledger.is_empty() {
            lines.push("ledger: vacío".to_string());
        }
        for (i, row) in ledger.iter().enumerate() {
            let known = orders.iter().any(|o| o.id == row.order_id);
            lines.push(format!(
                "fila {}: {} {} {}{}",
                i + 1,
                row.charge_id,
                row.order_id,
                row.amount,
                if known { "" } else { " (orden desconocida)" }
            ));
        }
        let (w, g) = differences(&want, &got);
        lines.push(format!("modelo:    {w}"));
        lines.push(format!("tu código: {g}   ← aquí se separan"));
        Outcome::Disagrees {
            trace: lines,
            hint: explain_case(
                &orders,
                &ledger,
                &want,
                &got,
                "une el ledger con las órdenes por order id y suma orden por orden: lo cobrado de más a cada una (overcharge) y lo que le faltó (undercharge) por separado; las filas de órdenes desconocidas se cuentan aparte.",
            )
            .0,
        }
    }

    fn describe(&self, case: &Books) -> String {
        format!(
            "{} orden(es) y {} fila(s) de ledger",
            case.orders().len(),
            case.rows.len()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The index that picks the first of any number of orders.
    fn index(_: usize) -> prop::sample::Index {
        use proptest::strategy::ValueTree;
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let mut tree = any::<prop::sample::Index>().new_tree(&mut runner).unwrap();
        while tree.simplify() {}
        tree.current()
    }

    #[test]
    fn the_model_reconciles_by_order() {
        let books = Books {
            orders: vec![
                (None, Money::from_dollars(500)),
                (None, Money::from_dollars(500)),
            ],
            rows: vec![
                (Target::Known(index(0)), Charge::Full),
                (Target::Known(index(0)), Charge::Full),
                (Target::Unknown(Unknown::Above, index(0)), Charge::Full),
            ],
        };
        let r = oracle::reconcile(&books.orders(), &books.ledger());
        assert_eq!(r.intended, Money::from_dollars(1000));
        assert_eq!(r.charged, Money::from_dollars(1070));
        assert_eq!(r.orders_charged_twice_or_more, 1);
        assert_eq!(r.orders_never_charged, 1);
        assert_eq!(r.unknown_order_rows, 1);
        assert_eq!(r.overcharge, Money::from_dollars(500));
        assert_eq!(r.undercharge, Money::from_dollars(500));
        assert_eq!(r.overcharge_pct.to_string(), "50.0%");
    }

    /// Figures that are those of a join by the id cut to 32 bits, on a
    /// row of `id + 2^32`, say so; the same figures where no row aliases a
    /// known order do not.
    #[test]
    fn a_join_by_cut_ids_is_named() {
        let orders = [Order {
            id: OrderId(1),
            amount: Money::from_dollars(5),
        }];
        let row = |id: u64| LedgerEntry {
            key: IdempotencyKey(1),
            order_id: OrderId(id),
            amount: Money::from_dollars(5),
            charge_id: ChargeId(1),
        };
        let alias = [row(1 + (1 << 32))];
        let want = oracle::reconcile(&orders, &alias);
        assert_eq!(want.unknown_order_rows, 1);
        assert_eq!(want.orders_never_charged, 1);
        assert_eq!(want.undercharge, Money::from_dollars(5));
        let got = oracle::reconcile(&orders, &[row(1)]);
        let (hint, owner) = explain_case(&orders, &alias, &want, &got, "otra");
        assert_eq!(
            hint,
            "tus cifras son exactamente las de unir por el order id cortado a sus 32 bits bajos: así la fila de ord_4294967297, una orden desconocida, queda unida a ord_0001, que comparte con ella esos 32 bits. Un OrderId es un u64 entero: úsalo tal cual para unir (sin as u32 ni otro corte)."
        );
        assert_eq!(owner, Some("filas-de-ordenes-desconocidas"));
        let elsewhere = [row(7)];
        let want = oracle::reconcile(&orders, &elsewhere);
        let (hint, _) = explain_case(&orders, &elsewhere, &want, &got, "otra");
        assert!(!hint.contains("cortado"), "{hint}");
    }

    /// Unknown ids land where asked and never on a known id; a repeated id
    /// drops the later order.
    #[test]
    fn unknown_ids_fall_below_between_and_above() {
        let known: BTreeSet<u64> = [5, 9, 10].into_iter().collect();
        let at = |p| unknown_id(&known, p, index(0));
        assert_eq!(at(Unknown::Below), 4);
        assert_eq!(at(Unknown::Between), 6);
        assert_eq!(at(Unknown::Above), 11);
        assert_eq!(at(Unknown::Zero), 0);
        assert_eq!(at(Unknown::Max), u64::MAX);
        assert_eq!(at(Unknown::Plus32), 5 + (1 << 32));
        assert_eq!(at(Unknown::TopBit), 5 | 1 << 63);
        assert_eq!(at(Unknown::Plus32) as u32, 5);
        assert_eq!(at(Unknown::TopBit) as u16, 5);
        let edge: BTreeSet<u64> = [0, 1, u64::MAX].into_iter().collect();
        assert_eq!(unknown_id(&edge, Unknown::Below, index(0)), 2);
        assert_eq!(unknown_id(&edge, Unknown::Zero, index(0)), 2);
        assert_eq!(unknown_id(&edge, Unknown::Above, index(0)), 2);
        let books = Books {
            orders: vec![
                (Some(7), Money::from_cents(1)),
                (Some(7), Money::from_cents(2)),
                (None, Money::from_cents(3)),
            ],
            rows: Vec::new(),
        };
        let ids: Vec<u64> = books.orders().iter().map(|o| o.id.0).collect();
        assert_eq!(ids, [7, 3]);
    }
}
