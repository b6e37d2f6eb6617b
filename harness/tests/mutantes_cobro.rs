//! Wrong solutions of exercise 1, the idempotent `charge` (issue 3): each
//! kit is the reference with one small change to its server, a kind of
//! mistake real payment code has shipped. Every one must lose marks on the
//! check named for its mistake, with an explanation in the lesson's words,
//! and on no check unrelated to it. Graded in this process through the
//! harness's own job runner (`support::InProcess`).
//!
//! One test per mutant: `cargo test -p harness server_key_as_u16`;
//! `-- --nocapture` prints the failing checks and the catcher's
//! explanation.

use crate::support;
use crate::{kit, mutant};

use judge::fixture::Scenario;
use judge::oracle::Expected;
use sim::{
    ChargeId, ChargeResult, ChargeStatus, IdempotencyKey, LedgerEntry, Money, OrderId, Payments,
};
use solutions::PaymentsServer;
use support::mistakes::StoreByRequest;
use support::{Changed, ServerChange, always, any_retry, lesson_server, never};

/// Server: a replay executes the charge again (the ledger grows) while
/// returning the stored result.
struct ReplayExecutesAgain;

impl ServerChange for ReplayExecutesAgain {
    fn inner(_: bool) -> PaymentsServer {
        PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let executed = s.inner.charge(k, o, a);
        if s.idempotent {
            *s.results.entry(k).or_insert(executed)
        } else {
            executed
        }
    }
}

/// Server: a replay answers a new result (a new charge id) instead of the
/// stored one; the ledger is right.
struct ReplayNewResult;

impl ServerChange for ReplayNewResult {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let rows = s.inner.ledger().len();
        let stored = s.inner.charge(k, o, a);
        if s.idempotent && s.inner.ledger().len() == rows {
            ChargeResult {
                charge_id: ChargeId::next_after(rows),
                ..stored
            }
        } else {
            stored
        }
    }
}

/// Server: deduplicates by the request's content `(order_id, amount)`
/// instead of by key, so two operations that look alike are merged.
struct DedupByContent;

impl ServerChange for DedupByContent {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let key = if s.idempotent {
            *s.first_key.entry((o, a)).or_insert(k)
        } else {
            k
        };
        s.inner.charge(key, o, a)
    }
}

/// Server: ignores the `idempotent` it is given and always runs in mode
/// `MODE`. With `true`, the world without keys stops double-charging (the
/// final project loses its "before"); with `false`, every call charges.
struct IgnoresFlag<const MODE: bool>;

impl<const MODE: bool> ServerChange for IgnoresFlag<MODE> {
    fn inner(_: bool) -> PaymentsServer {
        PaymentsServer::new(MODE)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        s.inner.charge(k, o, a)
    }
}

/// Server: remembers the key and its result without executing the charge
/// (nothing reaches the ledger in the idempotent world).
struct RemembersWithoutCharging;

impl ServerChange for RemembersWithoutCharging {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if !s.idempotent {
            return s.inner.charge(k, o, a);
        }
        let n = s.results.len();
        *s.results.entry(k).or_insert(ChargeResult {
            charge_id: ChargeId::next_after(n),
            amount: a,
            status: ChargeStatus::Captured,
        })
    }
}

/// Server: a replay answers `ChargeResult { charge_id: ChargeId(1), amount:
/// <the retry's amount>, status }`: right for the lesson's one buyer (every
/// replay is of `ch_0001`), wrong for any other key.
struct ReplayFirstChargeId;

impl ServerChange for ReplayFirstChargeId {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let rows = s.inner.ledger().len();
        let stored = s.inner.charge(k, o, a);
        if s.idempotent && s.inner.ledger().len() == rows {
            ChargeResult {
                charge_id: ChargeId(1),
                amount: a,
                status: ChargeStatus::Captured,
            }
        } else {
            stored
        }
    }
}

/// Server: a replay answers the stored result with the retry's amount
/// (`ChargeResult { amount, ..*stored }`).
struct ReplayRetryAmount;

impl ServerChange for ReplayRetryAmount {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let stored = s.inner.charge(k, o, a);
        if s.idempotent {
            ChargeResult {
                amount: a,
                ..stored
            }
        } else {
            stored
        }
    }
}

/// Server: the store keyed by the key's low `BITS` bits (`key.0 as u16`,
/// `key.0 as u32`). The kit's keys count up in their low 32 bits, so they
/// never collide there.
struct TruncatedKey<const BITS: u32>;

impl<const BITS: u32> ServerChange for TruncatedKey<BITS> {
    fn inner(_: bool) -> PaymentsServer {
        PaymentsServer::new(false)
    }
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        if !s.idempotent {
            return s.inner.charge(k, o, a);
        }
        let low = IdempotencyKey(k.0 & ((1u64 << BITS) - 1));
        if let Some(stored) = s.results.get(&low) {
            return *stored;
        }
        let result = s.inner.charge(k, o, a);
        s.results.insert(low, result);
        result
    }
}

/// Server: charge ids `ChargeId::next_after(len % 4)`, right up to 4 rows.
struct ChargeIdsMod4;

impl ServerChange for ChargeIdsMod4 {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let id = ChargeId::next_after(s.rows.len() % 4);
        lesson_server(s, k, o, a, id)
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

/// Server: charge ids `ChargeId::next_after(len as u8)`, right up to 256 rows.
struct ChargeIdsU8;

impl ServerChange for ChargeIdsU8 {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let id = ChargeId::next_after(usize::from(s.rows.len() as u8));
        lesson_server(s, k, o, a, id)
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

/// Server: charge ids counted from 0 (`ChargeId(len)`), the first `ch_0000`.
struct ChargeIdsFromZero;

impl ServerChange for ChargeIdsFromZero {
    fn charge(s: &mut Changed<Self>, k: IdempotencyKey, o: OrderId, a: Money) -> ChargeResult {
        let id = ChargeId(s.rows.len() as u64);
        lesson_server(s, k, o, a, id)
    }
    fn ledger(s: &Changed<Self>) -> &[LedgerEntry] {
        &s.rows
    }
}

// ---------------------------------------------------------------- the cases

fn shows_key_per_attempt(s: &Scenario, e: &Expected) -> bool {
    s.show_key_per_attempt && e.key_per_attempt.charges > e.orders
}

kit!(Reference {});

/// The kits below change one piece of this one: it must get full marks, or
/// their failures would prove nothing.
#[test]
fn the_wrapped_reference_gets_full_marks() {
    let graded = support::grade_in_process::<Reference>(support::catalog());
    let failed = support::failing(&graded);
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(graded.score().0, graded.results.len());
}

kit!(ServerReplayExecutesAgain {
    server: ReplayExecutesAgain
});
mutant!(
    server_replay_executes_again:
        "servidor: el replay vuelve a ejecutar el cobro",
        ServerReplayExecutesAgain,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        [
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        any_retry,
        [
            "volvió a ejecutar el cobro",
            "el ledger creció",
            "SIN tocar el ledger"
        ]
);

kit!(ServerReplayNewResult {
    server: ReplayNewResult
});
mutant!(
    server_replay_new_result:
        "servidor: el replay devuelve un resultado nuevo",
        ServerReplayNewResult,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        [
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        never,
        ["resultado nuevo", "resultado guardado", "ch_0001"]
);

kit!(ServerDedupByContent {
    server: DedupByContent
});
mutant!(
    server_dedup_by_content:
        "servidor: deduplica por contenido (order_id, amount)",
        ServerDedupByContent,
        Cobro,
        "cobro/keys-distintas-se-cobran",
        ["cobro/keys-distintas-se-cobran"],
        shows_key_per_attempt,
        ["contenido", "(order_id, amount)", "por key"]
);

kit!(ServerAlwaysIdempotent {
    server: IgnoresFlag<true>
});
mutant!(
    server_always_idempotent:
        "servidor: ignora idempotent = false",
        ServerAlwaysIdempotent,
        Cobro,
        "cobro/sin-idempotencia-cada-llamada-cobra",
        ["cobro/sin-idempotencia-cada-llamada-cobra"],
        any_retry,
        ["sin idempotencia", "antes", "no lo deduplices"]
);

kit!(ServerNeverIdempotent {
    server: IgnoresFlag<false>
});
mutant!(
    server_never_idempotent:
        "servidor: ignora idempotent = true",
        ServerNeverIdempotent,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        [
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        any_retry,
        ["idempotent", "como sin idempotencia"]
);

kit!(ServerRemembersWithoutCharging {
    server: RemembersWithoutCharging
});
mutant!(
    server_remembers_without_charging:
        "servidor: recuerda la key sin ejecutar el cobro",
        ServerRemembersWithoutCharging,
        Cobro,
        "cobro/key-nueva-se-cobra-y-se-registra",
        [
            "cobro/key-nueva-se-cobra-y-se-registra",
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        always,
        ["Recordar la key sin ejecutar el cobro", "el ledger quedó vacío"]
);

kit!(ServerReplayFirstChargeId {
    server: ReplayFirstChargeId
});
mutant!(
    server_replay_first_charge_id:
        "servidor: el replay devuelve ch_0001 con el monto del reintento",
        ServerReplayFirstChargeId,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        [
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        never,
        [
            "el replay de K2 devolvió ch_0001",
            "otra key (K1)",
            "ch_0002 $300",
            "SU key"
        ]
);

kit!(ServerReplayRetryAmount {
    server: ReplayRetryAmount
});
mutant!(
    server_replay_retry_amount:
        "servidor: el replay devuelve el monto del reintento",
        ServerReplayRetryAmount,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        ["cobro/replay-devuelve-lo-guardado"],
        never,
        [
            "el replay de K2 devolvió el monto que traía el reintento ($999)",
            "en vez del guardado ($300)",
            "idéntico"
        ]
);

kit!(ServerStoreByRequest {
    server: StoreByRequest
});
mutant!(
    server_store_by_request:
        "servidor: el store por (key, order_id, amount)",
        ServerStoreByRequest,
        Cobro,
        "cobro/replay-devuelve-lo-guardado",
        ["cobro/replay-devuelve-lo-guardado"],
        never,
        [
            "otro contenido (ord_0002 $999 en vez de ord_0002 $300)",
            "(key, order_id, amount)",
            "solo por la key",
            "SIN tocar el ledger"
        ]
);

kit!(ServerKeyAsU16 {
    server: TruncatedKey<16>
});
mutant!(
    server_key_as_u16:
        "servidor: el store por key.0 as u16",
        ServerKeyAsU16,
        Cobro,
        "cobro/keys-distintas-se-cobran",
        ["cobro/keys-distintas-se-cobran"],
        never,
        [
            "KB (idem_0000000200000005) se tomó por un replay de KA",
            "32 bits bajos",
            "64 bits",
            "as u16"
        ]
);

kit!(ServerKeyAsU32 {
    server: TruncatedKey<32>
});
mutant!(
    server_key_as_u32:
        "servidor: el store por key.0 as u32",
        ServerKeyAsU32,
        Cobro,
        "cobro/keys-distintas-se-cobran",
        ["cobro/keys-distintas-se-cobran"],
        never,
        [
            "KB (idem_0000000200000005) se tomó por un replay de KA",
            "64 bits",
            "as u32"
        ]
);

kit!(ServerChargeIdsMod4 {
    server: ChargeIdsMod4
});
mutant!(
    server_charge_ids_mod_4:
        "servidor: charge ids next_after(len % 4)",
        ServerChargeIdsMod4,
        Cobro,
        "cobro/sin-idempotencia-cada-llamada-cobra",
        ["cobro/sin-idempotencia-cada-llamada-cobra"],
        never,
        [
            "la llamada 5 (K1 ord_0001 $500) respondió ch_0001 $500; el modelo, ch_0005 $500",
            "el cobro número 5 recibió ch_0001 en vez de ch_0005",
            "ChargeId::next_after(self.ledger.len())"
        ]
);

kit!(ServerChargeIdsU8 {
    server: ChargeIdsU8
});
mutant!(
    server_charge_ids_u8:
        "servidor: charge ids next_after(len as u8)",
        ServerChargeIdsU8,
        Cobro,
        "cobro/sin-idempotencia-cada-llamada-cobra",
        ["cobro/sin-idempotencia-cada-llamada-cobra"],
        never,
        [
            "la llamada 257 (K1 ord_0001 $500) respondió ch_0001 $500; el modelo, ch_0257 $500",
            "el cobro número 257 recibió ch_0001 en vez de ch_0257",
            "enteros más chicos"
        ]
);

kit!(ServerChargeIdsFromZero {
    server: ChargeIdsFromZero
});
mutant!(
    server_charge_ids_from_zero:
        "servidor: charge ids desde ch_0000",
        ServerChargeIdsFromZero,
        Cobro,
        "cobro/sin-idempotencia-cada-llamada-cobra",
        [
            "cobro/sin-idempotencia-cada-llamada-cobra",
            "cobro/key-nueva-se-cobra-y-se-registra",
            "cobro/replay-devuelve-lo-guardado",
            "cobro/keys-distintas-se-cobran"
        ],
        never,
        [
            "empiezan en ch_0000 en vez de ch_0001",
            "ChargeId::next_after(self.ledger.len())"
        ]
);
