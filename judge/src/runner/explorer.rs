//! The explorer's harness (exercise 4's schedules, lesson 4), built the first
//! time a check asks for it: a grading run that does not reach exercise 4's
//! concurrent checks (another `--ejercicio`, a `todo!()` in
//! `AtomicPaymentsServer::charge`) never builds it, and every check of the
//! run shares the one build.

use std::sync::OnceLock;

use super::Execute;
use super::diagnostics::Cause;
use crate::verdict::Verdict;

/// What runs the explorer's jobs once built: a harness process
/// ([`super::process::HarnessProcess`]).
pub trait Built: Execute + Send + Sync {
    /// Whether a job timed out or its process died (the run's verdicts
    /// depend on the machine).
    fn machine_dependent(&self) -> bool;
    /// Ends its run: its processes stopped, its folders removed.
    fn finish(&self);
}

/// How to build the explorer's harness, and the one build once made.
pub struct Lazy {
    build: Box<dyn Fn() -> Result<Box<dyn Built>, Cause> + Send + Sync>,
    built: OnceLock<Result<Box<dyn Built>, Verdict>>,
}

impl std::fmt::Debug for Lazy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lazy")
            .field("built", &self.built.get().map(Result::is_ok))
            .finish_non_exhaustive()
    }
}

impl Lazy {
    /// An explorer built by `build` when first asked for.
    pub fn new<B: Built + 'static>(
        build: impl Fn() -> Result<B, Cause> + Send + Sync + 'static,
    ) -> Lazy {
        Lazy {
            build: Box::new(move || build().map(|b| Box::new(b) as Box<dyn Built>)),
            built: OnceLock::new(),
        }
    }

    /// The explorer's executor, building it on the first call (the other
    /// callers wait for that build).
    ///
    /// # Errors
    /// [`Verdict::NotCompiled`] with the compiler's first errors, or
    /// [`Verdict::Crashed`] when it could not be built at all.
    pub fn get(&self) -> Result<&dyn Execute, Verdict> {
        match self.built.get_or_init(|| (self.build)().map_err(not_built)) {
            Ok(h) => Ok(h.as_ref()),
            Err(v) => Err(v.clone()),
        }
    }

    /// Whether the explorer's harness, if built, had a job time out or its
    /// process die ([`Built::machine_dependent`]).
    pub fn machine_dependent(&self) -> bool {
        matches!(self.built.get(), Some(Ok(h)) if h.machine_dependent())
    }

    /// Ends the explorer's run if it was built ([`Built::finish`]).
    pub fn finish(&self) {
        if let Some(Ok(h)) = self.built.get() {
            h.finish();
        }
    }
}

/// The verdict of an explorer that could not be built.
fn not_built(cause: Cause) -> Verdict {
    match cause {
        Cause::Compile(errors) => Verdict::NotCompiled { errors },
        Cause::Other(log) => Verdict::Crashed {
            what: format!("no se pudo compilar el harness del explorador de horarios: {log}"),
        },
    }
}
