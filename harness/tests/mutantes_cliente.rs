//! Wrong solutions of exercise 2, the key-per-operation client (issue 3):
//! each kit is the reference with one small change to its client. The
//! judge runs the client against lesson 2's idempotent server in the
//! harness (a real ledger and store, every call recorded; issue 15) and
//! replays the recorded calls through its own model of lesson 2's server. Every mutant must lose marks
//! on the check named for its mistake, with an explanation in the lesson's
//! words, and on no check unrelated to it.
//!
//! One test per mutant: `cargo test -p harness client_unused_key`;
//! `-- --nocapture` prints the failing checks and the catcher's
//! explanation.

use crate::support;
use crate::{client, kit, mutant};

use judge::fixture::Scenario;
use judge::oracle::Expected;
use sim::clients::charge_with_key_per_attempt;
use sim::{ChargeOutcome, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry, Payments};
use support::mistakes::{one_attempt_too_many, one_key_for_all, retry_with_key};
use support::{any_retry, never};

client! {
    /// Client: the key derived from the order's content.
    fn key_from_content(server, network, _keys, order, max_attempts) {
        let key = IdempotencyKey((order.id.0 << 32) ^ order.amount.cents() as u64);
        retry_with_key(server, network, order, key, max_attempts)
    }
}

client! {
    /// Client: keeps sending after a response arrives, up to `max_attempts`.
    fn retries_after_delivery(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        let mut confirmed = None;
        for _ in 0..max_attempts {
            let answer = network.send(server, key, order.id, order.amount);
            confirmed = confirmed.or(answer);
        }
        ChargeOutcome {
            attempts: max_attempts,
            confirmed,
        }
    }
}

client! {
    /// Client: the first attempt not counted, one attempt too few.
    fn one_attempt_too_few(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        retry_with_key(server, network, order, key, max_attempts - 1)
    }
}

client! {
    /// Client: `loop` until a response arrives, never giving up.
    fn never_gives_up(server, network, keys, order, _max_attempts) {
        let key = keys.new_key();
        let mut attempts = 0;
        loop {
            attempts += 1;
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome {
                    attempts,
                    confirmed: Some(result),
                };
            }
        }
    }
}

client! {
    /// Client: never more than 6 attempts (`max_attempts.min(6)`), whatever
    /// `max_attempts` says.
    fn attempts_capped_at_6(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        retry_with_key(server, network, order, key, max_attempts.min(6))
    }
}

client! {
    /// Client: a new key on attempt 5 (the fixtures' orders seldom get there).
    fn new_key_on_attempt_5(server, network, keys, order, max_attempts) {
        let mut key = keys.new_key();
        for attempt in 1..=max_attempts {
            if attempt == 5 {
                key = keys.new_key();
            }
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome {
                    attempts: attempt,
                    confirmed: Some(result),
                };
            }
        }
        ChargeOutcome {
            attempts: max_attempts,
            confirmed: None,
        }
    }
}

client! {
    /// Client: right, but creates a second key it never uses.
    fn creates_an_unused_key(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        let _spare = keys.new_key();
        retry_with_key(server, network, order, key, max_attempts)
    }
}

client! {
    /// Client: the first attempt with a key of its own, the operation's key
    /// created only after it, for the retries.
    fn key_after_first_attempt(server, network, keys, order, max_attempts) {
        let first = keys.new_key();
        if let Some(result) = network.send(server, first, order.id, order.amount) {
            return ChargeOutcome {
                attempts: 1,
                confirmed: Some(result),
            };
        }
        let key = keys.new_key();
        for attempt in 2..=max_attempts {
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome {
                    attempts: attempt,
                    confirmed: Some(result),
                };
            }
        }
        ChargeOutcome {
            attempts: max_attempts,
            confirmed: None,
        }
    }
}

/// The result a ledger row stands for.
fn result_of(row: &LedgerEntry) -> ChargeResult {
    ChargeResult {
        charge_id: row.charge_id,
        amount: row.amount,
        status: ChargeStatus::Captured,
    }
}

client! {
    /// Client: before charging, looks in `server.ledger()` for a row of the
    /// same order and amount and "confirms" it without charging (lesson 2,
    /// errores comunes: deduplicating by content).
    fn confirms_a_row_of_the_same_order(server, network, keys, order, max_attempts) {
        let earlier = server
            .ledger()
            .iter()
            .find(|row| (row.order_id, row.amount) == (order.id, order.amount))
            .map(result_of);
        if let Some(result) = earlier {
            return ChargeOutcome { attempts: 1, confirmed: Some(result) };
        }
        let key = keys.new_key();
        retry_with_key(server, network, order, key, max_attempts)
    }
}

client! {
    /// Client: when every response was lost, "recovers" the lost one by
    /// reading its key's row in `server.ledger()`.
    fn recovers_from_the_ledger_after_giving_up(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        let outcome = retry_with_key(server, network, order, key, max_attempts);
        if outcome.confirmed.is_some() {
            return outcome;
        }
        let recovered = server.ledger().iter().find(|row| row.key == key).map(result_of);
        ChargeOutcome { confirmed: recovered, ..outcome }
    }
}

client! {
    /// Client: after a lost response, reads `server.ledger()`; finding its
    /// key's row there, it takes the charge for done and stops retrying.
    fn stops_when_the_ledger_has_its_row(server, network, keys, order, max_attempts) {
        let key = keys.new_key();
        let mut attempts = 0;
        while attempts < max_attempts {
            attempts += 1;
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome { attempts, confirmed: Some(result) };
            }
            if let Some(row) = server.ledger().iter().find(|row| row.key == key) {
                return ChargeOutcome { attempts, confirmed: Some(result_of(row)) };
            }
        }
        ChargeOutcome { attempts, confirmed: None }
    }
}

// ---------------------------------------------------------------- the cases

fn more_than_one_order(_: &Scenario, e: &Expected) -> bool {
    e.orders > 1
}
fn some_order_answered_early(s: &Scenario, e: &Expected) -> bool {
    e.attempts_per_order
        .iter()
        .any(|&k| k < s.fleet.max_attempts)
}
fn some_order_unconfirmed(_: &Scenario, e: &Expected) -> bool {
    e.after.unconfirmed > 0
}
fn some_order_used_every_attempt(s: &Scenario, e: &Expected) -> bool {
    e.attempts_per_order.contains(&s.fleet.max_attempts)
}
fn some_order_reached_attempt_5(_: &Scenario, e: &Expected) -> bool {
    e.attempts_per_order.iter().any(|&k| k >= 5)
}

kit!(ClientKeyPerAttempt {
    client: charge_with_key_per_attempt
});
mutant!(
    client_key_per_attempt:
        "cliente: una key nueva en cada intento (lección 3)",
        ClientKeyPerAttempt,
        Cliente,
        "cliente/misma-key-en-cada-reintento",
        ["cliente/misma-key-en-cada-reintento"],
        any_retry,
        ["key nueva", "$1500", "lección 3"]
);

kit!(ClientKeyFromContent {
    client: key_from_content
});
mutant!(
    client_key_from_content:
        "cliente: la key derivada del contenido de la orden",
        ClientKeyFromContent,
        Cliente,
        "cliente/operaciones-distintas-keys-distintas",
        [
            "cliente/misma-key-en-cada-reintento",
            "cliente/operaciones-distintas-keys-distintas"
        ],
        never,
        ["contenido de la orden", "la misma key"]
);

kit!(ClientOneKeyForAll {
    client: one_key_for_all
});
mutant!(
    client_one_key_for_all:
        "cliente: una sola key para todas las operaciones",
        ClientOneKeyForAll,
        Cliente,
        "cliente/operaciones-distintas-keys-distintas",
        [
            "cliente/misma-key-en-cada-reintento",
            "cliente/operaciones-distintas-keys-distintas"
        ],
        more_than_one_order,
        ["la misma key para todas", "órdenes distintas"]
);

kit!(ClientRetriesAfterDelivery {
    client: retries_after_delivery
});
mutant!(
    client_retries_after_delivery:
        "cliente: reintenta tras una respuesta entregada",
        ClientRetriesAfterDelivery,
        Cliente,
        "cliente/se-detiene-en-la-primera-respuesta",
        ["cliente/se-detiene-en-la-primera-respuesta"],
        some_order_answered_early,
        ["la respuesta del intento 1 llegó", "un cobro que nadie pidió"]
);

kit!(ClientOneAttemptTooMany {
    client: one_attempt_too_many
});
mutant!(
    client_one_attempt_too_many:
        "cliente: un intento de más",
        ClientOneAttemptTooMany,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        ["cliente/se-rinde-tras-max-attempts"],
        some_order_unconfirmed,
        ["5 intentos con max_attempts=4", "de más"]
);

kit!(ClientOneAttemptTooFew {
    client: one_attempt_too_few
});
mutant!(
    client_one_attempt_too_few:
        "cliente: un intento de menos",
        ClientOneAttemptTooFew,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        ["cliente/se-rinde-tras-max-attempts"],
        some_order_used_every_attempt,
        ["3 intentos con max_attempts=4", "antes de tiempo"]
);

kit!(ClientNeverGivesUp {
    client: never_gives_up
});
mutant!(
    client_never_gives_up:
        "cliente: nunca se rinde mientras todo se pierde",
        ClientNeverGivesUp,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        ["cliente/se-rinde-tras-max-attempts"],
        some_order_unconfirmed,
        ["nunca se rindió", "1001 intentos con max_attempts=4"]
);

kit!(ClientAttemptsCappedAt6 {
    client: attempts_capped_at_6
});
mutant!(
    client_attempts_capped_at_6:
        "cliente: un tope fijo de 6 intentos (max_attempts.min(6))",
        ClientAttemptsCappedAt6,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        ["cliente/se-rinde-tras-max-attempts"],
        never,
        [
            "6 intentos con max_attempts=10, y también 6 con max_attempts=25",
            "tope fijo",
            "antes de tiempo"
        ]
);

kit!(ClientNewKeyOnAttempt5 {
    client: new_key_on_attempt_5
});
mutant!(
    client_new_key_on_attempt_5:
        "cliente: una key nueva en el intento 5",
        ClientNewKeyOnAttempt5,
        Cliente,
        "cliente/misma-key-en-cada-reintento",
        ["cliente/misma-key-en-cada-reintento"],
        some_order_reached_attempt_5,
        [
            "5 respuestas perdidas",
            "los intentos 1 a 4 llevaron la misma key, y el intento 5 llevó otra",
            "una sola vez por operación"
        ]
);

kit!(ClientUnusedKey {
    client: creates_an_unused_key
});
mutant!(
    client_unused_key:
        "cliente: crea una key que no usa",
        ClientUnusedKey,
        Cliente,
        "cliente/misma-key-en-cada-reintento",
        ["cliente/misma-key-en-cada-reintento"],
        never,
        [
            "keys creadas: 2",
            "creó 2 keys con keys.new_key() y usó solo una",
            "exactamente una vez por operación"
        ]
);

kit!(ClientKeyAfterFirstAttempt {
    client: key_after_first_attempt
});
mutant!(
    client_key_after_first_attempt:
        "cliente: crea la key después del primer intento",
        ClientKeyAfterFirstAttempt,
        Cliente,
        "cliente/misma-key-en-cada-reintento",
        ["cliente/misma-key-en-cada-reintento"],
        any_retry,
        [
            "el primer intento llevó una key y los 2 reintentos otra",
            "después del primer intento",
            "antes del primer intento"
        ]
);

kit!(ClientConfirmsARowOfTheSameOrder {
    client: confirms_a_row_of_the_same_order
});
mutant!(
    client_confirms_a_row_of_the_same_order:
        "cliente: confirma sin cobrar si el ledger ya tiene una fila de la misma orden (deduplicar por contenido)",
        ClientConfirmsARowOfTheSameOrder,
        Cliente,
        "cliente/operaciones-distintas-keys-distintas",
        ["cliente/operaciones-distintas-keys-distintas"],
        never,
        [
            "la operación 2 no envió ningún intento",
            "dos órdenes idénticas son dos operaciones",
            "orders no ve el ledger de payments"
        ]
);

kit!(ClientRecoversFromTheLedgerAfterGivingUp {
    client: recovers_from_the_ledger_after_giving_up
});
mutant!(
    client_recovers_from_the_ledger_after_giving_up:
        "cliente: al rendirse, recupera la respuesta perdida leyendo el ledger del servidor",
        ClientRecoversFromTheLedgerAfterGivingUp,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        ["cliente/se-rinde-tras-max-attempts"],
        some_order_unconfirmed,
        [
            "se perdieron todas las respuestas y tu cliente informó un cobro confirmado",
            "4 intento(s) con max_attempts=4",
            "orders no ve"
        ]
);

kit!(ClientStopsWhenTheLedgerHasItsRow {
    client: stops_when_the_ledger_has_its_row
});
mutant!(
    client_stops_when_the_ledger_has_its_row:
        "cliente: tras una respuesta perdida lee el ledger, ve su fila y deja de reintentar",
        ClientStopsWhenTheLedgerHasItsRow,
        Cliente,
        "cliente/se-rinde-tras-max-attempts",
        [
            "cliente/misma-key-en-cada-reintento",
            "cliente/se-detiene-en-la-primera-respuesta",
            "cliente/se-rinde-tras-max-attempts"
        ],
        any_retry,
        [
            "se perdieron todas las respuestas y tu cliente informó un cobro confirmado",
            "1 intento(s) con max_attempts=4",
            "no lo leas"
        ]
);
