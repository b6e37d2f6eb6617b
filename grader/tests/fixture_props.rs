//! The fixture loader never panics, whatever it is fed (issue 3): arbitrary
//! text, and TOML-like documents built from the fixture's own field names
//! with arbitrary values. Every error is one Spanish line naming the file;
//! every accepted fixture can be run.
//!
//! Bounded to a few seconds: `cargo test -p grader --test suite fixture_props::`
//! (raise the case counts with `PROPTEST_CASES=20000` for a longer hunt).

use std::path::Path;

use judge::fixture::Scenario;
use proptest::prelude::*;
use sim::SeededKeys;

const FILE: &str = "fixtures/prop.toml";

/// Parses `text`; checks the error's shape, or runs a small accepted fixture.
fn check(text: &str) -> Result<(), TestCaseError> {
    match Scenario::parse(text, Path::new(FILE)) {
        Err(e) => {
            let line = e.to_string();
            prop_assert!(
                line.starts_with(&format!("fixture {FILE}")),
                "does not name the file: {line}"
            );
            prop_assert!(
                !line.contains('\n') && !line.contains('\r'),
                "not one line: {line:?}"
            );
            for english in [
                ", expected",
                "invalid type",
                "unknown field",
                "missing field",
                "unknown variant",
            ] {
                prop_assert!(!line.contains(english), "English left in: {line}");
            }
        }
        Ok(s) => {
            let s = s.fleet;
            prop_assert!((1..=100).contains(&s.max_attempts));
            if s.order_count() <= 2_000 {
                let orders = s.orders();
                prop_assert_eq!(orders.len() as u64, s.order_count());
                prop_assert!(orders.iter().all(|o| o.amount > sim::Money::ZERO));
                let mut losses = s.loss_model();
                for _ in 0..orders.len().min(100) {
                    losses.next_delivery();
                }
                let _: SeededKeys = s.keys();
            }
        }
    }
    Ok(())
}

/// A TOML value as text: numbers at and beyond every limit, odd floats,
/// strings with control characters, booleans, lists and tables.
fn value() -> impl Strategy<Value = String> {
    let scalar = prop_oneof![
        prop_oneof![
            Just(0i64),
            Just(1),
            Just(-1),
            Just(4),
            Just(100),
            Just(101),
            Just(1_000_000),
            Just(1_000_001),
            Just(20_000_000),
            Just(20_000_001),
            Just(i64::MAX),
            Just(i64::MIN),
        ]
        .prop_map(|n| n.to_string()),
        any::<i64>().prop_map(|n| n.to_string()),
        (0u32..40).prop_map(|n| format!("{n}")),
        prop_oneof![
            Just("99999999999999999999"),
            Just("18446744073709551615"),
            Just("nan"),
            Just("inf"),
            Just("-inf"),
            Just("-0.0"),
            Just("1e400"),
            Just("0.15"),
            Just("0,15"),
            Just("1."),
            Just("0x10"),
            Just("1_000"),
        ]
        .prop_map(str::to_string),
        any::<f64>().prop_map(|f| format!("{f:?}")),
        (0.0f64..=1.0).prop_map(|f| format!("{f}")),
        "[ -~\\n\\t\u{0}é]{0,12}".prop_map(|s| format!("{s:?}")),
        prop_oneof![
            Just("\"cpython\""),
            Just("\"chacha\""),
            Just("\"lost\""),
            Just("\"delivered\""),
            Just("true"),
            Just("false"),
            Just("'lit'"),
            Just("\"\"\"multi\nline\"\"\""),
        ]
        .prop_map(str::to_string),
    ];
    scalar.prop_recursive(2, 12, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(|v| format!("[{}]", v.join(", "))),
            prop::collection::vec(("[a-z_]{1,8}", inner), 0..3).prop_map(|kv| {
                let fields: Vec<String> = kv.iter().map(|(k, v)| format!("{k} = {v}")).collect();
                format!("{{ {} }}", fields.join(", "))
            }),
        ]
    })
}

const TOP: &[&str] = &[
    "title",
    "description",
    "max_attempts",
    "stream",
    "key_seed",
    "show_key_per_attempt",
];
const ORDERS: &[&str] = &["amounts", "count", "amount_min", "amount_max", "seed"];
const LOSSES: &[&str] = &["script", "p_response_lost", "seed"];
const OTHERS: &[&str] = &[
    "orders",
    "losses",
    "retries",
    "\"a\\nb\"",
    "",
    "max_attempts.x",
];

/// `key = value` lines for a table whose fields are `names`: each field kept
/// or dropped, its value sometimes the usual one, sometimes arbitrary, and
/// now and then a field from elsewhere.
fn table(names: &'static [&'static str]) -> impl Strategy<Value = String> {
    let field = (
        prop::sample::select(names),
        prop::sample::select(OTHERS),
        any::<bool>(),
        0u8..4,
        value(),
    )
        .prop_map(|(name, other, foreign, keep, value)| match keep {
            0 => String::new(),
            _ if foreign => format!("{other} = {value}\n"),
            _ => format!("{name} = {value}\n"),
        });
    prop::collection::vec(field, 0..8).prop_map(|lines| lines.concat())
}

/// A document shaped like a fixture, with headers sometimes missing,
/// repeated or misspelt.
fn document() -> impl Strategy<Value = String> {
    let header = |name: &'static str| {
        prop_oneof![
            4 => Just(format!("[{name}]\n")),
            1 => Just(String::new()),
            1 => Just(format!("[[{name}]]\n")),
            1 => Just(format!("[{name}\n")),
            1 => Just("[ordenes]\n".to_string()),
        ]
    };
    (
        table(TOP),
        header("orders"),
        table(ORDERS),
        header("losses"),
        table(LOSSES),
    )
        .prop_map(|(top, h1, orders, h2, losses)| format!("{top}{h1}{orders}{h2}{losses}"))
}

/// A valid fixture with one field's value replaced by an arbitrary one.
fn one_bad_value() -> impl Strategy<Value = String> {
    const GOOD: &str = "title = \"T\"\nmax_attempts = 4\nstream = \"cpython\"\nkey_seed = 1\n[orders]\ncount = 50\namount_min = 10\namount_max = 500\nseed = 42\n[losses]\np_response_lost = 0.15\nseed = 43\n";
    (0usize..11, value()).prop_map(|(line, value)| {
        GOOD.lines()
            .enumerate()
            .map(|(i, l)| match l.split_once(" = ") {
                Some((key, _)) if i == line => format!("{key} = {value}\n"),
                _ => format!("{l}\n"),
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>()) {
        check(&text)?;
    }

    #[test]
    fn toml_like_text_never_panics(text in "[a-z_\\[\\]=\"'.,0-9 \\n{}#-]{0,120}") {
        check(&text)?;
    }

    #[test]
    fn fixture_shaped_documents_never_panic(text in document()) {
        check(&text)?;
    }

    #[test]
    fn one_bad_value_never_panics(text in one_bad_value()) {
        check(&text)?;
    }
}
