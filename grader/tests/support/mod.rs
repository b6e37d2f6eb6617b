//! Building blocks for kits that are the reference solutions except for one
//! deliberate change: wrong answers (`tests/mutants.rs`) and misbehaving code
//! (`tests/misbehaving.rs`).
//!
//! A kit is declared with [`kit!`], naming its server (a [`ServerChange`]
//! wrapped around the reference server), its client and its reconciliation
//! (plain functions with the exercises' signatures). Whatever is not changed
//! is the reference from `solutions/`.

// Each test target uses part of this module.
#![allow(dead_code)]

use std::collections::HashMap;
use std::marker::PhantomData;

use sim::{ChargeResult, IdempotencyKey, LedgerEntry, Money, OrderId, Payments};
use solutions::PaymentsServer;

/// How a changed server differs from the reference. The wrapped reference
/// server does the real work (its ledger is the one reported).
pub trait ServerChange {
    /// The reference server to wrap, for a server asked to be `idempotent`.
    fn inner(idempotent: bool) -> PaymentsServer {
        PaymentsServer::new(idempotent)
    }

    /// The changed `charge`.
    fn charge(
        s: &mut Changed<Self>,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> ChargeResult
    where
        Self: Sized;

    /// The ledger the server reports: the wrapped reference's, unless the
    /// change keeps its own rows.
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry]
    where
        Self: Sized,
    {
        s.inner.ledger()
    }
}

/// The reference server wrapped with change `C`, plus the memory a change may
/// need (results by key, first key by content).
pub struct Changed<C: ?Sized> {
    /// The mode the kit asked for.
    pub idempotent: bool,
    /// The reference server doing the charging.
    pub inner: PaymentsServer,
    /// Results remembered by key, for changes that keep their own store.
    pub results: HashMap<IdempotencyKey, ChargeResult>,
    /// The first key seen for each `(order_id, amount)`.
    pub first_key: HashMap<(OrderId, Money), IdempotencyKey>,
    /// Results remembered by the whole request `(key, order_id, amount)`.
    pub by_request: HashMap<(IdempotencyKey, OrderId, Money), ChargeResult>,
    /// The ledger of a change that writes its own rows (see
    /// [`ServerChange::ledger`]).
    pub rows: Vec<LedgerEntry>,
    change: PhantomData<C>,
}

impl<C: ServerChange> Changed<C> {
    /// A fresh server in mode `idempotent`.
    pub fn new(idempotent: bool) -> Changed<C> {
        Changed {
            idempotent,
            inner: C::inner(idempotent),
            results: HashMap::new(),
            first_key: HashMap::new(),
            by_request: HashMap::new(),
            rows: Vec::new(),
            change: PhantomData,
        }
    }
}

impl<C: ServerChange> Payments for Changed<C> {
    fn charge(&mut self, key: IdempotencyKey, order_id: OrderId, amount: Money) -> ChargeResult {
        C::charge(self, key, order_id, amount)
    }

    fn ledger(&self) -> &[LedgerEntry] {
        C::ledger(self)
    }
}

/// The reference server, unchanged.
pub struct Reference;

impl ServerChange for Reference {
    fn charge(s: &mut Changed<Self>, key: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        s.inner.charge(key, o, a)
    }
}

/// Declares `struct $name` implementing `sim::Kit` with the given server
/// change, client function and reconciliation function. Each part defaults to
/// the reference when left out.
#[macro_export]
macro_rules! kit {
    ($(#[$doc:meta])* $name:ident { $($part:ident : $value:path),* $(,)? }) => {
        $crate::kit!(@parts $(#[$doc])* $name,
            [support::Reference],
            [solutions::client::charge_order],
            [solutions::reconciliation::reconcile],
            $($part : $value),*);
    };
    (@parts $(#[$doc:meta])* $name:ident, [$s:path], [$c:path], [$r:path], server : $v:path $(, $($rest:tt)*)?) => {
        $crate::kit!(@parts $(#[$doc])* $name, [$v], [$c], [$r], $($($rest)*)?);
    };
    (@parts $(#[$doc:meta])* $name:ident, [$s:path], [$c:path], [$r:path], client : $v:path $(, $($rest:tt)*)?) => {
        $crate::kit!(@parts $(#[$doc])* $name, [$s], [$v], [$r], $($($rest)*)?);
    };
    (@parts $(#[$doc:meta])* $name:ident, [$s:path], [$c:path], [$r:path], reconcile : $v:path $(, $($rest:tt)*)?) => {
        $crate::kit!(@parts $(#[$doc])* $name, [$s], [$c], [$v], $($($rest)*)?);
    };
    (@parts $(#[$doc:meta])* $name:ident, [$s:path], [$c:path], [$r:path], ) => {
        $(#[$doc])*
        struct $name;

        impl sim::Kit for $name {
            const CRATE: &'static str = "exercises";
            type Server = support::Changed<$s>;

            fn new_server(idempotent: bool) -> Self::Server {
                support::Changed::new(idempotent)
            }

            fn charge_order<P: sim::Payments, K: sim::KeySource>(
                server: &mut P,
                network: &mut sim::Network,
                keys: &mut K,
                order: &sim::Order,
                max_attempts: u32,
            ) -> sim::ChargeOutcome {
                $c(server, network, keys, order, max_attempts)
            }

            fn reconcile(orders: &[sim::Order], ledger: &[sim::LedgerEntry]) -> sim::Reconciliation {
                $r(orders, ledger)
            }
        }
    };
}

/// Declares a client function with exercise 2's signature:
/// `client!(fn name(server, network, keys, order, max_attempts) { … })`.
#[macro_export]
macro_rules! client {
    ($(#[$doc:meta])* fn $name:ident($server:ident, $network:ident, $keys:ident, $order:ident, $max:ident) $body:block) => {
        $(#[$doc])*
        fn $name<P: sim::Payments, K: sim::KeySource>(
            $server: &mut P,
            $network: &mut sim::Network,
            $keys: &mut K,
            $order: &sim::Order,
            $max: u32,
        ) -> sim::ChargeOutcome $body
    };
}

/// The kit's fixtures (`fixtures/*.toml`), as the grader loads them.
pub fn fixtures() -> Vec<sim::Scenario> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    sim::Scenario::load_dir(&dir).expect("the kit's fixtures load")
}
