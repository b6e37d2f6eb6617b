//! The race of lesson 4 before and after (`grader escenario carrera`, and
//! the last section of `comparar` and `ver`): Ana's $500 and a retry of it
//! that arrives while the first is still in flight, two threads with one
//! key, run under the schedule explorer of exercise 4's harness.
//!
//! Without atomicity it is lesson 4's contrast,
//! `sim::non_atomic::CheckThenInsertServer`, in the first of its schedules
//! that charges twice (depth-first: the same every run). With it, it is the
//! implementation's `AtomicPaymentsServer`, explored in every schedule: if
//! some schedule breaks lesson 4's rules, the simplest one is shown (a
//! store that races with another pattern of locks than the contrast's
//! charges twice in a schedule of its own, not in the contrast's);
//! otherwise the contrast's schedule replayed on it, as far as its steps
//! allow.

use serde_json::json;
use sim::Money;

use judge::ejercicios::atomico::schedules::{self as schedules, Broken};
use judge::runner::{self, Execute};
use judge::verdict::Verdict;
use protocol::Request;
use protocol::schedules::{Exploration, History, Outcome, Schedules, Server};

/// What the correct charge is: Ana's $500, once.
const ANA: i64 = 500;

/// One side of the race: the outcome shown and the rule it breaks, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    /// The schedule shown, its steps and the ledger it left.
    pub outcome: Outcome,
    /// The first rule of lesson 4 it breaks (`None`: it keeps them).
    pub broken: Option<Broken>,
}

impl Side {
    /// The ledger's rows.
    pub fn charges(&self) -> usize {
        self.outcome.ledger.len()
    }

    /// The sum of the ledger's rows, in cents.
    pub fn charged(&self) -> Money {
        self.outcome.ledger.iter().map(|r| r.amount).sum()
    }

    /// What was charged above Ana's $500 (never below zero).
    pub fn overcharge(&self) -> Money {
        let over = self.charged().cents() - Money::from_dollars(ANA).cents();
        Money::from_cents(over.max(0))
    }

    /// The schedule in the lesson's words up to the broken rule's mark:
    /// `horario: hilo 1: busca K1 → no está · …`.
    pub fn schedule_line(&self, history: &History) -> String {
        let (at, mark) = match &self.broken {
            Some(b) => (b.at, b.mark.as_str()),
            None => (None, ""),
        };
        schedules::trace(history, &self.outcome, at, mark).remove(0)
    }

    /// The command that replays exactly this side's schedule on the
    /// implementation's store.
    pub fn replay_command(&self, history: &History) -> String {
        schedules::replay_command(history, &self.outcome.schedule)
    }
}

/// The race, both sides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    /// Two threads, each `charge(K1, ord_1, $500)`.
    pub history: History,
    /// Lesson 4's contrast, in a schedule where it charges twice.
    pub without: Side,
    /// The implementation's store.
    pub with: Side,
    /// Whether `with`'s schedule is one of its own (it breaks a rule
    /// there) instead of `without`'s replayed.
    pub own_schedule: bool,
}

impl Race {
    /// Whether the implementation's store kept lesson 4's rules.
    pub fn fine(&self) -> bool {
        self.with.broken.is_none()
    }
}

/// Runs the race with the implementation behind `h`.
///
/// # Errors
/// Why the implementation gave no answer: [`Verdict::Pending`] for a
/// `todo!()` (then the explorer's harness is not built), a panic, a time
/// limit, or an explorer that could not be built.
pub fn run(h: &dyn Execute) -> Result<Race, Verdict> {
    let ana = schedules::call(1, 1, ANA);
    let history = History {
        before: Vec::new(),
        threads: vec![vec![ana], vec![ana]],
    };
    let explorer = schedules::explorer_of(h, &history)?;
    let every = |server: Server| {
        Schedules {
            history: history.clone(),
            explore: Exploration::Exhaustive {
                limit: schedules::EXHAUSTIVE_LIMIT,
            },
            server,
        }
        .into_job()
    };
    let mut answers = explorer
        .execute(&[
            every(Server::CheckThenInsert),
            every(Server::Implementation),
        ])
        .into_iter();
    let mut next = || -> Result<_, Verdict> {
        let answer = answers
            .next()
            .ok_or_else(|| runner::unexpected("faltan los horarios explorados"))?;
        schedules::explored_of(answer?)
    };
    let contrast = next()?;
    let yours = next()?;
    let Some((twice, b)) = schedules::worst(&history, std::slice::from_ref(&contrast)) else {
        return Err(runner::unexpected(
            "el servidor sin atomicidad no cobró dos veces en ningún horario",
        ));
    };
    let without = Side {
        outcome: twice.clone(),
        broken: Some(b),
    };
    let (with, own_schedule) = match schedules::worst(&history, std::slice::from_ref(&yours)) {
        Some((o, b)) => (
            Side {
                outcome: o.clone(),
                broken: Some(b),
            },
            true,
        ),
        None => {
            let o = schedules::replayed(
                explorer,
                &history,
                &without.outcome.schedule,
                Server::Implementation,
            )?;
            let broken = schedules::broken(&history, &o);
            (Side { outcome: o, broken }, false)
        }
    };
    Ok(Race {
        history,
        without,
        with,
        own_schedule,
    })
}

/// `escenario carrera`'s lines: the story, both sides with their schedule,
/// the correct charge and how to replay what was shown.
pub fn lines(race: &Race) -> Vec<String> {
    let h = &race.history;
    let side = |label: &str, s: &Side| {
        [
            format!(
                "  {label:<23}-> cargos={}  TOTAL COBRADO={}",
                s.charges(),
                crate::tables::plain(s.charged())
            ),
            format!("    {}", s.schedule_line(h)),
        ]
    };
    let mut out = vec![
        "ESCENARIO D  ·  Dos reintentos a la vez, la misma key".to_string(),
        "Ana compra por $500. La respuesta se pierde y orders reintenta mientras".to_string(),
        "el primer cobro sigue en curso: dos requests con la misma key a la vez.".to_string(),
        "SIN atomicidad: el servidor de contraste (sim::non_atomic) busca la key,".to_string(),
        "suelta el candado, cobra y después guarda; CON: tu AtomicPaymentsServer.".to_string(),
        String::new(),
    ];
    out.extend(side("SIN atomicidad", &race.without));
    out.extend(side("CON store atómico", &race.with));
    out.push(String::new());
    out.push(format!("  Cobro correcto esperado: ${ANA}"));
    if race.own_schedule {
        if let Some(b) = &race.with.broken {
            out.push(format!(
                "  ✗ tu store rompe las reglas de la lección 4 en este horario (otro que el del contraste): se esperaba {}",
                b.expected
            ));
        }
        out.push(format!(
            "  (repite el de tu store con: {})",
            race.with.replay_command(h)
        ));
        out.push(format!(
            "  (y el del contraste con: {})",
            race.without.replay_command(h)
        ));
    } else {
        out.push(format!(
            "  (el mismo horario en los dos servidores; repítelo con: {})",
            race.without.replay_command(h)
        ));
    }
    out
}

/// The heading of the race's section in `comparar`.
const HEADING: &str = "DOS REINTENTOS A LA VEZ  ·  lección 4 (bonus)  ·  escenario carrera";

/// `comparar`'s section: the race's figures, SIN and CON side by side, or
/// why it is not there (`why`: the implementation gave no answer).
pub fn section(race: Result<&Race, &Verdict>) -> String {
    let mut out = format!("\n{HEADING}\n");
    let race = match race {
        Ok(r) => r,
        Err(Verdict::Pending { .. }) => {
            out.push_str("  Pendiente: tu AtomicPaymentsServer::charge todavía es todo!() (ejercicio 4, bonus).\n");
            out.push_str("  Cuando lo resuelvas, aquí se comparan dos reintentos a la vez de la misma key.\n");
            return out;
        }
        Err(v) => {
            out.push_str("  No se pudo correr con tu store (ejercicio 4, bonus):\n");
            for line in v.explanation() {
                out.push_str(&format!("    {line}\n"));
            }
            return out;
        }
    };
    out.push_str(
        "  Ana compra por $500 y orders reintenta mientras el primer cobro sigue en curso.\n\n",
    );
    out.push_str(&format!(
        "  {:<35}  {:>18}  {:>20}\n",
        "", "SIN atomicidad", "CON tu store atómico"
    ));
    let (w, y) = (&race.without, &race.with);
    let rows = [
        (
            "cargos en el ledger",
            w.charges().to_string(),
            y.charges().to_string(),
        ),
        (
            "TOTAL COBRADO",
            crate::tables::plain(w.charged()),
            crate::tables::plain(y.charged()),
        ),
        (
            "SOBRECOBRO",
            crate::tables::plain(w.overcharge()),
            crate::tables::plain(y.overcharge()),
        ),
    ];
    for (label, a, b) in rows {
        out.push_str(&format!("    {label:<33}: {a:>18}  {b:>20}\n"));
    }
    if let Some(b) = &y.broken {
        out.push_str(&format!("  ✗ tu store: se esperaba {}\n", b.expected));
    }
    out.push_str("  (el horario, paso a paso: cargo run -p grader -- escenario carrera)\n");
    out
}

/// The race for machines (`comparar --json`'s `carrera`): money in cents;
/// `estado` is `corrio`, `pendiente` or `no_corrio`.
pub fn to_json(race: Result<&Race, &Verdict>) -> serde_json::Value {
    let side = |s: &Side| {
        json!({
            "cargos_en_el_ledger": s.charges(),
            "total_cobrado_centavos": s.charged().cents(),
            "sobrecobro_centavos": s.overcharge().cents(),
            "horario": s.outcome.schedule,
            "cumple_la_leccion_4": s.broken.is_none(),
        })
    };
    match race {
        Ok(r) => json!({
            "estado": "corrio",
            "intencion_centavos": Money::from_dollars(ANA).cents(),
            "sin_atomicidad": side(&r.without),
            "con_tu_store": side(&r.with),
            "horario_propio": r.own_schedule,
        }),
        Err(Verdict::Pending { .. }) => json!({ "estado": "pendiente" }),
        Err(v) => json!({ "estado": "no_corrio", "motivo": v.explanation().join(" ") }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `todo!()` in exercise 4 is told as pending in `comparar` (text and
    /// JSON) and on the page; a panic with its explanation.
    #[test]
    fn pending_and_failing_stores_say_why() {
        let pending = Verdict::Pending {
            location: "exercises/src/atomic_server.rs:62:9".to_string(),
        };
        assert_eq!(
            section(Err(&pending)),
            format!(
                "\n{HEADING}\n  Pendiente: tu AtomicPaymentsServer::charge todavía es todo!() (ejercicio 4, bonus).\n  Cuando lo resuelvas, aquí se comparan dos reintentos a la vez de la misma key.\n"
            )
        );
        assert_eq!(to_json(Err(&pending)), json!({ "estado": "pendiente" }));
        let panicked = Verdict::Panicked {
            message: "boom".to_string(),
            location: "exercises/src/atomic_server.rs:70:5".to_string(),
        };
        let text = section(Err(&panicked));
        assert!(
            text.ends_with("  No se pudo correr con tu store (ejercicio 4, bonus):\n    pánico en exercises/src/atomic_server.rs:70:5: boom\n"),
            "{text}"
        );
        assert_eq!(to_json(Err(&panicked))["estado"], "no_corrio");
        let page = crate::view::page::race_data(Err(&pending));
        assert_eq!((page.estado, page.lados.len()), ("pendiente", 0));
    }
}
