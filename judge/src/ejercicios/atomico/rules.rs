//! The judge's model of lesson 4's rules for exercise 4 ([`Model`]), and
//! how one history's answers are compared with it: what the fixed checks,
//! the model family and the step tables of exercise 4 share.

use protocol::{Call, SharedAnswered};
use sim::{
    ChargeError, ChargeId, ChargeRequest, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry,
};

/// What the shared server answered to a script: one entry per call.
pub type Answers = Vec<SharedAnswered>;

/// Lesson 4's server, sequentially: the judge's model of exercise 4.
#[derive(Debug, Default)]
pub struct Model {
    ledger: Vec<LedgerEntry>,
    store: Vec<(IdempotencyKey, ChargeRequest, ChargeResult)>,
}

impl Model {
    /// `charge` with lesson 4's rules, from one thread (so no key is ever
    /// in flight when a call starts).
    pub fn charge(&mut self, c: &Call) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest {
            order_id: c.order_id,
            amount: c.amount,
        };
        if let Some((_, stored, result)) = self.store.iter().find(|(k, _, _)| *k == c.key) {
            return if *stored == request {
                Ok(*result)
            } else {
                Err(ChargeError::KeyReused)
            };
        }
        let charge_id = ChargeId::next_after(self.ledger.len());
        self.ledger.push(LedgerEntry {
            key: c.key,
            order_id: c.order_id,
            amount: c.amount,
            charge_id,
        });
        let result = ChargeResult {
            charge_id,
            amount: c.amount,
            status: ChargeStatus::Captured,
        };
        self.store.push((c.key, request, result));
        Ok(result)
    }

    /// The ledger so far.
    pub fn ledger(&self) -> &[LedgerEntry] {
        &self.ledger
    }

    /// The store so far: each key, the request it was first charged with
    /// and its result, in order of first use.
    pub fn store(&self) -> &[(IdempotencyKey, ChargeRequest, ChargeResult)] {
        &self.store
    }

    /// Every call of `calls` in order: the model's answers and ledgers.
    pub fn play(calls: &[Call]) -> Answers {
        let mut model = Model::default();
        calls
            .iter()
            .map(|c| SharedAnswered {
                result: model.charge(c),
                ledger: model.ledger.clone(),
            })
            .collect()
    }
}

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
