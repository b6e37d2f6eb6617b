//! `grader repetir-horario HISTORIA --horario H` (alias `replay-schedule`):
//! replays exactly one schedule of exercise 4's shared server (lesson 4),
//! the one a failing concurrent check printed, in the explorer's harness,
//! and tells it step by step in the lesson's words, with whether lesson 4's
//! rules hold in it. After a fix, the same command shows the same
//! interleaving (as far as the new code's steps allow) with one charge.

use std::process::ExitCode;

use crate::cli::{Cli, RepetirArgs};
use crate::commands;
use judge::ejercicios::atomico::schedules;
use judge::verdict::Verdict;

/// Runs `repetir-horario`: exit 0 when the schedule keeps lesson 4's rules,
/// 1 when it breaks them or the code could not run, 2 for a bad history or
/// schedule.
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
    told(schedules::replay(&h, &history, &schedule))
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
