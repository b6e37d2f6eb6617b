//! The grader binary as students and CI run it.

use crate::informes;

use informes::{
    grader, grader_with_env, grader_with_env_without, has_solutions, score_line, stderr, stdout,
    stubs_untouched,
};

#[test]
fn the_untouched_stubs_are_reported_pending_with_file_and_function() {
    let o = grader(&[]);
    let out = stdout(&o);
    score_line(&out);
    assert!(
        !out.contains("panicked") && !out.contains("RUST_BACKTRACE"),
        "{out}"
    );
    if !stubs_untouched() {
        // A student has started: only the report's shape is checked here.
        assert!(
            out.contains("Ejercicio 1 ·") && out.contains("Ejercicio 3 ·"),
            "{out}"
        );
        return;
    }
    assert_eq!(o.status.code(), Some(1));
    insta::assert_snapshot!("informe_stubs", out);
}

#[test]
fn the_solutions_pass_every_check() {
    if !has_solutions() {
        return; // The student template has no reference to grade.
    }
    // With the large cases: the one test of the binary that plays them all
    // (the in-process suites and CI's `grader --solutions` play them too).
    let o = grader_with_env_without(&["--solutions"], &[], &["KIT_SIN_CASOS_GRANDES"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains('✗'), "{out}");
    let last = score_line(&out);
    assert!(last.starts_with("Puntaje: 100/100 puntos ("), "{out}");
    // The bonus, apart: full marks there too.
    let (checks, bonus) = last
        .trim_start_matches("Puntaje: 100/100 puntos (")
        .split_once(" verificaciones) · ")
        .unwrap();
    let (passed, total) = checks.split_once('/').unwrap();
    assert_eq!(passed, total, "{out}");
    let b = informes::bonus_points();
    assert_eq!(bonus, format!("bonus {b}/{b}"), "{out}");
    assert!(
        out.contains("Ejercicio 4 · El store atómico (lección 4, bonus): ✓ 14/14 verificaciones · 20/20 puntos de bonus"),
        "{out}"
    );
}

/// The reference with five hidden variants per exercise and the large
/// cases, which then draw their sizes and values from the variants' seed
/// (exercise 2's `max_attempts` up to 2^20 + 4,097, exercise 3's ids'
/// spacing, amounts and first id): every check and every variant passes.
/// The in-process suites try the model checks with many seeds; this is the
/// binary, as an instructor's graded run plays it.
#[test]
fn the_solutions_pass_every_hidden_variant_with_the_large_cases() {
    if !has_solutions() {
        return;
    }
    let o = grader_with_env_without(
        &["--solutions", "--variantes", "5", "--semilla", "31337"],
        &[],
        &["KIT_SIN_CASOS_GRANDES"],
    );
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(!out.contains('✗'), "{out}");
    let b = informes::bonus_points_with_variants();
    assert_eq!(
        score_line(&out),
        format!("Puntaje: 130/130 puntos (70/70 verificaciones) · bonus {b}/{b}"),
        "{out}"
    );
}

#[test]
fn escenario_prints_the_lessons_fleet_with_the_solutions() {
    if !has_solutions() {
        return;
    }
    let o = grader(&["escenario", "flota-1000", "--soluciones"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    for line in [
        "    intentos totales al server       :      1,184",
        "    ordenes cobradas 2+ veces        :        146",
        "    TOTAL COBRADO                    : $   305,118",
        "    SOBRECOBRO                       : $    48,139  (18.7% de mas)",
        "    ejecuciones reales del cobro     :      1,000",
        "    SOBRECOBRO                       : $         0",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}

/// Two runs on the same inputs give byte-identical reports, in every format
/// (Gradescope's `execution_time` fixed through `KIT_TIEMPO_EJECUCION`, its
/// documented switch), with and without hidden variants.
#[test]
fn two_runs_give_byte_identical_reports() {
    let mut runs: Vec<Vec<&str>> = vec![
        vec![],
        vec!["--format", "gradescope"],
        vec!["--format", "junit"],
    ];
    if has_solutions() {
        runs.extend([
            vec!["--solutions"],
            vec!["--solutions", "--format", "gradescope"],
            vec![
                "--solutions",
                "--format",
                "junit",
                "--variantes",
                "2",
                "--semilla",
                "7",
            ],
        ]);
    }
    for args in runs {
        let (a, b) = (grader(&args), grader(&args));
        assert!(!a.stdout.is_empty(), "{args:?}: {}", stderr(&a));
        assert_eq!(stdout(&a), stdout(&b), "{args:?}");
        assert_eq!(a.status.code(), b.status.code(), "{args:?}");
    }
}

/// The plain mode (how macOS and Windows run the harness; on Linux
/// `KIT_SIN_SANDBOX=1`): the same report, byte for byte, on the stubs and
/// on the reference, and one line on stderr that says it ran without the
/// sandbox. `CI` keeps the verdict cache out of it: both runs grade.
#[test]
fn the_plain_mode_gives_the_same_reports_and_says_so_once() {
    use judge::runner::isolation::{PLAIN_ENV, notice};
    let mut runs: Vec<Vec<&str>> = vec![vec![]];
    if has_solutions() {
        runs.push(vec!["--solutions"]);
    }
    let notices = |o: &std::process::Output| {
        stderr(o)
            .lines()
            .filter(|l| l.contains("sin sandbox"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    for args in runs {
        let usual = grader_with_env(&args, &[("CI", "true")]);
        let plain = grader_with_env(&args, &[("CI", "true"), (PLAIN_ENV, "1")]);
        assert!(!plain.stdout.is_empty(), "{args:?}: {}", stderr(&plain));
        assert_eq!(stdout(&plain), stdout(&usual), "{args:?}");
        assert_eq!(plain.status.code(), usual.status.code(), "{args:?}");
        // Pending stubs fail; the reference passes.
        let expected = if args.is_empty() {
            stubs_untouched().then_some(1)
        } else {
            Some(0)
        };
        if expected.is_some() {
            assert_eq!(plain.status.code(), expected, "{args:?}");
        }
        assert_eq!(notices(&plain), [notice()], "{args:?}");
        // Linux is confined unless told; macOS and Windows are always plain.
        let usual_notices = if cfg!(target_os = "linux") {
            Vec::new()
        } else {
            vec![notice()]
        };
        assert_eq!(notices(&usual), usual_notices, "{args:?}");
    }
}

#[test]
fn usage_errors_are_spanish_one_liners_with_status_2() {
    let empty = std::env::temp_dir().join(format!("kit-no-fixtures-{}", std::process::id()));
    std::fs::create_dir_all(&empty).unwrap();
    for (args, want) in [
        (
            vec!["--bogus"],
            "grader: opción desconocida: --bogus. Usa --help",
        ),
        (
            vec!["--ejercicios", "cobro"],
            "grader: opción desconocida: --ejercicios (¿quisiste decir --ejercicio?). Usa --help",
        ),
        (vec!["--timeout", "cero"], "grader: --timeout no acepta"),
        (vec!["--timeout", "-3"], "grader: --timeout no acepta"),
        (
            vec!["escenario", "no-existe"],
            "grader: escenario desconocido «no-existe»; los escenarios son: escenario-a",
        ),
        (
            vec!["--fixtures", "/no/such/dir"],
            "grader: fixture /no/such/dir: la carpeta de fixtures no existe",
        ),
        (
            vec!["--timeout", "0"],
            "grader: --timeout no acepta «0»: debe ser un número de segundos entre 0.1 y 600, p. ej. 5 o 0.5. Usa --help",
        ),
        (
            vec!["--timeout", "601"],
            "grader: --timeout no acepta «601»: debe ser un número de segundos entre 0.1 y 600",
        ),
        (
            vec!["--timeout", "nan"],
            "grader: --timeout no acepta «nan»",
        ),
        // A global option the subcommand does not read is refused, not
        // ignored (before, e.g., a `--timeout` did nothing in `servicio`).
        (
            vec!["servicio", "--timeout", "3", "--comando", "true"],
            "grader: --timeout no se usa con `servicio`: el límite de cada request es --limite-peticion",
        ),
        (
            vec!["--timeout", "3", "service", "--comando", "true"],
            "grader: --timeout no se usa con `servicio`",
        ),
        (
            vec!["servicio", "--solutions", "--comando", "true"],
            "grader: --solutions no se usa con `servicio`: el servicio de referencia es --referencia",
        ),
        (
            vec!["comparar", "--variantes", "2"],
            "grader: --variantes no se usa con `comparar`: sirve al calificar",
        ),
        (
            vec!["--rubrica", "r.toml", "barrido"],
            "grader: --rubrica no se usa con `barrido`",
        ),
        (
            vec![
                "repetir-horario",
                "K1:1:500",
                "--horario",
                "1",
                "--fixtures",
                "fixtures",
            ],
            "grader: --fixtures no se usa con `repetir-horario`: este comando no lee fixtures",
        ),
        (
            vec!["--raiz", "/no/such/kit", "--ejercicio", "cobro"],
            "grader: --raiz /no/such/kit: no es una copia del kit (no tiene exercises/Cargo.toml); indica la carpeta donde está el Cargo.toml del kit",
        ),
        (
            vec!["superponer", "a", "b", "--root", "."],
            "grader: --raiz no se usa con `superponer`: la entrega y el kit son sus dos argumentos",
        ),
        (
            vec!["--format", "pdf"],
            "grader: --format no acepta «pdf»; se permiten: text, gradescope, junit, classroom50",
        ),
        (
            vec!["escenario", "/no/such/flota.toml"],
            "grader: fixture /no/such/flota.toml: el archivo no existe",
        ),
        (
            vec!["--fixtures", empty.to_str().unwrap()],
            "grader: fixture /",
        ),
        (
            vec![
                "--fixtures",
                concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
            ],
            "grader: fixture grader/Cargo.toml: no es una carpeta; se espera una carpeta con archivos *.toml",
        ),
    ] {
        let o = grader(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with(want), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    let o = grader(&["--fixtures", empty.to_str().unwrap()]);
    assert!(
        stderr(&o).ends_with(": la carpeta no contiene fixtures (se esperan archivos *.toml)\n"),
        "{}",
        stderr(&o)
    );
    std::fs::remove_dir_all(&empty).unwrap();
}

#[test]
fn a_malformed_fixture_stops_the_grader_naming_file_and_field() {
    let dir = std::env::temp_dir().join(format!("kit-bad-fixture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("mala.toml"),
        "title = \"x\"\nmax_attempts = 0\n[orders]\namounts = [5]\n[losses]\nscript = []\n",
    )
    .unwrap();
    let o = grader(&["--fixtures", dir.to_str().unwrap()]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "mala.toml, campo `max_attempts`: debe ser un entero entre 1 y 100; se leyó 0"
        ),
        "{err}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An unknown command lists every command clap knows (whatever commands
/// the kit gains) and clap's closest one.
#[test]
fn unknown_commands_list_every_command_and_suggest_the_closest() {
    let o = grader(&["vigilr"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    let commands = grader::cli::commands();
    assert!(commands.iter().any(|c| c == "vigilar"), "{commands:?}");
    assert_eq!(
        err.trim_end(),
        format!(
            "grader: comando desconocido: vigilr (¿quisiste decir vigilar?); los comandos son: {}. Usa --help para ver las opciones.",
            commands.join(", ")
        )
    );
    let far = stderr(&grader(&["xyz"]));
    assert!(!far.contains("quisiste"), "{far}");
}

/// A number out of range is said once, with what is allowed; an empty file
/// name says what is missing.
#[test]
fn out_of_range_numbers_and_empty_names_are_said_once() {
    let o = grader(&["comparar", "--p-perdida", "1.5"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "grader: --p-perdida no acepta «1.5»: debe ser una probabilidad entre 0 y 1 (p. ej. 0.15). Usa --help para ver las opciones.\n"
    );
    let o = grader(&["barrido", "--svg", ""]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "grader: --svg necesita un valor (ARCHIVO) y llegó vacío: escríbelo después de --svg, p. ej. --svg barrido.svg. Usa --help para ver las opciones.\n"
    );
    // Each folder flag's example is a folder of its own kind (`--raiz`
    // once showed the fixtures' example).
    for (flag, example) in [
        ("--raiz", "../otra-copia-del-kit"),
        ("--fixtures", "mis-fixtures"),
    ] {
        let o = grader(&[flag, ""]);
        assert_eq!(o.status.code(), Some(2), "{flag}");
        assert_eq!(
            stderr(&o),
            format!(
                "grader: {flag} necesita un valor (CARPETA) y llegó vacío: escríbelo después de {flag}, p. ej. {flag} {example}. Usa --help para ver las opciones.\n"
            )
        );
    }
}

/// `--help` shows the student's options first and the instructors' under
/// their own heading.
#[test]
fn help_puts_the_students_options_first() {
    let o = grader(&["--help"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0));
    let at = |s: &str| out.find(s).unwrap_or_else(|| panic!("no {s} in\n{out}"));
    let instructors = at("\nOpciones para instructores:\n");
    assert!(at("\nOpciones:\n") < instructors, "{out}");
    for student in ["--ejercicio", "--timeout", "--help"] {
        assert!(at(student) < instructors, "{student}\n{out}");
    }
    for instructor in [
        "--rubrica",
        "--variantes",
        "--semilla",
        "--archivo-semilla",
        "--variante ",
        "--format",
        "--output",
        "--fixtures",
    ] {
        assert!(at(instructor) > instructors, "{instructor}\n{out}");
    }
}
