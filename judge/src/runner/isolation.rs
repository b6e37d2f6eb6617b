//! Where a harness process runs: confined or plain.
//!
//! - **Confined** (Linux): resource limits (memory, file size, CPU time),
//!   SIGKILL when the judge dies and, when the judge runs as root, the
//!   sandbox (`runner::sandbox`, Linux only: a user of its own, the run's
//!   empty network namespace, a scratch folder). This is what makes an
//!   instructor's grade trustworthy.
//! - **Plain** (macOS, Windows; on Linux with [`PLAIN_ENV`]`=1`): a child
//!   process of the judge like any other, with the same time limits and
//!   nothing else: the judge's deadline per job, then a kill that reaches
//!   it (`Child::kill`, and on unix its whole process group). No memory,
//!   file or CPU limits, no other user. One line on stderr says so
//!   ([`notice`]); the reports are the same byte for byte (the limits only
//!   ever decide what misbehaving code dies of).
//!
//! Both keep what the judge's own exit needs: the harness leads a process
//! group of its own (unix: `process_group(0)`; Windows:
//! `CREATE_NEW_PROCESS_GROUP`, so Ctrl-C reaches the judge and not the
//! harness, as on unix) and is tracked by [`super::cleanup`].

use std::process::Command;

#[cfg(target_os = "linux")]
use super::sandbox::{self, Sandbox};

/// The variable that forces the plain mode on Linux (`1`), where the
/// confined mode is the default: to run the student's path as macOS and
/// Windows run it (CI, `.ci/run`). Read from the judge's own environment,
/// which student code never sets. As root it runs the student's code as
/// root: never for grading.
pub const PLAIN_ENV: &str = "KIT_SIN_SANDBOX";

/// How the harness processes of a run are isolated (see the module).
#[derive(Clone, Copy, Debug)]
pub enum Isolation {
    /// Limits and the parent-death signal; with the sandbox when the judge
    /// runs as root.
    #[cfg(target_os = "linux")]
    Confined(Option<&'static Sandbox>),
    /// A plain child process.
    Plain,
}

/// The resource limits of a confined harness process (for explaining its
/// death).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Its address space, in bytes.
    pub memory_bytes: u64,
    /// The largest file it may write, in bytes.
    pub file_bytes: u64,
}

/// What one harness process holds of its isolation, given back when it
/// ends: its sandbox cell (Linux, as root).
#[cfg(target_os = "linux")]
pub type Cell = sandbox::Cell;

/// Without the sandbox (outside Linux) no harness process holds anything:
/// this type has no values.
#[cfg(not(target_os = "linux"))]
#[derive(Clone, Debug)]
pub enum Cell {}

/// Whether this judge's harness processes run in the sandbox (another user,
/// namespaces): only on Linux, as root, once [`Isolation::detect`] made it.
pub fn sandboxed() -> bool {
    #[cfg(target_os = "linux")]
    return Sandbox::existing().is_some();
    #[cfg(not(target_os = "linux"))]
    false
}

/// Whether [`PLAIN_ENV`] is set to `1`.
pub fn plain_forced() -> bool {
    std::env::var(PLAIN_ENV).is_ok_and(|v| v == "1")
}

/// Why this judge runs its harness processes plain, for [`notice`].
fn plain_reason() -> &'static str {
    if cfg!(target_os = "linux") {
        "KIT_SIN_SANDBOX=1"
    } else if cfg!(target_os = "macos") {
        "macOS"
    } else if cfg!(windows) {
        "Windows"
    } else {
        "este sistema"
    }
}

/// The one line on stderr of a judge that runs its harness processes plain.
pub fn notice() -> String {
    format!(
        "grader: sin sandbox ({}): tu código corre como un proceso hijo común, con los mismos límites de tiempo y sin los de memoria, archivos ni otro usuario; el informe es el mismo.",
        plain_reason()
    )
}

impl Isolation {
    /// This judge's isolation: confined on Linux (with the sandbox as
    /// root, `Sandbox::detect`) unless [`PLAIN_ENV`] says otherwise; plain
    /// elsewhere, which prints [`notice`] on stderr once per process.
    ///
    /// # Errors
    /// As root on Linux, when the sandbox cannot be made
    /// (`Sandbox::detect`): the judge then refuses to run student code.
    pub fn detect() -> Result<Isolation, String> {
        match Isolation::unsandboxed() {
            #[cfg(target_os = "linux")]
            Isolation::Confined(_) => Sandbox::detect().map(Isolation::Confined),
            Isolation::Plain => {
                static NOTICE: std::sync::Once = std::sync::Once::new();
                NOTICE.call_once(|| eprintln!("{}", notice()));
                Ok(Isolation::Plain)
            }
        }
    }

    /// This system's isolation without the sandbox's users, whoever runs
    /// the judge: confined with the limits alone on Linux (what a judge
    /// that is not root gets), plain elsewhere or with [`PLAIN_ENV`]`=1`
    /// (without [`notice`]). For the kit's tests, and for `curso`, whose
    /// runs share the sandbox (a run's end must not kill the others'
    /// processes).
    pub fn unsandboxed() -> Isolation {
        #[cfg(target_os = "linux")]
        if !plain_forced() {
            return Isolation::Confined(None);
        }
        Isolation::Plain
    }

    /// The resource limits of its harness processes (none when plain).
    pub fn limits(&self) -> Option<Limits> {
        match self {
            #[cfg(target_os = "linux")]
            Isolation::Confined(_) => Some(Limits {
                memory_bytes: sandbox::MEMORY_BYTES,
                file_bytes: sandbox::FILE_BYTES,
            }),
            Isolation::Plain => None,
        }
    }

    /// Makes `cmd` (a harness process, its pipes set) start as this
    /// isolation wants: in a process group of its own and, confined, with
    /// the limits (at most `cpu_seconds` of CPU time) and, with the
    /// sandbox, a cell of it, which the caller gives back with
    /// [`Isolation::release`].
    ///
    /// # Errors
    /// When the sandbox has no cell to give.
    pub fn prepare(&self, cmd: &mut Command, cpu_seconds: u64) -> std::io::Result<Option<Cell>> {
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(cmd, 0);
        #[cfg(windows)]
        {
            use std::os::windows::process::CommandExt;
            cmd.creation_flags(windows_sys::Win32::System::Threading::CREATE_NEW_PROCESS_GROUP);
            // Windows loads its system libraries from there: no program
            // starts without it (it is no secret of the judge's).
            if let Some(root) = std::env::var_os("SystemRoot") {
                cmd.env("SystemRoot", root);
            }
        }
        match self {
            #[cfg(target_os = "linux")]
            Isolation::Confined(sandbox) => {
                let cell = sandbox.map(Sandbox::acquire).transpose()?;
                if let Some(c) = &cell {
                    cmd.current_dir(&c.scratch);
                }
                let confined = cell.clone();
                // SAFETY: `confine` only makes async-signal-safe system
                // calls (setrlimit, setns, setgroups, setgid, setuid,
                // prctl) between fork and exec, and allocates nothing.
                unsafe {
                    std::os::unix::process::CommandExt::pre_exec(cmd, move || {
                        sandbox::confine(confined.as_ref(), cpu_seconds)
                    });
                }
                Ok(cell)
            }
            Isolation::Plain => {
                // No CPU limit: the judge's deadline stops the process.
                let _ = cpu_seconds;
                Ok(None)
            }
        }
    }

    /// Gives back what [`Isolation::prepare`] gave a harness process, once
    /// it has ended: its user's processes killed, its scratch folder
    /// removed.
    pub fn release(&self, cell: Option<&Cell>) {
        match (self, cell) {
            #[cfg(target_os = "linux")]
            (Isolation::Confined(Some(sandbox)), Some(cell)) => sandbox.release(cell),
            #[cfg(not(target_os = "linux"))]
            (_, Some(cell)) => match *cell {},
            _ => {}
        }
    }

    /// At the end of a run: kills what the run's harness processes left
    /// running under the sandbox's users (`Sandbox::kill_leftovers`).
    pub fn finish(&self) {
        #[cfg(target_os = "linux")]
        if let Isolation::Confined(Some(sandbox)) = self {
            sandbox.kill_leftovers();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_notice_is_one_line_naming_why() {
        let line = notice();
        assert!(!line.contains('\n'), "{line}");
        assert!(line.starts_with("grader: sin sandbox ("), "{line}");
        #[cfg(target_os = "linux")]
        assert!(line.contains("(KIT_SIN_SANDBOX=1)"), "{line}");
        assert!(
            line.ends_with("con los mismos límites de tiempo y sin los de memoria, archivos ni otro usuario; el informe es el mismo."),
            "{line}"
        );
    }

    #[test]
    fn plain_has_no_limits_and_confined_has_the_sandboxs() {
        assert_eq!(Isolation::Plain.limits(), None);
        #[cfg(target_os = "linux")]
        {
            let limits = Isolation::Confined(None).limits().unwrap();
            assert_eq!(limits.memory_bytes, 2 << 30);
            assert_eq!(limits.file_bytes, 64 << 20);
        }
        // Outside Linux, or forced, there is nothing else.
        if !cfg!(target_os = "linux") || plain_forced() {
            assert!(matches!(Isolation::unsandboxed(), Isolation::Plain));
        }
    }
}
