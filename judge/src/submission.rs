//! What a submission's manifest may not do: the student's crate
//! (`exercises/`) depends on `sim` and nothing else (not on the reference
//! solutions, which it could call to pass; not on any crate that brings
//! code the judge has not read), and has no build script nor procedural
//! macro (code run by the compiler, as the compiling user: root on
//! Gradescope). The source policy ([`crate::policy`]) reads the rest.
//! Gradescope and the instructor's workflow take only the student's
//! `exercises/src/**/*.rs` and keep the kit's own `exercises/Cargo.toml`;
//! these checks cover the student's own `cargo run -p grader` and GitHub
//! Classroom.

use std::path::Path;

/// The sections of a manifest that declare dependencies.
const SECTIONS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

/// Checks that the manifest `text` (shown as `file`) declares no dependency
/// on the `solutions` crate (neither by name, nor renamed (`package =
/// "solutions"`), nor by a `path` to `solutions/`) and no dependency other
/// than the workspace's `sim`, in any dependency section, target-specific
/// ones included; no build script (`package.build`), no procedural macro
/// (`lib.proc-macro`) and no library outside `src/lib.rs` (`lib.path`).
///
/// # Errors
/// One Spanish line naming the file and the field, for exit status 2.
pub fn refuse_solutions_dependency(text: &str, file: &str) -> Result<(), String> {
    let manifest: toml::Table = toml::from_str(text)
        .map_err(|e| format!("{file}: no es un Cargo.toml válido: {}", e.message().trim()))?;
    let mut tables: Vec<(String, &toml::Table)> = Vec::new();
    for section in SECTIONS {
        if let Some(t) = manifest.get(section).and_then(|v| v.as_table()) {
            tables.push((section.to_string(), t));
        }
    }
    if let Some(targets) = manifest.get("target").and_then(|v| v.as_table()) {
        for (cfg, target) in targets {
            for section in SECTIONS {
                if let Some(t) = target.get(section).and_then(|v| v.as_table()) {
                    tables.push((format!("target.{cfg}.{section}"), t));
                }
            }
        }
    }
    for (section, deps) in tables {
        for (name, spec) in deps {
            let package = spec.get("package").and_then(|v| v.as_str());
            let path = spec.get("path").and_then(|v| v.as_str()).unwrap_or("");
            let points_to_solutions = Path::new(path)
                .components()
                .next_back()
                .is_some_and(|c| c.as_os_str() == "solutions");
            if name == "solutions" || package == Some("solutions") || points_to_solutions {
                return Err(format!(
                    "{file}, campo `{section}.{name}`: tu crate no puede depender de la solución de referencia (solutions); quita esa dependencia y vuelve a correr el grader"
                ));
            }
            let workspace_sim = name == "sim"
                && package.is_none()
                && spec.get("workspace").and_then(|v| v.as_bool()) == Some(true);
            if !workspace_sim {
                return Err(format!(
                    "{file}, campo `{section}.{name}`: tu crate solo puede depender de sim (`sim.workspace = true`); el juez no compila código que no revisó. Quita esa dependencia y vuelve a correr el grader"
                ));
            }
        }
    }
    if let Some(build) = manifest.get("package").and_then(|p| p.get("build"))
        && build.as_bool() != Some(false)
    {
        return Err(format!(
            "{file}, campo `package.build`: tu crate no puede tener un script de compilación (corre como quien compila, antes del juez); quita ese campo y vuelve a correr el grader"
        ));
    }
    if let Some(lib) = manifest.get("lib").and_then(|v| v.as_table()) {
        if lib.get("proc-macro").and_then(|v| v.as_bool()) == Some(true) {
            return Err(format!(
                "{file}, campo `lib.proc-macro`: tu crate no puede ser una macro procedural (corre dentro del compilador); quita ese campo y vuelve a correr el grader"
            ));
        }
        if let Some(path) = lib.get("path")
            && path.as_str() != Some("src/lib.rs")
        {
            return Err(format!(
                "{file}, campo `lib.path`: tu biblioteca es exercises/src/lib.rs (el juez revisa esa carpeta); quita ese campo y vuelve a correr el grader"
            ));
        }
    }
    Ok(())
}

/// Whether a manifest turns off the automatic build script (`package.build
/// = false`).
fn build_script_off(text: &str) -> bool {
    toml::from_str::<toml::Table>(text).is_ok_and(|m| {
        m.get("package")
            .and_then(|p| p.get("build"))
            .and_then(|b| b.as_bool())
            == Some(false)
    })
}

/// [`refuse_solutions_dependency`] on the crate at `dir` (its `Cargo.toml`,
/// shown as `shown/Cargo.toml`), plus its `build.rs`: cargo runs a
/// `build.rs` next to the manifest unless `package.build = false`.
///
/// # Errors
/// As [`refuse_solutions_dependency`], or the `build.rs` file named.
pub fn refuse_manifest_of(dir: &Path, shown: &str) -> Result<(), String> {
    let manifest = dir.join("Cargo.toml");
    refuse_solutions_dependency_in(&manifest, &format!("{shown}/Cargo.toml"))?;
    let text = std::fs::read_to_string(&manifest).unwrap_or_default();
    if dir.join("build.rs").exists() && !build_script_off(&text) {
        return Err(format!(
            "{shown}/build.rs: tu crate no puede tener un script de compilación (cargo lo corre como quien compila, antes del juez); bórralo y vuelve a correr el grader"
        ));
    }
    Ok(())
}

/// [`refuse_solutions_dependency`] on the file at `path`; a missing file is
/// not an error here (cargo would not have built the grader).
///
/// # Errors
/// As [`refuse_solutions_dependency`].
pub fn refuse_solutions_dependency_in(path: &Path, shown_as: &str) -> Result<(), String> {
    match std::fs::read_to_string(path) {
        Ok(text) => refuse_solutions_dependency(&text, shown_as),
        Err(_) => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "[package]\nname = \"exercises\"\nversion = \"0.1.0\"\n\n";

    #[test]
    fn the_kits_own_manifest_passes() {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../exercises/Cargo.toml"),
        )
        .unwrap();
        assert_eq!(
            refuse_solutions_dependency(&text, "exercises/Cargo.toml"),
            Ok(())
        );
    }

    #[test]
    fn every_way_of_depending_on_solutions_is_refused() {
        for (deps, field) in [
            (
                "[dependencies]\nsolutions.workspace = true\n",
                "dependencies.solutions",
            ),
            (
                "[dependencies]\nsolutions = { path = \"../solutions\" }\n",
                "dependencies.solutions",
            ),
            (
                "[dependencies]\nref = { package = \"solutions\", workspace = true }\n",
                "dependencies.ref",
            ),
            (
                "[dev-dependencies]\nx = { path = \"../solutions/\" }\n",
                "dev-dependencies.x",
            ),
            (
                "[target.'cfg(unix)'.dependencies]\nsolutions = { path = \"../solutions\" }\n",
                "target.cfg(unix).dependencies.solutions",
            ),
        ] {
            let e = refuse_solutions_dependency(&format!("{HEAD}{deps}"), "exercises/Cargo.toml")
                .unwrap_err();
            assert!(
                e.starts_with(&format!("exercises/Cargo.toml, campo `{field}`: tu crate no puede depender de la solución de referencia")),
                "{e}"
            );
        }
    }

    #[test]
    fn only_the_workspace_sim_is_a_dependency() {
        for (deps, field) in [
            (
                "[dependencies]\nsim.workspace = true\nayuda = { path = \"../mis-soluciones\" }\n",
                "dependencies.ayuda",
            ),
            ("[dependencies]\nrand = \"0.9\"\n", "dependencies.rand"),
            (
                "[dependencies]\nsim = { package = \"otro\", path = \"../otro\" }\n",
                "dependencies.sim",
            ),
            (
                "[dependencies]\nsim = { path = \"../sim\" }\n",
                "dependencies.sim",
            ),
            (
                "[build-dependencies]\ncc = \"1\"\n",
                "build-dependencies.cc",
            ),
            (
                "[dev-dependencies]\nproptest = \"1\"\n",
                "dev-dependencies.proptest",
            ),
        ] {
            let e = refuse_solutions_dependency(&format!("{HEAD}{deps}"), "exercises/Cargo.toml")
                .unwrap_err();
            assert_eq!(
                e,
                format!(
                    "exercises/Cargo.toml, campo `{field}`: tu crate solo puede depender de sim (`sim.workspace = true`); el juez no compila código que no revisó. Quita esa dependencia y vuelve a correr el grader"
                )
            );
        }
        let text = format!("{HEAD}[dependencies]\nsim.workspace = true\n");
        assert_eq!(refuse_solutions_dependency(&text, "x"), Ok(()));
    }

    #[test]
    fn build_scripts_proc_macros_and_other_libraries_are_refused() {
        for (extra, field) in [
            (
                "[package]\nname = \"exercises\"\nbuild = \"pre.rs\"\n",
                "package.build",
            ),
            (
                "[package]\nname = \"exercises\"\nbuild = true\n",
                "package.build",
            ),
            (
                "[package]\nname = \"exercises\"\n[lib]\nproc-macro = true\n",
                "lib.proc-macro",
            ),
            (
                "[package]\nname = \"exercises\"\n[lib]\npath = \"../solutions/src/lib.rs\"\n",
                "lib.path",
            ),
        ] {
            let e = refuse_solutions_dependency(extra, "exercises/Cargo.toml").unwrap_err();
            assert!(
                e.starts_with(&format!("exercises/Cargo.toml, campo `{field}`: tu ")),
                "{e}"
            );
        }
        let off = "[package]\nname = \"exercises\"\nbuild = false\n";
        assert_eq!(refuse_solutions_dependency(off, "x"), Ok(()));
    }

    #[test]
    fn a_build_rs_next_to_the_manifest_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = format!("{HEAD}[dependencies]\nsim.workspace = true\n");
        std::fs::write(dir.path().join("Cargo.toml"), &manifest).unwrap();
        assert_eq!(refuse_manifest_of(dir.path(), "exercises"), Ok(()));
        std::fs::write(dir.path().join("build.rs"), "fn main() {}").unwrap();
        assert_eq!(
            refuse_manifest_of(dir.path(), "exercises"),
            Err("exercises/build.rs: tu crate no puede tener un script de compilación (cargo lo corre como quien compila, antes del juez); bórralo y vuelve a correr el grader".to_string())
        );
        let off = manifest.replace("version", "build = false\nversion");
        std::fs::write(dir.path().join("Cargo.toml"), off).unwrap();
        assert_eq!(refuse_manifest_of(dir.path(), "exercises"), Ok(()));
    }
}
