//! Panics of the implementation, turned into data: a `todo!()` is
//! [`Failure::Pending`], any other panic [`Failure::Panicked`], each with the
//! location the panic hook saw.

use std::panic::{self, AssertUnwindSafe};
use std::sync::Mutex;

use protocol::Failure;

/// What the panic hook saw: message and `file:line:column`.
static LAST_PANIC: Mutex<Option<(String, String)>> = Mutex::new(None);

/// Runs `job`; a panic becomes `Err(Pending)` for a `todo!()` or
/// `Err(Panicked)` with its message and location. The default hook is
/// replaced while `job` runs, so nothing is printed for a caught panic.
pub fn catch<T>(job: impl FnOnce() -> T) -> Result<T, Failure> {
    panic::set_hook(Box::new(|info| {
        let message = if let Some(s) = info.payload().downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = info.payload().downcast_ref::<String>() {
            s.clone()
        } else {
            "(pánico sin mensaje)".to_string()
        };
        let location = info.location().map_or_else(String::new, |l| {
            format!("{}:{}:{}", source_path(l.file()), l.line(), l.column())
        });
        let mut slot = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner());
        if slot.is_none() {
            *slot = Some((message, location));
        }
    }));
    *LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner()) = None;
    let result = panic::catch_unwind(AssertUnwindSafe(job));
    let _ = panic::take_hook();
    result.map_err(|_| {
        let (message, location) = LAST_PANIC
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take()
            .unwrap_or_else(|| ("(pánico sin mensaje)".to_string(), String::new()));
        if message.starts_with("not yet implemented") {
            Failure::Pending {
                location: strip_column(&location),
            }
        } else {
            Failure::Panicked { message, location }
        }
    })
}

/// Rewrites the message and location of the panic being caught (the first
/// one the hook saw): the explorer tells its own failures in Spanish and
/// adds the schedule it was running.
#[cfg(feature = "explorar")]
pub fn rewrite(f: impl FnOnce(&mut String, &mut String)) {
    let mut slot = LAST_PANIC.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((message, location)) = slot.as_mut() {
        f(message, location);
    }
}

/// A source file's path as the judge shows it on every system, `/` between
/// its parts: on Windows rustc names a file by the path cargo gave it
/// (`exercises\src\client.rs`).
fn source_path(file: &str) -> std::borrow::Cow<'_, str> {
    if cfg!(windows) {
        file.replace('\\', "/").into()
    } else {
        file.into()
    }
}

fn strip_column(location: &str) -> String {
    match location.rsplit_once(':') {
        Some((rest, col)) if col.chars().all(|c| c.is_ascii_digit()) => rest.to_string(),
        _ => location.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn todo_is_pending_and_a_panic_keeps_its_message() {
        let pending = catch(|| -> u32 { todo!("Ejercicio 1") }).unwrap_err();
        assert!(
            // `/` between the path's parts on every system (Windows too).
            matches!(&pending, Failure::Pending { location } if *location == format!("harness/src/catch.rs:{}", line!() - 3)),
            "{pending:?}"
        );
        let v: Vec<u32> = Vec::new();
        let panicked = catch(|| v[0]).unwrap_err();
        let Failure::Panicked { message, location } = panicked else {
            panic!("not a panic")
        };
        assert_eq!(
            message,
            "index out of bounds: the len is 0 but the index is 0"
        );
        assert!(location.starts_with("harness/src/catch.rs:"), "{location}");
        assert_eq!(catch(|| 7), Ok(7));
    }
}
