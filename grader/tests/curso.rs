//! `curso` over a class of 22 mixed submissions with `--trabajos 4`: each
//! gets exactly the results.json it gets graded alone (a template copy, the
//! submission put over it with `grader superponer` and `cargo run -p
//! grader -- --format gradescope`, as `run_autograder` does); the empty one
//! is `sin-archivos`; the one that includes `solutions/` with `#[path]` gets
//! no point; a second run is resumed and regrades only a changed file; the
//! `--particion` shares merge (`--unir`) to the same gradebook and class
//! report. Slow (nested builds): `cargo test -p grader --test suite curso:: --
//! --ignored`.

use crate::anidado;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use anidado::{repo, solved_files};

fn write(dir: &Path, files: &[(&str, String)]) {
    for (rel, text) in files {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

fn read(p: &str) -> String {
    std::fs::read_to_string(repo().join(p)).unwrap()
}

/// A repository-shaped submission: the kit's `exercises/src` (lib.rs and
/// every stub) and `files` over the stubs.
fn repo_with(dir: &Path, files: &[(&str, String)]) {
    let mut stubs: Vec<String> = std::fs::read_dir(repo().join("exercises/src"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".rs"))
        .collect();
    stubs.sort();
    let mut all: Vec<(&str, String)> = stubs
        .into_iter()
        .map(|name| {
            let rel = format!("exercises/src/{name}");
            let code = read(&rel);
            (&*Box::leak(rel.into_boxed_str()), code)
        })
        .collect();
    all.push(("README.md", "mi entrega\n".to_string()));
    for (name, code) in files {
        let rel = format!("exercises/src/{name}");
        all.retain(|(r, _)| *r != rel);
        all.push((Box::leak(rel.into_boxed_str()), code.clone()));
    }
    write(dir, &all);
}

fn solved() -> BTreeMap<&'static str, String> {
    solved_files().into_iter().collect()
}

/// The class: name → how to write it.
fn class(dir: &Path) {
    let s = solved();
    let all: Vec<(&str, String)> = s.iter().map(|(k, v)| (*k, v.clone())).collect();
    let replay_charges = s["payments_server.rs"].replace("return *saved;", "let _ = saved;");
    assert_ne!(replay_charges, s["payments_server.rs"]);
    let key_per_attempt = {
        let c = &s["client.rs"];
        let needle = "let key = keys.new_key();";
        assert!(c.contains(needle), "{c}");
        c.replace(needle, "").replace(
            "network.send(server, key,",
            "network.send(server, keys.new_key(),",
        )
    };
    let looping = s["reconciliation.rs"].replace(
        "pub fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {",
        "pub fn reconcile(orders: &[Order], ledger: &[LedgerEntry]) -> Reconciliation {\n    if orders.len() == 2500 {\n        loop {}\n    }",
    );
    let broken = format!("{}\nfn roto( {{\n", s["client.rs"]);
    let path_into_solutions =
        "#[path = \"../../solutions/src/client.rs\"]\nmod referencia;\npub use referencia::*;\n"
            .to_string();
    for k in 1..=4 {
        repo_with(&dir.join(format!("correcta-{k}")), &all);
    }
    for k in 1..=3 {
        repo_with(&dir.join(format!("stubs-{k}")), &[]);
    }
    for k in 1..=3 {
        repo_with(
            &dir.join(format!("replay-cobra-{k}")),
            &[
                ("payments_server.rs", replay_charges.clone()),
                ("client.rs", s["client.rs"].clone()),
                ("reconciliation.rs", s["reconciliation.rs"].clone()),
            ],
        );
    }
    for k in 1..=2 {
        repo_with(
            &dir.join(format!("key-por-intento-{k}")),
            &[
                ("payments_server.rs", s["payments_server.rs"].clone()),
                ("client.rs", key_per_attempt.clone()),
                ("reconciliation.rs", s["reconciliation.rs"].clone()),
            ],
        );
    }
    for k in 1..=2 {
        repo_with(
            &dir.join(format!("sin-ejercicio-3-{k}")),
            &[
                ("payments_server.rs", s["payments_server.rs"].clone()),
                ("client.rs", s["client.rs"].clone()),
            ],
        );
    }
    repo_with(
        &dir.join("no-compila"),
        &[
            ("payments_server.rs", s["payments_server.rs"].clone()),
            ("client.rs", broken),
        ],
    );
    repo_with(
        &dir.join("se-cuelga"),
        &[
            ("payments_server.rs", s["payments_server.rs"].clone()),
            ("client.rs", s["client.rs"].clone()),
            ("reconciliation.rs", looping),
        ],
    );
    repo_with(
        &dir.join("path-a-solutions"),
        &[
            ("payments_server.rs", s["payments_server.rs"].clone()),
            ("client.rs", path_into_solutions),
        ],
    );
    // A client whose process dies (endless recursion overflows the stack;
    // `std::process::abort` would be refused by the source policy): the
    // checks that reach it die.
    repo_with(
        &dir.join("aborta"),
        &[
            ("payments_server.rs", s["payments_server.rs"].clone()),
            (
                "client.rs",
                s["client.rs"].replace(
                    "let key = keys.new_key();",
                    "fn deeper(n: u64) -> u64 {\n        if n == u64::MAX { n } else { deeper(n + 1) + 1 }\n    }\n    if order.id.0 == 7 {\n        deeper(0);\n    }\n    let key = keys.new_key();",
                ),
            ),
            ("reconciliation.rs", s["reconciliation.rs"].clone()),
        ],
    );
    write(&dir.join("vacia"), &[("notas.txt", "nada\n".to_string())]);
    write(
        &dir.join("renombrada"),
        &[("client (1).rs", s["client.rs"].clone())],
    );
    // Loose files, and a zip of a repository.
    write(&dir.join("sueltos"), &all);
    let zipped = dir.join("para-zip");
    repo_with(&zipped, &all);
    let status = Command::new("zip")
        .args(["-qr", "../zipeada.zip", "."])
        .current_dir(&zipped)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::remove_dir_all(&zipped).unwrap();
}

/// The grader binary, without the model checks' large cases
/// (`KIT_SIN_CASOS_GRANDES`): these tests are about a class's gradebook,
/// and each solved submission would take 11 s more; a class graded with
/// them gets the same figures per student as each alone, as without.
///
/// The judge of these tests, run in the repository. Its class runs and the
/// submissions graded alone build in `target/curso/target`, seeded first
/// as the other nested folders are ([`anidado::seed_from_outer`]: `curso`
/// itself seeds only the registry crates).
fn grader() -> Command {
    static SEED: std::sync::Once = std::sync::Once::new();
    SEED.call_once(|| {
        let work_root = grader::commands::curso::workspace::work_root(&repo());
        anidado::seed_from_outer(&work_root.join("target"));
    });
    let mut c = Command::new(env!("CARGO_BIN_EXE_grader"));
    c.current_dir(repo())
        .env_remove("KIT_SEMILLA_SECRETA")
        .env("KIT_SIN_CASOS_GRANDES", "1");
    c
}

fn curso(args: &[&str]) -> Output {
    let out = grader()
        .args(["--timeout", "1", "curso"])
        .args(args)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The submission graded alone, as run_autograder does (a fresh copy of
/// the template, the submission laid over it, a Gradescope report): its
/// results.json, or `None` when it has no exercise file (superponer's
/// status 3). The judge is this test's own, given the copy with `--raiz`
/// (run_autograder builds the copy's judge with cargo: the gradescope suite
/// runs that path; here only each copy's harness is built).
fn alone(template: &Path, work: &Path, submission: &Path) -> Option<String> {
    alone_with(template, work, submission, &[])
}

/// As [`alone`], with `options` added to the grading's command line.
fn alone_with(template: &Path, work: &Path, submission: &Path, options: &[&str]) -> Option<String> {
    let kit = work.join("kit");
    let _ = std::fs::remove_dir_all(&kit);
    assert!(
        Command::new("cp")
            .arg("-a")
            .arg(template)
            .arg(&kit)
            .status()
            .unwrap()
            .success()
    );
    let mut root = submission.to_path_buf();
    if submission.extension().is_some_and(|e| e == "zip") {
        root = work.join("unzip");
        let _ = std::fs::remove_dir_all(&root);
        assert!(
            Command::new("unzip")
                .arg("-q")
                .arg(submission)
                .arg("-d")
                .arg(&root)
                .status()
                .unwrap()
                .success()
        );
    }
    let over = grader()
        .arg("superponer")
        .arg(&root)
        .arg(&kit)
        .output()
        .unwrap();
    if over.status.code() == Some(3) {
        return None;
    }
    assert!(over.status.success(), "{}", stderr(&over));
    let report = work.join("results.json");
    // As `curso` grades it here (`grader()`): without the large cases.
    let out = grader()
        .arg("--raiz")
        .arg(&kit)
        .args(["--timeout", "1", "--format", "gradescope", "--output"])
        .arg(&report)
        .args(options)
        .current_dir(&kit)
        .env("CARGO_TARGET_DIR", repo().join("target/curso/target"))
        .env("KIT_TIEMPO_EJECUCION", "0")
        .env_remove("CARGO_MANIFEST_DIR")
        .output()
        .unwrap();
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    Some(std::fs::read_to_string(report).unwrap())
}

/// The student template in `dir/plantilla` and an empty `dir/solo` to grade
/// submissions alone in.
fn template_and_work(dir: &Path) -> (PathBuf, PathBuf) {
    let template = dir.join("plantilla");
    let st = Command::new(repo().join("scripts/plantilla-estudiante"))
        .arg(&template)
        .output()
        .unwrap();
    assert!(st.status.success());
    let work = dir.join("solo");
    std::fs::create_dir_all(&work).unwrap();
    (template, work)
}

/// Panics naming the tests that differ between two results.json.
fn same_results(a: &str, b: &str, what: &str) {
    if a == b {
        return;
    }
    let (va, vb): (serde_json::Value, serde_json::Value) = (
        serde_json::from_str(a).unwrap(),
        serde_json::from_str(b).unwrap(),
    );
    let mut diffs = vec![format!("score {} vs {}", va["score"], vb["score"])];
    let empty = Vec::new();
    let (ta, tb) = (
        va["tests"].as_array().unwrap_or(&empty),
        vb["tests"].as_array().unwrap_or(&empty),
    );
    for (x, y) in ta.iter().zip(tb) {
        if x != y {
            diffs.push(format!(
                "{}: {} {:?} vs {} {:?}",
                x["name"], x["status"], x["output"], y["status"], y["output"]
            ));
        }
    }
    panic!("{what} differ:\n{}", diffs.join("\n"));
}

fn libro_rows(salida: &Path) -> BTreeMap<String, Vec<String>> {
    let text = std::fs::read_to_string(salida.join("libro.csv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| {
            let cols: Vec<String> = l.split(',').map(String::from).collect();
            (cols[0].clone(), cols)
        })
        .collect()
}

#[test]
#[ignore = "slow: grades 22 submissions in nested builds (cargo test -p grader --test suite curso:: -- --ignored)"]
fn a_class_graded_four_at_a_time_scores_as_each_alone_resumes_and_merges() {
    let tmp = tempfile::tempdir().unwrap();
    let entregas = tmp.path().join("entregas");
    class(&entregas);
    let salida = tmp.path().join("salida");
    let s = salida.to_str().unwrap();
    let e = entregas.to_str().unwrap();
    let first = curso(&[e, "--salida", s, "--trabajos", "4"]);
    eprintln!("{}", stderr(&first));
    assert!(stderr(&first).contains("22 entregas"), "{}", stderr(&first));
    // A first run resumes nothing, and says no more about it.
    assert!(
        stderr(&first).contains("(22 calificadas ahora, 0 reanudadas);"),
        "{}",
        stderr(&first)
    );
    let rows = libro_rows(&salida);
    assert_eq!(rows.len(), 22);
    let estado = |n: &str| rows[n][1].clone();
    let puntaje = |n: &str| rows[n][2].clone();
    let informe = |n: &str| {
        std::fs::read_to_string(salida.join("entregas").join(n).join("informe.txt"))
            .unwrap_or_default()
    };
    for n in ["correcta-1", "correcta-4", "sueltos", "zipeada"] {
        assert_eq!(
            (estado(n), puntaje(n)),
            ("calificada".into(), "100".into()),
            "{n}:\n{}",
            informe(n)
        );
    }
    // The bonus (exercise 4, untouched in every submission) has its own
    // column, outside `puntaje` and `maximo`.
    let header = std::fs::read_to_string(salida.join("libro.csv")).unwrap();
    assert!(
        header.starts_with(&format!(
            "entrega,estado,puntaje,maximo,{},",
            judge::catalog::ids().join(",")
        )),
        "{header}"
    );
    assert_eq!(rows["correcta-1"][3], "100");
    assert_eq!(rows["correcta-1"][7], "0");
    assert_eq!(estado("vacia"), "sin-archivos");
    assert_eq!(estado("renombrada"), "sin-archivos");
    assert_eq!(estado("no-compila"), "no-compila");
    assert_eq!(estado("se-cuelga"), "tiempo-agotado");
    assert_eq!(estado("aborta"), "caida");
    assert_eq!(estado("stubs-2"), "calificada");
    assert_eq!(puntaje("stubs-2"), "0");
    // #[path] into solutions/: the source policy refuses the client (no
    // reference point, nothing of it compiled); the student's own server
    // is graded as alone (36), the untouched reconciliation gets 0.
    assert_eq!(estado("path-a-solutions"), "codigo-rechazado");
    assert_eq!(puntaje("path-a-solutions"), "36");
    assert_eq!(rows["path-a-solutions"][5], "0", "cliente");
    let refused =
        std::fs::read_to_string(salida.join("entregas/path-a-solutions/informe.txt")).unwrap();
    assert!(
        refused.contains("exercises/src/client.rs:") && refused.contains("usa #[path]"),
        "{refused}"
    );
    let informe = std::fs::read_to_string(salida.join("entregas/renombrada/results.json")).unwrap();
    assert!(informe.contains("client (1).rs"), "{informe}");

    // Each exactly as graded alone (the same bytes), one per distinct
    // content.
    let (template, work) = template_and_work(tmp.path());
    let mut names: Vec<String> = std::fs::read_dir(&entregas)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut seen: Vec<String> = Vec::new();
    for file in names {
        let name = file.trim_end_matches(".zip").to_string();
        let kind = name
            .trim_end_matches(|c: char| c.is_ascii_digit())
            .trim_end_matches('-')
            .to_string();
        let graded =
            std::fs::read_to_string(salida.join("entregas").join(&name).join("results.json"))
                .unwrap();
        if seen.contains(&kind) && !name.ends_with("-1") {
            // Same content as one already compared: the same bytes.
            let first_of_kind = format!("{kind}-1");
            let other = std::fs::read_to_string(
                salida
                    .join("entregas")
                    .join(&first_of_kind)
                    .join("results.json"),
            )
            .unwrap();
            same_results(&graded, &other, &format!("{name} and {first_of_kind}"));
            continue;
        }
        seen.push(kind);
        match alone(&template, &work, &entregas.join(&file)) {
            Some(json) => {
                let first_difference = graded.lines().zip(json.lines()).find(|(a, b)| a != b);
                assert!(
                    graded == json,
                    "{name}: curso and alone differ at {first_difference:?}"
                );
            }
            None => assert_eq!(estado(&name), "sin-archivos", "{name}"),
        }
    }

    // The class report groups causes, with the hint's words.
    let clase = std::fs::read_to_string(salida.join("clase.md")).unwrap();
    eprintln!("{}", clase.lines().take(20).collect::<Vec<_>>().join("\n"));
    assert!(
        clase.contains("## Los errores de la clase, por causa"),
        "{clase}"
    );
    assert!(clase.contains("22 entregas:"), "{clase}");
    let html = std::fs::read_to_string(salida.join("clase.html")).unwrap();
    assert!(html.contains("<svg"), "{html}");
    assert!(
        !html.contains("<script") && !html.contains("src="),
        "{html}"
    );

    // A second run is resumed; a changed file regrades only its submission.
    let again = curso(&[e, "--salida", s, "--trabajos", "4"]);
    assert!(
        stderr(&again).contains("0 calificadas ahora, 22 reanudadas"),
        "{}",
        stderr(&again)
    );
    let libro = std::fs::read(salida.join("libro.csv")).unwrap();
    let md = std::fs::read(salida.join("clase.md")).unwrap();
    let html = std::fs::read(salida.join("clase.html")).unwrap();
    let stub_path = entregas.join("stubs-3/exercises/src/payments_server.rs");
    let stub = std::fs::read_to_string(&stub_path).unwrap();
    std::fs::write(&stub_path, format!("{stub}\n// un cambio\n")).unwrap();
    let third = curso(&[e, "--salida", s, "--trabajos", "4"]);
    assert!(
        stderr(&third).contains("1 calificada ahora, 21 reanudadas"),
        "{}",
        stderr(&third)
    );
    assert_eq!(std::fs::read(salida.join("libro.csv")).unwrap(), libro);

    // Shares (resumed from copies of the whole run) merge to the same bytes.
    let mut shares = Vec::new();
    for i in 1..=3 {
        let share = tmp.path().join(format!("parte-{i}"));
        assert!(
            Command::new("cp")
                .arg("-a")
                .arg(&salida)
                .arg(&share)
                .status()
                .unwrap()
                .success()
        );
        let p = format!("{i}/3");
        let out = curso(&[e, "--salida", share.to_str().unwrap(), "--particion", &p]);
        assert!(
            stderr(&out).contains("0 calificadas ahora"),
            "{}",
            stderr(&out)
        );
        assert!(libro_rows(&share).len() < 22);
        shares.push(share);
    }
    let merged = tmp.path().join("unida");
    let mut args: Vec<&str> = vec!["--unir"];
    args.extend(shares.iter().map(|p| p.to_str().unwrap()));
    args.extend(["--salida", merged.to_str().unwrap()]);
    curso(&args);
    assert_eq!(std::fs::read(merged.join("libro.csv")).unwrap(), libro);
    assert_eq!(std::fs::read(merged.join("clase.md")).unwrap(), md);
    assert_eq!(std::fs::read(merged.join("clase.html")).unwrap(), html);
    let _: PathBuf = merged;
}

/// `curso … --rubrica R --variantes 1 --semilla 7` (the options after the
/// command, as `--help` lists them): each submission gets the results.json
/// it gets alone with the same options, the rubric's points and the
/// variants included.
#[test]
#[ignore = "slow: grades 2 submissions in nested builds (cargo test -p grader --test suite curso:: -- --ignored)"]
fn curso_takes_the_rubric_and_the_seed_of_a_single_grading() {
    let tmp = tempfile::tempdir().unwrap();
    let entregas = tmp.path().join("entregas");
    let s = solved();
    let all: Vec<(&str, String)> = s.iter().map(|(k, v)| (*k, v.clone())).collect();
    repo_with(&entregas.join("correcta"), &all);
    repo_with(&entregas.join("stubs"), &[]);
    let rubric = tmp.path().join("mi-rubrica.toml");
    let kit = read("grader/rubrica.toml");
    let line = "\"cobro/flota-1000\" = { puntos = 2 }";
    assert!(kit.contains(line));
    std::fs::write(
        &rubric,
        kit.replace(line, "\"cobro/flota-1000\" = { puntos = 6 }"),
    )
    .unwrap();
    let r = rubric.to_str().unwrap();
    let salida = tmp.path().join("salida");
    let options = ["--rubrica", r, "--variantes", "1", "--semilla", "7"];
    let mut args = vec![
        entregas.to_str().unwrap(),
        "--salida",
        salida.to_str().unwrap(),
    ];
    args.extend(options);
    curso(&args);
    let rows = libro_rows(&salida);
    // 104 from the rubric (flota-1000 at 6) plus 10 per exercise of variants.
    assert_eq!(
        (rows["correcta"][2].as_str(), rows["correcta"][3].as_str()),
        ("134", "134"),
        "{rows:?}"
    );
    let (template, work) = template_and_work(tmp.path());
    for name in ["correcta", "stubs"] {
        let graded =
            std::fs::read_to_string(salida.join("entregas").join(name).join("results.json"))
                .unwrap();
        let json = alone_with(&template, &work, &entregas.join(name), &options).unwrap();
        same_results(&graded, &json, name);
    }
}
