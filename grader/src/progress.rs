//! Progress bars for long runs (a 10,000,000-order fleet): shown on stderr
//! only when it is a terminal and only once the work has taken more than a
//! second; nothing at all when the output goes to a file, a pipe or CI.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Work shorter than this never shows a bar.
pub const SHOW_AFTER: Duration = Duration::from_secs(1);

/// A progress bar (or a spinner, for work of unknown length) that stays
/// hidden until [`SHOW_AFTER`] has passed, and forever when stderr is not a
/// terminal. Safe to advance from several threads.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    start: Instant,
    terminal: bool,
    shown: AtomicBool,
}

impl Progress {
    /// A bar of `total` units (orders, points of a sweep) labelled `message`.
    pub fn bar(total: u64, message: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template(
            "{msg} [{bar:30}] {human_pos}/{human_len} ({percent}%, {elapsed})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        bar.set_style(style);
        bar.set_message(message.to_string());
        Progress::wrap(bar)
    }

    /// A spinner with the elapsed time, for work whose progress cannot be
    /// seen from here (a child process running the student's code).
    pub fn spinner(message: &str) -> Progress {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner());
        bar.set_style(style);
        bar.set_message(message.to_string());
        Progress::wrap(bar)
    }

    /// Runs `work` while a spinner labelled `message` turns (from
    /// [`SHOW_AFTER`] on, on a terminal), and returns what it returned.
    ///
    /// # Panics
    /// If `work` panics (the panic is passed on).
    pub fn while_running<T: Send>(message: &str, work: impl FnOnce() -> T + Send) -> T {
        let progress = Progress::spinner(message);
        let result = std::thread::scope(|s| {
            let run = s.spawn(work);
            while !run.is_finished() {
                progress.tick();
                std::thread::sleep(Duration::from_millis(100));
            }
            run.join()
        });
        progress.finish();
        result.unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    }

    fn wrap(bar: ProgressBar) -> Progress {
        Progress {
            bar,
            start: Instant::now(),
            terminal: std::io::stderr().is_terminal(),
            shown: AtomicBool::new(false),
        }
    }

    /// `n` more units done.
    pub fn advance(&self, n: u64) {
        self.bar.inc(n);
        self.reveal_if_slow();
    }

    /// Redraws a spinner (call it a few times a second).
    pub fn tick(&self) {
        self.reveal_if_slow();
        self.bar.tick();
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }

    fn reveal_if_slow(&self) {
        if self.terminal
            && !self.shown.load(Ordering::Relaxed)
            && self.start.elapsed() >= SHOW_AFTER
            && !self.shown.swap(true, Ordering::Relaxed)
        {
            self.bar.set_draw_target(ProgressDrawTarget::stderr());
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
