//! Long jobs (`comparar`, `barrido`) that run the student's code: each in a
//! child process (see [`crate::isolation`]), with a spinner while it runs and
//! a clear Spanish explanation when the code is still `todo!()`, panics or
//! hangs.

use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use sim::{Kit, Scenario};

use crate::comparison::{self, WorldFigures, Worlds};
use crate::isolation::{self, Runner};
use crate::progress::Progress;
use crate::verdict::Verdict;

/// The job suffixes of the two worlds: without and with idempotency.
const WORLDS: [(&str, bool); 2] = [("antes", false), ("despues", true)];

/// Orders one `--timeout` (default 5 s) covers: a job over more orders gets
/// one more `--timeout` for every this many, so that a 10,000,000-order fleet
/// is not cut short while an endless loop is still caught.
pub const ORDERS_PER_TIMEOUT: u64 = 250_000;

/// The time limit of a job that charges `orders` orders in each world:
/// `timeout × ⌈orders / ORDERS_PER_TIMEOUT⌉`, at least `timeout`.
pub fn limit_for(timeout: Duration, orders: u64) -> Duration {
    let units = orders.div_ceil(ORDERS_PER_TIMEOUT).max(1);
    timeout.saturating_mul(u32::try_from(units).unwrap_or(u32::MAX))
}

/// Runs each of `jobs` in its own child (`runner`), all at once, showing
/// `progress` (a spinner or a bar, hidden unless slow and on a terminal)
/// while it waits. Answers come back in the order of `jobs`.
///
/// # Errors
/// The verdict of the first job (in `jobs` order) whose child gave no
/// answer, explaining why.
pub fn run_all(
    runner: &Runner,
    jobs: &[String],
    progress: &Progress,
) -> Result<Vec<serde_json::Value>, Verdict> {
    let (tx, rx) = mpsc::channel();
    let mut answers: Vec<Option<Result<serde_json::Value, Verdict>>> = vec![None; jobs.len()];
    std::thread::scope(|scope| {
        for (i, job) in jobs.iter().enumerate() {
            let tx = tx.clone();
            scope.spawn(move || {
                let _ = tx.send((i, runner.run_job(job)));
            });
        }
        drop(tx);
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok((i, answer)) => answers[i] = Some(answer),
                Err(mpsc::RecvTimeoutError::Timeout) => progress.tick(),
                Err(mpsc::RecvTimeoutError::Disconnected) => break,
            }
        }
    });
    answers
        .into_iter()
        .map(|a| {
            a.unwrap_or_else(|| {
                Err(Verdict::Crashed {
                    what: "el hilo que esperaba al proceso hijo terminó sin respuesta".to_string(),
                })
            })
        })
        .collect()
}

/// Both worlds of one fleet, each in its own child process (jobs
/// `{prefix}antes` and `{prefix}despues`), at once: each child holds one
/// world's ledger and store, so a student's fleet of millions of orders fits
/// the children's memory limit, and the two run on two cores.
///
/// # Errors
/// Why a child gave no answer (the "before" world's first).
pub fn worlds(runner: &Runner, prefix: &str, progress: &Progress) -> Result<Worlds, Verdict> {
    let jobs: Vec<String> = WORLDS
        .iter()
        .map(|(name, _)| format!("{prefix}{name}"))
        .collect();
    let answers = run_all(runner, &jobs, progress)?;
    let mut figures = answers.into_iter().map(|a| {
        serde_json::from_value::<WorldFigures>(a).map_err(|e| Verdict::Crashed {
            what: format!("respuesta ilegible del proceso hijo: {e}"),
        })
    });
    let mut next = || {
        figures.next().unwrap_or_else(|| {
            Err(Verdict::Crashed {
                what: "falta la respuesta de un mundo".to_string(),
            })
        })
    };
    let before = next()?;
    let after = next()?;
    Ok(Worlds { before, after })
}

/// In a child started by [`worlds`] with `prefix` (job id `id`): runs the
/// world it names over `scenario` with `K` and prints the answer. `false`
/// when `id` is not such a job.
pub fn answer_world<K: Kit>(id: &str, prefix: &str, scenario: &Scenario) -> bool {
    let Some(name) = id.strip_prefix(prefix) else {
        return false;
    };
    let Some(&(_, idempotent)) = WORLDS.iter().find(|(n, _)| *n == name) else {
        return false;
    };
    isolation::child_respond(|| {
        comparison::run_world::<K>(scenario, idempotent, &Progress::bar(0, ""))
    });
    true
}

/// Prints on stderr why `what` could not run with the student's code (for a
/// `todo!()`: `pendiente: … todavía es todo!() (archivo:línea)`), with what to
/// do next, and gives exit status 1.
pub fn explain_failure(what: &str, verdict: &Verdict) -> ExitCode {
    let mut text = format!("grader: no se pudo {what} con tu código (exercises/):\n");
    for line in verdict.explanation() {
        text.push_str(&format!("  {line}\n"));
    }
    let next = if matches!(verdict, Verdict::Pending { .. }) {
        "Completa los tres ejercicios (`cargo run -p grader` te dice cuáles faltan) o mira la referencia con --solutions."
    } else {
        "Corre `cargo run -p grader` para ver qué verificación falla, o mira la referencia con --solutions."
    };
    text.push_str(&format!("  {next}\n"));
    eprint!("{text}");
    ExitCode::from(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_grows_with_the_fleet() {
        let t = Duration::from_secs(5);
        assert_eq!(limit_for(t, 1), t);
        assert_eq!(limit_for(t, 250_000), t);
        assert_eq!(limit_for(t, 250_001), t * 2);
        assert_eq!(limit_for(t, 10_000_000), t * 40);
    }
}
