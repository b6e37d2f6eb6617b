//! The process tree from `/proc` (Linux): what a process the judge started
//! left behind, even outside its process group (a session of its own, a
//! daemon's double fork). A command that starts such processes (`servicio`:
//! the student's service) makes the judge their subreaper
//! ([`become_subreaper`]), so what they leave is handed to the judge, not
//! to init: [`super::cleanup::sweep_orphans`] stops it when the service stops, and
//! [`super::cleanup::shutdown`] on every way out (Ctrl-C included).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

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
        if let Some(ppid) = stat_field(pid, PPID) {
            map.insert(pid, ppid);
        }
    }
    map
}

/// The parent's pid: field 1 of `/proc/<pid>/stat` after the name.
const PPID: usize = 1;
/// The process group: field 2 after the name.
const PGRP: usize = 2;

/// Field `n` of `/proc/<pid>/stat` after the name (`pid (comm) state ppid
/// pgrp …`: the name may hold spaces and ')'); `None` once it is gone.
fn stat_field(pid: i32, n: usize) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(n)?
        .parse()
        .ok()
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
/// other than `tracked`, the processes it started itself and still runs,
/// and the members of their groups, and all they started), until none is left for three looks in a row (at
/// most ~1 s).
///
/// Each look reads only the judge's own children (`/proc/self/task/*/
/// children`, microseconds) and kills them at once: what they started is
/// handed to the judge when they die and is killed at the next look. A
/// process that forks and exits every few milliseconds (a "hopper") cannot
/// outrun that; it did outrun whole `/proc` scans (1 run in 5). Where the
/// kernel has no such file, the whole process table is read instead.
pub(super) fn sweep(tracked: &[i32]) {
    let me = std::process::id() as i32;
    let started = Instant::now();
    let mut quiet = 0;
    while started.elapsed() < Duration::from_secs(1) {
        let adopted: Vec<i32> = match own_children() {
            Some(children) => children,
            None => parents()
                .iter()
                .filter(|&(_, &ppid)| ppid == me)
                .map(|(&pid, _)| pid)
                .collect(),
        }
        .into_iter()
        // Neither a tracked process nor a member of its group (a service
        // in its grace after SIGTERM, adopted when the shell that led its
        // group died first).
        .filter(|pid| {
            !tracked.contains(pid) && !stat_field(*pid, PGRP).is_some_and(|g| tracked.contains(&g))
        })
        .collect();
        if adopted.is_empty() {
            quiet += 1;
            if quiet == 3 {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
            continue;
        }
        quiet = 0;
        for &pid in &adopted {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        for &pid in &adopted {
            let _ = waitpid(Pid::from_raw(pid), Some(WaitPidFlag::WNOHANG));
        }
    }
}

/// The judge's children (of every thread, zombies included), from
/// `/proc/self/task/TID/children`; `None` where the kernel does not have
/// that file.
fn own_children() -> Option<Vec<i32>> {
    let mut children = Vec::new();
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let text = std::fs::read_to_string(task.path().join("children")).ok()?;
        children.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    Some(children)
}

/// At the judge's end, when it is a subreaper: every descendant, killed.
pub(super) fn kill_descendants() {
    if SUBREAPER.load(Ordering::SeqCst) {
        signal(&descendants(std::process::id() as i32), Signal::SIGKILL);
    }
}
