//! The class run: discover, grade J at a time (builds taking turns; see
//! [`super::workspace`]), keep each record, then the gradebook and the class
//! report. And `--unir`.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use sha2::{Digest, Sha256};

use super::CursoArgs;
use super::discover::{self, Submission};
use super::record::{Record, Status};
use super::{class_report, gradebook, workspace};
use crate::cli::Cli;
use crate::commands::grade::Setup;
use crate::progress::Progress;
use crate::report::sheet::Sheet;
use judge::intake;
use judge::runner::cleanup;
use judge::runner::diagnostics::Cause;
use judge::runner::isolation::Isolation;
use judge::{output, paths};

/// The per-submission folder under SALIDA.
const SUBMISSIONS: &str = "entregas";

fn fail(message: &str) -> ExitCode {
    eprintln!("grader: {message}");
    ExitCode::from(2)
}

pub fn run(cli: &Cli, args: &CursoArgs) -> ExitCode {
    if !args.unir.is_empty() {
        return merge(&args.unir, &args.salida);
    }
    let Some(entregas) = &args.entregas else {
        return fail("curso: falta ENTREGAS (la carpeta de las entregas) o --unir");
    };
    // The rubric and the options first: a bad file leaves no SALIDA behind.
    let setup = match Setup::load(cli) {
        Ok(s) => s,
        Err(refusal) => return refusal.exit(),
    };
    if let Err(e) = std::fs::create_dir_all(args.salida.join(SUBMISSIONS)) {
        return fail(&format!(
            "--salida {}: no se pudo crear ({})",
            args.salida.display(),
            output::io_error(&e)
        ));
    }
    if let (Ok(a), Ok(b)) = (args.salida.canonicalize(), entregas.canonicalize())
        && a.starts_with(&b)
    {
        return fail(&format!(
            "--salida {}: está dentro de ENTREGAS ({}); elige otra carpeta",
            args.salida.display(),
            entregas.display()
        ));
    }
    let mut submissions = match discover::discover(entregas) {
        Ok(s) => s,
        Err(e) => return fail(&e),
    };
    if let Some((i, n)) = args.particion {
        submissions = discover::share(submissions, i, n);
    }
    let repo = paths::repo_root();
    let work_root = workspace::work_root(&repo);
    let _ = std::fs::create_dir_all(&work_root);
    let work = match tempfile::Builder::new()
        .prefix("corrida-")
        .tempdir_in(&work_root)
    {
        Ok(w) => w,
        Err(e) => {
            return fail(&format!(
                "{}: no se pudo crear la carpeta de trabajo ({})",
                work_root.display(),
                output::io_error(&e)
            ));
        }
    };
    let template = work.path().join("plantilla");
    if let Err(e) = workspace::template(&repo, &template) {
        return fail(&e);
    }
    // The shared target folder, seeded with the registry crates this judge
    // was built with (a first class run compiles only the kit's crates).
    let target = work_root.join("target");
    if let Some(own) = workspace::own_profile_dir() {
        let lock = std::fs::read_to_string(repo.join("Cargo.lock")).unwrap_or_default();
        let profile = own.file_name().map_or("debug".into(), |n| n.to_owned());
        // In a build turn: another judge (a second `curso`, or a submission
        // graded alone with this target folder) may be building into it.
        let _turn = judge::runner::build::turn_in(&target);
        workspace::seed(&own, &target.join(profile), &lock);
    }
    // The harness builds pass CARGO_TARGET_DIR on (runner::build keeps it).
    // SAFETY: set before the jobs start; the only other thread (the signal
    // handler's) never reads the environment.
    unsafe { std::env::set_var("CARGO_TARGET_DIR", &target) };

    let blank = setup
        .grade_built(
            cli,
            &judge::policy::Review::default(),
            Some(Err(Cause::Other(String::new()))),
            Instant::now(),
            1,
        )
        .sheet;
    let config = config_hash(cli, &blank);
    let jobs = args
        .trabajos
        .map_or_else(cores, usize::from)
        .min(submissions.len().max(1));
    let started = Instant::now();
    let ctx = Context {
        cli,
        setup: &setup,
        blank: &blank,
        config: &config,
        template: &template,
        salida: &args.salida,
        build_turn: Mutex::new(()),
        check_workers: (cores() / jobs).max(1),
    };
    let progress = Progress::bar(submissions.len() as u64, "Calificando el curso");
    let next = AtomicUsize::new(0);
    let resumed = AtomicUsize::new(0);
    let timings: Mutex<Vec<(String, f64)>> = Mutex::new(Vec::new());
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let graded_now: Mutex<Vec<usize>> = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for slot in 0..jobs {
            let (ctx, next, subs, progress, resumed, timings, failure, graded_now) = (
                &ctx,
                &next,
                &submissions,
                &progress,
                &resumed,
                &timings,
                &failure,
                &graded_now,
            );
            let kit = work.path().join(format!("kit-{slot}"));
            scope.spawn(move || {
                if let Err(e) = workspace::copy_tree(ctx.template, &kit) {
                    *failure.lock().unwrap_or_else(|e| e.into_inner()) = Some(e);
                    return;
                }
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some(sub) = subs.get(i) else { break };
                    let t = Instant::now();
                    let reused = ctx.one(sub, &kit, slot);
                    if reused {
                        resumed.fetch_add(1, Ordering::SeqCst);
                    } else {
                        graded_now.lock().unwrap_or_else(|e| e.into_inner()).push(i);
                    }
                    timings
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push((sub.name.clone(), t.elapsed().as_secs_f64()));
                    progress.advance(1);
                }
            });
        }
    });
    progress.finish();
    cleanup::unless_interrupted();
    if let Some(e) = failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return fail(&e);
    }
    // A check that timed out or whose process died while other submissions
    // shared the machine may be the machine's doing, not the code's: each
    // such submission is graded again alone, with every core, and that is
    // its result (every figure the class gets is the one it gets alone).
    if jobs > 1 {
        let alone = Context {
            check_workers: cores(),
            ..ctx
        };
        let kit = work.path().join("kit-0");
        let mut again = graded_now.into_inner().unwrap_or_else(|e| e.into_inner());
        again.sort_unstable();
        for i in again {
            let sub = &submissions[i];
            let dir = args.salida.join(SUBMISSIONS).join(&sub.name);
            let shaky = Record::read(&dir)
                .is_some_and(|r| matches!(r.estado, Status::TiempoAgotado | Status::Caida));
            if shaky {
                let _ = std::fs::remove_dir_all(&dir);
                alone.one(sub, &kit, 0);
            }
        }
        cleanup::unless_interrupted();
    }
    // Records of submissions no longer in ENTREGAS (or in this share) go.
    let keep: Vec<&str> = submissions.iter().map(|s| s.name.as_str()).collect();
    if let Ok(entries) = std::fs::read_dir(args.salida.join(SUBMISSIONS)) {
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if !keep.contains(&name.as_str()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    let code = write_class(&args.salida);
    let total = started.elapsed().as_secs_f64();
    let resumed = resumed.load(Ordering::SeqCst);
    // "reanudadas" only says why when there are some (a first run has
    // none, and nothing to be unchanged from).
    let resumed_words = match resumed {
        0 => "0 reanudadas".to_string(),
        1 => "1 reanudada: sin cambios desde la corrida anterior".to_string(),
        n => format!("{n} reanudadas: sin cambios desde la corrida anterior"),
    };
    eprintln!(
        "curso: {} entregas en {total:.1} s con {jobs} {} a la vez ({} {} ahora, {resumed_words}); {}",
        submissions.len(),
        if jobs == 1 { "trabajo" } else { "trabajos" },
        submissions.len() - resumed,
        if submissions.len() - resumed == 1 {
            "calificada"
        } else {
            "calificadas"
        },
        args.salida.join("libro.csv").display()
    );
    if std::env::var_os("KIT_CURSO_TIEMPOS").is_some() {
        let mut t = timings.into_inner().unwrap_or_else(|e| e.into_inner());
        t.sort_by(|a, b| a.0.cmp(&b.0));
        for (name, secs) in t {
            eprintln!("curso: {name}: {secs:.1} s");
        }
    }
    code
}

/// What every job shares.
struct Context<'a> {
    cli: &'a Cli,
    setup: &'a Setup,
    /// A sheet of the catalog with nothing run (the checks and their
    /// points), for submissions that are not graded.
    blank: &'a Sheet,
    /// The configuration's hash (judge, catalog, rubric, options).
    config: &'a str,
    template: &'a Path,
    salida: &'a Path,
    /// Held from writing a submission's files into its copy until the
    /// private copy of its built harness is taken.
    build_turn: Mutex<()>,
    /// Checks of one submission run at a time: the cores over the jobs.
    check_workers: usize,
}

impl Context<'_> {
    /// Grades `sub` in the copy `kit` (or reuses its record); whether it
    /// was reused. Never panics out: a failure is the submission's `error`.
    fn one(&self, sub: &Submission, kit: &Path, slot: usize) -> bool {
        let dir = self.salida.join(SUBMISSIONS).join(&sub.name);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.grade(sub, kit, slot, &dir)
        }));
        let (record, reused, files) = match outcome {
            Ok(r) => r,
            Err(_) => (
                Record::ungraded(
                    &sub.name,
                    "",
                    Status::Error,
                    "el grader falló al calificar esta entrega (un error interno); vuelve a correr curso",
                    self.blank,
                    &sub.submitters,
                ),
                false,
                None,
            ),
        };
        if reused {
            return true;
        }
        cleanup::unless_interrupted();
        let _ = std::fs::remove_dir_all(&dir);
        let written = std::fs::create_dir_all(&dir).and_then(|()| {
            if let Some((json, text)) = &files {
                std::fs::write(dir.join("results.json"), json)?;
                std::fs::write(dir.join("informe.txt"), text)?;
            }
            record.write(&dir)
        });
        if let Err(e) = written {
            // A record that cannot be written (a full disk) is not kept: the
            // next run grades it again. The gradebook still lists it.
            let status = if e.kind() == std::io::ErrorKind::StorageFull {
                Status::DiscoLleno
            } else {
                Status::Error
            };
            let r = Record::ungraded(
                &sub.name,
                "",
                status,
                &format!("no se pudo guardar su resultado: {}", output::io_error(&e)),
                self.blank,
                &sub.submitters,
            );
            let _ = std::fs::create_dir_all(&dir);
            let _ = r.write(&dir);
        }
        false
    }

    /// The record of `sub`, whether it was reused, and its results.json and
    /// text report when it was graded now.
    fn grade(
        &self,
        sub: &Submission,
        kit: &Path,
        slot: usize,
        dir: &Path,
    ) -> (Record, bool, Option<(String, String)>) {
        let ungraded = |status, message: &str, hash: &str| {
            let json =
                crate::report::gradescope::unscored(&format!("{}: {message}", status_word(status)));
            let r = Record::ungraded(
                &sub.name,
                hash,
                status,
                message,
                self.blank,
                &sub.submitters,
            );
            (
                r,
                false,
                Some((json, format!("{}: {message}\n", status_word(status)))),
            )
        };
        // A zip is unpacked next to the copy, fresh for every submission.
        let unpacked = kit.with_file_name(format!("zip-{slot}"));
        let _ = std::fs::remove_dir_all(&unpacked);
        let root = if sub.zip {
            if let Err(e) = intake::unzip(&sub.path, &unpacked) {
                return ungraded(Status::Rechazada, &e, "");
            }
            unpacked.clone()
        } else {
            sub.path.clone()
        };
        let intake = match intake::take(&root) {
            Ok(i) => i,
            Err(e) => return ungraded(Status::Rechazada, &e, ""),
        };
        let _ = std::fs::remove_dir_all(&unpacked);
        let hash = content_hash(self.config, &intake);
        if let Some(old) = Record::read(dir)
            && old.huella == hash
            && dir.join("results.json").is_file()
        {
            return (old, true, None);
        }
        if intake.is_empty() {
            return ungraded(Status::SinArchivos, &intake.empty_message(), &hash);
        }
        let started = Instant::now();
        let (review, built) = {
            let _turn = self.build_turn.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) =
                workspace::reset_exercises(self.template, kit).and_then(|()| intake.write_into(kit))
            {
                let status = if e.contains("disco está lleno") {
                    Status::DiscoLleno
                } else {
                    Status::Error
                };
                return ungraded(status, &e, "");
            }
            // The source policy reads this submission's files, as alone.
            let review = self.setup.review(kit);
            let built = self.setup.build(self.cli, kit, &review);
            (review, built)
        };
        if let Some(Err(Cause::Other(log))) = &built
            && (log.contains("No space left") || log.contains("disco está lleno"))
        {
            return ungraded(Status::DiscoLleno, "el disco se llenó al compilar", "");
        }
        // About one harness process per core over the whole class: the
        // checks' time limits are wall-clock, and an overloaded machine
        // could stop a correct submission that alone would pass.
        let run = self
            .setup
            .grade_built(self.cli, &review, built, started, self.check_workers);
        // Dropping a harness ends the run's sandbox users' processes: all of
        // them, the other submissions' running checks too (as root, a
        // correct submission's checks died with SIGKILL). Here each
        // harness process's own user is already cleaned when it ends; the
        // leftovers of the whole class go when the judge exits.
        if let Some(mut h) = run.harness {
            h.isolation = Isolation::unsandboxed();
        }
        let mut sheet = run.sheet;
        // Same inputs, same bytes.
        sheet.elapsed_secs = 0;
        let json = crate::report::render(&sheet, crate::report::Format::Gradescope);
        let text =
            output::strip_colours(&crate::report::render(&sheet, crate::report::Format::Text));
        let record = Record::graded(&sub.name, &hash, &sheet, &sub.submitters);
        (record, false, Some((json, text)))
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
}

fn status_word(s: Status) -> &'static str {
    s.word()
}

/// What decides a submission's result besides its sources: this judge's
/// binary, the catalog with every check's points and visibility, and the
/// time limit.
fn config_hash(cli: &Cli, blank: &Sheet) -> String {
    let mut h = Sha256::new();
    if let Ok(exe) = std::env::current_exe()
        && let Ok(bytes) = std::fs::read(exe)
    {
        h.update(&bytes);
    }
    for row in &blank.rows {
        h.update(format!(
            "{}\0{}\0{:?}\n",
            row.check.id,
            row.max.hundredths(),
            row.visibility
        ));
    }
    h.update(format!("timeout {}\n", cli.timeout.as_millis()));
    hex(&h.finalize())
}

/// The hash of `config` and the taken sources (each path, length and
/// bytes).
fn content_hash(config: &str, intake: &intake::Intake) -> String {
    let mut h = Sha256::new();
    h.update(config.as_bytes());
    h.update(format!("{:?}\n", intake.layout));
    for (path, bytes) in &intake.files {
        h.update(format!("{path}\0{}\0", bytes.len()));
        h.update(bytes);
    }
    hex(&h.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Every record under `salida/entregas`, sorted by name.
fn records(salida: &Path) -> Vec<Record> {
    let mut out: Vec<Record> = std::fs::read_dir(salida.join(SUBMISSIONS))
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| Record::read(&e.path()))
        .collect();
    out.sort_by(|a, b| a.entrega.cmp(&b.entrega));
    out
}

/// Writes libro.csv, alumnos.csv, clase.md and clase.html of the records in
/// `salida`.
fn write_class(salida: &Path) -> ExitCode {
    let all = records(salida);
    let summary = class_report::summarize(&all);
    let files: [(&str, Result<Vec<u8>, String>); 4] = [
        (
            "libro.csv",
            gradebook::libro(&all).map_err(|e| e.to_string()),
        ),
        (
            "alumnos.csv",
            gradebook::alumnos(&all).map_err(|e| e.to_string()),
        ),
        (
            "clase.md",
            Ok(class_report::markdown(&summary).into_bytes()),
        ),
        ("clase.html", Ok(class_report::html(&summary).into_bytes())),
    ];
    for (name, bytes) in files {
        let path = salida.join(name);
        let written = bytes.and_then(|b| {
            std::fs::File::create(&path)
                .and_then(|mut f| f.write_all(&b))
                .map_err(|e| output::io_error(&e))
        });
        if let Err(e) = written {
            return fail(&format!("{}: no se pudo escribir ({e})", path.display()));
        }
    }
    ExitCode::SUCCESS
}

/// `--unir`: copies every share's `entregas/` into `salida` and writes the
/// gradebook and class report of them all.
fn merge(shares: &[PathBuf], salida: &Path) -> ExitCode {
    let dest = salida.join(SUBMISSIONS);
    if let Err(e) = std::fs::create_dir_all(&dest) {
        return fail(&format!(
            "--salida {}: {}",
            salida.display(),
            output::io_error(&e)
        ));
    }
    for share in shares {
        let from = share.join(SUBMISSIONS);
        let Ok(entries) = std::fs::read_dir(&from) else {
            return fail(&format!(
                "--unir {}: no es la SALIDA de un curso (le falta {SUBMISSIONS}/)",
                share.display()
            ));
        };
        for e in entries.flatten() {
            let to = dest.join(e.file_name());
            if share.canonicalize().ok() == salida.canonicalize().ok() {
                continue;
            }
            if Record::read(&e.path()).is_none() {
                return fail(&format!(
                    "--unir {}: {} no tiene {}",
                    share.display(),
                    e.path().display(),
                    super::record::RECORD
                ));
            }
            let _ = std::fs::remove_dir_all(&to);
            if let Err(msg) = workspace::copy_tree(&e.path(), &to) {
                return fail(&msg);
            }
        }
    }
    let code = write_class(salida);
    eprintln!(
        "curso --unir: {} entregas de {} partes; {}",
        records(salida).len(),
        shares.len(),
        salida.join("libro.csv").display()
    );
    code
}
