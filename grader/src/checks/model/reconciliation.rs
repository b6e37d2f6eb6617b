//! Exercise 3 against the model: random orders and ledgers (rows of unknown
//! orders, several full or partial rows per order, orders never charged,
//! amounts near the money limits, empty inputs) reconciled by the
//! implementation and by the oracle.

use proptest::prelude::*;
use protocol::{Job, Observation};
use sim::{ChargeId, IdempotencyKey, LedgerEntry, Money, Order, OrderId};

use super::{Family, Outcome};
use crate::checks::reconciliation::{differences, explain_case};
use crate::oracle;

/// An amount: small, to the cent, or near the limits of 32-bit sums.
fn amount() -> impl Strategy<Value = Money> {
    prop_oneof![
        4 => (1i64..=500).prop_map(Money::from_dollars),
        1 => (1i64..=99_999).prop_map(Money::from_cents),
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

/// A case: the orders and the ledger's rows.
#[derive(Clone, Debug)]
pub struct Books {
    /// Amounts of orders 1, 2, … (ids unique).
    pub orders: Vec<Money>,
    /// Per row: whether it charges an order that does not exist (id 90 or
    /// 91, picked by the index), else which order (an index scaled to the number of
    /// orders, so it still names one after shrinking removes others), and
    /// how much.
    pub rows: Vec<(bool, prop::sample::Index, Charge)>,
}

impl Books {
    /// The orders.
    pub fn orders(&self) -> Vec<Order> {
        self.orders
            .iter()
            .enumerate()
            .map(|(i, &amount)| Order {
                id: OrderId(i as u64 + 1),
                amount,
            })
            .collect()
    }

    /// The ledger.
    pub fn ledger(&self) -> Vec<LedgerEntry> {
        self.rows
            .iter()
            .enumerate()
            .map(|(n, (unknown, index, charge))| {
                let target =
                    (!unknown && !self.orders.is_empty()).then(|| index.index(self.orders.len()));
                let own = target.and_then(|t| self.orders.get(t).copied());
                let amount = match (*charge, own) {
                    (Charge::Full, Some(a)) => a,
                    (Charge::Half, Some(a)) => Money::from_cents((a.cents() / 2).max(1)),
                    (Charge::Other(m), _) => m,
                    (_, None) => Money::from_dollars(70),
                };
                // Unknown orders are 90 or 91: several rows of one unknown
                // order, and rows of two.
                let order_id = match target {
                    Some(t) => OrderId(t as u64 + 1),
                    None => OrderId(90 + index.index(2) as u64),
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
pub struct Reconcile;

impl Family for Reconcile {
    type Case = Books;

    fn strategy(&self) -> impl Strategy<Value = Books> {
        let charge = prop_oneof![
            3 => Just(Charge::Full),
            1 => Just(Charge::Half),
            1 => amount().prop_map(Charge::Other),
        ];
        (
            prop::collection::vec(amount(), 0..=5),
            prop::collection::vec(
                (
                    prop::bool::weighted(0.15),
                    any::<prop::sample::Index>(),
                    charge,
                ),
                0..=10,
            ),
        )
            .prop_map(|(orders, rows)| Books { orders, rows })
    }

    fn job(&self, case: &Books) -> Job {
        Job::Reconcile {
            orders: case.orders(),
            ledger: case.ledger(),
        }
    }

    fn judge(&self, case: &Books, got: Observation) -> Outcome {
        let Observation::Reconciled(got) = got else {
            return Outcome::Disagrees {
                trace: vec!["el harness respondió otra cosa".to_string()],
                hint: String::new(),
            };
        };
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
            case.orders.len(),
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
            orders: vec![Money::from_dollars(500), Money::from_dollars(500)],
            rows: vec![
                (false, index(0), Charge::Full),
                (false, index(0), Charge::Full),
                (true, index(0), Charge::Full),
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
}
