//! The harness: a small program that links `sim` and one implementation of
//! the exercises (the three of lesson 2 and lesson 4's bonus) and does nothing but run the judge's [`Job`]s against
//! it, answering with raw observations (see the `protocol` crate). It decides
//! no grade: the judge (`grader`) compares what it observed with the oracle.

mod alloc;
pub mod atomico;
mod catch;
mod cliente;
mod cobro;
mod reconciliacion;
mod trace;
mod world;

use std::io::Write;

use protocol::schedules::{Explored, Schedules};
use protocol::{Answer, Job, Observation, Request, SharedAnswered};
use sim::Kit;

pub use catch::catch;

/// Every allocation of a harness goes through [`alloc::Watched`], so that a
/// failed one is told to the judge on the answers' channel.
#[global_allocator]
static ALLOCATOR: alloc::Watched = alloc::Watched;

/// Reads lists of jobs from stdin, each one line ([`protocol::job_line`]), and
/// prints one answer line per job, in order, flushing each, on the
/// process's original stdout, until stdin ends; the judge may send the next
/// list after the answers of the last. What the implementation prints goes
/// to stderr instead (see [`private_stdout`]). Input that is not such a
/// list ends the process with status 2.
pub fn serve<K: Kit>() {
    use std::io::BufRead;
    let mut answers = private_stdout();
    let mut input = std::io::stdin().lock();
    let mut line = String::new();
    loop {
        line.clear();
        match input.read_line(&mut line) {
            Ok(0) => {
                // The channel closes with `answers`, at the end of this call.
                alloc::unwatch();
                return;
            }
            Ok(_) => {}
            Err(e) => {
                eprintln!("harness: no se pudo leer la entrada: {e}");
                std::process::exit(2);
            }
        }
        if line.trim().is_empty() {
            continue;
        }
        let jobs = protocol::parse_job_line(&line).unwrap_or_else(|e| {
            eprintln!("harness: trabajos ilegibles en la entrada: {e}");
            std::process::exit(2);
        });
        for job in &jobs {
            let answer = answer_caught::<K>(job);
            let _ = writeln!(answers, "\n{}", protocol::answer_line(&answer));
            let _ = answers.flush();
        }
    }
}

/// The answers' own channel: a private copy of stdout taken before any job
/// runs, after which stdout itself is stderr, so nothing the
/// implementation prints (`println!` included, and what a process it
/// starts prints) can pass for an answer. Where that cannot be arranged,
/// plain stdout.
fn private_stdout() -> Box<dyn Write> {
    match take_stdout() {
        Ok(file) => {
            // The channel lives in the returned file, which `serve` keeps
            // until the process ends.
            alloc::watch(&file);
            Box::new(file)
        }
        Err(_) => Box::new(std::io::stdout()),
    }
}

/// Unix: a copy of the stdout descriptor (closed on exec), then stdout
/// made a copy of stderr (`dup2`).
#[cfg(unix)]
fn take_stdout() -> std::io::Result<std::fs::File> {
    use std::os::fd::AsFd;
    let copy = std::io::stdout().as_fd().try_clone_to_owned()?;
    nix::unistd::dup2_stdout(std::io::stderr())?;
    Ok(std::fs::File::from(copy))
}

/// Windows: a copy of the standard output handle that no child process
/// inherits (`DuplicateHandle`), then the process's standard output handle
/// made its standard error handle (`SetStdHandle`: std's `stdout()`, hence
/// `println!`, asks for that handle on every write, and a child process
/// started with inherited output gets it), and the original handle closed:
/// the same as `dup` and `dup2` on unix.
#[cfg(windows)]
fn take_stdout() -> std::io::Result<std::fs::File> {
    use std::os::windows::io::{FromRawHandle, OwnedHandle};
    use windows_sys::Win32::Foundation::{
        CloseHandle, DUPLICATE_SAME_ACCESS, DuplicateHandle, HANDLE, INVALID_HANDLE_VALUE,
    };
    use windows_sys::Win32::System::Console::{
        GetStdHandle, STD_ERROR_HANDLE, STD_OUTPUT_HANDLE, SetStdHandle,
    };
    use windows_sys::Win32::System::Threading::GetCurrentProcess;
    let usable = |h: HANDLE| !h.is_null() && h != INVALID_HANDLE_VALUE;
    // SAFETY: Win32 calls on this process's own standard handles, before
    // any job runs (no other thread uses them yet); the copy's out-pointer
    // is a local, and the copy is owned by the returned file alone.
    unsafe {
        let out = GetStdHandle(STD_OUTPUT_HANDLE);
        let err = GetStdHandle(STD_ERROR_HANDLE);
        if !usable(out) || !usable(err) {
            return Err(std::io::Error::other("sin salida estándar o de error"));
        }
        let process = GetCurrentProcess();
        let mut copy: HANDLE = std::ptr::null_mut();
        // Not inheritable (FALSE): a process the implementation starts
        // never holds the answers' pipe.
        if DuplicateHandle(
            process,
            out,
            process,
            &mut copy,
            0,
            0,
            DUPLICATE_SAME_ACCESS,
        ) == 0
        {
            return Err(std::io::Error::last_os_error());
        }
        let copy = OwnedHandle::from_raw_handle(copy);
        if SetStdHandle(STD_OUTPUT_HANDLE, err) == 0 {
            return Err(std::io::Error::last_os_error());
        }
        CloseHandle(out);
        Ok(std::fs::File::from(copy))
    }
}

/// Runs `job` against `K`, turning a `todo!()` or a panic into a
/// [`protocol::Failure`].
pub fn answer_caught<K: Kit>(job: &Job) -> Answer {
    catch(|| answer::<K>(job))
}

/// Runs `job` against `K` in this process (panics propagate): each
/// exercise's jobs are answered by the module named after its id
/// ([`cobro`], [`cliente`], [`reconciliacion`], [`atomico`]), the lesson's
/// worlds by [`world`] and [`trace`]. Each answering function returns its
/// job's [`Request::Answer`] ([`reply`]), so a job answered with another
/// job's kind of answer does not compile.
pub fn answer<K: Kit>(job: &Job) -> Observation {
    match job {
        Job::Charges(j) => reply(j, cobro::charges::<K>),
        Job::Shared(j) => reply(j, |j| shared_in_one_thread::<K>(&j.calls)),
        Job::Client(j) => reply(j, cliente::client::<K>),
        Job::Reconcile(j) => reply(j, reconciliacion::reconcile::<K>),
        Job::ReconcileFleet(j) => reply(j, reconciliacion::fleet::<K>),
        Job::World(j) => reply(j, |j| {
            world::world::<K>(&j.fleet, j.idempotent, j.client, j.reconcile)
        }),
        Job::Trace(j) => reply(j, |j| trace::world::<K>(&j.fleet, j.idempotent, j.client)),
        Job::Schedules(j) => reply(j, schedules::<K>),
        Job::Long(j) => reply(j, long::<K>),
    }
}

/// The observation that carries `run`'s answer to `job`.
fn reply<R: Request>(job: &R, run: impl FnOnce(&R) -> R::Answer) -> Observation {
    R::observation(run(job))
}

/// [`atomico::shared`] in this harness's own thread.
#[cfg(not(feature = "explorar"))]
fn shared_in_one_thread<K: Kit>(calls: &[protocol::Call]) -> Vec<SharedAnswered> {
    atomico::shared::<K>(calls)
}

/// [`atomico::shared`] in one schedule of the explorer: its locks exist only
/// there.
#[cfg(feature = "explorar")]
fn shared_in_one_thread<K: Kit>(calls: &[protocol::Call]) -> Vec<SharedAnswered> {
    atomico::explore::alone(calls.to_vec(), |calls| atomico::shared::<K>(calls))
}

/// Exercise 4's concurrent history under the explorer (only in
/// `harness-explorador`).
#[cfg(feature = "explorar")]
fn schedules<K: Kit>(job: &Schedules) -> Explored {
    atomico::explore::explore::<K>(&job.history, &job.explore, job.server)
}

/// Exercise 4's long history ([`atomico::long`]), in real threads: only
/// where `sim::sync`'s locks are std's.
#[cfg(not(feature = "explorar"))]
fn long<K: Kit>(job: &protocol::Long) -> protocol::LongRun {
    atomico::long::<K>(job)
}

/// Under the explorer, `sim::sync`'s locks exist only inside a schedule:
/// a long history is refused (a panic the judge reports); the judge sends
/// it to the plain harness.
#[cfg(feature = "explorar")]
#[allow(clippy::extra_unused_type_parameters)] // the plain harness's twin uses it
fn long<K: Kit>(_: &protocol::Long) -> protocol::LongRun {
    panic!("el harness del explorador no corre historias largas: las corre el harness de siempre")
}

/// Without the explorer, `sim::sync`'s locks are std's: no schedule can be
/// chosen, so the job is refused (a panic the judge reports).
#[cfg(not(feature = "explorar"))]
#[allow(clippy::extra_unused_type_parameters)] // the explorer's twin uses it
fn schedules<K: Kit>(_: &Schedules) -> Explored {
    panic!(
        "este harness no tiene el explorador de horarios: los horarios se exploran en harness-explorador"
    )
}
