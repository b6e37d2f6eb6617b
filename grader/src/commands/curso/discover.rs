//! Which submissions a class folder holds: one folder or zip per student
//! (a repository, an `exercises/` folder or loose files: [`judge::intake`]
//! decides what is taken), Gradescope's "Export Submissions" (folders
//! `submission_<id>/` and `submission_metadata.yml`) and Classroom 50's
//! `gh teacher download` (one clone per student, with the `result.json`
//! Classroom 50 wrote, and a `scores.csv`).

use std::path::{Path, PathBuf};

/// One student's (or group's) submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submission {
    /// Its name in the gradebook: the folder's name, or the zip's without
    /// `.zip`.
    pub name: String,
    /// The folder or the zip.
    pub path: PathBuf,
    /// Whether `path` is a zip.
    pub zip: bool,
    /// Who submitted it, when the platform says (Gradescope's metadata, the
    /// `owner` of a Classroom 50 `result.json`).
    pub submitters: Vec<Submitter>,
}

/// One submitter, as the platform names them.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Submitter {
    /// Full name (Gradescope) or GitHub user (Classroom 50).
    pub name: String,
    /// Student id (Gradescope's `:sid:`), if any.
    pub sid: String,
    /// E-mail, if any.
    pub email: String,
}

/// The Gradescope export's metadata file.
pub const GRADESCOPE_METADATA: &str = "submission_metadata.yml";

/// Every submission in `folder`, sorted by name.
///
/// # Errors
/// A Spanish line naming the folder or file: it cannot be read, holds no
/// submission, two submissions would share a name, or the Gradescope
/// metadata is malformed.
pub fn discover(folder: &Path) -> Result<Vec<Submission>, String> {
    let shown = folder.display();
    let read = std::fs::read_dir(folder).map_err(|e| {
        let why = match e.kind() {
            std::io::ErrorKind::NotFound => "no existe".to_string(),
            std::io::ErrorKind::NotADirectory => "no es una carpeta".to_string(),
            _ => judge::output::io_error(&e),
        };
        format!("{shown}: no se puede leer la carpeta de entregas ({why})")
    })?;
    let mut names: Vec<(String, PathBuf)> = read
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .filter(|(n, _)| !n.starts_with('.'))
        .collect();
    names.sort();
    let metadata = folder.join(GRADESCOPE_METADATA);
    let gradescope = if metadata.is_file() {
        let text = std::fs::read_to_string(&metadata).map_err(|e| {
            format!(
                "{}: no se puede leer ({})",
                metadata.display(),
                judge::output::io_error(&e)
            )
        })?;
        Some(parse_gradescope_metadata(
            &text,
            &metadata.display().to_string(),
        )?)
    } else {
        None
    };
    let mut out: Vec<Submission> = Vec::new();
    for (name, path) in names {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let (entry, zip) = if meta.is_dir() {
            (name.clone(), false)
        } else if meta.is_file() && name.to_lowercase().ends_with(".zip") {
            (name[..name.len() - 4].to_string(), true)
        } else {
            // scores.csv, the metadata file, notes: not submissions.
            continue;
        };
        let submitters = match &gradescope {
            Some(list) => list
                .iter()
                .find(|(k, _)| *k == entry)
                .map(|(_, s)| s.clone())
                .unwrap_or_default(),
            None => classroom50_owner(&path).into_iter().collect(),
        };
        if out.iter().any(|s| s.name == entry) {
            return Err(format!(
                "{shown}: dos entregas se llamarían «{entry}» (una carpeta y un zip); deja una"
            ));
        }
        out.push(Submission {
            name: entry,
            path,
            zip,
            submitters,
        });
    }
    if out.is_empty() {
        return Err(format!(
            "{shown}: no hay ninguna entrega (se espera una carpeta o un .zip por estudiante, la exportación de Gradescope o los clones de `gh teacher download`)"
        ));
    }
    Ok(out)
}

/// The `owner` of the `result.json` Classroom 50 leaves in a clone made by
/// `gh teacher download`, if any.
fn classroom50_owner(clone: &Path) -> Option<Submitter> {
    let text = std::fs::read_to_string(clone.join("result.json")).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    let owner = v.get("owner")?.as_str()?.to_string();
    Some(Submitter {
        name: owner,
        ..Submitter::default()
    })
}

/// Reads Gradescope's `submission_metadata.yml`: top-level keys are the
/// submission folders, each with a `:submitters:` list of `:name:`, `:sid:`
/// and `:email:` (Ruby symbol keys; other fields are skipped). Values may be
/// plain, `'single'` or `"double"` quoted.
///
/// # Errors
/// A Spanish line naming `file` and the line when a submitter field comes
/// before any submission key.
pub fn parse_gradescope_metadata(
    text: &str,
    file: &str,
) -> Result<Vec<(String, Vec<Submitter>)>, String> {
    let mut out: Vec<(String, Vec<Submitter>)> = Vec::new();
    // Indentation of the `:submitters:` key while inside its list.
    let mut in_submitters: Option<usize> = None;
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        if line.trim().is_empty() || line.trim_start().starts_with('#') || line == "---" {
            continue;
        }
        let indent = line.len() - line.trim_start().len();
        let body = line.trim_start();
        if indent == 0 {
            let key = unquote(body.strip_suffix(':').unwrap_or(body));
            out.push((key, Vec::new()));
            in_submitters = None;
            continue;
        }
        if body.trim_end_matches(':') == ":submitters" {
            in_submitters = Some(indent);
            continue;
        }
        let Some(level) = in_submitters else {
            continue;
        };
        let (item, field) = match body.strip_prefix("- ") {
            Some(rest) => (true, rest.trim_start()),
            None => (false, body),
        };
        if !item && indent <= level {
            in_submitters = None;
            continue;
        }
        let Some((_, list)) = out.last_mut() else {
            return Err(format!(
                "{file}, línea {}: un campo de :submitters: antes de la primera entrega (submission_ID:)",
                n + 1
            ));
        };
        if item {
            list.push(Submitter::default());
        }
        let Some(current) = list.last_mut() else {
            continue;
        };
        if let Some((key, value)) = field
            .split_once(": ")
            .or_else(|| field.strip_suffix(':').map(|k| (k, "")))
        {
            let value = unquote(value.trim());
            match key.trim() {
                ":name" => current.name = value,
                ":sid" => current.sid = value,
                ":email" => current.email = value,
                _ => {}
            }
        }
    }
    Ok(out)
}

fn unquote(v: &str) -> String {
    let v = v.trim();
    if v.len() >= 2
        && ((v.starts_with('\'') && v.ends_with('\'')) || (v.starts_with('"') && v.ends_with('"')))
    {
        let inner = &v[1..v.len() - 1];
        return if v.starts_with('\'') {
            inner.replace("''", "'")
        } else {
            inner.replace("\\\"", "\"")
        };
    }
    v.to_string()
}

/// The share `index`/`count` (1-based) of `submissions` (sorted by name):
/// every `count`-th one starting at position `index - 1`, so every share has
/// a similar size and together they are the class, each once.
pub fn share(submissions: Vec<Submission>, index: usize, count: usize) -> Vec<Submission> {
    submissions
        .into_iter()
        .enumerate()
        .filter(|(k, _)| k % count == index - 1)
        .map(|(_, s)| s)
        .collect()
}

/// Parses `--particion i/n`: 1 ≤ i ≤ n ≤ 1000.
///
/// # Errors
/// The Spanish text clap shows.
pub fn parse_partition(text: &str) -> Result<(usize, usize), String> {
    let bad =
        || format!("«{text}» no es una partición: escribe i/n con 1 ≤ i ≤ n ≤ 1000 (p. ej. 2/4)");
    let (i, n) = text.split_once('/').ok_or_else(bad)?;
    let i: usize = i.trim().parse().map_err(|_| bad())?;
    let n: usize = n.trim().parse().map_err(|_| bad())?;
    if i == 0 || i > n || n > 1000 {
        return Err(bad());
    }
    Ok((i, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gradescope_metadata_gives_each_folder_its_submitters() {
        let text = "---\nsubmission_101:\n  :submitters:\n  - :name: Ana Pérez\n    :sid: '123'\n    :email: ana@example.edu\n  - :name: \"Luis O'Neil\"\n    :sid: 456\n    :email: luis@example.edu\n  :created_at: 2026-11-30 10:00:00.000000000 -08:00\n  :score: 92.0\nsubmission_102:\n  :submitters:\n  - :name: Eva\n    :sid: ''\n    :email: eva@example.edu\n  :score: 0\n";
        let parsed = parse_gradescope_metadata(text, "m.yml").unwrap();
        assert_eq!(parsed.len(), 2);
        assert_eq!(parsed[0].0, "submission_101");
        assert_eq!(parsed[0].1.len(), 2);
        assert_eq!(parsed[0].1[0].name, "Ana Pérez");
        assert_eq!(parsed[0].1[0].sid, "123");
        assert_eq!(parsed[0].1[1].name, "Luis O'Neil");
        assert_eq!(parsed[0].1[1].email, "luis@example.edu");
        assert_eq!(
            parsed[1].1,
            vec![Submitter {
                name: "Eva".into(),
                sid: String::new(),
                email: "eva@example.edu".into()
            }]
        );
    }

    #[test]
    fn the_three_layouts_are_found_with_their_submitters() {
        let d = tempfile::tempdir().unwrap();
        let gs = d.path().join("gradescope");
        std::fs::create_dir_all(gs.join("submission_7/exercises/src")).unwrap();
        std::fs::create_dir_all(gs.join("submission_9")).unwrap();
        std::fs::write(
            gs.join(GRADESCOPE_METADATA),
            "submission_7:\n  :submitters:\n  - :name: Ana\n    :sid: '1'\n    :email: a@x.edu\nsubmission_9:\n  :submitters:\n  - :name: Luis\n    :sid: '2'\n    :email: l@x.edu\n",
        )
        .unwrap();
        let subs = discover(&gs).unwrap();
        assert_eq!(
            subs.iter()
                .map(|s| (s.name.as_str(), s.submitters[0].name.as_str()))
                .collect::<Vec<_>>(),
            [("submission_7", "Ana"), ("submission_9", "Luis")]
        );
        let c50 = d.path().join("classroom50");
        std::fs::create_dir_all(c50.join("tarea-ana/exercises/src")).unwrap();
        std::fs::write(
            c50.join("tarea-ana/result.json"),
            r#"{"owner": "ana-gh", "score": 3}"#,
        )
        .unwrap();
        std::fs::write(c50.join("scores.csv"), "x\n").unwrap();
        std::fs::write(c50.join("otra.zip"), "no es un zip").unwrap();
        let subs = discover(&c50).unwrap();
        assert_eq!(subs.len(), 2);
        assert_eq!((subs[0].name.as_str(), subs[0].zip), ("otra", true));
        assert_eq!(subs[1].submitters[0].name, "ana-gh");
        let empty = d.path().join("vacia");
        std::fs::create_dir_all(&empty).unwrap();
        assert!(
            discover(&empty)
                .unwrap_err()
                .contains("no hay ninguna entrega")
        );
    }

    #[test]
    fn shares_cover_the_class_once() {
        let subs: Vec<Submission> = (0..10)
            .map(|k| Submission {
                name: format!("e{k:02}"),
                path: PathBuf::new(),
                zip: false,
                submitters: vec![],
            })
            .collect();
        let mut all: Vec<String> = (1..=3)
            .flat_map(|i| share(subs.clone(), i, 3))
            .map(|s| s.name)
            .collect();
        assert_eq!(share(subs.clone(), 1, 3).len(), 4);
        all.sort();
        assert_eq!(all, subs.iter().map(|s| s.name.clone()).collect::<Vec<_>>());
        assert_eq!(parse_partition("2/4"), Ok((2, 4)));
        assert!(parse_partition("0/4").is_err());
        assert!(parse_partition("5/4").is_err());
    }
}
