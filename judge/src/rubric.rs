//! The rubric: how many points each check is worth and who sees it
//! (`grader/rubrica.toml`, parsed with serde + toml).
//!
//! Every check of the kit's own catalog is listed by id
//! (`cobro/replay-devuelve-lo-guardado`, `cliente/flota-1000`) with its whole
//! points and, optionally, its Gradescope visibility; the kit's rubric sums to
//! 100. Checks that are not listed get their points from two groups:
//!
//! - `[variantes]`: each exercise has a pool of points shared in equal parts
//!   (to the hundredth) by the hidden seeded variants of that exercise
//!   (`--variantes N`); with no variants the pool is not awarded.
//! - `[no_listadas]`: any other check (the scenarios of an instructor's
//!   `--fixtures` folder, a check added to the catalog but not to the
//!   rubric) is worth this many points.
//!
//! - `[bonus]`: the exercises whose points are a bonus, counted apart from
//!   the score (`Puntaje: 100/100 puntos · bonus 20/20`); without the
//!   section, the kit's bonus exercises (exercise 4, `atomico`). An
//!   instructor who wants exercise 4 inside the grade writes
//!   `[bonus] ejercicios = []` and sets the points so the whole sums 100.
//!
//! The maximum of a run is the sum over the checks that ran, so
//! `--variantes` raises it by the pools and `--ejercicio` lowers it to that
//! exercise's share.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::catalog;

/// The kit's rubric, as shipped in `grader/rubrica.toml`.
pub const KIT_RUBRIC: &str = include_str!("../../grader/rubrica.toml");
/// How the kit's rubric is named in messages.
pub const KIT_RUBRIC_PATH: &str = "grader/rubrica.toml";
/// Most points a single entry or pool may give.
pub const MAX_POINTS: u32 = 10_000;

/// A number of points, kept exactly in hundredths (pools are split to the
/// hundredth, and the shares always add back up to the pool).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Points(u64);

impl Points {
    /// No points.
    pub const ZERO: Points = Points(0);

    /// `n` whole points.
    pub fn whole(n: u32) -> Points {
        Points(u64::from(n) * 100)
    }

    /// `h` hundredths of a point (what [`Points::hundredths`] gives back).
    pub fn from_hundredths(h: u64) -> Points {
        Points(h)
    }

    /// The value in hundredths of a point.
    pub fn hundredths(self) -> u64 {
        self.0
    }

    /// The value as a number (for JSON); exact to the hundredth.
    pub fn as_f64(self) -> f64 {
        self.0 as f64 / 100.0
    }

    /// `self` split into `n` shares that add back up to `self`; the first
    /// ones get the leftover hundredths. Empty when `n` is 0.
    pub fn split(self, n: usize) -> Vec<Points> {
        if n == 0 {
            return Vec::new();
        }
        let n64 = n as u64;
        let (base, extra) = (self.0 / n64, self.0 % n64);
        (0..n64)
            .map(|i| Points(base + u64::from(i < extra)))
            .collect()
    }
}

impl std::ops::Add for Points {
    type Output = Points;
    fn add(self, other: Points) -> Points {
        Points(self.0 + other.0)
    }
}

impl std::ops::AddAssign for Points {
    fn add_assign(&mut self, other: Points) {
        self.0 += other.0;
    }
}

impl std::iter::Sum for Points {
    fn sum<I: Iterator<Item = Points>>(iter: I) -> Points {
        iter.fold(Points::ZERO, |a, b| a + b)
    }
}

/// `10`, `3.34`, `3.5`: whole points without decimals.
impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (whole, cents) = (self.0 / 100, self.0 % 100);
        match cents {
            0 => write!(f, "{whole}"),
            c if c.is_multiple_of(10) => write!(f, "{whole}.{}", c / 10),
            c => write!(f, "{whole}.{c:02}"),
        }
    }
}

/// A JSON number: an integer for whole points, else a decimal.
impl Serialize for Points {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(100) {
            s.serialize_u64(self.0 / 100)
        } else {
            s.serialize_f64(self.as_f64())
        }
    }
}

/// Who sees a check's result on Gradescope (its four values, as Gradescope
/// spells them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Always shown.
    #[default]
    Visible,
    /// Never shown to the student.
    Hidden,
    /// Shown once the due date has passed.
    AfterDueDate,
    /// Shown once grades are published.
    AfterPublished,
}

impl Visibility {
    /// The Gradescope spelling (`after_published`).
    pub fn name(self) -> &'static str {
        match self {
            Visibility::Visible => "visible",
            Visibility::Hidden => "hidden",
            Visibility::AfterDueDate => "after_due_date",
            Visibility::AfterPublished => "after_published",
        }
    }
}

/// What one listed check is worth.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    /// Its points.
    pub points: Points,
    /// Who sees it.
    pub visibility: Visibility,
}

/// A validated rubric.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rubric {
    /// Where it came from, as shown in messages.
    pub source: String,
    /// The listed checks, by id.
    pub listed: BTreeMap<String, Entry>,
    /// Each exercise's pool for its seeded variants, by exercise id.
    pub variant_pools: BTreeMap<String, Points>,
    /// Visibility of the variants.
    pub variant_visibility: Visibility,
    /// Points of a check that is neither listed nor a variant.
    pub unlisted: Entry,
    /// The exercises whose points are a bonus, by id (`[bonus]`).
    pub bonus: Vec<String>,
}

/// A rubric that cannot be used: file, `line:column` when known, field, and
/// what is allowed. Displays as one Spanish line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RubricError {
    /// The rubric's path, as given.
    pub file: String,
    /// 1-based line and column, when the error has a place in the text.
    pub position: Option<(usize, usize)>,
    /// The field, dotted, when known.
    pub field: Option<String>,
    /// What is wrong and what is allowed, in Spanish.
    pub message: String,
}

impl fmt::Display for RubricError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "rúbrica {}", self.file)?;
        if let Some((line, col)) = self.position {
            write!(f, ":{line}:{col}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ", campo `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for RubricError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRubric {
    #[serde(default)]
    visibilidad: Visibility,
    verificaciones: BTreeMap<String, RawEntry>,
    variantes: RawVariants,
    no_listadas: RawUnlisted,
    bonus: Option<RawBonus>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBonus {
    ejercicios: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    puntos: i64,
    visibilidad: Option<Visibility>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVariants {
    /// One pool per exercise of [`crate::catalog`], by id; required for
    /// the course's exercises, 0 when a bonus exercise's is left out, and
    /// no other id is allowed (checked after parsing).
    puntos: Spanned<BTreeMap<Spanned<String>, i64>>,
    visibilidad: Visibility,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawUnlisted {
    puntos: i64,
    visibilidad: Visibility,
}

impl Rubric {
    /// The kit's rubric (`grader/rubrica.toml`, built into the grader).
    ///
    /// # Errors
    /// Only if that file was edited into an invalid rubric (a test keeps it
    /// valid).
    pub fn kit() -> Result<Rubric, RubricError> {
        Rubric::parse(KIT_RUBRIC, KIT_RUBRIC_PATH)
    }

    /// Reads and validates the rubric at `path`.
    ///
    /// # Errors
    /// A [`RubricError`] when the file cannot be read, is not TOML, has an
    /// unknown field, a wrong type, a malformed check id or a value out of
    /// range.
    pub fn load(path: &Path, shown_as: &str) -> Result<Rubric, RubricError> {
        let text = std::fs::read_to_string(path).map_err(|e| RubricError {
            file: shown_as.to_string(),
            position: None,
            field: None,
            message: match e.kind() {
                std::io::ErrorKind::NotFound => "el archivo no existe".to_string(),
                std::io::ErrorKind::InvalidData => "el archivo no es texto UTF-8".to_string(),
                _ => format!("no se pudo leer: {e}"),
            },
        })?;
        Rubric::parse(&text, shown_as)
    }

    /// Parses and validates rubric `text`; `file` names it in errors.
    ///
    /// # Errors
    /// As [`Rubric::load`], without the reading part.
    pub fn parse(text: &str, file: &str) -> Result<Rubric, RubricError> {
        let err = |field: &str, message: String| RubricError {
            file: file.to_string(),
            position: None,
            field: Some(field.to_string()),
            message,
        };
        let raw: RawRubric = toml::from_str(text).map_err(|e| {
            let t = crate::toml_errors::translate(&e, text, &|_| {
                "ver la rúbrica del kit, grader/rubrica.toml".to_string()
            });
            RubricError {
                file: file.to_string(),
                position: t.position,
                field: t.field,
                message: t.message,
            }
        })?;
        let points = |field: &str, n: i64| -> Result<Points, RubricError> {
            if (0..=i64::from(MAX_POINTS)).contains(&n) {
                Ok(Points::whole(n as u32))
            } else {
                Err(err(
                    field,
                    format!("debe ser un entero de puntos entre 0 y {MAX_POINTS}; se leyó {n}"),
                ))
            }
        };
        let mut listed = BTreeMap::new();
        for (id, entry) in raw.verificaciones {
            let field = format!("verificaciones.\"{id}\"");
            check_id(&id).map_err(|m| err(&field, m))?;
            listed.insert(
                id,
                Entry {
                    points: points(&format!("{field}.puntos"), entry.puntos)?,
                    visibility: entry.visibilidad.unwrap_or(raw.visibilidad),
                },
            );
        }
        let pools = &raw.variantes.puntos;
        let at =
            |span: std::ops::Range<usize>| Some(crate::toml_errors::line_col(text, span.start));
        if let Some((unknown, _)) = pools
            .get_ref()
            .iter()
            .find(|(id, _)| crate::verdict::Exercise::from_id(id.get_ref()).is_none())
        {
            let allowed: Vec<String> = catalog::ids().iter().map(|id| format!("`{id}`")).collect();
            return Err(RubricError {
                position: at(unknown.span()),
                message: format!(
                    "campo desconocido `{}`; se permiten: {}",
                    unknown.get_ref(),
                    allowed.join(", ")
                ),
                ..err("variantes.puntos", String::new())
            });
        }
        let by_id: BTreeMap<&str, i64> = pools
            .get_ref()
            .iter()
            .map(|(id, n)| (id.get_ref().as_str(), *n))
            .collect();
        let mut variant_pools = BTreeMap::new();
        for e in crate::verdict::Exercise::ALL {
            let exercise = e.id();
            let field = format!("variantes.puntos.{exercise}");
            // A bonus exercise's pool may be left out: 0.
            let n = by_id.get(exercise).copied().or(e.bonus().then_some(0));
            let Some(n) = n else {
                return Err(RubricError {
                    position: at(pools.span()),
                    ..err(
                        &field,
                        "falta; es obligatorio (ver la rúbrica del kit, grader/rubrica.toml)"
                            .to_string(),
                    )
                });
            };
            variant_pools.insert(exercise.to_string(), points(&field, n)?);
        }
        let bonus = match raw.bonus {
            None => crate::verdict::Exercise::ALL
                .into_iter()
                .filter(|e| e.bonus())
                .map(|e| e.id().to_string())
                .collect(),
            Some(b) => {
                for id in &b.ejercicios {
                    if crate::verdict::Exercise::from_id(id).is_none() {
                        return Err(err(
                            "bonus.ejercicios",
                            format!(
                                "ejercicio desconocido «{id}»; se permiten: {}",
                                catalog::ids().join(", ")
                            ),
                        ));
                    }
                }
                b.ejercicios
            }
        };
        Ok(Rubric {
            source: file.to_string(),
            bonus,
            listed,
            variant_pools,
            variant_visibility: raw.variantes.visibilidad,
            unlisted: Entry {
                points: points("no_listadas.puntos", raw.no_listadas.puntos)?,
                visibility: raw.no_listadas.visibilidad,
            },
        })
    }

    /// The rubric of `--rubrica PATH`, or the kit's when `None`.
    ///
    /// # Errors
    /// As [`Rubric::load`].
    pub fn from_option(path: Option<&PathBuf>) -> Result<Rubric, RubricError> {
        match path {
            Some(p) => Rubric::load(p, &p.display().to_string()),
            None => Rubric::kit(),
        }
    }

    /// The points of every listed check of exercise `exercise_id`.
    pub fn listed_total(&self, exercise_id: &str) -> Points {
        self.listed
            .iter()
            .filter(|(id, _)| exercise_of(id) == Some(exercise_id))
            .map(|(_, e)| e.points)
            .sum()
    }

    /// Whether the points of exercise `exercise_id` are a bonus, counted
    /// apart from the score (`[bonus]`).
    pub fn is_bonus(&self, exercise_id: &str) -> bool {
        self.bonus.iter().any(|b| b == exercise_id)
    }

    /// The variant pool of exercise `exercise_id` (zero for an unknown id).
    pub fn variant_pool(&self, exercise_id: &str) -> Points {
        self.variant_pools
            .get(exercise_id)
            .copied()
            .unwrap_or_default()
    }
}

/// The exercise part of a check id (`cobro` in `cobro/flota-1000`).
pub fn exercise_of(id: &str) -> Option<&str> {
    id.split_once('/').map(|(e, _)| e)
}

/// Checks that `id` is `exercise/name` with a known exercise and a name of
/// lowercase letters, digits and dashes.
fn check_id(id: &str) -> Result<(), String> {
    let allowed = catalog::ids().join(", ");
    let Some((exercise, name)) = id.split_once('/') else {
        return Err(format!(
            "el id debe ser `ejercicio/nombre` (p. ej. `cobro/replay-devuelve-lo-guardado`), con ejercicio {allowed}"
        ));
    };
    if crate::verdict::Exercise::from_id(exercise).is_none() {
        return Err(format!(
            "ejercicio desconocido «{exercise}»; se permiten: {allowed}"
        ));
    }
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if !ok {
        return Err(format!(
            "nombre de verificación inválido «{name}»: usa minúsculas, dígitos y guiones (como en los ids del informe)"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINIMAL: &str = r#"
[verificaciones]
"cobro/flota-1000" = { puntos = 7 }
"cliente/flota-1000" = { puntos = 3, visibilidad = "hidden" }

[variantes]
puntos = { cobro = 10, cliente = 0, reconciliacion = 1 }
visibilidad = "after_published"

[no_listadas]
puntos = 2
visibilidad = "after_due_date"
"#;

    #[test]
    fn a_minimal_rubric_parses_with_defaults() {
        let r = Rubric::parse(MINIMAL, "r.toml").unwrap();
        assert_eq!(r.listed["cobro/flota-1000"].points, Points::whole(7));
        assert_eq!(r.listed["cobro/flota-1000"].visibility, Visibility::Visible);
        assert_eq!(
            r.listed["cliente/flota-1000"].visibility,
            Visibility::Hidden
        );
        assert_eq!(r.listed_total("cobro"), Points::whole(7));
        assert_eq!(r.variant_pool("cobro"), Points::whole(10));
        assert_eq!(r.variant_visibility, Visibility::AfterPublished);
        assert_eq!(r.unlisted.points, Points::whole(2));
        assert_eq!(r.unlisted.visibility, Visibility::AfterDueDate);
        // Without `[bonus]`, exercise 4 is the bonus; its pool defaults to 0.
        assert!(r.is_bonus("atomico") && !r.is_bonus("cobro"));
        assert_eq!(r.variant_pool("atomico"), Points::ZERO);
        let inside =
            Rubric::parse(&format!("{MINIMAL}\n[bonus]\nejercicios = []\n"), "r.toml").unwrap();
        assert!(!inside.is_bonus("atomico"));
    }

    /// The kit's rubric: 100 points outside the bonus, and exercise 4's
    /// fixed and model checks as the bonus.
    #[test]
    fn the_kit_rubric_sums_100_plus_the_bonus() {
        let r = Rubric::kit().unwrap();
        let inside: Points = crate::catalog::ENTRIES
            .iter()
            .filter(|e| !r.is_bonus(e.id))
            .map(|e| r.listed_total(e.id))
            .sum();
        assert_eq!(inside, Points::whole(100));
        assert!(r.is_bonus("atomico"));
        assert_eq!(r.listed_total("atomico"), Points::whole(20));
        for (id, _) in crate::ejercicios::atomico::fixed::CHECKS {
            assert!(r.listed.contains_key(&format!("atomico/{id}")), "{id}");
        }
    }

    #[test]
    fn pools_split_to_the_hundredth_and_add_back_up() {
        let shares = Points::whole(10).split(3);
        assert_eq!(
            shares.iter().map(|p| p.to_string()).collect::<Vec<_>>(),
            ["3.34", "3.33", "3.33"]
        );
        assert_eq!(shares.into_iter().sum::<Points>(), Points::whole(10));
        assert_eq!(Points::whole(1).split(4)[0].to_string(), "0.25");
        assert_eq!(Points::whole(3).split(2)[0].to_string(), "1.5");
        assert!(Points::whole(3).split(0).is_empty());
    }

    #[test]
    fn points_serialize_as_integers_when_whole() {
        let json =
            serde_json::to_string(&[Points::whole(5), Points::whole(10).split(3)[0]]).unwrap();
        assert_eq!(json, "[5,3.34]");
    }

    /// Each rubric text is refused with exactly its message, where `{IDS}`
    /// stands for the catalog's ids (`cobro, cliente, …`) and `{`IDS`}` for
    /// them in backticks.
    fn assert_errors(cases: &[(String, &str)]) {
        let ids = crate::catalog::ids();
        let quoted: Vec<String> = ids.iter().map(|id| format!("`{id}`")).collect();
        for (text, want) in cases {
            let want = want
                .replace("{IDS}", &ids.join(", "))
                .replace("{`IDS`}", &quoted.join(", "));
            let e = Rubric::parse(text, "r.toml").unwrap_err();
            assert_eq!(e.to_string(), want, "{text}");
        }
    }

    #[test]
    fn errors_name_file_field_and_what_is_allowed() {
        let cases = [
            (
                MINIMAL.replace("puntos = 7", "punto = 7"),
                "rúbrica r.toml:3:24, campo `verificaciones.\"cobro/flota-1000\"`: campo desconocido `punto`; se permiten: `puntos` o `visibilidad`",
            ),
            (
                MINIMAL.replace("\"hidden\"", "\"oculta\""),
                "rúbrica r.toml:4:52, campo `verificaciones.\"cliente/flota-1000\"`: valor desconocido `oculta`; se permiten: `visible`, `hidden`, `after_due_date`, `after_published`",
            ),
            (
                MINIMAL.replace("puntos = 7", "puntos = -1"),
                "rúbrica r.toml, campo `verificaciones.\"cobro/flota-1000\".puntos`: debe ser un entero de puntos entre 0 y 10000; se leyó -1",
            ),
            (
                MINIMAL.replace("cobro/flota-1000", "pago/flota-1000"),
                "rúbrica r.toml, campo `verificaciones.\"pago/flota-1000\"`: ejercicio desconocido «pago»; se permiten: {IDS}",
            ),
            (
                format!("{MINIMAL}\n[bonus]\nejercicios = [\"atomica\"]\n"),
                "rúbrica r.toml, campo `bonus.ejercicios`: ejercicio desconocido «atomica»; se permiten: {IDS}",
            ),
            (
                MINIMAL.replace("puntos = 2\n", "puntos = \"dos\"\n"),
                "rúbrica r.toml:11:10, campo `no_listadas.puntos`: tipo inválido: se esperaba un número entero, se leyó el texto \"dos\"",
            ),
            (
                MINIMAL.replace("reconciliacion = 1 ", ""),
                "rúbrica r.toml:7:10, campo `variantes.puntos.reconciliacion`: falta; es obligatorio (ver la rúbrica del kit, grader/rubrica.toml)",
            ),
        ];
        assert_errors(&cases);
    }

    #[test]
    fn the_pools_are_the_catalogs_exercises() {
        let cases = [
            (
                MINIMAL.replace("reconciliacion = 1 }", "reconciliacion = 1, pago = 3 }"),
                "rúbrica r.toml:7:57, campo `variantes.puntos`: campo desconocido `pago`; se permiten: {`IDS`}",
            ),
            (
                MINIMAL.replace("cobro = 10, ", ""),
                "rúbrica r.toml:7:10, campo `variantes.puntos.cobro`: falta; es obligatorio (ver la rúbrica del kit, grader/rubrica.toml)",
            ),
            (
                MINIMAL.replace("cliente = 0", "cliente = \"x\""),
                "rúbrica r.toml:7:34, campo `variantes.puntos`: tipo inválido: se esperaba un número entero, se leyó el texto \"x\"",
            ),
            (
                MINIMAL.replace("cliente = 0", "cliente = 10001"),
                "rúbrica r.toml, campo `variantes.puntos.cliente`: debe ser un entero de puntos entre 0 y 10000; se leyó 10001",
            ),
        ];
        assert_errors(&cases);
    }

    #[test]
    fn a_missing_file_is_named() {
        let e =
            Rubric::load(Path::new("/no/such/rubrica.toml"), "/no/such/rubrica.toml").unwrap_err();
        assert_eq!(
            e.to_string(),
            "rúbrica /no/such/rubrica.toml: el archivo no existe"
        );
    }
}
