//! Escenarios como datos: `fixtures/*.toml`, leídos con serde + toml y
//! validados como un [`Scenario`].
//!
//! Un fixture declara sus órdenes (una lista explícita de montos en dólares
//! enteros, o una flota generada), su modelo de pérdidas (un guion, o una
//! probabilidad con una semilla), `max_attempts` y el stream con semilla. Todo
//! lo mal formado se convierte en un [`FixtureError`] que nombra el archivo, el
//! campo y lo que se permite.

use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use sim::{Delivery, Fleet, LossSpec, Money, OrdersSpec, StreamKind};

/// Máximo de órdenes de una flota: alcanza para el benchmark de 10 millones
/// de órdenes y cabe en memoria junto con los ledgers de los dos mundos.
pub const MAX_ORDERS: u64 = 20_000_000;
/// Máximo de entradas de una lista explícita `orders.amounts` o de un
/// `losses.script`.
pub const MAX_LISTED: usize = 100_000;
/// El mayor `max_attempts` que se acepta.
pub const MAX_ATTEMPTS: u32 = 100;
/// El mayor monto que puede tener una orden, en dólares enteros: con
/// [`MAX_ORDERS`] órdenes y [`MAX_ATTEMPTS`] intentos, el total cobrado
/// (2 × 10^17 centavos) sigue cabiendo en el `i64` de [`Money`].
pub const MAX_AMOUNT_DOLLARS: i64 = 1_000_000;

/// Un fixture mal formado: qué archivo, dónde y qué se permite. Se muestra
/// como una sola línea en español.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FixtureError {
    /// La ruta del fixture, tal como se dio.
    pub file: PathBuf,
    /// `(línea, columna)`, contadas desde 1, cuando el error tiene un lugar en
    /// el texto (se muestra como `línea:columna`).
    pub position: Option<(usize, usize)>,
    /// El campo, con puntos (`losses.p_response_lost`), cuando se conoce.
    pub field: Option<String>,
    /// Qué está mal y qué se permite, en español.
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

/// Un escenario validado, listo para correr: una flota con nombre y los
/// textos de su tabla. Serializable entero: la clave de los veredictos
/// guardados lo incluye ([`crate::verdict_cache`]).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Scenario {
    /// El nombre del archivo del fixture, sin extensión (`flota-1000`).
    pub name: String,
    /// La línea de título de la tabla.
    pub title: String,
    /// Líneas que se imprimen bajo el título (puede ser un texto vacío).
    pub description: String,
    /// Las órdenes, las pérdidas, `max_attempts` y las semillas.
    pub fleet: Fleet,
    /// Correr también el cliente equivocado de la lección 3 (una key por
    /// intento), como contraste.
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
    /// Lee y valida el fixture que está en `path`.
    ///
    /// # Errores
    /// Un [`FixtureError`] cuando el archivo no se puede leer, no es TOML,
    /// tiene un campo desconocido o de tipo incorrecto, o un valor fuera de lo
    /// permitido.
    pub fn load(path: &Path) -> Result<Scenario, FixtureError> {
        let text = std::fs::read_to_string(path).map_err(|e| {
            // Windows refuses to open a folder as a file ("access denied").
            let kind = if path.is_dir() {
                std::io::ErrorKind::IsADirectory
            } else {
                e.kind()
            };
            FixtureError {
                file: path.to_path_buf(),
                position: None,
                field: None,
                message: match kind {
                    std::io::ErrorKind::NotFound => "el archivo no existe".to_string(),
                    std::io::ErrorKind::InvalidData => "el archivo no es texto UTF-8".to_string(),
                    std::io::ErrorKind::IsADirectory => {
                        "es una carpeta; se espera un archivo .toml".to_string()
                    }
                    other => format!("no se pudo leer el archivo ({})", io_kind(other)),
                },
            }
        })?;
        Scenario::parse(&text, path)
    }

    /// Analiza y valida el texto `text` de un fixture; `path` lo nombra en los
    /// errores y le da su nombre al escenario (el nombre del archivo, sin
    /// extensión).
    ///
    /// # Errores
    /// Los mismos que [`Scenario::load`], salvo los de lectura del archivo.
    pub fn parse(text: &str, path: &Path) -> Result<Scenario, FixtureError> {
        let raw: RawFixture = toml::from_str(text).map_err(|e| {
            let t = crate::toml_errors::translate(&e, text, &|field| required(field).to_string());
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

    /// Carga cada `*.toml` que está directamente en `dir`, ordenados por
    /// nombre de archivo.
    ///
    /// # Errores
    /// El error del primer fixture mal formado, o un error que nombra `dir`
    /// cuando no se puede leer o no contiene ningún fixture.
    pub fn load_dir(dir: &Path) -> Result<Vec<Scenario>, FixtureError> {
        let dir_error = |message: String| FixtureError {
            file: dir.to_path_buf(),
            position: None,
            field: None,
            message,
        };
        let entries = std::fs::read_dir(dir).map_err(|e| {
            // Windows may call a file "not found" or "an invalid name" here.
            let kind = if dir.is_file() {
                std::io::ErrorKind::NotADirectory
            } else {
                e.kind()
            };
            dir_error(match kind {
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
        // By name without `.toml`: `flota-1000` before `flota-1000-semilla-7`
        // (the lesson's fleet first), whatever the byte after the name.
        paths.sort_by(|a, b| a.file_stem().cmp(&b.file_stem()));
        if paths.is_empty() {
            return Err(dir_error(
                "la carpeta no contiene fixtures (se esperan archivos *.toml)".to_string(),
            ));
        }
        paths.iter().map(|p| Scenario::load(p)).collect()
    }

    /// Una flota generada con la convención de semillas de la lección
    /// ([`Fleet::generated`]), con nombre y título.
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
            fleet: Fleet::generated(count, amounts, p_response_lost, max_attempts, seed, stream),
            show_key_per_attempt: false,
        }
    }
}

/// The scenarios to grade: the kit's fixtures, then each `--fixtures` folder.
///
/// # Errors
/// The first malformed fixture or unreadable folder.
pub fn load_all(extra_dirs: &[PathBuf]) -> Result<Vec<Scenario>, FixtureError> {
    let mut all = Scenario::load_dir(&crate::paths::fixtures_dir())?;
    for dir in extra_dirs {
        for scenario in Scenario::load_dir(dir)? {
            // Check ids carry the scenario's name: two with one name would
            // grade only the first.
            if all.iter().any(|s| s.name == scenario.name) {
                return Err(FixtureError {
                    file: dir.join(format!("{}.toml", scenario.name)),
                    position: None,
                    field: None,
                    message: format!(
                        "ya hay un escenario llamado «{}» (en fixtures/ o en otra carpeta de --fixtures); renombra el archivo",
                        scenario.name
                    ),
                });
            }
            all.push(scenario);
        }
    }
    Ok(all)
}

/// Resolves a scenario name (`flota-1000`) or a path to a `.toml`.
///
/// # Errors
/// A Spanish message listing the known scenario names when `name` is neither
/// a path nor a fixture of `fixtures/` or `extra_dirs`.
pub fn resolve(name: &str, extra_dirs: &[PathBuf]) -> Result<PathBuf, String> {
    let as_path = Path::new(name);
    if name.ends_with(".toml") || as_path.components().count() > 1 {
        return Ok(as_path.to_path_buf());
    }
    let mut dirs = vec![crate::paths::fixtures_dir()];
    dirs.extend(extra_dirs.iter().cloned());
    let mut known = Vec::new();
    for dir in dirs.iter().rev() {
        let p = dir.join(format!("{name}.toml"));
        if p.is_file() {
            return Ok(p);
        }
        if let Ok(entries) = std::fs::read_dir(dir) {
            known.extend(entries.filter_map(|e| {
                let p = e.ok()?.path();
                if p.extension()? != "toml" {
                    return None;
                }
                Some(p.file_stem()?.to_string_lossy().into_owned())
            }));
        }
    }
    known.sort();
    Err(format!(
        "escenario desconocido «{name}»; los escenarios son: {}",
        known.join(", ")
    ))
}

/// Lo que debe contener un campo de primer nivel que falta.
fn required(field: &str) -> &'static str {
    match field {
        "title" => "el título de la tabla, un texto entre comillas",
        "max_attempts" => "un entero entre 1 y 100",
        "orders" => "la tabla [orders], con `amounts` o con `count`",
        "losses" => "la tabla [losses], con `script` o con `p_response_lost` y `seed`",
        _ => "ver fixtures/flota-1000.toml como ejemplo",
    }
}

/// El tipo de un error de lectura, en español.
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
        fleet: Fleet {
            orders,
            losses,
            max_attempts: raw.max_attempts as u32,
            stream: raw.stream,
            key_seed: raw.key_seed,
        },
        show_key_per_attempt: raw.show_key_per_attempt,
    })
}

#[cfg(test)]
mod tests;
