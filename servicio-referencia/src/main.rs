//! Servicio de pagos de referencia del proyecto final (lección 8), el
//! contrato de `grader servicio` (docs/src/estudiantes/servicio.md):
//!
//! - `GET /health` → 200 cuando está listo.
//! - `POST /charges` con `{"order_id", "amount_cents"}` y, opcional,
//!   `Idempotency-Key`: cobra con `POST $PROCESSOR_URL/charges` y responde
//!   201 con `{"charge_id", "order_id", "amount_cents"}`.
//! - Un reintento con la misma key y el mismo cuerpo devuelve el resultado
//!   guardado (200) sin cobrar; mientras el primero sigue en curso, 409; con
//!   otro cuerpo, 422, sin cobrar.
//!
//! El store de idempotencia vive en `$DATA_DIR/pagos.db` (SQLite, WAL,
//! `busy_timeout`): la key se reclama con un `INSERT … ON CONFLICT DO
//! NOTHING` ANTES de llamar al procesador (lección 4: el chequeo y la
//! inserción son un solo paso atómico), así que dos reintentos a la vez, o
//! dos instancias sobre el mismo archivo, nunca cobran dos veces; y un
//! reinicio encuentra lo que ya se cobró.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};

/// El cuerpo de `POST /charges`.
#[derive(Deserialize)]
struct ChargeRequest {
    order_id: String,
    amount_cents: i64,
}

/// La respuesta de un cobro (la que se guarda con la key).
#[derive(Serialize, Deserialize)]
struct ChargeResponse {
    charge_id: String,
    order_id: String,
    amount_cents: i64,
}

/// Una respuesta: estado HTTP y cuerpo JSON.
type Reply = (u16, String);

struct App {
    /// Open for the process's life: when the last connection to a WAL
    /// database closes, SQLite checkpoints it and deletes the WAL (an fsync
    /// per request if every request closed the only one).
    keeper: std::sync::Mutex<Option<Connection>>,
    db: PathBuf,
    processor: String,
    agent: ureq::Agent,
}

fn error(status: u16, message: &str) -> Reply {
    (status, serde_json::json!({ "error": message }).to_string())
}

impl App {
    /// Una conexión nueva al store (una por request: SQLite serializa las
    /// escrituras con su propio lock, entre hilos y entre procesos).
    fn connect(&self) -> rusqlite::Result<Connection> {
        let conn = Connection::open(&self.db)?;
        conn.busy_timeout(Duration::from_secs(30))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        // Con WAL, un commit sobrevive a un proceso muerto sin un fsync por
        // commit (solo un corte de luz podría perder el último).
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        Ok(conn)
    }

    fn init(&self) -> rusqlite::Result<()> {
        let conn = self.connect()?;
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS idempotencia (
                 key TEXT PRIMARY KEY,
                 order_id TEXT NOT NULL,
                 amount_cents INTEGER NOT NULL,
                 estado TEXT NOT NULL,          -- 'en_curso' o 'hecho'
                 respuesta TEXT                 -- el JSON guardado, cuando 'hecho'
             );",
        )?;
        *self.keeper.lock().unwrap_or_else(|e| e.into_inner()) = Some(conn);
        Ok(())
    }

    /// Cobra de verdad en el procesador; devuelve el `charge_id`.
    fn call_processor(&self, order_id: &str, amount_cents: i64) -> Result<String, String> {
        #[derive(Deserialize)]
        struct Answer {
            charge_id: String,
        }
        let body = serde_json::json!({ "order_id": order_id, "amount_cents": amount_cents });
        let mut response = self
            .agent
            .post(format!("{}/charges", self.processor))
            .content_type("application/json")
            .send(body.to_string())
            .map_err(|e| e.to_string())?;
        if !response.status().is_success() {
            return Err(format!("el procesador respondió {}", response.status()));
        }
        let text = response
            .body_mut()
            .read_to_string()
            .map_err(|e| e.to_string())?;
        serde_json::from_str::<Answer>(&text)
            .map(|a| a.charge_id)
            .map_err(|e| e.to_string())
    }

    fn charge(&self, key: Option<&str>, req: &ChargeRequest) -> Reply {
        let Some(key) = key else {
            // Sin key: un cobro simple (el mundo sin idempotencia).
            return match self.call_processor(&req.order_id, req.amount_cents) {
                Ok(charge_id) => (201, self.body(charge_id, req)),
                Err(e) => error(502, &format!("el procesador falló: {e}")),
            };
        };
        match self.charge_with_key(key, req) {
            Ok(reply) => reply,
            Err(e) => error(500, &format!("error de la base de datos: {e}")),
        }
    }

    fn body(&self, charge_id: String, req: &ChargeRequest) -> String {
        serde_json::to_string(&ChargeResponse {
            charge_id,
            order_id: req.order_id.clone(),
            amount_cents: req.amount_cents,
        })
        .unwrap_or_default()
    }

    fn charge_with_key(&self, key: &str, req: &ChargeRequest) -> rusqlite::Result<Reply> {
        let conn = self.connect()?;
        // El reclamo atómico: solo una request (de cualquier hilo o
        // proceso) inserta la fila; las demás ven que ya existe.
        let claimed = conn.execute(
            "INSERT INTO idempotencia (key, order_id, amount_cents, estado)
             VALUES (?1, ?2, ?3, 'en_curso') ON CONFLICT (key) DO NOTHING",
            params![key, req.order_id, req.amount_cents],
        )? == 1;
        if !claimed {
            let row: Option<(String, i64, String, Option<String>)> = conn
                .query_row(
                    "SELECT order_id, amount_cents, estado, respuesta
                     FROM idempotencia WHERE key = ?1",
                    params![key],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
                )
                .optional()?;
            return Ok(match row {
                Some((order_id, amount, _, _))
                    if order_id != req.order_id || amount != req.amount_cents =>
                {
                    error(422, "esta Idempotency-Key ya se usó con otra solicitud")
                }
                Some((_, _, estado, Some(respuesta))) if estado == "hecho" => (200, respuesta),
                Some(_) => error(
                    409,
                    "esta Idempotency-Key está en curso; reintenta más tarde",
                ),
                // Se borró entre el INSERT y el SELECT (el cobro falló):
                // el cliente puede reintentar.
                None => error(409, "reintenta"),
            });
        }
        match self.call_processor(&req.order_id, req.amount_cents) {
            Ok(charge_id) => {
                let body = self.body(charge_id, req);
                conn.execute(
                    "UPDATE idempotencia SET estado = 'hecho', respuesta = ?2 WHERE key = ?1",
                    params![key, body],
                )?;
                Ok((201, body))
            }
            Err(e) => {
                // No se cobró: la key queda libre para el reintento.
                conn.execute("DELETE FROM idempotencia WHERE key = ?1", params![key])?;
                Ok(error(502, &format!("el procesador falló: {e}")))
            }
        }
    }

    fn handle(&self, mut request: tiny_http::Request) {
        let path = request.url().split('?').next().unwrap_or("").to_string();
        let reply = match (request.method(), path.as_str()) {
            (tiny_http::Method::Get, "/health") => (200, r#"{"ok":true}"#.to_string()),
            (tiny_http::Method::Post, "/charges") => {
                let key = request
                    .headers()
                    .iter()
                    .find(|h| h.field.equiv("Idempotency-Key"))
                    .map(|h| h.value.as_str().trim().to_string());
                let mut body = Vec::new();
                let read = request.as_reader().take(64 * 1024).read_to_end(&mut body);
                match read
                    .ok()
                    .and_then(|_| serde_json::from_slice::<ChargeRequest>(&body).ok())
                {
                    Some(req) if req.amount_cents > 0 && !req.order_id.is_empty() => {
                        self.charge(key.as_deref(), &req)
                    }
                    _ => error(
                        400,
                        "se esperaba {\"order_id\": \"ord_0001\", \"amount_cents\": 50000}",
                    ),
                }
            }
            _ => error(404, "no existe"),
        };
        let header = tiny_http::Header::from_bytes("Content-Type", "application/json")
            .expect("una cabecera válida");
        let response = tiny_http::Response::from_string(reply.1)
            .with_status_code(reply.0)
            .with_header(header);
        // Si el cliente ya se fue, el cobro y lo guardado no cambian.
        let _ = request.respond(response);
    }
}

fn env(name: &str) -> String {
    std::env::var(name).unwrap_or_else(|_| {
        eprintln!("servicio-referencia: falta la variable de entorno {name}");
        std::process::exit(2);
    })
}

fn main() {
    let port = env("PORT");
    let data_dir = PathBuf::from(env("DATA_DIR"));
    let app = Arc::new(App {
        keeper: std::sync::Mutex::new(None),
        db: Path::new(&data_dir).join("pagos.db"),
        processor: env("PROCESSOR_URL").trim_end_matches('/').to_string(),
        agent: ureq::Agent::config_builder()
            .http_status_as_error(false)
            .proxy(None)
            .timeout_global(Some(Duration::from_secs(60)))
            .build()
            .new_agent(),
    });
    if let Err(e) = app.init() {
        eprintln!(
            "servicio-referencia: no se pudo abrir {}: {e}",
            app.db.display()
        );
        std::process::exit(1);
    }
    let server = match tiny_http::Server::http(format!("127.0.0.1:{port}")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("servicio-referencia: no se pudo escuchar en el puerto {port}: {e}");
            std::process::exit(1);
        }
    };
    eprintln!("servicio-referencia: escuchando en el puerto {port}");
    // Un hilo por request: un cobro en curso no bloquea a los demás.
    for request in server.incoming_requests() {
        let app = app.clone();
        std::thread::spawn(move || app.handle(request));
    }
}
