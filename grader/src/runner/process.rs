//! One harness process per list of jobs: its own process group, resource
//! limits and (as root) the sandbox; the jobs as JSON on its stdin; one
//! answer line per job on its stdout, each awaited with a time limit that
//! follows the job's work. Whatever else the implementation prints is
//! dropped, at most [`STDERR_TAIL`] bytes of its stderr are kept to explain
//! a death, and the whole group is killed when the answers are in.

use std::io::{BufRead, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
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
    /// The explorer's harness of the same implementation, for exercise 4's
    /// schedules (built when first asked for); `None` for a harness that is
    /// itself the explorer's, or has none.
    pub explorer: Option<super::explorer::Lazy>,
}

impl Execute for HarnessProcess {
    fn execute(&self, jobs: &[Job]) -> Vec<Result<Observation, Verdict>> {
        if jobs.is_empty() {
            return Vec::new();
        }
        let (mut child, cell) = match self.spawn(self.cpu_budget(jobs)) {
            Ok(c) => c,
            Err(e) => {
                let v = Verdict::Crashed {
                    what: format!("no se pudo iniciar el harness: {e}"),
                };
                return vec![Err(v); jobs.len()];
            }
        };
        let input = serde_json::to_vec(jobs).unwrap_or_default();
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
    /// Ends the run: kills whatever harness processes left running outside
    /// their process group (in the sandbox: every process of the run's
    /// unprivileged users) and removes the sandbox's scratch folders. Call
    /// when no job is running any more.
    pub fn finish(&self) {
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

    /// CPU seconds a harness running `jobs` may use: every job's limit,
    /// on twice every core, and a second more. It never binds while the judge
    /// watches the wall clock (see [`sandbox::confine`]).
    fn cpu_budget(&self, jobs: &[Job]) -> u64 {
        let wall: Duration = jobs.iter().map(|j| self.limits.of(j)).sum();
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
