//! Wrong solutions of exercise 4, the atomic store (bonus, lesson 4): each
//! kit is the reference except for its shared server, lesson 4's
//! claim-charge-store with one mistake in its sequential rules. Every one
//! must fail the fixed check named for its mistake, with an explanation
//! that says what was observed, fail no fixed check of another exercise,
//! and be caught by the model-based check too (a shrunk counterexample).
//! Graded in this process (`support::InProcess`), on exercise 4's checks.
//! The races (two concurrent retries) are the schedule explorer's.
//!
//! One test per mutant: `cargo test -p harness --test suite mutantes_store::
//! store_replay_charges_again -- --nocapture` prints the failing checks,
//! the model's counterexample and the catcher's explanation.

use crate::support;
use crate::{kit, store_mistake};

use std::sync::OnceLock;

use judge::checks::Catalog;
use judge::verdict::Exercise;
use support::{Case, never};

store_mistake!(NoMistake, None);
store_mistake!(ReuseOtherAmount, ReuseOtherAmount);
store_mistake!(ReuseOtherOrder, ReuseOtherOrder);
store_mistake!(RejectedReuseWritesRow, RejectedReuseWritesRow);
store_mistake!(RejectedReuseRewritesStore, RejectedReuseRewritesStore);
store_mistake!(ReplayChargesAgain, ReplayChargesAgain);
store_mistake!(ChargeIdsByCalls, ChargeIdsByCalls);
store_mistake!(ReuseAnsweredInFlight, ReuseAnsweredInFlight);
store_mistake!(InFlightNeverCleared, InFlightNeverCleared);

/// Exercise 4's checks only (fixed and model-based), built once.
fn store_catalog() -> &'static Catalog {
    static CATALOG: OnceLock<Catalog> = OnceLock::new();
    CATALOG.get_or_init(|| Catalog::new(Vec::new(), &[Exercise::Store]).without_explored())
}

/// One `#[test]` named `$test`: kit `$kit` (the reference with shared
/// server `Shared<$change>`) fails exactly the fixed checks listed, the
/// catcher with every word, and the model-based check with a
/// counterexample.
macro_rules! store_mutant {
    ($test:ident: $kind:literal, $kit:ident, $change:ident, $catcher:literal, [$($fixed:literal),* $(,)?], [$($word:literal),* $(,)?]) => {
        kit!($kit { atomic: support::Shared<$change> });

        #[test]
        fn $test() {
            let text = support::assert_caught_in(
                &Case {
                    kind: $kind,
                    mutant: stringify!($kit),
                    grade: support::grade_in_process::<$kit>,
                    exercise: Exercise::Store,
                    catcher: $catcher,
                    fixed: &[$($fixed),*],
                    scenarios: never,
                    words: &[$($word),*],
                },
                store_catalog(),
            );
            assert!(
                text.contains("\natomico/modelo: ") && text.contains("reducido desde"),
                "the model-based check did not catch it:\n{text}"
            );
        }
    };
}

kit!(Reference {});
kit!(StoreNoMistake { atomic: support::Shared<NoMistake> });

/// The reference's shared server, and the one the mutants change without
/// its mistake, get full marks on exercise 4: the mutants' failures are
/// their mistakes.
#[test]
fn the_reference_and_the_unchanged_base_get_full_marks_on_exercise_4() {
    for graded in [
        support::grade_in_process::<Reference>(store_catalog()),
        support::grade_in_process::<StoreNoMistake>(store_catalog()),
    ] {
        let failed = support::failing(&graded);
        assert!(failed.is_empty(), "{failed:#?}");
        assert_eq!(graded.results.len(), 8);
    }
}

/// The reference passes exercise 4's model-based check with every seed
/// the kit uses (the public one and hidden variants'), and a mutant fails
/// it with each of them. The long histories (a million calls, seconds
/// each) with the public seed and one hidden variant's.
#[test]
fn the_model_check_passes_the_reference_and_catches_a_mutant_with_every_seed() {
    let reference = support::InProcess::<Reference>::default();
    let mutant = support::InProcess::<StoreReuseOtherAmount>::default();
    for seed in [judge::checks::model::PUBLIC_SEED, 1, 7, 99, 123_456_789] {
        let long = seed == judge::checks::model::PUBLIC_SEED || seed == 7;
        assert_eq!(
            judge::checks::model::run::<judge::ejercicios::atomico::model::Store>(
                &reference, seed, long
            ),
            Ok(()),
            "seed {seed}"
        );
        assert!(
            matches!(
                judge::checks::model::run::<judge::ejercicios::atomico::model::Store>(
                    &mutant, seed, true
                ),
                Err(judge::verdict::Verdict::Counterexample { .. })
            ),
            "seed {seed}"
        );
    }
}

store_mutant!(
    store_reuse_with_another_amount_accepted:
        "store: la misma key con otro monto se acepta (compara solo la orden)",
        StoreReuseOtherAmount,
        ReuseOtherAmount,
        "atomico/misma-key-otro-monto-se-rechaza",
        [
            "atomico/misma-key-otro-monto-se-rechaza",
            "atomico/charge-ids-en-orden-del-ledger",
            "atomico/en-secuencia-nunca-en-curso",
        ],
        [
            "la llamada 2 repite la key de la llamada 1 con otro monto ($400 en vez de $500)",
            "tu servidor la aceptó: respondió ch_0001 $500",
            "Err(KeyReused)",
            "← aquí se separan",
        ]
);

store_mutant!(
    store_reuse_with_another_order_accepted:
        "store: la misma key con otra orden se acepta (compara solo el monto)",
        StoreReuseOtherOrder,
        ReuseOtherOrder,
        "atomico/misma-key-otra-orden-se-rechaza",
        [
            "atomico/misma-key-otra-orden-se-rechaza",
            "atomico/charge-ids-en-orden-del-ledger",
        ],
        [
            "con otra orden (ord_0002 en vez de ord_0001)",
            "tu servidor la aceptó",
            "Err(KeyReused)",
        ]
);

store_mutant!(
    store_rejected_reuse_writes_a_row:
        "store: rechaza la reutilización, pero escribe su fila en el ledger",
        StoreRejectedReuseWritesRow,
        RejectedReuseWritesRow,
        "atomico/misma-key-otro-monto-se-rechaza",
        [
            "atomico/misma-key-otro-monto-se-rechaza",
            "atomico/misma-key-otra-orden-se-rechaza",
            "atomico/charge-ids-en-orden-del-ledger",
            "atomico/en-secuencia-nunca-en-curso",
        ],
        [
            "respondió Err(KeyReused) como el modelo, pero escribió 1 fila(s) en tu ledger; el modelo, 0",
            "tu ledger cambió (+1 fila(s)",
            "sin tocar el ledger",
        ]
);

store_mutant!(
    store_rejected_reuse_rewrites_the_store:
        "store: rechaza la reutilización, pero guarda la segunda request bajo la key",
        StoreRejectedReuseRewritesStore,
        RejectedReuseRewritesStore,
        "atomico/misma-key-otro-monto-se-rechaza",
        [
            "atomico/misma-key-otro-monto-se-rechaza",
            "atomico/misma-key-otra-orden-se-rechaza",
            "atomico/charge-ids-en-orden-del-ledger",
            "atomico/en-secuencia-nunca-en-curso",
        ],
        [
            "la llamada 3 (K1 ord_0001 $500, la key de la llamada 1 con la misma request) respondió Err(KeyReused); el modelo, ch_0001 $500",
            "(después de la llamada 2, la misma key con otra request)",
            "store del modelo tras el paso 3: {K1→ord_0001 $500 ch_0001}",
        ]
);

store_mutant!(
    store_replay_charges_again:
        "store: el replay vuelve a cobrar (y devuelve lo guardado)",
        StoreReplayChargesAgain,
        ReplayChargesAgain,
        "atomico/replay-devuelve-lo-guardado-sin-tocar-el-ledger",
        [
            "atomico/replay-devuelve-lo-guardado-sin-tocar-el-ledger",
            "atomico/misma-key-otro-monto-se-rechaza",
            "atomico/misma-key-otra-orden-se-rechaza",
            "atomico/charge-ids-en-orden-del-ledger",
            "atomico/en-secuencia-nunca-en-curso",
        ],
        [
            "respondió ch_0001 $500 como el modelo, pero escribió 1 fila(s) en tu ledger; el modelo, 0",
            "tu servidor respondió lo guardado (ch_0001 $500), pero escribió 1 fila(s) en el ledger",
            "sin tocar el ledger",
        ]
);

store_mutant!(
    store_charge_ids_numbered_by_calls:
        "store: numera los charge ids por llamadas recibidas, no por filas del ledger",
        StoreChargeIdsByCalls,
        ChargeIdsByCalls,
        "atomico/charge-ids-en-orden-del-ledger",
        [
            "atomico/replay-devuelve-lo-guardado-sin-tocar-el-ledger",
            "atomico/misma-key-otro-monto-se-rechaza",
            "atomico/charge-ids-en-orden-del-ledger",
            "atomico/en-secuencia-nunca-en-curso",
        ],
        [
            "la llamada 3 (K2 ord_0002 $300) respondió ch_0003 $300; el modelo, ch_0002 $300",
            "El charge id es el de la fila",
        ]
);

store_mutant!(
    store_key_reused_answered_in_flight:
        "store: responde Err(InFlight) a la misma key con otra request",
        StoreReuseAnsweredInFlight,
        ReuseAnsweredInFlight,
        "atomico/misma-key-otro-monto-se-rechaza",
        [
            "atomico/misma-key-otro-monto-se-rechaza",
            "atomico/misma-key-otra-orden-se-rechaza",
            "atomico/charge-ids-en-orden-del-ledger",
            "atomico/en-secuencia-nunca-en-curso",
        ],
        [
            "respondió Err(InFlight); el modelo, Err(KeyReused)",
            "la llamada de esa key ya había terminado",
            "el 422",
        ]
);

store_mutant!(
    store_in_flight_never_cleared:
        "store: nunca guarda el resultado; la key queda en curso para siempre",
        StoreInFlightNeverCleared,
        InFlightNeverCleared,
        "atomico/en-secuencia-nunca-en-curso",
        [
            "atomico/replay-devuelve-lo-guardado-sin-tocar-el-ledger",
            "atomico/misma-key-otro-monto-se-rechaza",
            "atomico/misma-key-otra-orden-se-rechaza",
            "atomico/charge-ids-en-orden-del-ledger",
            "atomico/en-secuencia-nunca-en-curso",
        ],
        [
            "la llamada 2 (K1 ord_0001 $500, la key de la llamada 1 con la misma request) respondió Err(InFlight); el modelo, ch_0001 $500",
            "la llamada 1 ya había terminado antes de que esta empezara",
            "Es un replay",
        ]
);
