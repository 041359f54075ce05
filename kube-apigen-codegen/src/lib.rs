//! The generator: reads Kubernetes-style OpenAPI v3 documents and writes a Rust crate.
//!
//! The pipeline has one stage per concern: [`load`] reads spec files; [`spec`] reads
//! them into typed values (expanding CustomResourceDefinitions into the documents the API
//! server publishes, and reading the `.proto` files beside them, [`spec::proto`]); [`build`]
//! turns the spec into the [`ir`], where every name, protobuf field number and
//! decision is made; [`emit`] prints Rust from the IR; [`format`] formats it with the
//! workspace's rustfmt policy; [`write`] replaces the output folder atomically.

pub mod build;
pub mod diff;
pub mod emit;
pub mod error;
pub mod format;
pub mod ir;
pub mod load;
pub mod naming;
pub mod spec;
pub mod write;

pub use error::{Error, Result};

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What to generate and where.
#[derive(Debug, Clone)]
pub struct Options {
    pub specs: PathBuf,
    pub out: PathBuf,
    /// Compare only; write nothing.
    pub check: bool,
    /// A folder where formatting results are remembered between runs, so that files whose
    /// source did not change are taken from `out` instead of being formatted again
    /// ([`format::Reuse`]); `None` formats every file.
    pub format_cache: Option<PathBuf>,
}

/// What a run did, for the command's summary.
#[derive(Debug, Clone)]
pub struct Summary {
    pub documents: usize,
    pub schemas: usize,
    pub types: usize,
    pub operations: usize,
    pub resources: usize,
    pub changes: write::Changes,
    /// Decisions the user should know of, such as schemas merged across documents.
    pub notes: Vec<String>,
    pub elapsed: Duration,
}

/// The runtime crate of this checkout, which generated crates link to.
fn runtime_crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("kube-apigen")
}

/// The root of the checkout this generator was built from: its workspace, with the
/// runtime crate generated crates link to and the formatting policy they follow.
pub fn workspace_root() -> PathBuf {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest_dir.parent().unwrap_or(manifest_dir).to_path_buf()
}

/// Whether `out` is listed in this workspace's `members`: such a crate is generated as a
/// member; anywhere else it gets a `[workspace]` table of its own and builds on its own.
fn is_workspace_member(out: &Path) -> Result<bool> {
    let manifest_path = workspace_root().join("Cargo.toml");
    let Ok(text) = std::fs::read_to_string(&manifest_path) else { return Ok(false) };
    let manifest: toml::Table = toml::from_str(&text)
        .map_err(|e| Error::in_file(&manifest_path, format!("cannot read the workspace manifest: {e}")))?;
    let members = manifest
        .get("workspace")
        .and_then(|w| w.get("members"))
        .and_then(|m| m.as_array())
        .map(|members| members.iter().filter_map(|m| m.as_str()).collect::<Vec<_>>())
        .unwrap_or_default();
    let root = absolute(&workspace_root())?;
    for member in members {
        if absolute(&root.join(member))? == out {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Reads the specs of a folder and builds their IR, with the number of documents read.
pub fn read_api(specs: &Path) -> Result<(ir::Api, usize)> {
    let documents = load::load_dir(specs)?;
    let count = documents.len();
    let spec = spec::Spec::read(documents)?;
    let protos = spec::proto::Protos::read(specs)?;
    Ok((build::build(&spec, &protos)?, count))
}

/// Reads the specs, builds the IR and writes (or checks) the output crate.
///
/// Nothing is written unless every spec loads and every file is emitted.
pub fn generate(options: &Options) -> Result<Summary> {
    let started = Instant::now();
    let (api, document_count) = read_api(&options.specs)?;
    let crate_options = crate_options(options)?;
    let emitter = emit::Emitter::new(&api, &crate_options);
    let out = absolute(&options.out)?;
    let reuse = match &options.format_cache {
        Some(folder) => format::Reuse::load(&out, folder, &format::policy()?),
        None => None,
    };
    let files = format::format_crate(emitter.files()?, |file| emitter.emit(file), reuse.as_ref())?;
    let changes = if options.check {
        write::compare(&options.out, &files.texts, &files.reused)?
    } else {
        write::write(&options.out, &files.texts, &files.reused)?
    };
    Ok(Summary {
        documents: document_count,
        schemas: api.types.iter().filter(|t| matches!(t.origin, ir::Origin::Schema(_))).count(),
        types: api.types.len(),
        operations: api.operations,
        resources: api.resources.len(),
        changes,
        notes: api.notes,
        elapsed: started.elapsed(),
    })
}

fn crate_options(options: &Options) -> Result<emit::CrateOptions> {
    let out = absolute(&options.out)?;
    let member = is_workspace_member(&out)?;
    // The package is named after its folder: `generated/` is the package `generated`.
    let base = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    // Runs of other characters become one `-`: the crate name (`-` read as `_`) must be
    // snake case, which `apis__policy__v1` is not.
    let name = base
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|part| !part.is_empty())
        .map(str::to_ascii_lowercase)
        .collect::<Vec<_>>()
        .join("-");
    let package_name =
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) { format!("api-{name}") } else { name };
    let runtime = absolute(&runtime_crate_dir())?;
    let runtime_path = relative_path(&out, &runtime);
    Ok(emit::CrateOptions {
        package_name,
        runtime_path: runtime_path.to_string_lossy().replace('\\', "/"),
        standalone: !member,
        specs_label: format!("{}/", load::label(&options.specs).display()),
        translate_cel: true,
    })
}

/// An absolute, normalized path; the folder itself need not exist yet.
fn absolute(path: &Path) -> Result<PathBuf> {
    let joined = std::path::absolute(path).map_err(|e| Error::in_file(path, e.to_string()))?;
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    Ok(normal)
}

/// The path from folder `from` to `to`, both absolute.
fn relative_path(from: &Path, to: &Path) -> PathBuf {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = to.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut path = PathBuf::new();
    for _ in common..from.len() {
        path.push("..");
    }
    for component in &to[common..] {
        path.push(component);
    }
    path
}
