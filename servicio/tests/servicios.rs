//! `servicio` against real services over HTTP: the Python reference (the
//! lesson's figures to the dollar, every check passes), the wrong services
//! (each fails the check that names its mistake) and broken ones (a clear
//! message, never a hang). Python's standard library only: cheap in CI.
//!
//! Its own `main` (libtest-mimic, the standard harness's options and
//! output): these tests wait on the services they start (start-ups, time
//! limits, a slow service's sleeps), not on the CPU, so they run with
//! more threads than cores (see [`main`]); with the standard harness's
//! one per core they took 19 s on 2 cores, 7 s with 8 threads.

use std::path::{Path, PathBuf};
use std::time::Duration;

use judge::verdict::Verdict;
use libtest_mimic::{Arguments, Trial};
use servicio::process::Launch;
use servicio::{Config, Outcome};
use sim::Money;

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/servicios")
}

fn lesson_fleet() -> sim::Fleet {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/flota-1000.toml");
    judge::fixture::Scenario::load(&path).unwrap().fleet
}

fn small_fleet() -> sim::Fleet {
    sim::Fleet::generated(20, (10, 500), 0.15, 4, 42, sim::StreamKind::Cpython)
}

fn config(command: &str, fleet: sim::Fleet, only: &[&str]) -> Config {
    Config {
        launch: Launch {
            command: command.to_string(),
            cwd: here(),
            ready_within: Duration::from_secs(30),
            request_limit: Duration::from_secs(10),
        },
        fleet,
        run_limit: Duration::from_secs(300),
        only: only.iter().map(|s| s.to_string()).collect(),
    }
}

fn python(file: &str, fleet: sim::Fleet, only: &[&str]) -> Outcome {
    servicio::run(&config(&format!("python3 {file}"), fleet, only)).unwrap()
}

fn verdict<'a>(o: &'a Outcome, id: &str) -> &'a Verdict {
    &o.checks
        .iter()
        .find(|c| c.spec.id == id)
        .unwrap_or_else(|| panic!("{id} did not run"))
        .verdict
}

fn failing(o: &Outcome) -> Vec<&'static str> {
    o.checks
        .iter()
        .filter(|c| !c.verdict.passed())
        .map(|c| c.spec.id)
        .collect()
}

fn the_python_reference_prints_the_lessons_figures_and_passes_every_check() {
    let o = python("referencia.py", lesson_fleet(), &[]);
    let (b, a) = (
        o.before.as_ref().unwrap().figures,
        o.after.as_ref().unwrap().figures,
    );
    assert_eq!(b.attempts, 1184);
    assert_eq!(b.charges, 1184);
    assert_eq!(b.orders_charged_twice_or_more, 146);
    assert_eq!(b.charged, Money::from_dollars(305_118));
    assert_eq!(b.intended, Money::from_dollars(256_979));
    assert_eq!(b.overcharge, Money::from_dollars(48_139));
    assert_eq!(a.attempts, 1184);
    assert_eq!(a.executions, 1000);
    assert_eq!(a.charges, 1000);
    assert_eq!(a.orders_charged_twice_or_more, 0);
    assert_eq!(a.charged, Money::from_dollars(256_979));
    assert_eq!(a.overcharge, Money::ZERO);
    assert_eq!(o.checks.len(), servicio::checks::CHECKS.len());
    assert!(failing(&o).is_empty(), "{:#?}", o.checks);
    assert_eq!(o.score(), (100, 100));
}

fn a_service_that_ignores_the_key_fails_the_retry_and_the_fleet_with_keys() {
    let o = python(
        "ignora_key.py",
        small_fleet(),
        &["flota-sin-key", "flota-con-key", "reintento-mismo-cargo"],
    );
    assert_eq!(failing(&o), ["flota-con-key", "reintento-mismo-cargo"]);
    let Verdict::Failed { got, hint, .. } = verdict(&o, "reintento-mismo-cargo") else {
        panic!("{:?}", verdict(&o, "reintento-mismo-cargo"));
    };
    assert!(
        got.contains("cargos en el procesador: ch_0001, ch_0002"),
        "{got}"
    );
    assert_eq!(hint, servicio::checks::hints::STORE);
}

fn look_up_then_charge_then_store_fails_the_concurrent_checks_every_run() {
    // Three runs of the same race, side by side: the held charge makes it
    // certain in each.
    std::thread::scope(|s| {
        for _ in 0..3 {
            s.spawn(one_run);
        }
    });
    fn one_run() {
        let o = python(
            "carrera.py",
            small_fleet(),
            &[
                "reintento-mismo-cargo",
                "reintentos-concurrentes",
                "dos-instancias",
            ],
        );
        assert_eq!(
            failing(&o),
            ["reintentos-concurrentes", "dos-instancias"],
            "{:#?}",
            o.checks
        );
        let Verdict::Failed {
            got, hint, steps, ..
        } = verdict(&o, "reintentos-concurrentes")
        else {
            panic!()
        };
        // Two charges at least: the held one and the retry that looked up
        // while it was held (the third retry may arrive after the second
        // stored its result, and then replays it).
        let charges: u32 = got.split(' ').next().unwrap().parse().unwrap();
        assert!(
            charges >= 2 && got.contains(" cargo(s) en el procesador"),
            "{got}"
        );
        assert_eq!(hint, servicio::checks::hints::ATOMIC);
        assert!(
            steps.iter().any(|s| s.contains("retiene la respuesta")),
            "{steps:#?}"
        );
        // Two instances fail by the same race one process showed: not
        // "a lock inside one process", which was not observed.
        let Verdict::Failed { hint, .. } = verdict(&o, "dos-instancias") else {
            panic!()
        };
        assert_eq!(hint, servicio::checks::hints::RACE_FIRST);
    }
}

fn where_a_plain_retry_charges_again_the_harder_checks_say_so_first() {
    // A service that ignores the key: a retry alone already charges again,
    // so a race, a second process or a restart is not what the harder
    // checks observed.
    let o = python(
        "ignora_key.py",
        small_fleet(),
        &[
            "reintento-mismo-cargo",
            "otra-solicitud-422",
            "reintentos-concurrentes",
            "dos-instancias",
            "reinicio",
            "cliente-que-abandona",
        ],
    );
    let hint_of = |id: &str| match verdict(&o, id) {
        Verdict::Failed { hint, .. } => hint.clone(),
        other => panic!("{id}: {other:?}"),
    };
    assert_eq!(
        hint_of("reintento-mismo-cargo"),
        servicio::checks::hints::STORE
    );
    for id in [
        "otra-solicitud-422",
        "reintentos-concurrentes",
        "dos-instancias",
        "reinicio",
        "cliente-que-abandona",
    ] {
        assert_eq!(
            hint_of(id),
            servicio::checks::hints::PLAIN_RETRY_FIRST,
            "{id}"
        );
    }
}

fn a_store_in_memory_passes_one_process_and_fails_two_instances_and_a_restart() {
    let o = python(
        "memoria.py",
        small_fleet(),
        &[
            "reintentos-concurrentes",
            "dos-instancias",
            "reinicio",
            "cliente-que-abandona",
        ],
    );
    assert_eq!(
        failing(&o),
        ["dos-instancias", "reinicio"],
        "{:#?}",
        o.checks
    );
    let Verdict::Failed { got, hint, .. } = verdict(&o, "reinicio") else {
        panic!()
    };
    assert!(got.starts_with("2 cargo(s) en el procesador"), "{got}");
    assert_eq!(hint, servicio::checks::hints::DURABLE);
    let Verdict::Failed { hint, .. } = verdict(&o, "dos-instancias") else {
        panic!()
    };
    assert_eq!(hint, servicio::checks::hints::SHARED);
}

fn a_key_reused_with_another_amount_fails_the_422_check_only() {
    let o = python(
        "otro_monto.py",
        small_fleet(),
        &["reintento-mismo-cargo", "otra-solicitud-422"],
    );
    assert_eq!(failing(&o), ["otra-solicitud-422"]);
    let Verdict::Failed { got, .. } = verdict(&o, "otra-solicitud-422") else {
        panic!()
    };
    assert!(got.contains("con otro monto: 200 ch_"), "{got}");
    assert!(got.ends_with("cargos en el procesador: 1"), "{got}");
}

fn a_service_that_exits_or_never_answers_is_a_clear_message() {
    let exits = servicio::run(&config(
        "echo arranco mal; exit 3",
        small_fleet(),
        &["reintento-mismo-cargo"],
    ))
    .unwrap_err();
    assert!(exits.contains("terminó (con estado 3)"), "{exits}");
    assert!(exits.contains("| arranco mal"), "{exits}");
    let mut never = config("sleep 60", small_fleet(), &["reintento-mismo-cargo"]);
    never.launch.ready_within = Duration::from_millis(600);
    let started = std::time::Instant::now();
    let e = servicio::run(&never).unwrap_err();
    assert!(e.contains("no respondió 200 en GET /health en 0.6 s (--espera); lo último: nunca aceptó una conexión. No imprimió nada."), "{e}");
    // Stopped at once (SIGTERM to its group), not after its 60 s.
    assert!(started.elapsed() < Duration::from_secs(20));
    // The run's limit shorter than the wait: the wait is cut, and said so.
    let mut short = config("sleep 60", small_fleet(), &["reintento-mismo-cargo"]);
    short.run_limit = Duration::from_secs(1);
    let e = servicio::run(&short).unwrap_err();
    assert!(
        e.starts_with("se acabó el tiempo de toda la corrida (--limite-corrida, 1 s) mientras el servicio arrancaba: el servicio («sleep 60») no respondió 200 en GET /health en "),
        "{e}"
    );
    let missing = servicio::run(&config(
        "python3 no-existe.py",
        small_fleet(),
        &["reintento-mismo-cargo"],
    ))
    .unwrap_err();
    assert!(missing.contains("no-existe.py"), "{missing}");
}

fn html_huge_bodies_and_cut_connections_are_named_not_hung() {
    use servicio::checks::hints::{ANSWER, CONTRACT};
    // Side by side: each mostly waits for its service.
    std::thread::scope(|s| {
        for (mode, want, hint) in [
            ("html", "parece HTML, no JSON", CONTRACT),
            ("grande", "un cuerpo de más de 1 MiB", ANSWER),
            ("cortada", "POST /charges:", ANSWER),
        ] {
            s.spawn(move || {
                let o = python(
                    &format!("basura.py {mode}"),
                    small_fleet(),
                    &["flota-con-key", "reintento-mismo-cargo"],
                );
                let v = verdict(&o, "flota-con-key");
                let text = v.explanation().join("\n");
                assert!(!v.passed(), "{mode}");
                assert!(text.contains(want), "{mode}: {text}");
                // The hint is about the answer that came, not about the key.
                for id in ["flota-con-key", "reintento-mismo-cargo"] {
                    let Verdict::Failed { hint: got, .. } = verdict(&o, id) else {
                        panic!("{mode} {id}: {:?}", verdict(&o, id))
                    };
                    assert_eq!(got, hint, "{mode} {id}");
                }
            });
        }
    });
}

fn the_students_template_runs_from_its_servicio_toml_folder_and_is_the_before() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("../plantilla-servicio");
    let toml = std::fs::read_to_string(folder.join("servicio.toml")).unwrap();
    let command = toml
        .lines()
        .find_map(|l| l.strip_prefix("comando = \""))
        .and_then(|l| l.strip_suffix('"'))
        .unwrap();
    let mut c = config(
        command,
        small_fleet(),
        &["flota-sin-key", "reintento-mismo-cargo"],
    );
    c.launch.cwd = folder;
    let o = servicio::run(&c).unwrap();
    assert_eq!(failing(&o), ["reintento-mismo-cargo"]);
}

fn chunked_and_close_delimited_answers_are_read() {
    for mode in ["chunked", "cierre"] {
        let o = python(
            &format!("basura.py {mode}"),
            small_fleet(),
            &["flota-sin-key"],
        );
        assert!(failing(&o).is_empty(), "{mode}: {:#?}", o.checks);
        let want = judge::oracle::expect(&small_fleet()).before;
        assert_eq!(o.before.as_ref().unwrap().figures, want, "{mode}");
    }
}

fn a_slow_service_meets_the_request_limit_and_a_long_run_the_run_limit() {
    // Three runs side by side: the request limit, and the run's limit in
    // the middle of the fleet and of a check.
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut slow = config("python3 basura.py lenta", small_fleet(), &["flota-con-key"]);
            slow.launch.request_limit = Duration::from_secs(1);
            let started = std::time::Instant::now();
            let o = servicio::run(&slow).unwrap();
            let text = verdict(&o, "flota-con-key").explanation().join("\n");
            assert!(
                text.contains("obtenido: orden ord_0001: POST /charges: el servicio no respondió dentro del límite de tiempo por petición (1 s, --limite-peticion)"),
                "{text}"
            );
            assert!(
                text.contains("pista: cada request termina con una respuesta HTTP"),
                "{text}"
            );
            assert!(!text.contains("murió"), "{text}");
            assert!(started.elapsed() < Duration::from_secs(25));
        });
        // The run's end cuts the fleet's request and a check's wait for the
        // charge (10 s each, the request limit): both reported as the run's
        // limit, not as the service's mistake.
        for (only, when) in [
            ("flota-sin-key", "en medio de la flota"),
            ("cliente-que-abandona", "en medio de esta verificación"),
        ] {
            s.spawn(move || {
                let mut long = config("python3 basura.py lenta", small_fleet(), &[only]);
                long.run_limit = Duration::from_secs(4);
                let started = std::time::Instant::now();
                let o = servicio::run(&long).unwrap();
                let v = verdict(&o, only);
                let text = v.explanation().join("\n");
                assert!(
                    matches!(v, Verdict::TimedOut { limit_ms: 4000, .. }),
                    "{text}"
                );
                assert!(
                    text.contains(&format!(
                        "no terminó en 4 s y se detuvo {when}: se acabó el tiempo de toda la corrida (--limite-corrida)"
                    )),
                    "{text}"
                );
                assert!(
                    started.elapsed() < long.launch.request_limit,
                    "{only}: {:?}",
                    started.elapsed()
                );
            });
        }
    });
}

fn a_client_that_gives_up_needs_a_charge_and_an_answer_to_its_retry() {
    // A service that never answers, and one that answers 409 to everything:
    // neither charged, neither is right (0 charges is right only when the
    // charge may not have happened; here the request arrived whole).
    // Side by side: each waits for the charge as long as a request may
    // take (here 1 s).
    std::thread::scope(|s| {
        for (mode, first, retry) in [
            (
                "lenta",
                "el servicio no llamó al procesador en 1 s",
                "sin respuesta (POST /charges: el servicio no respondió dentro del límite de tiempo por petición (1 s, --limite-peticion))",
            ),
            (
                "siempre409",
                "el servicio terminó la request sin llamar al procesador",
                "409",
            ),
        ] {
            s.spawn(move || {
                let mut c = config(
                    &format!("python3 basura.py {mode}"),
                    small_fleet(),
                    &["cliente-que-abandona"],
                );
                c.launch.request_limit = Duration::from_secs(1);
                let o = servicio::run(&c).unwrap();
                let v = verdict(&o, "cliente-que-abandona");
                let text = v.explanation().join("\n");
                assert!(!v.passed(), "{mode}: {text}");
                assert!(
                    text.contains(&format!("obtenido: {first}; el reintento: {retry}")),
                    "{mode}: {text}"
                );
            });
        }
    });
}

#[cfg(target_os = "linux")]
fn as_root_the_service_runs_as_an_unprivileged_user_that_owns_its_data_dir() {
    let e = servicio::run(&config(
        "python3 quien.py",
        small_fleet(),
        &["reintento-mismo-cargo"],
    ))
    .expect_err("quien.py exits before it is ready");
    let line = e
        .lines()
        .find(|l| l.contains("uid="))
        .unwrap_or_else(|| panic!("{e}"));
    let field = |name: &str| -> String {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("{name} in {line}"))
            .to_string()
    };
    let uid: u32 = field("uid").parse().unwrap();
    let me = nix::unistd::Uid::effective();
    if me.is_root() && !judge::runner::isolation::plain_forced() {
        assert_ne!(uid, 0, "{e}");
        assert_eq!(field("dueño"), uid.to_string(), "{e}");
        assert_eq!(field("escribe_aqui"), "False", "{e}");
        let data_dir = PathBuf::from(field("data_dir"));
        assert_eq!(data_dir.parent(), Some(Path::new(&field("home"))), "{e}");
        assert_eq!(
            PathBuf::from(field("cargo_target")),
            Path::new(&field("home")).join("target"),
            "{e}"
        );
        // Only folders any user may enter, every one above them too.
        use std::os::unix::fs::PermissionsExt;
        for dir in std::env::split_paths(&field("path")) {
            for d in dir.ancestors().filter(|d| !d.as_os_str().is_empty()) {
                let mode = std::fs::metadata(d).unwrap().permissions().mode();
                assert_ne!(mode & 0o001, 0, "{} in PATH: {e}", dir.display());
            }
        }
        assert!(
            e.ends_with(&format!(
                "(tu comando corrió como el usuario sin privilegios {uid} del sandbox del kit, no como root, con HOME y DATA_DIR en una carpeta de ese usuario, el PATH sin las carpetas que ese usuario no puede abrir y a lo sumo 512 procesos)"
            )),
            "{e}"
        );
    } else {
        assert_eq!(uid, me.as_raw(), "{e}");
        assert!(!e.contains("sin privilegios"), "{e}");
    }
}

#[cfg(unix)]
fn a_service_gets_its_grace_after_sigterm_though_its_shell_dies_at_once() {
    // `sh -c "python3 apagado.py …"`: the shell, the group's leader, dies
    // at SIGTERM; the service takes half a second to shut down and leaves
    // a mark. Before, the kit saw the leader gone and sent SIGKILL at once.
    let marks = std::env::temp_dir().join(format!("kit-apagado-{}", std::process::id()));
    std::fs::create_dir_all(&marks).unwrap();
    std::fs::set_permissions(&marks, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let o = servicio::run(&config(
        &format!("python3 apagado.py {}", marks.display()),
        small_fleet(),
        &["reintento-mismo-cargo"],
    ))
    .unwrap();
    assert_eq!(failing(&o), Vec::<&str>::new());
    let left = std::fs::read_dir(&marks).unwrap().count();
    std::fs::remove_dir_all(&marks).unwrap();
    assert_eq!(left, 1, "the service's SIGTERM handler did not finish");
}

fn a_store_outside_data_dir_is_named_by_the_charge_ids_the_processor_never_made() {
    // The reference's database in a folder of its own: the first run
    // passes; the second finds the first's keys and answers their charge
    // ids without calling the processor. The hint says what was observed
    // (no wait of 10 s for a charge that is not coming).
    let store = std::env::temp_dir().join(format!("kit-fuera-{}", std::process::id()));
    std::fs::create_dir_all(&store).unwrap();
    // As root the kit runs each run's service as an unprivileged user.
    #[cfg(unix)]
    std::fs::set_permissions(&store, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let checks = [
        "flota-con-key",
        "reintento-mismo-cargo",
        "reintentos-concurrentes",
        "cliente-que-abandona",
    ];
    let command = format!("python3 fuera_de_data_dir.py {}", store.display());
    let first = servicio::run(&config(&command, small_fleet(), &checks)).unwrap();
    assert_eq!(failing(&first), Vec::<&str>::new());
    let started = std::time::Instant::now();
    let second = servicio::run(&config(&command, small_fleet(), &checks)).unwrap();
    let elapsed = started.elapsed();
    std::fs::remove_dir_all(&store).unwrap();
    assert_eq!(failing(&second), checks);
    for (id, order, said) in [
        ("flota-con-key", "ord_0001", "24 intentos, 0 cargos"),
        ("reintento-mismo-cargo", "ord_9101", "primera: 200 ch_"),
        (
            "reintentos-concurrentes",
            "ord_9301",
            "el servicio terminó la request sin llamar al procesador; recibió 200 ch_",
        ),
        (
            "cliente-que-abandona",
            "ord_9401",
            "el servicio terminó la request sin llamar al procesador; el reintento: 200 ch_",
        ),
    ] {
        let Verdict::Failed { got, hint, .. } = verdict(&second, id) else {
            panic!("{id}: {:?}", verdict(&second, id))
        };
        assert!(got.contains(said), "{id}: {got}");
        assert!(
            hint.starts_with("tu servicio respondió ch_"),
            "{id}: {hint}"
        );
        assert!(
            hint.contains(&format!(
                " a {order}, pero el procesador de esta corrida nunca hizo ese cargo"
            )),
            "{id}: {hint}"
        );
        assert!(hint.contains("fuera de DATA_DIR"), "{id}: {hint}");
    }
    // Each check stopped waiting when the answer came: well under one
    // request limit (10 s) per check.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

fn deduplicating_by_order_fails_the_check_where_another_key_is_another_charge() {
    let o = python("por_orden.py", small_fleet(), &[]);
    assert_eq!(failing(&o), ["reintento-mismo-cargo"], "{:#?}", o.checks);
    let Verdict::Failed { got, hint, .. } = verdict(&o, "reintento-mismo-cargo") else {
        panic!("{:#?}", o.checks)
    };
    assert!(got.starts_with("con otra key: 200 ch_"), "{got}");
    assert!(hint.starts_with("otra key es otra operación"), "{hint}");
}

fn a_crash_costs_only_the_check_it_happened_in() {
    let o = python("se_cae.py", small_fleet(), &[]);
    assert_eq!(failing(&o), ["otra-solicitud-422"], "{:#?}", o.checks);
    let text = verdict(&o, "otra-solicitud-422").explanation().join("\n");
    assert!(
        text.starts_with(
            "el proceso murió: el servicio terminó (con estado 7) en medio de esta verificación."
        ),
        "{text}"
    );
    assert!(
        text.contains("| me caigo en vez de responder 422"),
        "{text}"
    );
}

/// The pids a `basura.py huerfanos` service says it left, from its answer.
#[cfg(target_os = "linux")]
fn orphans_named(text: &str) -> Vec<i32> {
    let list = text
        .split("\"pids\": [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .unwrap_or_else(|| panic!("no pids in {text}"));
    list.split(',').map(|p| p.trim().parse().unwrap()).collect()
}

/// A process that forks a child and exits every 2 ms, outside the
/// service's group, is gone when the service stops: three runs. (The sweep
/// that scanned all of `/proc` each time let it escape once in five, and
/// with the thousands of zombies it leaves in a longer run took minutes.)
#[cfg(target_os = "linux")]
fn a_hopper_that_forks_and_exits_every_2_ms_is_stopped_too() {
    // Each one's `/proc/PID/stat` (its state and parent), to tell.
    let hoppers = || -> Vec<String> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter(|e| {
                std::fs::read(e.path().join("cmdline"))
                    .is_ok_and(|c| c.windows(18).any(|w| w == b"basura.py\0saltarin"))
            })
            .map(|e| std::fs::read_to_string(e.path().join("stat")).unwrap_or_default())
            .collect()
    };
    for run in 0..3 {
        let o = python(
            "basura.py saltarin",
            small_fleet(),
            &["reintento-mismo-cargo"],
        );
        assert_eq!(o.checks.len(), 1, "{:#?}", o.checks);
        // One killed a moment ago may still be exiting: none left within
        // a second, and none a moment later (an escaped one never stops).
        let deadline = std::time::Instant::now() + Duration::from_secs(1);
        while !hoppers().is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(
            hoppers(),
            Vec::<String>::new(),
            "run {run}: a hopper outlived its service (the test is {})",
            std::process::id()
        );
    }
}

#[cfg(target_os = "linux")]
fn what_a_service_starts_outside_its_group_is_stopped_with_it() {
    let o = python(
        "basura.py huerfanos",
        small_fleet(),
        &["reintento-mismo-cargo"],
    );
    let text = verdict(&o, "reintento-mismo-cargo")
        .explanation()
        .join("\n");
    let pids = orphans_named(&text);
    assert_eq!(pids.len(), 2, "{text}");
    for pid in pids {
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&cmdline).contains("98765"),
            "pid {pid} ({}) outlived its service",
            String::from_utf8_lossy(&cmdline)
        );
    }
}

/// Threads per core when neither `--test-threads` nor `RUST_TEST_THREADS`
/// says otherwise: the tests mostly wait (see the module).
const THREADS_PER_CORE: usize = 4;

/// Every test of this file, named as the standard harness names them
/// (a panic fails one), each under its `#[cfg]`.
macro_rules! trials {
    ($($(#[$cfg:meta])* $name:ident,)*) => {{
        let mut trials = Vec::new();
        $(
            $(#[$cfg])*
            trials.push(Trial::test(stringify!($name), || {
                $name();
                Ok(())
            }));
        )*
        trials
    }};
}

fn main() {
    let mut args = Arguments::from_args();
    if args.test_threads.is_none() {
        args.test_threads = Some(match std::env::var("RUST_TEST_THREADS") {
            Ok(n) => match n.parse::<std::num::NonZeroUsize>() {
                Ok(n) => n.get(),
                Err(_) => panic!("RUST_TEST_THREADS is `{n}`, should be a positive integer"),
            },
            Err(_) => {
                std::thread::available_parallelism().map_or(1, usize::from) * THREADS_PER_CORE
            }
        });
    }
    let trials = trials![
        the_python_reference_prints_the_lessons_figures_and_passes_every_check,
        a_service_that_ignores_the_key_fails_the_retry_and_the_fleet_with_keys,
        look_up_then_charge_then_store_fails_the_concurrent_checks_every_run,
        where_a_plain_retry_charges_again_the_harder_checks_say_so_first,
        a_store_in_memory_passes_one_process_and_fails_two_instances_and_a_restart,
        a_key_reused_with_another_amount_fails_the_422_check_only,
        a_service_that_exits_or_never_answers_is_a_clear_message,
        html_huge_bodies_and_cut_connections_are_named_not_hung,
        the_students_template_runs_from_its_servicio_toml_folder_and_is_the_before,
        chunked_and_close_delimited_answers_are_read,
        a_slow_service_meets_the_request_limit_and_a_long_run_the_run_limit,
        a_client_that_gives_up_needs_a_charge_and_an_answer_to_its_retry,
        #[cfg(target_os = "linux")]
        as_root_the_service_runs_as_an_unprivileged_user_that_owns_its_data_dir,
        #[cfg(unix)]
        a_service_gets_its_grace_after_sigterm_though_its_shell_dies_at_once,
        a_store_outside_data_dir_is_named_by_the_charge_ids_the_processor_never_made,
        deduplicating_by_order_fails_the_check_where_another_key_is_another_charge,
        a_crash_costs_only_the_check_it_happened_in,
        #[cfg(target_os = "linux")]
        a_hopper_that_forks_and_exits_every_2_ms_is_stopped_too,
        #[cfg(target_os = "linux")]
        what_a_service_starts_outside_its_group_is_stopped_with_it,
    ];
    libtest_mimic::run(&args, trials).exit();
}
