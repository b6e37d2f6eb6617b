//! `grader servicio` (issue 29): the final project's "después" measured on
//! the student's real payments service over HTTP ([`servicio`]), printed
//! with `comparar`'s own table ([`comparison::render`]) and the contract's
//! checks. Behind the `servicio` feature: a student's first build compiles
//! no HTTP code.
//!
//! Exit status: 0 every check passed, 1 one failed, 2 the service could not
//! be run (bad command, never ready) or bad arguments. A service that could
//! not be run still gets the platform's report (Gradescope, Classroom 50,
//! JSON, JUnit): every check failed with the reason.

use std::process::ExitCode;

use crate::cli::{Cli, ServicioArgs};

/// Runs `servicio`.
pub fn run(cli: &Cli, args: &ServicioArgs) -> ExitCode {
    #[cfg(feature = "servicio")]
    {
        imp::run(cli, args)
    }
    #[cfg(not(feature = "servicio"))]
    {
        let _ = (cli, args);
        eprintln!(
            "grader: este juez se compiló sin `servicio`; pídelo con `cargo run -p grader --features servicio -- servicio --comando \"python3 app.py\"`"
        );
        ExitCode::from(2)
    }
}

#[cfg(feature = "servicio")]
mod imp {
    use std::path::{Path, PathBuf};
    use std::process::ExitCode;

    use judge::output;
    use servicio::process::Launch;

    use crate::before_after::comparison::{self, Worlds};
    use crate::before_after::fleet;
    use crate::cli::{Cli, ServicioArgs};

    pub fn run(cli: &Cli, args: &ServicioArgs) -> ExitCode {
        match go(cli, args) {
            Ok(code) => code,
            Err(message) => {
                eprintln!("grader: {message}");
                ExitCode::from(2)
            }
        }
    }

    fn go(cli: &Cli, args: &ServicioArgs) -> Result<ExitCode, String> {
        // What a judge killed with SIGKILL left: its folders and, as root,
        // every process of its sandbox's users (a service still running).
        judge::runner::cleanup::remove_stale();
        if args.junit && !cfg!(feature = "junit") {
            return Err(
                "--junit necesita un juez compilado con `--features servicio,junit`".into(),
            );
        }
        // Classroom 50's identity comes from its runner's environment:
        // checked before the service starts.
        let who = if args.classroom50 {
            Some(
                crate::report::classroom50::Identity::from_env()
                    .map_err(|e| format!("--classroom50: {e}"))?,
            )
        } else {
            None
        };
        let scenario = fleet::load(args.escenario.as_deref(), &cli.fixtures, &args.flota)?;
        for id in &args.verificaciones {
            if servicio::checks::spec(id).is_none() {
                let ids: Vec<&str> = servicio::checks::CHECKS.iter().map(|c| c.id).collect();
                return Err(format!(
                    "--verificacion {id}: no existe; se permiten: {}",
                    ids.join(", ")
                ));
            }
        }
        let cwd = match &args.carpeta {
            Some(c) if !c.is_dir() => {
                let what = if c.exists() {
                    "no es una carpeta"
                } else {
                    "la carpeta no existe"
                };
                return Err(format!(
                    "--carpeta {}: {what}; se espera la carpeta de tu servicio (donde corre el comando y está servicio.toml)",
                    c.display()
                ));
            }
            Some(c) => c.clone(),
            None => std::env::current_dir().map_err(|e| {
                format!(
                    "no se pudo leer la carpeta actual: {}",
                    output::io_error(&e)
                )
            })?,
        };
        // Without a command (servicio.toml missing or malformed) nothing
        // runs; a platform's report still says why (below).
        let found = command_of(args, &cwd);
        let (command, source) = match &found {
            Ok(found) => found.clone(),
            Err(_) => (String::new(), "sin comando (servicio.toml)".to_string()),
        };
        let launch = Launch {
            command,
            cwd,
            ready_within: args.espera,
            request_limit: args.limite_peticion,
        };
        let config = servicio::Config {
            launch,
            fleet: scenario.fleet.clone(),
            run_limit: args.limite_corrida,
            only: args.verificaciones.clone(),
        };
        let message = format!("jugando la flota y las verificaciones contra {source}");
        let started = std::time::Instant::now();
        let outcome = match found {
            Err(e) => Err(e),
            Ok(_) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::progress::Progress::while_running(&message, || servicio::run(&config))
            }))
            .map_err(|_| "el kit falló al calificar el servicio".to_string())?,
        };
        // A service that never started (or had no command): exit 2, but a
        // platform's report still tells the student why (every check
        // failed with the reason).
        let machine = args.json || args.junit || args.gradescope || who.is_some();
        let (outcome, unstarted) = match outcome {
            Ok(o) => (o, false),
            Err(message) if machine => {
                eprintln!("grader: {message}");
                (servicio::unstarted(&config, &message), true)
            }
            Err(message) => return Err(message),
        };
        judge::runner::cleanup::unless_interrupted();
        for (name, w) in [("antes", &outcome.before), ("después", &outcome.after)] {
            if let Some(w) = w {
                let requests = w.figures.attempts;
                let per_second = requests as f64 / w.seconds.max(1e-9);
                eprintln!(
                    "grader: {name}: {} requests en {:.2} s ({per_second:.0} requests/s){}",
                    sim::money::group_thousands(requests),
                    w.seconds,
                    // Slower than a database on every request explains.
                    if per_second < 50.0 {
                        "; por debajo de 50 requests/s, mira «Cuánto tarda» en docs/src/estudiantes/servicio.md (dos trampas de 40 ms por request)"
                    } else {
                        ""
                    }
                );
            }
        }
        let worlds = match (&outcome.before, &outcome.after) {
            (Some(b), Some(a)) => Some(Worlds {
                before: b.figures,
                after: a.figures,
            }),
            _ => None,
        };
        let repro = |id: &str| repro_command(id);
        let label = format!("el servicio {source}");
        let table = match &worlds {
            Some(w) => comparison::render(&scenario, &label, w),
            None if !unstarted => missing_table(&outcome, &config),
            None => String::new(),
        };
        let report = || {
            let mut text = table.clone();
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&servicio::report::text(&outcome, &source, &repro));
            text
        };
        let text = if args.json {
            let mut value = match &worlds {
                Some(w) => comparison::to_json(&scenario, &label, w),
                None => serde_json::json!({}),
            };
            value["verificaciones"] = servicio::report::json_checks(&outcome);
            serde_json::to_string_pretty(&value).unwrap_or_default() + "\n"
        } else if args.junit {
            junit(&outcome, &repro)
        } else if args.gradescope {
            servicio::report::gradescope(
                &outcome,
                &table,
                &repro,
                crate::commands::grade::execution_time(started),
            )
        } else if let Some(who) = &who {
            let body = crate::report::classroom50::servicio_release_body(&outcome, &report());
            std::fs::write("release-body.md", body).map_err(|e| {
                format!(
                    "release-body.md: no se pudo escribir el informe en Markdown: {}",
                    output::io_error(&e)
                )
            })?;
            crate::report::classroom50::servicio(&outcome, who, &repro)
        } else {
            report()
        };
        if let Some(path) = &args.html {
            let page = servicio::html::page(&outcome, &table, &source);
            std::fs::write(path, page).map_err(|e| {
                format!(
                    "no se pudo escribir {}: {}",
                    path.display(),
                    output::io_error(&e)
                )
            })?;
        }
        output::print_stdout(&text);
        Ok(if unstarted {
            ExitCode::from(2)
        } else if outcome.passed() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    }

    #[cfg(feature = "junit")]
    fn junit(outcome: &servicio::Outcome, repro: &dyn Fn(&str) -> String) -> String {
        crate::report::junit::servicio(outcome, repro)
    }

    #[cfg(not(feature = "junit"))]
    fn junit(_: &servicio::Outcome, _: &dyn Fn(&str) -> String) -> String {
        unreachable!("refused before running without the junit feature")
    }

    /// The command to run and how reports name it.
    fn command_of(args: &ServicioArgs, cwd: &Path) -> Result<(String, String), String> {
        if args.referencia {
            let program = build_reference()?;
            let shown = "de referencia (servicio-referencia)".to_string();
            return Ok((quote(&program.to_string_lossy()), shown));
        }
        if let Some(c) = &args.comando {
            if c.trim().is_empty() {
                return Err("--comando está vacío: pasa el comando que arranca tu servicio, p. ej. --comando \"python3 app.py\"".into());
            }
            return Ok((c.clone(), format!("«{c}»")));
        }
        let file = cwd.join("servicio.toml");
        let text = std::fs::read_to_string(&file).map_err(|_| {
            format!(
                "falta el comando del servicio: pasa --comando \"…\" o escribe {} con `comando = \"python3 app.py\"`",
                file.display()
            )
        })?;
        #[derive(serde::Deserialize)]
        #[serde(deny_unknown_fields)]
        struct File {
            comando: String,
        }
        let parsed: File = toml::from_str(&text).map_err(|e| {
            let t = judge::toml_errors::translate(&e, &text, &|_| {
                "el comando que arranca tu servicio, un texto: comando = \"python3 app.py\"".into()
            });
            let place = t
                .position
                .map(|(line, col)| format!(":{line}:{col}"))
                .unwrap_or_default();
            let field = t
                .field
                .map(|f| format!(", campo `{f}`"))
                .unwrap_or_default();
            format!(
                "{}{place}{field}: {} (se permite un solo campo: comando = \"…\", un texto)",
                file.display(),
                t.message
            )
        })?;
        if parsed.comando.trim().is_empty() {
            return Err(format!("{}: el campo comando está vacío", file.display()));
        }
        let shown = format!("«{}»", parsed.comando);
        Ok((parsed.comando, shown))
    }

    /// Builds the reference service (its own workspace, `servicio-referencia/`,
    /// into the kit's target folder) and returns its binary.
    fn build_reference() -> Result<PathBuf, String> {
        let root = judge::paths::repo_root();
        let manifest = root.join("servicio-referencia").join("Cargo.toml");
        if !manifest.is_file() {
            return Err(format!(
                "esta copia del kit no incluye el servicio de referencia ({})",
                judge::paths::display(&manifest)
            ));
        }
        let target = root.join("target").join("servicio-referencia");
        eprintln!("grader: compilando el servicio de referencia (la primera vez compila SQLite)…");
        let status = std::process::Command::new(std::env::var("CARGO").unwrap_or("cargo".into()))
            // The dev profile: SQLite's C file at -O0 compiles in ≈ 7 s of
            // CPU (-O3: ≈ 67 s) and is fast enough for the fleet.
            .args(["build", "--quiet", "--manifest-path"])
            .arg(&manifest)
            .arg("--target-dir")
            .arg(&target)
            .status()
            .map_err(|e| format!("no se pudo ejecutar cargo: {}", output::io_error(&e)))?;
        if !status.success() {
            return Err(
                "no se pudo compilar el servicio de referencia (arriba, los errores de cargo)"
                    .into(),
            );
        }
        let exe = format!("servicio-referencia{}", std::env::consts::EXE_SUFFIX);
        Ok(target.join("debug").join(exe))
    }

    /// `text` quoted for `sh` when it needs it.
    fn quote(text: &str) -> String {
        if !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@".contains(c))
        {
            text.to_string()
        } else {
            format!("'{}'", text.replace('\'', "'\\''"))
        }
    }

    /// The line in place of the before/after table when one of the two
    /// fleets did not finish: which one, and where its check says why.
    /// Nothing when no fleet was asked for or one of them was left out
    /// (`--verificacion`).
    fn missing_table(outcome: &servicio::Outcome, config: &servicio::Config) -> String {
        if !(config.wants("flota-sin-key") && config.wants("flota-con-key")) {
            return String::new();
        }
        let missing: Vec<String> = [
            (&outcome.before, "flota-sin-key", "«antes» (sin key)"),
            (&outcome.after, "flota-con-key", "«después» (con key)"),
        ]
        .into_iter()
        .filter(|(world, _, _)| world.is_none())
        .map(|(_, id, name)| format!("la flota {name} no terminó (ver {id} abajo)"))
        .collect();
        if missing.is_empty() {
            return String::new();
        }
        format!(
            "Sin la tabla del antes y el después: {}.\n",
            missing.join("; ")
        )
    }

    /// The command line that runs check `id` alone: this run's own
    /// arguments after `servicio`, without the output flags and other
    /// `--verificacion`s; on a platform (Gradescope, Classroom 50) also
    /// without `--carpeta`, the platform's folder: the student runs it in
    /// their own.
    fn repro_command(id: &str) -> String {
        let argv: Vec<String> = std::env::args().skip(1).collect();
        let start = argv
            .iter()
            .position(|a| a == "servicio" || a == "service")
            .map_or(argv.len(), |i| i + 1);
        const PLATFORMS: [&str; 4] = [
            "--gradescope",
            "--gradescope-json",
            "--classroom50",
            "--classroom-50",
        ];
        let flag = |a: &String| a.split('=').next().unwrap_or("").to_string();
        let platform = argv[start..]
            .iter()
            .any(|a| PLATFORMS.contains(&flag(a).as_str()));
        let mut kept = Vec::new();
        let mut skip_value = false;
        for a in &argv[start..] {
            if skip_value {
                skip_value = false;
                continue;
            }
            let name = flag(a);
            match name.as_str() {
                "--verificacion" | "--check" | "--html" => skip_value = !a.contains('='),
                "--carpeta" | "--dir" if platform => skip_value = !a.contains('='),
                "--json" | "--junit" => {}
                n if PLATFORMS.contains(&n) => {}
                _ => kept.push(quote(a)),
            }
        }
        kept.push("--verificacion".into());
        kept.push(id.into());
        format!(
            "cargo run -p grader --features servicio -- servicio {}",
            kept.join(" ")
        )
    }
}
