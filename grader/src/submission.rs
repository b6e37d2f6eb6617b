//! What a submission may not do: the student's crate (`exercises/`) must not
//! depend on the reference solutions, or it could pass by calling them.

use std::path::Path;

/// The sections of a manifest that declare dependencies.
const SECTIONS: [&str; 3] = ["dependencies", "dev-dependencies", "build-dependencies"];

/// Checks that the manifest `text` (shown as `file`) declares no dependency
/// on the `solutions` crate: neither by name, nor renamed (`package =
/// "solutions"`), nor by a `path` to `solutions/`, in any dependency section,
/// target-specific ones included.
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
        }
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
    fn other_dependencies_are_fine() {
        let text = format!(
            "{HEAD}[dependencies]\nsim.workspace = true\nsolutions-helper = {{ path = \"../mis-soluciones\" }}\n"
        );
        assert_eq!(refuse_solutions_dependency(&text, "x"), Ok(()));
    }
}
