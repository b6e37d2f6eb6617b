//! What decides a grade in Module 4's kit: the exercises ([`catalog`]), their
//! checks ([`checks`]) against an independent oracle ([`oracle`]), the
//! harness run as a separate, limited process ([`runner`]), the verdicts
//! ([`verdict`]), the rubric ([`rubric`]) and the source policy
//! ([`policy`]). It never links the code it grades: the harness (its own
//! crate) runs the implementation and answers typed jobs with raw
//! observations.
//!
//! The student's binary (`cargo run -p grader`) and the instructor's tools
//! build on this library; nothing here knows the command line.

pub mod catalog;
pub mod checks;
pub mod drawing;
pub mod ejercicios;
pub mod figures;
pub mod fixture;
pub mod grading;
pub mod intake;
pub mod oracle;
pub mod output;
pub mod paths;
pub mod policy;
pub mod rubric;
pub mod runner;
pub mod spy;
pub mod stable_hash;
pub mod submission;
pub mod toml_errors;
pub mod values;
pub mod variants;
pub mod verdict;

/// Issue 26: no import circle between the judge's modules. Each file is a
/// module; a module depends on another when its code (not its comments, not
/// what follows its first `#[cfg(test)]`) names it with a `crate::` or
/// `super::` path. A module's use of its own ancestors (`super::Entry`) is
/// not counted: the parent declares the child.
#[cfg(test)]
mod no_import_circles {
    use std::collections::{BTreeMap, BTreeSet};
    use std::path::Path;

    /// Every module under `dir`, by path (`checks::model`), with its code.
    fn modules(dir: &Path, prefix: &[String], out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let mut module = prefix.to_vec();
            if path.is_dir() {
                module.push(name);
                modules(&path, &module, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                if name != "mod" && !(prefix.is_empty() && name == "lib") {
                    module.push(name);
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let code = text.split("#[cfg(test)]").next().unwrap_or_default();
                let code: Vec<&str> = code
                    .lines()
                    .map(|l| l.split("//").next().unwrap_or_default())
                    .collect();
                out.insert(module.join("::"), code.join("\n"));
            }
        }
    }

    /// The paths after each `anchor` in `code` (`checks::model::Family`).
    fn paths_after<'a>(code: &'a str, anchor: &str) -> Vec<Vec<&'a str>> {
        code.match_indices(anchor)
            .filter(|(i, _)| {
                !code[..*i]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            })
            .map(|(i, _)| {
                let rest = &code[i + anchor.len()..];
                let end = rest
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
                    .unwrap_or(rest.len());
                rest[..end].split("::").filter(|s| !s.is_empty()).collect()
            })
            .collect()
    }

    #[test]
    fn the_judges_modules_form_no_circle() {
        let mut code = BTreeMap::new();
        modules(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("src"),
            &[],
            &mut code,
        );
        assert!(code.contains_key("checks::model") && code.contains_key("ejercicios::cobro"));
        let known = |segments: &[&str]| -> Option<String> {
            (1..=segments.len())
                .rev()
                .map(|k| segments[..k].join("::"))
                .find(|m| code.contains_key(m))
        };
        let mut edges: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for (module, text) in &code {
            let parent: Vec<&str> = module.split("::").collect();
            let parent = &parent[..parent.len().saturating_sub(1)];
            let mut deps: BTreeSet<String> = paths_after(text, "crate::")
                .iter()
                .filter_map(|p| known(p))
                .collect();
            for p in paths_after(text, "super::") {
                let full: Vec<&str> = parent.iter().copied().chain(p).collect();
                deps.extend(known(&full));
            }
            deps.retain(|d| d != module && !module.starts_with(&format!("{d}::")) && !d.is_empty());
            edges.insert(module, deps);
        }
        // A depth-first walk: a module met again while still on the path
        // closes a circle.
        fn walk<'a>(
            m: &'a str,
            edges: &'a BTreeMap<&str, BTreeSet<String>>,
            path: &mut Vec<&'a str>,
            done: &mut BTreeSet<&'a str>,
        ) -> Option<Vec<String>> {
            if let Some(at) = path.iter().position(|p| *p == m) {
                let mut circle: Vec<String> = path[at..].iter().map(|s| s.to_string()).collect();
                circle.push(m.to_string());
                return Some(circle);
            }
            if !done.insert(m) {
                return None;
            }
            path.push(m);
            for d in edges.get(m).into_iter().flatten() {
                if let Some(c) = walk(d, edges, path, done) {
                    return Some(c);
                }
            }
            path.pop();
            None
        }
        let mut done = BTreeSet::new();
        for m in edges.keys() {
            let circle = walk(m, &edges, &mut Vec::new(), &mut done);
            assert!(
                circle.is_none(),
                "an import circle: {}",
                circle.unwrap().join(" -> ")
            );
        }
    }
}
