//! The source policy (issue 15): before anything compiles, the judge reads
//! every `.rs` file under `exercises/src/` with the `syn` parser and refuses,
//! per exercise, code that uses what the exercise does not need. The three
//! exercises are plain functions of their inputs (`charge` of the server's
//! own state, `charge_order` of its server, network and keys, `reconcile` of
//! two slices): code that looks at where it runs (which type called it,
//! which program, which machine, what time) or reaches outside the
//! submission (files read at compile time, the environment, the process) can
//! pass the checks with behaviour it does not have.
//!
//! The rule is an **allow-list of `std` modules** ([`ALLOWED_MODULES`]: the
//! collections, formatting, comparisons, iterators, numbers, `Option` and
//! `Result`, strings, cells and boxes …; `std::mem` only for `take`,
//! `replace`, `swap` and `drop`), the same under `core::` and `alloc::`,
//! written with or without a leading `::`. An allow-list, because a
//! deny-list misses what the next Rust release adds to `std` (`std::os`
//! grew `fd`, `std::backtrace` is new …) while what the exercises need is
//! short and stable. Besides paths, the policy refuses constructs by kind
//! ([`Kind`]): compile-time reads (`include_str!`, `include_bytes!`,
//! `include!`, `env!`, `option_env!`, `#[path]`), introspection (`file!`,
//! `module_path!`, `size_of` and friends from the prelude, `type_name`),
//! global state (`static`, `thread_local!`), `unsafe`, `extern`, linker
//! attributes, `asm!`, a `cfg` on anything but `test` and
//! `debug_assertions`, and whatever hides a path: renaming a crate root
//! (`use std as s`), a glob of a crate root (`use std::*`), a path built from
//! a macro variable (`std::$m`).
//!
//! What `syn` does not parse into paths (the bodies of `macro_rules!` and of
//! every macro call, attributes' arguments, syntax `syn` keeps verbatim) is
//! scanned token by token: identifiers joined by `::`, `name!` calls,
//! keywords. Comments are not tokens and string literals are single
//! literal tokens, so neither trips the policy. `line!()` and `column!()`
//! are allowed: they depend only on the source text.
//!
//! A use in an exercise's own file (or in a file under its folder, its
//! submodules: `client/…` → exercise 2) refuses that exercise; a use in
//! `lib.rs` or any other file refuses every exercise (it can reach all
//! three). The judge then compiles the others without the refused files
//! ([`stub`]), so nothing of refused code is compiled or run.

use std::collections::BTreeMap;
use std::path::Path;

use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use syn::visit::{self, Visit};

use crate::verdict::Exercise;

/// The `std` (and `core`, `alloc`) modules a submission may name.
pub const ALLOWED_MODULES: &[&str] = &[
    "array",
    "ascii",
    "borrow",
    "boxed",
    "cell",
    "char",
    "clone",
    "cmp",
    "collections",
    "convert",
    "default",
    "error",
    "f32",
    "f64",
    "fmt",
    "hash",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "iter",
    "marker",
    "mem",
    "num",
    "ops",
    "option",
    "prelude",
    "primitive",
    "rc",
    "result",
    "slice",
    "str",
    "string",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "vec",
];

/// The only items of `std::mem` a submission may name: the rest
/// (`size_of`, `align_of`, `discriminant`, `transmute` …) looks at types.
pub const ALLOWED_IN_MEM: &[&str] = &["take", "replace", "swap", "drop"];

/// The crate roots whose modules the allow-list covers.
const ROOTS: &[&str] = &["std", "core", "alloc"];

/// Names that look at the type behind a generic (the recording server or
/// the real one), wherever they come from: the prelude has `size_of` and
/// `align_of` since Rust 1.80.
const TYPE_PROBES: &[&str] = &[
    "size_of",
    "size_of_val",
    "align_of",
    "align_of_val",
    "type_name",
    "type_name_of_val",
    "needs_drop",
];

/// Methods, functions and traits that give a value's address (or one
/// derived from it) as a number, wherever they come from (`slice`,
/// `Rc`, `Box`, `Cell`, `str`, `fmt`): an address tells the code where and
/// how it is built (the stride between two values is a type's size: the
/// recording server's or the real one's, the explorer's lock or std's),
/// never what it was asked to do. `addr` and `from_raw` only as a method or
/// a path (`x.addr()`, `Box::from_raw`): a variable may be called `addr`.
const ADDRESS_NAMES: &[&str] = &[
    "as_ptr",
    "as_mut_ptr",
    "as_ptr_range",
    "as_mut_ptr_range",
    "as_non_null_ptr",
    "into_raw",
    "into_raw_parts",
    "into_raw_with_allocator",
    "into_non_null",
    "expose_provenance",
    "expose_addr",
    "with_addr",
    "map_addr",
    "addr_of",
    "addr_of_mut",
    "addr_eq",
    "fn_addr_eq",
    "Pointer",
];

/// [`ADDRESS_NAMES`] that a plain name may also be (a variable `addr`):
/// refused only as a method or after `::`.
const ADDRESS_METHODS_ONLY: &[&str] = &["addr", "from_raw"];

/// The integer types a cast can turn an address into.
const INTEGER_TYPES: &[&str] = &[
    "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
];

/// What the policy says about an address turned into a number.
const ADDRESS_WHAT: &str = "(la dirección de un valor o de una función como número)";

/// Attributes that place, export or link code, or name another file.
const LINKER_ATTRIBUTES: &[&str] = &[
    "no_mangle",
    "export_name",
    "link",
    "link_name",
    "link_section",
    "link_ordinal",
    "used",
    "naked",
    "global_allocator",
    "panic_handler",
    "target_feature",
    "instruction_set",
    "unsafe",
];

/// What a `cfg` may test: the unit tests' `cfg(test)` and the build
/// profile, with the usual combinators.
const ALLOWED_CFG: &[&str] = &["test", "debug_assertions", "not", "all", "any"];

/// Why a construct is refused: its group, each with the Spanish name shown
/// in the refusal line and the reason the exercises do not need it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// `include_str!`, `include_bytes!`, `include!`, `env!`, `option_env!`,
    /// `#[path]`.
    CompileTimeRead,
    /// The process, the environment, files, the network, the OS.
    System,
    /// Which type or which program is running.
    Introspection,
    /// The clock.
    Time,
    /// Threads and synchronisation.
    Threads,
    /// `static`, `thread_local!`.
    GlobalState,
    /// `unsafe` blocks, functions, impls and traits.
    Unsafe,
    /// `extern`, linker and symbol attributes, `asm!`.
    Linker,
    /// A rename or glob of a crate root, a path built by a macro.
    HiddenPath,
    /// Another module of `std` (outside [`ALLOWED_MODULES`]).
    OtherStd,
    /// A `cfg` on the target, features or the like.
    BuildConfig,
    /// A `macro_rules!` of the student's: its body is tokens that become
    /// paths, macro calls and attributes only when it expands
    /// (`$a::$b::$c` with `std env var`), which no reading of the source
    /// can judge.
    OwnMacro,
}

impl Kind {
    /// The Spanish name of the group, in parentheses in the refusal line.
    pub fn label(self) -> &'static str {
        match self {
            Kind::CompileTimeRead => "lectura de archivos o del entorno al compilar",
            Kind::System => "el proceso, el entorno, archivos, la red o el sistema operativo",
            Kind::Introspection => "introspección de tipos o del ejecutable",
            Kind::Time => "el reloj",
            Kind::Threads => "hilos o sincronización",
            Kind::GlobalState => "estado global compartido entre llamadas",
            Kind::Unsafe => "código unsafe",
            Kind::Linker => "código externo, ensamblador o atributos del enlazador",
            Kind::HiddenPath => "un nombre que esconde qué se usa",
            Kind::OtherStd => "un módulo de std fuera de los permitidos",
            Kind::BuildConfig => "la configuración de la compilación",
            Kind::OwnMacro => "una macro propia",
        }
    }

    /// Why no exercise needs it, in Spanish.
    pub fn reason(self) -> &'static str {
        match self {
            Kind::CompileTimeRead => {
                "lo que el compilador lea fuera de tu código no es parte de tu entrega"
            }
            Kind::System => {
                "su resultado depende solo de lo que recibe, nunca del proceso ni de la máquina donde corre"
            }
            Kind::Introspection => {
                "un resultado que cambia según qué tipo o qué programa lo llama no es el comportamiento que se califica"
            }
            Kind::Time => "su resultado no puede depender de la hora",
            Kind::Threads => {
                "los ejercicios 1 a 3 son secuenciales, y el 4 usa los candados del mundo, sim::sync::Mutex (ver «El store atómico» en el README)"
            }
            Kind::GlobalState => {
                "lo que se recuerda entre llamadas vive en el servidor (self) o en los parámetros, no en una variable global"
            }
            Kind::Unsafe => "todo se resuelve en Rust seguro",
            Kind::Linker => "nada se enlaza ni se exporta fuera de Rust",
            Kind::HiddenPath => {
                "escribe la ruta entera (std::collections::HashMap), sin alias ni glob"
            }
            Kind::OtherStd => {
                "bastan sim, std::collections, std::fmt, std::cmp, los iteradores y los demás módulos permitidos (ver el README)"
            }
            Kind::BuildConfig => "su resultado no puede depender de dónde se compila",
            Kind::OwnMacro => {
                "una macro arma rutas y atributos que el juez solo vería al expandirla; escribe el código sin macro_rules! (una función sirve)"
            }
        }
    }
}

/// One refused use in one file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Use {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub column: usize,
    /// What was written (`std::any::type_name`, `include_str!`, `static X`).
    pub what: String,
    /// Why it is refused.
    pub kind: Kind,
}

/// What the policy concluded about a submission's sources.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Review {
    /// The refused exercises, each with its refusal lines (one per use),
    /// in file and source order.
    pub refused: BTreeMap<Exercise, Vec<String>>,
    /// Files `syn` could not parse (shown paths): the compiler reports them
    /// when they are wrong; if the code still compiles, the exercises they
    /// belong to are refused ([`Review::unparsed_refusals`]).
    pub unparsed: Vec<(String, String)>,
}

impl Review {
    /// Whether `exercise` is refused.
    pub fn refuses(&self, exercise: Exercise) -> bool {
        self.refused.contains_key(&exercise)
    }

    /// The refusals of files `syn` could not read, once the compiler has
    /// accepted them (a syntax `syn` does not know must not hide a use).
    pub fn unparsed_refusals(&self) -> BTreeMap<Exercise, Vec<String>> {
        let mut out: BTreeMap<Exercise, Vec<String>> = BTreeMap::new();
        for (file, error) in &self.unparsed {
            let line = format!(
                "{file}: el juez no pudo analizar este archivo ({error}) y no califica lo que no puede revisar; escríbelo con la sintaxis estable de Rust"
            );
            for e in owners(file) {
                out.entry(e).or_default().push(line.clone());
            }
        }
        out
    }
}

/// The exercises a file can reach: its own exercise for an exercise file or
/// a file in its folder (`exercises/src/client/util.rs`), every exercise
/// for `lib.rs` and any other file.
pub fn owners(shown: &str) -> Vec<Exercise> {
    Exercise::ALL
        .into_iter()
        .find(|e| shown == e.file() || shown.starts_with(&format!("{}/", stem(e.file()))))
        .map_or_else(|| Exercise::ALL.to_vec(), |e| vec![e])
}

fn stem(file: &str) -> &str {
    file.strip_suffix(".rs").unwrap_or(file)
}

/// The refusal line of `u` in file `shown`, for an exercise file (`Some`)
/// or a file every exercise can reach (`None`):
/// `exercises/src/client.rs:12:5: usa std::any::type_name (introspección de
/// tipos): el ejercicio 2 no lo necesita; …`.
pub fn line(shown: &str, u: &Use, exercise: Option<Exercise>) -> String {
    let who = match exercise {
        Some(e) => format!("el ejercicio {} no lo necesita", e.number()),
        None => "ningún ejercicio lo necesita".to_string(),
    };
    // An exercise may say its own why for a kind of use (exercise 4 names
    // the world's locks where the others say they are sequential).
    let own = exercise.and_then(|e| {
        crate::checks::module(e)
            .policy_reasons
            .iter()
            .find(|(label, _)| *label == u.kind.label())
            .map(|(_, why)| *why)
    });
    format!(
        "{shown}:{}:{}: usa {} ({}): {who}; {}",
        u.line,
        u.column,
        u.what,
        u.kind.label(),
        own.unwrap_or_else(|| u.kind.reason())
    )
}

/// The variable that turns the policy off, for the kit's own tests of the
/// sandbox and of the judge's clean-up (their student code does on purpose
/// what the policy refuses, to show that the second wall holds alone). It
/// is read from the judge's own environment, which student code never
/// sets on a graded path: Gradescope's and the instructor's workflow's
/// environment is theirs, and the judge reads it before compiling anything.
pub const OFF_ENV: &str = "KIT_SIN_POLITICA";

/// Whether [`OFF_ENV`] is set to `1`.
pub fn turned_off() -> bool {
    std::env::var(OFF_ENV).is_ok_and(|v| v == "1")
}

/// Reviews every `.rs` file under `root/exercises/src` (recursively; shown
/// relative to `root`). A symbolic link there is refused for every
/// exercise: it could point anywhere.
pub fn review(root: &Path) -> Review {
    let src = root.join("exercises").join("src");
    let mut files = Vec::new();
    let mut links = Vec::new();
    walk(&src, &mut files, &mut links);
    files.sort();
    links.sort();
    let shown = |p: &Path| {
        p.strip_prefix(root)
            .unwrap_or(p)
            .to_string_lossy()
            .replace('\\', "/")
    };
    let mut review = Review::default();
    for link in &links {
        let line = format!(
            "{}: es un enlace simbólico; la entrega son tus archivos, no enlaces a otros (ningún ejercicio lo necesita)",
            shown(link)
        );
        for e in Exercise::ALL {
            review.refused.entry(e).or_default().push(line.clone());
        }
    }
    for file in &files {
        let name = shown(file);
        let text = match std::fs::read_to_string(file) {
            Ok(t) => t,
            Err(e) => {
                review.unparsed.push((name, crate::output::io_error(&e)));
                continue;
            }
        };
        match scan(&text) {
            Ok(uses) => add(&mut review, &name, &uses),
            Err(e) => review.unparsed.push((name, e)),
        }
    }
    review
}

fn add(review: &mut Review, shown: &str, uses: &[Use]) {
    let owners = owners(shown);
    let single = (owners.len() == 1).then(|| owners[0]);
    for u in uses {
        let line = line(shown, u, single);
        for e in &owners {
            review.refused.entry(*e).or_default().push(line.clone());
        }
    }
}

fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>, links: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_symlink() {
            links.push(path);
        } else if kind.is_dir() {
            walk(&path, files, links);
        } else if kind.is_file() && path.extension().is_some_and(|x| x == "rs") {
            files.push(path);
        }
    }
}

/// The refused uses in one file's source, in source order.
///
/// # Errors
/// `syn`'s message (with line and column) when the text does not parse.
pub fn scan(text: &str) -> Result<Vec<Use>, String> {
    let file = syn::parse_file(text).map_err(|e| {
        let at = e.span().start();
        format!("línea {}, columna {}: {e}", at.line, at.column + 1)
    })?;
    let mut scan = Scan::default();
    let inline_mod = file
        .items
        .iter()
        .any(|i| matches!(i, syn::Item::Mod(m) if m.content.is_some() && !cfg_test(&m.attrs)));
    if !inline_mod {
        scan.own_fns = file
            .items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Fn(f) => Some(name(&f.sig.ident)),
                _ => None,
            })
            .collect();
    }
    scan.fn_names = declared_fns(&file);
    scan.visit_file(&file);
    let mut uses = scan.uses;
    uses.sort();
    uses.dedup();
    Ok(uses)
}

/// The names of every function `file` declares, at any depth.
fn declared_fns(file: &syn::File) -> std::collections::BTreeSet<String> {
    #[derive(Default)]
    struct Fns(std::collections::BTreeSet<String>);
    impl<'ast> Visit<'ast> for Fns {
        fn visit_signature(&mut self, s: &'ast syn::Signature) {
            self.0.insert(name(&s.ident));
            visit::visit_signature(self, s);
        }
    }
    let mut fns = Fns::default();
    fns.visit_file(file);
    fns.0
}

/// Whether a format string has a `p` (pointer) spec: `{:p}`, `{:#p}`,
/// `{:1p}`, `{x:>20p}`.
fn formats_an_address(literal: &str) -> bool {
    let mut rest = literal;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if rest.starts_with('{') {
            rest = &rest[1..];
            continue;
        }
        let Some(close) = rest.find('}') else { break };
        let inside = &rest[..close];
        if let Some((_, spec)) = inside.split_once(':')
            && spec.ends_with('p')
        {
            return true;
        }
        rest = &rest[close..];
    }
    false
}

/// How a path written in the code ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Tail {
    /// After its last name.
    End,
    /// In `::*`.
    Glob,
    /// In `::` and something that is not a name (`std::$m`).
    Hidden,
    /// In `!`: a macro call.
    Macro,
    /// After its last name, called or given generic arguments
    /// (`size_of::<P>`, `size_of_val(&x)`): a bare name of
    /// [`TYPE_PROBES`] is refused only so, not as a local variable.
    Call,
}

/// A path segment: the name (without `r#`) and where it is.
type Segment = (String, Span);

fn name(ident: &proc_macro2::Ident) -> String {
    let s = ident.to_string();
    s.strip_prefix("r#").map(str::to_string).unwrap_or(s)
}

fn joined(segs: &[Segment]) -> String {
    segs.iter()
        .map(|(s, _)| s.as_str())
        .collect::<Vec<_>>()
        .join("::")
}

/// The verdict on a path: what to show and why it is refused, or `None`.
fn judge_path(
    segs: &[Segment],
    tail: Tail,
    own_fns: &std::collections::BTreeSet<String>,
) -> Option<(String, Kind)> {
    let first = segs.first()?.0.as_str();
    let last = segs.last()?.0.as_str();
    let path = joined(segs);
    if tail == Tail::Macro {
        return judge_macro(last).map(|kind| (format!("{path}!"), kind));
    }
    if !ROOTS.contains(&first) {
        let probe = match tail {
            Tail::Call => segs.len() > 1 || !own_fns.contains(last),
            Tail::End => segs.len() > 1,
            _ => false,
        };
        return (probe && TYPE_PROBES.contains(&last)).then_some((path, Kind::Introspection));
    }
    let Some((module, _)) = segs.get(1) else {
        return match tail {
            Tail::Glob => Some((format!("{first}::*"), Kind::HiddenPath)),
            Tail::Hidden => Some((format!("{first}::$…"), Kind::HiddenPath)),
            _ => None,
        };
    };
    let shown = match tail {
        Tail::Glob => format!("{path}::*"),
        Tail::Hidden => format!("{path}::$…"),
        _ => path,
    };
    if TYPE_PROBES.contains(&last) {
        return Some((shown, Kind::Introspection));
    }
    if !ALLOWED_MODULES.contains(&module.as_str()) {
        return Some((shown, module_kind(module)));
    }
    if module == "mem" {
        let item = segs.get(2).map(|(s, _)| s.as_str());
        // `use std::mem;` names the module: its items are judged where they
        // are used (`mem::take` passes, `mem::size_of` is a type probe by
        // its name wherever it comes from).
        let the_module = item.is_none() && tail == Tail::End;
        if !the_module && !item.is_some_and(|i| ALLOWED_IN_MEM.contains(&i)) {
            return Some((shown, Kind::Introspection));
        }
    }
    (tail == Tail::Hidden).then_some((shown, Kind::HiddenPath))
}

/// The group of a `std` module outside the allow-list.
fn module_kind(module: &str) -> Kind {
    match module {
        "env" | "process" | "fs" | "net" | "os" | "io" | "path" | "ffi" | "alloc" | "arch" => {
            Kind::System
        }
        "any" | "intrinsics" | "backtrace" | "panic" => Kind::Introspection,
        "time" => Kind::Time,
        "thread" | "sync" => Kind::Threads,
        _ => Kind::OtherStd,
    }
}

/// The group of a refused macro, by its name.
fn judge_macro(name: &str) -> Option<Kind> {
    match name {
        "include_str" | "include_bytes" | "include" | "env" | "option_env" => {
            Some(Kind::CompileTimeRead)
        }
        "file" | "module_path" => Some(Kind::Introspection),
        "asm" | "global_asm" | "naked_asm" => Some(Kind::Linker),
        "thread_local" => Some(Kind::GlobalState),
        "concat_idents" => Some(Kind::HiddenPath),
        _ => None,
    }
}

#[derive(Default)]
struct Scan {
    uses: Vec<Use>,
    /// The file's own top-level functions when the file has no inline
    /// module (where a bare name would mean the prelude's again): a call of
    /// one of them named like a [`TYPE_PROBES`] entry is the student's own.
    own_fns: std::collections::BTreeSet<String>,
    /// Every function the file declares (items, methods, nested): one of
    /// them cast to an integer is its address.
    fn_names: std::collections::BTreeSet<String>,
}

/// Whether `attrs` has `#[cfg(test)]`: the item is compiled only in the
/// student's own `cargo test`, never into the harness.
fn cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.parse_args::<syn::Ident>().is_ok_and(|i| i == "test")
    })
}

impl Scan {
    fn add(&mut self, span: Span, what: impl Into<String>, kind: Kind) {
        let at = span.start();
        self.uses.push(Use {
            line: at.line,
            column: at.column + 1,
            what: what.into(),
            kind,
        });
    }

    fn path(&mut self, segs: &[Segment], tail: Tail, at: Span) {
        if let Some((what, kind)) = judge_path(segs, tail, &self.own_fns) {
            self.add(at, what, kind);
        }
        for (i, (n, span)) in segs.iter().enumerate() {
            if ADDRESS_NAMES.contains(&n.as_str())
                || (i > 0 && ADDRESS_METHODS_ONLY.contains(&n.as_str()))
            {
                self.address(*span, n);
            }
        }
    }

    /// A name from [`ADDRESS_NAMES`].
    fn address(&mut self, at: Span, name: &str) {
        self.add(at, format!("{name} {ADDRESS_WHAT}"), Kind::Introspection);
    }

    /// `expr as <integer>` where `expr` is a function (one of the file's, or
    /// any path with generic arguments: `charge_order::<P, K> as usize`):
    /// its address.
    fn function_cast(&mut self, at: Span, what: &str) {
        self.add(
            at,
            format!("{what} as … {ADDRESS_WHAT}"),
            Kind::Introspection,
        );
    }

    /// A `use` tree under `prefix`.
    fn use_tree(&mut self, prefix: &mut Vec<Segment>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push((name(&p.ident), p.ident.span()));
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let segs = leaf(prefix, &n.ident);
                self.path(&segs, Tail::End, n.ident.span());
            }
            syn::UseTree::Rename(r) => {
                let segs = leaf(prefix, &r.ident);
                if let [(root, _)] = segs.as_slice()
                    && ROOTS.contains(&root.as_str())
                {
                    self.add(
                        r.ident.span(),
                        format!("use {root} as {}", r.rename),
                        Kind::HiddenPath,
                    );
                } else {
                    self.path(&segs, Tail::End, r.ident.span());
                }
            }
            syn::UseTree::Glob(g) => {
                let at = prefix.last().map_or(g.star_token.span, |(_, s)| *s);
                self.path(prefix, Tail::Glob, at);
            }
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// An attribute's name: `#[path]`, linker attributes, `cfg`.
    fn attribute_name(&mut self, ident: &str, at: Span, args: Option<TokenStream>) {
        if ident == "path" {
            self.add(at, "#[path]", Kind::CompileTimeRead);
        } else if ident == "unsafe" {
            // `#[unsafe(no_mangle)]`: the attribute it marks.
            let inner = args
                .and_then(|a| flat_idents(a).into_iter().next())
                .map_or_else(String::new, |i| name(&i));
            self.add(at, format!("#[unsafe({inner})]"), Kind::Linker);
        } else if LINKER_ATTRIBUTES.contains(&ident) {
            self.add(at, format!("#[{ident}]"), Kind::Linker);
        } else if ident == "cfg" {
            if let Some(args) = args {
                self.cfg(args);
            }
        } else if ident == "cfg_attr"
            && let Some(args) = args
        {
            // The attributes a `cfg_attr` applies, as if written plainly.
            for t in flat_idents(args) {
                let n = name(&t);
                if n == "path" || n == "cfg" || LINKER_ATTRIBUTES.contains(&n.as_str()) {
                    self.attribute_name(&n, t.span(), None);
                    if n == "cfg" {
                        self.add(t.span(), "cfg dentro de cfg_attr", Kind::BuildConfig);
                    }
                }
            }
        }
    }

    /// A `cfg` predicate (of `#[cfg]` or `cfg!`).
    fn cfg(&mut self, args: TokenStream) {
        for t in flat_idents(args) {
            let n = name(&t);
            if !ALLOWED_CFG.contains(&n.as_str()) {
                self.add(t.span(), format!("cfg({n})"), Kind::BuildConfig);
            }
        }
    }

    /// Tokens `syn` left unparsed, scanned for paths, macro calls,
    /// attributes and keywords; `prefix` is the path of an enclosing
    /// `path::{…}` group.
    fn tokens(&mut self, stream: TokenStream, prefix: &[Segment]) {
        let toks: Vec<TokenTree> = stream.into_iter().collect();
        let mut i = 0;
        let mut at_start = true;
        while i < toks.len() {
            match &toks[i] {
                TokenTree::Group(g) => {
                    self.tokens(g.stream(), &[]);
                    at_start = false;
                    i += 1;
                }
                TokenTree::Punct(p) if p.as_char() == '\'' => {
                    // A lifetime (`'static`): its name is not a keyword.
                    i += 2;
                    at_start = false;
                }
                TokenTree::Punct(p) if p.as_char() == '#' => {
                    let mut j = i + 1;
                    if punct(&toks, j, '!') {
                        j += 1;
                    }
                    if let Some(TokenTree::Group(g)) = toks.get(j)
                        && g.delimiter() == Delimiter::Bracket
                    {
                        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                        if let Some(TokenTree::Ident(id)) = inner.first() {
                            let args = match inner.get(1) {
                                Some(TokenTree::Group(a)) => Some(a.stream()),
                                _ => None,
                            };
                            self.attribute_name(&name(id), id.span(), args);
                        }
                    }
                    at_start = false;
                    i += 1;
                }
                TokenTree::Punct(p) => {
                    if p.as_char() == '*'
                        && let Some(TokenTree::Ident(k)) = toks.get(i + 1)
                        && (k == "const" || k == "mut")
                    {
                        self.raw_pointer(p.span());
                    }
                    at_start = matches!(p.as_char(), ',' | ';');
                    i += 1;
                }
                TokenTree::Literal(l) => {
                    let text = l.to_string();
                    if formats_an_address(&text) {
                        self.add(
                            l.span(),
                            "{:p} (la dirección de un valor)",
                            Kind::Introspection,
                        );
                    }
                    at_start = false;
                    i += 1;
                }
                TokenTree::Ident(id) => {
                    let n = name(id);
                    if punct(&toks, i.wrapping_sub(1), '.')
                        && (ADDRESS_NAMES.contains(&n.as_str())
                            || ADDRESS_METHODS_ONLY.contains(&n.as_str()))
                    {
                        self.address(id.span(), &n);
                    }
                    if n == "as"
                        && matches!(toks.get(i + 1), Some(TokenTree::Ident(t)) if INTEGER_TYPES.contains(&name(t).as_str()))
                    {
                        match toks.get(i.wrapping_sub(1)) {
                            Some(TokenTree::Ident(f)) if self.fn_names.contains(&name(f)) => {
                                self.function_cast(f.span(), &name(f));
                            }
                            Some(TokenTree::Punct(p)) if p.as_char() == '>' => {
                                self.function_cast(p.span(), "una ruta con ::<…>");
                            }
                            _ => {}
                        }
                    }
                    i = self.token_path(&toks, i, id, if at_start { prefix } else { &[] });
                    at_start = false;
                }
            }
        }
    }

    /// A raw pointer type (`*const T`, `*mut T`): an address as a number
    /// tells the code where and how it is built (the size of a lock, where
    /// a value lives), never what it was asked to do.
    fn raw_pointer(&mut self, at: proc_macro2::Span) {
        self.add(
            at,
            "*const/*mut (un puntero crudo: la dirección de un valor)",
            Kind::Introspection,
        );
    }

    /// The path that starts at `toks[i]` (`id`); the index after it.
    fn token_path(
        &mut self,
        toks: &[TokenTree],
        i: usize,
        id: &proc_macro2::Ident,
        prefix: &[Segment],
    ) -> usize {
        let mut segs: Vec<Segment> = prefix.to_vec();
        segs.push((name(id), id.span()));
        let mut j = i + 1;
        let mut tail = Tail::End;
        while punct(toks, j, ':') && punct(toks, j + 1, ':') {
            match toks.get(j + 2) {
                Some(TokenTree::Ident(n)) => {
                    segs.push((name(n), n.span()));
                    j += 3;
                }
                Some(TokenTree::Punct(p)) if p.as_char() == '*' => {
                    tail = Tail::Glob;
                    j += 3;
                    break;
                }
                // A turbofish (`type_name::<P>`): the path ends here.
                Some(TokenTree::Punct(p)) if p.as_char() == '<' => break,
                Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                    // `path::{a, b as c}`: each item under this path.
                    self.tokens(g.stream(), &segs);
                    return j + 3;
                }
                _ => {
                    tail = Tail::Hidden;
                    j += 2;
                    break;
                }
            }
        }
        let called = matches!(toks.get(j), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
            || (punct(toks, j, ':') && punct(toks, j + 1, ':') && punct(toks, j + 2, '<'));
        if tail == Tail::End && called {
            tail = Tail::Call;
        }
        if tail == Tail::End
            && punct(toks, j, '!')
            && matches!(toks.get(j + 1), Some(TokenTree::Group(_)))
        {
            tail = Tail::Macro;
            if segs.last().is_some_and(|(n, _)| n == "cfg")
                && let Some(TokenTree::Group(g)) = toks.get(j + 1)
            {
                self.cfg(g.stream());
            }
        }
        let at = segs[prefix.len()].1;
        if matches!(tail, Tail::End | Tail::Call)
            && let [(root, _)] = segs.as_slice()
        {
            match root.as_str() {
                "unsafe" => self.add(at, "unsafe", Kind::Unsafe),
                "static" => self.add(at, "static", Kind::GlobalState),
                "extern" => self.add(at, "extern", Kind::Linker),
                r if ROOTS.contains(&r)
                    && matches!(toks.get(j), Some(TokenTree::Ident(a)) if a == "as") =>
                {
                    self.add(at, format!("{r} as …"), Kind::HiddenPath);
                }
                _ => {}
            }
        }
        self.path(&segs, tail, at);
        j
    }
}

/// The path of a `use` leaf: `self` names its prefix.
fn leaf(prefix: &[Segment], ident: &proc_macro2::Ident) -> Vec<Segment> {
    let mut segs = prefix.to_vec();
    if ident != "self" {
        segs.push((name(ident), ident.span()));
    }
    segs
}

fn punct(toks: &[TokenTree], i: usize, c: char) -> bool {
    matches!(toks.get(i), Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Every identifier of `stream`, groups included, in order.
fn flat_idents(stream: TokenStream) -> Vec<proc_macro2::Ident> {
    let mut out = Vec::new();
    for t in stream {
        match t {
            TokenTree::Ident(i) => out.push(i),
            TokenTree::Group(g) => out.extend(flat_idents(g.stream())),
            _ => {}
        }
    }
    out
}

fn path_segments(p: &syn::Path) -> Vec<Segment> {
    p.segments
        .iter()
        .map(|s| (name(&s.ident), s.ident.span()))
        .collect()
}

impl<'ast> Visit<'ast> for Scan {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segs = path_segments(p);
        let generic = p.segments.last().is_some_and(|s| !s.arguments.is_none());
        if let Some((_, at)) = segs.first() {
            self.path(&segs, if generic { Tail::Call } else { Tail::End }, *at);
        }
        visit::visit_path(self, p);
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*c.func {
            let segs = path_segments(&p.path);
            if let Some((_, at)) = segs.first() {
                self.path(&segs, Tail::Call, *at);
            }
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        for a in &u.attrs {
            self.visit_attribute(a);
        }
        self.use_tree(&mut Vec::new(), &u.tree);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.is_ident("macro_rules") {
            self.add(
                m.path.segments[0].ident.span(),
                "macro_rules!",
                Kind::OwnMacro,
            );
            return;
        }
        // The macro's own path is judged as a macro name, not a module path.
        let segs = path_segments(&m.path);
        if let Some((_, at)) = segs.first() {
            self.path(&segs, Tail::Macro, *at);
            if segs.last().is_some_and(|(n, _)| n == "cfg") {
                self.cfg(m.tokens.clone());
            }
        }
        self.tokens(m.tokens.clone(), &[]);
    }

    fn visit_attribute(&mut self, a: &'ast syn::Attribute) {
        let path = a.path();
        if let Some(last) = path.segments.last() {
            let args = match &a.meta {
                syn::Meta::List(l) => Some(l.tokens.clone()),
                _ => None,
            };
            self.attribute_name(&name(&last.ident), last.ident.span(), args);
        }
        if let syn::Meta::List(l) = &a.meta {
            self.tokens(l.tokens.clone(), &[]);
        }
        visit::visit_attribute(self, a);
    }

    fn visit_item_static(&mut self, s: &'ast syn::ItemStatic) {
        self.add(
            s.static_token.span,
            format!("static {}", s.ident),
            Kind::GlobalState,
        );
        visit::visit_item_static(self, s);
    }

    fn visit_item_foreign_mod(&mut self, f: &'ast syn::ItemForeignMod) {
        self.add(f.abi.extern_token.span, "extern { … }", Kind::Linker);
        visit::visit_item_foreign_mod(self, f);
    }

    fn visit_item_extern_crate(&mut self, c: &'ast syn::ItemExternCrate) {
        let what = match &c.rename {
            Some((_, r)) => format!("extern crate {} as {r}", c.ident),
            None => format!("extern crate {}", c.ident),
        };
        self.add(c.extern_token.span, what, Kind::Linker);
        visit::visit_item_extern_crate(self, c);
    }

    fn visit_signature(&mut self, s: &'ast syn::Signature) {
        if let syn::Safety::Unsafe(u) = &s.safety {
            self.add(u.span, format!("unsafe fn {}", s.ident), Kind::Unsafe);
        }
        if let Some(abi) = &s.abi {
            self.add(
                abi.extern_token.span,
                format!("extern fn {}", s.ident),
                Kind::Linker,
            );
        }
        visit::visit_signature(self, s);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        if let Some(u) = &i.unsafety {
            self.add(u.span, "unsafe impl", Kind::Unsafe);
        }
        visit::visit_item_impl(self, i);
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        if let Some(u) = &t.unsafety {
            self.add(u.span, format!("unsafe trait {}", t.ident), Kind::Unsafe);
        }
        visit::visit_item_trait(self, t);
    }

    fn visit_expr_unsafe(&mut self, e: &'ast syn::ExprUnsafe) {
        self.add(e.unsafe_token.span, "unsafe { … }", Kind::Unsafe);
        visit::visit_expr_unsafe(self, e);
    }

    fn visit_item_macro(&mut self, i: &'ast syn::ItemMacro) {
        match &i.ident {
            Some(name) if i.mac.path.is_ident("macro_rules") => self.add(
                i.mac.path.segments[0].ident.span(),
                format!("macro_rules! {name}"),
                Kind::OwnMacro,
            ),
            _ => visit::visit_item_macro(self, i),
        }
    }

    fn visit_item(&mut self, i: &'ast syn::Item) {
        // Compiled only in the student's own `cargo test`, never into the
        // harness the judge builds.
        let test_only = match i {
            syn::Item::Mod(m) => cfg_test(&m.attrs),
            syn::Item::Fn(f) => cfg_test(&f.attrs),
            syn::Item::Impl(m) => cfg_test(&m.attrs),
            syn::Item::Use(u) => cfg_test(&u.attrs),
            _ => false,
        };
        if test_only {
            return;
        }
        if let syn::Item::Verbatim(ts) = i {
            self.tokens(ts.clone(), &[]);
        }
        visit::visit_item(self, i);
    }

    fn visit_expr(&mut self, e: &'ast syn::Expr) {
        if let syn::Expr::Verbatim(ts) = e {
            self.tokens(ts.clone(), &[]);
        }
        if let syn::Expr::MethodCall(m) = e {
            let n = name(&m.method);
            if ADDRESS_NAMES.contains(&n.as_str()) || ADDRESS_METHODS_ONLY.contains(&n.as_str()) {
                self.address(m.method.span(), &n);
            }
        }
        if let syn::Expr::Cast(c) = e
            && let syn::Type::Path(t) = &*c.ty
            && t.path
                .get_ident()
                .is_some_and(|i| INTEGER_TYPES.contains(&name(i).as_str()))
        {
            let mut inner = &*c.expr;
            while let syn::Expr::Paren(p) = inner {
                inner = &p.expr;
            }
            if let syn::Expr::Path(p) = inner {
                let generic = p.path.segments.iter().any(|s| !s.arguments.is_none());
                let last = p.path.segments.last().map(|s| name(&s.ident));
                let own_fn = last.as_ref().is_some_and(|l| self.fn_names.contains(l));
                if generic || own_fn {
                    let shown = p
                        .path
                        .segments
                        .iter()
                        .map(|s| name(&s.ident))
                        .collect::<Vec<_>>()
                        .join("::");
                    self.function_cast(c.as_token.span, &shown);
                }
            }
        }
        visit::visit_expr(self, e);
    }

    fn visit_type(&mut self, t: &'ast syn::Type) {
        if let syn::Type::Verbatim(ts) = t {
            self.tokens(ts.clone(), &[]);
        }
        if let syn::Type::Ptr(p) = t {
            self.raw_pointer(p.star_token.span);
        }
        if let syn::Type::FnPtr(f) = t {
            // A function pointer compares and casts by address.
            self.add(
                f.fn_token.span,
                format!("fn(…) (un puntero a función) {ADDRESS_WHAT}"),
                Kind::Introspection,
            );
        }
        visit::visit_type(self, t);
    }

    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        if let syn::Pat::Verbatim(ts) = p {
            self.tokens(ts.clone(), &[]);
        }
        visit::visit_pat(self, p);
    }

    fn visit_impl_item(&mut self, i: &'ast syn::ImplItem) {
        if let syn::ImplItem::Verbatim(ts) = i {
            self.tokens(ts.clone(), &[]);
        }
        visit::visit_impl_item(self, i);
    }

    fn visit_trait_item(&mut self, i: &'ast syn::TraitItem) {
        if let syn::TraitItem::Verbatim(ts) = i {
            self.tokens(ts.clone(), &[]);
        }
        visit::visit_trait_item(self, i);
    }

    fn visit_foreign_item(&mut self, i: &'ast syn::ForeignItem) {
        if let syn::ForeignItem::Verbatim(ts) = i {
            self.tokens(ts.clone(), &[]);
        }
        visit::visit_foreign_item(self, i);
    }
}

#[cfg(test)]
mod tests;
