//! The student's service as a process: started in its own process group
//! with `PORT`, `DATA_DIR` and `PROCESSOR_URL`, ready when `GET /health`
//! answers 200, stopped with SIGTERM and then SIGKILL, its group included,
//! on every exit path (dropped, a failed check, Ctrl-C through the judge's
//! [`judge::runner::cleanup`]). On Linux the kit is also the subreaper of
//! what the service starts, so a process that left the group (a session of
//! its own, a daemon's double fork) is found in the process tree and
//! stopped with it ([`judge::runner::tree`]), on Ctrl-C too.
//!
//! On Windows the command runs under `cmd /C` and is stopped with
//! `Child::kill` (no process group: what it started may outlive it).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::client::Client;
use crate::identity::Identity;
use crate::timeline::Timeline;

/// How a service is started.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The shell command (`python3 app.py`), run by `sh -c` (`cmd /C` on
    /// Windows).
    pub command: String,
    /// The folder it runs in.
    pub cwd: PathBuf,
    /// How long it may take to answer `GET /health` with 200.
    pub ready_within: Duration,
    /// The limit of each request the kit sends.
    pub request_limit: Duration,
}

/// A running instance of the service.
pub struct Service {
    child: Option<Child>,
    log: PathBuf,
    /// The client of this instance.
    pub client: Client,
    /// Its port, kept from the kit's other services until it has stopped
    /// (dropped after [`Service::stop`], by `Drop`).
    _port: PortLease,
}

/// The ports of this process's services that are starting or running: the
/// system's pick of a free port ([`PortLease::take`]) closes its listener
/// before the service binds the port, and in that moment another pick in
/// this process (two services of a run, runs of a class or of the tests at
/// once) could get the same port, and its `GET /health` be answered by the
/// other run's service (seen in `servicio`'s tests with 19 threads: 2 runs
/// in 10).
static LEASED: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());

/// A free loopback port, leased to one service of this process until
/// dropped. Another process may still take it before the service binds it:
/// [`Service::start`] retries once.
struct PortLease(u16);

impl PortLease {
    /// The system's pick of a free port that no other service of this
    /// process holds.
    ///
    /// # Errors
    /// No free port, in Spanish.
    fn take() -> Result<PortLease, String> {
        // Listeners kept open while looking, so the system never offers the
        // same port twice here.
        let mut tried = Vec::new();
        for _ in 0..64 {
            let listener = std::net::TcpListener::bind("127.0.0.1:0")
                .map_err(|e| format!("no se encontró un puerto libre en 127.0.0.1: {e}"))?;
            let port = listener.local_addr().map_err(|e| e.to_string())?.port();
            let mut leased = LEASED.lock().unwrap_or_else(|e| e.into_inner());
            if !leased.contains(&port) {
                leased.push(port);
                return Ok(PortLease(port));
            }
            tried.push(listener);
        }
        Err("no se encontró un puerto libre en 127.0.0.1 que no usara otro servicio del kit".into())
    }
}

impl Drop for PortLease {
    fn drop(&mut self) {
        LEASED
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .retain(|&p| p != self.0);
    }
}

impl Service {
    /// Starts `launch` as `identity` on `data_dir` with the processor at
    /// `processor_url` and waits until it is ready; its output goes to
    /// `log_dir`.
    ///
    /// # Errors
    /// Why it is not ready (exited, never answered 200 in time), with the
    /// last lines of its output, in Spanish.
    pub fn start(
        launch: &Launch,
        identity: &Identity,
        data_dir: &Path,
        processor_url: &str,
        log_dir: &Path,
        timeline: &Timeline,
    ) -> Result<Service, String> {
        match Service::start_once(launch, identity, data_dir, processor_url, log_dir, timeline) {
            // The port may have been taken between the pick and the bind:
            // once more, with another port, when it exited at once.
            Err((message, true)) => {
                Service::start_once(launch, identity, data_dir, processor_url, log_dir, timeline)
                    .map_err(|e| e.0)
                    .map_err(|again| {
                        if again == message {
                            again
                        } else {
                            format!("{message}\n(segundo intento) {again}")
                        }
                    })
            }
            other => other.map_err(|e| e.0),
        }
    }

    /// One start; the error says whether the service exited before it was
    /// ready (worth a retry on another port).
    fn start_once(
        launch: &Launch,
        identity: &Identity,
        data_dir: &Path,
        processor_url: &str,
        log_dir: &Path,
        timeline: &Timeline,
    ) -> Result<Service, (String, bool)> {
        let lease = PortLease::take().map_err(|e| (e, false))?;
        let port = lease.0;
        let log = log_dir.join(format!("servicio-{port}.log"));
        let out = File::create(&log)
            .map_err(|e| (format!("no se pudo crear {}: {e}", log.display()), false))?;
        let err = out.try_clone().map_err(|e| (e.to_string(), false))?;
        let mut command = shell(&launch.command);
        command
            .current_dir(&launch.cwd)
            .env("PORT", port.to_string())
            .env("DATA_DIR", data_dir)
            .env("PROCESSOR_URL", processor_url)
            .env("PYTHONUNBUFFERED", "1")
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err);
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        identity.prepare(&mut command);
        // What it leaves outside its group is handed to the kit, not to
        // init, and swept when it stops.
        #[cfg(target_os = "linux")]
        judge::runner::tree::become_subreaper();
        let child = judge::runner::cleanup::spawn_tracked(&mut command).map_err(|e| {
            (
                format!(
                    "no se pudo ejecutar el comando «{}»: {}",
                    launch.command,
                    judge::output::io_error(&e)
                ),
                false,
            )
        })?;
        let base = format!("http://127.0.0.1:{port}");
        let mut service = Service {
            child: Some(child),
            log,
            client: Client::new(&base, launch.request_limit, timeline.clone()),
            _port: lease,
        };
        let probe = Client::new(&base, Duration::from_secs(2), timeline.clone());
        let deadline = Instant::now() + launch.ready_within;
        let mut last = String::from("nunca aceptó una conexión");
        loop {
            if let Some(status) = service.exited() {
                let message = format!(
                    "el servicio («{}») terminó ({status}) antes de responder 200 en GET /health.{}",
                    launch.command,
                    service.tail_section()
                );
                return Err((message, true));
            }
            match probe.health() {
                Ok(200) => return Ok(service),
                Ok(other) => last = format!("GET /health respondió {other}"),
                Err(e) => {
                    if !e.contains("la conexión con el servicio falló") {
                        last = e;
                    }
                }
            }
            if Instant::now() >= deadline {
                let message = format!(
                    "el servicio («{}») no respondió 200 en GET /health en {} s (--espera); lo último: {last}.{}",
                    launch.command,
                    seconds(launch.ready_within),
                    service.tail_section()
                );
                service.stop();
                return Err((message, false));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// How it ended (`con estado 3`, `por la señal 9`), if it has.
    pub fn exited(&mut self) -> Option<String> {
        let child = self.child.as_mut()?;
        match child.try_wait() {
            Ok(Some(status)) => Some(describe_status(status)),
            _ => None,
        }
    }

    /// The last lines of its output, as a section of a message (empty
    /// when it printed nothing).
    pub fn tail_section(&self) -> String {
        let tail = tail(&self.log, 20);
        if tail.is_empty() {
            " No imprimió nada.".to_string()
        } else {
            format!("\nSus últimas líneas:\n{tail}")
        }
    }

    /// Stops it: SIGTERM to its group, up to 3 s, then SIGKILL.
    pub fn stop(&mut self) {
        self.end(Duration::from_secs(3));
    }

    /// Kills it at once (SIGKILL to its group), as a crash would.
    pub fn kill(&mut self) {
        self.end(Duration::ZERO);
    }

    fn end(&mut self, grace: Duration) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        #[cfg(unix)]
        {
            use nix::sys::signal::{Signal, killpg};
            use nix::unistd::Pid;
            let group = Pid::from_raw(child.id() as i32);
            // Everything it started, before the leader goes and its
            // children are handed over.
            #[cfg(target_os = "linux")]
            let started = judge::runner::tree::descendants(child.id() as i32);
            // The whole group, not only its leader: with `sh -c "python3
            // app.py"` the leader is a shell that dies at SIGTERM at once
            // while the service, its child, is still shutting down.
            let group_alive = |child: &mut Child| {
                // A dead leader, and members that ended and were handed to
                // the kit (its subreaper), reaped: a zombie is not alive.
                let _ = child.try_wait();
                #[cfg(target_os = "linux")]
                while let Ok(status) = nix::sys::wait::waitpid(
                    Pid::from_raw(-group.as_raw()),
                    Some(nix::sys::wait::WaitPidFlag::WNOHANG),
                ) {
                    if status == nix::sys::wait::WaitStatus::StillAlive {
                        break;
                    }
                }
                killpg(group, None).is_ok()
            };
            if !grace.is_zero() && group_alive(&mut child) {
                let _ = killpg(group, Signal::SIGTERM);
                #[cfg(target_os = "linux")]
                judge::runner::tree::signal(&started, Signal::SIGTERM);
                let deadline = Instant::now() + grace;
                while Instant::now() < deadline && group_alive(&mut child) {
                    std::thread::sleep(Duration::from_millis(20));
                }
            }
            // The group, even when its leader is gone (a wrapper shell's
            // children).
            let _ = killpg(group, Signal::SIGKILL);
            #[cfg(target_os = "linux")]
            judge::runner::tree::signal(&started, Signal::SIGKILL);
        }
        #[cfg(not(unix))]
        {
            let _ = grace;
            let _ = child.kill();
        }
        let _ = child.wait();
        judge::runner::cleanup::untrack_group(child.id());
        // What it left outside its group, handed to the kit.
        #[cfg(target_os = "linux")]
        judge::runner::cleanup::sweep_orphans();
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        self.stop();
    }
}

/// `300` or `0.6`: seconds as a person writes them.
pub fn seconds(d: Duration) -> String {
    if d.subsec_millis() == 0 {
        d.as_secs().to_string()
    } else {
        format!("{:.1}", d.as_secs_f64())
    }
}

fn shell(command: &str) -> Command {
    #[cfg(unix)]
    {
        let mut c = Command::new("sh");
        c.arg("-c").arg(command);
        c
    }
    #[cfg(not(unix))]
    {
        let mut c = Command::new("cmd");
        c.arg("/C").arg(command);
        c
    }
}

fn describe_status(status: std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("por la señal {signal}");
        }
    }
    match status.code() {
        Some(code) => format!("con estado {code}"),
        None => "sin estado".to_string(),
    }
}

/// The last `n` lines of file `path` (at most its last 64 KiB), each made
/// safe to show.
pub fn tail(path: &Path, n: usize) -> String {
    let Ok(mut file) = File::open(path) else {
        return String::new();
    };
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    let _ = file.seek(SeekFrom::Start(len.saturating_sub(64 * 1024)));
    let mut bytes = Vec::new();
    let _ = file.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..]
        .iter()
        .map(|l| format!("  | {}", judge::verdict::student_text(l)))
        .collect::<Vec<_>>()
        .join("\n")
}
