//! The kit playing `orders` over HTTP: `POST /charges` to the service, the
//! whole answer read (so the handler has run) before the loss stream says
//! whether it was delivered or lost (lección 2: "el servidor ya cobró").

use std::time::{Duration, Instant};

use serde::Deserialize;
use sim::Money;

use crate::timeline::{Lane, Timeline};

/// The most bytes of an answer the kit reads: a larger body is a contract
/// failure, not a memory problem.
pub const MAX_ANSWER: u64 = 1024 * 1024;

/// What the service answered to one request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The HTTP status.
    pub status: u16,
    /// The charge the body names, when the status is 200 or 201 and the
    /// body is the contract's JSON.
    pub charge: Option<ChargeAnswer>,
    /// What is wrong with a 200/201's body (not JSON, HTML, fields
    /// missing), in Spanish; `None` for a good body or another status.
    pub problem: Option<String>,
    /// The body's first characters, for messages.
    pub excerpt: String,
}

impl Answer {
    /// Whether it is a success (200 or 201) with a good body.
    pub fn ok(&self) -> bool {
        self.charge.is_some()
    }

    /// One Spanish line: `200 ch_0001`, `409`, `200 con un cuerpo inválido
    /// (…)`.
    pub fn describe(&self) -> String {
        match (&self.charge, &self.problem) {
            (Some(c), _) => format!("{} {}", self.status, c.charge_id),
            (None, Some(p)) => format!("{} con un cuerpo inválido ({p})", self.status),
            (None, None) => format!("{} «{}»", self.status, self.excerpt),
        }
    }
}

/// The success body of the contract.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct ChargeAnswer {
    /// The processor's charge id.
    pub charge_id: String,
    /// The order charged.
    pub order_id: String,
    /// The amount charged, in cents.
    pub amount_cents: i64,
}

/// A client of one service (its base URL), with a per-request time limit.
#[derive(Clone)]
pub struct Client {
    agent: ureq::Agent,
    base: String,
    timeline: Timeline,
    limit: Duration,
    /// The end of the run: no request goes past it.
    deadline: Option<Instant>,
}

/// The agent every kit client uses: 4xx/5xx read as answers, no proxy
/// (loopback), no redirects, `limit` for a whole request.
pub fn agent(limit: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .proxy(None)
        .max_redirects(0)
        .timeout_global(Some(limit))
        .build()
        .new_agent()
}

impl Client {
    /// A client of the service at `base` (`http://127.0.0.1:PORT`) whose
    /// requests each get at most `limit`.
    pub fn new(base: &str, limit: Duration, timeline: Timeline) -> Client {
        Client {
            agent: agent(limit),
            base: base.trim_end_matches('/').to_string(),
            timeline,
            limit,
            deadline: None,
        }
    }

    /// This client, its requests cut at `deadline` (the run's end,
    /// `--limite-corrida`).
    pub fn until(mut self, deadline: Instant) -> Client {
        self.deadline = Some(deadline);
        self
    }

    /// The time limit of the next request: the per-request one, or what
    /// is left of the run.
    ///
    /// # Errors
    /// Nothing is left of the run, in Spanish.
    fn budget(&self, what: &str) -> Result<Duration, String> {
        let Some(deadline) = self.deadline else {
            return Ok(self.limit);
        };
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(format!(
                "{what}: no se envió, se acabó el tiempo de la corrida (--limite-corrida)"
            ));
        }
        Ok(self.limit.min(left))
    }

    /// What cuts a request whose time limit is `limit`: this client's
    /// request limit, or the run's end when less of the run was left.
    fn cut(&self, limit: Duration) -> Cut {
        if limit < self.limit {
            Cut::RunEnd
        } else {
            Cut::Request(self.limit)
        }
    }

    /// The service's base URL.
    pub fn base(&self) -> &str {
        &self.base
    }

    /// `POST /charges` for `order_id` and `amount` (cents), with the
    /// `Idempotency-Key` header when `key` is given, as client `lane`; the
    /// whole answer is read. Records the request on the timeline (the
    /// answer is recorded by the caller, who knows whether it is lost).
    ///
    /// # Errors
    /// A request that got no HTTP answer (refused, reset, time limit,
    /// malformed HTTP, a body over 1 MiB), in Spanish.
    pub fn charge(
        &self,
        lane: u32,
        order_id: &str,
        amount: Money,
        key: Option<&str>,
    ) -> Result<Answer, String> {
        let body = serde_json::json!({ "order_id": order_id, "amount_cents": amount.cents() });
        self.timeline.push(
            Lane::Orders(lane),
            order_id,
            "envio",
            match key {
                Some(k) => format!("POST /charges {order_id} {amount} Idempotency-Key: {k}"),
                None => format!("POST /charges {order_id} {amount} sin key"),
            },
        );
        let limit = self.budget("POST /charges")?;
        let mut request = self
            .agent
            .post(format!("{}/charges", self.base))
            .config()
            .timeout_global(Some(limit))
            .build()
            .content_type("application/json");
        if let Some(k) = key {
            request = request.header("Idempotency-Key", k);
        }
        let cut = self.cut(limit);
        let answer = request
            .send(body.to_string())
            .map_err(|e| transport_error(&e, "POST /charges", cut))
            .and_then(|response| read_answer(response, cut));
        match &answer {
            Err(_) => self.timeline.broke(crate::checks::hints::ANSWER),
            Ok(a) if a.problem.is_some() => {
                self.timeline.broke(crate::checks::hints::CONTRACT);
            }
            Ok(_) => {}
        }
        if let Ok(Answer {
            charge: Some(c), ..
        }) = &answer
        {
            self.timeline.note_answer(order_id, &c.charge_id);
        }
        answer
    }

    /// `GET /health`'s status.
    ///
    /// # Errors
    /// As [`Client::charge`].
    pub fn health(&self) -> Result<u16, String> {
        let mut response = self
            .agent
            .get(format!("{}/health", self.base))
            .call()
            .map_err(|e| transport_error(&e, "GET /health", self.cut(self.limit)))?;
        let status = response.status().as_u16();
        let _ = response
            .body_mut()
            .with_config()
            .limit(MAX_ANSWER)
            .read_to_vec();
        Ok(status)
    }
}

/// What cuts a request when it takes too long, for its message.
#[derive(Clone, Copy)]
enum Cut {
    /// The per-request limit (`--limite-peticion`).
    Request(Duration),
    /// The run's end (`--limite-corrida`), which came first.
    RunEnd,
}

/// Reads a whole answer and checks a success body against the contract.
fn read_answer(mut response: ureq::http::Response<ureq::Body>, cut: Cut) -> Result<Answer, String> {
    let status = response.status().as_u16();
    let bytes = response
        .body_mut()
        .with_config()
        .limit(MAX_ANSWER)
        .read_to_vec()
        .map_err(|e| transport_error(&e, "el cuerpo de la respuesta", cut))?;
    let text = String::from_utf8_lossy(&bytes);
    let excerpt: String = text.chars().take(120).collect();
    let excerpt = judge::verdict::student_text(excerpt.trim());
    let mut answer = Answer {
        status,
        charge: None,
        problem: None,
        excerpt,
    };
    if status == 200 || status == 201 {
        match serde_json::from_slice::<ChargeAnswer>(&bytes) {
            Ok(c) => answer.charge = Some(c),
            Err(e) => {
                let what = if text.trim_start().starts_with('<') {
                    "parece HTML, no JSON".to_string()
                } else if serde_json::from_slice::<serde_json::Value>(&bytes).is_ok() {
                    format!(
                        "JSON sin los campos charge_id, order_id y amount_cents: {}",
                        judge::verdict::student_text(&e.to_string())
                    )
                } else {
                    "no es JSON".to_string()
                };
                answer.problem = Some(format!("{what}; llegó «{}»", answer.excerpt));
            }
        }
    }
    Ok(answer)
}

/// A transport failure of `what` in Spanish.
fn transport_error(e: &ureq::Error, what: &str, cut: Cut) -> String {
    match e {
        ureq::Error::Timeout(_) => match cut {
            Cut::Request(limit) => format!(
                "{what}: el servicio no respondió dentro del límite de tiempo por petición ({} s, --limite-peticion)",
                crate::process::seconds(limit)
            ),
            Cut::RunEnd => format!(
                "{what}: se acabó el tiempo de la corrida (--limite-corrida) esperando la respuesta"
            ),
        },
        ureq::Error::BodyExceedsLimit(_) => format!(
            "{what}: el servicio mandó un cuerpo de más de 1 MiB (el contrato responde un JSON pequeño)"
        ),
        ureq::Error::Io(io) => format!(
            "{what}: la conexión con el servicio falló ({})",
            connection_error(io)
        ),
        other => format!(
            "{what}: el servicio no respondió HTTP/1.1 válido ({})",
            judge::verdict::student_text(&other.to_string())
        ),
    }
}

/// What happened to a connection, in Spanish (Rust's own words are
/// English: "Connection refused (os error 111)").
fn connection_error(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::ConnectionRefused => "conexión rechazada: nadie escucha en ese puerto".to_string(),
        K::ConnectionReset => "el servicio cortó la conexión (reset)".to_string(),
        K::ConnectionAborted => "la conexión se abortó".to_string(),
        K::BrokenPipe => "el servicio cerró la conexión antes de leer toda la request".to_string(),
        K::UnexpectedEof => {
            "el servicio cerró la conexión antes de terminar la respuesta".to_string()
        }
        K::TimedOut => "se acabó el tiempo de la conexión".to_string(),
        K::NotConnected => "la conexión no estaba abierta".to_string(),
        _ => judge::output::io_error(e),
    }
}

#[cfg(test)]
mod tests {
    use super::connection_error;
    use std::io::{Error, ErrorKind};

    #[test]
    fn a_refused_or_cut_connection_is_said_in_spanish() {
        assert_eq!(
            connection_error(&Error::from(ErrorKind::ConnectionRefused)),
            "conexión rechazada: nadie escucha en ese puerto"
        );
        assert_eq!(
            connection_error(&Error::from(ErrorKind::UnexpectedEof)),
            "el servicio cerró la conexión antes de terminar la respuesta"
        );
        assert_eq!(
            connection_error(&Error::from(ErrorKind::ConnectionReset)),
            "el servicio cortó la conexión (reset)"
        );
    }
}
