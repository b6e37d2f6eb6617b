//! La API que exponen tanto `exercises` como `solutions`, para que el grader
//! pueda corregir cualquiera de los dos con el mismo código (despacho
//! estático).

use crate::keys::KeySource;
use crate::ledger::LedgerEntry;
use crate::network::Network;
use crate::order::{ChargeOutcome, Order};
use crate::payments::Payments;
use crate::reconciliation::Reconciliation;
use crate::shared::SharedPayments;

/// Una implementación de los ejercicios (los tres de la lección 2 y el
/// bonus de la lección 4). Un tipo sin referencias prestadas (`'static`):
/// el explorador de horarios del juez la corre en hilos propios.
pub trait Kit: 'static {
    /// El nombre del crate, para los mensajes (`"exercises"` o `"solutions"`).
    const CRATE: &'static str;

    /// El servidor de payments del ejercicio 1.
    type Server: Payments;

    /// Un servidor con el ledger y el store de idempotencia vacíos;
    /// `idempotent` elige el mundo con keys (`true`) o sin ellas (`false`).
    fn new_server(idempotent: bool) -> Self::Server;

    /// Ejercicio 2: cobra una orden a través de `network`, con una
    /// idempotency key por operación y como máximo `max_attempts` intentos.
    fn charge_order<P: Payments, K: KeySource>(
        server: &mut P,
        network: &mut Network,
        keys: &mut K,
        order: &Order,
        max_attempts: u32,
    ) -> ChargeOutcome;

    /// Ejercicio 3: reconcilia las órdenes de la intención (`orders`) contra
    /// el `ledger`.
    fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation;

    /// El servidor compartido del ejercicio 4 (lección 4).
    type AtomicServer: SharedPayments + 'static;

    /// Ejercicio 4: un servidor compartido con el ledger y el store vacíos.
    fn new_atomic_server() -> Self::AtomicServer;
}
