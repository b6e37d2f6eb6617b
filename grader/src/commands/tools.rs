//! The student's tools in a judge built without them (issue 26): a first
//! `cargo run -p grader` compiles only what the report needs, so
//! `vigilar`, `escenario` and `barrido` (behind the `herramientas` feature:
//! file events, the terminal, insta snapshots and diffs, the SVG chart) run
//! the same command line again with `cargo run -p grader --features
//! herramientas`. Cargo compiles their crates the first time (a few seconds)
//! and keeps both builds side by side: going back to the report compiles
//! nothing.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Set in the environment of the judge this module starts: a judge that
/// still lacks the tools then says so instead of starting another.
const AGAIN: &str = "KIT_HERRAMIENTAS_REINTENTO";

/// Runs this process's command line again in a judge built with the
/// `herramientas` feature (and the report features this one has), through
/// `cargo run` in the kit at [`judge::paths::repo_root`], in the profile
/// this judge was built in. `command` names the subcommand, for the
/// messages. On Unix the judge becomes that `cargo` (`exec`): its exit
/// status, its terminal and its signals are the command's own. Elsewhere it
/// waits for it and returns its exit status.
///
/// Never returns on Unix when `exec` succeeds.
///
/// # Errors
/// Exit status 2, explained on stderr, when cargo cannot be started, when
/// this judge is not where cargo builds (a copy elsewhere: the message
/// gives the command to run) or when the judge started that way still
/// lacks the tools.
pub fn run_with_tools(command: &str) -> ExitCode {
    let by_hand = format!("cargo run -p grader --features herramientas -- {command}");
    if std::env::var_os(AGAIN).is_some() {
        eprintln!(
            "grader: `{command}` necesita un juez compilado con el feature `herramientas` y este no lo tiene aunque se pidió; corre `{by_hand}`"
        );
        return ExitCode::from(2);
    }
    let Some(profile) = std::env::current_exe()
        .ok()
        .and_then(|exe| profile_of(&exe))
    else {
        eprintln!(
            "grader: `{command}` necesita un juez compilado con el feature `herramientas`; corre `{by_hand}`"
        );
        return ExitCode::from(2);
    };
    let root = judge::paths::repo_root();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut cargo_run = Command::new(&cargo);
    cargo_run
        .args(arguments(&root, &profile))
        .arg("--")
        .args(std::env::args_os().skip(1))
        .env(AGAIN, "1")
        .env_remove("CARGO_MANIFEST_DIR");
    eprintln!(
        "grader: `{command}` usa herramientas que el primer informe no compila; las pide a cargo (`--features herramientas`: compila unos segundos la primera vez)"
    );
    let started = start(cargo_run);
    match started {
        Ok(code) => code,
        Err(e) => {
            eprintln!(
                "grader: no se pudo correr {} para `{command}`: {e}; corre `{by_hand}`",
                Path::new(&cargo).display()
            );
            ExitCode::from(2)
        }
    }
}

/// `cargo run`'s arguments before `--`: the kit's manifest, the judge's
/// package, the features (`herramientas` and those of this build), the
/// profile when it is not `dev`. Not quiet: the first time, cargo shows
/// what it compiles.
fn arguments(root: &Path, profile: &Profile) -> Vec<OsString> {
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
    let mut args: Vec<OsString> = vec![
        "run".into(),
        "--manifest-path".into(),
        root.join("Cargo.toml").into_os_string(),
        "-p".into(),
        "grader".into(),
        "--features".into(),
        features.join(",").into(),
    ];
    match profile {
        Profile::Dev => {}
        Profile::Named(name) => {
            args.push("--profile".into());
            args.push(name.into());
        }
    }
    args
}

/// The cargo profile a judge at some path was built in.
#[derive(Debug, PartialEq, Eq)]
enum Profile {
    /// `dev`, built into `target/debug`.
    Dev,
    /// Any other (`release` included), built into `target/NAME`.
    Named(String),
}

/// The profile of the judge at `exe`, from the folder cargo put it in
/// (`…/target/debug/grader`, `…/target/release/grader`,
/// `…/target/TRIPLE/PROFILE/grader`); `None` when it is not cargo's
/// output (no `.fingerprint` beside it).
fn profile_of(exe: &Path) -> Option<Profile> {
    let folder: PathBuf = exe.parent()?.to_path_buf();
    if !folder.join(".fingerprint").is_dir() {
        return None;
    }
    let name = folder.file_name()?.to_str()?;
    Some(if name == "debug" {
        Profile::Dev
    } else {
        Profile::Named(name.to_string())
    })
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
            assert_eq!(profile_of(&dir.join("grader")), want, "{folder}");
        }
    }

    #[test]
    fn cargo_run_asks_for_the_tools_the_features_of_this_build_and_its_profile() {
        let root = Path::new("/kit");
        let dev = arguments(root, &Profile::Dev);
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
            "run".as_ref(),
            "--manifest-path".as_ref(),
            manifest.as_os_str(),
            "-p".as_ref(),
            "grader".as_ref(),
            "--features".as_ref(),
            features.as_ref(),
        ]
        .into_iter()
        .map(OsString::from)
        .collect();
        assert_eq!(dev, want);
        let release = arguments(root, &Profile::Named("release".into()));
        assert_eq!(&release[..want.len()], &want[..]);
        assert_eq!(&release[want.len()..], ["--profile", "release"]);
    }
}
