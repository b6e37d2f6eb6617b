//! The grader's integration tests, one test binary (issue 28: 16 binaries
//! each linked the judge; one links it once). Each file is a module named
//! after its subject; the slow suites (`#[ignore]`, nested builds of a copy
//! of the kit or tools like tmux and Chromium) run by name:
//! `cargo test -p grader --test suite -- --ignored plantilla::`.
//!
//! `anidado` (the nested builds' shared target folder) and `informes`
//! (running the grader and checking a report's format) are shared by the
//! modules that need them.

mod anidado;
mod informes;

mod classroom50;
mod cli;
mod comparar;
mod compilacion;
mod curso;
mod escenarios;
mod fixture_props;
mod formatos;
mod gradescope;
mod informe_guardado;
mod libro;
mod plantilla;
mod politica;
mod rubrica;
mod servicio;
mod variantes;
mod ver;
mod vigilar;

/// Every `.rs` file directly in `grader/tests/` and `harness/tests/` is a
/// module of its crate's suite or a `[[test]]` of its own: with
/// `autotests = false` cargo compiles no file it is not told about, and a
/// forgotten suite would pass by never running.
#[test]
fn every_test_file_is_compiled() {
    let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    for krate in ["grader", "harness"] {
        let tests = repo.join(krate).join("tests");
        let Ok(entries) = std::fs::read_dir(&tests) else {
            continue; // the student template has no harness tests
        };
        let suite = std::fs::read_to_string(tests.join("suite.rs")).unwrap_or_default();
        let manifest = std::fs::read_to_string(repo.join(krate).join("Cargo.toml")).unwrap();
        let mut missing = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(name) = path.file_stem().and_then(|n| n.to_str()) else {
                continue;
            };
            if path.extension().is_none_or(|e| e != "rs") || name == "suite" {
                continue;
            }
            let in_suite = suite.lines().any(|l| l.trim() == format!("mod {name};"));
            let own_test = manifest.contains(&format!("name = \"{name}\""));
            if !in_suite && !own_test {
                missing.push(format!("{krate}/tests/{name}.rs"));
            }
        }
        assert!(
            missing.is_empty(),
            "test files no suite declares (add `mod NAME;` to {krate}/tests/suite.rs): {missing:?}"
        );
    }
}
