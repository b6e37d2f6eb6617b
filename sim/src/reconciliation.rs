//! Las cifras de una reconciliación (el tipo que devuelve el ejercicio 3).

use crate::money::{Money, Percent};

/// Las órdenes de la intención contra el ledger, unidas por id de orden
/// (lección 2, "Errores comunes": la métrica que revela el doble cargo es el
/// total cobrado contra la intención, y las órdenes con 2+ cargos).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Reconciliation {
    /// Suma de los montos de las órdenes ("Cobro correcto (intencion)").
    pub intended: Money,
    /// Suma de los montos de todas las filas del ledger ("TOTAL COBRADO").
    pub charged: Money,
    /// Número de filas del ledger ("cargos en el ledger").
    pub charges: u64,
    /// Órdenes con dos o más filas en el ledger ("ordenes cobradas 2+ veces").
    pub orders_charged_twice_or_more: u64,
    /// Órdenes sin ninguna fila en el ledger.
    pub orders_never_charged: u64,
    /// Filas del ledger cuyo id de orden no está entre las órdenes de la
    /// intención.
    pub unknown_order_rows: u64,
    /// Suma, orden por orden, de lo que se le cobró a cada una por encima de
    /// su monto ("SOBRECOBRO"). Las filas de órdenes desconocidas no cuentan
    /// aquí.
    pub overcharge: Money,
    /// Suma, orden por orden, de lo que se le cobró a cada una por debajo de
    /// su monto.
    pub undercharge: Money,
    /// `overcharge` como porcentaje de `intended` (0% cuando la intención no
    /// tenía nada que cobrar).
    pub overcharge_pct: Percent,
}
