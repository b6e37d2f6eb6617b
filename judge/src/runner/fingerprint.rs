//! The harness's fingerprint: what a build of the harness depends on, so
//! that the judge can skip the nested `cargo build` (≈ 0.17 s of cargo's own
//! no-op check on every run) when nothing of it changed since this copy of
//! the kit built it last.
//!
//! The fingerprint is a list of lines, one per input, each with a hash of
//! its contents ([`crate::stable_hash`], 64 bits: the same contents give the
//! same hash on every machine and Rust release, as the verdict cache's key
//! needs; this detects changes, it is no protection against a forger, who
//! could only make the judge reuse the harness built from an earlier
//! version of their own code):
//!
//! - every file of the crates the harness is built from (`sim`, `protocol`,
//!   `harness` and the implementation: `exercises` or `solutions`): their
//!   `Cargo.toml`, `build.rs` and everything under `src/`, by **contents**
//!   (a byte changed with the same size and the same modification time
//!   changes it; so does a file added or removed);
//! - the workspace's `Cargo.toml`, `Cargo.lock`, `grader/Cargo.toml` (its
//!   features unify with the harness's dependencies), `.cargo/config.toml`,
//!   `rust-toolchain.toml`;
//! - the files under the kit that the last build's dep-info
//!   (`target/PROFILE/BINARY.d`) lists outside those folders (an
//!   `include_str!` of a fixture);
//! - the build's own choices: the binary, the profile, the judge's features;
//! - the environment the nested build keeps ([`super::build`]'s list:
//!   `PATH`, `CARGO_HOME`, `RUSTUP_TOOLCHAIN`, `CARGO_TARGET_DIR`, …; the
//!   build clears everything else, `RUSTFLAGS` included);
//! - the toolchain, without running it (`rustc -vV` through rustup's proxy
//!   costs tens of milliseconds): the path, size, modification time and
//!   inode of the `cargo` that runs the build (`$CARGO`, which `cargo run`
//!   sets to the toolchain's own binary, else the first `cargo` in `PATH`),
//!   of the `rustc` beside it and of the files in the toolchain's `lib/`
//!   (`librustc_driver-….so`, which every update replaces); with rustup,
//!   the same for every installed toolchain and rustup's `settings.toml`
//!   (the default toolchain).
//!
//! The record is kept per copy of the kit (the root's path hashed into its
//! name) in the judge's target folder, with the identity of the executable
//! that build produced: another copy building into the same folder replaces
//! that executable, and the record then no longer matches.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::implementation::Implementation;
use crate::stable_hash::of_parts as hash_of;

/// The inputs of one harness build: input name → hash of its contents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// One entry per input (`archivo exercises/src/client.rs`, `entorno`,
    /// `herramientas`, …), sorted.
    pub inputs: BTreeMap<String, u64>,
}

/// The environment variables a build keeps: what cargo and rustc need,
/// nothing of the judge's secrets.
pub const KEPT_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "CARGO_TARGET_DIR",
    "CARGO_NET_OFFLINE",
    "CARGO_BUILD_JOBS",
    "CARGO_INCREMENTAL",
    "CARGO_TERM_COLOR",
    "TMPDIR",
    "LANG",
];

/// What cargo, rustc and the linker need besides [`KEPT_ENV`] on this
/// system (nothing on Linux): Windows starts no program without
/// `SystemRoot`, and cargo and rustc find the user's folders, the temporary
/// folder and the MSVC linker through the others; macOS's linker finds its
/// SDK through Xcode's. None is a secret of the judge's.
pub const KEPT_ENV_OS: &[&str] = if cfg!(windows) {
    &[
        "SystemRoot",
        "SystemDrive",
        "windir",
        "ComSpec",
        "PATHEXT",
        "USERPROFILE",
        "HOMEDRIVE",
        "HOMEPATH",
        "APPDATA",
        "LOCALAPPDATA",
        "ProgramData",
        "ProgramFiles",
        "ProgramFiles(x86)",
        "ProgramW6432",
        "TEMP",
        "TMP",
        "NUMBER_OF_PROCESSORS",
        "PROCESSOR_ARCHITECTURE",
        "OS",
        "VCINSTALLDIR",
        "VSINSTALLDIR",
        "VCToolsInstallDir",
        "INCLUDE",
        "LIB",
        "LIBPATH",
        "WindowsSdkDir",
    ]
} else if cfg!(target_os = "macos") {
    &["DEVELOPER_DIR", "SDKROOT", "MACOSX_DEPLOYMENT_TARGET"]
} else {
    &[]
};

/// Every variable a build keeps: [`KEPT_ENV`], then [`KEPT_ENV_OS`].
pub fn kept_env() -> impl Iterator<Item = &'static str> {
    KEPT_ENV.iter().chain(KEPT_ENV_OS).copied()
}

/// The crates' folders whose files are inputs, for `which`.
fn crate_dirs(which: Implementation) -> [&'static str; 4] {
    ["sim", "protocol", "harness", which.crate_name()]
}

/// Workspace files that are inputs when present.
const WORKSPACE_FILES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "grader/Cargo.toml",
    "judge/Cargo.toml",
    ".cargo/config.toml",
    ".cargo/config",
    "rust-toolchain.toml",
    "rust-toolchain",
];

impl Fingerprint {
    /// The fingerprint of the harness of `which` in the kit at `root`, with
    /// the build's environment `env` (the judge's own, through
    /// [`std::env::var_os`], outside tests) and `choices` (binary, profile,
    /// features). `dep_info` is the last build's dep-info file, if any.
    pub fn compute(
        root: &Path,
        which: Implementation,
        choices: &str,
        env: &dyn Fn(&str) -> Option<OsString>,
        dep_info: Option<&Path>,
    ) -> Fingerprint {
        let mut inputs = BTreeMap::new();
        let mut add_file = |rel: String, path: &Path| {
            if let Ok(bytes) = std::fs::read(path) {
                inputs.insert(format!("archivo {rel}"), hash_of([bytes.as_slice()]));
            }
        };
        for rel in WORKSPACE_FILES {
            add_file((*rel).to_string(), &root.join(rel));
        }
        let dirs = crate_dirs(which);
        for dir in dirs {
            for rel in ["Cargo.toml", "build.rs"] {
                add_file(format!("{dir}/{rel}"), &root.join(dir).join(rel));
            }
            for path in files_under(&root.join(dir).join("src")) {
                let rel = path.strip_prefix(root).unwrap_or(&path);
                add_file(crate::paths::slashed(rel), &path);
            }
        }
        for path in dep_info.map(listed_files).unwrap_or_default() {
            let Ok(rel) = path.strip_prefix(root) else {
                continue;
            };
            let rel = crate::paths::slashed(rel);
            if !dirs.iter().any(|d| rel.starts_with(&format!("{d}/"))) {
                add_file(rel, &path);
            }
        }
        inputs.insert("opciones".to_string(), hash_of([choices.as_bytes()]));
        // Each kept variable: its name, whether it is set, its value.
        let kept: Vec<(&str, Option<OsString>)> = kept_env().map(|n| (n, env(n))).collect();
        let kept_parts = kept.iter().flat_map(|(name, value)| {
            let set: &[u8] = if value.is_some() { b"1" } else { b"0" };
            let value = value.as_deref().map_or(&[][..], |v| v.as_encoded_bytes());
            [name.as_bytes(), set, value]
        });
        inputs.insert("entorno".to_string(), hash_of(kept_parts));
        let tools = toolchain_identity(env);
        inputs.insert(
            "herramientas".to_string(),
            hash_of(tools.iter().map(|l| l.as_bytes())),
        );
        Fingerprint { inputs }
    }

    /// The record's text: one `HASH NAME` line per input.
    fn lines(&self) -> String {
        self.inputs
            .iter()
            .map(|(name, h)| format!("{h:016x} {name}\n"))
            .collect()
    }

    /// The files of the kit whose contents differ from `old`'s (changed or
    /// new), as paths under `root`.
    pub fn changed_files(&self, old: &Fingerprint, root: &Path) -> Vec<PathBuf> {
        self.inputs
            .iter()
            .filter(|(name, h)| old.inputs.get(*name) != Some(h))
            .filter_map(|(name, _)| name.strip_prefix("archivo "))
            .map(|rel| root.join(rel))
            .collect()
    }
}

/// Every file under `dir`, recursively (none when it does not exist).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(path),
                Ok(_) => files.push(path),
                Err(_) => {}
            }
        }
    }
    files
}

/// The files a make-style dep-info file lists (`target: a b\ c`). cargo
/// escapes only spaces (`\ `): any other backslash is part of the path
/// (Windows's `C:\kit\sim\src\lib.rs`).
fn listed_files(dep_info: &Path) -> Vec<PathBuf> {
    let Ok(text) = std::fs::read_to_string(dep_info) else {
        return Vec::new();
    };
    let Some(first) = text.lines().next() else {
        return Vec::new();
    };
    let deps = first.split_once(": ").map_or("", |(_, d)| d);
    let mut files = Vec::new();
    let mut current = String::new();
    let mut chars = deps.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' if chars.clone().next() == Some(' ') => current.extend(chars.next()),
            ' ' => files.push(PathBuf::from(std::mem::take(&mut current))),
            c => current.push(c),
        }
    }
    files.push(PathBuf::from(current));
    files.retain(|f| !f.as_os_str().is_empty());
    files
}

/// Path, size, modification time and inode of `path`.
#[cfg(unix)]
pub fn stat_line(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => format!(
            "{} {} {}.{} {} {}",
            path.display(),
            m.len(),
            m.mtime(),
            m.mtime_nsec(),
            m.ino(),
            m.dev()
        ),
        Err(_) => format!("{} ausente", path.display()),
    }
}

/// Path, size and modification time of `path` (no inode without unix:
/// std's stable API has none on Windows).
#[cfg(not(unix))]
pub fn stat_line(path: &Path) -> String {
    match std::fs::metadata(path) {
        Ok(m) => {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .unwrap_or_default();
            format!(
                "{} {} {}.{}",
                path.display(),
                m.len(),
                modified.as_secs(),
                modified.subsec_nanos()
            )
        }
        Err(_) => format!("{} ausente", path.display()),
    }
}

/// The toolchain's identity (see the module's documentation), from file
/// metadata only: running `rustc -vV` through rustup's proxy costs tens of
/// milliseconds.
fn toolchain_identity(env: &dyn Fn(&str) -> Option<OsString>) -> Vec<String> {
    let cargo = env("CARGO")
        .map(PathBuf::from)
        .or_else(|| find_in_path(&exe("cargo"), env("PATH")));
    let mut lines = Vec::new();
    match &cargo {
        Some(cargo) => toolchain_files(cargo, &mut lines),
        None => lines.push("cargo ausente".to_string()),
    }
    // Through rustup's proxy (`cargo` in PATH, the judge started
    // directly), the toolchain is the default or an override: every
    // installed toolchain and rustup's settings.
    let rustup = env("RUSTUP_HOME")
        .map(PathBuf::from)
        .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".rustup")));
    if let Some(home) = rustup.filter(|h| h.join("toolchains").is_dir()) {
        lines.push(stat_line(&home.join("settings.toml")));
        let mut toolchains: Vec<PathBuf> = std::fs::read_dir(home.join("toolchains"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .collect();
        toolchains.sort();
        for t in toolchains {
            toolchain_files(&t.join("bin").join(exe("cargo")), &mut lines);
        }
    }
    lines
}

/// Identity lines of the toolchain holding `cargo`: it, the `rustc` beside
/// it and the files of its `lib/` (`librustc_driver-….so`).
fn toolchain_files(cargo: &Path, lines: &mut Vec<String>) {
    lines.push(stat_line(cargo));
    let Some(bin) = cargo.parent() else {
        return;
    };
    lines.push(stat_line(&bin.join(exe("rustc"))));
    let mut libs: Vec<PathBuf> = std::fs::read_dir(bin.join("../lib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    libs.sort();
    lines.extend(libs.iter().map(|p| stat_line(p)));
}

/// The file name of program `name` on this system (`rustc.exe` on
/// Windows).
fn exe(name: &str) -> String {
    format!("{name}{}", std::env::consts::EXE_SUFFIX)
}

/// The first `name` in the folders of `path`.
fn find_in_path(name: &str, path: Option<OsString>) -> Option<PathBuf> {
    std::env::split_paths(&path?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Where this copy's record of its last build of `binary` lives: in the
/// target folder's `PROFILE` folder, `kit-huella-BINARY-ROOTHASH`.
pub fn record_path(profile_dir: &Path, root: &Path, binary: &str) -> PathBuf {
    per_copy(profile_dir, "kit-huella", root, binary)
}

/// A file of the copy of the kit at `root` about `binary`, in the target
/// folder's `PROFILE` folder: `PREFIX-BINARY-ROOTHASH` (two copies sharing
/// one target folder keep their own).
pub fn per_copy(profile_dir: &Path, prefix: &str, root: &Path, binary: &str) -> PathBuf {
    profile_dir.join(format!(
        "{prefix}-{binary}-{:016x}",
        hash_of([root.as_os_str().as_encoded_bytes()])
    ))
}

/// Writes `text` to `path` whole or not at all (best effort): through a
/// file of this process beside it, renamed into place, so a reader never
/// sees half of it and two writers never mix.
pub fn write_whole(path: &Path, text: &str) {
    let tmp = path.with_extension(format!("nuevo-{}", std::process::id()));
    if std::fs::write(&tmp, text).is_ok() {
        let _ = std::fs::rename(&tmp, path);
    }
}

/// A build's record: its fingerprint and the executable it produced, with
/// that executable's identity ([`stat_line`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The inputs of the build.
    pub fingerprint: Fingerprint,
    /// The harness executable cargo reported.
    pub executable: PathBuf,
}

impl Record {
    /// Writes the record (best effort: a record that cannot be written only
    /// means the next run builds again).
    pub fn store(&self, path: &Path) {
        let text = format!(
            "ejecutable {}\nidentidad {}\n{}",
            self.executable.display(),
            stat_line(&self.executable),
            self.fingerprint.lines()
        );
        write_whole(path, &text);
    }

    /// The record at `path`, if it is readable and its executable is still
    /// the one that build produced (same path, size, time, inode).
    pub fn load(path: &Path) -> Option<Record> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut lines = text.lines();
        let executable = PathBuf::from(lines.next()?.strip_prefix("ejecutable ")?);
        let identity = lines.next()?.strip_prefix("identidad ")?;
        if identity != stat_line(&executable) {
            return None;
        }
        let mut inputs = BTreeMap::new();
        for line in lines {
            let (h, name) = line.split_once(' ')?;
            inputs.insert(name.to_string(), u64::from_str_radix(h, 16).ok()?);
        }
        Some(Record {
            fingerprint: Fingerprint { inputs },
            executable,
        })
    }
}

/// A small kit and its fingerprint, for tests (the verdict cache's too).
#[doc(hidden)]
pub mod test_kit {
    use super::*;

    /// A small kit (the verdict cache's tests use it too).
    pub fn kit() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in [
            ("Cargo.toml", "[workspace]\n"),
            ("sim/src/lib.rs", "pub fn a() {}\n"),
            ("protocol/src/lib.rs", "\n"),
            ("harness/src/bin/harness.rs", "fn main() {}\n"),
            ("exercises/Cargo.toml", "[package]\n"),
            ("exercises/src/client.rs", "pub fn charge() -> u8 { 1 }\n"),
            ("solutions/src/client.rs", "pub fn charge() -> u8 { 2 }\n"),
        ] {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    pub fn env(name: &str) -> Option<OsString> {
        (name == "PATH")
            .then(|| OsString::from("/usr/bin"))
            .or_else(|| (name == "CARGO").then(|| OsString::from("/no/existe/bin/cargo")))
    }

    /// The fingerprint of the student's harness of the kit at `root`.
    pub fn of(root: &Path) -> Fingerprint {
        Fingerprint::compute(root, Implementation::Exercises, "harness debug", &env, None)
    }
}

#[cfg(test)]
mod tests {
    use super::test_kit::{env, kit, of};
    use super::*;
    use std::time::{Duration, SystemTime};

    #[test]
    fn nothing_changed_same_fingerprint() {
        let k = kit();
        let a = of(k.path());
        assert_eq!(a, of(k.path()));
        assert!(a.inputs.contains_key("archivo exercises/src/client.rs"));
        // The other implementation is not an input of this harness.
        assert!(!a.inputs.keys().any(|n| n.contains("solutions")));
        assert!(a.changed_files(&of(k.path()), k.path()).is_empty());
    }

    #[test]
    fn a_byte_changed_with_the_same_size_and_time_changes_it() {
        let k = kit();
        let file = k.path().join("exercises/src/client.rs");
        let when = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        std::fs::File::options()
            .write(true)
            .open(&file)
            .unwrap()
            .set_modified(when)
            .unwrap();
        let before = of(k.path());
        let text = std::fs::read_to_string(&file).unwrap();
        std::fs::write(&file, text.replace("{ 1 }", "{ 7 }")).unwrap();
        let f = std::fs::File::options().write(true).open(&file).unwrap();
        f.set_modified(when).unwrap();
        let meta = std::fs::metadata(&file).unwrap();
        assert_eq!(meta.len() as usize, text.len());
        assert_eq!(meta.modified().unwrap(), when);
        let after = of(k.path());
        assert_ne!(before, after);
        assert_eq!(after.changed_files(&before, k.path()), vec![file]);
    }

    #[test]
    fn a_new_file_under_exercises_src_changes_it() {
        let k = kit();
        let before = of(k.path());
        let new = k.path().join("exercises/src/extra.rs");
        std::fs::write(&new, "").unwrap();
        let after = of(k.path());
        assert_ne!(before, after);
        assert_eq!(after.changed_files(&before, k.path()), vec![new]);
    }

    #[test]
    fn the_environment_the_profile_and_the_implementation_count() {
        let k = kit();
        let base = of(k.path());
        let other_env = |n: &str| {
            (n == "PATH")
                .then(|| OsString::from("/otro/bin"))
                .or_else(|| env(n))
        };
        let e = Fingerprint::compute(
            k.path(),
            Implementation::Exercises,
            "harness debug",
            &other_env,
            None,
        );
        assert_ne!(base.inputs["entorno"], e.inputs["entorno"]);
        let r = Fingerprint::compute(
            k.path(),
            Implementation::Exercises,
            "harness release",
            &env,
            None,
        );
        assert_ne!(base.inputs["opciones"], r.inputs["opciones"]);
        let s = Fingerprint::compute(
            k.path(),
            Implementation::Solutions,
            "harness debug",
            &env,
            None,
        );
        assert!(s.inputs.contains_key("archivo solutions/src/client.rs"));
    }

    #[test]
    fn a_toolchain_update_changes_it_without_running_the_toolchain() {
        let t = tempfile::tempdir().unwrap();
        for rel in ["bin/cargo", "bin/rustc", "lib/librustc_driver-aaaa.so"] {
            let path = t.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "no es un programa").unwrap();
        }
        let cargo = t.path().join("bin/cargo").into_os_string();
        let env = move |n: &str| (n == "CARGO").then(|| cargo.clone());
        let before = toolchain_identity(&env);
        assert_eq!(before, toolchain_identity(&env));
        // An update replaces the driver library.
        std::fs::remove_file(t.path().join("lib/librustc_driver-aaaa.so")).unwrap();
        std::fs::write(t.path().join("lib/librustc_driver-bbbb.so"), "otro").unwrap();
        assert_ne!(before, toolchain_identity(&env));
    }

    #[test]
    fn dep_info_escapes_only_spaces_as_cargo_writes_it() {
        let k = kit();
        let d = k.path().join("harness.d");
        std::fs::write(
            &d,
            "C:\\t\\harness.exe: C:\\kit\\sim\\src\\lib.rs /kit/a\\ b.toml\n",
        )
        .unwrap();
        assert_eq!(
            listed_files(&d),
            [
                PathBuf::from("C:\\kit\\sim\\src\\lib.rs"),
                PathBuf::from("/kit/a b.toml")
            ]
        );
    }

    #[test]
    fn dep_info_adds_included_files_of_the_kit() {
        let k = kit();
        std::fs::create_dir_all(k.path().join("fixtures")).unwrap();
        let fixture = k.path().join("fixtures/a b.toml");
        std::fs::write(&fixture, "x = 1\n").unwrap();
        let d = k.path().join("harness.d");
        std::fs::write(
            &d,
            format!(
                "/t/harness: {} {}\n",
                k.path().join("sim/src/lib.rs").display(),
                fixture.display().to_string().replace(' ', "\\ ")
            ),
        )
        .unwrap();
        let f = Fingerprint::compute(k.path(), Implementation::Exercises, "", &env, Some(&d));
        assert!(f.inputs.contains_key("archivo fixtures/a b.toml"), "{f:?}");
    }

    #[test]
    fn a_record_survives_only_with_its_executable() {
        let k = kit();
        let exe = k.path().join("harness-bin");
        std::fs::write(&exe, "binario").unwrap();
        let record = Record {
            fingerprint: of(k.path()),
            executable: exe.clone(),
        };
        let path = record_path(k.path(), k.path(), Implementation::Exercises.binary());
        record.store(&path);
        assert_eq!(Record::load(&path), Some(record));
        // Another build replaced the executable.
        std::fs::write(&exe, "otro binario").unwrap();
        assert_eq!(Record::load(&path), None);
    }
}
