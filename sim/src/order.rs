//! Las órdenes y lo que informa un cliente después de cobrar una.

use crate::ids::OrderId;
use crate::ledger::ChargeResult;
use crate::money::Money;

/// Una orden de `orders`: lo que el comprador tiene la intención de pagar,
/// exactamente una vez.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Order {
    /// El id de la orden.
    pub id: OrderId,
    /// El monto de la intención, en centavos (positivo).
    pub amount: Money,
}

/// Lo que informa un cliente después de cobrar una orden.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChargeOutcome {
    /// Cuántas veces envió el cliente el cobro (de 1 a `max_attempts`).
    pub attempts: u32,
    /// Lo que respondió el servidor en la primera respuesta que llegó, o
    /// `None` cuando se perdieron todas las respuestas y el cliente se rindió
    /// (el cobro queda sin confirmar: puede haber ocurrido o no).
    pub confirmed: Option<ChargeResult>,
}
