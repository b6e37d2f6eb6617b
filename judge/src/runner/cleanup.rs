//! What a grading leaves behind, removed on every way out of the judge: the
//! harness process groups still running, every process of the sandbox's
//! users (what a harness started, even under `setsid`), what was handed
//! to the judge as subreaper ([`super::tree`]), the sandbox's
//! scratch folders and the private copies of the harness. [`shutdown`] runs
//! at the end of `main`, on SIGINT/SIGTERM/SIGHUP ([`on_signals`]) and on
//! `q` in `vigilar` while a grading runs. A judge that died without it
//! (SIGKILL) is cleaned after by the next one ([`remove_stale`]).
//!
//! On Windows the signals are Ctrl-C and Ctrl-Break (the harness processes,
//! each in a process group of its own, do not get them), and every harness
//! process is in the judge's job object: the job kills them, and what they
//! started, at [`shutdown`] and when the judge ends however it ends.
//!
//! Every folder lives in `$TMPDIR` under a fresh random name made with
//! `mkdir` (never reused, never an existing path: nothing planted in the
//! temporary folder is written through), `kit-harness-bin-PID-…` (the
//! harness copy) or `kit-harness-PID-…` (the scratch folders).

use std::io::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

#[cfg(unix)]
use nix::unistd::Pid;

use super::folders::{self, judge_pid};
#[cfg(target_os = "linux")]
use super::sandbox::{self, Sandbox};

/// The harness processes running now (on unix each leads its process
/// group).
static GROUPS: Mutex<Vec<i32>> = Mutex::new(Vec::new());
/// Set by [`shutdown`]: no harness starts any more.
static STOPPING: AtomicBool = AtomicBool::new(false);
/// The signal that is ending the judge, 0 for none.
static SIGNAL: AtomicI32 = AtomicI32::new(0);
/// What the command on screen restores before the process ends on a signal
/// (`vigilar`: the terminal's normal mode).
static RESTORE: Mutex<Option<fn()>> = Mutex::new(None);

/// Starts `command` and records the process (on unix, the leader of its
/// process group; on Windows it joins the judge's job), to kill if the
/// judge stops first: a harness, or `servicio`'s service. One step under
/// one lock, so that no [`sweep_orphans`] of another thread sees the new
/// process before it is recorded and takes it for an orphan.
///
/// # Errors
/// The spawn's error; or [`shutdown`] has begun, and nothing is started.
pub fn spawn_tracked(command: &mut std::process::Command) -> std::io::Result<std::process::Child> {
    let mut groups = lock(&GROUPS);
    if STOPPING.load(Ordering::SeqCst) {
        return Err(std::io::Error::other("el grader se está cerrando"));
    }
    let child = command.spawn()?;
    #[cfg(windows)]
    job::add(&child);
    if let Ok(pid) = i32::try_from(child.id()) {
        groups.push(pid);
    }
    Ok(child)
}

/// Forgets a harness process group that has ended.
pub fn untrack_group(pid: u32) {
    lock(&GROUPS).retain(|&g| i32::try_from(pid) != Ok(g));
}

/// Stops and reaps what the processes of [`spawn_tracked`] left to the
/// judge as their subreaper ([`super::tree::sweep`]), the processes still
/// recorded left alone. Holds the record while it looks (at most ~1 s).
#[cfg(target_os = "linux")]
pub fn sweep_orphans() {
    let groups = lock(&GROUPS);
    super::tree::sweep(&groups);
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
        kill_groups(&groups);
    }
    #[cfg(target_os = "linux")]
    if let Some(sandbox) = Sandbox::existing() {
        sandbox.kill_leftovers();
    }
    // What left its group and was handed to the judge (`servicio`).
    #[cfg(target_os = "linux")]
    super::tree::kill_descendants();
    folders::remove_all();
}

/// `restore` runs before the process ends on a signal (after [`shutdown`]).
pub fn on_signal_restore(restore: fn()) {
    *lock(&RESTORE) = Some(restore);
}

/// Kills the harness processes `groups` and what they started.
#[cfg(unix)]
fn kill_groups(groups: &[i32]) {
    for &g in groups {
        let _ = nix::sys::signal::killpg(Pid::from_raw(g), nix::sys::signal::Signal::SIGKILL);
    }
}

/// Kills the harness processes and what they started: the judge's job
/// holds every one of them.
#[cfg(windows)]
fn kill_groups(_: &[i32]) {
    job::terminate();
}

/// On SIGINT, SIGTERM or SIGHUP: [`shutdown`], then exit with 128 + the
/// signal, as the signal itself would have ended the process.
#[cfg(unix)]
pub fn on_signals() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            end_on(signal);
        }
    });
}

/// On Ctrl-C or Ctrl-Break (SIGINT, SIGBREAK of the C runtime) or SIGTERM:
/// [`shutdown`], then exit with 128 + the signal. The handler only sets a
/// flag (all a handler may do); a thread looks at it every 50 ms.
#[cfg(windows)]
pub fn on_signals() {
    use signal_hook::consts::{SIGBREAK, SIGINT, SIGTERM};
    let caught = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mut any = false;
    for signal in [SIGINT, SIGBREAK, SIGTERM] {
        let value = usize::try_from(signal).unwrap_or(1);
        any |= signal_hook::flag::register_usize(signal, caught.clone(), value).is_ok();
    }
    if !any {
        return;
    }
    std::thread::spawn(move || {
        loop {
            if let Ok(signal) = i32::try_from(caught.load(Ordering::SeqCst))
                && signal != 0
            {
                end_on(signal);
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    });
}

/// Ends the judge on `signal`: [`shutdown`], the screen's restore, one
/// line on stderr that says so, and exit status 128 + `signal`.
fn end_on(signal: i32) -> ! {
    SIGNAL.store(signal, Ordering::SeqCst);
    shutdown();
    if let Some(restore) = *lock(&RESTORE) {
        restore();
    }
    // Never `eprintln!`: with stderr gone (a closed pipe, a closed
    // terminal) it panics, this thread ends, and the main thread, parked
    // in `unless_interrupted`, waits for ever.
    let _ = writeln!(std::io::stderr(), "{}", interrupted(signal));
    std::process::exit(128 + signal);
}

/// The line a judge ended by `signal` prints: what ended it and that what
/// it had started was stopped (a Ctrl-C that ended it in silence left the
/// student wondering about the service or the harness).
fn interrupted(signal: i32) -> String {
    let what = match signal {
        2 => "interrumpido (Ctrl-C)".to_string(),
        15 => "detenido (SIGTERM)".to_string(),
        1 => "detenido: se cerró la terminal (SIGHUP)".to_string(),
        other => format!("detenido por la señal {other}"),
    };
    format!("grader: {what}; se detuvieron los procesos que había iniciado")
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
        if judge_gone(pid) {
            // A scratch folder of a judge like this one (made by this user,
            // not planted by student code) means it ran harnesses as its own
            // users: what they started may still run.
            #[cfg(target_os = "linux")]
            {
                let ours = entry.metadata().is_ok_and(|m| {
                    use std::os::unix::fs::MetadataExt;
                    m.is_dir() && m.uid() == nix::unistd::Uid::effective().as_raw()
                });
                if ours
                    && name
                        .to_str()
                        .is_some_and(|n| !n.starts_with(folders::COPY_PREFIX))
                {
                    sandbox::kill_users_of_dead_judge(pid.unsigned_abs());
                }
            }
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// Whether no process has the pid `pid` any more.
#[cfg(unix)]
fn judge_gone(pid: i32) -> bool {
    nix::sys::signal::kill(Pid::from_raw(pid), None) == Err(nix::errno::Errno::ESRCH)
}

/// Whether no process has the pid `pid` any more (or it has ended).
#[cfg(windows)]
fn judge_gone(pid: i32) -> bool {
    use windows_sys::Win32::Foundation::{
        CloseHandle, ERROR_INVALID_PARAMETER, GetLastError, STILL_ACTIVE,
    };
    use windows_sys::Win32::System::Threading::{
        GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
    };
    let Ok(pid) = u32::try_from(pid) else {
        return false;
    };
    // SAFETY: the handle opened here is closed here; the exit code's
    // out-pointer is a local.
    unsafe {
        let process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
        if process.is_null() {
            // Another user's process gives "access denied": it lives.
            return GetLastError() == ERROR_INVALID_PARAMETER;
        }
        let mut code = 0u32;
        let read = GetExitCodeProcess(process, &mut code);
        CloseHandle(process);
        read != 0 && code != STILL_ACTIVE as u32
    }
}

/// Windows: the judge's job object. Every harness process joins it when it
/// starts (and what it starts later is born in it); the job kills them all
/// at [`terminate`](job::terminate) ([`shutdown`]) and when its last handle
/// closes, which the judge's end does however it ends
/// (`JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE`).
#[cfg(windows)]
mod job {
    use std::os::windows::io::AsRawHandle;
    use std::sync::OnceLock;

    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
        JOBOBJECT_EXTENDED_LIMIT_INFORMATION, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject,
    };

    /// The job's handle, open for the judge's whole life.
    struct Job(HANDLE);

    // SAFETY: a job's handle may be used from any thread.
    unsafe impl Send for Job {}
    // SAFETY: as above; the calls made with it are thread-safe.
    unsafe impl Sync for Job {}

    /// The job, made on first use (`None` where it cannot be made).
    static JOB: OnceLock<Option<Job>> = OnceLock::new();

    fn make() -> Option<Job> {
        let mut info = JOBOBJECT_EXTENDED_LIMIT_INFORMATION::default();
        info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
        let size = u32::try_from(std::mem::size_of_val(&info)).ok()?;
        // SAFETY: a new unnamed job with default security; its limits read
        // from a local of the size given; the handle closed on failure.
        unsafe {
            let job = CreateJobObjectW(std::ptr::null(), std::ptr::null());
            if job.is_null() {
                return None;
            }
            let info = (&raw const info).cast();
            if SetInformationJobObject(job, JobObjectExtendedLimitInformation, info, size) == 0 {
                CloseHandle(job);
                return None;
            }
            Some(Job(job))
        }
    }

    /// Puts `child` in the job (best effort: where it cannot be, the
    /// judge's deadline and `Child::kill` still stop it).
    pub fn add(child: &std::process::Child) {
        if let Some(job) = JOB.get_or_init(make) {
            // SAFETY: both handles are open: the job's for the judge's
            // life, the child's while `child` lives.
            unsafe { AssignProcessToJobObject(job.0, child.as_raw_handle()) };
        }
    }

    /// Kills every process in the job.
    pub fn terminate() {
        if let Some(Some(job)) = JOB.get() {
            // SAFETY: the job's handle is open for the judge's life.
            unsafe { TerminateJobObject(job.0, 1) };
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
