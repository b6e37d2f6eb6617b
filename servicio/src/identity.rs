//! Who a run's services run as. On Linux, when the kit runs as root (an
//! instructor's CI, Gradescope), the student's command never runs as root:
//! every instance of one run runs as the same unprivileged user of the
//! judge's sandbox ([`judge::runner::sandbox`]), with an empty folder of
//! that user's as `HOME` (its `DATA_DIR`s and `CARGO_TARGET_DIR` inside
//! it), a `PATH` without the folders that user cannot enter, on the
//! judge's network (the processor is on loopback), with a limit on its
//! processes ([`judge::runner::sandbox::SERVICE_PROCESSES`]). At the run's
//! end every process of that user is killed and the folder removed.
//! Not root (a student's laptop), with `KIT_SIN_SANDBOX=1`, or outside
//! Linux, the command runs as the kit's own user.

use std::path::{Path, PathBuf};
use std::process::Command;

#[cfg(target_os = "linux")]
use judge::runner::sandbox::{Cell, Sandbox};

/// The identity of one run's services; given back when dropped.
pub struct Identity {
    /// The sandbox and the cell (user and folder) the services run as.
    #[cfg(target_os = "linux")]
    held: Option<(&'static Sandbox, Cell)>,
}

impl Identity {
    /// The sandbox's user when the kit runs as root on Linux (unless
    /// `KIT_SIN_SANDBOX=1`), the kit's own otherwise.
    ///
    /// # Errors
    /// As root, when the sandbox or its folder cannot be made: the kit then
    /// refuses to run the student's command as root.
    pub fn detect() -> Result<Identity, String> {
        #[cfg(target_os = "linux")]
        {
            if judge::runner::isolation::plain_forced() {
                return Ok(Identity { held: None });
            }
            let held = match Sandbox::detect()? {
                Some(sandbox) => {
                    let cell = sandbox.acquire().map_err(|e| {
                        format!(
                            "no se pudo preparar el usuario sin privilegios del sandbox: {e}; el kit no corre tu servicio como root"
                        )
                    })?;
                    Some((sandbox, cell))
                }
                None => None,
            };
            Ok(Identity { held })
        }
        #[cfg(not(target_os = "linux"))]
        Ok(Identity {})
    }

    /// The user id the services run as, when it is the sandbox's.
    pub fn sandbox_uid(&self) -> Option<u32> {
        #[cfg(target_os = "linux")]
        return self.held.as_ref().map(|(_, c)| c.uid.as_raw());
        #[cfg(not(target_os = "linux"))]
        None
    }

    /// Makes a fresh `DATA_DIR` named `name`: in the sandbox user's folder,
    /// owned by that user; otherwise in `fallback`.
    ///
    /// # Errors
    /// The folder cannot be made, in Spanish.
    pub fn data_dir(&self, fallback: &Path, name: &str) -> Result<PathBuf, String> {
        #[cfg(target_os = "linux")]
        if let Some((_, cell)) = &self.held {
            let dir = cell.scratch.join(name);
            std::fs::create_dir_all(&dir)
                .and_then(|()| {
                    nix::unistd::chown(&dir, Some(cell.uid), Some(cell.gid))
                        .map_err(std::io::Error::from)
                })
                .map_err(|e| format!("no se pudo crear {}: {e}", dir.display()))?;
            return Ok(dir);
        }
        let dir = fallback.join(name);
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("no se pudo crear {}: {e}", dir.display()))?;
        Ok(dir)
    }

    /// Makes `command` start as this identity: with the sandbox, as its
    /// user, with `HOME` its folder and its limits
    /// ([`judge::runner::sandbox::confine_service`]).
    pub fn prepare(&self, command: &mut Command) {
        #[cfg(target_os = "linux")]
        if let Some((_, cell)) = &self.held {
            command
                .env("HOME", &cell.scratch)
                // Where `cargo run` can write (the command's folder may be
                // root's), whatever the kit's own is.
                .env("CARGO_TARGET_DIR", cell.scratch.join("target"));
            if let Some(path) = std::env::var_os("PATH") {
                command.env("PATH", reachable(&path));
            }
            let cell = cell.clone();
            // SAFETY: `confine_service` only makes async-signal-safe
            // system calls (setrlimit, open/write of /proc/self, setgroups,
            // setgid, setuid, prctl) between fork and exec.
            unsafe {
                std::os::unix::process::CommandExt::pre_exec(command, move || {
                    judge::runner::sandbox::confine_service(&cell)
                });
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = command;
    }

    /// One Spanish line for a service that did not start: who its command
    /// ran as, when that is not the kit's own user.
    pub fn said(&self) -> Option<String> {
        #[cfg(target_os = "linux")]
        return self.sandbox_uid().map(|uid| {
            format!(
                "(tu comando corrió como el usuario sin privilegios {uid} del sandbox del kit, no como root, con HOME y DATA_DIR en una carpeta de ese usuario, el PATH sin las carpetas que ese usuario no puede abrir y a lo sumo {} procesos)",
                judge::runner::sandbox::SERVICE_PROCESSES
            )
        });
        #[cfg(not(target_os = "linux"))]
        None
    }
}

/// The folders of `path` (a `PATH`) that any user may enter, every
/// folder above them included: a program the sandbox's user cannot reach
/// (root's `/root/.pyenv/shims`) is then not found, instead of a
/// "Permission denied" ahead of the one it can run (`/usr/bin/python3`).
#[cfg(target_os = "linux")]
fn reachable(path: &std::ffi::OsStr) -> std::ffi::OsString {
    use std::os::unix::fs::PermissionsExt;
    let open_to_all = |dir: &Path| {
        dir.ancestors().all(|d| {
            d.as_os_str().is_empty()
                || std::fs::metadata(d)
                    .is_ok_and(|m| m.is_dir() && m.permissions().mode() & 0o001 != 0)
        })
    };
    let kept: Vec<PathBuf> = std::env::split_paths(path)
        .filter(|dir| dir.is_absolute() && open_to_all(dir))
        .collect();
    std::env::join_paths(kept).unwrap_or_default()
}

impl Drop for Identity {
    fn drop(&mut self) {
        #[cfg(target_os = "linux")]
        if let Some((sandbox, cell)) = self.held.take() {
            sandbox.release(&cell);
        }
    }
}
