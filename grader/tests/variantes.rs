//! Hidden seeded variants (`--variantes N --semilla S`, `KIT_SEMILLA_SECRETA`):
//! a solution that memorized the kit's fleets passes every fixture and fails
//! every variant, and each variant failure prints a command that, run as
//! printed, reproduces it.

mod informes;

use informes::{grader, grader_with_env, gradescope, stderr, stdout};

/// The grader arguments of a printed `cargo run -p grader -- ARGS` command.
fn args_of(command: &str) -> Vec<String> {
    let rest = command
        .strip_prefix("cargo run -p grader -- ")
        .unwrap_or_else(|| panic!("not a grader command: {command}"));
    rest.split_whitespace().map(str::to_string).collect()
}

/// The command after `reprodúcela: ` in a failure's explanation.
fn reproduction(explanation: &str) -> String {
    explanation
        .lines()
        .find_map(|l| l.trim().strip_prefix("reprodúcela: "))
        .unwrap_or_else(|| panic!("no reproduction command in {explanation}"))
        .to_string()
}

#[test]
fn the_printed_command_reproduces_a_variant_failure_when_run() {
    if !informes::stubs_untouched() {
        return; // The stubs are the failing code this test reproduces.
    }
    let o = grader(&[
        "--ejercicio",
        "cliente",
        "--variantes",
        "2",
        "--semilla",
        "2024",
        "--format",
        "gradescope",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let v = gradescope(&stdout(&o));
    let variants: Vec<&serde_json::Value> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            t["extra_data"]["id"]
                .as_str()
                .unwrap()
                .starts_with("cliente/variante-")
        })
        .collect();
    assert_eq!(variants.len(), 2);
    for t in variants {
        assert_eq!(t["status"], "failed");
        assert_eq!(t["visibility"], "after_published");
        let output = t["output"].as_str().unwrap();
        // The variant's parameters, then the command.
        assert!(output.contains("variante oculta "), "{output}");
        assert!(output.contains(" órdenes, montos de $"), "{output}");
        assert!(output.contains("max_attempts="), "{output}");
        let command = reproduction(output);
        let seed = t["extra_data"]["id"]
            .as_str()
            .unwrap()
            .trim_start_matches("cliente/variante-");
        assert_eq!(
            command,
            format!("cargo run -p grader -- --ejercicio cliente --variante {seed}")
        );
        // The secret master seed is not in it.
        assert!(!command.contains("2024"));

        // Run as printed: the same check fails with the same explanation.
        let mut args = args_of(&command);
        args.extend(["--format".to_string(), "gradescope".to_string()]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let again = grader(&args);
        assert_eq!(again.status.code(), Some(1));
        let w = gradescope(&stdout(&again));
        let same = w["tests"]
            .as_array()
            .unwrap()
            .iter()
            .find(|u| u["extra_data"]["id"] == t["extra_data"]["id"])
            .expect("the variant is graded again");
        assert_eq!(same["status"], "failed");
        assert_eq!(same["output"], t["output"]);
        assert_eq!(same["name"], t["name"]);
    }
}

#[test]
fn the_secret_seed_comes_from_the_environment() {
    let args = [
        "--ejercicio",
        "cobro",
        "--variantes",
        "2",
        "--format",
        "junit",
    ];
    let from_env = grader_with_env(&args, &[("KIT_SEMILLA_SECRETA", "99")]);
    let mut with_flag = args.to_vec();
    with_flag.extend(["--semilla", "99"]);
    let from_flag = grader(&with_flag);
    assert_eq!(from_env.stdout, from_flag.stdout);
    let cases: Vec<String> = informes::junit(&stdout(&from_env)).test_suites[0]
        .test_cases
        .iter()
        .map(|c| c.name.as_str().to_string())
        .filter(|n| n.starts_with("cobro/variante-"))
        .collect();
    assert_eq!(cases.len(), 2);
    let expected: Vec<String> = grader::variants::generate(99, 2)
        .iter()
        .map(|v| format!("cobro/{}", v.name()))
        .collect();
    assert_eq!(cases, expected);

    // The text report says where the seed came from, never the seed.
    let text = grader_with_env(&args[..4], &[("KIT_SEMILLA_SECRETA", "99")]);
    let out = stdout(&text);
    assert!(
        out.contains("Variantes ocultas: 2 por ejercicio (semilla secreta de KIT_SEMILLA_SECRETA)")
    );
    assert!(!out.contains("99 "), "{out}");

    let none = grader(&["--variantes", "2"]);
    assert_eq!(none.status.code(), Some(2));
    assert_eq!(
        stderr(&none).trim_end(),
        "grader: --variantes necesita una semilla: --semilla S, o la variable de entorno KIT_SEMILLA_SECRETA (la semilla secreta del instructor)"
    );
    let bad = grader_with_env(&["--variantes", "2"], &[("KIT_SEMILLA_SECRETA", "x")]);
    assert_eq!(bad.status.code(), Some(2));
    for (args, want) in [
        (
            vec!["--variantes", "0", "--semilla", "1"],
            "grader: valor inválido para --variantes <N>: «0» (debe ser un entero entre 1 y 50; se leyó 0)",
        ),
        (
            vec!["--semilla", "1"],
            "grader: --semilla solo tiene efecto con --variantes N (cuántas variantes generar)",
        ),
        (
            vec!["--variante", "cuatro"],
            "grader: valor inválido para --variante <SEMILLA>: «cuatro» (debe ser la semilla de una variante, un entero entre 0 y 4294967295; se leyó cuatro)",
        ),
    ] {
        let o = grader(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(stderr(&o).starts_with(want), "{args:?}: {}", stderr(&o));
    }
}

#[test]
fn the_secret_seed_comes_from_a_file_the_grader_deletes() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("archivo-semilla");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("semilla");
    let path = file.to_str().unwrap();
    std::fs::write(&file, "99\n").unwrap();
    let args = [
        "--ejercicio",
        "cobro",
        "--variantes",
        "2",
        "--format",
        "junit",
    ];
    let mut from_file_args = args.to_vec();
    from_file_args.extend(["--archivo-semilla", path]);
    let from_file = grader(&from_file_args);
    assert_eq!(from_file.status.code(), Some(1), "{}", stderr(&from_file));
    assert!(!file.exists(), "the grader left the seed file behind");
    let mut with_flag = args.to_vec();
    with_flag.extend(["--semilla", "99"]);
    assert_eq!(from_file.stdout, grader(&with_flag).stdout);

    // Read once: a second run finds no file, and says which.
    let mut alias = args.to_vec();
    alias.extend(["--seed-file", path]);
    let gone = grader(&alias);
    assert_eq!(gone.status.code(), Some(2));
    assert!(
        stderr(&gone).starts_with(&format!(
            "grader: --archivo-semilla {path}: no se pudo leer"
        )),
        "{}",
        stderr(&gone)
    );
    std::fs::write(&file, "no es un número").unwrap();
    let bad = grader(&from_file_args);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        !stderr(&bad).contains("no es un número"),
        "{}",
        stderr(&bad)
    );
    assert!(stderr(&bad).contains("debe contener un entero"));
    // It needs --variantes, and it is a seed: not together with --semilla.
    std::fs::write(&file, "99").unwrap();
    let alone = grader(&["--archivo-semilla", path]);
    assert_eq!(alone.status.code(), Some(2));
    assert!(stderr(&alone).contains("--variantes"), "{}", stderr(&alone));
    let both = grader(&[
        "--variantes",
        "1",
        "--semilla",
        "3",
        "--archivo-semilla",
        path,
    ]);
    assert_eq!(both.status.code(), Some(2));
    assert!(
        stderr(&both).contains("no se puede usar junto con"),
        "{}",
        stderr(&both)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "solutions")]
#[test]
fn the_variant_pools_are_shared_by_the_variants() {
    let o = grader(&[
        "--solutions",
        "--variantes",
        "3",
        "--semilla",
        "5",
        "--format",
        "gradescope",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let v = gradescope(&stdout(&o));
    assert_eq!(v["score"], 130);
    assert_eq!(informes::gradescope_max(&v), 130.0);
    let shares: Vec<f64> = v["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| {
            t["extra_data"]["id"]
                .as_str()
                .unwrap()
                .starts_with("cobro/variante-")
        })
        .map(|t| t["max_score"].as_f64().unwrap())
        .collect();
    assert_eq!(shares, [3.34, 3.33, 3.33]);
}

/// A reconciliation that memorized the kit's fleets.
#[cfg(feature = "solutions")]
mod memorized {
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::sync::OnceLock;

    use clap::Parser;
    use grader::checks::Catalog;
    use grader::cli::Cli;
    use grader::grading;
    use grader::report::sheet::Sheet;
    use grader::rubric::Rubric;
    use grader::variants::Plan;
    use grader::verdict::Exercise;
    use sim::{
        ChargeOutcome, KeySource, Kit, LedgerEntry, Money, Network, Order, Payments,
        Reconciliation, Scenario, clients,
    };
    use solutions::Solutions;

    use super::{args_of, reproduction};

    fn fixtures() -> Vec<Scenario> {
        Scenario::load_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures")).unwrap()
    }

    type Fingerprint = (usize, usize, Money);

    fn fingerprint(orders: &[Order], ledger: &[LedgerEntry]) -> Fingerprint {
        (
            orders.len(),
            ledger.len(),
            ledger.iter().map(|r| r.amount).sum(),
        )
    }

    /// The answers for every ledger of the kit's fleets, "looked up once".
    fn answers() -> &'static BTreeMap<Fingerprint, Reconciliation> {
        static ANSWERS: OnceLock<BTreeMap<Fingerprint, Reconciliation>> = OnceLock::new();
        ANSWERS.get_or_init(|| {
            let mut table = BTreeMap::new();
            for s in fixtures() {
                let orders = s.orders();
                for idempotent in [false, true] {
                    let mut server = Solutions::new_server(idempotent);
                    let mut network = s.network();
                    let mut keys = s.keys();
                    for order in &orders {
                        let key = keys.new_key();
                        clients::charge_with_key(
                            &mut server,
                            &mut network,
                            order,
                            key,
                            s.max_attempts,
                        );
                    }
                    let ledger = server.ledger().to_vec();
                    table.insert(
                        fingerprint(&orders, &ledger),
                        Solutions::reconcile(&orders, &ledger),
                    );
                }
            }
            table
        })
    }

    /// Correct on tiny inputs, memorized on the kit's fleets, and on any
    /// other fleet the lesson's "one row per order" guess.
    struct Memorized;

    impl Kit for Memorized {
        const CRATE: &'static str = "exercises";
        type Server = <Solutions as Kit>::Server;

        fn new_server(idempotent: bool) -> Self::Server {
            Solutions::new_server(idempotent)
        }

        fn charge_order<P: Payments, K: KeySource>(
            server: &mut P,
            network: &mut Network,
            keys: &mut K,
            order: &Order,
            max_attempts: u32,
        ) -> ChargeOutcome {
            Solutions::charge_order(server, network, keys, order, max_attempts)
        }

        fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {
            if orders.len() <= 10 {
                return Solutions::reconcile(orders, ledger);
            }
            if let Some(r) = answers().get(&fingerprint(orders, ledger)) {
                return *r;
            }
            let mut guess = Solutions::reconcile(orders, &[]);
            guess.charged = guess.intended;
            guess.charges = orders.len() as u64;
            guess.orders_never_charged = 0;
            guess.undercharge = Money::ZERO;
            guess
        }
    }

    /// Grades `Memorized` with the command line `args` (as the binary would
    /// build its catalog from them).
    fn grade(args: &[String]) -> (Plan, Sheet) {
        let cli =
            Cli::try_parse_from(std::iter::once("grader".to_string()).chain(args.iter().cloned()))
                .unwrap();
        let plan = Plan::from_parts(cli.variants, cli.seed, &cli.variant, None).unwrap();
        let mut scenarios = fixtures();
        scenarios.extend(plan.scenarios());
        let catalog = Catalog::new(scenarios, &grader::commands::grade::exercises(&cli));
        let graded = grading::grade_in_process::<Memorized>(&catalog);
        let sheet = Sheet::new(&graded, &Rubric::kit().unwrap(), &plan, &[]);
        (plan, sheet)
    }

    #[test]
    fn passes_every_kit_fixture_and_fails_every_variant_reproducibly() {
        let args: Vec<String> = [
            "--ejercicio",
            "reconciliacion",
            "--variantes",
            "4",
            "--semilla",
            "77",
        ]
        .map(String::from)
        .to_vec();
        let (plan, sheet) = grade(&args);
        assert_eq!(plan.variants.len(), 4);
        let rows: Vec<_> = sheet.of(Exercise::Reconciliacion).collect();
        for row in &rows {
            assert_eq!(
                row.verdict.passed(),
                !row.variant,
                "{}: {:?}",
                row.check.id,
                row.verdict
            );
        }
        assert_eq!(rows.iter().filter(|r| r.variant).count(), 4);
        // Every kit check earned, no variant point.
        let (points, max) = sheet.total();
        assert_eq!(points.to_string(), "28");
        assert_eq!(max.to_string(), "38");

        for row in rows.iter().filter(|r| r.variant) {
            let variant = plan
                .find(row.check.id.trim_start_matches("reconciliacion/"))
                .unwrap();
            let explanation = row.explanation();
            assert!(explanation.contains(&variant.describe()), "{explanation}");
            let command = reproduction(&explanation);
            assert_eq!(
                command,
                format!(
                    "cargo run -p grader -- --ejercicio reconciliacion --variante {}",
                    variant.seed
                )
            );
            // The printed command, parsed as the binary parses it, grades the
            // same variant to the same verdict.
            let (again_plan, again) = grade(&args_of(&command));
            assert_eq!(again_plan.variants, vec![variant.clone()]);
            let same = again
                .rows
                .iter()
                .find(|r| r.check.id == row.check.id)
                .unwrap();
            assert_eq!(same.verdict, row.verdict);
            assert!(!same.verdict.passed());
        }
    }
}
