//! Honest mistakes, per exercise, and what the report's first failing check
//! must say about each (issue 17): the check shown first in the exercise's
//! block, the words its hint must contain and the words it must not (a
//! cause the student does not have). A new hint that steals another
//! mistake's first place, or names a cause the observation does not prove,
//! fails here.
//!
//! Each mistake is the reference with one change, graded in this process
//! (`support::InProcess`) and rendered as the text report renders it.
//! `cargo test -p harness --test suite pistas:: -- --nocapture` prints every block.

use crate::support;
use crate::{client, kit, store_mistake};

use std::collections::HashMap;

use grader::report::sheet::Sheet;
use grader::report::text::{Hints, exercise_block};
use judge::checks::Catalog;
use judge::grading::Graded;
use judge::rubric::Rubric;
use judge::variants::Plan;
use judge::verdict::Exercise;
use sim::clients::charge_with_key_per_attempt;
use sim::{
    ChargeId, ChargeOutcome, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry, Money, Order,
    OrderId, Payments, Reconciliation,
};
use solutions::PaymentsServer;
use support::mistakes::{
    StoreByRequest, counted_per_key, netted, one_attempt_too_many, one_key_for_all,
    percent_of_charged, retry_with_key,
};
use support::{Changed, ServerChange};

// ------------------------------------------------------------ exercise 1

/// Server: deduplicates by content, looking for an earlier ledger row with
/// the same `(order_id, amount)`; the key is never used (issue 17's first
/// case).
struct LedgerContentLookup;

impl ServerChange for LedgerContentLookup {
    fn inner(_: bool) -> PaymentsServer {
        PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if s.idempotent
            && let Some(row) = s
                .inner
                .ledger()
                .iter()
                .find(|r| (r.order_id, r.amount) == (o, a))
        {
            return ChargeResult {
                charge_id: row.charge_id,
                amount: row.amount,
                status: ChargeStatus::Captured,
            };
        }
        s.inner.charge(k, o, a)
    }
}

/// Server: right, except that charge ids count calls (replays too) instead
/// of ledger rows (issue 17's fourth case).
struct ChargeIdsCountCalls;

impl ServerChange for ChargeIdsCountCalls {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        s.calls += 1;
        let id = ChargeId(s.calls);
        charge_with_id(s, k, o, a, id)
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

/// The reference's charge, in a server that keeps its own ledger
/// (`s.rows`) and store (`s.results`), with the charge id `id` for a new
/// charge.
fn charge_with_id<C: ServerChange>(
    s: &mut Changed<C>,
    k: IdempotencyKey,
    o: OrderId,
    a: Money,
    id: ChargeId,
) -> ChargeResult {
    if s.idempotent
        && let Some(stored) = s.results.get(&k)
    {
        return *stored;
    }
    let result = ChargeResult {
        charge_id: id,
        amount: a,
        status: ChargeStatus::Captured,
    };
    s.rows.push(LedgerEntry {
        key: k,
        order_id: o,
        amount: a,
        charge_id: id,
    });
    if s.idempotent {
        s.results.insert(k, result);
    }
    result
}

/// Server: never looks in the store (every call charges, in both modes).
struct NeverLooksInTheStore;

impl ServerChange for NeverLooksInTheStore {
    fn inner(_: bool) -> PaymentsServer {
        PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        s.inner.charge(k, o, a)
    }
}

/// Server: charge ids from `ch_0000` (`ChargeId(ledger.len())`).
struct ChargeIdsFromZero;

impl ServerChange for ChargeIdsFromZero {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let id = ChargeId(s.rows.len() as u64);
        charge_with_id(s, k, o, a, id)
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

kit!(ContentLookupKit {
    server: LedgerContentLookup
});
kit!(CallCountIdsKit {
    server: ChargeIdsCountCalls
});
kit!(StoreByRequestKit {
    server: StoreByRequest
});
kit!(NeverLooksKit {
    server: NeverLooksInTheStore
});
kit!(IdsFromZeroKit {
    server: ChargeIdsFromZero
});

// ------------------------------------------------------------ exercise 2

client! {
    /// Client: sends once and never retries.
    fn never_retries(server, network, keys, order, _max_attempts) {
        let key = keys.new_key();
        retry_with_key(server, network, order, key, 1)
    }
}

kit!(KeyPerAttemptKit {
    client: charge_with_key_per_attempt
});
kit!(OneTooManyKit {
    client: one_attempt_too_many
});
kit!(OneKeyKit {
    client: one_key_for_all
});
kit!(NeverRetriesKit {
    client: never_retries
});

client! {
    /// Client: calls the server directly, never through the network (so no
    /// response is ever lost), with one key.
    fn skips_the_network(server, _network, keys, order, _max_attempts) {
        let key = keys.new_key();
        ChargeOutcome {
            attempts: 1,
            confirmed: Some(server.charge(key, order.id, order.amount)),
        }
    }
}

kit!(SkipsTheNetworkKit {
    client: skips_the_network
});

// ------------------------------------------------------------ exercise 3

fn reference(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    solutions::reconciliation::reconcile(orders, ledger)
}

/// "Charged 2+ times" decided by amount: orders charged more than their
/// amount (issue 17's second case).
fn twice_by_amount(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let mut charged: HashMap<OrderId, Money> = HashMap::new();
    for r in ledger {
        *charged.entry(r.order_id).or_default() += r.amount;
    }
    let twice = orders
        .iter()
        .filter(|o| charged.get(&o.id).is_some_and(|c| *c > o.amount))
        .count() as u64;
    Reconciliation {
        orders_charged_twice_or_more: twice,
        ..reference(orders, ledger)
    }
}

/// Unknown-order rows counted by distinct order id.
fn unknown_by_distinct_ids(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
    let mut ids: Vec<OrderId> = ledger
        .iter()
        .map(|r| r.order_id)
        .filter(|id| orders.iter().all(|o| o.id != *id))
        .collect();
    ids.sort_unstable();
    ids.dedup();
    Reconciliation {
        unknown_order_rows: ids.len() as u64,
        ..reference(orders, ledger)
    }
}

kit!(TwiceByAmountKit {
    reconcile: twice_by_amount
});
kit!(PercentOfChargedKit {
    reconcile: percent_of_charged
});
kit!(NetOverchargeKit { reconcile: netted });
kit!(TwicePerKeyKit {
    reconcile: counted_per_key
});
kit!(UnknownByIdsKit {
    reconcile: unknown_by_distinct_ids
});

// ---------------------------------------------------- exercise 4 (bonus)

store_mistake!(AcceptsOtherAmount, ReuseOtherAmount);
kit!(AcceptsOtherAmountKit {
    atomic: support::Shared<AcceptsOtherAmount>
});
store_mistake!(ChargesOnReplay, ReplayChargesAgain);
kit!(ChargesOnReplayKit {
    atomic: support::Shared<ChargesOnReplay>
});
store_mistake!(ConflictForReuse, ReuseAnsweredInFlight);
kit!(ConflictForReuseKit {
    atomic: support::Shared<ConflictForReuse>
});
store_mistake!(NeverCompletes, InFlightNeverCleared);
kit!(NeverCompletesKit {
    atomic: support::Shared<NeverCompletes>
});

// ----------------------------------------------------------------- table

/// One honest mistake and what the first failing check shown must say.
struct Mistake {
    /// The mistake, in words.
    what: &'static str,
    /// Grades its kit.
    grade: fn(&Catalog) -> Graded,
    /// The exercise it is in.
    exercise: Exercise,
    /// Part of the title of the first failing check shown.
    first: &'static str,
    /// Words that hint must contain.
    must: &'static [&'static str],
    /// Words that hint must not contain.
    must_not: &'static [&'static str],
}

const MISTAKES: &[Mistake] = &[
    // Exercise 1.
    Mistake {
        what: "servidor: deduplica por (order_id, amount) buscando en el ledger, sin usar la key",
        grade: support::grade_in_process::<ContentLookupKit>,
        exercise: Exercise::Cobro,
        first: "keys distintas son cobros distintos",
        must: &["contenido", "por key"],
        must_not: &["(key, order_id, amount)", "store se buscó"],
    },
    Mistake {
        what: "servidor: los charge ids cuentan llamadas, no filas",
        grade: support::grade_in_process::<CallCountIdsKit>,
        exercise: Exercise::Cobro,
        first: "salvo los charge ids",
        must: &["charge id", "ch_0002"],
        must_not: &["el ledger creció", "volvió a ejecutar"],
    },
    Mistake {
        what: "servidor: el store por (key, order_id, amount)",
        grade: support::grade_in_process::<StoreByRequestKit>,
        exercise: Exercise::Cobro,
        first: "replay",
        must: &["otro contenido", "solo por la key"],
        must_not: &["el store se buscó", "contenido (order_id, amount)"],
    },
    Mistake {
        what: "servidor: nunca mira el store",
        grade: support::grade_in_process::<NeverLooksKit>,
        exercise: Exercise::Cobro,
        first: "replay",
        // What was observed (every call charged anew, repeated keys too) and
        // the rule; not a guessed cause ("¿ignoras idempotent?": the same
        // observation comes from a server that stores but never looks).
        must: &[
            "idempotent = true",
            "charge id nuevo",
            "se busca la key en el store",
        ],
        must_not: &["(key, order_id, amount)", "contenido", "¿"],
    },
    Mistake {
        what: "servidor: charge ids desde ch_0000",
        grade: support::grade_in_process::<IdsFromZeroKit>,
        exercise: Exercise::Cobro,
        first: "charge ids desde ch_0001",
        must: &["empiezan en ch_0000"],
        must_not: &["el ledger creció", "store"],
    },
    // Exercise 2.
    Mistake {
        what: "cliente: una key nueva por intento (lección 3)",
        grade: support::grade_in_process::<KeyPerAttemptKit>,
        exercise: Exercise::Cliente,
        first: "",
        must: &["key"],
        must_not: &["max_attempts"],
    },
    Mistake {
        what: "cliente: un intento de más",
        grade: support::grade_in_process::<OneTooManyKit>,
        exercise: Exercise::Cliente,
        first: "",
        must: &["max_attempts"],
        must_not: &["key nueva"],
    },
    Mistake {
        what: "cliente: una sola key para todas las operaciones",
        grade: support::grade_in_process::<OneKeyKit>,
        exercise: Exercise::Cliente,
        first: "",
        must: &["key"],
        must_not: &["max_attempts"],
    },
    Mistake {
        what: "cliente: nunca reintenta",
        grade: support::grade_in_process::<NeverRetriesKit>,
        exercise: Exercise::Cliente,
        first: "",
        must: &["reintenta", "con la misma key"],
        must_not: &["key nueva", "nadie pidió"],
    },
    Mistake {
        what: "cliente: llama a server.charge sin pasar por la red",
        grade: support::grade_in_process::<SkipsTheNetworkKit>,
        exercise: Exercise::Cliente,
        first: "",
        must: &["network.send", "directamente"],
        must_not: &["nadie pidió", "ledger"],
    },
    // Exercise 4 (bonus).
    Mistake {
        what: "store: la misma key con otro monto se acepta como replay",
        grade: support::grade_in_process::<AcceptsOtherAmountKit>,
        exercise: Exercise::Store,
        first: "la misma key con otro monto es Err(KeyReused)",
        must: &[
            "otro monto ($400 en vez de $500)",
            "tu servidor la aceptó",
            "422",
        ],
        must_not: &["InFlight", "en curso"],
    },
    Mistake {
        what: "store: el replay vuelve a cobrar",
        grade: support::grade_in_process::<ChargesOnReplayKit>,
        exercise: Exercise::Store,
        first: "replay: la misma key con la misma request",
        must: &["escribió 1 fila(s) en el ledger", "sin tocar el ledger"],
        must_not: &["KeyReused", "InFlight"],
    },
    Mistake {
        what: "store: responde en curso (409) a una reutilización",
        grade: support::grade_in_process::<ConflictForReuseKit>,
        exercise: Exercise::Store,
        first: "la misma key con otro monto es Err(KeyReused)",
        must: &["Err(InFlight)", "ya había terminado", "Err(KeyReused)"],
        must_not: &["aceptó", "ledger cambió"],
    },
    Mistake {
        what: "store: la key queda en curso para siempre",
        grade: support::grade_in_process::<NeverCompletesKit>,
        exercise: Exercise::Store,
        first: "nunca recibe Err(InFlight)",
        must: &[
            "Err(InFlight)",
            "ya había terminado antes de que esta empezara",
        ],
        must_not: &["KeyReused", "escribió"],
    },
    // Exercise 3.
    Mistake {
        what: "reconciliación: 2+ veces decidido por monto (cobrado > intención)",
        grade: support::grade_in_process::<TwiceByAmountKit>,
        exercise: Exercise::Reconciliacion,
        first: "",
        must: &["orders_charged_twice_or_more"],
        must_not: &["por key", "se contaron por key"],
    },
    Mistake {
        what: "reconciliación: porcentaje sobre lo cobrado",
        grade: support::grade_in_process::<PercentOfChargedKit>,
        exercise: Exercise::Reconciliacion,
        first: "el porcentaje de sobrecobro es sobre la intención",
        must: &["intención", "Percent::of(overcharge, intended)"],
        must_not: &["por key"],
    },
    Mistake {
        what: "reconciliación: sobrecobro neto",
        grade: support::grade_in_process::<NetOverchargeKit>,
        exercise: Exercise::Reconciliacion,
        first: "un cobro faltante no compensa",
        must: &["orden por orden"],
        must_not: &["por key", "total cobrado"],
    },
    Mistake {
        what: "reconciliación: 2+ veces contado por key",
        grade: support::grade_in_process::<TwicePerKeyKit>,
        exercise: Exercise::Reconciliacion,
        first: "se cuentan por orden, no por key",
        must: &["por key, no por order id"],
        must_not: &["total cobrado"],
    },
    Mistake {
        what: "reconciliación: filas desconocidas por order id distinto",
        grade: support::grade_in_process::<UnknownByIdsKit>,
        exercise: Exercise::Reconciliacion,
        first: "órdenes desconocidas",
        must: &["cuenta filas"],
        must_not: &["por key"],
    },
];

/// The exercise's block of the text report, without colours.
fn block(m: &Mistake) -> String {
    let catalog = Catalog::new(support::fixtures(), &[m.exercise]).without_explored();
    let graded = (m.grade)(&catalog);
    let sheet = Sheet::new(&graded, &Rubric::kit().unwrap(), &Plan::default(), &[]);
    let text = exercise_block(&sheet, m.exercise, "vuelve a correr", Hints::Shown);
    strip_ansi(&text)
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            for d in chars.by_ref() {
                if d == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The first failing check's head (its title line, and its `esperado:` and
/// `obtenido:` lines when it has them) and its `pista:` line.
fn first_failure(block: &str) -> (String, String) {
    let lines: Vec<&str> = block.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.trim_start().starts_with('✗'))
        .unwrap_or_else(|| panic!("no failing check:\n{block}"));
    let head: Vec<&str> = std::iter::once(lines[at])
        .chain(lines[at + 1..].iter().copied().take_while(|l| {
            let l = l.trim_start();
            l.starts_with("esperado:") || l.starts_with("obtenido:")
        }))
        .map(str::trim)
        .collect();
    let hint = lines[at + 1..]
        .iter()
        .take_while(|l| !l.trim_start().starts_with('✗') && !l.trim_start().starts_with('✓'))
        .find_map(|l| l.trim_start().strip_prefix("pista: "))
        .unwrap_or_else(|| panic!("the first failing check has no hint:\n{block}"));
    (head.join("\n"), hint.to_string())
}

/// What is wrong with the first failing check `m` gets, if anything.
fn judge(m: &Mistake) -> Result<(), String> {
    let block = block(m);
    println!("── {}\n{block}", m.what);
    let (head, hint) = first_failure(&block);
    let mut problems = Vec::new();
    if !head.contains(m.first) {
        problems.push(format!("the first check shown does not say «{}»", m.first));
    }
    for w in m.must {
        if !hint.contains(w) {
            problems.push(format!("the hint lacks «{w}»"));
        }
    }
    for w in m.must_not {
        if hint.contains(w) {
            problems.push(format!("the hint says «{w}»"));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{}: {}\n{head}\npista: {hint}",
            m.what,
            problems.join("; ")
        ))
    }
}

/// The mistake described as `what`.
fn mistake(what: &str) -> &'static Mistake {
    MISTAKES
        .iter()
        .find(|m| m.what.starts_with(what))
        .unwrap_or_else(|| panic!("no mistake «{what}»"))
}

#[test]
fn every_honest_mistake_gets_its_own_first_check_and_hint() {
    let wrong: Vec<String> = MISTAKES.iter().filter_map(|m| judge(m).err()).collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Issue 17, first case: a server that deduplicates by content leads with
/// the check about content, and no hint claims how the store was searched.
#[test]
fn dedup_by_content_leads_with_the_content_check() {
    let m = mistake("servidor: deduplica por (order_id, amount)");
    judge(m).unwrap();
    assert!(!block(m).contains("el store se buscó por"));
}

/// Issue 17, second case: "charged 2+ times" by amount is not told it
/// counted by key.
#[test]
fn twice_by_amount_is_not_told_it_counted_by_key() {
    judge(mistake("reconciliación: 2+ veces decidido por monto")).unwrap();
}

/// Issue 17, third case: a percentage over the charged total leads with
/// the percentage check, not with the 2+ check.
#[test]
fn percent_of_charged_leads_with_the_percentage_check() {
    let m = mistake("reconciliación: porcentaje sobre lo cobrado");
    judge(m).unwrap();
    let block = block(m);
    let percent = block.find("✗ el porcentaje de sobrecobro").unwrap();
    let twice = block.find("✗ las órdenes cobradas 2+ veces").unwrap();
    assert!(percent < twice, "{block}");
    assert!(!block.contains("2+ veces se cuentan por orden, no por key (0/2 pts)\n      esperado"));
}

/// Issue 17, fourth case: wrong charge-id numbering under the replay
/// check says at once that the ledger has the model's rows, ids aside.
#[test]
fn charge_ids_counting_calls_say_the_ledger_was_not_touched() {
    let m = mistake("servidor: los charge ids cuentan llamadas");
    judge(m).unwrap();
    let (head, _) = first_failure(&block(m));
    assert!(
        head.contains("respondió ch_0004 $300; el modelo, ch_0002 $300"),
        "{head}"
    );
}

/// Exercise 1 fails as a step table: one line per call, each within 100
/// columns as the report prints it.
#[test]
fn exercise_1_steps_fit_100_columns() {
    for m in MISTAKES.iter().filter(|m| m.exercise == Exercise::Cobro) {
        let block = block(m);
        let steps: Vec<&str> = block
            .lines()
            .filter(|l| l.starts_with("          ") && l.trim_start().starts_with(char::is_numeric))
            .collect();
        assert!(!steps.is_empty(), "{}: no step table\n{block}", m.what);
        assert!(
            block.lines().any(|l| l.ends_with("← aquí se separan")),
            "{}\n{block}",
            m.what
        );
        for l in block.lines().filter(|l| l.starts_with("        ")) {
            assert!(
                l.chars().count() <= 100,
                "{}: {} columns\n{l}",
                m.what,
                l.chars().count()
            );
        }
    }
}

#[test]
fn every_exercise_has_four_honest_mistakes() {
    for e in Exercise::ALL {
        let n = MISTAKES.iter().filter(|m| m.exercise == e).count();
        assert!(n >= 4, "{}: {n} mistakes", e.id());
    }
}
