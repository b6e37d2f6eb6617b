//! Los candados del mundo (lección 4, *el store atómico*): lo único con lo que
//! un servidor compartido por requests concurrentes (`&self`) puede cambiar
//! su estado.
//!
//! En tus corridas son los de `std::sync`. El juez compila un segundo harness
//! en el que estos mismos tipos son los de un explorador de horarios, que
//! decide qué hilo avanza en cada paso: así una carrera entre dos reintentos
//! de la misma key aparece siempre, no por suerte, y se puede repetir.
//!
//! La API es la de `std::sync::Mutex`, sin envenenamiento: [`Mutex::lock`]
//! devuelve el guard directamente (si otro hilo entró en pánico con el
//! candado tomado, el pánico ya se informa por su lado).

use std::fmt;
use std::ops::{Deref, DerefMut};

/// Un candado de exclusión mutua alrededor de un `T` (el `threading.Lock` de
/// la lección 4). Mientras un hilo tiene su [`MutexGuard`], ningún otro puede
/// tomarlo: lo que hagas entre `lock()` y soltar el guard es **un solo paso**
/// para los demás hilos.
pub struct Mutex<T> {
    inner: std::sync::Mutex<T>,
}

/// El candado tomado: da acceso al `T`; al soltarlo (fin del bloque o
/// `drop(guard)`) otro hilo puede tomar el candado.
pub struct MutexGuard<'a, T> {
    inner: std::sync::MutexGuard<'a, T>,
}

impl<T> Mutex<T> {
    /// Un candado libre alrededor de `value`.
    pub fn new(value: T) -> Mutex<T> {
        Mutex {
            inner: std::sync::Mutex::new(value),
        }
    }

    /// Toma el candado, esperando a que otro hilo lo suelte si lo tiene.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        MutexGuard {
            inner: self
                .inner
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        }
    }

    /// El `T` de dentro, consumiendo el candado.
    pub fn into_inner(self) -> T {
        self.inner
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl<T: Default> Default for Mutex<T> {
    fn default() -> Mutex<T> {
        Mutex::new(T::default())
    }
}

impl<T: fmt::Debug> fmt::Debug for Mutex<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Mutex").finish_non_exhaustive()
    }
}

impl<T> Deref for MutexGuard<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.inner
    }
}

impl<T> DerefMut for MutexGuard<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.inner
    }
}
