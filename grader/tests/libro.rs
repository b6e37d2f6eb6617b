//! The book (`docs/`) and the README, as plain markdown: every relative link
//! points to a file that exists (and, for a `#fragment`, to one of its
//! headings), and a page of the book only to pages of the book (mdBook
//! publishes `docs/src/` alone); every page of `docs/src/` is in
//! `SUMMARY.md`; and every `cargo run -p grader -- …` (also `-q`,
//! `--release`, `--features …`) and `scripts/calificar …` written in them is
//! accepted by the grader's real command line ([`grader::cli::Cli`]). The
//! same checks run on the student template (`scripts/plantilla-estudiante`,
//! a copy: nothing is built), which ships only the students' pages.
//!
//! A command that elides its arguments (`…`, `...`, `[OPCIONES]`) is checked
//! only up to the ellipsis: its command and its options must exist. The
//! placeholders the docs use for values (`N`, `S`, `NOMBRE`, …) stand for a
//! valid value (see [`PLACEHOLDERS`]). This test binary's grader has the
//! features `junit`, `curso`, `servicio` and `herramientas` (the
//! dev-dependency; `vigilar`, `escenario` and `barrido` need no feature of
//! the student, who runs them without it: `commands::tools`): a line
//! that uses `curso`, `servicio` or `--format junit` must name the feature
//! itself, as a student's judge has none of them.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use clap::error::ErrorKind;
use clap::{CommandFactory, Parser};
use grader::cli::{Cli, Command};
use grader::report::Format;

/// What the docs write for a value, and a value clap accepts in its place.
const PLACEHOLDERS: &[(&str, &str)] = &[
    ("N", "3"),
    ("S", "7"),
    ("J", "2"),
    ("M", "4"),
    ("P", "0.1"),
    ("i/n", "1/2"),
    ("NOMBRE", "cobro"),
    ("SEGUNDOS", "5"),
    ("ID", "cobro"),
    // The worked example of docs/src/diseño/agregar-un-ejercicio.md, an
    // exercise that is not in the catalog.
    ("detector", "cobro"),
];

/// The features of `grader` this test binary is built with.
const FEATURES: &[&str] = &["junit", "curso", "servicio", "herramientas"];

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .canonicalize()
        .unwrap()
}

/// A markdown file read as the checks need it: the text outside code (in
/// paragraphs, with code spans removed), the code (fenced lines and code
/// spans) and the anchors of its headings.
struct Page {
    /// Text outside fenced blocks, one entry per paragraph, code spans cut.
    prose: Vec<String>,
    /// Each fenced line and each code span (joined across line breaks).
    code: Vec<String>,
    /// The anchors GitHub and mdBook give its headings.
    anchors: BTreeSet<String>,
}

/// GitHub's (and mdBook's) anchor of a heading: lower case; letters,
/// digits, `-` and `_` kept; spaces become `-`; the rest dropped.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Splits `paragraph` into its text without code spans and its code spans.
fn code_spans(paragraph: &str) -> (String, Vec<String>) {
    let mut text = String::new();
    let mut spans = Vec::new();
    for (i, part) in paragraph.split('`').enumerate() {
        if i % 2 == 0 {
            text.push_str(part);
        } else {
            spans.push(part.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    (text, spans)
}

fn parse(markdown: &str) -> Page {
    let mut page = Page {
        prose: Vec::new(),
        code: Vec::new(),
        anchors: BTreeSet::new(),
    };
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut fence: Option<&str> = None;
    let mut paragraph = String::new();
    let flush = |paragraph: &mut String, page: &mut Page| {
        let (text, spans) = code_spans(paragraph);
        page.prose.push(text);
        page.code.extend(spans);
        paragraph.clear();
    };
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        if let Some(open) = fence {
            if trimmed.starts_with(open) {
                fence = None;
            } else {
                page.code.push(line.to_string());
            }
            continue;
        }
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            flush(&mut paragraph, &mut page);
            fence = Some(&trimmed[..3]);
            continue;
        }
        if let Some(heading) = trimmed.strip_prefix('#') {
            let heading = heading.trim_start_matches('#');
            if heading.starts_with(' ') {
                flush(&mut paragraph, &mut page);
                // `## El \`ver\`` → "el-ver": a code span's text counts.
                let base = slug(&code_free_heading(heading));
                let n = seen.entry(base.clone()).or_insert(0);
                page.anchors.insert(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
                continue;
            }
        }
        if trimmed.is_empty() {
            flush(&mut paragraph, &mut page);
        } else {
            paragraph.push_str(line);
            paragraph.push('\n');
        }
    }
    flush(&mut paragraph, &mut page);
    page
}

/// A heading's text as rendered: backticks gone, a link's text kept.
fn code_free_heading(heading: &str) -> String {
    let mut out = String::new();
    let mut rest = heading.replace('`', "");
    while let Some(start) = rest.find("](") {
        let Some(end) = rest[start..].find(')') else {
            break;
        };
        out.push_str(&rest[..start]);
        rest = rest[start + end + 1..].to_string();
    }
    out.push_str(&rest);
    out.replace('[', "")
}

/// The link targets in `text` (`[texto](destino)`), in order.
fn links(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("](") {
        let after = &rest[i + 2..];
        let mut depth = 0;
        let end = after.char_indices().find(|&(_, c)| match c {
            '(' => {
                depth += 1;
                false
            }
            ')' if depth == 0 => true,
            ')' => {
                depth -= 1;
                false
            }
            _ => false,
        });
        match end {
            Some((end, _)) => {
                let target = after[..end].split_whitespace().next().unwrap_or("");
                found.push(target.to_string());
                rest = &after[end..];
            }
            None => break,
        }
    }
    found
}

/// `path` without `.` and `..` (no file system access: the target may be
/// missing).
fn normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The markdown files checked under `root`: the README and `docs/**/*.md`.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                // docs/book/ is mdBook's output (ignored by git).
                if path.file_name().is_some_and(|n| n != "book") {
                    walk(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "md") {
                out.push(path);
            }
        }
    }
    let mut files = vec![root.join("README.md")];
    walk(&root.join("docs"), &mut files);
    files.sort();
    files
}

/// Every broken relative link of the markdown files under `root`, one line
/// each (`file: destino: why`).
fn broken_links(root: &Path) -> Vec<String> {
    let files = markdown_files(root);
    let mut pages: BTreeMap<PathBuf, Page> = BTreeMap::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        pages.insert(normal(file), parse(&text));
    }
    let mut problems = Vec::new();
    for file in &files {
        let page = &pages[&normal(file)];
        let shown = file.strip_prefix(root).unwrap().display().to_string();
        for target in page.prose.iter().flat_map(|p| links(p)) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let dest = if path.is_empty() {
                normal(file)
            } else {
                normal(&file.parent().unwrap().join(path))
            };
            if !dest.starts_with(root) {
                problems.push(format!("{shown}: {target}: fuera del repositorio"));
                continue;
            }
            // mdBook publishes docs/src only: a page's link elsewhere (the
            // README, the code) would be broken on the book's site.
            if file.starts_with(root.join("docs")) && !dest.starts_with(root.join("docs/src")) {
                problems.push(format!("{shown}: {target}: fuera del libro (docs/src)"));
                continue;
            }
            if !dest.exists() {
                problems.push(format!("{shown}: {target}: no existe"));
                continue;
            }
            if let Some(anchor) = anchor {
                match pages.get(&dest) {
                    Some(target_page) if !target_page.anchors.contains(anchor) => {
                        problems.push(format!(
                            "{shown}: {target}: no hay un título con el ancla «{anchor}» (hay: {})",
                            target_page
                                .anchors
                                .iter()
                                .cloned()
                                .collect::<Vec<_>>()
                                .join(", ")
                        ));
                    }
                    Some(_) => {}
                    None => problems.push(format!(
                        "{shown}: {target}: un ancla solo se comprueba en un .md"
                    )),
                }
            }
        }
    }
    problems
}

/// Every page of `docs/src` that `SUMMARY.md` does not list (mdBook would
/// leave it out of the book).
fn pages_not_in_summary(root: &Path) -> Vec<String> {
    let src = root.join("docs/src");
    let summary = std::fs::read_to_string(src.join("SUMMARY.md")).unwrap();
    let listed: BTreeSet<PathBuf> = parse(&summary)
        .prose
        .iter()
        .flat_map(|p| links(p))
        .map(|l| normal(&src.join(l)))
        .collect();
    markdown_files(root)
        .into_iter()
        .filter(|f| f.starts_with(&src) && !f.ends_with("SUMMARY.md"))
        .filter(|f| !listed.contains(&normal(f)))
        .map(|f| {
            format!(
                "{}: no está en SUMMARY.md",
                f.strip_prefix(root).unwrap().display()
            )
        })
        .collect()
}

/// A grader command line found in the docs: the features it names and its
/// arguments (after `--`).
#[derive(Debug)]
struct GraderLine {
    text: String,
    features: Vec<String>,
    args: Vec<String>,
}

/// The grader command lines in `code` (a fenced line or a code span):
/// `cargo run … -p grader … [-- ARGS]` or `scripts/calificar [ARGS]`, up
/// to a shell comment. `None` when `code` has neither.
fn grader_line(code: &str) -> Option<GraderLine> {
    let code = code.split(" # ").next().unwrap().trim_end();
    if let Some(i) = code.find("scripts/calificar") {
        let rest = &code[i + "scripts/calificar".len()..];
        // `scripts/calificar` named, not run (`scripts/calificar` en la tabla).
        if !rest.is_empty() && !rest.starts_with(' ') {
            return None;
        }
        return Some(GraderLine {
            text: code[i..].to_string(),
            features: Vec::new(),
            args: rest.split_whitespace().map(str::to_string).collect(),
        });
    }
    let i = code.find("cargo run")?;
    let text = code[i..].to_string();
    let mut words = text.split_whitespace().skip(2);
    let mut features = Vec::new();
    let mut grader = false;
    let mut args = Vec::new();
    while let Some(w) = words.next() {
        match w {
            "--" => {
                args = words.by_ref().map(str::to_string).collect();
            }
            "-p" | "--package" => grader = words.next() == Some("grader"),
            "--features" | "-F" => {
                features.extend(words.next().unwrap_or("").split(',').map(str::to_string))
            }
            _ => {}
        }
    }
    grader.then_some(GraderLine {
        text,
        features,
        args,
    })
}

/// Why the grader's command line refuses `line`, if it does.
fn refused(line: &GraderLine) -> Option<String> {
    for f in &line.features {
        if !FEATURES.contains(&f.as_str()) {
            return Some(format!("la feature «{f}» no existe (hay: {FEATURES:?})"));
        }
    }
    let elided = line
        .args
        .iter()
        .position(|a| a == "…" || a == "..." || a.starts_with("[OPCIONES]") || a.ends_with('…'));
    let args: Vec<String> = line.args[..elided.unwrap_or(line.args.len())]
        .iter()
        .map(|a| {
            PLACEHOLDERS
                .iter()
                .find(|(p, _)| p == a)
                .map_or(a.clone(), |(_, v)| v.to_string())
        })
        .collect();
    if elided.is_some() {
        return unknown_names(&args);
    }
    let cli = match Cli::try_parse_from(std::iter::once("grader".to_string()).chain(args)) {
        Ok(cli) => cli,
        Err(e) if e.kind() == ErrorKind::DisplayHelp => return None,
        Err(e) => return Some(e.to_string().lines().next().unwrap_or("").to_string()),
    };
    let named = |f: &str| line.features.iter().any(|g| g == f);
    if matches!(cli.command, Some(Command::Curso(_))) && !named("curso") {
        return Some("`curso` necesita `--features curso`".to_string());
    }
    if matches!(cli.command, Some(Command::Servicio(_))) && !named("servicio") {
        return Some("`servicio` necesita `--features servicio`".to_string());
    }
    if cli.format == Format::Junit && !named("junit") {
        return Some("`--format junit` necesita `--features junit`".to_string());
    }
    None
}

/// For a command cut at an ellipsis: its command (the first word that is
/// not an option) and every `--option` before the ellipsis must exist.
fn unknown_names(args: &[String]) -> Option<String> {
    let root = Cli::command();
    let mut command = &root;
    let mut scopes = vec![&root];
    for a in args {
        if let Some(long) = a.strip_prefix("--") {
            let long = long.split('=').next().unwrap();
            let known = scopes.iter().any(|c| {
                c.get_arguments().any(|arg| {
                    arg.get_long() == Some(long)
                        || arg
                            .get_all_aliases()
                            .is_some_and(|aliases| aliases.contains(&long))
                })
            });
            if !known {
                return Some(format!("la opción --{long} no existe"));
            }
        } else if std::ptr::eq(command, &root) && !a.starts_with('-') && args_take_no_value(a) {
            match root.find_subcommand(a) {
                Some(sub) => {
                    command = sub;
                    scopes.push(sub);
                }
                None => return Some(format!("el comando «{a}» no existe")),
            }
        }
    }
    None
}

/// Whether `word` can be a command's name (and not an option's value, like
/// the 3 of `--variantes 3`).
fn args_take_no_value(word: &str) -> bool {
    word.chars().all(|c| c.is_ascii_lowercase() || c == '-')
}

/// Every grader command line of the markdown files under `root` that the
/// command line refuses, one line each (`file: line: why`), and how many
/// were checked.
fn refused_commands(root: &Path) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut checked = 0;
    for file in markdown_files(root) {
        let page = parse(&std::fs::read_to_string(&file).unwrap());
        let shown = file.strip_prefix(root).unwrap().display().to_string();
        for line in page.code.iter().filter_map(|c| grader_line(c)) {
            checked += 1;
            if let Some(why) = refused(&line) {
                problems.push(format!("{shown}: `{}`: {why}", line.text));
            }
        }
    }
    (problems, checked)
}

#[test]
fn every_relative_link_of_the_readme_and_the_book_points_to_a_file_and_heading() {
    let root = repo();
    let mut problems = broken_links(&root);
    problems.extend(pages_not_in_summary(&root));
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
}

#[test]
fn every_grader_command_of_the_readme_and_the_book_parses() {
    let (problems, checked) = refused_commands(&repo());
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    // The README alone has the student's commands and the instructor's.
    assert!(checked >= 10, "only {checked} grader command lines found");
}

/// The template ships the README without its instructors' part and, of the
/// book, only the students' pages: what is left links only to what is left.
#[cfg(unix)]
#[test]
fn the_student_templates_pages_link_only_to_what_the_template_ships() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("libro-plantilla");
    let _ = std::fs::remove_dir_all(&dir);
    let o = std::process::Command::new(repo().join("scripts/plantilla-estudiante"))
        .arg(&dir)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let dir = dir.canonicalize().unwrap();
    assert!(dir.join("docs/src/estudiantes/informe.md").is_file());
    for gone in ["docs/src/instructores", "docs/src/diseño"] {
        assert!(!dir.join(gone).exists(), "{gone} is in the template");
    }
    let mut problems = broken_links(&dir);
    problems.extend(pages_not_in_summary(&dir));
    let (refused, _) = refused_commands(&dir);
    problems.extend(refused);
    assert!(problems.is_empty(), "\n{}", problems.join("\n"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The checks find what they look for: a missing file, a missing heading,
/// a page left out of the index, an unknown command, option or feature, a
/// value clap refuses, and `curso` without its feature.
#[test]
fn the_checks_catch_a_broken_link_and_a_broken_command() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("libro-roto");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("docs/src/estudiantes")).unwrap();
    std::fs::write(
        dir.join("README.md"),
        "# Kit\n\n## El `ver`: la página\n\n[bien](docs/src/estudiantes/a.md#un-título) \
         [sin archivo](docs/src/estudiantes/falta.md)\n[sin título](docs/src/estudiantes/a.md#otro) \
         [aquí](#el-ver-la-página) [fuera](https://example.com/x.md)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("docs/src/SUMMARY.md"),
        "# Resumen\n\n- [A](estudiantes/a.md)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("docs/src/estudiantes/a.md"),
        "# A\n\n## Un título\n\n```sh\n\
         cargo run -p grader -- vigilar\n\
         cargo run -p grader -- vigila\n\
         cargo run -p grader -- --ejercicio cobros\n\
         cargo run -q -p grader -- --timeout NOMBRE\n\
         cargo run -p grader -- curso E --salida S\n\
         cargo run -p grader --features curso -- curso E --salida S --trabajos J\n\
         cargo run -p grader --features cursos -- curso E --salida S\n\
         cargo run -p grader -- repetir-horario …\n\
         cargo run -p grader -- repetirhorario …\n\
         cargo run -p grader -- comparar --orden 5 …\n\
         ```\n\nY `cargo run -p\ngrader -- --ejercicio NOMBRE` en el texto, y `scripts/calificar --variantes N`.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("docs/src/estudiantes/b.md"),
        "# B\n\n[el README](../../../README.md)\n",
    )
    .unwrap();

    let links = broken_links(&dir);
    assert_eq!(links.len(), 3, "{links:#?}");
    assert!(links[0].contains("falta.md: no existe"), "{links:#?}");
    assert!(
        links[1].contains("a.md#otro: no hay un título"),
        "{links:#?}"
    );
    assert!(
        links[2].contains("b.md: ../../../README.md: fuera del libro"),
        "{links:#?}"
    );
    let orphans = pages_not_in_summary(&dir);
    assert_eq!(orphans.len(), 1, "{orphans:#?}");
    assert!(orphans[0].contains("b.md"), "{orphans:#?}");

    let (refused, checked) = refused_commands(&dir);
    assert_eq!(checked, 12, "{refused:#?}");
    let bad: Vec<&str> = refused
        .iter()
        .map(|p| p.split('`').nth(1).unwrap())
        .collect();
    assert_eq!(
        bad,
        [
            "cargo run -p grader -- vigila",
            "cargo run -p grader -- --ejercicio cobros",
            "cargo run -q -p grader -- --timeout NOMBRE",
            "cargo run -p grader -- curso E --salida S",
            "cargo run -p grader --features cursos -- curso E --salida S",
            "cargo run -p grader -- repetirhorario …",
            "cargo run -p grader -- comparar --orden 5 …",
        ],
        "{refused:#?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
