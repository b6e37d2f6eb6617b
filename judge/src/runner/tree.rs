//! The process tree from `/proc` (Linux): what a process the judge started
//! left behind, even outside its process group (a session of its own, a
//! daemon's double fork). A command that starts such processes (`servicio`:
//! the student's service) makes the judge their subreaper
//! ([`become_subreaper`]), so what they leave is handed to the judge, not
//! to init: [`sweep`] stops it when the service stops, and
//! [`super::cleanup::shutdown`] on every way out (Ctrl-C included).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, waitpid};
use nix::unistd::Pid;

/// Set once the judge is a subreaper: its descendants are then all its own
/// doing, stopped at [`super::cleanup::shutdown`].
static SUBREAPER: AtomicBool = AtomicBool::new(false);

/// Makes the judge the subreaper of what its children start and leave.
pub fn become_subreaper() {
    if nix::sys::prctl::set_child_subreaper(true).is_ok() {
        SUBREAPER.store(true, Ordering::SeqCst);
    }
}

/// Every process's parent, from `/proc/<pid>/stat` (processes that end
/// while it is read are left out).
fn parents() -> HashMap<i32, i32> {
    let mut map = HashMap::new();
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return map;
    };
    for entry in dir.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid …`: the name may hold spaces and ')'.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse().ok());
        if let Some(ppid) = ppid {
            map.insert(pid, ppid);
        }
    }
    map
}

/// The descendants of `root`, `root` left out.
pub fn descendants(root: i32) -> Vec<i32> {
    let parents = parents();
    let mut found = vec![root];
    let mut i = 0;
    while i < found.len() {
        let of = found[i];
        found.extend(
            parents
                .iter()
                .filter(|&(_, &ppid)| ppid == of)
                .map(|(&pid, _)| pid),
        );
        i += 1;
    }
    found.remove(0);
    found
}

/// Sends `signal` to each of `pids` (gone ones are skipped).
pub fn signal(pids: &[i32], signal: Signal) {
    for &pid in pids {
        let _ = kill(Pid::from_raw(pid), signal);
    }
}

/// Stops and reaps what was handed to the judge as subreaper (its children
/// other than `leaders`, the processes it started itself and still runs,
/// and all they started), until none is left (at most ~1 s).
pub fn sweep(leaders: &[i32]) {
    let me = std::process::id() as i32;
    for _ in 0..50 {
        let adopted: Vec<i32> = parents()
            .iter()
            .filter(|&(pid, &ppid)| ppid == me && !leaders.contains(pid))
            .map(|(&pid, _)| pid)
            .collect();
        if adopted.is_empty() {
            return;
        }
        for &pid in &adopted {
            signal(&descendants(pid), Signal::SIGKILL);
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            let _ = waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// At the judge's end, when it is a subreaper: every descendant, killed.
pub(super) fn kill_descendants() {
    if SUBREAPER.load(Ordering::SeqCst) {
        signal(&descendants(std::process::id() as i32), Signal::SIGKILL);
    }
}
