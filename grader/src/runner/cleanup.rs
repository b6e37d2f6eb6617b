//! What a grading leaves behind, removed on every way out of the judge: the
//! harness process groups still running, every process of the sandbox's
//! users (what a harness started, even under `setsid`), the sandbox's
//! scratch folders and the private copies of the harness. [`shutdown`] runs
//! at the end of `main`, on SIGINT/SIGTERM/SIGHUP ([`on_signals`]) and on
//! `q` in `vigilar` while a grading runs. A judge that died without it
//! (SIGKILL) is cleaned after by the next one ([`remove_stale`]).
//!
//! Every folder lives in `$TMPDIR` under a fresh random name made with
//! `mkdir` (never reused, never an existing path: nothing planted in the
//! temporary folder is written through), `kit-harness-bin-PID-…` (the
//! harness copy) or `kit-harness-PID-…` (the scratch folders).

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::sandbox::{self, Sandbox};

/// Name prefix of the private copies of the harness.
pub const COPY_PREFIX: &str = "kit-harness-bin-";
/// Name prefix of the sandbox's scratch folders.
pub const SCRATCH_PREFIX: &str = "kit-harness-";

/// Process groups of the harness processes running now.
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());
/// Folders of this judge to remove on the way out.
static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
/// Set by [`shutdown`]: no harness starts any more.
static STOPPING: AtomicBool = AtomicBool::new(false);
/// The signal that is ending the judge, 0 for none.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// What the command on screen restores before the process ends on a signal
/// (`vigilar`: the terminal's normal mode).
static RESTORE: Mutex<Option<fn()>> = Mutex::new(None);

/// A fresh folder of this judge in `$TMPDIR`, named `PREFIX` + the judge's
/// pid + a random tail, mode `mode`; removed by
/// [`shutdown`] unless [`forget_folder`] is called first.
///
/// # Errors
/// When no such folder can be made.
pub fn new_folder(prefix: &str, mode: u32) -> std::io::Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let path = tempfile::Builder::new()
        .prefix(&format!("{prefix}{}-", std::process::id()))
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(std::env::temp_dir())?
        .keep();
    lock(&FOLDERS).push(path.clone());
    // Made 0700; then exactly `mode`, whatever the umask.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode))?;
    Ok(path)
}

/// Removes `path` (made by [`new_folder`]) now.
pub fn remove_folder(path: &Path) {
    let _ = std::fs::remove_dir_all(path);
    lock(&FOLDERS).retain(|p| p != path);
}

/// Records a harness process group, to kill if the judge stops first.
///
/// # Errors
/// When [`shutdown`] has begun: the harness must not start.
pub fn track_group(pid: u32) -> std::io::Result<()> {
    let mut groups = lock(&GROUPS);
    if STOPPING.load(Ordering::SeqCst) {
        return Err(std::io::Error::other("el grader se está cerrando"));
    }
    if let Ok(pid) = i32::try_from(pid) {
        groups.push(pid);
    }
    Ok(())
}

/// Forgets a harness process group that has ended.
pub fn untrack_group(pid: u32) {
    lock(&GROUPS).retain(|&g| i32::try_from(pid) != Ok(g));
}

/// Whether [`shutdown`] has begun.
pub fn stopping() -> bool {
    STOPPING.load(Ordering::SeqCst)
}

/// Kills what runs and removes what this judge made (see the module).
/// Idempotent; safe from any thread.
pub fn shutdown() {
    {
        let groups = lock(&GROUPS);
        STOPPING.store(true, Ordering::SeqCst);
        for &g in groups.iter() {
            let _ = killpg(Pid::from_raw(g), Signal::SIGKILL);
        }
    }
    if let Some(sandbox) = Sandbox::existing() {
        sandbox.kill_leftovers();
    }
    for path in std::mem::take(&mut *lock(&FOLDERS)) {
        let _ = std::fs::remove_dir_all(path);
    }
}

/// `restore` runs before the process ends on a signal (after [`shutdown`]).
pub fn on_signal_restore(restore: fn()) {
    *lock(&RESTORE) = Some(restore);
}

/// On SIGINT, SIGTERM or SIGHUP: [`shutdown`], then exit with 128 + the
/// signal, as the signal itself would have ended the process.
pub fn on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            SIGNAL.store(signal, Ordering::SeqCst);
            shutdown();
            if let Some(restore) = *lock(&RESTORE) {
                restore();
            }
            std::process::exit(128 + signal);
        }
    });
}

/// Returns at once, unless a signal is ending the judge: then never (the
/// signal's thread ends the process). For whatever would write a report or
/// an exit status: the checks that [`shutdown`] cut short must not be
/// reported as the student's failures.
pub fn unless_interrupted() {
    while SIGNAL.load(Ordering::SeqCst) != 0 {
        std::thread::park();
    }
}

/// Removes the folders of judges that are gone (their pid is not running),
/// and, as root, kills what their harnesses left running: a judge killed
/// with SIGKILL could not. Folders of other users stay where they cannot be
/// removed; a link is removed, never followed.
pub fn remove_stale() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name.to_str().and_then(judge_pid) else {
            continue;
        };
        let gone =
            nix::sys::signal::kill(Pid::from_raw(pid), None) == Err(nix::errno::Errno::ESRCH);
        if gone {
            // A scratch folder of a judge like this one (made by this user,
            // not planted by student code) means it ran harnesses as its own
            // users: what they started may still run.
            let ours = entry.metadata().is_ok_and(|m| {
                use std::os::unix::fs::MetadataExt;
                m.is_dir() && m.uid() == nix::unistd::Uid::effective().as_raw()
            });
            if ours && name.to_str().is_some_and(|n| !n.starts_with(COPY_PREFIX)) {
                sandbox::kill_users_of_dead_judge(pid.unsigned_abs());
            }
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The judge's pid in the name of one of its folders
/// (`kit-harness-bin-PID-…`, `kit-harness-PID-…`, or an older judge's
/// `kit-harness-bin-PID`).
fn judge_pid(name: &str) -> Option<i32> {
    let rest = name
        .strip_prefix(COPY_PREFIX)
        .or_else(|| name.strip_prefix(SCRATCH_PREFIX))?;
    let digits = rest.split('-').next()?;
    digits.parse().ok().filter(|&pid| pid > 0)
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pid_is_read_from_both_kinds_of_folder() {
        assert_eq!(judge_pid("kit-harness-bin-4242-Ab3xYz"), Some(4242));
        assert_eq!(judge_pid("kit-harness-bin-4242"), Some(4242));
        assert_eq!(judge_pid("kit-harness-77-q1w2e3"), Some(77));
        assert_eq!(judge_pid("kit-harness-bin--5"), None);
        assert_eq!(judge_pid("kit-harness-bin-0-x"), None);
        assert_eq!(judge_pid("kit-vigilar"), None);
        assert_eq!(judge_pid("kit-harness-x-1"), None);
    }

    #[test]
    fn a_new_folder_is_fresh_and_removed_on_request() {
        let a = new_folder("kit-harness-test-", 0o711).unwrap();
        let b = new_folder("kit-harness-test-", 0o711).unwrap();
        assert_ne!(a, b);
        assert!(a.is_dir() && b.is_dir());
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o711);
        remove_folder(&a);
        remove_folder(&b);
        assert!(!a.exists() && !b.exists());
    }
}
