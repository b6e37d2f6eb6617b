//! Ejercicio 2 — El cliente con una idempotency key por operación (lección 3).

use sim::{ChargeOutcome, KeySource, Network, Order, Payments};

/// **Ejercicio 2.** Cobra una orden desde `orders`, reintentando cuando la
/// respuesta se pierde.
///
/// - Crea **una** idempotency key para esta operación, con `keys.new_key()`,
///   una sola vez y **antes** del primer intento. No la derives del contenido
///   de la orden: dos órdenes idénticas son dos operaciones distintas.
/// - Envía cada intento con `network.send(server, key, order.id, order.amount)`,
///   siempre con **la misma key**. `send` devuelve `Some(resultado)` si la
///   respuesta llegó y `None` si se perdió (el servidor ya cobró, o hizo replay).
/// - Detente en la primera respuesta que llegue: devuelve `ChargeOutcome` con
///   `attempts` (cuántas veces enviaste) y `confirmed: Some(resultado)`.
/// - Si se pierden las `max_attempts` respuestas, ríndete sin entrar en pánico:
///   `attempts == max_attempts` y `confirmed: None` (cobro sin confirmar).
///
/// Compara con `sim::clients::charge_with_key_per_attempt`, el error clásico
/// de la lección 3 (una key nueva por intento: $1500 en vez de $500).
pub fn charge_order<P: Payments, K: KeySource>(
    server: &mut P,
    network: &mut Network,
    keys: &mut K,
    order: &Order,
    max_attempts: u32,
) -> ChargeOutcome {
    todo!("Ejercicio 2: una idempotency key por operación")
}
