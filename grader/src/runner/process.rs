//! Harness processes: each in its own process group, with resource limits
//! and (as root) the sandbox; each list of jobs as one line of JSON on its
//! stdin; one answer line per job on its stdout, each awaited with a time
//! limit that follows the job's work. Whatever else the implementation
//! prints is dropped, at most [`STDERR_TAIL`] bytes of its stderr are kept
//! to explain a death, and the whole group is killed when it ends.
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
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Mutex, mpsc};
use std::time::Duration;

use protocol::{Answer, Failure, Job, Observation};

use super::Execute;
use super::cleanup;
use super::sandbox::{self, Cell, Sandbox};
use crate::verdict::Verdict;

/// At most this much of the end of a harness's stderr is kept.
const STDERR_TAIL: usize = 64 << 10;
/// A line without an answer marker is dropped once it is this long.
const JUNK_LINE: usize = 1 << 20;

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
    /// The unprivileged identities, when grading as root.
    pub sandbox: Option<&'static Sandbox>,
    /// A private folder holding `program` (a copy of what cargo built),
    /// removed when the run ends.
    pub owned: Option<PathBuf>,
    /// The harness processes waiting for more jobs.
    pub pool: Pool,
    /// The explorer's harness of the same implementation, for exercise 4's
    /// schedules (built when first asked for); `None` for a harness that is
    /// itself the explorer's, or has none.
    pub explorer: Option<super::explorer::Lazy>,
}

/// How long a shared harness process may serve: the sum of the time limits
/// of the jobs it is given (its CPU limit follows from it, as for a process
/// of one list); a list that would pass it starts a new process.
const SESSION_WALL: Duration = Duration::from_secs(8 * 3600);

/// The idle harness processes of a [`HarnessProcess`], each ready for more
/// lists of jobs (see the module's doc). A process serves only the thread
/// that started it: the kernel ends it when that thread ends (the
/// parent-death signal of [`sandbox::confine`] follows the thread).
#[derive(Debug, Default)]
pub struct Pool {
    /// One process per list of jobs, never shared (for comparisons).
    unshared: bool,
    idle: Mutex<Vec<(std::thread::ThreadId, Session)>>,
}

impl Pool {
    /// A pool that never shares a process: every list of jobs runs in a
    /// process of its own.
    pub fn unshared() -> Pool {
        Pool {
            unshared: true,
            idle: Mutex::new(Vec::new()),
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
    answers: mpsc::Receiver<Result<Result<Observation, Verdict>, String>>,
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
        let answers = answer_reader(child.stdout.take());
        let stderr = tail_reader(child.stderr.take());
        let mut results = Vec::with_capacity(jobs.len());
        for job in jobs {
            let limit = self.limits.of(job);
            match answers.recv_timeout(limit) {
                Ok(Ok(answer)) => results.push(answer),
                Ok(Err(e)) => {
                    results.push(Err(Verdict::Crashed {
                        what: format!(
                            "el harness entregó una respuesta ilegible ({e}); ¿tu código escribe líneas que imitan el protocolo del grader?"
                        ),
                    }));
                    break;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    results.push(Err(Verdict::TimedOut {
                        limit_ms: limit.as_millis() as u64,
                        case: None,
                    }));
                    break;
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    let status = wait_briefly(&mut child);
                    results.push(Err(Verdict::Crashed {
                        what: explain_death(status, &collect(stderr)),
                    }));
                    self.end(&mut child, cell.as_ref());
                    return finish(results, jobs.len());
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
        let sessions = self.pool.drain();
        // All killed first: the kernel frees their memory at once.
        for session in &sessions {
            kill_group(&session.child);
        }
        for session in sessions {
            self.end_session(session);
        }
        if let Some(e) = &self.explorer {
            e.finish();
        }
        if let Some(s) = self.sandbox {
            s.kill_leftovers();
        }
        if let Some(dir) = &self.owned {
            cleanup::remove_folder(dir);
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
        if let (Some(s), Some(cell)) = (self.sandbox, cell) {
            s.release(cell);
        }
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
        let answers = answer_reader(child.stdout.take());
        // Read to the end, so the harness never blocks on a full pipe;
        // a death in a shared process is explained by the run alone.
        let _ = tail_reader(child.stderr.take());
        Some(Session {
            child,
            cell,
            input,
            answers,
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
    /// use: that time on twice every core, and a second more. It never
    /// binds while the judge watches the wall clock (see
    /// [`sandbox::confine`]).
    fn cpu_budget(&self, wall: Duration) -> u64 {
        // Twice the cores: `available_parallelism` rounds a fractional CPU
        // quota down.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        wall.as_secs()
            .saturating_add(1)
            .saturating_mul(2 * cores)
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
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let cell = self.sandbox.map(Sandbox::acquire).transpose()?;
        if let Some(c) = &cell {
            cmd.current_dir(&c.scratch);
        }
        let confined = cell.clone();
        // SAFETY: `confine` only makes async-signal-safe system calls
        // (setrlimit, unshare, setgroups, setgid, setuid, prctl) between fork
        // and exec, and allocates nothing.
        unsafe {
            cmd.pre_exec(move || sandbox::confine(confined.as_ref(), cpu_seconds));
        }
        match cmd.spawn() {
            Ok(mut child) => match cleanup::track_group(child.id()) {
                Ok(()) => Ok((child, cell)),
                Err(e) => {
                    self.end(&mut child, cell.as_ref());
                    Err(e)
                }
            },
            Err(e) => {
                if let (Some(s), Some(c)) = (self.sandbox, &cell) {
                    s.release(c);
                }
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
        if self.input.send(protocol::job_line(jobs)).is_err() {
            return stopped(Vec::new(), 0, false);
        }
        let mut answered = Vec::with_capacity(jobs.len());
        for (at, job) in jobs.iter().enumerate() {
            match self.answers.recv_timeout(limits.of(job)) {
                Ok(Ok(answer)) => answered.push(answer),
                Ok(Err(_)) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                    return stopped(answered, at, false);
                }
                Err(mpsc::RecvTimeoutError::Timeout) => return stopped(answered, at, true),
            }
        }
        Served::All(answered)
    }
}

/// Whether the harness process `child` runs alone: one thread, and no
/// other process in its process group (in the sandbox: of its user). A job
/// that ran out of time in such a process had it to itself.
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

/// The process group of process `pid` (field 5 of `/proc/PID/stat`).
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

impl From<Failure> for Verdict {
    fn from(f: Failure) -> Verdict {
        match f {
            Failure::Pending { location } => Verdict::Pending { location },
            Failure::Panicked { message, location } => Verdict::Panicked { message, location },
        }
    }
}

/// Reads the harness's stdout, sending one item per answer line; other
/// output is dropped.
fn answer_reader<R: Read + Send + 'static>(
    pipe: Option<R>,
) -> mpsc::Receiver<Result<Result<Observation, Verdict>, String>> {
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
                continue;
            }
            line.pop();
            let text = String::from_utf8_lossy(&line);
            if let Some(parsed) = protocol::parse_answer_line(&text) {
                let item = parsed.map(|a: Answer| a.map_err(Verdict::from));
                if tx.send(item).is_err() {
                    return;
                }
            }
            line.clear();
            marked = false;
        }
    });
    rx
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

/// Sends SIGKILL to the child's process group (it and whatever it spawned).
fn kill_group(child: &Child) {
    if let Ok(pid) = i32::try_from(child.id()) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(pid),
            nix::sys::signal::Signal::SIGKILL,
        );
    }
}

/// Spanish explanation of a harness that died without answering.
fn explain_death(status: Option<ExitStatus>, stderr: &str) -> String {
    use std::os::unix::process::ExitStatusExt;
    if stderr.contains("has overflowed its stack") {
        return "desbordó la pila (stack overflow): ¿una recursión sin caso base?".to_string();
    }
    if stderr.contains("memory allocation of") || stderr.contains("capacity overflow") {
        return format!(
            "se quedó sin memoria: superó el límite de {} GiB (¿un ledger o un store que crece sin fin?)",
            sandbox::MEMORY_BYTES >> 30
        );
    }
    let Some(status) = status else {
        return "cerró su salida y no terminó: ¿cerró la salida estándar?".to_string();
    };
    match (status.code(), status.signal()) {
        (Some(code), _) => format!(
            "el código terminó el proceso con std::process::exit({code}) antes de entregar un resultado"
        ),
        (None, Some(6)) => "abortó (std::process::abort o un error fatal del runtime)".to_string(),
        (None, Some(9)) => {
            "lo mató SIGKILL: el sistema sin memoria, el límite de tiempo de CPU, o tu propio código (kill -9)"
                .to_string()
        }
        (None, Some(24)) => {
            "superó el límite de tiempo de CPU (SIGXCPU): ¿hilos que giran sin fin?".to_string()
        }
        (None, Some(11)) => "violación de segmento (SIGSEGV)".to_string(),
        (None, Some(25)) => format!(
            "escribió un archivo de más de {} MiB (SIGXFSZ)",
            sandbox::FILE_BYTES >> 20
        ),
        (None, Some(sig)) => format!("terminó por la señal {sig}"),
        (None, None) => "terminó de forma desconocida".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_follows_the_work() {
        let limits = TimeLimits::new(Duration::from_secs(5));
        let small = Job::Reconcile {
            orders: Vec::new(),
            ledger: Vec::new(),
        };
        assert_eq!(limits.of(&small), Duration::from_secs(5));
        let fleet = sim::Fleet::generated(200_000, (10, 500), 1.0, 100, 1, sim::StreamKind::Chacha);
        let big = Job::ReconcileFleet {
            fleet,
            idempotent: false,
        };
        // 20 million units: 100 s on top of the floor.
        assert_eq!(limits.of(&big), Duration::from_secs(105));
    }
}
