//! The generator: reads Kubernetes-style OpenAPI v3 documents and writes a Rust crate.
//!
//! The pipeline has one stage per concern: [`load`] reads spec files, [`build`] turns them
//! into the [`ir`] (where every name is decided), [`emit`] prints Rust from the IR, and
//! [`write`] formats the files and replaces the output folder atomically.

pub mod build;
pub mod emit;
pub mod error;
pub mod ir;
pub mod load;
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

/// The support crate of this checkout, which generated crates link to.
fn support_crate_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("support")
}

/// The workspace's own output folder: the only one generated as a workspace member.
fn workspace_generated_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join("generated")
}

/// Reads the specs, builds the IR and writes (or checks) the output crate.
///
/// Nothing is written unless every spec loads and every file is emitted.
pub fn generate(options: &Options) -> Result<Summary> {
    let started = Instant::now();
    let documents = load::load_dir(&options.specs)?;
    let api = build::build(&documents)?;
    let crate_options = crate_options(options)?;
    let files = emit::emit_crate(&api, &crate_options)?;
    let changes = if options.check {
        write::compare(&options.out, &files)?
    } else {
        write::write(&options.out, &files)?
    };
    let inline = |t: &&ir::TypeDef| t.schema_name.contains('#');
    Ok(Summary {
        documents: documents.len(),
        schemas: api.types.iter().filter(|t| !inline(t)).count(),
        types: api.types.len(),
        operations: api.operations.len(),
        resources: api.resources.len(),
        changes,
        notes: api.notes,
        elapsed: started.elapsed(),
    })
}

fn crate_options(options: &Options) -> Result<emit::CrateOptions> {
    let out = absolute(&options.out)?;
    let in_workspace = absolute(&workspace_generated_dir())? == out;
    let package_name = if in_workspace {
        "generated".to_owned()
    } else {
        let base = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let name: String =
            base.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '-' }).collect();
        let name = name.trim_matches('-').to_owned();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) { format!("api-{name}") } else { name }
    };
    let support = absolute(&support_crate_dir())?;
    let support_path = relative_path(&out, &support);
    Ok(emit::CrateOptions {
        package_name,
        support_path: support_path.to_string_lossy().replace('\\', "/"),
        standalone: !in_workspace,
        specs_label: format!("{}/", options.specs.file_name().map(|n| n.to_string_lossy()).unwrap_or_default()),
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
