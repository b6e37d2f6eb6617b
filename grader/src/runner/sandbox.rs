//! Where the harness runs when grading is for real. When the judge runs as
//! root (Gradescope, a CI container), every harness process drops to an
//! unprivileged user of its own (no name, uid 100000 + the judge's pid;
//! `nobody` where that is not possible), gets a new, empty network namespace where
//! the container allows one, a scratch directory as its only writable place,
//! and limits on processes and file size; everything it leaves running is
//! killed. Not root (a student's laptop), the same code path runs without the
//! privilege drop.

use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use nix::sched::CloneFlags;
use nix::sys::resource::Resource;
use nix::unistd::{Gid, Uid, User};

/// Address-space limit of a harness process: 2 GiB.
pub const MEMORY_BYTES: u64 = 2 << 30;
/// The largest file a harness process may write: 64 MiB.
pub const FILE_BYTES: u64 = 64 << 20;
/// Processes the unprivileged user may have at once (all of the run's
/// harnesses together): enough for them, not for a fork bomb.
pub const PROCESSES: u64 = 64;

/// The unprivileged identity harness processes run as: a user of this run's
/// own (or `nobody`).
#[derive(Clone, Debug)]
pub struct Sandbox {
    /// The user.
    pub uid: Uid,
    /// Its group.
    pub gid: Gid,
    /// A directory only that user can write; the harness's working folder.
    pub scratch: PathBuf,
    /// Whether a new network namespace can be made here.
    pub network_isolated: bool,
}

impl Sandbox {
    /// The sandbox when this process runs as root, `None` otherwise (or
    /// when there is no `nobody` user). Logs once on stderr when the
    /// container forbids a network namespace.
    pub fn detect() -> Option<Sandbox> {
        static SANDBOX: OnceLock<Option<Sandbox>> = OnceLock::new();
        SANDBOX.get_or_init(Sandbox::make).clone()
    }

    fn make() -> Option<Sandbox> {
        if !Uid::effective().is_root() {
            return None;
        }
        // A user of this run's own, without a name (100000 + the judge's
        // pid): killing its leftovers never touches another grading run's
        // harnesses, and the process limit is this run's. Where such a user
        // cannot be used (a user namespace that does not map it), `nobody`.
        let own = 100_000u32.checked_add(std::process::id())?;
        let (uid, gid) = if can_become(Uid::from_raw(own), Gid::from_raw(own)) {
            (Uid::from_raw(own), Gid::from_raw(own))
        } else {
            let nobody = User::from_name("nobody").ok().flatten()?;
            (nobody.uid, nobody.gid)
        };
        let scratch = std::env::temp_dir().join(format!("kit-harness-{}", std::process::id()));
        let network_isolated = probe_network_namespace();
        if !network_isolated {
            eprintln!(
                "grader: este contenedor no permite un espacio de red nuevo (unshare); el código del estudiante corre sin aislamiento de red."
            );
        }
        let sandbox = Sandbox {
            uid,
            gid,
            scratch,
            network_isolated,
        };
        sandbox.prepare_scratch().ok()?;
        Some(sandbox)
    }

    /// Makes the scratch folder (again, after a run removed it): owned by
    /// the unprivileged user, closed to everyone else.
    ///
    /// # Errors
    /// When the folder cannot be made or given to the user.
    pub fn prepare_scratch(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.scratch)?;
        nix::unistd::chown(&self.scratch, Some(self.uid), Some(self.gid))?;
        std::fs::set_permissions(&self.scratch, std::fs::Permissions::from_mode(0o700))
    }

    /// Kills every process of the unprivileged user (what a harness left
    /// running, even outside its process group). With `nobody` this reaches
    /// other runs' harnesses too: call it only when grading is over.
    pub fn kill_leftovers(&self) {
        let (uid, gid) = (self.uid, self.gid);
        let mut cmd = Command::new("/bin/true");
        // SAFETY: the closure only makes system calls (setgroups, setgid,
        // setuid, kill), which are async-signal-safe, between fork and exec.
        unsafe {
            std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
                drop_privileges(uid, gid)?;
                // As that user, signal -1 reaches every process of the user
                // but this one.
                let _ = nix::sys::signal::kill(
                    nix::unistd::Pid::from_raw(-1),
                    nix::sys::signal::Signal::SIGKILL,
                );
                Ok(())
            });
        }
        let _ = cmd.status();
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

/// Whether `unshare(CLONE_NEWNET)` works here (it needs `CAP_SYS_ADMIN`,
/// which some containers forbid).
fn probe_network_namespace() -> bool {
    let mut cmd = Command::new("/bin/true");
    // SAFETY: only the unshare system call runs between fork and exec.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, || {
            nix::sched::unshare(CloneFlags::CLONE_NEWNET).map_err(std::io::Error::from)
        });
    }
    cmd.status().is_ok_and(|s| s.success())
}

/// Clears supplementary groups, then sets the group and the user.
fn drop_privileges(uid: Uid, gid: Gid) -> std::io::Result<()> {
    nix::unistd::setgroups(&[]).map_err(std::io::Error::from)?;
    nix::unistd::setgid(gid).map_err(std::io::Error::from)?;
    nix::unistd::setuid(uid).map_err(std::io::Error::from)?;
    Ok(())
}

/// What a harness process gets between fork and exec: resource limits, then,
/// in `sandbox`, a new network namespace and the unprivileged user.
///
/// # Errors
/// A system call that failed (the spawn then fails and is reported).
pub fn confine(sandbox: Option<&Sandbox>) -> std::io::Result<()> {
    let limit = |r: Resource, n: u64| nix::sys::resource::setrlimit(r, n, n);
    limit(Resource::RLIMIT_AS, MEMORY_BYTES).map_err(std::io::Error::from)?;
    limit(Resource::RLIMIT_FSIZE, FILE_BYTES).map_err(std::io::Error::from)?;
    limit(Resource::RLIMIT_CORE, 0).map_err(std::io::Error::from)?;
    if let Some(s) = sandbox {
        limit(Resource::RLIMIT_NPROC, PROCESSES).map_err(std::io::Error::from)?;
        if s.network_isolated {
            nix::sched::unshare(CloneFlags::CLONE_NEWNET).map_err(std::io::Error::from)?;
        }
        drop_privileges(s.uid, s.gid)?;
    }
    Ok(())
}
