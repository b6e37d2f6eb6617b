//! The first compiler errors of a failed `cargo build --message-format=json`,
//! as the student should read them: rustc's own rendering, with paths made
//! relative to the repository.

/// At most this many errors are shown.
pub const MAX_ERRORS: usize = 3;
/// At most this many lines of one error (or of cargo's log) are shown.
pub const MAX_LINES: usize = 30;

/// Why the harness could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Cause {
    /// rustc reported errors: the text of the first ones.
    Compile(Vec<String>),
    /// No compiler error was found (a broken manifest, a missing tool…):
    /// the relevant lines of cargo's log.
    Other(String),
}

/// The cause of a failed build: the compiler errors in `json` (cargo's
/// JSON messages, one per line), or else the error lines of `log` (cargo's
/// standard error). Every occurrence of `root` (with a trailing `/`) is
/// removed, so paths read relative to the repository.
pub fn cause(json: &str, log: &str, root: &str) -> Cause {
    let errors: Vec<String> = json
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|m| m["reason"] == "compiler-message" && m["message"]["level"] == "error")
        .filter(|m| {
            let text = m["message"]["message"].as_str().unwrap_or("");
            !text.starts_with("aborting due to")
        })
        .filter_map(|m| m["message"]["rendered"].as_str().map(str::to_string))
        .take(MAX_ERRORS)
        .map(|r| clip(&relative(&r, root)))
        .collect();
    if !errors.is_empty() {
        return Cause::Compile(errors);
    }
    let excerpt = log_excerpt(log, root);
    Cause::Other(if excerpt.is_empty() {
        "cargo no dio más detalles".to_string()
    } else {
        excerpt
    })
}

/// The relevant lines of a log (`cargo`'s or the grader's standard error):
/// without cargo's progress lines and blank lines, paths relative to `root`,
/// at most [`MAX_LINES`] lines; empty when nothing is left.
pub fn log_excerpt(log: &str, root: &str) -> String {
    let noise = [
        "Compiling ",
        "Checking ",
        "Blocking ",
        "Downloaded ",
        "Downloading ",
        "Updating ",
        "Locking ",
        "Finished ",
        "Fresh ",
    ];
    let kept: Vec<&str> = log
        .lines()
        .filter(|l| !noise.iter().any(|n| l.trim_start().starts_with(n)))
        .filter(|l| !l.trim().is_empty())
        .collect();
    clip(&relative(&kept.join("\n"), root))
}

/// `text` without the prefix `root/` anywhere.
pub fn relative(text: &str, root: &str) -> String {
    let root = root.trim_end_matches('/');
    if root.is_empty() {
        return text.to_string();
    }
    text.replace(&format!("{root}/"), "")
}

/// At most [`MAX_LINES`] lines of `text`, trailing blank lines dropped.
fn clip(text: &str) -> String {
    let lines: Vec<&str> = text.trim_end().lines().collect();
    let mut out = lines
        .iter()
        .take(MAX_LINES)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if lines.len() > MAX_LINES {
        out.push_str(&format!("\n… ({} líneas más)", lines.len() - MAX_LINES));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(level: &str, text: &str, rendered: &str) -> String {
        serde_json::json!({
            "reason": "compiler-message",
            "package_id": "path+file:///tmp/kit/exercises#0.1.0",
            "message": { "level": level, "message": text, "rendered": rendered }
        })
        .to_string()
    }

    #[test]
    fn the_first_errors_are_kept_with_relative_paths() {
        let json = [
            r#"{"reason":"compiler-artifact","package_id":"x"}"#.to_string(),
            message(
                "warning",
                "unused variable",
                "warning: unused variable\n --> /tmp/kit/exercises/src/lib.rs:1:1\n",
            ),
            message(
                "error",
                "expected `;`",
                "error: expected `;`, found `}`\n --> /tmp/kit/exercises/src/client.rs:30:5\n",
            ),
            message(
                "error",
                "aborting due to 1 previous error",
                "error: aborting due to 1 previous error\n",
            ),
            r#"{"reason":"build-finished","success":false}"#.to_string(),
        ]
        .join("\n");
        assert_eq!(
            cause(&json, "", "/tmp/kit"),
            Cause::Compile(vec![
                "error: expected `;`, found `}`\n --> exercises/src/client.rs:30:5".to_string()
            ])
        );
    }

    #[test]
    fn at_most_three_errors() {
        let json: Vec<String> = (0..5)
            .map(|i| message("error", "e", &format!("error: número {i}\n")))
            .collect();
        match cause(&json.join("\n"), "", "/r") {
            Cause::Compile(e) => {
                assert_eq!(e, ["error: número 0", "error: número 1", "error: número 2"])
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn without_compiler_errors_the_log_explains() {
        let log = "    Blocking waiting for file lock\nerror: failed to parse manifest at `/r/exercises/Cargo.toml`\n\nCaused by:\n  TOML parse error\n";
        assert_eq!(
            cause("", log, "/r/"),
            Cause::Other(
                "error: failed to parse manifest at `exercises/Cargo.toml`\nCaused by:\n  TOML parse error"
                    .to_string()
            )
        );
        assert_eq!(
            cause("", "", "/r"),
            Cause::Other("cargo no dio más detalles".into())
        );
    }

    #[test]
    fn long_errors_are_clipped() {
        let long: String = (0..40).map(|i| format!("línea {i}\n")).collect();
        let json = message("error", "e", &long);
        match cause(&json, "", "") {
            Cause::Compile(e) => {
                assert_eq!(e[0].lines().count(), MAX_LINES + 1);
                assert!(e[0].ends_with("… (10 líneas más)"));
            }
            other => panic!("{other:?}"),
        }
    }
}
