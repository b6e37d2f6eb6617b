//! Runs each check in a child process, so that nothing the student's code does
//! (`todo!()`, a panic, an endless loop, a stack overflow, an abort,
//! `std::process::exit`, unbounded memory) can take the report down.
//!
//! The parent re-executes a program (normally the grader itself) with the same
//! arguments and the environment variable [`CHILD_ENV`] naming one check. The
//! child runs that check under a memory limit and prints its verdict as one
//! JSON line behind a marker; the parent kills it after the time limit and
//! explains whatever else happened.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::panic::{self, AssertUnwindSafe};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use sim::Kit;
use wait_timeout::ChildExt;

use crate::checks::Catalog;
use crate::verdict::Verdict;

/// The variable that tells a process to run one check as a child: its value
/// is the check id.
pub const CHILD_ENV: &str = "KIT_GRADER_CHECK";
/// The variable carrying the marker nonce of the verdict line.
/// Address-space limit of a child: 2 GiB.
pub const CHILD_MEMORY_BYTES: u64 = 2 << 30;
/// At most this much of a child's stdout and stderr is kept.
const OUTPUT_CAP: u64 = 1 << 20;
/// Past that, at most this much of the end of each is kept.
const OUTPUT_TAIL: usize = 256 << 10;

/// How to start children.
#[derive(Clone, Debug)]
pub struct Runner {
    /// The program to run (the grader's own executable).
    pub program: PathBuf,
    /// Its arguments (the parent's own, so the child builds the same catalog).
    pub args: Vec<OsString>,
    /// Per-check time limit.
    pub timeout: Duration,
    /// How many children run at once.
    pub workers: usize,
}

impl Runner {
    /// A runner that re-executes this very process with its own arguments.
    pub fn this_process(timeout: Duration) -> Runner {
        Runner {
            program: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("grader")),
            args: std::env::args_os().skip(1).collect(),
            timeout,
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
        }
    }

    /// Runs every check id in a child, `workers` at a time; verdicts come back
    /// in the order of `ids`.
    pub fn run_all(&self, ids: &[String]) -> Vec<Verdict> {
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Option<Verdict>>> = Mutex::new(vec![None; ids.len()]);
        std::thread::scope(|scope| {
            for _ in 0..self.workers.max(1).min(ids.len().max(1)) {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, Ordering::SeqCst);
                        let Some(id) = ids.get(i) else { break };
                        let v = self.run_one(id);
                        results.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(v);
                    }
                });
            }
        });
        results
            .into_inner()
            .unwrap_or_else(|e| e.into_inner())
            .into_iter()
            .map(|v| {
                v.unwrap_or(Verdict::Crashed {
                    what: "no se ejecutó".to_string(),
                })
            })
            .collect()
    }

    /// Runs one check in a child and explains how it ended.
    pub fn run_one(&self, id: &str) -> Verdict {
        match self.run_job(id) {
            Ok(value) => serde_json::from_value(value).unwrap_or_else(|e| Verdict::Crashed {
                what: format!("respuesta ilegible del proceso hijo: {e}"),
            }),
            Err(v) => v,
        }
    }

    /// Runs `job` (a check id, or another job the child understands) in a
    /// child. `Ok` carries the child's JSON answer; `Err` says how the code
    /// failed (`todo!()`, panic, time limit, crash).
    pub fn run_job(&self, id: &str) -> Result<serde_json::Value, Verdict> {
        let nonce = new_nonce();
        let mut child = match Command::new(&self.program)
            .args(&self.args)
            .env(CHILD_ENV, id)
            // Student code must never see the instructor's secret seed.
            .env_remove(crate::variants::SECRET_SEED_ENV)
            .env("RUST_BACKTRACE", "0")
            // Its own process group, so that whatever it spawns dies with it.
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(c) => c,
            Err(e) => {
                return Err(Verdict::Crashed {
                    what: format!("no se pudo iniciar el proceso hijo: {e}"),
                });
            }
        };
        // The nonce travels on stdin, read before any student code runs: it
        // is in no environment variable or argument the student's code sees.
        if let Some(mut stdin) = child.stdin.take() {
            let _ = writeln!(stdin, "{nonce}");
        }
        let out = reader(child.stdout.take());
        let err = reader(child.stderr.take());
        let status = match child.wait_timeout(self.timeout) {
            Ok(Some(status)) => Some(status),
            Ok(None) | Err(_) => None,
        };
        // Kill the whole group (the child if it timed out, and anything it
        // left running, which could hold the pipes open), then reap.
        kill_group(child.id());
        let _ = child.wait();
        let stdout = collect(out);
        let stderr = collect(err);
        let Some(status) = status else {
            return Err(Verdict::TimedOut {
                limit_ms: self.timeout.as_millis() as u64,
            });
        };
        let marker = marker(&nonce);
        if let Some(line) = stdout.lines().rev().find_map(|l| l.strip_prefix(&marker))
            && let Ok(answer) = serde_json::from_str::<Result<serde_json::Value, Verdict>>(line)
        {
            return answer;
        }
        Err(Verdict::Crashed {
            what: explain_death(status, &stderr),
        })
    }
}

/// 128 random bits in hex (std's randomly keyed hasher, per process and call).
fn new_nonce() -> String {
    use std::hash::{BuildHasher, Hasher};
    let word = |salt: u64| {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(salt);
        h.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        h.finish()
    };
    format!(
        "{:016x}{:016x}",
        word(u64::from(std::process::id())),
        word(0x9e37_79b9)
    )
}

/// Sends SIGKILL to process group `pgid` (the child's own).
fn kill_group(pgid: u32) {
    if let Ok(pgid) = i32::try_from(pgid) {
        // SAFETY: killpg only sends a signal; a stale group id is harmless.
        unsafe {
            libc::killpg(pgid, libc::SIGKILL);
        }
    }
}

/// A reader's text, or what it had when a process outside the group still
/// holds the pipe open after a grace period.
fn collect(reader: Reader) -> String {
    let (rx, buffer) = reader;
    match rx.recv_timeout(Duration::from_secs(2)) {
        Ok(text) => text,
        Err(_) => {
            String::from_utf8_lossy(&buffer.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
        }
    }
}

fn marker(nonce: &str) -> String {
    format!("@@veredicto-{nonce}@@ ")
}

/// A reader thread's result channel, and the head of what it read so far.
type Reader = (
    std::sync::mpsc::Receiver<String>,
    std::sync::Arc<Mutex<Vec<u8>>>,
);

/// Reads a child's pipe to the end, keeping its first [`OUTPUT_CAP`] bytes
/// and its last [`OUTPUT_TAIL`] ones: the verdict line (stdout) and the
/// runtime's last words (stderr) come at the end, after whatever the
/// student's code printed. The head is also shared as it is read.
fn reader<R: Read + Send + 'static>(pipe: Option<R>) -> Reader {
    let (tx, rx) = std::sync::mpsc::channel();
    let head = std::sync::Arc::new(Mutex::new(Vec::new()));
    let shared = std::sync::Arc::clone(&head);
    std::thread::spawn(move || {
        let Some(mut pipe) = pipe else {
            let _ = tx.send(String::new());
            return;
        };
        let mut tail = Vec::new();
        let mut chunk = [0u8; 1 << 16];
        loop {
            match pipe.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => {
                    let mut kept = shared.lock().unwrap_or_else(|e| e.into_inner());
                    let room = (OUTPUT_CAP as usize).saturating_sub(kept.len()).min(n);
                    kept.extend_from_slice(&chunk[..room]);
                    drop(kept);
                    tail.extend_from_slice(&chunk[room..n]);
                    if tail.len() > 2 * OUTPUT_TAIL {
                        tail.drain(..tail.len() - OUTPUT_TAIL);
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(_) => break,
            }
        }
        let mut kept = shared.lock().unwrap_or_else(|e| e.into_inner()).clone();
        if !tail.is_empty() {
            tail.drain(..tail.len().saturating_sub(OUTPUT_TAIL));
            kept.extend_from_slice(b"\n");
            kept.extend_from_slice(&tail);
        }
        let _ = tx.send(String::from_utf8_lossy(&kept).into_owned());
    });
    (rx, head)
}

/// Spanish explanation of a child that died without a verdict.
fn explain_death(status: std::process::ExitStatus, stderr: &str) -> String {
    use std::os::unix::process::ExitStatusExt;
    if stderr.contains("has overflowed its stack") {
        return "desbordó la pila (stack overflow): ¿una recursión sin caso base?".to_string();
    }
    if stderr.contains("memory allocation of") || stderr.contains("capacity overflow") {
        return format!(
            "se quedó sin memoria: superó el límite de {} GiB (¿un ledger o un store que crece sin fin?)",
            CHILD_MEMORY_BYTES >> 30
        );
    }
    match (status.code(), status.signal()) {
        (Some(code), _) => format!(
            "el código terminó el proceso con std::process::exit({code}) antes de entregar un resultado"
        ),
        (None, Some(6)) => "abortó (std::process::abort o un error fatal del runtime)".to_string(),
        (None, Some(9)) => "el sistema lo mató (SIGKILL), probablemente por memoria".to_string(),
        (None, Some(11)) => "violación de segmento (SIGSEGV)".to_string(),
        (None, Some(sig)) => format!("terminó por la señal {sig}"),
        (None, None) => "terminó de forma desconocida".to_string(),
    }
}

/// What the panic hook saw: message and `file:line:column`.
static LAST_PANIC: Mutex<Option<(String, String)>> = Mutex::new(None);

/// If this process was started as a child, the check id it must run.
pub fn child_check_id() -> Option<String> {
    std::env::var(CHILD_ENV).ok()
}

/// Runs check `id` of `catalog` against `K` in this (child) process and
/// prints the answer line.
pub fn child_check<K: Kit>(catalog: &Catalog, id: &str) {
    child_respond(|| match catalog.find(id) {
        None => Verdict::Crashed {
            what: format!("verificación desconocida: {id}"),
        },
        Some(check) => catalog.run::<K>(check),
    });
}

/// Runs `job` in this (child) process under the memory limit, turning a
/// panic into a verdict, and prints the answer line the parent reads.
pub fn child_respond<T: serde::Serialize>(job: impl FnOnce() -> T) {
    limit_memory();
    // The parent's nonce for the answer line, read before any student code.
    let mut nonce = String::new();
    let _ = std::io::stdin().read_line(&mut nonce);
    let nonce = nonce.trim().to_string();
    let answer: Result<serde_json::Value, Verdict> =
        catch(job).map(|t| serde_json::to_value(t).unwrap_or(serde_json::Value::Null));
    let json = serde_json::to_string(&answer).unwrap_or_default();
    println!("\n{}{json}", marker(&nonce));
}

/// Runs `job` in this process; a panic becomes `Err(Pending)` for a
/// `todo!()` or `Err(Panicked)` with its message and location.
pub fn catch<T>(job: impl FnOnce() -> T) -> Result<T, Verdict> {
    panic::set_hook(Box::new(|info| {
        let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(pánico sin mensaje)".to_string()
        };
        let location = info.location().map_or_else(String::new, |l| {
            format!("{}:{}:{}", l.file(), l.line(), l.column())
        });
        let mut slot = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some((message, location));
        }
    }));
    *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = None;
    let result = panic::catch_unwind(AssertUnwindSafe(job));
    let _ = panic::take_hook();
    result.map_err(|_| {
        let (message, location) = LAST_PANIC
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| ("(pánico sin mensaje)".to_string(), String::new()));
        if message.starts_with("not yet implemented") {
            Verdict::Pending {
                location: strip_column(&location),
            }
        } else {
            Verdict::Panicked { message, location }
        }
    })
}

fn strip_column(location: &str) -> String {
    match location.rsplit_once(':') {
        Some((rest, col)) if col.chars().all(|c| c.is_ascii_digit()) => rest.to_string(),
        _ => location.to_string(),
    }
}

fn limit_memory() {
    let _ = rlimit::setrlimit(rlimit::Resource::AS, CHILD_MEMORY_BYTES, CHILD_MEMORY_BYTES);
}
