//! El servidor de payments compartido por requests concurrentes (lección 4,
//! *el store atómico*): las reglas del estándar del campo (el borrador de la
//! IETF del header `Idempotency-Key`; la API de Stripe se porta igual).
//!
//! - La primera request con una key cobra una vez y guarda su resultado.
//! - Un reintento con la misma key y la misma request es un *replay*: el
//!   resultado guardado, sin tocar el ledger.
//! - Un reintento que llega **mientras la primera sigue en curso** no cobra:
//!   recibe [`ChargeError::InFlight`] (el `409 Conflict` del borrador) y el
//!   cliente reintenta más tarde, cuando ya hay resultado guardado.
//! - **La misma key con otra request** (otra orden u otro monto) se rechaza
//!   con [`ChargeError::KeyReused`] (el `422` del borrador), esté la primera
//!   en curso o terminada, y deja el ledger intacto.

use crate::ids::{IdempotencyKey, OrderId};
use crate::ledger::{ChargeResult, LedgerEntry};
use crate::money::Money;

/// Lo que pide una request de cobro, sin la key: la orden y el monto. Dos
/// requests con la misma key son "la misma" solo si esto coincide.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ChargeRequest {
    /// La orden.
    pub order_id: OrderId,
    /// El monto, en centavos.
    pub amount: Money,
}

/// Lo que el store sabe de una key (lección 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum KeyState {
    /// La primera request con esta key está cobrando: todavía no hay
    /// resultado que devolver.
    InFlight(ChargeRequest),
    /// La primera request terminó: esto es lo que respondió, y lo que
    /// responde cada replay.
    Completed(ChargeRequest, ChargeResult),
}

impl KeyState {
    /// La request que dejó la key en el store.
    pub fn request(&self) -> ChargeRequest {
        match *self {
            KeyState::InFlight(r) | KeyState::Completed(r, _) => r,
        }
    }
}

/// El store de idempotencia del servidor compartido: idempotency key → lo que
/// se sabe de ella. Un hash map con un hasher determinista.
pub type SharedStore = rustc_hash::FxHashMap<IdempotencyKey, KeyState>;

/// Por qué el servidor compartido rechazó una request sin cobrar.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ChargeError {
    /// Otra request con esta key sigue en curso (`409 Conflict`): no se
    /// cobró; reintenta más tarde y recibirás el resultado guardado.
    InFlight,
    /// La key ya se usó con otra request (otra orden u otro monto; `422`):
    /// no se cobró, y el store guarda la primera.
    KeyReused,
}

/// `payments.charge` con `&self`: un servidor que atienden varios hilos a la
/// vez (lección 4). Lo implementan el `AtomicPaymentsServer` del estudiante
/// (`exercises`, ejercicio 4) y la referencia (`solutions`).
pub trait SharedPayments: Send + Sync {
    /// Cobra `amount` centavos a la orden `order_id` con la idempotency key
    /// `key`, con las reglas de la lección 4 (ver el módulo): `Ok` con el
    /// resultado del cobro o del replay, o `Err` sin tocar el ledger.
    fn charge(
        &self,
        key: IdempotencyKey,
        order_id: OrderId,
        amount: Money,
    ) -> Result<ChargeResult, ChargeError>;

    /// Una copia del ledger append-only: cada cargo que se ejecutó, en orden.
    fn ledger(&self) -> Vec<LedgerEntry>;
}
