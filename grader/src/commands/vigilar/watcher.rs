//! Which saves `vigilar` re-grades: file events under `exercises/src`
//! (notify), debounced so that one save, written in several steps by an
//! editor, is one event.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::event::{EventKind, ModifyKind};
use notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

/// How long a file must be quiet before its save counts.
const DEBOUNCE: Duration = Duration::from_millis(300);

/// The watcher; dropping it stops watching.
pub type Watcher = Debouncer<RecommendedWatcher, RecommendedCache>;

/// What the watcher reports.
pub enum Change {
    /// A Rust source under the folder was saved, created, renamed or removed.
    Saved(PathBuf),
    /// The operating system's file events failed (the message, in English).
    Failed(String),
}

/// Watches `dir` (recursively) and calls `send` once per debounced save of
/// a `.rs` file; a false return from `send` is ignored (the receiver has
/// gone, the program is ending).
///
/// # Errors
/// Why the operating system could not watch `dir`.
pub fn watch(
    dir: &Path,
    send: impl Fn(Change) -> bool + Send + 'static,
) -> notify::Result<Watcher> {
    let mut debouncer =
        new_debouncer(
            DEBOUNCE,
            None,
            move |result: DebounceEventResult| match result {
                Ok(events) => {
                    let mut saved: Vec<PathBuf> = events
                        .iter()
                        .filter(|e| is_save(&e.kind))
                        .flat_map(|e| e.paths.iter())
                        .filter(|p| is_source(p))
                        .cloned()
                        .collect();
                    saved.dedup();
                    if let Some(path) = saved.into_iter().next() {
                        send(Change::Saved(path));
                    }
                }
                Err(errors) => {
                    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
                    send(Change::Failed(text.join("; ")));
                }
            },
        )?;
    debouncer.watch(dir, RecursiveMode::Recursive)?;
    Ok(debouncer)
}

/// Whether an event changes a file's contents or presence. Reads, opens,
/// closes and metadata (the judge touches the sources' times when another
/// copy of the kit built last) are not saves.
fn is_save(kind: &EventKind) -> bool {
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Modify(m) => !matches!(m, ModifyKind::Metadata(_) | ModifyKind::Other),
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// The contents of every Rust source under `dir`, to tell a save that
/// changed something from one that did not (the judge itself sets the
/// sources' times when another copy of the kit built last, and the
/// operating system reports that as a modification).
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                dirs.push(path);
            } else if is_source(&path)
                && let Ok(bytes) = std::fs::read(&path)
            {
                files.insert(path, bytes);
            }
        }
    }
    files
}

/// Whether `path` differs from its contents in `snapshot` (created,
/// removed or edited).
pub fn changed(snapshot: &BTreeMap<PathBuf, Vec<u8>>, path: &Path) -> bool {
    std::fs::read(path).ok().as_ref() != snapshot.get(path)
}

/// A Rust source, not an editor's hidden swap or backup file.
fn is_source(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".rs") && !name.starts_with('.')
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify::event::{AccessKind, AccessMode, DataChange, MetadataKind};

    #[test]
    fn contents_count_and_times_do_not() {
        assert!(is_save(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(is_save(&EventKind::Create(notify::event::CreateKind::File)));
        assert!(!is_save(&EventKind::Modify(ModifyKind::Metadata(
            MetadataKind::WriteTime
        ))));
        assert!(!is_save(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
    }

    #[test]
    fn only_rust_sources_count() {
        assert!(is_source(Path::new("exercises/src/client.rs")));
        assert!(!is_source(Path::new("exercises/src/.client.rs.swp")));
        assert!(!is_source(Path::new("exercises/src/client.rs~")));
        assert!(!is_source(Path::new("exercises/src/4913")));
    }
}
