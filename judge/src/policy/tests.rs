use super::*;

/// The refusal lines of `src` as exercise 2's file.
fn refused(src: &str) -> Vec<String> {
    scan(src)
        .unwrap()
        .iter()
        .map(|u| line("exercises/src/client.rs", u, Some(Exercise::Cliente)))
        .collect()
}

/// `line:column: usa WHAT (LABEL)` of each refused use in `src`.
fn short(src: &str) -> Vec<String> {
    refused(src)
        .iter()
        .map(|l| {
            let l = l.strip_prefix("exercises/src/client.rs:").unwrap();
            l.split_once("): ").unwrap().0.to_string() + ")"
        })
        .collect()
}

const INTRO: &str = "introspección de tipos o del ejecutable";
const READ: &str = "lectura de archivos o del entorno al compilar";
const SYSTEM: &str = "el proceso, el entorno, archivos, la red o el sistema operativo";
const GLOBAL: &str = "estado global compartido entre llamadas";
const LINKER: &str = "código externo, ensamblador o atributos del enlazador";
const HIDDEN: &str = "un nombre que esconde qué se usa";

#[test]
fn type_name_is_refused_with_the_whole_line() {
    let src = "use sim::Payments;\n\nfn is_grader<P: Payments>() -> bool {\n    std::any::type_name::<P>().contains(\"Recording\")\n}\n";
    assert_eq!(
        refused(src),
        [
            "exercises/src/client.rs:4:5: usa std::any::type_name (introspección de tipos o del ejecutable): el ejercicio 2 no lo necesita; un resultado que cambia según qué tipo o qué programa lo llama no es el comportamiento que se califica"
        ]
    );
}

#[test]
fn current_exe_is_refused_with_the_whole_line() {
    let src = "fn graded() -> bool {\n    let exe = std::env::current_exe();\n    exe.is_ok()\n}\n";
    let lines: Vec<String> = scan(src)
        .unwrap()
        .iter()
        .map(|u| line("exercises/src/payments_server.rs", u, Some(Exercise::Cobro)))
        .collect();
    assert_eq!(
        lines,
        [
            "exercises/src/payments_server.rs:2:15: usa std::env::current_exe (el proceso, el entorno, archivos, la red o el sistema operativo): el ejercicio 1 no lo necesita; su resultado depende solo de lo que recibe, nunca del proceso ni de la máquina donde corre"
        ]
    );
}

#[test]
fn a_file_every_exercise_reaches_says_so() {
    let u = &scan("static N: u8 = 0;").unwrap()[0];
    assert_eq!(
        line("exercises/src/lib.rs", u, None),
        "exercises/src/lib.rs:1:1: usa static N (estado global compartido entre llamadas): ningún ejercicio lo necesita; lo que se recuerda entre llamadas vive en el servidor (self) o en los parámetros, no en una variable global"
    );
}

#[test]
fn compile_time_reads_are_refused() {
    assert_eq!(
        short("const S: &str = include_str!(\"/etc/shadow\");"),
        [format!("1:17: usa include_str! ({READ})")]
    );
    assert_eq!(
        short("const B: &[u8] = include_bytes!(\"/root/secreto\");"),
        [format!("1:18: usa include_bytes! ({READ})")]
    );
    assert_eq!(
        short("include!(\"../../solutions/src/client.rs\");"),
        [format!("1:1: usa include! ({READ})")]
    );
    assert_eq!(
        short("const H: &str = env!(\"HOME\");"),
        [format!("1:17: usa env! ({READ})")]
    );
    assert_eq!(
        short("fn f() -> bool {\n    option_env!(\"GRADESCOPE\").is_some()\n}"),
        [format!("2:5: usa option_env! ({READ})")]
    );
    assert_eq!(
        short("#[path = \"../../solutions/src/client.rs\"]\nmod reference;"),
        [format!("1:3: usa #[path] ({READ})")]
    );
    assert_eq!(
        short("#[cfg_attr(test, path = \"x.rs\")]\nmod y;"),
        [format!("1:18: usa #[path] ({READ})")]
    );
    assert_eq!(
        short("#[doc = include_str!(\"/etc/passwd\")]\npub fn f() {}"),
        [format!("1:9: usa include_str! ({READ})")]
    );
}

#[test]
fn the_process_environment_files_network_and_os_are_refused() {
    for (src, what) in [
        ("fn f() { let _ = std::env::var(\"X\"); }", "std::env::var"),
        ("fn f() { std::process::exit(0); }", "std::process::exit"),
        (
            "fn f() { let _ = std::fs::read(\"/etc/shadow\"); }",
            "std::fs::read",
        ),
        (
            "fn f() { let _ = std::net::TcpStream::connect(\"x:1\"); }",
            "std::net::TcpStream::connect",
        ),
        ("fn f() { let _ = std::io::stdin(); }", "std::io::stdin"),
        (
            "fn f() { let _ = std::path::Path::new(\"/\"); }",
            "std::path::Path::new",
        ),
        (
            "fn f() { let _ = ::core::ffi::c_int::MAX; }",
            "core::ffi::c_int::MAX",
        ),
    ] {
        let column = src.find(what.split("::").next().unwrap()).unwrap() + 1;
        assert_eq!(
            short(src),
            [format!("1:{column}: usa {what} ({SYSTEM})")],
            "{src}"
        );
    }
    assert_eq!(
        short("use std::os::unix::fs::MetadataExt;"),
        [format!(
            "1:24: usa std::os::unix::fs::MetadataExt ({SYSTEM})"
        )]
    );
}

#[test]
fn introspection_is_refused() {
    for (src, at, what) in [
        (
            "fn f() { let _ = core::any::TypeId::of::<u8>(); }",
            18,
            "core::any::TypeId::of",
        ),
        (
            "fn f() { let _ = std::any::type_name_of_val(&1); }",
            18,
            "std::any::type_name_of_val",
        ),
        ("fn f() -> usize { size_of::<u8>() }", 19, "size_of"),
        (
            "fn f(x: u8) -> usize { size_of_val(&x) }",
            24,
            "size_of_val",
        ),
        (
            "fn f() { println!(\"{}\", align_of::<u8>()); }",
            25,
            "align_of",
        ),
        (
            "fn f() -> usize { std::mem::size_of_val(&1) }",
            19,
            "std::mem::size_of_val",
        ),
        (
            "fn f() { let _ = std::panic::Location::caller(); }",
            18,
            "std::panic::Location::caller",
        ),
        (
            "fn f() { let _ = std::backtrace::Backtrace::capture(); }",
            18,
            "std::backtrace::Backtrace::capture",
        ),
        (
            "fn f() { let _ = core::intrinsics::type_id::<u8>(); }",
            18,
            "core::intrinsics::type_id",
        ),
        ("fn f() { let _ = file!(); }", 18, "file!"),
        ("fn f() { let _ = module_path!(); }", 18, "module_path!"),
        (
            "fn f() { let _ = std::mem::discriminant(&x); }",
            18,
            "std::mem::discriminant",
        ),
    ] {
        assert_eq!(
            short(src),
            [format!("1:{at}: usa {what} ({INTRO})")],
            "{src}"
        );
    }
}

#[test]
fn time_threads_and_global_state_are_refused() {
    assert_eq!(
        short("fn f() {\n    let t = std::time::Instant::now();\n}"),
        ["2:13: usa std::time::Instant::now (el reloj)"]
    );
    assert_eq!(
        short("fn f() { std::thread::sleep(d); }"),
        ["1:10: usa std::thread::sleep (hilos o sincronización)"]
    );
    assert_eq!(
        short("use std::sync::atomic::{AtomicU64, Ordering};"),
        [
            "1:25: usa std::sync::atomic::AtomicU64 (hilos o sincronización)",
            "1:36: usa std::sync::atomic::Ordering (hilos o sincronización)"
        ]
    );
    assert_eq!(
        short("static CALLS: u8 = 0;"),
        [format!("1:1: usa static CALLS ({GLOBAL})")]
    );
    assert_eq!(
        short("fn f() {\n    static mut SEEN: u32 = 0;\n}"),
        [format!("2:5: usa static SEEN ({GLOBAL})")]
    );
    assert_eq!(
        short("thread_local! { static T: u8 = 0; }"),
        [
            format!("1:1: usa thread_local! ({GLOBAL})"),
            format!("1:17: usa static ({GLOBAL})")
        ]
    );
}

#[test]
fn unsafe_extern_linker_and_asm_are_refused() {
    let unsafe_ = "código unsafe";
    assert_eq!(
        short("fn f() { unsafe { g() } }"),
        [format!("1:10: usa unsafe {{ … }} ({unsafe_})")]
    );
    assert_eq!(
        short("unsafe fn g() {}"),
        [format!("1:1: usa unsafe fn g ({unsafe_})")]
    );
    assert_eq!(
        short("unsafe impl Send for X {}\nunsafe trait T {}"),
        [
            format!("1:1: usa unsafe impl ({unsafe_})"),
            format!("2:1: usa unsafe trait T ({unsafe_})")
        ]
    );
    assert_eq!(
        short("extern \"C\" { fn abs(x: i32) -> i32; }"),
        [format!("1:1: usa extern {{ … }} ({LINKER})")]
    );
    assert_eq!(
        short("extern crate alloc;"),
        [format!("1:1: usa extern crate alloc ({LINKER})")]
    );
    assert_eq!(
        short("#[unsafe(no_mangle)]\npub fn f() {}"),
        [format!("1:3: usa #[unsafe(no_mangle)] ({LINKER})")]
    );
    assert_eq!(
        short("#[export_name = \"main\"] fn f() {}"),
        [format!("1:3: usa #[export_name] ({LINKER})")]
    );
    assert_eq!(
        short("#[used] #[link_section = \".init_array\"] static I: u8 = 0;"),
        [
            format!("1:3: usa #[used] ({LINKER})"),
            format!("1:11: usa #[link_section] ({LINKER})"),
            format!("1:41: usa static I ({GLOBAL})")
        ]
    );
    assert_eq!(
        short("#[link(name = \"c\")] extern {}"),
        [
            format!("1:3: usa #[link] ({LINKER})"),
            format!("1:21: usa extern {{ … }} ({LINKER})")
        ]
    );
    assert_eq!(
        short("fn f() { std::arch::asm!(\"nop\"); }"),
        [format!("1:10: usa std::arch::asm! ({LINKER})")]
    );
    assert_eq!(
        short("core::arch::global_asm!(\"\");"),
        [format!("1:1: usa core::arch::global_asm! ({LINKER})")]
    );
    assert_eq!(
        short("extern \"C\" fn callback() {}"),
        [format!("1:1: usa extern fn callback ({LINKER})")]
    );
}

#[test]
fn renames_globs_and_groups_do_not_hide_a_path() {
    assert_eq!(
        short("use std as s;"),
        [format!("1:5: usa use std as s ({HIDDEN})")]
    );
    assert_eq!(
        short("use ::core as c;"),
        [format!("1:7: usa use core as c ({HIDDEN})")]
    );
    assert_eq!(
        short("use std::{self as s};"),
        [format!("1:11: usa use std as s ({HIDDEN})")]
    );
    assert_eq!(
        short("use std::*;"),
        [format!("1:5: usa std::* ({HIDDEN})")]
    );
    assert_eq!(
        short("use std::{env as e, collections::HashMap};\nfn f() { e::var(\"X\"); }"),
        [format!("1:11: usa std::env ({SYSTEM})")]
    );
    assert_eq!(
        short("use std::{\n    collections::HashMap,\n    any::{self, Any},\n};"),
        [
            format!("3:11: usa std::any ({INTRO})"),
            format!("3:17: usa std::any::Any ({INTRO})")
        ]
    );
    assert_eq!(
        short("use std::mem::{take, size_of};"),
        [format!("1:22: usa std::mem::size_of ({INTRO})")]
    );
    // The module itself is fine: its items are judged where they are used.
    assert_eq!(
        short("use std::mem;\nfn f(v: &mut Vec<u8>) -> Vec<u8> { mem::take(v) }"),
        Vec::<String>::new()
    );
    assert_eq!(
        short(
            "use std::mem;\nfn f<P>() -> usize { mem::size_of::<P>() + mem::needs_drop::<P>() as usize }"
        ),
        [
            format!("2:22: usa mem::size_of ({INTRO})"),
            format!("2:44: usa mem::needs_drop ({INTRO})")
        ]
    );
    assert_eq!(
        short("use ::core::{mem::{self as m}};\nfn f<P>() -> usize { m::size_of::<P>() }"),
        [format!("2:22: usa m::size_of ({INTRO})")]
    );
    assert_eq!(
        short("use std::mem::*;"),
        [format!("1:10: usa std::mem::* ({INTRO})")]
    );
    assert_eq!(
        short("fn f() { let _ = r#std::env::args(); }"),
        [format!("1:18: usa std::env::args ({SYSTEM})")]
    );
    assert_eq!(
        short("fn f() { let _ = std::ptr::null::<u8>(); }"),
        ["1:18: usa std::ptr::null (un módulo de std fuera de los permitidos)"]
    );
}

/// A macro of the student's own is refused whatever its body: a path,
/// a macro call or an attribute built from its parameters exists only once
/// it expands (the breaker's `$a::$b::$c` with `std fs write`).
#[test]
fn own_macros_are_refused() {
    let own = "(una macro propia)";
    assert_eq!(
        short(
            "macro_rules! p3 { ($a:ident $b:ident $c:ident) => { $a::$b::$c } }\nfn f() { let _ = p3!(std env args)(); }"
        ),
        [format!("1:1: usa macro_rules! p3 {own}")]
    );
    assert_eq!(
        short("macro_rules! inc { ($m:ident) => { $m!(\"/etc/hostname\") } }"),
        [format!("1:1: usa macro_rules! inc {own}")]
    );
    assert_eq!(
        short(
            "fn f() {\n    macro_rules! pm { ($a:ident) => { #[$a = \"/tmp/x.rs\"] mod evil; } }\n}"
        ),
        [format!("2:5: usa macro_rules! pm {own}")]
    );
}

/// What only the student's own `cargo test` compiles is not judged; a
/// function of the file's own named like a type probe is the student's.
#[test]
fn test_only_code_and_own_functions_are_not_refused() {
    assert_eq!(
        short(
            "#[cfg(test)]\nmod tests {\n    #[test]\n    fn t() { let _ = std::time::Instant::now(); }\n}"
        ),
        Vec::<String>::new()
    );
    assert_eq!(
        short("fn size_of(v: &[u64]) -> usize { v.len() }\nfn f() -> usize { size_of(&[1, 2]) }"),
        Vec::<String>::new()
    );
    // With an inline module a bare name may mean the prelude's again.
    assert_eq!(
        short("fn size_of() -> usize { 0 }\nmod a { pub fn g<P>() -> usize { size_of::<P>() } }"),
        [format!("2:34: usa size_of ({INTRO})")]
    );
}

#[test]
fn macro_bodies_are_scanned_token_by_token() {
    assert_eq!(
        short("fn f() { println!(\"{}\", std::env::var(\"X\").is_ok()); }"),
        [format!("1:25: usa std::env::var ({SYSTEM})")]
    );
    assert_eq!(
        short("fn f() { m! { let _ = std::$m::var(\"X\"); } }"),
        [format!("1:23: usa std::$… ({HIDDEN})")]
    );
    assert_eq!(
        short("fn f() { m! { use std::{collections::HashMap, env as e}; } }"),
        [format!("1:47: usa std::env ({SYSTEM})")]
    );
    assert_eq!(
        short("m! { use std as s; }"),
        [format!("1:10: usa std as … ({HIDDEN})")]
    );
    assert_eq!(
        short("m! { fn g() { unsafe { } } static X: u8 = 0; }"),
        [
            "1:15: usa unsafe (código unsafe)".to_string(),
            format!("1:28: usa static ({GLOBAL})")
        ]
    );
    assert_eq!(
        short("m! { #[path = \"/etc\"] mod x; const S: &str = include_str!(\"/etc/shadow\"); }"),
        [
            format!("1:8: usa #[path] ({READ})"),
            format!("1:46: usa include_str! ({READ})")
        ]
    );
    assert_eq!(
        short("m! { let _ = std::any::type_name::<P>(); }"),
        [format!("1:14: usa std::any::type_name ({INTRO})")]
    );
}

#[test]
fn a_cfg_may_only_test_the_unit_tests_and_the_profile() {
    assert_eq!(
        short("#[cfg(target_os = \"linux\")]\nfn f() {}"),
        ["1:7: usa cfg(target_os) (la configuración de la compilación)"]
    );
    assert_eq!(
        short("fn f() -> bool { cfg!(unix) }"),
        ["1:23: usa cfg(unix) (la configuración de la compilación)"]
    );
    assert_eq!(
        short("#[cfg(test)]\nmod tests {}\n#[cfg(not(debug_assertions))]\nfn g() {}"),
        Vec::<String>::new()
    );
}

/// The kit's own files, the reference solutions and ordinary student code
/// pass: names in comments, strings, locals, `std::collections`, `sim`.
#[test]
fn what_the_exercises_need_is_not_refused() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // The student template has no solutions/.
    for dir in ["exercises/src", "solutions/src"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            assert_eq!(dir, "solutions/src", "{dir} is missing");
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap();
            assert_eq!(scan(&text), Ok(Vec::new()), "{}", path.display());
        }
    }
    let ordinary = r#"
//! Usa std::env y std::any::type_name solo en este comentario; include_str!("/etc/shadow").
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Write as _;
use std::cmp::Ordering;
use sim::{ChargeOutcome, IdempotencyKey, Money, Order, Payments};

/// Comments about `static` and `unsafe` are just text.
pub fn f<P: Payments>(server: &mut P, order: &Order) -> usize {
    let env = "std::env::var(\"HOME\")"; // a string, not a path
    let process = 3;
    let fs = env.len() + process;
    let mut seen: HashMap<IdempotencyKey, Money> = HashMap::new();
    let total: u64 = seen.values().map(|m| m.cents()).sum();
    let _ = std::mem::take(&mut seen);
    let mut v = vec![1, 2, 3];
    v.sort_by(|a, b| b.cmp(a));
    let _ = std::cmp::max(1, 2) == 2 && Ordering::Less < Ordering::Greater;
    let _: BTreeMap<u8, u8> = BTreeMap::new();
    let _: HashSet<u8> = std::iter::once(1).collect();
    let _ = u64::MAX.checked_add(1).unwrap_or(0) + std::u64::MAX;
    let _ = line!() + column!();
    let ok = env != "x";
    let type_name = "local"; // a local named like a probe, not a call
    let size_of = type_name.len();
    println!("{type_name} {}", size_of + 1);
    println!("{} {} {}", fs, total, ok);
    eprintln!("std::process::exit(1)");
    dbg!(&v);
    let s = format!("{:?}", order);
    assert!(!s.is_empty(), "include_str!");
    let _: &'static str = "static";
    if v.is_empty() { todo!() } else if ok { unimplemented!() } else { panic!("no") }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn t() { assert_eq!(1, 1); }
}
"#;
    assert_eq!(scan(ordinary), Ok(Vec::new()));
}

#[test]
fn each_file_refuses_the_exercises_it_reaches() {
    assert_eq!(owners("exercises/src/client.rs"), [Exercise::Cliente]);
    assert_eq!(owners("exercises/src/client/util.rs"), [Exercise::Cliente]);
    assert_eq!(
        owners("exercises/src/payments_server.rs"),
        [Exercise::Cobro]
    );
    assert_eq!(
        owners("exercises/src/reconciliation.rs"),
        [Exercise::Reconciliacion]
    );
    assert_eq!(owners("exercises/src/lib.rs"), Exercise::ALL);
    assert_eq!(owners("exercises/src/util.rs"), Exercise::ALL);
    assert_eq!(owners("exercises/src/clients.rs"), Exercise::ALL);
}

#[test]
fn a_review_reads_every_file_and_refuses_per_exercise() {
    let root = tempfile::tempdir().unwrap();
    let src = root.path().join("exercises/src");
    std::fs::create_dir_all(src.join("client")).unwrap();
    std::fs::write(src.join("lib.rs"), "pub mod client;\n").unwrap();
    std::fs::write(src.join("payments_server.rs"), "pub struct S;\n").unwrap();
    std::fs::write(src.join("client.rs"), "mod util;\n").unwrap();
    std::fs::write(
        src.join("client/util.rs"),
        "pub fn f() -> u64 {\n    std::time::UNIX_EPOCH.elapsed().map_or(0, |d| d.as_secs())\n}\n",
    )
    .unwrap();
    std::fs::write(src.join("reconciliation.rs"), "pub fn r( {}\n").unwrap();
    let review = review(root.path());
    assert_eq!(
        review.refused,
        BTreeMap::from([(
            Exercise::Cliente,
            vec!["exercises/src/client/util.rs:2:5: usa std::time::UNIX_EPOCH (el reloj): el ejercicio 2 no lo necesita; su resultado no puede depender de la hora".to_string()]
        )])
    );
    assert_eq!(review.unparsed.len(), 1);
    assert_eq!(review.unparsed[0].0, "exercises/src/reconciliation.rs");
    let unparsed = review.unparsed_refusals();
    assert_eq!(
        unparsed.keys().copied().collect::<Vec<_>>(),
        [Exercise::Reconciliacion]
    );
    assert!(unparsed[&Exercise::Reconciliacion][0].starts_with(
        "exercises/src/reconciliation.rs: el juez no pudo analizar este archivo (línea 1, columna"
    ));

    // A link (Windows makes one only with a privilege).
    #[cfg(unix)]
    {
        std::fs::write(src.join("lib.rs"), "pub mod client;\nstatic N: u8 = 1;\n").unwrap();
        std::os::unix::fs::symlink("/etc/shadow", src.join("secreto.rs")).unwrap();
        let review = super::review(root.path());
        assert!(Exercise::ALL.iter().all(|e| review.refuses(*e)));
        assert_eq!(
            review.refused[&Exercise::Cobro],
            [
                "exercises/src/secreto.rs: es un enlace simbólico; la entrega son tus archivos, no enlaces a otros (ningún ejercicio lo necesita)",
                "exercises/src/lib.rs:2:1: usa static N (estado global compartido entre llamadas): ningún ejercicio lo necesita; lo que se recuerda entre llamadas vive en el servidor (self) o en los parámetros, no en una variable global"
            ]
        );
        assert_eq!(review.refused[&Exercise::Cliente].len(), 3);
    }
}

/// Exercise 4: its stub (`sim::sync::Mutex`, `SharedStore`, `&self`) passes
/// the policy; `std::sync` and `std::thread` there are refused with a line
/// that says to use `sim::sync`.
#[test]
fn exercise_4_takes_sim_sync_and_is_told_to_use_it_for_std_sync() {
    let stub = include_str!("../../../exercises/src/atomic_server.rs");
    assert_eq!(scan(stub), Ok(Vec::new()));
    assert_eq!(owners("exercises/src/atomic_server.rs"), [Exercise::Store]);
    let src = "use std::sync::Mutex;\npub struct S { store: Mutex<u8> }\n";
    let lines: Vec<String> = scan(src)
        .unwrap()
        .iter()
        .map(|u| line("exercises/src/atomic_server.rs", u, Some(Exercise::Store)))
        .collect();
    assert_eq!(
        lines,
        [
            "exercises/src/atomic_server.rs:1:16: usa std::sync::Mutex (hilos o sincronización): el ejercicio 4 no lo necesita; usa los candados del mundo, sim::sync::Mutex (`use sim::sync::Mutex;`, con la API de std::sync::Mutex y lock() sin unwrap): el juez los cambia por los de su explorador de horarios para probar los reintentos concurrentes, y los de std::sync no los vería; los hilos los pone el juez, tu servidor no crea ninguno"
        ]
    );
    let spawn = scan("fn f() { std::thread::spawn(|| ()); }").unwrap();
    assert!(
        line(
            "exercises/src/atomic_server.rs",
            &spawn[0],
            Some(Exercise::Store)
        )
        .ends_with("tu servidor no crea ninguno")
    );
    // Elsewhere the reason names both cases.
    assert!(
        line("exercises/src/client.rs", &spawn[0], Some(Exercise::Cliente)).ends_with(
            "los ejercicios 1 a 3 son secuenciales, y el 4 usa los candados del mundo, sim::sync::Mutex (ver «El store atómico» en el README)"
        )
    );
}

/// The breaker's explorer detector: the stride between two locks, taken
/// through raw pointers, tells std's `Mutex` from the explorer's; `{:p}`
/// prints the same address. Both are refused; `*` as a product or a
/// dereference is not.
#[test]
fn addresses_are_refused() {
    let cast = "fn explored(p: &[u8; 2]) -> bool {\n    (&p[1] as *const u8 as usize) - (&p[0] as *const u8 as usize) > 8\n}\n";
    assert_eq!(
        short(cast),
        [
            format!("2:15: usa *const/*mut (un puntero crudo: la dirección de un valor) ({INTRO})"),
            format!("2:47: usa *const/*mut (un puntero crudo: la dirección de un valor) ({INTRO})"),
        ]
    );
    assert_eq!(
        short("fn f(x: &u8) -> String { format!(\"{:p}\", x) }"),
        [format!(
            "1:34: usa {{:p}} (la dirección de un valor) ({INTRO})"
        )]
    );
    assert_eq!(
        short("fn f(x: &u8) -> bool { let p: *mut u8 = std::ptr::null_mut(); p.is_null() }")
            .first()
            .map(String::as_str),
        Some(
            format!("1:31: usa *const/*mut (un puntero crudo: la dirección de un valor) ({INTRO})")
                .as_str()
        )
    );
    assert!(short("fn f(a: &mut u64, b: u64) -> u64 { *a *= 2; *a * b }").is_empty());
    assert!(short("fn f(x: u8) -> String { format!(\"{x:?} {:>3}\", 1) }").is_empty());
}

/// The breaker's routes to a type's size or a function's address without a
/// raw pointer type (a client that told the recording key source from the
/// real one and regenerated the key per attempt outside grading, 36/36; a
/// store atomic only under the explorer, 20/20): refused.
#[test]
fn addresses_without_raw_pointer_types_are_refused() {
    let probe = "fn ancho<T>(x: &T) -> usize {\n    let r = std::slice::from_ref(x).as_ptr_range();\n    r.end as usize - r.start as usize\n}\n";
    assert_eq!(
        short(probe),
        [format!(
            "2:37: usa as_ptr_range (la dirección de un valor o de una función como número) ({INTRO})"
        )]
    );
    let turbofish =
        "pub fn charge_order<P, K>(p: P, k: K) -> usize {\n    charge_order::<P, K> as usize\n}\n";
    assert_eq!(
        short(turbofish),
        [format!(
            "2:26: usa charge_order as … (la dirección de un valor o de una función como número) ({INTRO})"
        )]
    );
    let own = "fn helper() {}\nfn f() -> bool { (helper as usize) % 2 == 0 }\n";
    assert_eq!(
        short(own),
        [format!(
            "2:26: usa helper as … (la dirección de un valor o de una función como número) ({INTRO})"
        )]
    );
    let pointer = "fn f() -> usize { let g: fn() = f2; g as usize }\nfn f2() {}\n";
    assert_eq!(
        short(pointer),
        [format!(
            "1:26: usa fn(…) (un puntero a función) (la dirección de un valor o de una función como número) ({INTRO})"
        )]
    );
    for spec in ["{:1p}", "{:#p}", "{x:>20p}", "{0:p}"] {
        let src = format!("fn f(x: &u8) -> String {{ format!(\"{spec}\", x) }}");
        assert_eq!(short(&src).len(), 1, "{spec}");
    }
    // In a macro's tokens too.
    let in_macro = "fn f(v: &[u8]) -> String { format!(\"{}\", v.as_ptr() as usize) }";
    assert_eq!(
        short(in_macro),
        [format!(
            "1:44: usa as_ptr (la dirección de un valor o de una función como número) ({INTRO})"
        )]
    );
    let rc = "use std::rc::Rc;\nfn f(x: Rc<u8>) -> bool { Rc::into_raw(x).is_aligned() }";
    assert_eq!(short(rc).len(), 1, "{:?}", short(rc));
    // What ordinary code does with casts, `addr` and formats passes.
    for fine in [
        "fn f(n: u32, v: &[u8]) -> usize { n as usize + v.len() as usize + u64::MAX as usize }",
        "fn f(addr: u64) -> u64 { let addr = addr + 1; addr }",
        "fn f(x: u8) -> String { format!(\"{{:p}} {x:>4} {:?} {x:#x}\", 1) }",
        "fn f(xs: &[u64]) -> u64 { xs.iter().map(|&x| x as u64).sum::<u64>() as u64 }",
    ] {
        assert!(short(fine).is_empty(), "{fine}: {:?}", short(fine));
    }
}
