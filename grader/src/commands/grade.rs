//! Grading (the command without a subcommand): the harness is built, every
//! check runs its jobs in harness processes, the verdicts are scored with the
//! rubric, then the report is written in the chosen format. Code that does
//! not compile is an ordinary report: score 0, the compiler's first errors.

use std::process::ExitCode;
use std::time::Instant;

use crate::cli::Cli;
use crate::commands::{chosen, fixture_message, harness_without};
use crate::report;
use crate::report::gradescope::FIXED_TIME_ENV;
use crate::report::sheet::Sheet;
use crate::verdict_cache;
use judge::checks::Catalog;
use judge::fixture;
use judge::rubric::Rubric;
use judge::runner::build::Implementation;
use judge::runner::cleanup;
use judge::runner::diagnostics::Cause;
use judge::runner::isolation::Isolation;
use judge::runner::process::HarnessProcess;
use judge::variants::Plan;
use judge::verdict::Exercise;
use judge::{grading, output, paths, policy, submission};

/// Grades the implementation `cli` chooses and writes the report
/// (`--format`, `--output`). Exit 0 when every check passed, 1 otherwise
/// (also when the code does not compile or the source policy refuses an
/// exercise), 2 for bad fixtures, rubric, variants or an `exercises`
/// manifest that depends on anything but `sim` or has a build script.
pub fn run(cli: &Cli) -> ExitCode {
    // Classroom 50's identity comes from its runner's environment: checked
    // before anything compiles.
    if cli.format == report::Format::Classroom50
        && let Err(message) = report::classroom50::Identity::from_env()
    {
        return usage_failure(&format!("--format classroom50: {message}"));
    }
    // A solved kit's report takes seconds (the large cases), a first one
    // minutes (the harness compiles): a spinner says it is at work.
    let graded = match crate::progress::Progress::while_running(
        "verificando tu código: compila el harness y corre las verificaciones (los casos grandes toman unos segundos)",
        || grade(cli),
    ) {
        Ok(g) => g,
        Err(refusal) => return refusal.exit(),
    };
    // Ctrl-C cut the checks short: no report of them.
    cleanup::unless_interrupted();
    let text = report::render(&graded.sheet, cli.format);
    match &cli.output {
        None => output::print_stdout(&text),
        Some(path) => {
            if let Err(e) = std::fs::write(path, output::strip_colours(&text)) {
                return usage_failure(&format!(
                    "--output {}: no se pudo escribir el informe: {}",
                    path.display(),
                    output::io_error(&e)
                ));
            }
        }
    }
    if graded.recalled {
        eprintln!(
            "grader: nada cambió desde el informe anterior (tu código, las opciones, los fixtures): estos son sus veredictos, sin volver a correr las verificaciones; --de-nuevo las corre otra vez (si tu código no responde siempre lo mismo, por ejemplo según el orden de un HashMap, el resultado puede cambiar)"
        );
    }
    if cli.format == report::Format::Classroom50 {
        let dir = cli.output.as_ref().and_then(|p| p.parent()).map_or_else(
            || std::path::PathBuf::from("."),
            std::path::Path::to_path_buf,
        );
        let body = dir.join("release-body.md");
        if let Err(e) = std::fs::write(&body, report::classroom50::release_body(&graded.sheet)) {
            return usage_failure(&format!(
                "{}: no se pudo escribir el informe en Markdown: {}",
                body.display(),
                output::io_error(&e)
            ));
        }
    }
    if graded.all_passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// One grading run, scored: what [`grade`] gives the report and `vigilar`.
pub struct Run {
    /// The scored checks, with the run's wall-clock time.
    pub sheet: Sheet,
    /// Whether every check passed, the bonus apart ([`Sheet::full_marks`]):
    /// the exit status is 0 then.
    pub all_passed: bool,
    /// The harness that ran the checks, for more jobs with the same build
    /// (`vigilar` runs the lesson's fleet with it); `None` when the code did
    /// not compile, and when the verdicts were reused.
    pub harness: Option<HarnessProcess>,
    /// Whether the verdicts are the last run's, reused because nothing
    /// changed ([`Setup::grade_or_recall`]).
    pub recalled: bool,
}

/// Why a run could not start: bad fixtures, rubric, variants or
/// implementation, in one Spanish line (exit status 2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal(pub String);

impl Refusal {
    /// Prints the message on stderr and gives exit status 2.
    pub fn exit(self) -> ExitCode {
        usage_failure(&self.0)
    }
}

/// Loads what [`Setup::load`] loads and grades once, or reuses the last
/// run's verdicts when nothing changed ([`Setup::grade_or_recall`]): the
/// report's run.
///
/// # Errors
/// As [`Setup::load`].
pub fn grade(cli: &Cli) -> Result<Run, Refusal> {
    Ok(Setup::load(cli)?.grade_or_recall(cli))
}

/// Everything a grading needs besides the code: the checks (the fixtures,
/// `--fixtures` and the variant plan's), the rubric and the implementation.
/// `vigilar` loads it once and grades with it after every save.
pub struct Setup {
    catalog: Catalog,
    plan: Plan,
    rubric: Rubric,
    which: Implementation,
}

/// With this variable set (to anything), a report leaves out the model
/// checks' large cases ([`Catalog::large_cases`]): the kit's own tests that
/// grade the reference only for its formats, flags or determinism set it
/// (each report would take 11 s instead of 1); nothing the kit gives a
/// student or a platform sets it, and the tests about the large cases and
/// CI's `grader --solutions` run them.
pub const NO_LARGE_CASES_ENV: &str = "KIT_SIN_CASOS_GRANDES";

impl Setup {
    /// Loads the fixtures (and `--fixtures`), the variant plan and the
    /// rubric, and checks the implementation `cli` chooses.
    ///
    /// # Errors
    /// A [`Refusal`] for bad fixtures, variants, rubric, `--solutions` in
    /// the student template or an `exercises` manifest that
    /// [`submission::refuse_manifest_of`] refuses.
    pub fn load(cli: &Cli) -> Result<Setup, Refusal> {
        let mut scenarios =
            fixture::load_all(&cli.fixtures).map_err(|e| Refusal(fixture_message(e)))?;
        let plan = plan(cli).map_err(Refusal)?;
        scenarios.extend(plan.scenarios());
        let mut catalog = Catalog::new(scenarios, &exercises(cli));
        catalog.add_model_variants(&plan.variants);
        catalog.large_cases = std::env::var_os(NO_LARGE_CASES_ENV).is_none();
        let which = chosen(cli).map_err(Refusal)?;
        submission::refuse_manifest_of(&paths::repo_root().join("exercises"), "exercises")
            .map_err(Refusal)?;
        let rubric =
            Rubric::from_option(cli.rubric.as_ref()).map_err(|e| Refusal(e.to_string()))?;
        check_rubric_ids(&rubric, &catalog.scenarios, &plan)?;
        // As root, no sandbox is a refusal of the judge's, before anything
        // compiles (not a report that blames the student's code); plain
        // (macOS, Windows, KIT_SIN_SANDBOX=1), its one line on stderr.
        Isolation::detect().map_err(Refusal)?;
        Ok(Setup {
            catalog,
            plan,
            rubric,
            which,
        })
    }

    /// The same setup without the large cases (`vigilar`'s loop:
    /// [`Catalog::large_cases`]).
    pub fn without_large_cases(mut self) -> Setup {
        self.catalog.large_cases = false;
        self
    }

    /// The checks this setup grades, in report order.
    pub fn catalog(&self) -> &Catalog {
        &self.catalog
    }

    /// Reviews the student's sources in the kit at `root`
    /// ([`policy::review`]); `--solutions` and a judge with the policy
    /// turned off review nothing.
    pub fn review(&self, root: &std::path::Path) -> policy::Review {
        match self.which {
            Implementation::Exercises if !policy::turned_off() => policy::review(root),
            _ => policy::Review::default(),
        }
    }

    /// Builds the harness of the kit at `root` without the exercises
    /// `review` refused; `None` when every graded exercise is refused
    /// (`--ejercicio cliente` with the client refused): nothing to compile.
    pub fn build(
        &self,
        cli: &Cli,
        root: &std::path::Path,
        review: &policy::Review,
    ) -> Option<Result<HarnessProcess, Cause>> {
        let refused: Vec<Exercise> = review.refused.keys().copied().collect();
        let all_refused = self
            .catalog
            .checks
            .iter()
            .all(|c| review.refuses(c.exercise));
        (!all_refused).then(|| harness_without(cli, root, self.which, &refused))
    }

    /// Reviews the student's sources ([`Setup::review`]), builds the
    /// harness without the refused exercises ([`Setup::build`]), runs every
    /// other check and scores the verdicts ([`Setup::grade_built`]).
    pub fn grade(&self, cli: &Cli) -> Run {
        self.grade_reusing(cli, false)
    }

    /// As [`Setup::grade`], reusing the verdicts of the last run when
    /// nothing they depend on changed ([`verdict_cache`]): then nothing is
    /// built or run. Verdicts that the machine cannot change are stored
    /// for the next run. The report's run (`vigilar` grades after every
    /// save and never reuses).
    pub fn grade_or_recall(&self, cli: &Cli) -> Run {
        self.grade_reusing(cli, true)
    }

    /// [`Setup::grade`], with the verdict cache when `reuse`.
    fn grade_reusing(&self, cli: &Cli, reuse: bool) -> Run {
        let started = Instant::now();
        let root = paths::repo_root();
        let review = self.review(&root);
        let options = verdict_options(cli, self.which);
        let cached = reuse && verdict_cache::applies(cli.format);
        let key_now = || {
            cached
                .then(|| verdict_cache::Key::of(options, &root, &self.catalog, &review))
                .flatten()
        };
        let key = key_now();
        // `--de-nuevo` reuses nothing, and stores under the same key.
        if !cli.again
            && let Some(graded) = key.and_then(|k| k.recall(&root, self.which, &self.catalog))
        {
            let mut run = self.score(cli, graded, None, started);
            run.recalled = true;
            return run;
        }
        let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
        let built = self.build(cli, &root, &review);
        // A build that failed may be cargo's own trouble (no network, a full
        // disk): graded again next time.
        let compiled = !matches!(built, Some(Err(_)));
        let (graded, harness) = self.graded(&review, built, workers);
        // Stored only when the sources did not change while the checks ran
        // (the key, computed again, is the same), no signal cut them short,
        // and no job timed out or died on the way (a shrink step that timed
        // out changes the counterexample without being a time-out itself).
        if let Some(k) = key
            && compiled
            && !cleanup::stopping()
            && !harness
                .as_ref()
                .is_some_and(HarnessProcess::machine_dependent)
            && key_now() == Some(k)
        {
            k.store(&root, self.which, &graded);
        }
        self.score(cli, graded, harness, started)
    }

    /// Runs and scores the checks with the harness already built (`curso`
    /// builds one per submission, in the submission's copy of the kit, and
    /// reviews it first); `started` is when the run began; `workers` checks
    /// run at a time. Code that does not compile is an ordinary run (every
    /// check [`judge::verdict::Verdict::NotCompiled`]); a refused
    /// exercise's checks are [`judge::verdict::Verdict::Refused`].
    pub fn grade_built(
        &self,
        cli: &Cli,
        review: &policy::Review,
        built: Option<Result<HarnessProcess, Cause>>,
        started: Instant,
        workers: usize,
    ) -> Run {
        let (graded, harness) = self.graded(review, built, workers);
        self.score(cli, graded, harness, started)
    }

    /// The verdicts of every check, the refused exercises' included, and
    /// the harness that ran them.
    fn graded(
        &self,
        review: &policy::Review,
        built: Option<Result<HarnessProcess, Cause>>,
        workers: usize,
    ) -> (grading::Graded, Option<HarnessProcess>) {
        let name = self.which.crate_name();
        let (mut graded, harness) = match built {
            Some(Ok(h)) => {
                let mut graded =
                    grading::grade_except(&self.catalog, &h, name, workers, &review.refused);
                grading::refuse(&mut graded, &review.unparsed_refusals());
                (graded, Some(h))
            }
            Some(Err(cause)) => (grading::not_compiled(&self.catalog, name, &cause), None),
            None => (
                grading::all_refused(&self.catalog, name, &review.refused),
                None,
            ),
        };
        grading::refuse(&mut graded, &review.refused);
        (graded, harness)
    }

    /// `graded` scored with the rubric and the variant plan; `started` is
    /// when the run began.
    fn score(
        &self,
        cli: &Cli,
        graded: grading::Graded,
        harness: Option<HarnessProcess>,
        started: Instant,
    ) -> Run {
        let mut sheet = Sheet::new(&graded, &self.rubric, &self.plan, &repro_args(cli));
        sheet.elapsed_secs = execution_time(started);
        Run {
            all_passed: sheet.full_marks(),
            sheet,
            harness,
            recalled: false,
        }
    }
}

/// Refuses a rubric that lists an id no check has (a misspelt id would
/// silently reweight the total), and warns on stderr when the points of the
/// checks that are neither hidden variants nor a bonus do not add up to 100.
///
/// # Errors
/// One line naming the rubric's file and the first unknown id.
fn check_rubric_ids(
    rubric: &Rubric,
    scenarios: &[judge::fixture::Scenario],
    plan: &Plan,
) -> Result<(), Refusal> {
    let mut all = Catalog::new(scenarios.to_vec(), &[]);
    let visible: Vec<String> = all
        .checks
        .iter()
        .filter(|c| {
            let name = c.id.split_once('/').map_or("", |(_, n)| n);
            plan.find(judge::checks::variant_name(name)).is_none()
                && !rubric.is_bonus(c.exercise.id())
        })
        .map(|c| c.id.clone())
        .collect();
    all.add_model_variants(&plan.variants);
    if let Some(id) = rubric.listed.keys().find(|id| all.find(id).is_none()) {
        return Err(Refusal(format!(
            "rúbrica {}: la verificación «{id}» no existe: ningún id del informe se escribe así (p. ej. cobro/replay-devuelve-lo-guardado, cliente/flota-1000); corrígelo o quítalo",
            rubric.source
        )));
    }
    let total: judge::rubric::Points = visible
        .iter()
        .map(|id| {
            rubric
                .listed
                .get(id)
                .map_or(rubric.unlisted.points, |e| e.points)
        })
        .sum();
    if total != judge::rubric::Points::whole(100) {
        eprintln!(
            "grader: aviso: la rúbrica {} da {total} puntos a las verificaciones (sin las variantes ocultas ni el bonus), no 100",
            rubric.source
        );
    }
    Ok(())
}

/// The exercises of `--ejercicio` (all when none), each once, in the order
/// students work through them.
pub fn exercises(cli: &Cli) -> Vec<Exercise> {
    Exercise::ALL
        .into_iter()
        .filter(|e| cli.exercises.iter().any(|name| name == e.id()))
        .collect()
}

/// The options of `cli` that can change a verdict of `which`, for the
/// verdict cache's key ([`verdict_cache::Options`] goes through the others
/// and why they are not there); the sandbox as [`Isolation::detect`] found
/// it.
fn verdict_options(cli: &Cli, which: Implementation) -> verdict_cache::Options {
    verdict_cache::Options {
        which,
        timeout: cli.timeout,
        sandboxed: judge::runner::isolation::sandboxed(),
    }
}

/// The arguments a reproduction command repeats: `--solutions` and a
/// `--timeout` other than the default.
fn repro_args(cli: &Cli) -> Vec<String> {
    let mut args = Vec::new();
    if cli.solutions {
        args.push("--solutions".to_string());
    }
    if cli.timeout.as_millis() != 5000 {
        args.push(format!("--timeout {}", cli.timeout.as_secs_f64()));
    }
    args
}

/// Whole seconds since `started`, rounded up, unless [`FIXED_TIME_ENV`]
/// fixes them: Gradescope's `execution_time` (also `servicio`'s).
pub(crate) fn execution_time(started: Instant) -> u64 {
    if let Some(fixed) = std::env::var(FIXED_TIME_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
    {
        return fixed;
    }
    started.elapsed().as_secs_f64().ceil() as u64
}

fn usage_failure(message: &str) -> ExitCode {
    eprintln!("grader: {message}");
    ExitCode::from(2)
}

/// The variants this command line grades: `--variantes N` with the seed of
/// `--semilla`, `--archivo-semilla` or the secret seed variable, plus each
/// `--variante`.
///
/// # Errors
/// As [`Plan::from_parts`].
pub fn plan(cli: &Cli) -> Result<Plan, String> {
    let secret = match cli.seed_from_file {
        Some(seed) => Some(seed.to_string()),
        None => std::env::var(judge::variants::SECRET_SEED_ENV).ok(),
    };
    Plan::from_parts(cli.variants, cli.seed, &cli.variant, secret)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn options(line: &str) -> crate::verdict_cache::Options {
        let cli = Cli::parse_from(std::iter::once("grader").chain(line.split_whitespace()));
        verdict_options(&cli, Implementation::Exercises)
    }

    /// Of the command line, only `--timeout` is a verdict option here (the
    /// graded crate comes from `--solutions` through `chosen`, the checks
    /// from the catalog): how the report is written, its rubric and
    /// `--de-nuevo` leave the key's options as they are.
    #[test]
    fn only_the_time_limit_of_the_command_line_is_a_verdict_option() {
        let base = options("");
        assert_eq!(base.timeout, std::time::Duration::from_secs(5));
        for line in [
            "--de-nuevo",
            "--no-cache",
            "--output informe.txt",
            "--formato gradescope",
            "--rubrica otra.toml",
        ] {
            assert_eq!(options(line), base, "{line}");
        }
        assert_ne!(options("--timeout 6"), base);
        assert_eq!(options("--limite 6"), options("--timeout 6"));
    }
}
