//! The judge's own folders in `$TMPDIR`, each under a fresh random name made
//! with `mkdir` (never reused, never an existing path: nothing planted in
//! the temporary folder is written through): `kit-harness-bin-PID-…` (the
//! private copy of the harness) or `kit-harness-PID-…` (the sandbox's
//! scratch folders). [`crate::runner::cleanup`] removes them on every way
//! out ([`remove_all`]), and those of a judge that died without it.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Name prefix of the private copies of the harness.
pub const COPY_PREFIX: &str = "kit-harness-bin-";
/// Name prefix of the sandbox's scratch folders.
pub const SCRATCH_PREFIX: &str = "kit-harness-";

/// Folders of this judge to remove on the way out.
static FOLDERS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// A fresh folder of this judge in `$TMPDIR`, named `PREFIX` + the judge's
/// pid + a random tail, mode `mode` (unix; on Windows the user's own
/// temporary folder keeps it the user's); removed by [`remove_all`] (the judge's shutdown), or
/// before by [`remove_folder`].
///
/// # Errors
/// When no such folder can be made.
pub fn new_folder(prefix: &str, mode: u32) -> std::io::Result<PathBuf> {
    let prefix = format!("{prefix}{}-", std::process::id());
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix);
    #[cfg(unix)]
    builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700));
    let path = builder.tempdir_in(std::env::temp_dir())?.keep();
    lock(&FOLDERS).push(path.clone());
    // Made 0700; then exactly `mode`, whatever the umask.
    #[cfg(unix)]
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(mode))?;
    #[cfg(not(unix))]
    let _ = mode;
    Ok(path)
}

/// Removes `path` (made by [`new_folder`]) now.
pub fn remove_folder(path: &Path) {
    let _ = std::fs::remove_dir_all(path);
    lock(&FOLDERS).retain(|p| p != path);
}

/// Removes every folder this judge made and has not removed yet.
pub fn remove_all() {
    for path in std::mem::take(&mut *lock(&FOLDERS)) {
        let _ = std::fs::remove_dir_all(path);
    }
}

/// The judge's pid in the name of one of its folders
/// (`kit-harness-bin-PID-…`, `kit-harness-PID-…`, or an older judge's
/// `kit-harness-bin-PID`).
pub fn judge_pid(name: &str) -> Option<i32> {
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
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&a).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o711);
        }
        remove_folder(&a);
        remove_folder(&b);
        assert!(!a.exists() && !b.exists());
    }
}
