//! `libro.csv`: one row per submission (sorted by name) with
//! `entrega,estado,puntaje,maximo`, one column per exercise of
//! [`judge::catalog`] by id (`cobro,cliente,reconciliacion`) and then one
//! column per check id (catalog order); points as the reports write them
//! (`36`, `3.33`). `puntaje` and `maximo` count the course's pool, as the
//! report's score line does; a bonus exercise's points are in its own
//! column. And `alumnos.csv`: who submitted each (when the platform
//! says), one row per submitter.

use super::record::{Record, by_exercise};
use judge::rubric::Points;
use judge::verdict::Exercise;

fn points(h: u64) -> String {
    Points::from_hundredths(h).to_string()
}

/// The check ids of `records`, in the order they first appear (each record
/// lists the catalog in order).
pub fn check_ids(records: &[Record]) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for r in records {
        for c in &r.verificaciones {
            if !ids.contains(&c.id) {
                ids.push(c.id.clone());
            }
        }
    }
    ids
}

/// `libro.csv` of `records` (already sorted by name).
///
/// # Errors
/// The csv writer's error (only on a failing in-memory write).
pub fn libro(records: &[Record]) -> Result<Vec<u8>, csv::Error> {
    let ids = check_ids(records);
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut header: Vec<String> = ["entrega", "estado", "puntaje", "maximo"]
        .into_iter()
        .map(String::from)
        .collect();
    header.extend(Exercise::ALL.iter().map(|e| e.id().to_string()));
    header.extend(ids.iter().cloned());
    w.write_record(&header)?;
    for r in records {
        let mut row = vec![
            r.entrega.clone(),
            r.estado.word().to_string(),
            points(r.puntaje),
            points(r.maximo),
        ];
        let ex = by_exercise(r);
        row.extend(Exercise::ALL.iter().map(|e| points(ex[e.id()])));
        for id in &ids {
            row.push(
                r.verificaciones
                    .iter()
                    .find(|c| &c.id == id)
                    .map(|c| points(c.puntos))
                    .unwrap_or_default(),
            );
        }
        w.write_record(&row)?;
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

/// `alumnos.csv`: `entrega,nombre,sid,email`.
///
/// # Errors
/// As [`libro`].
pub fn alumnos(records: &[Record]) -> Result<Vec<u8>, csv::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(["entrega", "nombre", "sid", "email"])?;
    for r in records {
        for s in &r.alumnos {
            w.write_record([&r.entrega, &s.name, &s.sid, &s.email])?;
        }
    }
    w.into_inner().map_err(|e| e.into_error().into())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The book's `libro.csv` row (the instructors' page on `curso`) names
    /// every fixed column the code writes (one per exercise of the catalog,
    /// the bonus's included).
    #[test]
    fn the_book_lists_every_fixed_column() {
        let libro = libro(&[]).unwrap();
        let header = String::from_utf8(libro).unwrap();
        let header = header.trim_end();
        // A column per exercise of the catalog, in its order.
        assert_eq!(
            header,
            format!(
                "entrega,estado,puntaje,maximo,{}",
                judge::catalog::ids().join(",")
            )
        );
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let page = "docs/src/instructores/curso.md";
        // The student template has no instructors' pages (nor this table);
        // the instructor's kit must.
        let template = !root.join("solutions").is_dir();
        let Ok(book) = std::fs::read_to_string(root.join(page)) else {
            assert!(template, "{page} is missing");
            return;
        };
        let Some(row) = book.lines().find(|l| l.starts_with("| `libro.csv` |")) else {
            panic!("{page} has no `libro.csv` row");
        };
        assert!(row.contains(&format!("`{header}`")), "{row}");
    }
}
