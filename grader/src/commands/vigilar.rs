//! `grader vigilar` (alias `watch`): the student's loop. Every save under
//! `exercises/src` grades again (the same run as the report: harness built,
//! every check, the rubric) and the screen shows the three exercises'
//! progress, the first one not done with its failing checks, and what to do
//! next; once all three pass, the lesson's fleet with the student's code and
//! the `comparar` line. A compile error or a panic is an ordinary grading:
//! it is shown and the next save grades again. Keys: `q` quits, `r` grades
//! again, `n`/`p` move between exercises, `h` shows the hint.

mod screen;
mod terminal;
mod watcher;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::mpsc::{self, Sender};
use std::time::Instant;

use crate::before_after::comparison;
use crate::before_after::fleet::{self, FleetArgs};
use crate::cli::Cli;
use crate::commands::escenario;
use crate::commands::grade::Setup;
use crate::progress::Progress;
use judge::paths;
use judge::runner::cleanup;
use judge::runner::process::HarnessProcess;
use judge::verdict::Exercise;
use screen::{Fleet, Graded, View};
use terminal::{Key, RawMode};
use watcher::Change;

/// What the loop waits for.
enum Event {
    Key(Key),
    Change(Change),
    Graded(Box<Graded>, f64),
}

/// Why a grading started, for the status line.
#[derive(Clone)]
enum Cause {
    Start,
    Key,
    Saved(String),
}

/// What every grading uses, shared with the grading threads.
#[derive(Clone)]
struct Grading {
    cli: Arc<Cli>,
    setup: Arc<Setup>,
    /// `exercises/src`.
    dir: Arc<PathBuf>,
}

/// The loop's state.
struct State {
    graded: Option<Graded>,
    view: View,
    hint: bool,
    /// The grading running now, and the one to start after it (a save
    /// while grading).
    running: Option<Cause>,
    queued: Option<Cause>,
    /// The last finished grading: its number, cause and seconds.
    last: Option<(u32, Cause, f64)>,
    count: u32,
    watch_error: Option<String>,
    /// The sources as the latest grading started with them.
    sources: BTreeMap<PathBuf, Vec<u8>>,
}

/// Runs the watch mode until `q`. Exit 0 when the student quits; 2 when
/// the fixtures, rubric or variants are invalid (reported before the screen
/// takes over), `exercises/src` cannot be watched or there is no terminal.
pub fn run(cli: Cli) -> ExitCode {
    // Bad fixtures or flags end the command before the screen takes over.
    // The large cases run in the full report, not after every save.
    let setup = match Setup::load(&cli) {
        Ok(s) => Arc::new(s.without_large_cases()),
        Err(refusal) => return refusal.exit(),
    };
    let dir = paths::repo_root().join("exercises").join("src");
    let grading = Grading {
        cli: Arc::new(cli),
        setup,
        dir: Arc::new(dir.clone()),
    };
    let (tx, rx) = mpsc::channel::<Event>();
    let changes = tx.clone();
    let _watcher = match watcher::watch(&dir, move |c| changes.send(Event::Change(c)).is_ok()) {
        Ok(w) => w,
        Err(e) => {
            eprintln!(
                "grader: no puedo vigilar {}: {e}. Usa `cargo run -p grader` después de cada cambio.",
                paths::display(&dir)
            );
            return ExitCode::from(2);
        }
    };
    let raw = match RawMode::enter() {
        Ok(r) => r,
        Err(e) => {
            eprintln!(
                "grader: vigilar necesita una terminal ({e}); sin terminal, usa `cargo run -p grader`."
            );
            return ExitCode::from(2);
        }
    };
    let keys = tx.clone();
    std::thread::spawn(move || terminal::read_keys(|k| keys.send(Event::Key(k)).is_ok()));

    let mut state = State {
        graded: None,
        view: View::Fleet,
        hint: false,
        running: None,
        queued: None,
        last: None,
        count: 0,
        watch_error: None,
        sources: BTreeMap::new(),
    };
    start(&grading, &tx, &mut state, Cause::Start);
    draw(&raw, &state);
    while let Ok(event) = rx.recv() {
        match event {
            Event::Key(Key::Quit) => break,
            Event::Key(Key::Regrade) => request(&grading, &tx, &mut state, Cause::Key),
            Event::Key(Key::Next | Key::Previous) => {
                if let Some(g) = &state.graded {
                    state.view = state
                        .view
                        .step(&g.sheet, matches!(event, Event::Key(Key::Next)));
                    state.hint = false;
                }
            }
            Event::Key(Key::Hint) => state.hint = !state.hint,
            Event::Key(Key::Resized) => {}
            Event::Change(Change::Saved(path)) => {
                if !watcher::changed(&state.sources, &path) {
                    continue;
                }
                let cause = Cause::Saved(paths::display(&path));
                request(&grading, &tx, &mut state, cause);
            }
            Event::Change(Change::Failed(e)) => state.watch_error = Some(e),
            Event::Graded(graded, secs) => {
                state.view = View::first(&graded.sheet);
                state.graded = Some(*graded);
                state.hint = false;
                state.count += 1;
                let cause = state.running.take().unwrap_or(Cause::Start);
                state.last = Some((state.count, cause, secs));
                if let Some(next) = state.queued.take() {
                    start(&grading, &tx, &mut state, next);
                }
            }
        }
        draw(&raw, &state);
    }
    drop(raw);
    // A grading may still run: what it started ends now, not with the
    // process (see runner::cleanup).
    cleanup::shutdown();
    println!("\nvigilar terminó. Para el informe completo: cargo run -p grader");
    ExitCode::SUCCESS
}

/// Grades now, or right after the grading that is running.
fn request(grading: &Grading, tx: &Sender<Event>, state: &mut State, cause: Cause) {
    if state.running.is_some() {
        state.queued = Some(cause);
    } else {
        start(grading, tx, state, cause);
    }
}

/// Starts a grading on its own thread; it sends [`Event::Graded`].
fn start(grading: &Grading, tx: &Sender<Event>, state: &mut State, cause: Cause) {
    state.running = Some(cause);
    state.sources = watcher::snapshot(&grading.dir);
    let Grading { cli, setup, .. } = grading.clone();
    let tx = tx.clone();
    std::thread::spawn(move || {
        let started = Instant::now();
        let run = setup.grade(&cli);
        // The fleet once the three pass: the bonus is not needed for it.
        let graded = run.sheet.exercises();
        let everything = run.all_passed
            && Exercise::ALL
                .iter()
                .all(|e| e.bonus() || graded.contains(e));
        let fleet = match &run.harness {
            Some(h) if everything => Some(lesson_fleet(&cli, h)),
            _ => None,
        };
        let graded = Graded {
            sheet: run.sheet,
            fleet,
        };
        let _ = tx.send(Event::Graded(
            Box::new(graded),
            started.elapsed().as_secs_f64(),
        ));
    });
}

/// The lesson's fleet (`comparar`'s default fixture) with the harness that
/// just passed every check: its table, checked against the lesson's, and
/// both worlds.
fn lesson_fleet(cli: &Cli, h: &HarnessProcess) -> Fleet {
    let scenario = match fleet::load(None, &cli.fixtures, &FleetArgs::default()) {
        Ok(s) => s,
        Err(why) => {
            return Fleet {
                name: fleet::DEFAULT_FIXTURE.to_string(),
                table: Err(why.clone()),
                matches: None,
                worlds: Err(why),
            };
        }
    };
    let explain = |v: judge::verdict::Verdict| v.explanation().join(" ");
    let table = escenario::table(h, &scenario).map_err(explain);
    let matches = match (&table, escenario::expected(&scenario.name)) {
        (Ok(t), Some(expected)) => Some(escenario::compare(&expected, t).is_none()),
        _ => None,
    };
    let worlds = comparison::run_worlds(h, &scenario, &Progress::spinner("comparando"))
        .map(|c| c.worlds)
        .map_err(explain);
    Fleet {
        name: scenario.name.clone(),
        table,
        matches,
        worlds,
    }
}

/// Draws the screen for `state`.
fn draw(raw: &RawMode, state: &State) {
    let mut status = match &state.last {
        None => String::new(),
        Some((n, cause, secs)) => {
            format!("Verificación n.º {n} ({}, {secs:.1} s).", describe(cause))
        }
    };
    if let Some(cause) = &state.running {
        let now = match cause {
            Cause::Saved(file) => format!("Guardaste {file}: verificando…"),
            Cause::Key => "Verificando de nuevo…".to_string(),
            Cause::Start => "Verificando…".to_string(),
        };
        status = if status.is_empty() {
            now
        } else {
            format!("{status} {now}")
        };
    } else {
        status.push_str(" Guarda y vuelvo a verificar.");
    }
    if let Some(e) = &state.watch_error {
        status.push_str(&format!(
            "\nNo pude vigilar los archivos ({e}): usa `r` después de guardar."
        ));
    }
    raw.draw(&screen::render(
        state.graded.as_ref(),
        state.view,
        state.hint,
        status.trim_start(),
    ));
}

fn describe(cause: &Cause) -> String {
    match cause {
        Cause::Start => "al empezar".to_string(),
        Cause::Key => "con r".to_string(),
        Cause::Saved(file) => format!("guardaste {file}"),
    }
}
