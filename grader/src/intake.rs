//! What the judge takes from a submission (one place for every platform:
//! Gradescope's `run_autograder` calls it through `grader superponer`, and
//! `curso` calls it for every student).
//!
//! The rules: if the submission holds a folder `exercises/` with a `src/`
//! inside (a clone or zip of the student's repository, at most three levels
//! down; the shallowest, then the first in name order), every `*.rs` file
//! under its `src/` replaces the kit's `exercises/src`. Otherwise the loose
//! files (each exercise's file of [`crate::catalog`]: `payments_server.rs`,
//! `client.rs`, `reconciliation.rs`, `atomic_server.rs`; and `lib.rs`) (each
//! the shallowest, then the first in name order, at most three levels down)
//! go over the kit's stubs. Never a `Cargo.toml`, a `build.rs` or a
//! symbolic link: the kit's manifest rules. A submission with none of those
//! files is [`Intake::is_empty`] (`sin-archivos` on every platform).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The loose files a submission may bring instead of an `exercises/` folder:
/// each exercise's file of [`crate::catalog`] (`payments_server.rs`,
/// `client.rs`, `reconciliation.rs`, `atomic_server.rs`), then `lib.rs`.
pub fn loose_files() -> Vec<&'static str> {
    let mut names = exercise_files();
    names.push("lib.rs");
    names
}

/// The file name of each exercise of [`crate::catalog`], in order.
fn exercise_files() -> Vec<&'static str> {
    crate::catalog::ENTRIES
        .iter()
        .map(|e| e.file.rsplit('/').next().unwrap_or(e.file))
        .collect()
}

/// How deep under the submission's root the files are looked for.
const MAX_DEPTH: usize = 3;

/// Largest source file taken, in bytes (a bigger one is refused).
pub const MAX_FILE_BYTES: u64 = 1 << 20;

/// Where a submission's files came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// An `exercises/` folder (its path relative to the submission).
    Folder(String),
    /// Loose files.
    Loose,
}

/// The sources taken from one submission.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Intake {
    /// Where they came from.
    pub layout: Layout,
    /// Each file, by its path under `exercises/src` (`/`-separated), with its
    /// bytes; sorted by path.
    pub files: BTreeMap<String, Vec<u8>>,
    /// Other `*.rs` files found when none of [`loose_files`] was (e.g.
    /// `client (1).rs`), relative to the submission, for the message.
    pub strays: Vec<String>,
}

impl Intake {
    /// Whether no exercise file was found.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The Spanish line that says no exercise file was found (and which
    /// `.rs` files were, when some were).
    pub fn empty_message(&self) -> String {
        let mut line = format!(
            "la entrega no trae ningún archivo de ejercicio: ni una carpeta exercises/src ni {}; se calificaría la plantilla sin tocar",
            crate::catalog::listed(&exercise_files(), "o")
        );
        if !self.strays.is_empty() {
            line.push_str(&format!(
                " (trae {}: renómbralos con el nombre exacto)",
                self.strays.join(", ")
            ));
        }
        line
    }

    /// Puts the files over the kit at `kit`: with an `exercises/` folder,
    /// `kit/exercises/src` is replaced; loose files replace the stubs of the
    /// same name. Every written file gets the current time (cargo must
    /// rebuild).
    ///
    /// # Errors
    /// The I/O error, in Spanish, naming the file.
    pub fn write_into(&self, kit: &Path) -> Result<(), String> {
        let src = kit.join("exercises").join("src");
        if matches!(self.layout, Layout::Folder(_)) {
            match std::fs::remove_dir_all(&src) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io(&src, &e)),
            }
        }
        std::fs::create_dir_all(&src).map_err(|e| io(&src, &e))?;
        for (rel, bytes) in &self.files {
            let to = src.join(rel);
            if let Some(parent) = to.parent() {
                std::fs::create_dir_all(parent).map_err(|e| io(parent, &e))?;
            }
            // A new inode: never writes through a hard link of the kit.
            let _ = std::fs::remove_file(&to);
            std::fs::write(&to, bytes).map_err(|e| io(&to, &e))?;
        }
        Ok(())
    }
}

fn io(path: &Path, e: &std::io::Error) -> String {
    format!("{}: {}", path.display(), crate::output::io_error(e))
}

/// Reads the sources of the submission at `root` by the rules above.
///
/// # Errors
/// A Spanish line for a file that cannot be read or is larger than
/// [`MAX_FILE_BYTES`] (the submission is refused).
pub fn take(root: &Path) -> Result<Intake, String> {
    let entries = walk(root);
    let folder = entries
        .iter()
        .filter(|e| e.dir && e.name == "exercises" && root.join(&e.rel).join("src").is_dir())
        .min_by(|a, b| (a.depth, &a.rel).cmp(&(b.depth, &b.rel)));
    let mut files = BTreeMap::new();
    if let Some(folder) = folder {
        let src = root.join(&folder.rel).join("src");
        for e in walk_all(&src) {
            if !e.dir && e.name.ends_with(".rs") {
                files.insert(e.rel.clone(), read(&src.join(&e.rel))?);
            }
        }
        return Ok(Intake {
            layout: Layout::Folder(folder.rel.clone()),
            files,
            strays: Vec::new(),
        });
    }
    for name in loose_files() {
        if let Some(found) = entries
            .iter()
            .filter(|e| !e.dir && e.name == name)
            .min_by(|a, b| (a.depth, &a.rel).cmp(&(b.depth, &b.rel)))
        {
            files.insert(name.to_string(), read(&root.join(&found.rel))?);
        }
    }
    let strays = if files.is_empty() {
        entries
            .iter()
            .filter(|e| !e.dir && e.name.ends_with(".rs"))
            .map(|e| e.rel.clone())
            .collect()
    } else {
        Vec::new()
    };
    Ok(Intake {
        layout: Layout::Loose,
        files,
        strays,
    })
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    let meta = std::fs::metadata(path).map_err(|e| io(path, &e))?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(format!(
            "{}: pesa {} bytes; un archivo de ejercicio puede pesar a lo sumo {MAX_FILE_BYTES}",
            path.display(),
            meta.len()
        ));
    }
    std::fs::read(path).map_err(|e| io(path, &e))
}

/// One file or folder under a root.
struct Entry {
    /// Path relative to the root, `/`-separated.
    rel: String,
    /// Its last component.
    name: String,
    /// 1 for the root's own entries.
    depth: usize,
    /// Whether it is a folder.
    dir: bool,
}

/// Files and folders under `root`, at most [`MAX_DEPTH`] levels down,
/// without following symbolic links (nor listing them), in name order.
fn walk(root: &Path) -> Vec<Entry> {
    let mut out = Vec::new();
    visit(root, "", 1, Some(MAX_DEPTH), &mut out);
    out
}

/// As [`walk`], at any depth.
fn walk_all(root: &Path) -> Vec<Entry> {
    let mut out = Vec::new();
    visit(root, "", 1, None, &mut out);
    out
}

fn visit(dir: &Path, prefix: &str, depth: usize, max: Option<usize>, out: &mut Vec<Entry>) {
    if max.is_some_and(|m| depth > m) || depth > 32 {
        return;
    }
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut names: Vec<(String, PathBuf)> = read
        .flatten()
        .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
        .collect();
    names.sort();
    for (name, path) in names {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.file_type().is_symlink() || name == ".git" {
            continue;
        }
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        let dir = meta.is_dir();
        out.push(Entry {
            rel: rel.clone(),
            name,
            depth,
            dir,
        });
        if dir {
            visit(&path, &rel, depth + 1, max, out);
        }
    }
}

/// `grader superponer ENTREGA KIT`: [`take`] from ENTREGA, then
/// [`Intake::write_into`] KIT. Prints one line saying what was taken.
/// Exit 0 when files were taken, 3 when none was (`sin-archivos`: the line
/// says so), 2 when the submission cannot be read.
pub fn overlay_command(submission: &Path, kit: &Path) -> std::process::ExitCode {
    use std::process::ExitCode;
    let intake = match take(submission) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("grader: entrega rechazada: {e}");
            return ExitCode::from(2);
        }
    };
    if intake.is_empty() {
        println!("sin-archivos: {}", intake.empty_message());
        return ExitCode::from(3);
    }
    if let Err(e) = intake.write_into(kit) {
        eprintln!("grader: no se pudo poner la entrega sobre el kit: {e}");
        return ExitCode::from(2);
    }
    let names: Vec<&str> = intake.files.keys().map(String::as_str).collect();
    match &intake.layout {
        Layout::Folder(f) => println!("entrega: {f}/src ({})", names.join(", ")),
        Layout::Loose => println!("entrega: archivos sueltos ({})", names.join(", ")),
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn a_repository_gives_its_exercises_src() {
        let d = tempfile::tempdir().unwrap();
        put(d.path(), "repo/exercises/src/client.rs", "c");
        put(d.path(), "repo/exercises/src/extra/mod.rs", "m");
        put(d.path(), "repo/exercises/Cargo.toml", "x");
        put(d.path(), "repo/solutions/src/client.rs", "s");
        let i = take(d.path()).unwrap();
        assert_eq!(i.layout, Layout::Folder("repo/exercises".into()));
        assert_eq!(
            i.files.keys().collect::<Vec<_>>(),
            ["client.rs", "extra/mod.rs"]
        );
    }

    #[test]
    fn loose_files_take_the_shallowest_and_strays_are_named() {
        let d = tempfile::tempdir().unwrap();
        put(d.path(), "b/client.rs", "deep");
        put(d.path(), "client.rs", "top");
        let i = take(d.path()).unwrap();
        assert_eq!(i.layout, Layout::Loose);
        assert_eq!(i.files["client.rs"], b"top");
        let e = tempfile::tempdir().unwrap();
        put(e.path(), "client (1).rs", "x");
        let i = take(e.path()).unwrap();
        assert!(i.is_empty());
        assert!(
            i.empty_message().contains("client (1).rs"),
            "{}",
            i.empty_message()
        );
    }

    #[test]
    fn the_loose_files_are_the_catalogs_and_lib_rs() {
        assert_eq!(
            loose_files(),
            [
                "payments_server.rs",
                "client.rs",
                "reconciliation.rs",
                "atomic_server.rs",
                "lib.rs"
            ]
        );
        let e = tempfile::tempdir().unwrap();
        assert_eq!(
            take(e.path()).unwrap().empty_message(),
            "la entrega no trae ningún archivo de ejercicio: ni una carpeta exercises/src ni payments_server.rs, client.rs, reconciliation.rs o atomic_server.rs; se calificaría la plantilla sin tocar"
        );
    }

    #[test]
    fn writing_replaces_the_folder_or_only_the_loose_files() {
        let d = tempfile::tempdir().unwrap();
        let kit = d.path().join("kit");
        put(&kit, "exercises/src/lib.rs", "stub lib");
        put(&kit, "exercises/src/client.rs", "stub");
        let mut files = BTreeMap::new();
        files.insert("client.rs".to_string(), b"mine".to_vec());
        let loose = Intake {
            layout: Layout::Loose,
            files: files.clone(),
            strays: vec![],
        };
        loose.write_into(&kit).unwrap();
        assert_eq!(
            std::fs::read(kit.join("exercises/src/lib.rs")).unwrap(),
            b"stub lib"
        );
        assert_eq!(
            std::fs::read(kit.join("exercises/src/client.rs")).unwrap(),
            b"mine"
        );
        let folder = Intake {
            layout: Layout::Folder("exercises".into()),
            files,
            strays: vec![],
        };
        folder.write_into(&kit).unwrap();
        assert!(!kit.join("exercises/src/lib.rs").exists());
    }
}
