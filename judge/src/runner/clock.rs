//! A job's clock: the time a job has had counts the time its harness
//! process could run, not the time it waited for a CPU that other processes
//! held. A class graded four submissions at a time on two cores, or CI's
//! two lanes beside a grading, must not turn a correct answer's large case
//! into "no terminó" (a class is graded as each submission alone).
//!
//! On Linux the kernel counts, for each thread, the nanoseconds it spent
//! runnable but waiting on a run queue (`/proc/PID/task/TID/schedstat`, the
//! second field). The clock takes the thread that ran most since the job
//! began (the one doing the job) and subtracts its wait from the wall time.
//! A job that loops, sleeps or deadlocks waits for no CPU, so on a quiet
//! machine the clock is the wall clock; on a busy one a job is still cut
//! after [`STRETCH`] times its limit of wall time. Elsewhere (macOS,
//! Windows, a `/proc` that hides the harness) the clock is the wall clock.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// The most wall time a job may take, in multiples of its limit, however
/// long it waited for a CPU.
pub const STRETCH: u32 = 3;

/// One job's clock, started when the job is sent to harness process `pid`.
#[derive(Debug)]
pub struct JobClock {
    pid: u32,
    started: Instant,
    /// Each thread's (CPU ns, run-queue wait ns) when the job began.
    before: HashMap<u32, (u64, u64)>,
}

impl JobClock {
    /// Starts the clock of a job sent now to harness process `pid`.
    pub fn start(pid: u32) -> JobClock {
        JobClock {
            pid,
            started: Instant::now(),
            before: threads(pid),
        }
    }

    /// How long to wait for the answer before looking at the clock again,
    /// or `None` when the job's time (`limit`) is up.
    pub fn left(&self, limit: Duration) -> Option<Duration> {
        let wall = self.started.elapsed();
        if wall >= limit.saturating_mul(STRETCH) {
            return None;
        }
        let had = wall.saturating_sub(self.waited());
        let left = limit.checked_sub(had).filter(|d| !d.is_zero())?;
        // Looked at again at most every half second: a wait granted now
        // may be needed or not by then.
        Some(left.min(Duration::from_millis(500)))
    }

    /// The run-queue wait, since the job began, of the thread that ran
    /// most since then (zero where the kernel does not say).
    fn waited(&self) -> Duration {
        let now = threads(self.pid);
        let busiest = now
            .iter()
            .map(|(tid, &(cpu, wait))| {
                let (cpu0, wait0) = self.before.get(tid).copied().unwrap_or((0, 0));
                (cpu.saturating_sub(cpu0), wait.saturating_sub(wait0))
            })
            .max_by_key(|&(cpu, _)| cpu);
        busiest.map_or(Duration::ZERO, |(_, wait)| Duration::from_nanos(wait))
    }
}

/// Each thread of process `pid`: (CPU ns, run-queue wait ns).
#[cfg(target_os = "linux")]
fn threads(pid: u32) -> HashMap<u32, (u64, u64)> {
    let mut found = HashMap::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return found;
    };
    for task in tasks.flatten() {
        let Some(tid) = task.file_name().to_str().and_then(|t| t.parse().ok()) else {
            continue;
        };
        if let Some(stat) = std::fs::read_to_string(task.path().join("schedstat"))
            .ok()
            .and_then(|s| schedstat(&s))
        {
            found.insert(tid, stat);
        }
    }
    found
}

/// Without `/proc`: no thread known, the wall clock.
#[cfg(not(target_os = "linux"))]
fn threads(_: u32) -> HashMap<u32, (u64, u64)> {
    HashMap::new()
}

/// The first two fields of a `schedstat` line: CPU ns and run-queue wait ns.
#[cfg_attr(not(target_os = "linux"), allow(dead_code))]
fn schedstat(line: &str) -> Option<(u64, u64)> {
    let mut fields = line.split_whitespace().map(str::parse::<u64>);
    Some((fields.next()?.ok()?, fields.next()?.ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_schedstat_line_gives_cpu_and_wait() {
        assert_eq!(schedstat("2611169 1000 1\n"), Some((2_611_169, 1000)));
        assert_eq!(schedstat("12"), None);
        assert_eq!(schedstat("x 1 1"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_sleeping_process_is_cut_at_its_limit() {
        // It waits for no CPU, so its clock is the wall clock, however busy
        // the machine is.
        let mut sleeper = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .unwrap();
        let clock = JobClock::start(sleeper.id());
        let limit = Duration::from_millis(300);
        assert!(clock.left(limit).is_some());
        std::thread::sleep(Duration::from_millis(400));
        let left = clock.left(limit);
        let _ = sleeper.kill();
        let _ = sleeper.wait();
        assert_eq!(left, None);
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_job_that_waits_for_a_busy_cpu_gets_that_time_back() {
        // Three endless loops on one CPU: each runs about a third of the
        // time and waits the rest.
        let busy = || {
            std::process::Command::new("taskset")
                .args(["-c", "0", "sh", "-c", "while :; do :; done"])
                .spawn()
                .unwrap()
        };
        let mut job = busy();
        let mut hogs = [busy(), busy()];
        let clock = JobClock::start(job.id());
        std::thread::sleep(Duration::from_millis(900));
        let left = clock.left(Duration::from_millis(600));
        let waited = clock.waited();
        for p in std::iter::once(&mut job).chain(hogs.iter_mut()) {
            let _ = p.kill();
            let _ = p.wait();
        }
        // 900 ms of wall time, of which it waited about 600: it had about
        // 300 of its 600.
        assert!(waited >= Duration::from_millis(300), "{waited:?}");
        assert!(left.is_some(), "{waited:?}");
    }

    #[test]
    fn past_the_stretch_the_time_is_up_whatever_the_wait() {
        let clock = JobClock {
            pid: u32::MAX, // no such process: nothing known
            started: Instant::now() - Duration::from_secs(4),
            before: HashMap::new(),
        };
        assert_eq!(clock.left(Duration::from_secs(1)), None);
        assert_eq!(clock.left(Duration::from_secs(2)), None);
        assert_eq!(
            clock.left(Duration::from_secs(10)),
            Some(Duration::from_millis(500))
        );
    }
}
