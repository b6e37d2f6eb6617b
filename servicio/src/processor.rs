//! The kit's stand-in card processor: `POST /charges` with
//! `{"order_id": "ord_0001", "amount_cents": 50000}` answers
//! `{"charge_id": "ch_0001"}`. Every call charges (the processor keeps no
//! idempotency: that is the service's job), and what it recorded is the
//! ledger the kit reconciles: the money really taken, which a service
//! cannot misreport.
//!
//! A check can *hold* the first charge of an order open ([`Processor::hold`]):
//! the processor records it and does not answer until the check releases
//! it. The service's request is then in flight for as long as the check
//! needs (lección 4: the race window of two concurrent retries, forced open),
//! so a concurrent check is deterministic, not luck.

use std::io::Read;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use sim::Money;

use crate::timeline::{Lane, Timeline};

/// The most bytes of a request body the processor reads.
const MAX_BODY: u64 = 64 * 1024;

/// The longest a held charge waits for its release (a check always
/// releases it sooner; this only keeps a forgotten hold from blocking the
/// service forever).
const MAX_HOLD: Duration = Duration::from_secs(60);

/// One charge the processor took: a row of the ledger the kit reconciles.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Charge {
    /// `ch_0001`, numbered from 1 in the order the calls arrived.
    pub charge_id: String,
    /// The order the service named.
    pub order_id: String,
    /// The amount, in cents.
    pub amount_cents: i64,
}

#[derive(Deserialize)]
struct ChargeBody {
    order_id: String,
    amount_cents: i64,
}

#[derive(Default)]
struct HoldState {
    /// The order whose first charge is held, while armed.
    order_id: Option<String>,
    /// Whether that charge arrived and is being held.
    held: bool,
}

struct State {
    charges: Mutex<Vec<Charge>>,
    hold: Mutex<HoldState>,
    changed: Condvar,
    timeline: Timeline,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A running processor on a free loopback port; stopped when dropped.
pub struct Processor {
    url: String,
    state: Arc<State>,
    server: Arc<tiny_http::Server>,
    acceptor: Option<JoinHandle<()>>,
}

impl Processor {
    /// Starts a processor on `127.0.0.1` at a port the system picks; its
    /// events go to `timeline`.
    ///
    /// # Errors
    /// Why it could not listen, in Spanish.
    pub fn start(timeline: Timeline) -> Result<Processor, String> {
        let server = tiny_http::Server::http("127.0.0.1:0")
            .map_err(|e| format!("el procesador del kit no pudo escuchar en 127.0.0.1: {e}"))?;
        let port = server
            .server_addr()
            .to_ip()
            .map(|a| a.port())
            .ok_or("el procesador del kit no tiene una dirección IP")?;
        let server = Arc::new(server);
        let state = Arc::new(State {
            charges: Mutex::default(),
            hold: Mutex::default(),
            changed: Condvar::new(),
            timeline,
        });
        let acceptor = {
            let (server, state) = (server.clone(), state.clone());
            std::thread::spawn(move || {
                // One thread per request: a held charge must not keep the
                // processor from taking the others.
                while let Ok(request) = server.recv() {
                    let state = state.clone();
                    std::thread::spawn(move || handle(&state, request));
                }
            })
        };
        Ok(Processor {
            url: format!("http://127.0.0.1:{port}"),
            state,
            server,
            acceptor: Some(acceptor),
        })
    }

    /// The base URL the service gets as `PROCESSOR_URL`
    /// (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Every charge taken so far, in order.
    pub fn ledger(&self) -> Vec<Charge> {
        lock(&self.state.charges).clone()
    }

    /// The charges taken for order `order_id`.
    pub fn charges_for(&self, order_id: &str) -> Vec<Charge> {
        lock(&self.state.charges)
            .iter()
            .filter(|c| c.order_id == order_id)
            .cloned()
            .collect()
    }

    /// Arms a hold: the next charge for `order_id` is recorded and then not
    /// answered until [`Processor::release`].
    pub fn hold(&self, order_id: &str) {
        *lock(&self.state.hold) = HoldState {
            order_id: Some(order_id.to_string()),
            held: false,
        };
    }

    /// Waits up to `limit` for the armed hold's charge to arrive; whether
    /// it did.
    pub fn wait_held(&self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let mut hold = lock(&self.state.hold);
        while !hold.held {
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            hold = self
                .state
                .changed
                .wait_timeout(hold, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        true
    }

    /// Lets the held charge answer, and disarms the hold.
    pub fn release(&self) {
        *lock(&self.state.hold) = HoldState::default();
        self.state.changed.notify_all();
    }
}

impl Drop for Processor {
    fn drop(&mut self) {
        self.release();
        self.server.unblock();
        if let Some(a) = self.acceptor.take() {
            let _ = a.join();
        }
    }
}

fn json_response(status: u16, body: String) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let header =
        tiny_http::Header::from_bytes("Content-Type", "application/json").expect("a valid header");
    tiny_http::Response::from_string(body)
        .with_status_code(status)
        .with_header(header)
}

fn handle(state: &State, mut request: tiny_http::Request) {
    let path = request.url().split('?').next().unwrap_or("").to_string();
    if *request.method() != tiny_http::Method::Post || path != "/charges" {
        state.timeline.push(
            Lane::Processor,
            "",
            "nota",
            format!(
                "rechazó {} {} (solo existe POST /charges)",
                request.method(),
                path
            ),
        );
        let _ = request.respond(json_response(
            404,
            r#"{"error": "el procesador solo atiende POST /charges"}"#.to_string(),
        ));
        return;
    }
    let mut body = Vec::new();
    let read = request
        .as_reader()
        .take(MAX_BODY + 1)
        .read_to_end(&mut body);
    let parsed = match read {
        Ok(_) if body.len() as u64 > MAX_BODY => Err("un cuerpo de más de 64 KiB".to_string()),
        Ok(_) => serde_json::from_slice::<ChargeBody>(&body).map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    let charge = match parsed {
        Ok(c) if c.amount_cents > 0 && !c.order_id.is_empty() => c,
        Ok(_) => {
            bad_request(
                state,
                request,
                "order_id vacío o amount_cents no positivo".to_string(),
            );
            return;
        }
        Err(e) => {
            bad_request(state, request, e);
            return;
        }
    };
    let charge_id = {
        let mut charges = lock(&state.charges);
        let id = format!("ch_{:04}", charges.len() + 1);
        charges.push(Charge {
            charge_id: id.clone(),
            order_id: charge.order_id.clone(),
            amount_cents: charge.amount_cents,
        });
        id
    };
    let amount = Money::from_cents(charge.amount_cents);
    let mut hold = lock(&state.hold);
    let held = hold.order_id.as_deref() == Some(charge.order_id.as_str()) && !hold.held;
    state.timeline.push(
        Lane::Processor,
        &charge.order_id,
        if held { "retenido" } else { "cargo" },
        if held {
            format!("cobró {charge_id} por {amount} y retiene la respuesta")
        } else {
            format!("cobró {charge_id} por {amount}")
        },
    );
    if held {
        hold.held = true;
        state.changed.notify_all();
        let deadline = Instant::now() + MAX_HOLD;
        while hold.held && Instant::now() < deadline {
            hold = state
                .changed
                .wait_timeout(hold, Duration::from_millis(100))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
        state.timeline.push(
            Lane::Processor,
            &charge.order_id,
            "nota",
            format!("suelta la respuesta de {charge_id}"),
        );
    }
    drop(hold);
    let _ = request.respond(json_response(
        200,
        serde_json::json!({ "charge_id": charge_id }).to_string(),
    ));
}

fn bad_request(state: &State, request: tiny_http::Request, why: String) {
    state.timeline.push(
        Lane::Processor,
        "",
        "nota",
        format!("rechazó un cobro mal formado: {why}"),
    );
    let body = serde_json::json!({
        "error": format!("se esperaba {{\"order_id\": \"ord_0001\", \"amount_cents\": 50000}}: {why}")
    });
    let _ = request.respond(json_response(400, body.to_string()));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn charge(url: &str, order: &str) -> (u16, String) {
        let mut r = crate::client::agent(Duration::from_secs(20))
            .post(format!("{url}/charges"))
            .send(format!(r#"{{"order_id": "{order}", "amount_cents": 500}}"#))
            .unwrap();
        let status = r.status().as_u16();
        (status, r.body_mut().read_to_string().unwrap())
    }

    #[test]
    fn a_held_charge_is_recorded_at_once_and_answered_only_when_released() {
        let p = Processor::start(Timeline::new()).unwrap();
        p.hold("ord_0001");
        std::thread::scope(|s| {
            let first = s.spawn(|| charge(p.url(), "ord_0001"));
            assert!(p.wait_held(Duration::from_secs(10)));
            assert_eq!(p.charges_for("ord_0001").len(), 1);
            // Only the first is held: a second charge of the order passes.
            assert_eq!(
                charge(p.url(), "ord_0001"),
                (200, r#"{"charge_id":"ch_0002"}"#.to_string())
            );
            assert!(!first.is_finished());
            p.release();
            assert_eq!(
                first.join().unwrap(),
                (200, r#"{"charge_id":"ch_0001"}"#.to_string())
            );
        });
        let ids: Vec<String> = p.ledger().into_iter().map(|c| c.charge_id).collect();
        assert_eq!(ids, ["ch_0001", "ch_0002"]);
    }

    #[test]
    fn a_malformed_charge_is_400_and_charges_nothing() {
        let p = Processor::start(Timeline::new()).unwrap();
        let mut r = crate::client::agent(Duration::from_secs(5))
            .post(format!("{}/charges", p.url()))
            .send(r#"{"order_id": "ord_0001", "amount_cents": -5}"#)
            .unwrap();
        assert_eq!(r.status().as_u16(), 400);
        let body = r.body_mut().read_to_string().unwrap();
        assert!(body.contains("amount_cents no positivo"), "{body}");
        assert!(p.ledger().is_empty());
        assert!(!p.wait_held(Duration::from_millis(10)));
    }
}
