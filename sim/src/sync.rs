//! Los candados del mundo (lección 4, *el store atómico*): lo único con lo que
//! un servidor compartido por requests concurrentes (`&self`) puede cambiar
//! su estado.
//!
//! En tus corridas son los de `std::sync`. El juez compila un segundo harness
//! (con la feature `explorar` de `sim`) en el que estos mismos tipos son los
//! de un explorador de horarios (`shuttle`), que decide qué hilo avanza en
//! cada paso: así una carrera entre dos reintentos de la misma key aparece
//! siempre, no por suerte, y se puede repetir. En ese harness cada sección
//! crítica queda anotada ([`registro`]) para contar el horario con las
//! palabras de la lección (`hilo 1: busca K1 → no está`).
//!
//! La API es la de `std::sync::Mutex`, sin envenenamiento: [`Mutex::lock`]
//! devuelve el guard directamente (si otro hilo entró en pánico con el
//! candado tomado, el pánico ya se informa por su lado).

use std::fmt;
use std::ops::{Deref, DerefMut};

#[cfg(not(feature = "explorar"))]
use std::sync as backend;

#[cfg(feature = "explorar")]
use shuttle::sync as backend;

#[cfg(feature = "explorar")]
pub mod registro;

/// Un candado de exclusión mutua alrededor de un `T` (el `threading.Lock` de
/// la lección 4). Mientras un hilo tiene su [`MutexGuard`], ningún otro puede
/// tomarlo: lo que hagas entre `lock()` y soltar el guard es **un solo paso**
/// para los demás hilos.
pub struct Mutex<T> {
    inner: backend::Mutex<T>,
}

/// El candado tomado: da acceso al `T`; al soltarlo (fin del bloque o
/// `drop(guard)`) otro hilo puede tomar el candado.
pub struct MutexGuard<'a, T> {
    inner: backend::MutexGuard<'a, T>,
    /// What the critical section found when it began (explorer builds).
    #[cfg(feature = "explorar")]
    seen: registro::Opened<T>,
}

impl<T> Mutex<T> {
    /// Un candado libre alrededor de `value`.
    pub fn new(value: T) -> Mutex<T> {
        Mutex {
            inner: backend::Mutex::new(value),
        }
    }

    /// El `T` de dentro, consumiendo el candado.
    pub fn into_inner(self) -> T {
        self.inner
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(not(feature = "explorar"))]
impl<T> Mutex<T> {
    /// Toma el candado, esperando a que otro hilo lo suelte si lo tiene.
    pub fn lock(&self) -> MutexGuard<'_, T> {
        MutexGuard {
            inner: self
                .inner
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        }
    }
}

#[cfg(feature = "explorar")]
impl<T: 'static> Mutex<T> {
    /// Toma el candado, esperando a que otro hilo lo suelte si lo tiene (un
    /// punto donde el explorador elige qué hilo sigue); la sección crítica
    /// que empieza queda anotada en el [`registro`].
    pub fn lock(&self) -> MutexGuard<'_, T> {
        let inner = self
            .inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let seen = registro::Opened::new(&*inner);
        MutexGuard { inner, seen }
    }
}

#[cfg(feature = "explorar")]
impl<T> Drop for MutexGuard<'_, T> {
    fn drop(&mut self) {
        // Before the inner guard (a later field) releases the lock.
        self.seen.close(&self.inner);
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
