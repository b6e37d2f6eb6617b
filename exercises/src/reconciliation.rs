//! Ejercicio 3 — La reconciliación: lo que se debía cobrar contra el ledger.

use sim::{LedgerEntry, Order, Reconciliation};

/// **Ejercicio 3.** Reconcilia las órdenes (la intención) con el ledger (lo
/// cobrado), uniéndolos **por order id**.
///
/// Los ids de `orders` son distintos: cada orden tiene el suyo (un
/// `OrderId` es cualquier `u64`, sin orden ni números seguidos). En el
/// ledger, en cambio, varias filas pueden tener el mismo order id, y una
/// fila puede tener un order id que no está entre las órdenes.
///
/// Llena cada campo de [`Reconciliation`]:
///
/// - `intended`: suma de los montos de las órdenes; `charged`: suma de todas
///   las filas del ledger; `charges`: número de filas.
/// - `orders_charged_twice_or_more`: órdenes con 2 o más filas (por orden, no
///   por key: una orden cobrada con dos keys distintas también cuenta).
/// - `orders_never_charged`: órdenes sin ninguna fila.
/// - `unknown_order_rows`: filas cuyo order id no está entre las órdenes.
/// - `overcharge`: suma, orden por orden, de lo cobrado **de más** a cada una;
///   `undercharge`: suma de lo cobrado **de menos**. No compenses una orden
///   con otra: un cobro faltante no puede esconder un doble cargo.
/// - `overcharge_pct`: el sobrecobro como porcentaje de la **intención**
///   (`Percent::of(overcharge, intended)`), como el "18.7% de mas" de la lección.
///
/// Con entradas vacías todo es cero; nunca dividas por cero ni entres en pánico.
pub fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    todo!("Ejercicio 3: la reconciliación")
}
