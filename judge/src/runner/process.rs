//! Harness processes: each in its own process group, with resource limits
//! and (as root) the sandbox on Linux, plain elsewhere ([`Isolation`]);
//! each list of jobs as one line ([`protocol::job_line`]) on its
//! stdin; one answer line per job on its stdout, each awaited with a time
//! limit that follows the job's work. Whatever else the implementation
//! prints is dropped, at most [`STDERR_TAIL`] bytes of its stderr are kept
//! to explain a death, and the process (on unix its whole group) is killed
//! when it ends.
//!
//! A process serves many lists ([`Pool`]: one per check running at once,
//! instead of one per list, which cost a fork of the judge, an exec and the
//! sandbox's set-up and tear-down each, some 40 per report). Sharing never
//! changes a verdict: every job's time limit is its own, and when a shared
//! process dies, gives an unreadable answer or runs out of time while it
//! was not alone (another thread or process of its own was running), the
//! jobs of the list it did not answer run again in a process of their own,
//! exactly as they would have alone. A time-out of a shared process that
//! was alone is the job's own: it had the process to itself and at least
//! the time it gets alone (its clock starts when the previous answer
//! arrived, with no process to start).

use std::io::{BufRead, Read, Write};
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::Duration;

use protocol::{Job, Observation};

use super::Execute;
use super::cleanup;
use super::clock::JobClock;
use super::explorer::{Built, Lazy};
use super::isolation::{Cell, Isolation, Limits};
use crate::verdict::Verdict;

/// At most this much of the end of a harness's stderr is kept.
const STDERR_TAIL: usize = 64 << 10;
/// A line without an answer marker is dropped once it is this long.
const JUNK_LINE: usize = 1 << 20;
/// The longest answer line any job may give: 64 MiB, plus
/// [`ANSWER_BYTES_PER_UNIT`] per unit of its [`Job::work`]. The largest
/// real answers are exercise 1's 100,009 calls (about 15 MB) and a
/// fleet's client run (under 300 bytes per unit); a longer line is not
/// read (the judge would hold all of it) and the job's verdict says so.
const ANSWER_BYTES: usize = 64 << 20;
/// See [`ANSWER_BYTES`].
const ANSWER_BYTES_PER_UNIT: usize = 1 << 10;

/// The longest answer line `job` may give ([`ANSWER_BYTES`]).
fn answer_cap(job: &Job) -> usize {
    let units = usize::try_from(job.work()).unwrap_or(usize::MAX);
    ANSWER_BYTES.saturating_add(units.saturating_mul(ANSWER_BYTES_PER_UNIT))
}

/// What the reader of a harness's stdout found.
enum Heard {
    /// One job's answer.
    Answer(Result<Observation, Verdict>),
    /// A line that should have been an answer and cannot be read: the
    /// Spanish explanation, for a [`Verdict::Crashed`].
    Unreadable(String),
    /// The harness's allocator said an allocation of this many bytes
    /// failed ([`protocol::OUT_OF_MEMORY_MARKER`]).
    AllocationFailed(u64),
}

/// The longest answer line of each job sent, in order, shared by the
/// sender and the reader of one harness process.
type Caps = std::sync::Arc<Mutex<std::collections::VecDeque<usize>>>;

/// How long a job may take: `floor`, plus `per_unit` for each unit of
/// [`Job::work`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeLimits {
    /// The least any job gets (`--timeout`, 5 s by default).
    pub floor: Duration,
    /// Extra time per call or row the job asks for.
    pub per_unit: Duration,
}

impl TimeLimits {
    /// Per unit of work: 5 µs, several times what the reference needs
    /// unoptimised (about 0.5 µs per attempt on this kit's 2-core machine).
    pub const PER_UNIT: Duration = Duration::from_micros(5);

    /// Limits with `floor` and the default per-unit allowance.
    pub fn new(floor: Duration) -> TimeLimits {
        TimeLimits {
            floor,
            per_unit: TimeLimits::PER_UNIT,
        }
    }

    /// The limit of `job`.
    pub fn of(&self, job: &Job) -> Duration {
        let units = u32::try_from(job.work()).unwrap_or(u32::MAX);
        self.floor
            .saturating_add(self.per_unit.saturating_mul(units))
    }
}

/// Starts a harness executable for each list of jobs. Dropping it ends the
/// run ([`HarnessProcess::finish`]).
#[derive(Debug)]
pub struct HarnessProcess {
    /// The harness executable that cargo built.
    pub program: PathBuf,
    /// Its arguments (none for the kit's harness; tests that make their own
    /// test binary a harness pass one).
    pub args: Vec<std::ffi::OsString>,
    /// Time limits.
    pub limits: TimeLimits,
    /// Where its processes run: confined (Linux; with the sandbox's
    /// unprivileged users when grading as root) or plain.
    pub isolation: Isolation,
    /// A private folder holding `program` (a copy of what cargo built),
    /// removed when the run ends.
    pub owned: Option<PathBuf>,
    /// The harness processes waiting for more jobs.
    pub pool: Pool,
    /// The explorer's harness of the same implementation, for exercise 4's
    /// schedules (built when first asked for); `None` for a harness that is
    /// itself the explorer's, or has none.
    pub explorer: Option<Lazy>,
}

/// How long a shared harness process may serve: the sum of the time limits
/// of the jobs it is given (its CPU limit follows from it, as for a process
/// of one list); a list that would pass it starts a new process.
const SESSION_WALL: Duration = Duration::from_secs(8 * 3600);

/// The idle harness processes of a [`HarnessProcess`], each ready for more
/// lists of jobs (see the module's doc). A process serves only the thread
/// that started it: confined, the kernel ends it when that thread ends (the
/// parent-death signal of `sandbox::confine` follows the thread).
#[derive(Debug, Default)]
pub struct Pool {
    /// One process per list of jobs, never shared (for comparisons).
    unshared: bool,
    idle: Mutex<Vec<(std::thread::ThreadId, Session)>>,
    /// Whether some job of this run timed out or its process died: what
    /// such a job answered depends on the machine (its load, its memory),
    /// and so may a verdict built on it, even one that is not itself a
    /// time-out (a shrink step that timed out counts as "not this failure").
    machine_dependent: AtomicBool,
}

impl Pool {
    /// A pool that never shares a process: every list of jobs runs in a
    /// process of its own.
    pub fn unshared() -> Pool {
        Pool {
            unshared: true,
            ..Pool::default()
        }
    }

    /// The calling thread's idle process, if any, and the processes of
    /// other threads that have ended (to end: their threads are gone).
    fn take(&self) -> (Option<Session>, Vec<Session>) {
        let me = std::thread::current().id();
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        let mut mine = None;
        let mut ended = Vec::new();
        let mut kept = Vec::new();
        for (thread, mut session) in idle.drain(..) {
            if thread == me && mine.is_none() {
                mine = Some(session);
            } else if matches!(session.child.try_wait(), Ok(Some(_)) | Err(_)) {
                ended.push(session);
            } else {
                kept.push((thread, session));
            }
        }
        *idle = kept;
        (mine, ended)
    }

    fn put(&self, session: Session) {
        self.idle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((std::thread::current().id(), session));
    }

    fn drain(&self) -> Vec<Session> {
        let mut idle = self.idle.lock().unwrap_or_else(|e| e.into_inner());
        idle.drain(..).map(|(_, s)| s).collect()
    }
}

/// One shared harness process and its pipes' readers.
struct Session {
    child: Child,
    cell: Option<Cell>,
    /// Each list of jobs, as one line, to the thread writing its stdin.
    input: mpsc::Sender<Vec<u8>>,
    answers: mpsc::Receiver<Heard>,
    /// The answer caps of the jobs sent and not yet answered.
    caps: Caps,
    /// Time limits it may still be given ([`SESSION_WALL`]).
    room: Duration,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("pid", &self.child.id())
            .field("room", &self.room)
            .finish_non_exhaustive()
    }
}

/// How a list of jobs ended in a shared process.
enum Served {
    /// Every job answered.
    All(Vec<Result<Observation, Verdict>>),
    /// The jobs before `at` answered; then the process stopped answering.
    Stopped {
        answered: Vec<Result<Observation, Verdict>>,
        at: usize,
        /// Job `at` ran out of time (otherwise the process died or gave an
        /// unreadable answer).
        timed_out: bool,
    },
}

impl Execute for HarnessProcess {
    fn execute(&self, jobs: &[Job]) -> Vec<Result<Observation, Verdict>> {
        let results = self.run_jobs(jobs);
        if results
            .iter()
            .any(|r| matches!(r, Err(Verdict::TimedOut { .. } | Verdict::Crashed { .. })))
        {
            self.pool.machine_dependent.store(true, Ordering::SeqCst);
        }
        results
    }

    fn explorer(&self) -> Result<&dyn Execute, Verdict> {
        match &self.explorer {
            Some(lazy) => lazy.get(),
            None => Err(Verdict::Crashed {
                what: "este harness no tiene el explorador de horarios".to_string(),
            }),
        }
    }
}

impl HarnessProcess {
    /// Whether some job of this run (the explorer's harness included) timed
    /// out or its process died: its verdicts may depend on the machine
    /// (the verdict cache stores none of them).
    pub fn machine_dependent(&self) -> bool {
        self.pool.machine_dependent.load(Ordering::SeqCst)
            || self.explorer.as_ref().is_some_and(Lazy::machine_dependent)
    }

    /// [`Execute::execute`]: the jobs in a shared process, or alone.
    fn run_jobs(&self, jobs: &[Job]) -> Vec<Result<Observation, Verdict>> {
        if jobs.is_empty() {
            return Vec::new();
        }
        let wall = self.wall(jobs);
        if self.pool.unshared || wall > SESSION_WALL {
            return self.alone(jobs);
        }
        let (mine, ended) = self.pool.take();
        for s in ended {
            self.end_session(s);
        }
        let session = match mine {
            Some(s) if s.room >= wall => Some(s),
            Some(s) => {
                self.end_session(s);
                self.start_session()
            }
            None => self.start_session(),
        };
        let Some(mut session) = session else {
            return self.alone(jobs);
        };
        session.room = session.room.saturating_sub(wall);
        match session.serve(jobs, &self.limits) {
            Served::All(results) => {
                self.pool.put(session);
                results
            }
            Served::Stopped {
                mut answered,
                at,
                timed_out,
            } => {
                let alone = timed_out && alone_in(&session.child, session.cell.as_ref());
                self.end_session(session);
                if alone {
                    answered.push(Err(Verdict::TimedOut {
                        limit_ms: self.limits.of(&jobs[at]).as_millis() as u64,
                        case: None,
                    }));
                    return finish(answered, jobs.len());
                }
                answered.extend(self.alone(&jobs[at..]));
                answered
            }
        }
    }

    /// Runs `jobs` in a harness process of their own, ended when they are
    /// answered (or after the first that is not).
    fn alone(&self, jobs: &[Job]) -> Vec<Result<Observation, Verdict>> {
        let (mut child, cell) = match self.spawn(self.cpu_budget(self.wall(jobs))) {
            Ok(c) => c,
            Err(e) => {
                let v = Verdict::Crashed {
                    what: format!("no se pudo iniciar el harness: {e}"),
                };
                return vec![Err(v); jobs.len()];
            }
        };
        let input = protocol::job_line(jobs);
        if let Some(mut stdin) = child.stdin.take() {
            // A thread: the harness may answer (or print) before it has
            // read everything, and a full pipe must not block the judge.
            std::thread::spawn(move || {
                let _ = stdin.write_all(&input);
            });
        }
        let caps: Caps = Default::default();
        lock(&caps).extend(jobs.iter().map(answer_cap));
        let answers = answer_reader(child.stdout.take(), caps);
        let stderr = tail_reader(child.stderr.take());
        let mut results = Vec::with_capacity(jobs.len());
        let mut failed_allocation = None;
        'jobs: for job in jobs {
            let limit = self.limits.of(job);
            let clock = JobClock::start(child.id());
            loop {
                let Some(left) = clock.left(limit) else {
                    results.push(Err(Verdict::TimedOut {
                        limit_ms: limit.as_millis() as u64,
                        case: None,
                    }));
                    break 'jobs;
                };
                match answers.recv_timeout(left) {
                    Ok(Heard::Answer(answer)) => {
                        results.push(answer);
                        continue 'jobs;
                    }
                    Ok(Heard::AllocationFailed(bytes)) => failed_allocation = Some(bytes),
                    Ok(Heard::Unreadable(what)) => {
                        results.push(Err(Verdict::Crashed { what }));
                        break 'jobs;
                    }
                    // The clock says whether the time is up.
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => {
                        let status = wait_briefly(&mut child);
                        let limits = self.isolation.limits();
                        let stderr = collect(stderr);
                        results.push(Err(Verdict::Crashed {
                            what: explain_death(status, failed_allocation, limits, &stderr),
                        }));
                        self.end(&mut child, cell.as_ref());
                        return finish(results, jobs.len());
                    }
                }
            }
        }
        self.end(&mut child, cell.as_ref());
        finish(results, jobs.len())
    }
}

impl HarnessProcess {
    /// Ends the run: ends the idle shared harness processes, kills whatever
    /// harness processes left running outside their process group (in the
    /// sandbox: every process of the run's unprivileged users) and removes
    /// the sandbox's scratch folders. Call when no job is running any more.
    pub fn finish(&self) {
        let mut sessions = self.pool.drain();
        // All killed first: the kernel frees their memory at once.
        for session in &mut sessions {
            kill_group(&mut session.child);
        }
        for session in sessions {
            self.end_session(session);
        }
        if let Some(e) = &self.explorer {
            e.finish();
        }
        self.isolation.finish();
        if let Some(dir) = &self.owned {
            super::folders::remove_folder(dir);
        }
    }
}

impl Drop for HarnessProcess {
    fn drop(&mut self) {
        self.finish();
    }
}

impl HarnessProcess {
    /// Ends one harness process: its group, then (in the sandbox) every
    /// process of its user and its scratch folder.
    fn end(&self, child: &mut Child, cell: Option<&Cell>) {
        kill_group(child);
        let _ = child.wait();
        cleanup::untrack_group(child.id());
        self.isolation.release(cell);
    }

    /// A shared harness process, ready for lists of jobs; `None` when it
    /// cannot start (the list then runs alone, which reports why).
    fn start_session(&self) -> Option<Session> {
        let (mut child, cell) = self.spawn(self.cpu_budget(SESSION_WALL)).ok()?;
        let Some(mut stdin) = child.stdin.take() else {
            self.end(&mut child, cell.as_ref());
            return None;
        };
        let (input, lines) = mpsc::channel::<Vec<u8>>();
        // A thread: the harness may answer (or print) before it has read
        // everything, and a full pipe must not block the judge.
        std::thread::spawn(move || {
            for line in lines {
                if stdin.write_all(&line).is_err() {
                    break;
                }
            }
        });
        let caps: Caps = Default::default();
        let answers = answer_reader(child.stdout.take(), caps.clone());
        // Read to the end, so the harness never blocks on a full pipe;
        // a death in a shared process is explained by the run alone.
        let _ = tail_reader(child.stderr.take());
        Some(Session {
            child,
            cell,
            input,
            answers,
            caps,
            room: SESSION_WALL,
        })
    }

    /// Ends a shared harness process (see [`HarnessProcess::end`]).
    fn end_session(&self, mut session: Session) {
        self.end(&mut session.child, session.cell.as_ref());
    }

    /// The sum of the time limits of `jobs`.
    fn wall(&self, jobs: &[Job]) -> Duration {
        jobs.iter().map(|j| self.limits.of(j)).sum()
    }

    /// CPU seconds a harness given jobs whose limits add up to `wall` may
    /// use (confined): that time, stretched as a job's clock may stretch
    /// it ([`super::clock::STRETCH`]), on twice every core, and a second
    /// more. It never binds while the judge watches the clock (see
    /// `sandbox::confine`).
    fn cpu_budget(&self, wall: Duration) -> u64 {
        // Twice the cores: `available_parallelism` rounds a fractional CPU
        // quota down.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        // A job's clock may run to `STRETCH` times its limit when it waits
        // for a CPU (`clock`).
        wall.as_secs()
            .saturating_add(1)
            .saturating_mul(2 * cores)
            .saturating_mul(u64::from(super::clock::STRETCH))
            .saturating_add(1)
    }

    fn spawn(&self, cpu_seconds: u64) -> std::io::Result<(Child, Option<Cell>)> {
        if cleanup::stopping() {
            return Err(std::io::Error::other("el grader se está cerrando"));
        }
        let mut cmd = Command::new(&self.program);
        cmd.args(&self.args);
        // Nothing of the judge's environment (a secret seed, tokens) reaches
        // the implementation.
        cmd.env_clear()
            .env("RUST_BACKTRACE", "0")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let cell = self.isolation.prepare(&mut cmd, cpu_seconds)?;
        match cleanup::spawn_tracked(&mut cmd) {
            Ok(child) => Ok((child, cell)),
            Err(e) => {
                self.isolation.release(cell.as_ref());
                Err(e)
            }
        }
    }
}

impl Session {
    /// Sends `jobs` as one line and awaits one answer per job, each within
    /// its own limit.
    fn serve(&mut self, jobs: &[Job], limits: &TimeLimits) -> Served {
        let stopped = |answered, at, timed_out| Served::Stopped {
            answered,
            at,
            timed_out,
        };
        {
            let mut caps = lock(&self.caps);
            caps.clear();
            caps.extend(jobs.iter().map(answer_cap));
        }
        if self.input.send(protocol::job_line(jobs)).is_err() {
            return stopped(Vec::new(), 0, false);
        }
        let mut answered = Vec::with_capacity(jobs.len());
        'jobs: for (at, job) in jobs.iter().enumerate() {
            let limit = limits.of(job);
            let clock = JobClock::start(self.child.id());
            loop {
                let Some(left) = clock.left(limit) else {
                    return stopped(answered, at, true);
                };
                match self.answers.recv_timeout(left) {
                    Ok(Heard::Answer(answer)) => {
                        answered.push(answer);
                        continue 'jobs;
                    }
                    // A death that follows is explained by the run alone.
                    Ok(Heard::AllocationFailed(_)) => {}
                    Ok(Heard::Unreadable(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                        return stopped(answered, at, false);
                    }
                    // The clock says whether the time is up.
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                }
            }
        }
        Served::All(answered)
    }
}

/// Whether the harness process `child` runs alone: one thread, and no
/// other process in its process group (in the sandbox: of its user). A job
/// that ran out of time in such a process had it to itself.
#[cfg(target_os = "linux")]
fn alone_in(child: &Child, cell: Option<&Cell>) -> bool {
    use std::os::unix::fs::MetadataExt;
    let pid = child.id();
    let threads = std::fs::read_dir(format!("/proc/{pid}/task")).map(Iterator::count);
    if threads.ok() != Some(1) {
        return false;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(other) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        if other == pid {
            continue;
        }
        if let Some(c) = cell
            && entry.metadata().is_ok_and(|m| m.uid() == c.uid.as_raw())
        {
            return false;
        }
        if process_group(other) == Some(pid) {
            return false;
        }
    }
    true
}

/// Without `/proc` (macOS, Windows) a process is never known to be alone:
/// the jobs it did not answer run again in a process of their own.
#[cfg(not(target_os = "linux"))]
fn alone_in(_: &Child, _: Option<&Cell>) -> bool {
    false
}

/// The process group of process `pid` (field 5 of `/proc/PID/stat`).
#[cfg(target_os = "linux")]
fn process_group(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(2)?.parse().ok()
}

/// Pads `results` to `n` with the verdict of the last one (the job that
/// stopped the process): later jobs never ran.
fn finish(
    mut results: Vec<Result<Observation, Verdict>>,
    n: usize,
) -> Vec<Result<Observation, Verdict>> {
    let last = results.last().cloned().unwrap_or(Err(Verdict::Crashed {
        what: "no se ejecutó".to_string(),
    }));
    results.resize(n, last);
    results
}

/// Reads the harness's stdout, sending one item per answer line and per
/// failed allocation the harness told; other output is dropped. The answer
/// of the `i`-th job may be at most `caps[i]` bytes long: a longer one is
/// [`Heard::Unreadable`], and the reader stops there.
fn answer_reader<R: Read + Send + 'static>(pipe: Option<R>, caps: Caps) -> mpsc::Receiver<Heard> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let Some(pipe) = pipe else { return };
        let mut reader = std::io::BufReader::with_capacity(1 << 16, pipe);
        let mut line: Vec<u8> = Vec::new();
        let marker = protocol::ANSWER_MARKER.as_bytes();
        let mut marked = false;
        loop {
            // Up to a newline, at most 64 KiB at a time (std's read_until
            // finds the newline with memchr: an answer of a hundred
            // thousand calls is one line of megabytes).
            let read = (&mut reader).take(1 << 16).read_until(b'\n', &mut line);
            match read {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(_) => break,
            }
            if line.last() != Some(&b'\n') {
                // Inside a line: a long one is searched for the marker once.
                if line.len() > JUNK_LINE && !marked {
                    if contains(&line, marker) {
                        marked = true;
                    } else {
                        let keep = line.split_off(line.len() - marker.len());
                        line = keep;
                    }
                }
                let cap = lock(&caps).front().copied().unwrap_or(ANSWER_BYTES);
                if marked && line.len() > cap {
                    let _ = tx.send(Heard::Unreadable(too_long(cap)));
                    return;
                }
                continue;
            }
            line.pop();
            let text = String::from_utf8_lossy(&line);
            let heard = if let Some(bytes) = protocol::parse_out_of_memory_line(&text) {
                Some(Heard::AllocationFailed(bytes))
            } else {
                protocol::parse_answer_line(&text).map(|parsed| {
                    lock(&caps).pop_front();
                    match parsed {
                        Ok(answer) => Heard::Answer(answer.map_err(Verdict::from)),
                        Err(e) => Heard::Unreadable(format!(
                            "el harness entregó una respuesta ilegible ({})",
                            crate::verdict::student_text(&e)
                        )),
                    }
                })
            };
            if let Some(heard) = heard
                && tx.send(heard).is_err()
            {
                return;
            }
            line.clear();
            marked = false;
        }
    });
    rx
}

/// The explanation of an answer line longer than `cap` bytes.
fn too_long(cap: usize) -> String {
    format!(
        "la respuesta del harness, con lo que devolvió tu código, pasó de {} MiB, el límite de esta verificación (crece con su trabajo), y el juez no la leyó",
        cap >> 20
    )
}

/// The lock of `caps`, even if a thread panicked holding it.
fn lock(caps: &Caps) -> std::sync::MutexGuard<'_, std::collections::VecDeque<usize>> {
    caps.lock().unwrap_or_else(|e| e.into_inner())
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Reads a pipe to the end, keeping its last [`STDERR_TAIL`] bytes.
fn tail_reader<R: Read + Send + 'static>(pipe: Option<R>) -> mpsc::Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut tail = Vec::new();
        if let Some(mut pipe) = pipe {
            let mut chunk = [0u8; 1 << 14];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => {
                        tail.extend_from_slice(&chunk[..n]);
                        if tail.len() > 2 * STDERR_TAIL {
                            tail.drain(..tail.len() - STDERR_TAIL);
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
        }
        let _ = tx.send(String::from_utf8_lossy(&tail).into_owned());
    });
    rx
}

/// What the stderr reader has, waiting at most 2 s (a process outside the
/// group may still hold the pipe).
fn collect(rx: mpsc::Receiver<String>) -> String {
    rx.recv_timeout(Duration::from_secs(2)).unwrap_or_default()
}

/// The exit status of a child whose stdout closed, waiting at most 2 s.
fn wait_briefly(child: &mut Child) -> Option<ExitStatus> {
    for _ in 0..200 {
        if let Ok(Some(status)) = child.try_wait() {
            return Some(status);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    None
}

/// Kills the child: on unix with SIGKILL to its whole process group (it and
/// whatever it spawned), everywhere through its own handle
/// ([`Child::kill`]; Windows: `TerminateProcess`, what it spawned ends with
/// the judge's job, [`cleanup`]).
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
    let _ = child.kill();
}

/// Spanish explanation of a harness that died without answering, from
/// what the judge itself observed: the exit status and whether the
/// harness's allocator told a failed allocation (`failed_allocation`, its
/// size), and the `limits` it ran under (none when plain). Its stderr holds
/// whatever the implementation printed, so it is never taken as the cause:
/// its last lines are quoted as the process's own output.
fn explain_death(
    status: Option<ExitStatus>,
    failed_allocation: Option<u64>,
    limits: Option<Limits>,
    stderr: &str,
) -> String {
    let quoted = quote_tail(stderr);
    let Some(status) = status else {
        return format!("cerró su salida y no terminó: ¿cerró la salida estándar?{quoted}");
    };
    let cause = cause_of_death(status, failed_allocation, limits);
    format!("{cause}{quoted}")
}

/// The cause of death of a process that ended with `status` (unix: its
/// exit status or signal).
#[cfg(unix)]
fn cause_of_death(
    status: ExitStatus,
    failed_allocation: Option<u64>,
    limits: Option<Limits>,
) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => exited_with(code),
        (None, Some(6)) => match failed_allocation {
            Some(bytes) => out_of_memory(bytes, limits),
            None => "abortó (señal SIGABRT: std::process::abort, un pánico dentro de otro o un error fatal del runtime de Rust)".to_string(),
        },
        (None, Some(9)) => {
            "lo mató SIGKILL: el sistema sin memoria, el límite de tiempo de CPU, o tu propio código (kill -9)"
                .to_string()
        }
        (None, Some(24)) => {
            "superó el límite de tiempo de CPU (SIGXCPU); sugerencia: busca hilos que giran sin fin".to_string()
        }
        (None, Some(11)) => "violación de segmento (SIGSEGV)".to_string(),
        (None, Some(25)) => match limits {
            Some(l) => format!(
                "escribió un archivo de más de {} MiB (SIGXFSZ)",
                l.file_bytes >> 20
            ),
            None => "escribió un archivo más grande de lo que el sistema permite (SIGXFSZ)".to_string(),
        },
        (None, Some(sig)) => format!("terminó por la señal {sig}"),
        (None, None) => "terminó de forma desconocida".to_string(),
    }
}

/// The cause of death of a process that ended with `status` (Windows: its
/// exit code, an NTSTATUS when it crashed).
#[cfg(windows)]
fn cause_of_death(
    status: ExitStatus,
    failed_allocation: Option<u64>,
    limits: Option<Limits>,
) -> String {
    let Some(code) = status.code() else {
        return "terminó de forma desconocida".to_string();
    };
    match code as u32 {
        // STATUS_STACK_BUFFER_OVERRUN: the fast fail of std::process::abort.
        0xC000_0409 => match failed_allocation {
            Some(bytes) => out_of_memory(bytes, limits),
            None => "abortó (std::process::abort, un pánico dentro de otro o un error fatal del runtime de Rust)".to_string(),
        },
        0xC000_00FD => "desbordó su pila (STATUS_STACK_OVERFLOW)".to_string(),
        0xC000_0005 => "violación de acceso a memoria (STATUS_ACCESS_VIOLATION)".to_string(),
        _ => exited_with(code),
    }
}

/// A process that ended with exit status `code` itself.
fn exited_with(code: i32) -> String {
    format!(
        "terminó con el estado de salida {code} (como con std::process::exit({code})) antes de entregar un resultado"
    )
}

/// A process whose allocation of `bytes` failed, under `limits`.
fn out_of_memory(bytes: u64, limits: Option<Limits>) -> String {
    let limit = limits.map_or_else(String::new, |l| {
        format!(" (el límite es de {} GiB)", l.memory_bytes >> 30)
    });
    format!(
        "se quedó sin memoria: el harness vio fallar una reserva de {bytes} bytes{limit} y el proceso abortó"
    )
}

/// `line` without the thread ids Rust's runtime writes after a thread's
/// name (`thread 'main' (16302) has overflowed its stack`): they change
/// from run to run, and the report must not.
fn without_thread_ids(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("thread '") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let name_end = from["thread '".len()..]
            .find('\'')
            .map(|i| "thread '".len() + i + 1);
        let Some(end) = name_end else {
            rest = from;
            break;
        };
        out.push_str(&from[..end]);
        rest = &from[end..];
        if let Some(id) = rest.strip_prefix(" (")
            && let Some(close) = id.find(')')
            && close > 0
            && id[..close].bytes().all(|b| b.is_ascii_digit())
        {
            rest = &id[close + 1..];
        }
    }
    out.push_str(rest);
    out
}

/// How many of the last lines of a dead harness's stderr are quoted.
const QUOTED_LINES: usize = 3;

/// The last [`QUOTED_LINES`] non-empty lines of `stderr`, quoted as the
/// process's own output (empty when there are none). When they carry Rust's
/// stack-overflow message, a suggestion says what it means, labelled as
/// what that output says.
fn quote_tail(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let tail = lines[lines.len().saturating_sub(QUOTED_LINES)..]
        .iter()
        .map(|l| without_thread_ids(l))
        .collect::<Vec<_>>()
        .join("\n");
    let mut quoted = format!(
        "; lo último que el proceso escribió en su salida de error (tu código o el runtime de Rust): «{}»",
        crate::verdict::student_text(&tail)
    );
    if tail.contains("has overflowed its stack") {
        quoted.push_str(
            "; según esa salida, la pila se desbordó (stack overflow): ¿una recursión sin caso base?",
        );
    }
    quoted
}

/// The explorer's harness is a harness process too.
impl Built for HarnessProcess {
    fn machine_dependent(&self) -> bool {
        HarnessProcess::machine_dependent(self)
    }

    fn finish(&self) {
        HarnessProcess::finish(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::Answer;
    use sim::{ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry, Money, OrderId};

    /// What [`answer_reader`] makes of `output`, the answers of jobs whose
    /// caps are `caps`.
    fn heard(output: Vec<u8>, caps: &[usize]) -> Vec<Heard> {
        let shared: Caps = Default::default();
        lock(&shared).extend(caps.iter().copied());
        answer_reader(Some(std::io::Cursor::new(output)), shared)
            .iter()
            .collect()
    }

    fn reconciled(rows: u64) -> Answer {
        Ok(Observation::Reconciled(sim::Reconciliation {
            charges: rows,
            ..Default::default()
        }))
    }

    #[test]
    fn an_answer_longer_than_its_cap_is_unreadable_and_a_failed_allocation_is_heard() {
        let cap = 2 << 20;
        // A real answer of 1.5 MiB (junk before its marker) is read.
        let mut output = "x".repeat(1_500_000).into_bytes();
        output.extend(protocol::answer_line(&reconciled(3)).bytes());
        output.extend(b"\n@@kit-sin-memoria@@ 4096\n");
        // The next one passes its cap.
        let mut long = protocol::answer_line(&reconciled(4));
        long.push_str(&" ".repeat(3 << 20));
        output.extend(long.bytes());
        output.push(b'\n');
        let got = heard(output, &[cap, cap]);
        assert_eq!(got.len(), 3, "{} items", got.len());
        assert!(matches!(&got[0], Heard::Answer(Ok(Observation::Reconciled(r))) if r.charges == 3));
        assert!(matches!(got[1], Heard::AllocationFailed(4096)));
        let Heard::Unreadable(what) = &got[2] else {
            panic!("not unreadable")
        };
        assert_eq!(
            what,
            "la respuesta del harness, con lo que devolvió tu código, pasó de 2 MiB, el límite de esta verificación (crece con su trabajo), y el juez no la leyó"
        );
    }

    #[test]
    fn the_largest_real_answer_is_far_under_its_cap() {
        // Exercise 1's 100,009 calls, every number at its widest (some
        // some megabytes of base64 postcard; JSON took several times as much).
        let n = 100_009;
        let result = ChargeResult {
            charge_id: ChargeId(u64::MAX),
            amount: Money::from_cents(i64::MAX),
            status: ChargeStatus::Captured,
        };
        let entry = LedgerEntry {
            key: IdempotencyKey(u64::MAX),
            order_id: OrderId(u64::MAX),
            amount: Money::from_cents(i64::MAX),
            charge_id: ChargeId(u64::MAX),
        };
        let answer: Answer = Ok(Observation::Charges(protocol::Played {
            answers: vec![
                protocol::Answered {
                    result,
                    rows: usize::MAX
                };
                n
            ],
            ledger: vec![entry; n],
        }));
        let line = protocol::answer_line(&answer).len();
        let call = protocol::Call {
            key: IdempotencyKey(1),
            order_id: OrderId(1),
            amount: Money::from_cents(1),
        };
        let job = Job::Charges(protocol::Charges {
            idempotent: true,
            calls: vec![call; n],
        });
        assert!(line > 9_000_000, "{line}");
        assert!(
            answer_cap(&job) > 5 * line,
            "{} vs {line}",
            answer_cap(&job)
        );
        // A job of no work still gets 64 MiB.
        let empty = Job::Reconcile(protocol::Reconcile {
            orders: Vec::new(),
            ledger: Vec::new(),
        });
        assert_eq!(answer_cap(&empty), 64 << 20);
    }

    #[cfg(unix)]
    #[test]
    fn a_death_is_told_from_what_the_judge_observed_not_from_stderr() {
        use std::os::unix::process::ExitStatusExt;
        let aborted = Some(ExitStatus::from_raw(6));
        let faked = "depurando\nmemory allocation of 4096 bytes failed\n";
        let confined = Some(Limits {
            memory_bytes: 2 << 30,
            file_bytes: 64 << 20,
        });
        let what = explain_death(aborted, None, confined, faked);
        assert_eq!(
            what,
            "abortó (señal SIGABRT: std::process::abort, un pánico dentro de otro o un error fatal del runtime de Rust); lo último que el proceso escribió en su salida de error (tu código o el runtime de Rust): «depurando⏎memory allocation of 4096 bytes failed»"
        );
        let real = explain_death(aborted, Some(1 << 30), confined, faked);
        assert!(
            real.starts_with("se quedó sin memoria: el harness vio fallar una reserva de 1073741824 bytes (el límite es de 2 GiB) y el proceso abortó; lo último"),
            "{real}"
        );
        // Plain: no limit to name.
        let plain = explain_death(aborted, Some(1 << 30), None, "");
        assert_eq!(
            plain,
            "se quedó sin memoria: el harness vio fallar una reserva de 1073741824 bytes y el proceso abortó"
        );
        assert_eq!(
            without_thread_ids("thread 'main' (16302) has overflowed its stack; thread 'x' (a) y"),
            "thread 'main' has overflowed its stack; thread 'x' (a) y"
        );
        // Exit status 3, nothing on stderr: no quote.
        assert_eq!(
            explain_death(Some(ExitStatus::from_raw(3 << 8)), None, confined, "\n"),
            "terminó con el estado de salida 3 (como con std::process::exit(3)) antes de entregar un resultado"
        );
    }

    #[test]
    fn the_limit_follows_the_work() {
        let limits = TimeLimits::new(Duration::from_secs(5));
        let small = Job::Reconcile(protocol::Reconcile {
            orders: Vec::new(),
            ledger: Vec::new(),
        });
        assert_eq!(limits.of(&small), Duration::from_secs(5));
        let fleet = sim::Fleet::generated(200_000, (10, 500), 1.0, 100, 1, sim::StreamKind::Chacha);
        let big = Job::ReconcileFleet(protocol::ReconcileFleet {
            fleet,
            idempotent: false,
        });
        // 20 million units: 100 s on top of the floor.
        assert_eq!(limits.of(&big), Duration::from_secs(105));
    }
}
