//! The fleet a `comparar` or `barrido` runs: a fixture (`flota-1000` by
//! default), optionally changed by flags, so that a final project (lesson 8)
//! can describe its own fleet without writing a fixture.

use std::path::PathBuf;

use clap::Args;
use judge::fixture::{MAX_AMOUNT_DOLLARS, MAX_ATTEMPTS, MAX_ORDERS};
use sim::{LossSpec, OrdersSpec, StreamKind};

use judge::fixture::Scenario;

/// The fixture both commands run when none is named: the lesson's fleet.
pub const DEFAULT_FIXTURE: &str = "flota-1000";

/// The fleet flags shared by `comparar` and `barrido`. Each one replaces the
/// fixture's value; without flags the fixture runs as written.
#[derive(Args, Debug, Clone, Default, PartialEq)]
pub struct FleetArgs {
    /// Número de órdenes de la flota (1 a 20,000,000); solo con una flota
    /// generada (alias: --orders).
    #[arg(long, alias = "orders", value_name = "N", value_parser = parse_orders)]
    pub ordenes: Option<u64>,

    /// Probabilidad de que se pierda cada respuesta, entre 0 y 1 (p. ej.
    /// 0.15).
    #[arg(long, value_name = "P", value_parser = parse_probability)]
    pub p_perdida: Option<f64>,

    /// Máximo de intentos por orden, de 1 a 100 (la lección usa 4).
    #[arg(long, value_name = "M", value_parser = parse_max_attempts)]
    pub max_intentos: Option<u32>,

    /// Semilla S: los montos salen del stream con semilla S y las pérdidas
    /// del stream con semilla S + 1 (los 42 y 43 de la lección); las keys
    /// también usan S.
    #[arg(long, value_name = "S", value_parser = judge::variants::parse_seed)]
    pub semilla: Option<u64>,

    /// Monto mínimo de una orden, en dólares enteros (la lección: 10).
    #[arg(long, value_name = "DOLARES", value_parser = parse_dollars)]
    pub monto_min: Option<i64>,

    /// Monto máximo de una orden, en dólares enteros, incluido (la lección:
    /// 500).
    #[arg(long, value_name = "DOLARES", value_parser = parse_dollars)]
    pub monto_max: Option<i64>,

    /// Generador de los montos y las pérdidas: cpython (el de la lección,
    /// comparable con Python) o chacha.
    #[arg(long, value_name = "STREAM", value_parser = parse_stream)]
    pub stream: Option<StreamKind>,
}

impl FleetArgs {
    /// Whether no flag was given.
    pub fn is_empty(&self) -> bool {
        *self == FleetArgs::default()
    }
}

/// Loads fixture `name` (default [`DEFAULT_FIXTURE`]; a name of `fixtures/`
/// or of an `extra_dirs` folder, or a path to a `.toml`) and applies `flags`.
///
/// # Errors
/// One Spanish line, for exit status 2: an unknown scenario, a malformed
/// fixture, or a flag the fixture cannot take (`--ordenes` with an explicit
/// list of amounts, `--p-perdida` with scripted losses, an empty amount
/// range).
pub fn load(
    name: Option<&str>,
    extra_dirs: &[PathBuf],
    flags: &FleetArgs,
) -> Result<Scenario, String> {
    let path = judge::fixture::resolve(name.unwrap_or(DEFAULT_FIXTURE), extra_dirs)?;
    let mut scenario = Scenario::load(&path).map_err(|mut e| {
        e.file = judge::paths::display(&e.file).into();
        e.to_string()
    })?;
    apply(&mut scenario, flags)?;
    Ok(scenario)
}

/// Applies the fleet flags to `scenario`.
///
/// # Errors
/// As [`load`], for the flags.
pub fn apply(scenario: &mut Scenario, flags: &FleetArgs) -> Result<(), String> {
    let name = scenario.name.clone();
    let generated_only = |flag: &str| {
        format!(
            "{flag} solo vale con una flota generada (`orders.count`); el fixture {name} tiene una lista explícita de montos"
        )
    };
    if let OrdersSpec::Generated {
        count,
        amount_min,
        amount_max,
        seed,
    } = &mut scenario.fleet.orders
    {
        if let Some(n) = flags.ordenes {
            *count = n;
        }
        if let Some(lo) = flags.monto_min {
            *amount_min = lo;
        }
        if let Some(hi) = flags.monto_max {
            *amount_max = hi;
        }
        if let Some(s) = flags.semilla {
            *seed = s;
        }
        if amount_min > amount_max {
            return Err(format!(
                "--monto-min/--monto-max: el rango de montos está vacío: el mínimo (${amount_min}) debe ser ≤ el máximo (${amount_max})"
            ));
        }
    } else if flags.ordenes.is_some() {
        return Err(generated_only("--ordenes"));
    } else if flags.monto_min.is_some() || flags.monto_max.is_some() {
        return Err(generated_only("--monto-min/--monto-max"));
    }
    match &mut scenario.fleet.losses {
        LossSpec::Random {
            p_response_lost,
            seed,
        } => {
            if let Some(p) = flags.p_perdida {
                *p_response_lost = p;
            }
            if let Some(s) = flags.semilla {
                *seed = s.wrapping_add(1);
            }
        }
        LossSpec::Scripted(_) if flags.p_perdida.is_some() => {
            return Err(format!(
                "--p-perdida solo vale con pérdidas aleatorias (`losses.p_response_lost`); el fixture {name} tiene un guion de pérdidas"
            ));
        }
        LossSpec::Scripted(_) => {}
    }
    if let Some(m) = flags.max_intentos {
        scenario.fleet.max_attempts = m;
    }
    if let Some(s) = flags.semilla {
        scenario.fleet.key_seed = s;
    }
    if let Some(k) = flags.stream {
        scenario.fleet.stream = k;
    }
    if !flags.is_empty() {
        // The figures are no longer the fixture's: say so in every title.
        scenario.name = format!("{name} con parámetros propios");
    }
    Ok(())
}

/// The fleet's parameters in one line, as the lesson's heading prints them
/// (`N=1000 ordenes | p(respuesta perdida)=0.15 | max_attempts=4`), plus the
/// amounts' range and the seeds.
pub fn describe(scenario: &Scenario, with_p: bool) -> String {
    let mut line = format!("N={} ordenes", scenario.fleet.order_count());
    if with_p {
        let p = scenario
            .fleet
            .p_response_lost()
            .map_or_else(|| "guion".to_string(), |p| p.to_string());
        line.push_str(&format!(" | p(respuesta perdida)={p}"));
    }
    line.push_str(&format!(" | max_attempts={}", scenario.fleet.max_attempts));
    let mut seeds = Vec::new();
    if let OrdersSpec::Generated {
        amount_min,
        amount_max,
        seed,
        ..
    } = &scenario.fleet.orders
    {
        line.push_str(&format!(" | montos ${amount_min}-${amount_max}"));
        seeds.push(format!("montos {seed}"));
    }
    if let LossSpec::Random { seed, .. } = &scenario.fleet.losses {
        seeds.push(format!("perdidas {seed}"));
    }
    if !seeds.is_empty() {
        line.push_str(&format!(
            "\nsemillas: {} (stream {})",
            seeds.join(", "),
            scenario.fleet.stream.name()
        ));
    }
    line
}

fn parse_orders(text: &str) -> Result<u64, String> {
    match text.trim().replace('_', "").parse::<u64>() {
        Ok(n) if (1..=MAX_ORDERS).contains(&n) => Ok(n),
        _ => Err(format!("debe ser un entero entre 1 y {MAX_ORDERS}")),
    }
}

/// A probability in [0, 1] (`0.15`).
pub fn parse_probability(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err("debe ser una probabilidad entre 0 y 1 (p. ej. 0.15)".to_string()),
    }
}

fn parse_max_attempts(text: &str) -> Result<u32, String> {
    match text.trim().parse::<u32>() {
        Ok(m) if (1..=MAX_ATTEMPTS).contains(&m) => Ok(m),
        _ => Err(format!("debe ser un entero entre 1 y {MAX_ATTEMPTS}")),
    }
}

fn parse_dollars(text: &str) -> Result<i64, String> {
    match text.trim().parse::<i64>() {
        Ok(d) if (1..=MAX_AMOUNT_DOLLARS).contains(&d) => Ok(d),
        _ => Err(format!(
            "debe ser un entero de dólares entre 1 y {MAX_AMOUNT_DOLLARS}"
        )),
    }
}

fn parse_stream(text: &str) -> Result<StreamKind, String> {
    match text.trim() {
        "cpython" => Ok(StreamKind::Cpython),
        "chacha" => Ok(StreamKind::Chacha),
        _ => Err("se permiten: cpython, chacha".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lesson() -> Scenario {
        load(None, &[], &FleetArgs::default()).unwrap()
    }

    #[test]
    fn without_flags_the_fixture_runs_as_written() {
        let s = lesson();
        assert_eq!(s.name, "flota-1000");
        assert_eq!(s.fleet.order_count(), 1000);
        assert_eq!(s.fleet.p_response_lost(), Some(0.15));
    }

    #[test]
    fn the_seed_flag_follows_the_lessons_convention() {
        let mut s = lesson();
        let flags = FleetArgs {
            semilla: Some(7),
            ordenes: Some(5),
            ..FleetArgs::default()
        };
        apply(&mut s, &flags).unwrap();
        let fleet = Scenario::fleet("x", 5, (10, 500), 0.15, 4, 7, sim::StreamKind::Cpython);
        assert_eq!(s.fleet.orders, fleet.fleet.orders);
        assert_eq!(s.fleet.losses, fleet.fleet.losses);
        assert_eq!(s.fleet.key_seed, 7);
    }

    #[test]
    fn flags_the_fixture_cannot_take_are_one_clear_line() {
        let mut a = load(Some("escenario-a"), &[], &FleetArgs::default()).unwrap();
        let e = apply(
            &mut a,
            &FleetArgs {
                ordenes: Some(3),
                ..FleetArgs::default()
            },
        )
        .unwrap_err();
        assert!(
            e.starts_with("--ordenes solo vale con una flota generada"),
            "{e}"
        );
        let mut s = lesson();
        let e = apply(
            &mut s,
            &FleetArgs {
                monto_min: Some(600),
                ..FleetArgs::default()
            },
        )
        .unwrap_err();
        assert!(e.contains("rango de montos está vacío"), "{e}");
        assert_eq!(
            parse_orders("0").unwrap_err(),
            "debe ser un entero entre 1 y 20000000"
        );
        assert!(parse_probability("1.5").is_err());
        assert!(parse_max_attempts("0").is_err());
    }
}
