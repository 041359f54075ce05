//! Writing the output folder: compare, then replace it as a whole, or only report in check mode.
//!
//! Files are never edited in place. A new tree is written beside the output folder and
//! swapped in with two renames, so a failure leaves the previous output exactly as it was.
//! Unchanged files are hard-linked into the new tree, keeping their timestamps (and cargo's
//! caches) intact; when nothing changed, nothing is touched at all.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// Entries at the top of an output folder that belong to the user, not the generator:
/// a `target/` and `Cargo.lock` from building the crate in place, and hidden files such as `.git`.
fn is_preserved(top_level_name: &str) -> bool {
    matches!(top_level_name, "target" | "Cargo.lock") || top_level_name.starts_with('.')
}

/// What a write or check found.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// Files whose content is new or different.
    pub changed: Vec<PathBuf>,
    pub unchanged: Vec<PathBuf>,
    /// Files in the output folder the generator no longer produces.
    pub removed: Vec<PathBuf>,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.changed.is_empty() && self.removed.is_empty()
    }
}

/// Compares the files with the output folder without writing anything. The files of
/// `read_from_out` had their text read from the output folder during this run (reused
/// formatting), so they are unchanged without reading them again.
pub fn compare(out: &Path, files: &BTreeMap<PathBuf, String>, read_from_out: &BTreeSet<PathBuf>) -> Result<Changes> {
    let existing = existing_files(out).map_err(|e| io_error(out, "cannot read the output folder", e))?;
    let mut changes = Changes::default();
    for (path, content) in files {
        let unchanged =
            read_from_out.contains(path) || fs::read(out.join(path)).is_ok_and(|old| old == content.as_bytes());
        if unchanged {
            changes.unchanged.push(path.clone());
        } else {
            changes.changed.push(path.clone());
        }
    }
    changes.removed = existing.into_iter().filter(|path| !files.contains_key(path)).collect();
    Ok(changes)
}

/// Makes the output folder hold exactly `files` (plus preserved entries); `read_from_out`
/// as for [`compare`].
pub fn write(out: &Path, files: &BTreeMap<PathBuf, String>, read_from_out: &BTreeSet<PathBuf>) -> Result<Changes> {
    let changes = compare(out, files, read_from_out)?;
    if changes.is_empty() {
        return Ok(changes);
    }
    let parent = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let staging = parent.join(format!(".{name}.codegen-new-{}", std::process::id()));
    let backup = parent.join(format!(".{name}.codegen-old-{}", std::process::id()));

    if let Err(e) = stage(&staging, out, files, &changes.unchanged) {
        let _ = fs::remove_dir_all(&staging);
        return Err(io_error(&staging, "cannot write the new output", e));
    }
    swap(out, &staging, &backup).map_err(|e| {
        let _ = fs::remove_dir_all(&staging);
        io_error(out, "cannot replace the output folder", e)
    })?;
    Ok(changes)
}

/// Writes the new tree into `staging`, hard-linking unchanged files from `out`.
fn stage(staging: &Path, out: &Path, files: &BTreeMap<PathBuf, String>, unchanged: &[PathBuf]) -> io::Result<()> {
    if staging.exists() {
        fs::remove_dir_all(staging)?;
    }
    let unchanged: BTreeSet<&PathBuf> = unchanged.iter().collect();
    for (path, content) in files {
        let target = staging.join(path);
        if let Some(dir) = target.parent() {
            fs::create_dir_all(dir)?;
        }
        let linked = unchanged.contains(path) && fs::hard_link(out.join(path), &target).is_ok();
        if !linked {
            fs::write(&target, content)?;
        }
    }
    Ok(())
}

/// Moves `out` aside, moves `staging` in, carries preserved entries over, drops the old tree.
fn swap(out: &Path, staging: &Path, backup: &Path) -> io::Result<()> {
    if !out.exists() {
        return fs::rename(staging, out);
    }
    fs::rename(out, backup)?;
    if let Err(e) = fs::rename(staging, out) {
        fs::rename(backup, out)?;
        return Err(e);
    }
    for entry in fs::read_dir(backup)? {
        let entry = entry?;
        if is_preserved(&entry.file_name().to_string_lossy()) {
            fs::rename(entry.path(), out.join(entry.file_name()))?;
        }
    }
    fs::remove_dir_all(backup)
}

/// Every generator-owned file under `out`, relative to it, sorted.
fn existing_files(out: &Path) -> io::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    if !out.exists() {
        return Ok(files);
    }
    let mut pending = vec![PathBuf::new()];
    while let Some(relative) = pending.pop() {
        for entry in fs::read_dir(out.join(&relative))? {
            let entry = entry?;
            let name = entry.file_name();
            if relative.as_os_str().is_empty() && is_preserved(&name.to_string_lossy()) {
                continue;
            }
            let path = relative.join(&name);
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

fn io_error(path: &Path, what: &str, error: io::Error) -> Error {
    Error::in_file(path, format!("{what}: {error}"))
}
