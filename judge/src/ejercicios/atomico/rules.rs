//! The judge's model of lesson 4's rules for exercise 4 ([`Model`]), and
//! how one history's answers are compared with it: what the fixed checks,
//! the model family and the step tables of exercise 4 share.

use protocol::SharedAnswered;
use sim::{ChargeError, ChargeResult};

/// What the shared server answered to a script: one entry per call.
pub type Answers = Vec<SharedAnswered>;

/// Lesson 4's server, sequentially: the judge's model of exercise 4 (in
/// `protocol`, compiled optimised: the long history plays a million calls).
pub use protocol::atomico::Model;

// ------------------------------------------------------------- comparison

/// The first call whose answer or ledger differs (or that got no answer).
pub fn parting(got: &Answers, want: &Answers) -> Option<usize> {
    (0..want.len()).find(|&i| got.get(i) != want.get(i))
}

/// `ch_0001 $500`, `Err(KeyReused)`.
pub fn short(result: &Result<ChargeResult, ChargeError>) -> String {
    match result {
        Ok(r) => format!("{} {}", r.charge_id, r.amount),
        Err(e) => format!("Err({e:?})"),
    }
}

/// How many rows call `i` added (negative when the ledger shrank).
pub fn written(answers: &Answers, i: usize) -> i64 {
    let before = if i == 0 {
        0
    } else {
        answers[i - 1].ledger.len()
    };
    answers[i].ledger.len() as i64 - before as i64
}
