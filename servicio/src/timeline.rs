//! What happened during a run, in order: each request the kit sent to the
//! service, each answer (delivered or lost), each charge the processor
//! took. The failing checks show their part of it step by step, and
//! `servicio --html` draws it (lección 2: "lo vas a ver en el ledger").

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

/// Who did something.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Lane {
    /// The kit playing `orders`: client number `n` (1 for the fleet; the
    /// concurrent checks use several).
    Orders(u32),
    /// The kit's stand-in card processor.
    Processor,
    /// The kit stopping or starting the service.
    Kit,
}

impl std::fmt::Display for Lane {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Lane::Orders(n) => write!(f, "orders#{n}"),
            Lane::Processor => write!(f, "procesador"),
            Lane::Kit => write!(f, "kit"),
        }
    }
}

/// One thing that happened.
#[derive(Clone, Debug, Serialize)]
pub struct Event {
    /// Microseconds since the timeline began.
    pub t_us: u64,
    /// Who did it.
    pub lane: Lane,
    /// The order it concerns (`ord_0001`), empty when none.
    pub order_id: String,
    /// The kind, for drawing: `envio`, `respuesta`, `perdida`, `cargo`,
    /// `retenido`, `nota`.
    pub kind: &'static str,
    /// What happened, in Spanish, one line.
    pub text: String,
}

/// The events of a run, shared by the client and the processor. Cheap to
/// clone (one shared list).
#[derive(Clone, Debug)]
pub struct Timeline {
    start: Instant,
    events: Arc<Mutex<Vec<Event>>>,
    /// Every charge the service answered: the order asked for and the
    /// `charge_id` it named, in order (see [`Timeline::answered`]).
    answered: Arc<Mutex<Vec<(String, String)>>>,
    /// Every request that got no answer the contract allows, in order: the
    /// hint that says what to fix (see [`Timeline::broke`]).
    broken: Arc<Mutex<Vec<&'static str>>>,
}

impl Default for Timeline {
    fn default() -> Self {
        Timeline::new()
    }
}

impl Timeline {
    /// An empty timeline that starts now.
    pub fn new() -> Timeline {
        Timeline {
            start: Instant::now(),
            events: Arc::default(),
            answered: Arc::default(),
            broken: Arc::default(),
        }
    }

    /// Records that a request got no answer the contract allows (no HTTP
    /// answer at all, a success without the contract's body), with the
    /// hint that says what to fix.
    pub fn broke(&self, hint: &'static str) {
        self.broken
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(hint);
    }

    /// The hints of the requests that broke the contract so far, in order.
    pub fn broken(&self) -> Vec<&'static str> {
        self.broken
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Records that the service answered `charge_id` to a charge of
    /// `order_id` (the client does, for every success it reads).
    pub fn note_answer(&self, order_id: &str, charge_id: &str) {
        self.answered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((order_id.to_string(), charge_id.to_string()));
    }

    /// The charges the service answered so far, `(order_id, charge_id)` in
    /// order: a check compares the ones it caused with the processor's
    /// record ([`crate::checks::unknown_charge`]).
    pub fn answered(&self) -> Vec<(String, String)> {
        self.answered
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Records an event.
    pub fn push(&self, lane: Lane, order_id: &str, kind: &'static str, text: impl Into<String>) {
        let t_us = self.start.elapsed().as_micros() as u64;
        let mut events = self.events.lock().unwrap_or_else(|e| e.into_inner());
        events.push(Event {
            t_us,
            lane,
            order_id: order_id.to_string(),
            kind,
            text: text.into(),
        });
    }

    /// Every event so far, in order.
    pub fn events(&self) -> Vec<Event> {
        self.events
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The events of order `order_id`, as numbered Spanish lines
    /// (`3. procesador: cobró ch_0002 …`), for a failing check. No
    /// timings: the report stays the same from run to run (the page of
    /// `--html` draws them).
    pub fn steps(&self, order_id: &str) -> Vec<String> {
        let events: Vec<Event> = self
            .events()
            .into_iter()
            .filter(|e| e.order_id == order_id)
            .collect();
        events
            .iter()
            .enumerate()
            .map(|(i, e)| format!("{}. {}: {}", i + 1, e.lane, e.text))
            .collect()
    }
}
