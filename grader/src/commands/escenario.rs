//! `grader escenario [NOMBRE]`: the lesson's scenario tables, run with the
//! chosen implementation ("un simulador que puedes correr tú mismo"), compared
//! line by line with the expected output kept as an insta snapshot.

use std::process::ExitCode;

use judge::fixture::{self, Scenario};
use similar::{ChangeTag, TextDiff};

use crate::cli::Cli;
use crate::commands::{self, fixture_failure};
use crate::tables::{self, ScenarioRuns};
use judge::runner::build::Implementation;
use judge::runner::{self, Execute};
use judge::verdict::Verdict;
use judge::{output, paths};
use protocol::ClientKind;

/// The name of the concurrent scenario (lesson 4): two retries of one key at
/// the same time, without atomicity and with the implementation's store.
pub const RACE: &str = "carrera";

/// `escenario carrera`: the race side by side in one schedule, in the
/// explorer's harness (exercise 4, [`crate::before_after::race`]). Exit 1
/// when the implementation's store could not run or broke lesson 4's rules.
fn race(cli: &Cli) -> ExitCode {
    let which = match commands::implementation(cli) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let h = match commands::harness(cli, which) {
        Ok(h) => h,
        Err(cause) => return commands::build_failure(&cause),
    };
    let race = crate::before_after::race::run(&h);
    commands::horario::told(race.map(|r| (crate::before_after::race::lines(&r), r.fine())))
}

/// `escenario [NOMBRE]`: prints the table of one scenario (all when `name` is
/// `None`) run with the chosen implementation in harness processes; for
/// `exercises`, compares it
/// with the expected output. Exit 1 when a table could not be produced or
/// differs, 2 for an unknown name or a bad fixture.
pub fn run(cli: &Cli, name: Option<&str>) -> ExitCode {
    if name == Some(RACE) {
        return race(cli);
    }
    // Only the kit's own fixtures have an expected output to compare with.
    let mut kit_fixture = true;
    let scenarios = match name {
        Some(n) => match fixture::resolve(n, &cli.fixtures) {
            Ok(path) => {
                let dir = path.parent().and_then(|d| d.canonicalize().ok());
                kit_fixture = dir == paths::fixtures_dir().canonicalize().ok();
                Scenario::load(&path).map(|s| vec![s])
            }
            Err(message) => {
                eprintln!("grader: {message}");
                return ExitCode::from(2);
            }
        },
        None => fixture::load_all(&cli.fixtures),
    };
    let scenarios = match scenarios {
        Ok(s) => s,
        Err(e) => return fixture_failure(e),
    };
    let which = match commands::implementation(cli) {
        Ok(w) => w,
        Err(code) => return code,
    };
    let h = match commands::harness(cli, which) {
        Ok(h) => h,
        Err(cause) => return commands::build_failure(&cause),
    };
    let student = which == Implementation::Exercises;
    let mut ok = true;
    let mut text = String::new();
    for (i, scenario) in scenarios.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        match table(&h, scenario) {
            Ok(table) => {
                text.push_str(&table);
                let expected = if student && kit_fixture {
                    expected(&scenario.name)
                } else {
                    None
                };
                let snapshot = paths::display(&paths::snapshot_path(&scenario.name));
                match expected.map(|e| compare(&e, &table)) {
                    None if student && !kit_fixture => text.push_str(
                        "\n  (Escenario fuera de fixtures/: no hay salida esperada para comparar.)\n",
                    ),
                    None if student => text.push_str(&format!(
                        "\n  (No hay salida esperada para comparar: falta {snapshot}.)\n"
                    )),
                    None => {}
                    Some(None) => text.push_str(&format!(
                        "\n  \x1b[32m✓ Coincide con la salida esperada ({snapshot}).\x1b[0m\n"
                    )),
                    Some(Some(diff)) => {
                        ok = false;
                        text.push('\n');
                        text.push_str(&diff);
                    }
                }
            }
            Err(v) => {
                ok = false;
                text.push_str(&format!(
                    "{}\n  No se pudo correr el escenario {}:\n",
                    scenario.title, scenario.name
                ));
                for line in v.explanation() {
                    text.push_str(&format!("    {line}\n"));
                }
            }
        }
    }
    output::print_stdout(&text);
    if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Runs every world of `scenario` with the implementation behind `h` (its
/// server, its client, its reconciliation) and renders its table.
///
/// # Errors
/// Why a world gave no answer.
pub fn table(h: &dyn Execute, scenario: &Scenario) -> Result<String, Verdict> {
    let world = |idempotent: bool, client: ClientKind| {
        runner::world(h, &scenario.fleet, idempotent, client, true)
    };
    let runs = ScenarioRuns {
        before: world(false, ClientKind::Implementation)?,
        after: world(true, ClientKind::Implementation)?,
        key_per_attempt: if scenario.show_key_per_attempt {
            Some(world(true, ClientKind::KeyPerAttempt)?)
        } else {
            None
        },
    };
    Ok(tables::render(scenario, &runs))
}

/// The expected table of scenario `name`, from its insta snapshot, if any.
pub fn expected(name: &str) -> Option<String> {
    let path = paths::snapshot_path(name);
    if !path.is_file() {
        return None;
    }
    let snap = insta::Snapshot::from_file(&path).ok()?;
    Some(snap.as_text()?.to_string())
}

/// A line-by-line comparison of `got` with the expected table, in Spanish;
/// `None` when they match (ignoring trailing whitespace, as insta does).
pub fn compare(expected: &str, got: &str) -> Option<String> {
    let norm = |s: &str| s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
    let (e, g) = (norm(expected), norm(got));
    if e == g {
        return None;
    }
    let mut out = String::from("  Diferencias con la salida esperada (- esperado, + tu salida):\n");
    for change in TextDiff::from_lines(&e, &g).iter_all_changes() {
        let sign = match change.tag() {
            ChangeTag::Delete => '-',
            ChangeTag::Insert => '+',
            ChangeTag::Equal => continue,
        };
        out.push_str(&format!("  {sign} {}\n", change.value().trim_end()));
    }
    Some(out)
}
