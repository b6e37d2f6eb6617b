//! `vigilar` as a student uses it: in tmux (120×50), in a copy of the kit,
//! saving the exercises from another program and pressing keys, reading the
//! screen with `capture-pane`; then `q`, Ctrl-C and SIGKILL while a hostile
//! charge runs: nothing of the grading stays (after SIGKILL, once the next
//! judge has run). Slow (the copy builds its harness after every
//! save): `cargo test -p grader --test suite vigilar:: -- --ignored --nocapture`.
#![cfg(unix)]

use crate::anidado;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// How long one screen may take to appear (a save rebuilds the harness).
const PATIENCE: Duration = Duration::from_secs(120);

/// A tmux server of its own (its own socket) running one session; killed on
/// drop, also when an assertion fails.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn cmd(&self, args: &[&str]) -> std::process::Output {
        Command::new("tmux")
            .args(["-L", &self.socket])
            .args(args)
            .output()
            .expect("tmux runs")
    }

    /// The visible screen, as text (`-e`: with its escape sequences).
    fn screen(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-t", "vigilar"];
        if escapes {
            args.push("-e");
        }
        String::from_utf8_lossy(&self.cmd(&args).stdout).into_owned()
    }

    fn keys(&self, keys: &str) {
        assert!(
            self.cmd(&["send-keys", "-t", "vigilar", keys])
                .status
                .success()
        );
    }

    fn alive(&self) -> bool {
        self.cmd(&["has-session", "-t", "vigilar"]).status.success()
    }

    /// Polls the screen until it shows every one of `texts`; prints and
    /// returns it. Panics with the last screen after [`PATIENCE`].
    fn wait_for(&self, step: &str, texts: &[&str]) -> String {
        let started = Instant::now();
        loop {
            let screen = self.screen(false);
            if texts.iter().all(|t| screen.contains(t)) {
                let trimmed: Vec<&str> = screen.trim_end().lines().collect();
                println!(
                    "---- {step} ({:.1} s) ----\n{}\n",
                    started.elapsed().as_secs_f64(),
                    trimmed.join("\n")
                );
                return screen;
            }
            assert!(
                started.elapsed() < PATIENCE && self.alive(),
                "{step}: la pantalla no mostró {texts:?} en {PATIENCE:?}:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(200));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.cmd(&["kill-server"]);
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A fresh copy of the repository's files (tracked and new, not ignored),
/// with new modification times: cargo must not take the stubs for older
/// than the previous run's build.
fn copy_kit(dest: &Path) {
    let _ = std::fs::remove_dir_all(dest);
    std::fs::create_dir_all(dest).unwrap();
    let script = r#"git ls-files -z --cached --others --exclude-standard \
        | tar --null --ignore-failed-read -T - -cf - | tar -xmf - -C "$0""#;
    let status = Command::new("sh")
        .args(["-c", script])
        .arg(dest)
        .current_dir(repo())
        .status()
        .expect("sh runs");
    assert!(status.success(), "no se pudo copiar el kit");
}

/// `file` of the copy with `stub` (its `todo!(…)`) replaced by `body`.
fn save(kit: &Path, file: &str, stub: &str, body: &str) {
    let path = kit.join(file);
    let original = std::fs::read_to_string(repo().join(file)).unwrap();
    assert!(original.contains(stub), "{file} ya no tiene {stub}");
    std::fs::write(&path, original.replace(stub, body)).unwrap();
}

const CHARGE_STUB: &str = r#"todo!("Ejercicio 1: el cobro idempotente")"#;
/// An index past the end of the empty ledger: a panic in the student's code.
const CHARGE_PANICS: &str = "self.ledger[self.ledger.len()];\n        todo!()";
const CHARGE: &str = anidado::CHARGE_BODY;

const CLIENT_STUB: &str = r#"todo!("Ejercicio 2: una idempotency key por operación")"#;
const CLIENT_BROKEN: &str = "server.charge_twice(order)";
/// The lesson 3 mistake: a new key on every attempt.
const CLIENT_KEY_PER_ATTEMPT: &str = r#"for attempt in 1..=max_attempts {
            let key = keys.new_key();
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome { attempts: attempt, confirmed: Some(result) };
            }
        }
        ChargeOutcome { attempts: max_attempts, confirmed: None }"#;
const CLIENT: &str = r#"let key = keys.new_key();
        for attempt in 1..=max_attempts {
            if let Some(result) = network.send(server, key, order.id, order.amount) {
                return ChargeOutcome { attempts: attempt, confirmed: Some(result) };
            }
        }
        ChargeOutcome { attempts: max_attempts, confirmed: None }"#;

const RECONCILE_STUB: &str = r#"todo!("Ejercicio 3: la reconciliación")"#;
const RECONCILE: &str = r#"let mut tallies: std::collections::HashMap<sim::OrderId, (sim::Money, sim::Money, u64)> =
            std::collections::HashMap::new();
        for order in orders {
            tallies.entry(order.id).or_default().0 += order.amount;
        }
        let mut r = Reconciliation::default();
        for row in ledger {
            r.charged += row.amount;
            r.charges += 1;
            match tallies.get_mut(&row.order_id) {
                Some(t) => {
                    t.1 += row.amount;
                    t.2 += 1;
                }
                None => r.unknown_order_rows += 1,
            }
        }
        for &(intended, charged, rows) in tallies.values() {
            r.intended += intended;
            r.overcharge += charged.saturating_excess(intended);
            r.undercharge += intended.saturating_excess(charged);
            match rows {
                0 => r.orders_never_charged += 1,
                1 => {}
                _ => r.orders_charged_twice_or_more += 1,
            }
        }
        r.overcharge_pct = sim::Percent::of(r.overcharge, r.intended);
        r"#;

#[test]
#[ignore = "lento: compila una copia del kit después de cada cambio; lo corre .ci/run"]
fn vigilar_follows_the_student_in_tmux() {
    let tmp = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let kit = tmp.join("kit-vigilar");
    copy_kit(&kit);
    let status_file = tmp.join("kit-vigilar-estado");
    let _ = std::fs::remove_file(&status_file);
    let tmux = Tmux {
        socket: format!("kit-vigilar-{}", std::process::id()),
    };
    let manifest = format!("CARGO_MANIFEST_DIR={}", kit.join("grader").display());
    let target = format!("CARGO_TARGET_DIR={}", anidado::target().display());
    let started = tmux.cmd(&[
        "new-session",
        "-d",
        "-s",
        "vigilar",
        "-x",
        "120",
        "-y",
        "50",
        "-c",
        kit.to_str().unwrap(),
        "env",
        "NO_COLOR=1",
        // Its student code starts a process on purpose: the clean-up is
        // tested without the source policy, which would refuse it.
        "KIT_SIN_POLITICA=1",
        &manifest,
        &target,
        "sh",
        "-c",
        r#""$0" vigilar; echo "$?" > "$1""#,
        env!("CARGO_BIN_EXE_grader"),
        status_file.to_str().unwrap(),
    ]);
    assert!(
        started.status.success(),
        "tmux new-session: {}",
        String::from_utf8_lossy(&started.stderr)
    );

    tmux.wait_for(
        "al empezar: los tres ejercicios son todo!()",
        &[
            "Progreso: … 1 cobro · … 2 cliente · … 3 reconciliacion",
            "… PENDIENTE: PaymentsServer::charge todavía es todo!()",
            "Siguiente: reemplaza el todo!() de PaymentsServer::charge",
            "Verificación n.º 1",
        ],
    );
    // Without colours the screen has no escape sequence at all.
    let raw = tmux.screen(true);
    assert!(!raw.contains("\x1b["), "NO_COLOR y hay colores:\n{raw:?}");

    save(
        &kit,
        "exercises/src/payments_server.rs",
        CHARGE_STUB,
        CHARGE_PANICS,
    );
    tmux.wait_for(
        "guardé un charge que entra en pánico",
        &[
            "Progreso: ✗ 1 cobro",
            "pánico en exercises/src/payments_server.rs",
            "index out of bounds",
        ],
    );

    save(
        &kit,
        "exercises/src/payments_server.rs",
        CHARGE_STUB,
        CHARGE,
    );
    tmux.wait_for(
        "guardé un charge correcto",
        &[
            "Progreso: ✓ 1 cobro · … 2 cliente · … 3 reconciliacion",
            "Ejercicio 2 · Una idempotency key por operación",
            "guardaste exercises/src/payments_server.rs",
        ],
    );

    save(&kit, "exercises/src/client.rs", CLIENT_STUB, CLIENT_BROKEN);
    tmux.wait_for(
        "guardé un cliente que no compila",
        &[
            "Tu código no compila",
            "charge_twice",
            "Siguiente: corrige el primer error del compilador",
        ],
    );

    save(
        &kit,
        "exercises/src/client.rs",
        CLIENT_STUB,
        CLIENT_KEY_PER_ATTEMPT,
    );
    let before = tmux.wait_for(
        "reemplacé el todo!() del cliente por una key por intento",
        &[
            "Progreso: ✓ 1 cobro · ✗ 2 cliente",
            "✗ ",
            "Siguiente: arregla «",
        ],
    );
    // The hint waits for `h`, and then it is on the screen once.
    assert!(
        !before.contains("pista:") && !before.contains("cada reintento llev"),
        "{before}"
    );
    tmux.keys("h");
    let hint = tmux.wait_for("la tecla h", &["Pista (2."]);
    assert_eq!(hint.matches("cada reintento llev").count(), 1, "{hint}");
    tmux.keys("n");
    tmux.wait_for("la tecla n", &["Ejercicio 3 · La reconciliación"]);
    tmux.keys("p");
    tmux.wait_for("la tecla p", &["Ejercicio 2 · Una idempotency key"]);

    save(&kit, "exercises/src/client.rs", CLIENT_STUB, CLIENT);
    save(
        &kit,
        "exercises/src/reconciliation.rs",
        RECONCILE_STUB,
        RECONCILE,
    );
    tmux.wait_for(
        "los tres resueltos",
        &[
            "Progreso: ✓ 1 cobro · ✓ 2 cliente · ✓ 3 reconciliacion",
            "¡Los tres ejercicios pasan!",
            "SOBRECOBRO                       : $    48,139  (18.7% de mas)",
            "Coincide con la tabla de la lección",
            "comparar: sobrecobro $48,139 (18.7%) SIN idempotencia → $0 (0.0%) CON idempotency_key",
        ],
    );

    // q while a grading runs a charge that starts a process of its own
    // (outside its process group) and never returns: vigilar ends at once,
    // and nothing of the grading stays.
    let vigilar = vigilar_pid().expect("vigilar corre");
    save(
        &kit,
        "exercises/src/payments_server.rs",
        CHARGE_STUB,
        CHARGE_LEAVES_AND_LOOPS,
    );
    wait_for_harness(vigilar, || tmux.screen(false));
    tmux.wait_for("guardé un charge que no termina", &["verificando…"]);

    tmux.keys("q");
    let quit = Instant::now();
    while tmux.alive() {
        assert!(
            quit.elapsed() < Duration::from_secs(10),
            "q no terminó vigilar"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let status = std::fs::read_to_string(&status_file).unwrap_or_default();
    assert_eq!(status.trim(), "0", "vigilar terminó con estado {status:?}");
    assert_nothing_left(vigilar);

    // Ctrl-C (SIGINT) on `cargo run -p grader` while the same charge runs:
    // the judge ends with 130 and, again, nothing of the grading stays.
    let mut judge = KillOnDrop(start_judge(&kit, &[]));
    wait_for_harness(judge.0.id(), String::new);
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(judge.0.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let status = judge.0.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{status:?}");
    assert_nothing_left(judge.0.id());

    // SIGKILL, which no judge can handle: its harnesses die with it, and the
    // next judge removes its folders and (as root) kills what they started.
    let mut judge = KillOnDrop(start_judge(&kit, &[]));
    wait_for_harness(judge.0.id(), String::new);
    judge.0.kill().unwrap();
    judge.0.wait().unwrap();
    let next = start_judge(&kit, &["--ejercicio", "reconciliacion"])
        .wait_with_output()
        .unwrap();
    assert_eq!(next.status.code(), Some(0), "{next:?}");
    assert_nothing_left(judge.0.id());
}

/// The grader on `kit`, its output discarded.
fn start_judge(kit: &Path, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_grader"))
        .arg("--raiz")
        .arg(kit)
        .args(args)
        .current_dir(kit)
        .env("NO_COLOR", "1")
        .env("KIT_SIN_POLITICA", "1")
        .env_remove("CARGO_MANIFEST_DIR")
        .env("CARGO_TARGET_DIR", anidado::target())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the grader starts")
}

/// A charge that starts `sleep 3017` in a session of its own, then never
/// returns.
const CHARGE_LEAVES_AND_LOOPS: &str = r#"let _ = std::process::Command::new("sh")
            .arg("-c")
            .arg("setsid sleep 3017 </dev/null >/dev/null 2>&1 &")
            .status();
        loop { std::hint::spin_loop() }"#;

/// Kills the child if the test fails first.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Waits until a harness of judge `pid` runs (`screen` for the message).
fn wait_for_harness(pid: u32, screen: impl Fn() -> String) {
    let waiting = Instant::now();
    while harnesses_of(pid).is_empty() {
        assert!(
            waiting.elapsed() < PATIENCE,
            "el harness del charge que no termina no arrancó:\n{}",
            screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// After judge `pid` ended: no harness of it runs, no folder of it stays in
/// the temporary folder, and (as root, where the sandbox gives every harness
/// a user of its own) nothing a harness started runs either.
fn assert_nothing_left(pid: u32) {
    let gone = Instant::now();
    while !harnesses_of(pid).is_empty() || (is_root() && !sleepers().is_empty()) {
        assert!(
            gone.elapsed() < Duration::from_secs(5),
            "quedó corriendo: harness {:?}, sleep 3017 {:?}",
            harnesses_of(pid),
            sleepers()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let left: Vec<String> = std::fs::read_dir(std::env::temp_dir())
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| {
            n.starts_with(&format!("kit-harness-bin-{pid}-"))
                || n.starts_with(&format!("kit-harness-{pid}-"))
        })
        .collect();
    assert!(
        left.is_empty(),
        "quedaron carpetas del juez {pid}: {left:?}"
    );
    if !is_root() {
        // Off root there is no sandbox: what a harness started in a session
        // of its own is out of the judge's reach.
        for pid in sleepers() {
            let _ = Command::new("kill").arg(pid.to_string()).status();
        }
    }
}

fn is_root() -> bool {
    nix::unistd::Uid::effective().is_root()
}

/// The process running this test's grader as `grader vigilar`.
fn vigilar_pid() -> Option<u32> {
    let wanted = format!("{}\0vigilar\0", env!("CARGO_BIN_EXE_grader"));
    processes().find(|&pid| {
        std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == wanted.as_bytes())
    })
}

/// Live processes (not zombies) running a harness copy of judge `pid`.
fn harnesses_of(pid: u32) -> Vec<u32> {
    let prefix = format!("kit-harness-bin-{pid}-");
    live(|p| {
        std::fs::read_link(format!("/proc/{p}/exe")).is_ok_and(|exe| {
            exe.parent()
                .and_then(|d| d.file_name())
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&prefix))
        })
    })
}

/// Live `sleep 3017` processes (what [`CHARGE_LEAVES_AND_LOOPS`] starts).
fn sleepers() -> Vec<u32> {
    live(|p| std::fs::read(format!("/proc/{p}/cmdline")).is_ok_and(|c| c == b"sleep\x003017\x00"))
}

/// Live processes (not zombies) for which `wanted` holds.
fn live(wanted: impl Fn(u32) -> bool) -> Vec<u32> {
    processes()
        .filter(|&p| wanted(p))
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|stat| {
                stat.rsplit(") ")
                    .next()
                    .is_some_and(|s| !s.starts_with('Z'))
            })
        })
        .collect()
}

fn processes() -> impl Iterator<Item = u32> {
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
}
