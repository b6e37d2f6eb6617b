//! `grader repetir-horario HISTORIA --horario H` (alias `replay-schedule`):
//! replays exactly one schedule of exercise 4's shared server (lesson 4),
//! the one a failing concurrent check printed, in the explorer's harness,
//! and tells it step by step in the lesson's words, with whether lesson 4's
//! rules hold in it. After a fix, the same command shows the same
//! interleaving (as far as the new code's steps allow) with one charge.
//! With `--html ARCHIVO` it also draws it ([`judge::drawing`]), a column
//! per thread, as `servicio --html` draws a service's requests.

use std::process::ExitCode;

use crate::cli::{Cli, RepetirArgs};
use crate::commands;
use judge::drawing::escape;
use judge::ejercicios::atomico::schedules::{self, Replayed};
use judge::paths;
use judge::verdict::Verdict;

/// Runs `repetir-horario`: exit 0 when the schedule keeps lesson 4's rules,
/// 1 when it breaks them or the code could not run, 2 for a bad history or
/// schedule or a page that cannot be written.
pub fn run(cli: &Cli, args: &RepetirArgs) -> ExitCode {
    let parsed = schedules::parse_history(&args.historia, args.antes.as_deref())
        .map_err(|e| format!("HISTORIA: {e}"))
        .and_then(|h| {
            schedules::parse_schedule(&args.horario)
                .map(|s| (h, s))
                .map_err(|e| format!("--horario: {e}"))
        });
    let (history, schedule) = match parsed {
        Ok(p) => p,
        Err(message) => {
            eprintln!("grader: {message}");
            return ExitCode::from(2);
        }
    };
    let which = match commands::implementation(cli) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let h = match commands::harness(cli, which) {
        Ok(h) => h,
        Err(cause) => return commands::build_failure(&cause),
    };
    let replayed = schedules::replay(&h, &history, &schedule);
    if let (Ok(r), Some(path)) = (&replayed, &args.html) {
        if let Err(e) = std::fs::write(path, page(r)) {
            eprintln!(
                "grader: --html {}: no se pudo escribir la página: {}",
                path.display(),
                judge::output::io_error(&e)
            );
            return ExitCode::from(2);
        }
        eprintln!(
            "grader: horario dibujado en {}; ábrelo en el navegador",
            paths::display(path)
        );
    }
    told(replayed.map(|r| (r.lines, r.fine)))
}

/// The page of `--html`: the verdict, the told lines and the drawing, one
/// self-contained file (no scripts, no network).
fn page(r: &Replayed) -> String {
    let (class, title) = if r.fine {
        ("ok", "✓ este horario cumple las reglas de la lección 4")
    } else {
        ("mal", "✗ este horario rompe las reglas de la lección 4")
    };
    format!(
        "<!DOCTYPE html>\n<html lang=\"es\"><head><meta charset=\"utf-8\"><title>repetir-horario</title>\n<style>body{{font-family:system-ui,sans-serif;margin:2em}}pre{{background:#f6f6f6;padding:1em;overflow:auto}}.ok{{color:#176b2c}}.mal{{color:#b00020}}svg text{{font:12px monospace}}</style></head><body>\n<h1 class=\"{class}\">{title}</h1>\n<pre>{}</pre>\n<h2>Paso a paso, un hilo por columna</h2>\n{}</body></html>\n",
        escape(&r.lines.join("\n")),
        r.drawing
    )
}

/// Prints a schedule's lines and exits 0 when `fine`, 1 otherwise; when the
/// implementation gave no answer, why (on stderr) and 1.
pub fn told(result: Result<(Vec<String>, bool), Verdict>) -> ExitCode {
    match result {
        Ok((lines, fine)) => {
            for line in lines {
                println!("{line}");
            }
            ExitCode::from(if fine { 0 } else { 1 })
        }
        Err(verdict) => {
            for line in verdict.explanation() {
                eprintln!("grader: {line}");
            }
            ExitCode::from(1)
        }
    }
}
