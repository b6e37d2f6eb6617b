//! Exercise 4's jobs and answers (bonus, lesson 4, *el store atómico*): a
//! shared server called from one thread ([`Shared`], answered by one
//! [`SharedAnswered`] per call) and under the schedule explorer
//! ([`schedules::Schedules`]).

pub mod schedules;

use serde::{Deserialize, Serialize};
use sim::{
    ChargeError, ChargeId, ChargeRequest, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry,
};

use crate::{Call, Job, Observation, Request};

/// Exercise 4, sequentially: a new shared server (`Kit::new_atomic_server`),
/// then every call in order from one thread. Answered by one
/// [`SharedAnswered`] per call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shared {
    /// The calls, in order.
    pub calls: Vec<Call>,
}

crate::request!(Shared => Vec<SharedAnswered>, Shared, "las respuestas del servidor compartido");

/// Exercise 4, a long history: a new shared server, then each thread's
/// calls in order, the threads side by side (one thread: a sequential
/// history). Answered by [`LongRun`]: every call's result and the ledger
/// after the last call, not a ledger per call (a history of a million
/// calls would send a million ledgers).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Long {
    /// Per thread, its calls in order.
    pub threads: Vec<Vec<Call>>,
}

/// What the shared server answered to a [`Long`] history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LongRun {
    /// Per thread, one result per call, in order.
    pub results: Vec<Vec<Result<ChargeResult, ChargeError>>>,
    /// `ledger()` after every thread finished.
    pub ledger: Vec<LedgerEntry>,
}

crate::request!(Long => LongRun, Long, "las respuestas de una historia larga");

/// What one call to the shared server answered (exercise 4), and its ledger
/// right after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SharedAnswered {
    /// The call's result: a charge or replay, or the error it was refused
    /// with.
    pub result: Result<ChargeResult, ChargeError>,
    /// `ledger()` right after the call.
    pub ledger: Vec<LedgerEntry>,
}

/// Lesson 4's server, sequentially: the judge's model of exercise 4.
#[derive(Debug, Default)]
pub struct Model {
    ledger: Vec<LedgerEntry>,
    store: Vec<(IdempotencyKey, ChargeRequest, ChargeResult)>,
    /// Each key's place in `store`.
    index: std::collections::HashMap<IdempotencyKey, usize>,
}

impl Model {
    /// `charge` with lesson 4's rules, from one thread (so no key is ever
    /// in flight when a call starts).
    pub fn charge(&mut self, c: &Call) -> Result<ChargeResult, ChargeError> {
        let request = ChargeRequest {
            order_id: c.order_id,
            amount: c.amount,
        };
        if let Some(&i) = self.index.get(&c.key) {
            let (_, stored, result) = &self.store[i];
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
        self.index.insert(c.key, self.store.len());
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

    /// Every call of `calls` in order: the model's results, then its
    /// ledger (a [`Long`] history of one thread).
    pub fn play_long(calls: &[Call]) -> (Vec<Result<ChargeResult, ChargeError>>, Vec<LedgerEntry>) {
        let mut model = Model::default();
        let results = calls.iter().map(|c| model.charge(c)).collect();
        (results, model.ledger)
    }

    /// Every call of `calls` in order: the model's answers and ledgers.
    pub fn play(calls: &[Call]) -> Vec<SharedAnswered> {
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
