//! El cliente equivocado de la lección 3, de solo lectura, como contraste:
//! una key nueva en cada intento.
//!
//! El cliente del estudiante (ejercicio 2) es el correcto: una key por
//! operación, creada antes del primer intento y reenviada en cada reintento.

use crate::keys::KeySource;
use crate::network::Network;
use crate::order::{ChargeOutcome, Order};
use crate::payments::Payments;

/// El cliente EQUIVOCADO de la lección 3: crea una key nueva en cada intento,
/// así que el servidor ve cada reintento como una operación nueva y vuelve a
/// cobrar ($1500 por una orden de $500 tras dos respuestas perdidas), por muy
/// idempotente que sea el servidor. Viene como contraste con el ejercicio 2;
/// no lo copies.
pub fn charge_with_key_per_attempt<P: Payments + ?Sized, K: KeySource + ?Sized>(
    server: &mut P,
    network: &mut Network,
    keys: &mut K,
    order: &Order,
    max_attempts: u32,
) -> ChargeOutcome {
    let mut attempts = 0;
    while attempts < max_attempts {
        attempts += 1;
        let key = keys.new_key(); // el error: una key por intento, no por operación
        if let Some(result) = network.send(server, key, order.id, order.amount) {
            return ChargeOutcome {
                attempts,
                confirmed: Some(result),
            };
        }
    }
    ChargeOutcome {
        attempts,
        confirmed: None,
    }
}
