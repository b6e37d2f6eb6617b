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
/// [`judge::paths::repo_root`], in the profile this judge was built in.
/// The first time (no [`BINARY`] beside this judge yet) one line on stderr
/// says why cargo compiles, and cargo shows what it compiles; afterwards it
/// runs quiet. On Unix the judge becomes that `cargo` (`exec`): the exit
/// status, the terminal and the signals are the command's own. Elsewhere it
/// waits for it and returns its exit status. `command` names the
/// subcommand, for the messages.
///
/// # Errors
/// Exit status 2, explained on stderr with the command to run by hand,
/// when this judge is not where cargo builds (a copy elsewhere) or cargo
/// cannot be started.
pub fn run_with_tools(command: &str) -> ExitCode {
    let by_hand = format!(
        "cargo run -p grader --features herramientas --{}",
        shown_arguments()
    );
    let Some((folder, profile)) = std::env::current_exe().ok().and_then(|exe| built_in(&exe))
    else {
        eprintln!(
            "grader: `{command}` necesita el juez con las herramientas (`--features herramientas`) y este no está donde cargo lo compila; corre `{by_hand}` en la carpeta del kit"
        );
        return ExitCode::from(2);
    };
    let first = !folder
        .join(format!("{BINARY}{}", std::env::consts::EXE_SUFFIX))
        .is_file();
    let root = judge::paths::repo_root();
    let cargo = std::env::var_os("CARGO")
        .filter(|c| !c.is_empty())
        .unwrap_or_else(|| OsString::from("cargo"));
    let mut cargo_run = Command::new(&cargo);
    cargo_run
        .args(arguments(&root, &profile, !first))
        .arg("--")
        .args(std::env::args_os().skip(1))
        .env_remove("CARGO_MANIFEST_DIR");
    if first {
        eprintln!(
            "grader: `{command}` usa herramientas que el informe no necesita; cargo las compila esta primera vez (`--features herramientas`, menos de 10 s) y quedan listas"
        );
    }
    match start(cargo_run) {
        Ok(code) => code,
        Err(e) => {
            eprintln!(
                "grader: no se pudo correr {} para `{command}`: {e}; corre `{by_hand}` en la carpeta del kit",
                Path::new(&cargo).display()
            );
            ExitCode::from(2)
        }
    }
}

/// This process's arguments as a person would type them after `--` (each
/// with a space before it; quoted when it holds a space or a quote).
fn shown_arguments() -> String {
    std::env::args_os()
        .skip(1)
        .map(|a| {
            let a = a.to_string_lossy().into_owned();
            if a.is_empty() || a.contains([' ', '"', '\'']) {
                format!(" '{}'", a.replace('\'', "'\\''"))
            } else {
                format!(" {a}")
            }
        })
        .collect()
}

/// `cargo run`'s arguments before `--`: quiet unless it is the first time,
/// the kit's manifest, [`BINARY`], the features (`herramientas` and the
/// report features of this build) and the profile when it is not `dev`.
fn arguments(root: &Path, profile: &Profile, quiet: bool) -> Vec<OsString> {
    let mut features = vec!["herramientas"];
    for (on, name) in [
        (cfg!(feature = "junit"), "junit"),
        (cfg!(feature = "curso"), "curso"),
        (cfg!(feature = "servicio"), "servicio"),
    ] {
        if on {
            features.push(name);
        }
    }
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
        features.join(",").into(),
    ]);
    match profile {
        Profile::Dev => {}
        Profile::Named(name) => {
            args.push("--profile".into());
            args.push(name.into());
        }
    }
    args
}

/// The cargo profile a judge was built in.
#[derive(Debug, PartialEq, Eq)]
enum Profile {
    /// `dev`, built into `target/debug`.
    Dev,
    /// Any other (`release` included), built into `target/NAME`.
    Named(String),
}

/// The folder cargo built the judge at `exe` into and its profile
/// (`…/target/debug/grader`, `…/target/release/grader`,
/// `…/target/TRIPLE/PROFILE/grader`); `None` when it is not cargo's
/// output (no `.fingerprint` beside it).
fn built_in(exe: &Path) -> Option<(PathBuf, Profile)> {
    let folder: PathBuf = exe.parent()?.to_path_buf();
    if !folder.join(".fingerprint").is_dir() {
        return None;
    }
    let name = folder.file_name()?.to_str()?;
    let profile = if name == "debug" {
        Profile::Dev
    } else {
        Profile::Named(name.to_string())
    };
    Some((folder, profile))
}

#[cfg(unix)]
fn start(mut cargo_run: Command) -> std::io::Result<ExitCode> {
    use std::os::unix::process::CommandExt;
    // Only returns when cargo could not be started.
    Err(cargo_run.exec())
}

#[cfg(not(unix))]
fn start(mut cargo_run: Command) -> std::io::Result<ExitCode> {
    let status = cargo_run.status()?;
    Ok(status
        .code()
        .and_then(|c| u8::try_from(c).ok())
        .map_or(ExitCode::FAILURE, ExitCode::from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_profile_is_the_folder_cargo_built_the_judge_in() {
        let tmp = tempfile::tempdir().unwrap();
        for (folder, want) in [
            ("target/debug", Some(Profile::Dev)),
            ("target/release", Some(Profile::Named("release".into()))),
            (
                "target/x86_64-pc-windows-gnu/perfilado",
                Some(Profile::Named("perfilado".into())),
            ),
            ("bin", None),
        ] {
            let dir = tmp.path().join(folder);
            std::fs::create_dir_all(&dir).unwrap();
            if want.is_some() {
                std::fs::create_dir_all(dir.join(".fingerprint")).unwrap();
            }
            let got = built_in(&dir.join("grader"));
            assert_eq!(got.as_ref().map(|(_, p)| p), want.as_ref(), "{folder}");
            if let Some((f, _)) = got {
                assert_eq!(f, dir);
            }
        }
    }

    #[test]
    fn cargo_runs_the_judge_with_the_tools_with_this_builds_features_and_profile() {
        let root = Path::new("kit");
        let mut features = "herramientas".to_string();
        for (on, name) in [
            (cfg!(feature = "junit"), ",junit"),
            (cfg!(feature = "curso"), ",curso"),
            (cfg!(feature = "servicio"), ",servicio"),
        ] {
            if on {
                features.push_str(name);
            }
        }
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
        ]
        .into_iter()
        .map(OsString::from)
        .collect();
        let first = arguments(root, &Profile::Dev, false);
        assert_eq!(first[0], "run");
        assert_eq!(first[1..], want[..]);
        let quiet = arguments(root, &Profile::Dev, true);
        assert_eq!(quiet[..2], ["run", "-q"]);
        assert_eq!(quiet[2..], want[..]);
        let release = arguments(root, &Profile::Named("release".into()), true);
        assert_eq!(release[2..2 + want.len()], want[..]);
        assert_eq!(release[2 + want.len()..], ["--profile", "release"]);
    }
}
