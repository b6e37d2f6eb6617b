//! What `curso` keeps of each graded submission in `SALIDA/entregas/NOMBRE/`:
//! `registro.json` (the content hash, the status, the points of every check
//! and the cause of every failure: what the gradebook and the class report
//! are made from, and what a second run reuses), `results.json` (Gradescope's
//! format) and `informe.txt` (the Spanish report).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::discover::Submitter;
use crate::report::sheet::Sheet;
use judge::verdict::{Exercise, Verdict};

/// The record's file name.
pub const RECORD: &str = "registro.json";

/// A submission's status in the gradebook (`estado`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Status {
    /// Graded; every check ran to an answer.
    Calificada,
    /// Graded, but the code did not stop in some check (a loop): those
    /// checks were stopped and score 0.
    TiempoAgotado,
    /// Graded, but the process running the code died in some check (a
    /// crash, an abort, a limit).
    Caida,
    /// Graded, but the source policy refused one or more exercises (the
    /// judge did not compile them: 0 on their checks); the others were
    /// graded as usual.
    CodigoRechazado,
    /// The code did not compile: 0 points.
    NoCompila,
    /// No exercise file was found: 0 points, nothing graded.
    SinArchivos,
    /// The submission could not be taken (a zip that does not unpack, a file
    /// too big): 0 points.
    Rechazada,
    /// The disk filled up while grading it: 0 points; grade it again.
    DiscoLleno,
    /// The grader failed on it (its message says why): 0 points.
    Error,
}

impl Status {
    /// The gradebook's word.
    pub fn word(self) -> &'static str {
        match self {
            Status::Calificada => "calificada",
            Status::TiempoAgotado => "tiempo-agotado",
            Status::Caida => "caida",
            Status::CodigoRechazado => "codigo-rechazado",
            Status::NoCompila => "no-compila",
            Status::SinArchivos => "sin-archivos",
            Status::Rechazada => "rechazada",
            Status::DiscoLleno => "disco-lleno",
            Status::Error => "error",
        }
    }

    /// Whether its checks ran (its failures count in the class report).
    pub fn ran(self) -> bool {
        matches!(
            self,
            Status::Calificada | Status::TiempoAgotado | Status::Caida | Status::CodigoRechazado
        )
    }

    /// All of them, in gradebook order.
    pub const ALL: [Status; 9] = [
        Status::Calificada,
        Status::TiempoAgotado,
        Status::Caida,
        Status::CodigoRechazado,
        Status::NoCompila,
        Status::SinArchivos,
        Status::Rechazada,
        Status::DiscoLleno,
        Status::Error,
    ];
}

/// One check of one submission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckRecord {
    /// The check id (`cobro/replay-devuelve-lo-guardado`).
    pub id: String,
    /// Its exercise id (`cobro`).
    pub ejercicio: String,
    /// Points earned, in hundredths.
    pub puntos: u64,
    /// Points possible, in hundredths.
    pub maximo: u64,
    /// Whether it passed.
    pub paso: bool,
    /// Why it failed, in the words of its hint (what the class report
    /// groups by); `None` when it passed.
    pub causa: Option<String>,
    /// The failure's explanation without the hint (the class report shows
    /// the shortest of each cause, without the submission's name).
    pub ejemplo: Vec<String>,
}

/// What `curso` keeps of one submission.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The submission's name.
    pub entrega: String,
    /// SHA-256 of the taken sources and of the grading's configuration, hex.
    pub huella: String,
    /// Its status.
    pub estado: Status,
    /// Why, for a status without a score (sin-archivos, rechazada, error).
    pub mensaje: Option<String>,
    /// Points earned, in hundredths, in the course's pool (a bonus
    /// exercise's are in its checks, [`Record::exercise_points`]).
    pub puntaje: u64,
    /// Points possible, in hundredths, in the course's pool.
    pub maximo: u64,
    /// Every check, in catalog order.
    pub verificaciones: Vec<CheckRecord>,
    /// Who submitted it, when the platform says.
    pub alumnos: Vec<Submitter>,
}

impl Record {
    /// Points earned in `exercise`, in hundredths.
    pub fn exercise_points(&self, exercise: &str) -> u64 {
        self.verificaciones
            .iter()
            .filter(|c| c.ejercicio == exercise)
            .map(|c| c.puntos)
            .sum()
    }

    /// The record of a graded `sheet` (status from its verdicts).
    pub fn graded(entrega: &str, huella: &str, sheet: &Sheet, alumnos: &[Submitter]) -> Record {
        let mut estado = Status::Calificada;
        for row in &sheet.rows {
            estado = match (&row.verdict, estado) {
                (Verdict::NotCompiled { .. }, _) => Status::NoCompila,
                (Verdict::Refused { .. }, s) if s != Status::NoCompila => Status::CodigoRechazado,
                (Verdict::Crashed { .. }, Status::Calificada | Status::TiempoAgotado) => {
                    Status::Caida
                }
                (Verdict::TimedOut { .. }, Status::Calificada) => Status::TiempoAgotado,
                (_, s) => s,
            };
        }
        let (points, max) = sheet.total();
        Record {
            entrega: entrega.to_string(),
            huella: huella.to_string(),
            estado,
            mensaje: None,
            puntaje: points.hundredths(),
            maximo: max.hundredths(),
            verificaciones: sheet
                .rows
                .iter()
                .map(|r| CheckRecord {
                    id: r.check.id.clone(),
                    ejercicio: r.check.exercise.id().to_string(),
                    puntos: r.points.hundredths(),
                    maximo: r.max.hundredths(),
                    paso: r.verdict.passed(),
                    causa: cause(&r.verdict),
                    ejemplo: r.verdict.explanation_without_hint(),
                })
                .collect(),
            alumnos: alumnos.to_vec(),
        }
    }

    /// The record of a submission that was not graded (`estado` without a
    /// score): every check of `template` (a sheet of the same catalog) at 0.
    pub fn ungraded(
        entrega: &str,
        huella: &str,
        estado: Status,
        mensaje: &str,
        template: &Sheet,
        alumnos: &[Submitter],
    ) -> Record {
        Record {
            entrega: entrega.to_string(),
            huella: huella.to_string(),
            estado,
            mensaje: Some(mensaje.to_string()),
            puntaje: 0,
            maximo: template.total().1.hundredths(),
            verificaciones: template
                .rows
                .iter()
                .map(|r| CheckRecord {
                    id: r.check.id.clone(),
                    ejercicio: r.check.exercise.id().to_string(),
                    puntos: 0,
                    maximo: r.max.hundredths(),
                    paso: false,
                    causa: None,
                    ejemplo: Vec::new(),
                })
                .collect(),
            alumnos: alumnos.to_vec(),
        }
    }

    /// Reads `dir/registro.json`, if it is there and readable.
    pub fn read(dir: &Path) -> Option<Record> {
        let text = std::fs::read_to_string(dir.join(RECORD)).ok()?;
        serde_json::from_str(&text).ok()
    }

    /// Writes `dir/registro.json`.
    ///
    /// # Errors
    /// The I/O error.
    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let mut json = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        json.push('\n');
        std::fs::write(dir.join(RECORD), json)
    }
}

/// The cause of a failed check, as the class report groups it: the hint's
/// words for a wrong answer or a counterexample, else what kind of failure.
pub fn cause(v: &Verdict) -> Option<String> {
    Some(match v {
        Verdict::Passed => return None,
        Verdict::Failed { hint, .. } | Verdict::Counterexample { hint, .. } => hint.clone(),
        Verdict::Pending { location } => format!(
            "{} todavía es todo!()",
            Exercise::from_file(location).map_or("una función", |e| e.function())
        ),
        Verdict::Panicked { .. } => "el código entra en pánico".to_string(),
        Verdict::TimedOut { .. } => {
            "el código no termina (un bucle que no avanza o un reintento que nunca se rinde)"
                .to_string()
        }
        Verdict::Crashed { .. } => "el proceso que corre el código murió".to_string(),
        Verdict::NotCompiled { .. } => "el código no compila".to_string(),
        Verdict::Refused { .. } => {
            "el código usa lo que el ejercicio no necesita: el juez no lo compiló (ver «Qué código acepta el juez» en el README)".to_string()
        }
    })
}

/// Points by exercise id, for the gradebook's exercise columns (one per
/// exercise of [`judge::catalog`]).
pub fn by_exercise(r: &Record) -> BTreeMap<&'static str, u64> {
    Exercise::ALL
        .into_iter()
        .map(|e| (e.id(), r.exercise_points(e.id())))
        .collect()
}
