//! Hidden seeded variants (`--variantes N --semilla S`, `KIT_SEMILLA_SECRETA`):
//! each variant failure prints a command that, run as printed, reproduces
//! it. That a solution which memorized the kit's fleets passes every fixture
//! and fails every variant is tested in `harness/tests/variantes.rs` (the
//! judge does not link implementations).

use crate::informes;

use informes::{args_of, grader, grader_with_env, gradescope, reproduction, stderr, stdout};

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
    // Two variants, each graded by its fleet and by the model.
    assert_eq!(variants.len(), 4);
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
            .trim_start_matches("cliente/variante-")
            .trim_end_matches("-modelo");
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

/// One exercise with two hidden variants, in JUnit: the runs that compare
/// where the secret seed came from.
const SEED_ARGS: [&str; 6] = [
    "--ejercicio",
    "cobro",
    "--variantes",
    "2",
    "--format",
    "junit",
];

#[test]
fn the_secret_seed_comes_from_the_environment() {
    let args = SEED_ARGS;
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
    assert_eq!(cases.len(), 4);
    // Each variant's fleet, then each variant's model check.
    let variants = judge::variants::generate(99, 2);
    let expected: Vec<String> = variants
        .iter()
        .map(|v| format!("cobro/{}", v.name()))
        .chain(
            variants
                .iter()
                .map(|v| format!("cobro/{}", judge::checks::model_check_name(v))),
        )
        .collect();
    assert_eq!(cases, expected);

    // The text report says where the seed came from, never the seed.
    let text = grader_with_env(&args[..4], &[("KIT_SEMILLA_SECRETA", "99")]);
    let out = stdout(&text);
    assert!(out.contains("Variantes ocultas: 2 por ejercicio (semilla secreta del instructor)"));
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
            "grader: --variantes no acepta «0»: debe ser un entero entre 1 y 50. Usa --help",
        ),
        (
            vec!["--semilla", "1"],
            "grader: --semilla solo tiene efecto con --variantes N (cuántas variantes generar)",
        ),
        (
            vec!["--variante", "cuatro"],
            "grader: --variante no acepta «cuatro»: debe ser la semilla de una variante, un entero entre 0 y 4294967295. Usa --help",
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
    let args = SEED_ARGS;
    let mut from_file_args = args.to_vec();
    from_file_args.extend(["--archivo-semilla", path]);
    let from_file = grader(&from_file_args);
    // 1 with the stubs, 0 once a student has solved exercise 1: this test
    // is about the seed, not about the student's progress.
    assert!(
        matches!(from_file.status.code(), Some(0 | 1)),
        "{}",
        stderr(&from_file)
    );
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

#[test]
fn the_variant_pools_are_shared_by_the_variants() {
    if !informes::has_solutions() {
        return; // The student template has no reference to grade.
    }
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
    // 130, and the bonus (exercise 4's 20, plus its own variant pool of 5)
    // on top.
    let max = 130.0 + informes::bonus_points_with_variants();
    assert_eq!(v["score"].as_f64(), Some(max));
    assert!((informes::gradescope_max(&v) - max).abs() < 1e-9);
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
    // The pool's 10 points over 3 variants × (fleet + model), in cents that
    // add up to it.
    assert_eq!(shares, [1.67, 1.67, 1.67, 1.67, 1.66, 1.66]);
}
