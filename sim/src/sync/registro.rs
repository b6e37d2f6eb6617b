//! El registro de las secciones críticas, solo en el harness del explorador
//! (feature `explorar`): cada vez que un hilo suelta un candado de
//! [`super::Mutex`], lo que había al tomarlo y lo que deja. Sobre el store
//! (`Mutex<SharedStore>`) y el ledger (`Mutex<Vec<LedgerEntry>>`) guarda su
//! contenido; de cualquier otro candado, solo que se tomó.
//!
//! El harness lo prende al empezar cada horario ([`start`]), anota dónde
//! empieza y termina cada llamada ([`call`], [`returned`]) y lo lee al final
//! ([`finish`]); con eso cuenta el horario en las palabras de la lección
//! (`hilo 1: busca K1 → no está · hilo 1: cobra ch_0001`). No es parte de la
//! API del ejercicio.

use std::any::Any;

use crate::ids::IdempotencyKey;
use crate::ledger::LedgerEntry;
use crate::shared::{KeyState, SharedStore};

/// What a lock guarded, when the section began or ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Snapshot {
    /// The store's entries, sorted by key.
    Store(Vec<(IdempotencyKey, KeyState)>),
    /// The ledger: its size, and the rows added since the section began
    /// (none in the snapshot taken when it began).
    Ledger {
        /// `len()`.
        rows: usize,
        /// Rows pushed during the section, in order.
        added: Vec<LedgerEntry>,
    },
    /// A lock around something else.
    Other,
}

/// One thing that happened while recording, in the order it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// Thread `thread` held a lock from `before` to `after`.
    Section {
        /// The explorer's thread (`hilo N` → N; 0 for the main thread).
        thread: u32,
        /// What it found.
        before: Snapshot,
        /// What it left.
        after: Snapshot,
    },
    /// Thread `thread` began its call number `index` (from 0).
    Call {
        /// The thread.
        thread: u32,
        /// The call's index in the thread's list.
        index: u32,
    },
    /// Thread `thread`'s call number `index` returned.
    Returned {
        /// The thread.
        thread: u32,
        /// The call's index in the thread's list.
        index: u32,
    },
}

/// `None` while not recording.
static LOG: std::sync::Mutex<Option<Vec<Event>>> = std::sync::Mutex::new(None);

fn with_log(f: impl FnOnce(&mut Option<Vec<Event>>)) {
    let mut log = LOG
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    f(&mut log);
}

fn recording() -> bool {
    let mut on = false;
    with_log(|log| on = log.is_some());
    on
}

fn push(event: Event) {
    with_log(|log| {
        if let Some(events) = log {
            events.push(event);
        }
    });
}

/// Starts a new, empty record.
pub fn start() {
    with_log(|log| *log = Some(Vec::new()));
}

/// Stops recording and returns what was recorded since [`start`].
pub fn finish() -> Vec<Event> {
    let mut events = Vec::new();
    with_log(|log| events = log.take().unwrap_or_default());
    events
}

/// The current explorer thread's number: `N` for a thread named `hilo N`,
/// 0 otherwise.
fn thread() -> u32 {
    shuttle::thread::current()
        .name()
        .and_then(|n| n.strip_prefix("hilo "))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Notes that the current thread begins its call number `index`.
pub fn call(index: u32) {
    if recording() {
        push(Event::Call {
            thread: thread(),
            index,
        });
    }
}

/// Notes that the current thread's call number `index` returned.
pub fn returned(index: u32) {
    if recording() {
        push(Event::Returned {
            thread: thread(),
            index,
        });
    }
}

/// What a lock guards, seen through its type.
enum View<'a> {
    Store(&'a SharedStore),
    Ledger(&'a [LedgerEntry]),
    Other,
}

fn view_of<T: 'static>(value: &T) -> View<'_> {
    let any = value as &dyn Any;
    if let Some(store) = any.downcast_ref::<SharedStore>() {
        View::Store(store)
    } else if let Some(ledger) = any.downcast_ref::<Vec<LedgerEntry>>() {
        View::Ledger(ledger)
    } else {
        View::Other
    }
}

fn snapshot(view: View<'_>, rows_before: usize) -> Snapshot {
    match view {
        View::Store(store) => {
            let mut entries: Vec<(IdempotencyKey, KeyState)> =
                store.iter().map(|(k, s)| (*k, *s)).collect();
            entries.sort_by_key(|(k, _)| *k);
            Snapshot::Store(entries)
        }
        View::Ledger(rows) => Snapshot::Ledger {
            rows: rows.len(),
            added: rows.get(rows_before..).unwrap_or_default().to_vec(),
        },
        View::Other => Snapshot::Other,
    }
}

/// A critical section under way: what it found (when recording).
pub(crate) struct Opened<T> {
    before: Option<Snapshot>,
    view: fn(&T) -> View<'_>,
}

impl<T: 'static> Opened<T> {
    /// The section that begins with the lock just taken around `value`.
    pub(crate) fn new(value: &T) -> Opened<T> {
        let view = view_of::<T>;
        let before = recording().then(|| snapshot(view(value), usize::MAX));
        Opened { before, view }
    }
}

impl<T> Opened<T> {
    /// Records the section, ending with `value` as the lock is released.
    pub(crate) fn close(&mut self, value: &T) {
        let Some(before) = self.before.take() else {
            return;
        };
        let rows_before = match &before {
            Snapshot::Ledger { rows, .. } => *rows,
            _ => 0,
        };
        let after = snapshot((self.view)(value), rows_before);
        push(Event::Section {
            thread: thread(),
            before,
            after,
        });
    }
}
