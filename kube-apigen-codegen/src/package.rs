//! What the generated crate says of itself in its `Cargo.toml`: its package (name,
//! version, edition, license, where it may be published), where its runtime comes from,
//! and whether it is a member of the workspace around it.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The version of this generator, which is the version of the runtime (`kube-apigen`) its
/// output is written for: the crates are released together.
pub const GENERATOR_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The `[package]` of the generated crate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Package {
    /// The package name; `None` names it after the output folder.
    pub name: Option<String>,
    /// The generated crate's own version.
    pub version: String,
    /// The Rust edition (`2024`).
    pub edition: String,
    /// Where it may be published.
    pub publish: Publish,
    /// An SPDX license expression.
    pub license: Option<String>,
    /// A short description of the crate.
    pub description: Option<String>,
}

impl Default for Package {
    /// Named after its folder, version 0.1.0, edition 2024, not to be published.
    fn default() -> Self {
        Package {
            name: None,
            version: "0.1.0".to_owned(),
            edition: "2024".to_owned(),
            publish: Publish::Nowhere,
            license: None,
            description: None,
        }
    }
}

/// Where the generated crate may be published (`publish` in `Cargo.toml`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Publish {
    /// `publish = false`.
    Nowhere,
    /// Any registry (no `publish` key).
    Anywhere,
    /// Only these registries (`publish = ["name", ...]`).
    Registries(Vec<String>),
}

/// Where the generated crate takes its runtime, the `kube-apigen` crate, from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runtime {
    /// From crates.io (or the registry cargo is configured with), by version requirement.
    Registry {
        /// The version requirement.
        version: String,
    },
    /// From a folder holding the `kube-apigen` crate (a checkout of its repository, for
    /// development); `version` is what cargo writes when the generated crate is published.
    Path {
        /// The folder of the `kube-apigen` crate.
        path: PathBuf,
        /// The version requirement.
        version: String,
    },
    /// From a git repository holding the `kube-apigen` crate.
    Git {
        /// The repository's URL.
        url: String,
        /// Which commit.
        reference: GitReference,
        /// The version requirement, which cargo writes when the generated crate is published.
        version: String,
    },
}

impl Default for Runtime {
    /// This generator's own version, from the registry.
    fn default() -> Self {
        Runtime::Registry { version: GENERATOR_VERSION.to_owned() }
    }
}

/// Which commit of a git runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GitReference {
    /// The head of the repository's default branch.
    DefaultBranch,
    /// The head of a branch (`branch`).
    Branch(String),
    /// A tag (`tag`).
    Tag(String),
    /// A commit, or anything git resolves to one (`rev`).
    Rev(String),
}

/// Whether the generated crate is a member of the Cargo workspace around its folder.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Membership {
    /// A member when the nearest workspace above the output folder lists it in `members`;
    /// otherwise standalone.
    #[default]
    Detect,
    /// A member: its `Cargo.toml` has no `[workspace]` of its own.
    Member,
    /// Builds on its own wherever it is: its `Cargo.toml` has an empty `[workspace]`.
    Standalone,
}

impl Package {
    /// The package name: the given one, or the output folder's name, lowercased, with
    /// every run of other characters than letters and digits as one `-` (`apis__policy__v1`
    /// is `apis-policy-v1`) and `api-` in front when it would start with a digit.
    pub fn name_for(&self, out: &Path) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
        let base = out.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let name = base
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|part| !part.is_empty())
            .map(str::to_ascii_lowercase)
            .collect::<Vec<_>>()
            .join("-");
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) { format!("api-{name}") } else { name }
    }
}

impl Runtime {
    /// The value of the `kube-apigen` dependency in the `Cargo.toml` of a crate written to
    /// `out` (absolute): a path relative to it, so that the two can move together.
    pub fn dependency(&self, out: &Path) -> Result<String> {
        Ok(match self {
            Runtime::Registry { version } => quoted(version),
            Runtime::Path { path, version } => {
                let relative = relative_path(out, &absolute(path)?);
                let path = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>();
                format!("{{ version = {}, path = {} }}", quoted(version), quoted(&path.join("/")))
            }
            Runtime::Git { url, reference, version } => {
                let reference = match reference {
                    GitReference::DefaultBranch => String::new(),
                    GitReference::Branch(branch) => format!(", branch = {}", quoted(branch)),
                    GitReference::Tag(tag) => format!(", tag = {}", quoted(tag)),
                    GitReference::Rev(rev) => format!(", rev = {}", quoted(rev)),
                };
                format!("{{ version = {}, git = {}{reference} }}", quoted(version), quoted(url))
            }
        })
    }
}

impl Membership {
    /// Whether a crate written to `out` (absolute) is a workspace member.
    pub fn is_member(self, out: &Path) -> Result<bool> {
        match self {
            Membership::Member => Ok(true),
            Membership::Standalone => Ok(false),
            Membership::Detect => listed_by_enclosing_workspace(out),
        }
    }
}

/// Whether the nearest `Cargo.toml` with a `[workspace]` above `out` lists `out` in its
/// `members` (exactly, or through a trailing `/*`) and not in its `exclude`. Cargo itself
/// takes the nearest workspace root, so a crate outside its members must be its own.
fn listed_by_enclosing_workspace(out: &Path) -> Result<bool> {
    for folder in out.ancestors().skip(1) {
        let manifest_path = folder.join("Cargo.toml");
        let Ok(text) = std::fs::read_to_string(&manifest_path) else { continue };
        let manifest: toml::Table = toml::from_str(&text)
            .map_err(|e| Error::in_file(&manifest_path, format!("cannot read the workspace manifest: {e}")))?;
        let Some(workspace) = manifest.get("workspace") else { continue };
        let listed = |key: &str| {
            workspace.get(key).and_then(toml::Value::as_array).is_some_and(|patterns| {
                patterns.iter().filter_map(toml::Value::as_str).any(|pattern| matches(folder, pattern, out))
            })
        };
        return Ok(listed("members") && !listed("exclude"));
    }
    Ok(false)
}

/// Whether the workspace member `pattern` of the workspace in `root` names `out`.
fn matches(root: &Path, pattern: &str, out: &Path) -> bool {
    match pattern.strip_suffix("/*") {
        Some(parent) => out.parent().is_some_and(|p| normalized(&root.join(parent)) == p),
        None => normalized(&root.join(pattern)) == out,
    }
}

/// A TOML basic string.
fn quoted(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}

/// An absolute, normalized path; the folder itself need not exist yet.
pub(crate) fn absolute(path: &Path) -> Result<PathBuf> {
    let joined = std::path::absolute(path).map_err(|e| Error::in_file(path, e.to_string()))?;
    Ok(normalized(&joined))
}

/// `path` without `.` and `..` components.
fn normalized(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            std::path::Component::ParentDir => {
                normal.pop();
            }
            std::path::Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_come_from_the_folder_unless_given() {
        let package = Package::default();
        assert_eq!(package.name_for(Path::new("/x/apis__policy__v1")), "apis-policy-v1");
        assert_eq!(package.name_for(Path::new("/x/1password")), "api-1password");
        let named = Package { name: Some("acme-api".into()), ..Package::default() };
        assert_eq!(named.name_for(Path::new("/x/out")), "acme-api");
    }

    #[test]
    fn runtime_dependencies() {
        let out = Path::new("/work/acme/api");
        assert_eq!(Runtime::Registry { version: "0.1.0".into() }.dependency(out).unwrap(), "\"0.1.0\"");
        let path = Runtime::Path { path: "/work/kube-apigen/kube-apigen".into(), version: "0.1.0".into() };
        assert_eq!(path.dependency(out).unwrap(), "{ version = \"0.1.0\", path = \"../../kube-apigen/kube-apigen\" }");
        let git = Runtime::Git {
            url: "https://example.com/kube-apigen.git".into(),
            reference: GitReference::Tag("v0.1.0".into()),
            version: "0.1.0".into(),
        };
        assert_eq!(
            git.dependency(out).unwrap(),
            "{ version = \"0.1.0\", git = \"https://example.com/kube-apigen.git\", tag = \"v0.1.0\" }"
        );
    }

    #[test]
    fn membership_follows_the_nearest_workspace() {
        let root = tempfile::tempdir().unwrap();
        let root_path = absolute(root.path()).unwrap();
        std::fs::write(
            root_path.join("Cargo.toml"),
            "[workspace]\nmembers = [\"api\", \"crates/*\"]\nexclude = [\"crates/skipped\"]\n",
        )
        .unwrap();
        let detect = |path: &str| Membership::Detect.is_member(&root_path.join(path)).unwrap();
        assert!(detect("api"));
        assert!(detect("crates/models"));
        assert!(!detect("crates/skipped"));
        assert!(!detect("elsewhere"));
        assert!(Membership::Member.is_member(&root_path.join("elsewhere")).unwrap());
        let outside = tempfile::tempdir().unwrap();
        assert!(!Membership::Detect.is_member(&absolute(&outside.path().join("api")).unwrap()).unwrap());
    }
}
