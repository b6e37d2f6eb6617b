//! What the judge takes from a submission (one place for every platform:
//! Gradescope's `run_autograder` calls it through `grader superponer`, and
//! `curso` calls it for every student).
//!
//! The rules: if the submission holds a folder `exercises/` with a `src/`
//! inside (a clone or zip of the student's repository, at most three levels
//! down; the shallowest, then the first in name order), every `*.rs` file
//! under its `src/` but its `lib.rs` goes over the kit's `exercises/src`:
//! the kit's files of the exercises it brings are removed first, and the
//! stubs of those it does not bring stay. Otherwise the loose files (each
//! exercise's file of [`crate::catalog`]: `payments_server.rs`, `client.rs`,
//! `reconciliation.rs`, `atomic_server.rs`; each the shallowest, then the
//! first in name order, at most three levels down) go over the kit's stubs.
//!
//! The kit's `exercises/src/lib.rs` always stays, whatever the submission
//! brings: it only wires the four exercises into the judge's `Kit` trait,
//! and a student's copy could only break that wiring (an older kit's
//! `lib.rs` without exercise 4, a missing `pub mod`, a `#![deny(warnings)]`
//! that makes the stubs fail) and with it every exercise, or reach from one
//! exercise into another's file, so that the stub that replaces a refused
//! exercise ([`crate::policy`]) no longer compiles and the others fall with
//! it. Never a `Cargo.toml`, a `build.rs` or a symbolic link either: the
//! kit's manifest rules. A submission with none of the exercise files is
//! [`Intake::is_empty`] (`sin-archivos` on every platform).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The loose files a submission may bring instead of an `exercises/` folder:
/// each exercise's file of [`crate::catalog`] (`payments_server.rs`,
/// `client.rs`, `reconciliation.rs`, `atomic_server.rs`).
pub fn loose_files() -> Vec<&'static str> {
    exercise_files()
}

/// The kit's own file that a submission's copy never replaces.
pub const KIT_LIB: &str = "lib.rs";

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
    /// The submission's `lib.rs` when it brings one (relative to the
    /// submission): not taken, the kit's stays.
    pub ignored_lib: Option<String>,
}

impl Intake {
    /// Whether no exercise file was found.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// The Spanish line that says no exercise file was found (and which
    /// `.rs` files were, when some were).
    pub fn empty_message(&self) -> String {
        let files = crate::catalog::listed(&exercise_files(), "o");
        let mut line = match &self.layout {
            Layout::Folder(f) => format!(
                "la entrega trae {f}/src pero ningún archivo de ejercicio ({files}); se calificaría la plantilla sin tocar"
            ),
            Layout::Loose => format!(
                "la entrega no trae ningún archivo de ejercicio: ni una carpeta exercises/src ni {files}; se calificaría la plantilla sin tocar"
            ),
        };
        if let Some(lib) = &self.ignored_lib {
            line.push_str(&format!(
                " (su {lib} no cuenta: el juez usa siempre el lib.rs del kit)"
            ));
        }
        if !self.strays.is_empty() {
            line.push_str(&format!(
                " (trae {}: renómbralos con el nombre exacto)",
                self.strays.join(", ")
            ));
        }
        line
    }

    /// The line that says what was taken: `entrega: exercises/src
    /// (client.rs, …)` or `entrega: archivos sueltos (…)`, and that the
    /// submission's `lib.rs` was not.
    pub fn taken_line(&self) -> String {
        let names: Vec<&str> = self.files.keys().map(String::as_str).collect();
        let mut line = match &self.layout {
            Layout::Folder(f) => format!("entrega: {f}/src ({})", names.join(", ")),
            Layout::Loose => format!("entrega: archivos sueltos ({})", names.join(", ")),
        };
        if let Some(lib) = &self.ignored_lib {
            line.push_str(&format!(
                "; su {lib} no se usa: el juez usa siempre el lib.rs del kit"
            ));
        }
        line
    }

    /// Whether the submission brings exercise file `file` (`client.rs`):
    /// the file itself or its module folder's `mod.rs` (`client/mod.rs`).
    fn brings(&self, file: &str) -> bool {
        let stem = file.strip_suffix(".rs").unwrap_or(file);
        self.files.contains_key(file) || self.files.contains_key(&format!("{stem}/mod.rs"))
    }

    /// Puts the files over the kit at `kit`, whose `exercises/src/lib.rs`
    /// always stays. With an `exercises/` folder, everything else in
    /// `kit/exercises/src` goes but the stubs of the exercises the
    /// submission does not bring (an exercise is brought by its file or its
    /// folder's `mod.rs`); loose files replace the stubs of the same name.
    /// Every written file gets the current time (cargo must rebuild).
    ///
    /// # Errors
    /// The I/O error, in Spanish, naming the file.
    pub fn write_into(&self, kit: &Path) -> Result<(), String> {
        let src = kit.join("exercises").join("src");
        if matches!(self.layout, Layout::Folder(_)) {
            let entries = match std::fs::read_dir(&src) {
                Ok(entries) => entries.flatten().collect(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
                Err(e) => return Err(io(&src, &e)),
            };
            for entry in entries {
                let name = entry.file_name().to_string_lossy().into_owned();
                let stub = exercise_files()
                    .into_iter()
                    .find(|f| name == *f || Some(name.as_str()) == f.strip_suffix(".rs"));
                if name == KIT_LIB || stub.is_some_and(|f| !self.brings(f)) {
                    continue;
                }
                let path = entry.path();
                let gone = match std::fs::symlink_metadata(&path) {
                    Ok(m) if m.is_dir() => std::fs::remove_dir_all(&path),
                    _ => std::fs::remove_file(&path),
                };
                gone.map_err(|e| io(&path, &e))?;
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
        let mut ignored_lib = None;
        for e in walk_all(&src) {
            if e.dir || !e.name.ends_with(".rs") {
                continue;
            }
            if e.rel == KIT_LIB {
                ignored_lib = Some(format!("{}/src/{KIT_LIB}", folder.rel));
                continue;
            }
            files.insert(e.rel.clone(), read(&src.join(&e.rel))?);
        }
        return Ok(Intake {
            layout: Layout::Folder(folder.rel.clone()),
            files,
            strays: Vec::new(),
            ignored_lib,
        });
    }
    let ignored_lib = shallowest(&entries, KIT_LIB).map(|e| e.rel.clone());
    for name in loose_files() {
        if let Some(found) = shallowest(&entries, name) {
            files.insert(name.to_string(), read(&root.join(&found.rel))?);
        }
    }
    let strays = if files.is_empty() {
        entries
            .iter()
            .filter(|e| !e.dir && e.name.ends_with(".rs") && e.name != KIT_LIB)
            .map(|e| e.rel.clone())
            .collect()
    } else {
        Vec::new()
    };
    Ok(Intake {
        layout: Layout::Loose,
        files,
        strays,
        ignored_lib,
    })
}

/// The file called `name` closest to the root (then the first in name
/// order).
fn shallowest<'a>(entries: &'a [Entry], name: &str) -> Option<&'a Entry> {
    entries
        .iter()
        .filter(|e| !e.dir && e.name == name)
        .min_by(|a, b| (a.depth, &a.rel).cmp(&(b.depth, &b.rel)))
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

/// Unpacks `zip` into `dest` with `unzip` (which refuses paths outside
/// `dest`).
///
/// # Errors
/// A Spanish line: unzip is missing, or the file is not a zip it can unpack.
pub fn unzip(zip: &Path, dest: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dest).map_err(|e| io(dest, &e))?;
    let out = std::process::Command::new("unzip")
        .args(["-q", "-o"])
        .arg(zip)
        .arg("-d")
        .arg(dest)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            format!("no se pudo ejecutar unzip ({e}); instálalo (apt-get install unzip)")
        })?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}: no es un zip que se pueda descomprimir",
            zip.file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned())
        ))
    }
}

/// Whether `path` is a file named `*.zip` (any case): a submission to
/// unpack first.
pub fn is_zip(path: &Path) -> bool {
    path.is_file()
        && path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().to_lowercase().ends_with(".zip"))
}

/// [`take`] from `submission`: a folder as it is, a `.zip` unpacked into a
/// temporary folder first (as `curso` does).
///
/// # Errors
/// As [`take`] and [`unzip`]; a file that is not a `.zip` is refused
/// naming it.
pub fn take_any(submission: &Path) -> Result<Intake, String> {
    if is_zip(submission) {
        let tmp = tempfile::Builder::new()
            .prefix("kit-entrega-")
            .tempdir()
            .map_err(|e| {
                format!(
                    "no se pudo crear una carpeta temporal: {}",
                    crate::output::io_error(&e)
                )
            })?;
        unzip(submission, tmp.path())?;
        return take(tmp.path());
    }
    if submission.is_file() {
        return Err(format!(
            "{}: es un archivo, no una carpeta ni un .zip; pasa la carpeta de la entrega (o un .zip de ella)",
            submission.display()
        ));
    }
    if !submission.is_dir() {
        return Err(format!("{}: no existe", submission.display()));
    }
    take(submission)
}

/// `grader superponer ENTREGA KIT`: [`take_any`] from ENTREGA (a folder or
/// a `.zip`), then [`Intake::write_into`] KIT. Prints one line saying what
/// was taken (and that a `lib.rs` of the submission was not). Exit 0 when
/// files were taken, 3 when none was (`sin-archivos`: the line says so), 2
/// when the submission cannot be read.
pub fn overlay_command(submission: &Path, kit: &Path) -> std::process::ExitCode {
    use std::process::ExitCode;
    let intake = match take_any(submission) {
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
    println!("{}", intake.taken_line());
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
    fn the_loose_files_are_the_catalogs() {
        let files: Vec<&str> = crate::catalog::ENTRIES
            .iter()
            .map(|e| e.file.strip_prefix("exercises/src/").unwrap())
            .collect();
        assert_eq!(loose_files(), files);
        assert_eq!(loose_files()[..2], ["payments_server.rs", "client.rs"]);
        let e = tempfile::tempdir().unwrap();
        assert_eq!(
            take(e.path()).unwrap().empty_message(),
            format!(
                "la entrega no trae ningún archivo de ejercicio: ni una carpeta exercises/src ni {}; se calificaría la plantilla sin tocar",
                crate::catalog::listed(&files, "o")
            )
        );
    }

    /// The kit's `exercises/src`: its lib.rs and the four stubs.
    fn kit_with_stubs(root: &Path) -> PathBuf {
        let kit = root.join("kit");
        put(&kit, "exercises/src/lib.rs", "kit lib");
        for f in exercise_files() {
            put(&kit, &format!("exercises/src/{f}"), "stub");
        }
        kit
    }

    /// Every file under `kit/exercises/src`, with its text.
    fn src_of(kit: &Path) -> Vec<(String, String)> {
        let src = kit.join("exercises/src");
        walk_all(&src)
            .into_iter()
            .filter(|e| !e.dir)
            .map(|e| {
                let text = std::fs::read_to_string(src.join(&e.rel)).unwrap();
                (e.rel, text)
            })
            .collect()
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| ((*a).to_string(), (*b).to_string()))
            .collect()
    }

    #[test]
    fn a_folder_without_lib_rs_keeps_the_kits_lib_and_the_stubs_it_does_not_bring() {
        let d = tempfile::tempdir().unwrap();
        let kit = kit_with_stubs(d.path());
        let sub = d.path().join("entrega");
        put(&sub, "exercises/src/client.rs", "mine c");
        put(&sub, "exercises/src/reconciliation/mod.rs", "mine r");
        put(&sub, "exercises/src/reconciliation/util.rs", "mine u");
        let i = take(&sub).unwrap();
        assert_eq!(i.ignored_lib, None);
        i.write_into(&kit).unwrap();
        // The stubs it does not bring stay (whatever the catalog's other
        // exercises are); the reconciliation file gives way to its folder.
        let mut want = pairs(&[
            ("client.rs", "mine c"),
            ("lib.rs", "kit lib"),
            ("reconciliation/mod.rs", "mine r"),
            ("reconciliation/util.rs", "mine u"),
        ]);
        for f in exercise_files() {
            if !["client.rs", "reconciliation.rs"].contains(&f) {
                want.push((f.to_string(), "stub".to_string()));
            }
        }
        want.sort();
        assert!(want.contains(&("payments_server.rs".to_string(), "stub".to_string())));
        assert_eq!(src_of(&kit), want);
        assert_eq!(
            i.taken_line(),
            "entrega: exercises/src (client.rs, reconciliation/mod.rs, reconciliation/util.rs)"
        );
    }

    #[test]
    fn a_students_lib_rs_is_never_taken_by_either_layout() {
        let d = tempfile::tempdir().unwrap();
        let sub = d.path().join("repo");
        put(&sub, "exercises/src/lib.rs", "pub mod client;");
        put(&sub, "exercises/src/client.rs", "mine");
        let i = take(&sub).unwrap();
        assert_eq!(i.files.keys().collect::<Vec<_>>(), ["client.rs"]);
        assert_eq!(i.ignored_lib.as_deref(), Some("exercises/src/lib.rs"));
        let kit = kit_with_stubs(d.path());
        i.write_into(&kit).unwrap();
        assert_eq!(
            std::fs::read_to_string(kit.join("exercises/src/lib.rs")).unwrap(),
            "kit lib"
        );
        assert_eq!(
            i.taken_line(),
            "entrega: exercises/src (client.rs); su exercises/src/lib.rs no se usa: el juez usa siempre el lib.rs del kit"
        );
        // Loose: lib.rs is not an exercise file; alone it is sin-archivos.
        let l = d.path().join("sueltos");
        put(&l, "lib.rs", "pub mod client;");
        let i = take(&l).unwrap();
        assert!(i.is_empty());
        assert_eq!(i.ignored_lib.as_deref(), Some("lib.rs"));
        assert!(i.strays.is_empty(), "{:?}", i.strays);
        assert!(
            i.empty_message()
                .ends_with("(su lib.rs no cuenta: el juez usa siempre el lib.rs del kit)"),
            "{}",
            i.empty_message()
        );
        // A folder with only a lib.rs says it has the folder.
        let f = d.path().join("solo-lib");
        put(&f, "exercises/src/lib.rs", "x");
        assert_eq!(
            take(&f).unwrap().empty_message(),
            format!(
                "la entrega trae exercises/src pero ningún archivo de ejercicio ({}); se calificaría la plantilla sin tocar (su exercises/src/lib.rs no cuenta: el juez usa siempre el lib.rs del kit)",
                crate::catalog::listed(&loose_files(), "o")
            )
        );
    }

    // It makes its zip with the `zip` command, which Git Bash on Windows
    // runners does not have (the judge itself unpacks with `unzip`).
    #[test]
    #[cfg_attr(windows, ignore = "necesita el comando zip")]
    fn a_zip_is_unpacked_and_a_plain_file_is_named() {
        let d = tempfile::tempdir().unwrap();
        let repo = d.path().join("repo");
        put(&repo, "exercises/src/client.rs", "mine");
        let zip = d.path().join("Entrega.ZIP");
        let status = std::process::Command::new("zip")
            .args(["-qr"])
            .arg(&zip)
            .arg(".")
            .current_dir(&repo)
            .status()
            .unwrap();
        assert!(status.success());
        let i = take_any(&zip).unwrap();
        assert_eq!(i.layout, Layout::Folder("exercises".into()));
        assert_eq!(i.files["client.rs"], b"mine");
        let plain = d.path().join("client.rs");
        put(d.path(), "client.rs", "c");
        assert_eq!(
            take_any(&plain).unwrap_err(),
            format!(
                "{}: es un archivo, no una carpeta ni un .zip; pasa la carpeta de la entrega (o un .zip de ella)",
                plain.display()
            )
        );
        let bad = d.path().join("roto.zip");
        put(d.path(), "roto.zip", "no es un zip");
        assert_eq!(
            take_any(&bad).unwrap_err(),
            "roto.zip: no es un zip que se pueda descomprimir"
        );
        let missing = d.path().join("no-existe");
        assert_eq!(
            take_any(&missing).unwrap_err(),
            format!("{}: no existe", missing.display())
        );
    }

    #[test]
    fn writing_replaces_the_folder_or_only_the_loose_files() {
        let d = tempfile::tempdir().unwrap();
        let kit = d.path().join("kit");
        put(&kit, "exercises/src/lib.rs", "stub lib");
        put(&kit, "exercises/src/client.rs", "stub");
        put(&kit, "exercises/src/notas.rs", "old");
        let mut files = BTreeMap::new();
        files.insert("client.rs".to_string(), b"mine".to_vec());
        let loose = Intake {
            layout: Layout::Loose,
            files: files.clone(),
            strays: vec![],
            ignored_lib: None,
        };
        loose.write_into(&kit).unwrap();
        assert_eq!(
            src_of(&kit),
            pairs(&[
                ("client.rs", "mine"),
                ("lib.rs", "stub lib"),
                ("notas.rs", "old")
            ])
        );
        let folder = Intake {
            layout: Layout::Folder("exercises".into()),
            files,
            strays: vec![],
            ignored_lib: None,
        };
        folder.write_into(&kit).unwrap();
        assert_eq!(
            src_of(&kit),
            pairs(&[("client.rs", "mine"), ("lib.rs", "stub lib")])
        );
    }
}
