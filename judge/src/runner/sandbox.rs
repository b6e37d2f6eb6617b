//! Where the harness runs when grading is for real. When the judge runs as
//! root (Gradescope, a CI container), every harness process drops to an
//! unprivileged user of its own (no name: uid 100000 plus 64 × the judge's
//! pid plus a slot, so no two runs and no two live harness processes share
//! one; `nobody` for all of them where that is not possible), enters the
//! run's own empty network namespace (made once per run, where the container
//! allows one: no interface up, not even loopback), a scratch directory of
//! its own as its only writable place, and limits on processes and file
//! size. When it ends, every process of its user is killed (what it left
//! running, even outside its process group) and its scratch folder removed.
//! Not root (a student's laptop), the same code path runs without the
//! privilege drop.
//!
//! The scratch folders live in a fresh folder of the judge's (root's, mode
//! 0711, a random name: [`cleanup::new_folder`]): a harness can empty its own
//! scratch folder but cannot replace it with a link to somewhere the judge
//! would then hand over with `chown`.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use nix::sched::CloneFlags;
use nix::sys::resource::Resource;
use nix::unistd::{Gid, Uid, User};

use super::folders;

/// Address-space limit of a harness process: 2 GiB.
pub const MEMORY_BYTES: u64 = 2 << 30;
/// The largest file a harness process may write: 64 MiB.
pub const FILE_BYTES: u64 = 64 << 20;
/// Processes one harness's user may have at once: enough for a harness,
/// not for a fork bomb.
pub const PROCESSES: u64 = 64;
/// Users of a run (harness processes alive at once, at most).
const SLOTS: u32 = 64;

/// The sandbox of this process, made on first use (see [`Sandbox::detect`]).
static SANDBOX: OnceLock<Result<Option<Sandbox>, String>> = OnceLock::new();

/// The unprivileged identities harness processes run as.
#[derive(Debug)]
pub struct Sandbox {
    /// The first user of this run, or `nobody`.
    first: (Uid, Gid),
    /// Whether each harness gets a user of its own (`first` + its slot);
    /// otherwise all share `nobody`, whose processes are killed only when
    /// the run ends (they might be another run's).
    own_users: bool,
    /// Per slot: whether it is in use, and whether it was ever used in this
    /// run (only those users can have processes to kill).
    busy: Mutex<Vec<SlotState>>,
    /// Whether a harness ran since the last [`Sandbox::kill_leftovers`].
    used: AtomicBool,
    /// The judge's folder (mode 0711) holding each harness's scratch folder.
    pub scratch_root: PathBuf,
    /// Whether a new network namespace can be made here.
    pub network_isolated: bool,
    /// The run's empty network namespace (no interface up, not even
    /// loopback), which every harness process of the run enters: making a
    /// new one per process cost milliseconds each, and as much again for
    /// the kernel to tear it down.
    network: Option<std::fs::File>,
}

/// One slot's state in [`Sandbox::busy`].
#[derive(Clone, Copy, Debug, Default)]
struct SlotState {
    /// A harness holds it now.
    busy: bool,
    /// A harness held it since the run began.
    touched: bool,
    /// Its user (one of the run's own) has no process: [`Sandbox::release`]
    /// killed them all and no harness holds it since.
    clean: bool,
}

/// What one harness process runs as: its user and group, and its scratch
/// folder (its working directory, the only place it can write).
#[derive(Clone, Debug)]
pub struct Cell {
    /// The slot (returned with [`Sandbox::release`]).
    slot: u32,
    /// The user.
    pub uid: Uid,
    /// Its group.
    pub gid: Gid,
    /// The scratch folder, owned by the user, closed to everyone else.
    pub scratch: PathBuf,
    /// Whether the process gets no network.
    pub network_isolated: bool,
    /// The run's empty network namespace to enter (see
    /// [`Sandbox::network`]), instead of making one.
    pub network: Option<std::os::fd::RawFd>,
}

impl Sandbox {
    /// The sandbox when this process runs as root, `None` otherwise (or
    /// when there is no `nobody` user). Logs once on stderr when the
    /// container forbids a network namespace.
    ///
    /// # Errors
    /// As root, when the scratch folder cannot be made: the judge then
    /// refuses to run student code rather than run it as root.
    pub fn detect() -> Result<Option<&'static Sandbox>, String> {
        match SANDBOX.get_or_init(Sandbox::make) {
            Ok(s) => Ok(s.as_ref()),
            Err(e) => Err(e.clone()),
        }
    }

    /// The sandbox, if [`Sandbox::detect`] has made one (never makes it).
    pub fn existing() -> Option<&'static Sandbox> {
        SANDBOX
            .get()
            .and_then(|s| s.as_ref().ok())
            .and_then(Option::as_ref)
    }

    fn make() -> Result<Option<Sandbox>, String> {
        if !Uid::effective().is_root() {
            return Ok(None);
        }
        // Made while the users are tried (each a process to start).
        let network = std::thread::spawn(empty_network_namespace);
        // Users of this run's own, without a name: killing one's processes
        // never touches another harness or another grading run, and the
        // process limit is one harness's. Where such a user cannot be used
        // (a user namespace that does not map it), `nobody`.
        let own = first_user_of(std::process::id())
            .filter(|&b| can_become(Uid::from_raw(b), Gid::from_raw(b)));
        let (first, own_users) = match own {
            Some(b) => ((Uid::from_raw(b), Gid::from_raw(b)), true),
            None => match User::from_name("nobody").ok().flatten() {
                Some(nobody) => ((nobody.uid, nobody.gid), false),
                None => return Ok(None),
            },
        };
        // A fresh folder of root's, under a name nobody could prepare.
        let scratch_root = folders::new_folder(folders::SCRATCH_PREFIX, 0o711).map_err(|e| {
            format!(
                "no se pudo crear la carpeta del sandbox en {}: {e}; el grader no corre código del estudiante como root sin ella",
                std::env::temp_dir().display()
            )
        })?;
        let network = network.join().ok().flatten();
        let network_isolated = network.is_some();
        if !network_isolated {
            eprintln!(
                "grader: este contenedor no permite un espacio de red nuevo (unshare); el código del estudiante corre sin aislamiento de red."
            );
        }
        Ok(Some(Sandbox {
            first,
            own_users,
            busy: Mutex::new(vec![SlotState::default(); SLOTS as usize]),
            used: AtomicBool::new(false),
            scratch_root,
            network_isolated,
            network,
        }))
    }

    /// A user and a fresh scratch folder for one harness process.
    ///
    /// # Errors
    /// When every slot is busy or the folder cannot be made.
    pub fn acquire(&self) -> std::io::Result<Cell> {
        let (slot, first_use) = {
            let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
            let free = busy
                .iter()
                .position(|b| !b.busy)
                .ok_or_else(|| std::io::Error::other("demasiados procesos del harness a la vez"))?;
            let first_use = !busy[free].touched;
            busy[free] = SlotState {
                busy: true,
                touched: true,
                clean: false,
            };
            self.used.store(true, Ordering::SeqCst);
            (free as u32, first_use)
        };
        let (uid, gid) = if self.own_users {
            (
                Uid::from_raw(self.first.0.as_raw() + slot),
                Gid::from_raw(self.first.1.as_raw() + slot),
            )
        } else {
            self.first
        };
        let cell = Cell {
            slot,
            uid,
            gid,
            scratch: self.scratch_root.join(slot.to_string()),
            network_isolated: self.network_isolated,
            network: self.network.as_ref().map(std::os::fd::AsRawFd::as_raw_fd),
        };
        if self.own_users && first_use {
            // Nothing of an earlier holder of this user survives (an earlier
            // holder in this run was killed by its release).
            kill_all_of(uid, gid);
        }
        let made = (|| {
            let _ = std::fs::remove_dir_all(&cell.scratch);
            std::fs::create_dir(&cell.scratch)?;
            nix::unistd::chown(&cell.scratch, Some(uid), Some(gid))?;
            std::fs::set_permissions(&cell.scratch, std::fs::Permissions::from_mode(0o700))
        })();
        match made {
            Ok(()) => Ok(cell),
            Err(e) => {
                self.release(&cell);
                Err(e)
            }
        }
    }

    /// Ends what `cell`'s harness left: every process of its user (when it
    /// has one of its own) and its scratch folder; frees its slot. A user of
    /// its own has no process left after it: [`Sandbox::kill_leftovers`]
    /// skips it until a harness holds it again.
    pub fn release(&self, cell: &Cell) {
        if self.own_users {
            kill_all_of(cell.uid, cell.gid);
        }
        let _ = std::fs::remove_dir_all(&cell.scratch);
        let mut busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(b) = busy.get_mut(cell.slot as usize) {
            b.busy = false;
            b.clean = self.own_users;
        }
    }

    /// Kills every process of the run's users that a harness held (with
    /// `nobody`, this reaches other runs' harnesses too: call it only when
    /// grading is over) and removes the scratch folders (the folder holding
    /// them stays until [`cleanup::shutdown`]: a later run in this process
    /// uses it again). The users of slots no harness held have no processes:
    /// only this judge starts processes as them; nor have those whose
    /// harness was released since (each process a fork of the judge the
    /// less when grading ends).
    pub fn kill_leftovers(&self) {
        if !self.used.swap(false, Ordering::SeqCst) {
            return;
        }
        let dirty: Vec<bool> = {
            let busy = self.busy.lock().unwrap_or_else(|e| e.into_inner());
            busy.iter().map(|b| b.touched && !b.clean).collect()
        };
        let slots = if self.own_users { SLOTS } else { 1 };
        for slot in (0..slots).filter(|&s| !self.own_users || dirty[s as usize]) {
            kill_all_of(
                Uid::from_raw(self.first.0.as_raw() + slot),
                Gid::from_raw(self.first.1.as_raw() + slot),
            );
        }
        for slot in 0..SLOTS {
            let _ = std::fs::remove_dir_all(self.scratch_root.join(slot.to_string()));
        }
    }
}

/// The first of the users of the judge with pid `pid` (100000 + 64 × pid),
/// when the whole range fits.
fn first_user_of(pid: u32) -> Option<u32> {
    pid.checked_mul(SLOTS)
        .and_then(|n| n.checked_add(100_000))
        .filter(|n| {
            n.checked_add(SLOTS)
                .is_some_and(|end| end < i32::MAX as u32)
        })
}

/// Kills every process of the users of the judge with pid `pid`, which is
/// gone: what its harnesses started when it was killed with SIGKILL (the
/// harnesses themselves died with it). Only as root; a no-op where those
/// users cannot be used.
pub fn kill_users_of_dead_judge(pid: u32) {
    if !Uid::effective().is_root() || pid == std::process::id() {
        return;
    }
    let Some(first) = first_user_of(pid) else {
        return;
    };
    if !can_become(Uid::from_raw(first), Gid::from_raw(first)) {
        return;
    }
    for slot in 0..SLOTS {
        kill_all_of(Uid::from_raw(first + slot), Gid::from_raw(first + slot));
    }
}

/// Kills every process of `uid` (but the killer itself), from a process
/// that became that user: signal -1 reaches exactly those. The process is a
/// fork of the judge that execs nothing (a spawn of `/bin/true` cost a
/// millisecond more, once per harness process).
fn kill_all_of(uid: Uid, gid: Gid) {
    use nix::unistd::{ForkResult, fork};
    // SAFETY: between fork and _exit the child only makes system calls
    // (setgroups, setgid, setuid, kill), which are async-signal-safe, and
    // allocates nothing; it signals only after becoming `uid`.
    match unsafe { fork() } {
        Ok(ForkResult::Child) => {
            if drop_privileges(uid, gid).is_ok() {
                for _ in 0..2 {
                    let _ = nix::sys::signal::kill(
                        nix::unistd::Pid::from_raw(-1),
                        nix::sys::signal::Signal::SIGKILL,
                    );
                }
            }
            // SAFETY: ends the forked child without running the judge's exit
            // handlers.
            unsafe { nix::libc::_exit(0) }
        }
        Ok(ForkResult::Parent { child }) => {
            let _ = nix::sys::wait::waitpid(child, None);
        }
        Err(_) => {}
    }
}

/// Whether a process can drop to `uid`/`gid` here.
fn can_become(uid: Uid, gid: Gid) -> bool {
    let mut cmd = Command::new("/bin/true");
    // SAFETY: only setgroups, setgid and setuid run between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || drop_privileges(uid, gid));
    }
    cmd.status().is_ok_and(|s| s.success())
}

/// A new, empty network namespace, held open (`None` where
/// `unshare(CLONE_NEWNET)` is not allowed: it needs `CAP_SYS_ADMIN`, which
/// some containers forbid). A child makes it and waits on its stdin while
/// the judge opens `/proc/CHILD/ns/net`; the open file keeps the namespace
/// alive after the child ends.
fn empty_network_namespace() -> Option<std::fs::File> {
    let mut cmd = Command::new("/bin/cat");
    cmd.stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null());
    // SAFETY: only the unshare system call runs between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            nix::sched::unshare(CloneFlags::CLONE_NEWNET).map_err(std::io::Error::from)
        });
    }
    let mut child = cmd.spawn().ok()?;
    let namespace = std::fs::File::open(format!("/proc/{}/ns/net", child.id()));
    drop(child.stdin.take());
    let _ = child.wait();
    let namespace = namespace.ok()?;
    // The child's namespace, not the judge's own (the child may have died
    // before unsharing).
    let ours = std::fs::metadata("/proc/self/ns/net").ok()?;
    let theirs = namespace.metadata().ok()?;
    use std::os::unix::fs::MetadataExt;
    (ours.ino() != theirs.ino()).then_some(namespace)
}

/// Puts this process first in line for the kernel's out-of-memory killer
/// (`oom_score_adj` 1000, which any process may raise for itself): when a
/// machine or container runs out of memory (Gradescope's has 768 MB), the
/// kernel kills a harness process, not the judge that decides the grade
/// nor the student's other programs; among harness processes it still
/// picks the largest, the code that took the memory. Best effort (only
/// Linux has the file); async-signal-safe (an `open`, a `write` and a
/// `close`, nothing allocated), for [`confine`].
fn first_to_go() {
    use nix::fcntl::{OFlag, open};
    use nix::sys::stat::Mode;
    let file = open(
        c"/proc/self/oom_score_adj",
        OFlag::O_WRONLY | OFlag::O_CLOEXEC,
        Mode::empty(),
    );
    if let Ok(fd) = file {
        let _ = nix::unistd::write(&fd, b"1000");
    }
}

/// Clears supplementary groups, then sets the group and the user.
fn drop_privileges(uid: Uid, gid: Gid) -> std::io::Result<()> {
    nix::unistd::setgroups(&[]).map_err(std::io::Error::from)?;
    nix::unistd::setgid(gid).map_err(std::io::Error::from)?;
    nix::unistd::setuid(uid).map_err(std::io::Error::from)?;
    Ok(())
}

/// What a harness process gets between fork and exec: resource limits (at
/// most `cpu_seconds` of CPU time for it and for each process it starts),
/// the kernel's first place in line when memory runs out ([`first_to_go`]),
/// then, in `sandbox`, the run's empty network namespace and the unprivileged user, and
/// last SIGKILL when the judge dies.
///
/// The judge stops a harness by wall-clock time long before `cpu_seconds`
/// (the callers give the sum of the job limits times twice the cores); the CPU
/// limit and the parent-death signal are for a judge that is gone (Ctrl-C,
/// `q` in `vigilar` while grading): a `loop {}` it left behind does not spin
/// on for ever.
///
/// # Errors
/// A system call that failed (the spawn then fails and is reported).
pub fn confine(sandbox: Option<&Cell>, cpu_seconds: u64) -> std::io::Result<()> {
    let limit = |r: Resource, n: u64| nix::sys::resource::setrlimit(r, n, n);
    limit(Resource::RLIMIT_AS, MEMORY_BYTES).map_err(std::io::Error::from)?;
    limit(Resource::RLIMIT_FSIZE, FILE_BYTES).map_err(std::io::Error::from)?;
    limit(Resource::RLIMIT_CORE, 0).map_err(std::io::Error::from)?;
    limit(Resource::RLIMIT_CPU, cpu_seconds).map_err(std::io::Error::from)?;
    first_to_go();
    if let Some(s) = sandbox {
        limit(Resource::RLIMIT_NPROC, PROCESSES).map_err(std::io::Error::from)?;
        if let Some(fd) = s.network {
            // SAFETY: `fd` is the sandbox's open namespace file, open for
            // as long as the sandbox (the whole run).
            let namespace = unsafe { std::os::fd::BorrowedFd::borrow_raw(fd) };
            nix::sched::setns(namespace, CloneFlags::CLONE_NEWNET).map_err(std::io::Error::from)?;
        }
        drop_privileges(s.uid, s.gid)?;
    }
    // After the change of user, which clears it.
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
        .map_err(std::io::Error::from)?;
    Ok(())
}

/// Processes (threads included: the kernel counts them alike) a service's
/// user may have at once (`servicio`): a server's threads, a `cargo run`'s
/// compiler, not a fork bomb, nor the zombies of a process that forks and
/// exits without end.
pub const SERVICE_PROCESSES: u64 = 512;

/// What a student's service process gets between fork and exec
/// (`servicio`, lesson 8's final project): no core files, the kernel's
/// first place in line when memory runs out ([`first_to_go`]), at most
/// [`SERVICE_PROCESSES`] processes of its user, then `cell`'s unprivileged
/// user, and SIGKILL when the judge's thread that started it ends.
///
/// Unlike a harness ([`confine`]) it keeps the judge's network (it must
/// reach the kit's processor on loopback) and has no limit on memory,
/// file size or CPU time: a real service and its compiler need them, and
/// the request and run time limits of `servicio` bound it.
///
/// # Errors
/// A system call that failed (the spawn then fails and is reported).
pub fn confine_service(cell: &Cell) -> std::io::Result<()> {
    let limit = |r: Resource, n: u64| nix::sys::resource::setrlimit(r, n, n);
    limit(Resource::RLIMIT_CORE, 0).map_err(std::io::Error::from)?;
    limit(Resource::RLIMIT_NPROC, SERVICE_PROCESSES).map_err(std::io::Error::from)?;
    first_to_go();
    drop_privileges(cell.uid, cell.gid)?;
    nix::sys::prctl::set_pdeathsig(nix::sys::signal::Signal::SIGKILL)
        .map_err(std::io::Error::from)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsRawFd;

    /// A confined process is the out-of-memory killer's first choice; the
    /// judge keeps its own place.
    #[test]
    fn a_confined_process_goes_first_when_memory_runs_out() {
        let mut cat = Command::new("/bin/cat");
        cat.arg("/proc/self/oom_score_adj");
        // SAFETY: `confine` is what the judge runs between fork and exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut cat, || confine(None, 10));
        }
        let out = cat.output().unwrap();
        assert!(out.status.success(), "{out:?}");
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "1000");
        let judge = std::fs::read_to_string("/proc/self/oom_score_adj").unwrap();
        assert_ne!(judge.trim(), "1000");
    }

    /// As root where the container allows it: a process that enters the
    /// run's namespace sees no interface but a loopback, and two entries
    /// land in the same namespace (one per run, not per process).
    #[test]
    fn the_runs_network_namespace_has_no_interfaces() {
        if !Uid::effective().is_root() {
            return;
        }
        let Some(namespace) = empty_network_namespace() else {
            return;
        };
        let fd = namespace.as_raw_fd();
        let enter = |cmd: &mut Command| {
            // SAFETY: only the setns system call runs between fork and exec.
            unsafe {
                std::os::unix::process::CommandExt::pre_exec(cmd, move || {
                    let ns = std::os::fd::BorrowedFd::borrow_raw(fd);
                    nix::sched::setns(ns, CloneFlags::CLONE_NEWNET).map_err(std::io::Error::from)
                });
            }
        };
        let mut cat = Command::new("/bin/cat");
        cat.arg("/proc/net/dev");
        enter(&mut cat);
        let out = String::from_utf8(cat.output().unwrap().stdout).unwrap();
        let interfaces: Vec<&str> = out
            .lines()
            .filter_map(|l| l.split_once(':').map(|(name, _)| name.trim()))
            .collect();
        assert_eq!(interfaces, ["lo"], "{out}");
        let mut link = Command::new("/bin/readlink");
        link.arg("/proc/self/ns/net");
        enter(&mut link);
        let first = link.output().unwrap().stdout;
        let second = link.output().unwrap().stdout;
        assert_eq!(first, second);
        let ours = std::fs::read_link("/proc/self/ns/net").unwrap();
        let theirs = String::from_utf8(first).unwrap();
        assert!(theirs.trim().starts_with("net:["), "{theirs}");
        assert_ne!(theirs.trim(), ours.to_str().unwrap());
    }
}
