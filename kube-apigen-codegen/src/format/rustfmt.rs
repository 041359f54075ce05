//! Running rustfmt over the files of a generated crate that need it.
//!
//! The files to format are written to a scratch folder, each under a name of its own (its
//! index and its own file name, which rustfmt's messages then show), and
//! rustfmt is given them by name with `skip_children`, so it formats exactly those files
//! without looking for the modules they declare: files that need no formatting are not
//! written at all. On this project's machines creating and deleting files costs about as
//! much as formatting them, so this matters as much as the formatting itself. When there
//! is enough text, the files are shared between several rustfmt processes run side by side.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use crate::error::{Error, Result};

/// Below this much source text per process, a second process costs more than it saves.
const BYTES_PER_PROCESS: usize = 128 * 1024;

/// rustfmt as `cargo fmt` finds it: `$RUSTFMT`, else the one beside the cargo that runs
/// the generator (which skips rustup's proxy and its start-up), else `rustfmt` on the path.
pub(super) fn program() -> OsString {
    if let Some(program) = std::env::var_os("RUSTFMT") {
        return program;
    }
    std::env::var_os("CARGO")
        .map(|cargo| Path::new(&cargo).with_file_name(format!("rustfmt{}", std::env::consts::EXE_SUFFIX)))
        .filter(|rustfmt| rustfmt.is_file())
        .map_or_else(|| "rustfmt".into(), PathBuf::into_os_string)
}

/// Formats the texts of `files` (each with its path in the crate) in place.
pub(super) fn format(files: &mut [(&Path, &mut String)]) -> Result<()> {
    if files.is_empty() {
        return Ok(());
    }
    let scratch = tempfile::tempdir().map_err(|e| Error::new(format!("cannot create a folder for rustfmt: {e}")))?;
    let mut copies = Vec::with_capacity(files.len());
    for (index, (path, text)) in files.iter().enumerate() {
        let name = path.file_name().map(|name| name.to_string_lossy()).unwrap_or_default();
        let copy = scratch.path().join(format!("{index}-{name}"));
        std::fs::write(&copy, text.as_bytes()).map_err(|e| Error::in_file(&copy, format!("cannot write: {e}")))?;
        copies.push(copy);
    }
    let policy = scratch.path().join("rustfmt.toml");
    std::fs::write(&policy, super::POLICY).map_err(|e| Error::in_file(&policy, format!("cannot write: {e}")))?;
    let sizes: Vec<usize> = files.iter().map(|(_, text)| text.len()).collect();
    let mut runs = Vec::new();
    for share in shares(&sizes) {
        match start(&policy, share.iter().map(|&index| &copies[index])) {
            Ok(run) => runs.push(run),
            Err(e) => {
                runs.into_iter().for_each(|run| drop(finish(run)));
                return Err(e);
            }
        }
    }
    // Wait for every process before reporting a failure, so none outlives the scratch folder.
    let outcomes: Vec<Result<()>> = runs.into_iter().map(finish).collect();
    outcomes.into_iter().collect::<Result<()>>()?;
    for (copy, (_, text)) in copies.iter().zip(files.iter_mut()) {
        **text = std::fs::read_to_string(copy)
            .map_err(|e| Error::in_file(copy, format!("cannot read rustfmt's output: {e}")))?;
    }
    Ok(())
}

/// The indices of the files each process formats, given their `sizes`: as many processes
/// as the text and the machine's cores call for, the files dealt out largest first to the
/// one with the least.
fn shares(sizes: &[usize]) -> Vec<Vec<usize>> {
    let total: usize = sizes.iter().sum();
    let parallelism = std::thread::available_parallelism().map_or(1, usize::from);
    let processes = (total / BYTES_PER_PROCESS).clamp(1, parallelism);
    let mut shares: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); processes];
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&index| std::cmp::Reverse(sizes[index]));
    for index in order {
        let lightest = shares.iter_mut().min_by_key(|(bytes, _)| *bytes).expect("at least one process");
        lightest.0 += sizes[index];
        lightest.1.push(index);
    }
    shares.into_iter().map(|(_, share)| share).filter(|share| !share.is_empty()).collect()
}

/// Starts rustfmt on `files`, in place, with the policy at `policy`. `skip_children` is
/// not a stable option in a configuration file, but rustfmt applies it from the command
/// line on every channel.
fn start<'a>(policy: &Path, files: impl Iterator<Item = &'a PathBuf>) -> Result<Child> {
    let program = program();
    Command::new(&program)
        .arg("--config-path")
        .arg(policy)
        .args(["--config", "skip_children=true", "--quiet"])
        .args(files)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            Error::new(format!(
                "cannot run {}: {e}; the generator formats its output with rustfmt \
                 (`rustup component add rustfmt`)",
                Path::new(&program).display()
            ))
        })
}

fn finish(run: Child) -> Result<()> {
    let output = run.wait_with_output().map_err(|e| Error::new(format!("cannot wait for rustfmt: {e}")))?;
    if !output.status.success() {
        return Err(Error::new(format!(
            "internal error: rustfmt rejected generated code: {}",
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(())
}
