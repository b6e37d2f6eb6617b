//! The wire lines between the judge and the harness, and lesson 2's fleet
//! arithmetic, through the crate's public API. An integration test, not
//! unit tests (issue 28): the library is compiled at opt-level 3, and a
//! `cfg(test)` copy of it cost every test build (the kit's CI, a student's
//! first `cargo test` in the template) 4.5 s of CPU for these four tests.

use protocol::lesson::{attempts, ledger};
use protocol::{
    Answer, Answered, Call, Charges, Client, Job, Observation, Played, Reconcile, answer_line,
    job_line, parse_answer_line, parse_job_line,
};
use sim::{
    ChargeId, ChargeResult, ChargeStatus, Fleet, IdempotencyKey, LedgerEntry, Money, OrderId,
    StreamKind,
};

#[test]
fn an_answer_line_round_trips_after_unterminated_output() {
    let answer: Answer = Ok(Observation::Charges(Played {
        answers: vec![Answered {
            result: ChargeResult {
                charge_id: ChargeId(1),
                amount: Money::from_dollars(500),
                status: ChargeStatus::Captured,
            },
            rows: 1,
        }],
        ledger: Vec::new(),
    }));
    let line = format!("printed without newline{}", answer_line(&answer));
    assert_eq!(parse_answer_line(&line), Some(Ok(answer)));
    assert_eq!(parse_answer_line("hola"), None);
}

#[test]
fn a_job_line_is_one_line_and_round_trips() {
    let jobs = vec![
        Job::Charges(Charges {
            idempotent: true,
            calls: vec![Call {
                key: IdempotencyKey(u64::MAX),
                order_id: OrderId(7),
                amount: Money::from_cents(1),
            }],
        }),
        Job::Reconcile(Reconcile {
            orders: Vec::new(),
            ledger: Vec::new(),
        }),
    ];
    let line = job_line(&jobs);
    assert_eq!(line.iter().filter(|&&b| b == b'\n').count(), 1);
    assert_eq!(line.last(), Some(&b'\n'));
    let text = String::from_utf8(line).unwrap();
    assert_eq!(parse_job_line(&text), Ok(jobs));
    assert!(parse_job_line("[{\"Nada\":1}]").is_err());
    // Well-formed base64 of a postcard value that is not a list of jobs.
    let not_jobs = {
        use base64::Engine as _;
        let bytes = postcard::to_allocvec(&vec![("Nada", 1)]).unwrap();
        base64::engine::general_purpose::STANDARD.encode(bytes)
    };
    assert!(parse_job_line(&not_jobs).is_err());
}

#[test]
fn work_counts_calls_and_attempts() {
    let fleet = Fleet::generated(1000, (10, 500), 0.15, 4, 42, StreamKind::Cpython);
    assert_eq!(
        Job::Client(Client {
            fleet,
            orders: None,
            idempotent: true
        })
        .work(),
        4000
    );
    assert_eq!(
        Job::Reconcile(Reconcile {
            orders: Vec::new(),
            ledger: Vec::new()
        })
        .work(),
        0
    );
}

/// The lesson's fleet: 1,184 attempts, 146 orders charged 2+ times,
/// $305,118 without keys and $256,979 with them.
#[test]
fn the_lessons_fleet() {
    let fleet = Fleet::generated(1000, (10, 500), 0.15, 4, 42, StreamKind::Cpython);
    let a = attempts(&fleet);
    assert_eq!(a.iter().map(|o| u64::from(o.attempts)).sum::<u64>(), 1184);
    assert_eq!(a.iter().filter(|o| o.attempts >= 2).count(), 146);
    let orders = fleet.orders();
    let before = ledger(&fleet, &orders, false);
    let after = ledger(&fleet, &orders, true);
    assert_eq!(before.len(), 1184);
    assert_eq!(after.len(), 1000);
    let sum = |l: &[LedgerEntry]| l.iter().map(|r| r.amount).sum::<Money>();
    assert_eq!(sum(&before), Money::from_dollars(305_118));
    assert_eq!(sum(&after), Money::from_dollars(256_979));
    assert_eq!(before[1183].charge_id, ChargeId(1184));
}
