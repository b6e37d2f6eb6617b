//! The student's tools in a judge built without them (issue 26): a first
//! `cargo run -p grader` compiles only what the report needs, so
//! `vigilar`, `escenario` and `barrido` (behind the `herramientas` feature:
//! file events, the terminal, insta snapshots and diffs, the SVG chart) run
//! the same command line in `grader-herramientas`, the judge with them,
//! through `cargo run`. Cargo compiles their crates the first time (6-8 s
//! on 2 cores) and keeps both judges side by side: going back to the
//! report compiles nothing. A binary of its own, not `grader` with more
//! features: cargo never replaces the `grader` that is running and waiting
//! (Windows locks a running program's file).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use crate::cli::{self, Cli};

/// The judge with the student's tools, a binary of the `grader` package.
pub const BINARY: &str = "grader-herramientas";

/// The subcommand of `cli` that needs the student's tools when this judge
/// was built without them (`vigilar`, `escenario`, `barrido`); `None` when
/// it has them or the command needs none.
pub fn missing(cli: &Cli) -> Option<&'static str> {
    if cfg!(feature = "herramientas") {
        return None;
    }
    match cli.command {
        Some(cli::Command::Vigilar) => Some("vigilar"),
        Some(cli::Command::Escenario { .. }) => Some("escenario"),
        Some(cli::Command::Barrido(_)) => Some("barrido"),
        _ => None,
    }
}

/// Runs this process's command line again in [`BINARY`] (with the report
/// features this judge has) through `cargo run` in the kit at
/// [`judge::paths::repo_root`], where this judge was built (its target
/// folder, triple and profile: [`Layout`]). When there is no [`BINARY`]
/// beside this judge yet, or it is older than this judge (the kit's
/// sources changed since), one line on stderr says why cargo compiles and
/// cargo shows what it compiles; otherwise it runs quiet. On Unix the judge becomes that `cargo` (`exec`): the exit
/// status, the terminal and the signals are the command's own. Elsewhere it
/// waits for it and returns its exit status. `command` names the
/// subcommand, for the messages.
///
/// # Errors
/// Exit status 2, explained on stderr with the command to run by hand,
/// when this judge is not where cargo builds (a copy elsewhere) or cargo
/// cannot be started.
pub fn run_with_tools(command: &str) -> ExitCode {
    let Some(layout) = std::env::current_exe()
        .ok()
        .and_then(|exe| Layout::of(&exe))
    else {
        eprintln!(
            "grader: `{command}` necesita el juez con las herramientas (`--features herramientas`) y este no está donde cargo lo compila; corre `cargo run -p grader --features herramientas --{}` en la carpeta del kit",
            shown_arguments()
        );
        return ExitCode::from(2);
    };
    let root = judge::paths::repo_root();
    let cargo = std::env::var_os("CARGO")
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| OsString::from("cargo"));
    let state = layout.tools();
    let mut cargo_run = Command::new(&cargo);
    cargo_run
        .args(arguments(&root, &layout, state == Tools::Current))
        .arg("--")
        .args(std::env::args_os().skip(1))
        .env_remove("CARGO_MANIFEST_DIR");
    match state {
        Tools::Missing => eprintln!(
            "grader: `{command}` usa herramientas que el informe no necesita; cargo las compila esta primera vez (`--features herramientas`, menos de 10 s) y quedan listas"
        ),
        Tools::Older => eprintln!(
            "grader: el juez cambió desde que se compilaron las herramientas de `{command}`; cargo las pone al día (`--features herramientas`)"
        ),
        Tools::Current => {}
    }
    match start(cargo_run) {
        Ok(code) => code,
        Err(e) => {
            eprintln!(
                "grader: no se pudo correr {} para `{command}`: {e}; corre `cargo run -p grader --features herramientas --{}` en la carpeta del kit",
                Path::new(&cargo).display(),
                shown_arguments()
            );
            ExitCode::from(2)
        }
    }
}

/// This process's arguments as a person would type them after `--` in a
/// shell (each with a space before it; in single quotes when it holds
/// anything but letters, digits and `_ . / = : , @ % + -`).
fn shown_arguments() -> String {
    std::env::args_os()
        .skip(1)
        .map(|a| format!(" {}", shell_word(&a.to_string_lossy())))
        .collect()
}

/// `word` as one shell word.
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./=:,@%+-".contains(c));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `cargo run`'s arguments before `--`: quiet when the tools are current,
/// the kit's manifest, [`BINARY`], the features (`herramientas` and the
/// report features of this build), and where this judge was built: its
/// target folder, its target triple if cargo was given one, its profile
/// when it is not `dev`.
fn arguments(root: &Path, layout: &Layout, quiet: bool) -> Vec<OsString> {
    let mut args: Vec<OsString> = vec!["run".into()];
    if quiet {
        args.push("-q".into());
    }
    args.extend([
        "--manifest-path".into(),
        root.join("Cargo.toml").into_os_string(),
        "-p".into(),
        "grader".into(),
        "--bin".into(),
        BINARY.into(),
        "--features".into(),
        features().into(),
        "--target-dir".into(),
        layout.target_dir.clone().into_os_string(),
    ]);
    if let Some(triple) = &layout.triple {
        args.push("--target".into());
        args.push(triple.into());
    }
    if layout.profile != "debug" {
        args.push("--profile".into());
        args.push(layout.profile.clone().into());
    }
    args
}

/// The features of [`BINARY`]: `herramientas`, and the report features
/// this judge was built with (so that cargo compiles no third judge).
fn features() -> String {
    let report = [
        (cfg!(feature = "junit"), "junit"),
        (cfg!(feature = "curso"), "curso"),
        (cfg!(feature = "servicio"), "servicio"),
    ];
    std::iter::once("herramientas")
        .chain(
            report
                .into_iter()
                .filter(|(on, _)| *on)
                .map(|(_, name)| name),
        )
        .collect::<Vec<_>>()
        .join(",")
}

/// Where cargo built a judge: `TARGET/PROFILE/grader` or, with `--target`,
/// `TARGET/TRIPLE/PROFILE/grader`.
#[derive(Debug, PartialEq, Eq)]
struct Layout {
    /// The judge's own folder, `TARGET[/TRIPLE]/PROFILE`.
    folder: PathBuf,
    /// Cargo's target folder (the one with `CACHEDIR.TAG`).
    target_dir: PathBuf,
    /// The target triple, when cargo was given `--target`.
    triple: Option<String>,
    /// The profile's folder name: `debug` is the `dev` profile; any other
    /// is the profile's own name (`release`, …).
    profile: String,
}

/// Whether [`BINARY`] is beside the judge, and built after it.
#[derive(Debug, PartialEq, Eq, Clone, Copy)]
enum Tools {
    /// Not built yet.
    Missing,
    /// Built before this judge: the kit's sources may have changed since.
    Older,
    /// Built after this judge (cargo still checks that it is fresh).
    Current,
}

impl Layout {
    /// The layout of the judge at `exe`; `None` when it is not cargo's
    /// output (no `.fingerprint` beside it, no `CACHEDIR.TAG` one or two
    /// folders above).
    fn of(exe: &Path) -> Option<Layout> {
        let folder = exe.parent()?.to_path_buf();
        if !folder.join(".fingerprint").is_dir() {
            return None;
        }
        let profile = folder.file_name()?.to_str()?.to_string();
        let above = folder.parent()?;
        let (target_dir, triple) = if above.join("CACHEDIR.TAG").is_file() {
            (above.to_path_buf(), None)
        } else {
            let target_dir = above.parent()?;
            if !target_dir.join("CACHEDIR.TAG").is_file() {
                return None;
            }
            let triple = above.file_name()?.to_str()?.to_string();
            (target_dir.to_path_buf(), Some(triple))
        };
        Some(Layout {
            folder,
            target_dir,
            triple,
            profile,
        })
    }

    /// The state of [`BINARY`] beside the running judge.
    fn tools(&self) -> Tools {
        let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
        let tools = self
            .folder
            .join(format!("{BINARY}{}", std::env::consts::EXE_SUFFIX));
        let judge = std::env::current_exe().ok();
        match (modified(&tools), judge.as_deref().and_then(modified)) {
            (None, _) => Tools::Missing,
            (Some(t), Some(j)) if t < j => Tools::Older,
            _ => Tools::Current,
        }
    }
}

#[cfg(unix)]
fn start(mut cargo_run: Command) -> std::io::Result<ExitCode> {
    use std::os::unix::process::CommandExt;
    // Only returns when cargo could not be started.
    Err(cargo_run.exec())
}

#[cfg(not(unix))]
fn start(mut cargo_run: Command) -> std::io::Result<ExitCode> {
    Ok(cli::exit_code_of(cargo_run.status()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A target folder at `dir` (cargo's tag) with the judge's folder
    /// `sub` in it; the judge's path.
    fn built(dir: &Path, sub: &str) -> PathBuf {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(
            dir.join("CACHEDIR.TAG"),
            "Signature: 8a477f597d28d172789f06886806bc55",
        )
        .unwrap();
        let folder = dir.join(sub);
        std::fs::create_dir_all(folder.join(".fingerprint")).unwrap();
        folder.join("grader")
    }

    #[test]
    fn the_layout_is_where_cargo_built_the_judge() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("target");
        let layout = |sub: &str| Layout::of(&built(&target, sub)).unwrap();
        let dev = layout("debug");
        assert_eq!((dev.triple, dev.profile.as_str()), (None, "debug"));
        assert_eq!(
            (dev.folder, dev.target_dir),
            (target.join("debug"), target.clone())
        );
        let release = layout("release");
        assert_eq!(release.profile, "release");
        let cross = layout("x86_64-pc-windows-gnu/perfilado");
        assert_eq!(cross.triple.as_deref(), Some("x86_64-pc-windows-gnu"));
        assert_eq!(
            (cross.profile.as_str(), cross.target_dir),
            ("perfilado", target.clone())
        );
        // Not cargo's: no fingerprints beside it, or no target folder above.
        let bin = tmp.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        assert_eq!(Layout::of(&bin.join("grader")), None);
        let loose = tmp.path().join("a/b/debug");
        std::fs::create_dir_all(loose.join(".fingerprint")).unwrap();
        assert_eq!(Layout::of(&loose.join("grader")), None);
    }

    #[test]
    fn cargo_runs_the_judge_with_the_tools_where_this_one_was_built() {
        let tmp = tempfile::tempdir().unwrap();
        let target = tmp.path().join("t");
        let root = Path::new("kit");
        // The grader's tests build it with every feature (its
        // dev-dependency on itself).
        let features = features();
        assert_eq!(features, "herramientas,junit,curso,servicio");
        let manifest = root.join("Cargo.toml");
        let want: Vec<OsString> = [
            "--manifest-path".as_ref(),
            manifest.as_os_str(),
            "-p".as_ref(),
            "grader".as_ref(),
            "--bin".as_ref(),
            "grader-herramientas".as_ref(),
            "--features".as_ref(),
            features.as_ref(),
            "--target-dir".as_ref(),
            target.as_os_str(),
        ]
        .into_iter()
        .map(OsString::from)
        .collect();
        let dev = Layout::of(&built(&target, "debug")).unwrap();
        let first = arguments(root, &dev, false);
        assert_eq!(first[0], "run");
        assert_eq!(first[1..], want[..]);
        let quiet = arguments(root, &dev, true);
        assert_eq!(quiet[..2], ["run", "-q"]);
        assert_eq!(quiet[2..], want[..]);
        let cross = Layout::of(&built(&target, "aarch64-apple-darwin/release")).unwrap();
        let cross = arguments(root, &cross, true);
        assert_eq!(cross[2..2 + want.len()], want[..]);
        assert_eq!(
            cross[2 + want.len()..],
            ["--target", "aarch64-apple-darwin", "--profile", "release"]
        );
    }

    #[test]
    fn the_command_by_hand_quotes_what_a_shell_would_change() {
        assert_eq!(shell_word("escenario"), "escenario");
        assert_eq!(shell_word("--svg=b.svg"), "--svg=b.svg");
        assert_eq!(shell_word("a;b"), "'a;b'");
        assert_eq!(shell_word("x*"), "'x*'");
        assert_eq!(shell_word("it's"), "'it'\\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
