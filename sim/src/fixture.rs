//! Scenarios as data: `fixtures/*.toml`, parsed with serde + toml and
//! validated into a [`Scenario`].
//!
//! A fixture names its orders (an explicit list of whole-dollar amounts, or a
//! generated fleet), its loss model (a script or a probability with a seed),
//! `max_attempts`, and the seeded stream. Anything malformed becomes a
//! [`FixtureError`] naming the file, the field and what is allowed.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::ids::OrderId;
use crate::keys::SeededKeys;
use crate::money::Money;
use crate::network::{Delivery, LossModel, Network};
use crate::order::Order;
use crate::stream::{Stream, StreamKind};

/// Most orders a fleet may have: enough for the 10,000,000-order benchmark,
/// small enough to fit in memory with both worlds' ledgers.
pub const MAX_ORDERS: u64 = 20_000_000;
/// Most entries an explicit `orders.amounts` list or a `losses.script` may have.
pub const MAX_LISTED: usize = 100_000;
/// Largest `max_attempts` accepted.
pub const MAX_ATTEMPTS: u32 = 100;
/// Largest amount, in whole dollars, an order may have.
pub const MAX_AMOUNT_DOLLARS: i64 = 1_000_000_000;

/// A malformed fixture: which file, where, and what is allowed. Displays as
/// one Spanish line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureError {
    /// The fixture's path, as given.
    pub file: PathBuf,
    /// `line:column` (1-based) when the error has a place in the text.
    pub position: Option<(usize, usize)>,
    /// The field, dotted (`losses.p_response_lost`), when known.
    pub field: Option<String>,
    /// What is wrong and what is allowed, in Spanish.
    pub message: String,
}

impl fmt::Display for FixtureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "fixture {}", self.file.display())?;
        if let Some((line, col)) = self.position {
            write!(f, ":{line}:{col}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ", campo `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for FixtureError {}

/// How the orders are given.
#[derive(Clone, Debug, PartialEq)]
pub enum OrdersSpec {
    /// Explicit amounts, ids 1, 2, … in order.
    Listed(Vec<Money>),
    /// `count` orders with CPython's `randint(amount_min, amount_max)` whole
    /// dollars, drawn in order from the fixture's stream seeded with `seed`.
    Generated {
        /// Number of orders, 1 to [`MAX_ORDERS`].
        count: u64,
        /// Smallest amount, whole dollars.
        amount_min: i64,
        /// Largest amount, whole dollars (included).
        amount_max: i64,
        /// Seed of the amounts' stream.
        seed: u64,
    },
}

/// How responses are lost.
#[derive(Clone, Debug, PartialEq)]
pub enum LossSpec {
    /// One entry per attempt, across the whole scenario; delivered after.
    Scripted(Vec<Delivery>),
    /// Each response lost with probability `p_response_lost`, one draw per
    /// attempt from the fixture's stream seeded with `seed`.
    Random {
        /// In [0, 1].
        p_response_lost: f64,
        /// Seed of the losses' stream.
        seed: u64,
    },
}

/// A validated scenario, ready to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    /// The fixture's file stem (`flota-1000`).
    pub name: String,
    /// The table's title line.
    pub title: String,
    /// Lines printed under the title (may be empty).
    pub description: String,
    /// The orders.
    pub orders: OrdersSpec,
    /// The losses.
    pub losses: LossSpec,
    /// Most attempts per order, 1 to [`MAX_ATTEMPTS`].
    pub max_attempts: u32,
    /// The generator behind amounts and losses.
    pub stream: StreamKind,
    /// Seed of the idempotency keys the kit hands to clients.
    pub key_seed: u64,
    /// Also run lesson 3's wrong client (a key per attempt) as a contrast.
    pub show_key_per_attempt: bool,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFixture {
    title: String,
    #[serde(default)]
    description: String,
    max_attempts: i64,
    #[serde(default)]
    stream: StreamKind,
    #[serde(default)]
    key_seed: u64,
    #[serde(default)]
    show_key_per_attempt: bool,
    orders: RawOrders,
    losses: RawLosses,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOrders {
    amounts: Option<Vec<i64>>,
    count: Option<i64>,
    amount_min: Option<i64>,
    amount_max: Option<i64>,
    seed: Option<u64>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLosses {
    script: Option<Vec<RawDelivery>>,
    p_response_lost: Option<f64>,
    seed: Option<u64>,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum RawDelivery {
    Lost,
    Delivered,
}

impl Scenario {
    /// Reads and validates the fixture at `path`.
    ///
    /// # Errors
    /// A [`FixtureError`] when the file cannot be read, is not TOML, has an
    /// unknown field or a wrong type, or a value outside what is allowed.
    pub fn load(path: &Path) -> Result<Scenario, FixtureError> {
        let text = std::fs::read_to_string(path).map_err(|e| FixtureError {
            file: path.to_path_buf(),
            position: None,
            field: None,
            message: match e.kind() {
                std::io::ErrorKind::NotFound => "el archivo no existe".to_string(),
                std::io::ErrorKind::InvalidData => "el archivo no es texto UTF-8".to_string(),
                std::io::ErrorKind::IsADirectory => {
                    "es una carpeta; se espera un archivo .toml".to_string()
                }
                other => format!("no se pudo leer el archivo ({})", io_kind(other)),
            },
        })?;
        Scenario::parse(&text, path)
    }

    /// Parses and validates fixture `text`; `path` names it in errors and
    /// gives the scenario its name (the file stem).
    ///
    /// # Errors
    /// As [`Scenario::load`], without the reading part.
    pub fn parse(text: &str, path: &Path) -> Result<Scenario, FixtureError> {
        let raw: RawFixture = toml::from_str(text).map_err(|e| {
            let t = toml_errors::translate(&e, text);
            FixtureError {
                file: path.to_path_buf(),
                position: t.position,
                field: t.field,
                message: t.message,
            }
        })?;
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        validate(raw, name, path)
    }

    /// Loads every `*.toml` directly in `dir`, sorted by file name.
    ///
    /// # Errors
    /// The first malformed fixture's error, or an error naming `dir` when it
    /// cannot be read or holds no fixture.
    pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>, FixtureError> {
        let dir_error = |message: String| FixtureError {
            file: dir.to_path_buf(),
            position: None,
            field: None,
            message,
        };
        let entries = std::fs::read_dir(dir).map_err(|e| {
            dir_error(match e.kind() {
                std::io::ErrorKind::NotFound => "la carpeta de fixtures no existe".to_string(),
                std::io::ErrorKind::NotADirectory => {
                    "no es una carpeta; se espera una carpeta con archivos *.toml".to_string()
                }
                other => format!(
                    "no se pudo leer la carpeta de fixtures ({})",
                    io_kind(other)
                ),
            })
        })?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
            .collect();
        paths.sort();
        if paths.is_empty() {
            return Err(dir_error(
                "la carpeta no contiene fixtures (se esperan archivos *.toml)".to_string(),
            ));
        }
        paths.iter().map(|p| Scenario::load(p)).collect()
    }

    /// A generated fleet with the lesson's seeding convention: amounts seeded
    /// with `seed`, losses with `seed + 1` (the lesson's 42 and 43).
    pub fn fleet(
        name: &str,
        count: u64,
        amounts: (i64, i64),
        p_response_lost: f64,
        max_attempts: u32,
        seed: u64,
        stream: StreamKind,
    ) -> Scenario {
        Scenario {
            name: name.to_string(),
            title: format!("FLOTA  ·  {name}"),
            description: String::new(),
            orders: OrdersSpec::Generated {
                count,
                amount_min: amounts.0,
                amount_max: amounts.1,
                seed,
            },
            losses: LossSpec::Random {
                p_response_lost,
                seed: seed.wrapping_add(1),
            },
            max_attempts,
            stream,
            key_seed: seed,
            show_key_per_attempt: false,
        }
    }

    /// Number of orders, without generating them.
    pub fn order_count(&self) -> u64 {
        match &self.orders {
            OrdersSpec::Listed(a) => a.len() as u64,
            OrdersSpec::Generated { count, .. } => *count,
        }
    }

    /// The orders, ids from 1, amounts in cents. Same fixture, same orders.
    pub fn orders(&self) -> Vec<Order> {
        let amounts: Vec<Money> = match &self.orders {
            OrdersSpec::Listed(a) => a.clone(),
            OrdersSpec::Generated {
                count,
                amount_min,
                amount_max,
                seed,
            } => {
                let mut s = Stream::new(self.stream, *seed);
                let (lo, hi) = (*amount_min as u64, *amount_max as u64);
                (0..*count)
                    .map(|_| Money::from_dollars(s.randint(lo, hi) as i64))
                    .collect()
            }
        };
        amounts
            .into_iter()
            .enumerate()
            .map(|(i, amount)| Order {
                id: OrderId(i as u64 + 1),
                amount,
            })
            .collect()
    }

    /// The loss model, from its first draw.
    pub fn loss_model(&self) -> LossModel {
        match &self.losses {
            LossSpec::Scripted(s) => LossModel::scripted(s.clone()),
            LossSpec::Random {
                p_response_lost,
                seed,
            } => LossModel::random(self.stream, *seed, *p_response_lost),
        }
    }

    /// A fresh network with the scenario's losses: every world replays the
    /// same draws.
    pub fn network(&self) -> Network {
        Network::new(self.loss_model())
    }

    /// A fresh key source for the scenario.
    pub fn keys(&self) -> SeededKeys {
        SeededKeys::new(self.key_seed)
    }

    /// The loss probability, or `None` for a script.
    pub fn p_response_lost(&self) -> Option<f64> {
        match self.losses {
            LossSpec::Random {
                p_response_lost, ..
            } => Some(p_response_lost),
            LossSpec::Scripted(_) => None,
        }
    }
}

/// A reading error's kind, in Spanish.
fn io_kind(kind: std::io::ErrorKind) -> String {
    match kind {
        std::io::ErrorKind::PermissionDenied => "sin permiso de lectura".to_string(),
        std::io::ErrorKind::IsADirectory => "es una carpeta".to_string(),
        std::io::ErrorKind::NotADirectory => "no es una carpeta".to_string(),
        other => format!("error de entrada/salida: {other:?}"),
    }
}

fn validate(raw: RawFixture, name: String, path: &Path) -> Result<Scenario, FixtureError> {
    let err = |field: &str, message: String| FixtureError {
        file: path.to_path_buf(),
        position: None,
        field: Some(field.to_string()),
        message,
    };
    if raw.max_attempts < 1 || raw.max_attempts > i64::from(MAX_ATTEMPTS) {
        return Err(err(
            "max_attempts",
            format!(
                "debe ser un entero entre 1 y {MAX_ATTEMPTS}; se leyó {}",
                raw.max_attempts
            ),
        ));
    }
    let amount_ok = |a: i64| (1..=MAX_AMOUNT_DOLLARS).contains(&a);
    let orders = match (raw.orders.amounts, raw.orders.count) {
        (Some(_), Some(_)) => {
            return Err(err(
                "orders",
                "usa `amounts` (lista explícita) o `count` (flota generada), no ambos".into(),
            ));
        }
        (None, None) => {
            return Err(err(
                "orders",
                "falta `amounts` (lista de montos en dólares) o `count` (flota generada)".into(),
            ));
        }
        (Some(amounts), None) => {
            for field in ["amount_min", "amount_max", "seed"] {
                let present = match field {
                    "amount_min" => raw.orders.amount_min.is_some(),
                    "amount_max" => raw.orders.amount_max.is_some(),
                    _ => raw.orders.seed.is_some(),
                };
                if present {
                    return Err(err(
                        &format!("orders.{field}"),
                        "solo vale con `count` (flota generada), no con `amounts`".into(),
                    ));
                }
            }
            if amounts.is_empty() || amounts.len() > MAX_LISTED {
                return Err(err(
                    "orders.amounts",
                    format!(
                        "debe tener entre 1 y {MAX_LISTED} montos; tiene {}",
                        amounts.len()
                    ),
                ));
            }
            if let Some((i, a)) = amounts.iter().enumerate().find(|(_, a)| !amount_ok(**a)) {
                return Err(err(
                    &format!("orders.amounts[{i}]"),
                    format!(
                        "cada monto es un entero positivo de dólares, de 1 a {MAX_AMOUNT_DOLLARS}; se leyó {a}"
                    ),
                ));
            }
            OrdersSpec::Listed(amounts.into_iter().map(Money::from_dollars).collect())
        }
        (None, Some(count)) => {
            if count < 1 || count as u64 > MAX_ORDERS {
                return Err(err(
                    "orders.count",
                    format!(
                        "debe ser un entero entre 1 y {MAX_ORDERS} (lo que cabe en memoria con los dos mundos); se leyó {count}"
                    ),
                ));
            }
            let need = |field: &str, v: Option<i64>| {
                v.ok_or_else(|| err(&format!("orders.{field}"), "falta; una flota generada necesita `count`, `amount_min`, `amount_max` y `seed`".into()))
            };
            let amount_min = need("amount_min", raw.orders.amount_min)?;
            let amount_max = need("amount_max", raw.orders.amount_max)?;
            let seed = raw.orders.seed.ok_or_else(|| {
                err("orders.seed", "falta; una flota generada necesita `count`, `amount_min`, `amount_max` y `seed`".into())
            })?;
            for (field, v) in [("amount_min", amount_min), ("amount_max", amount_max)] {
                if !amount_ok(v) {
                    return Err(err(
                        &format!("orders.{field}"),
                        format!(
                            "debe ser un entero positivo de dólares, de 1 a {MAX_AMOUNT_DOLLARS}; se leyó {v}"
                        ),
                    ));
                }
            }
            if amount_min > amount_max {
                return Err(err(
                    "orders.amount_min",
                    format!(
                        "el rango de montos está vacío o invertido: amount_min ({amount_min}) debe ser ≤ amount_max ({amount_max})"
                    ),
                ));
            }
            OrdersSpec::Generated {
                count: count as u64,
                amount_min,
                amount_max,
                seed,
            }
        }
    };
    let losses = match (raw.losses.script, raw.losses.p_response_lost) {
        (Some(_), Some(_)) => {
            return Err(err(
                "losses",
                "usa `script` (lista de lost/delivered) o `p_response_lost` con `seed`, no ambos"
                    .into(),
            ));
        }
        (None, None) => {
            return Err(err(
                "losses",
                "falta `script` (lista de lost/delivered) o `p_response_lost` (probabilidad entre 0 y 1)".into(),
            ));
        }
        (Some(script), None) => {
            if raw.losses.seed.is_some() {
                return Err(err(
                    "losses.seed",
                    "solo vale con `p_response_lost`, no con `script`".into(),
                ));
            }
            if script.len() > MAX_LISTED {
                return Err(err(
                    "losses.script",
                    format!(
                        "admite a lo sumo {MAX_LISTED} entradas; tiene {}",
                        script.len()
                    ),
                ));
            }
            LossSpec::Scripted(
                script
                    .into_iter()
                    .map(|d| match d {
                        RawDelivery::Lost => Delivery::Lost,
                        RawDelivery::Delivered => Delivery::Delivered,
                    })
                    .collect(),
            )
        }
        (None, Some(p)) => {
            if !(0.0..=1.0).contains(&p) {
                return Err(err(
                    "losses.p_response_lost",
                    format!("debe ser una probabilidad entre 0 y 1; se leyó {p}"),
                ));
            }
            let seed = raw.losses.seed.ok_or_else(|| {
                err(
                    "losses.seed",
                    "falta; las pérdidas aleatorias necesitan una semilla entera ≥ 0".into(),
                )
            })?;
            LossSpec::Random {
                p_response_lost: p,
                seed,
            }
        }
    };
    Ok(Scenario {
        name,
        title: raw.title,
        description: raw.description,
        orders,
        losses,
        max_attempts: raw.max_attempts as u32,
        stream: raw.stream,
        key_seed: raw.key_seed,
        show_key_per_attempt: raw.show_key_per_attempt,
    })
}

mod toml_errors;

#[cfg(test)]
mod tests;
