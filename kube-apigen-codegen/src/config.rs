//! `apigen.toml`: what a repository generates, read alike by the command-line tool and by
//! a repository's own `xtask` through this library.
//!
//! ```toml
//! [[crate]]
//! specs = "specs"            # folders relative to this file
//! out = "acme-api"
//! name = "acme-api"          # default: the output folder's name
//! version = "0.1.0"          # the generated crate's own version (default 0.1.0)
//! edition = "2024"
//! license = "Apache-2.0"
//! description = "The acme.example.com API"
//! publish = false            # true, or a list of registry names
//! workspace = "detect"       # "member" or "standalone"
//! apimachinery = "runtime"   # or "k8s-openapi": ObjectMeta, Time, ... from k8s-openapi (kube-rs)
//!
//! [crate.runtime]            # where `kube-apigen` comes from; default: this generator's version
//! version = "0.1.0"
//! path = "../kube-apigen/kube-apigen"     # or git = "...", with branch, tag or rev
//! ```
//!
//! A key the file does not know, or a value of the wrong type, is an error naming the
//! file, the line and column, and the key.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::error::{Error, Result};
use crate::package::{GENERATOR_VERSION, GitReference, Membership, Package, Publish, Runtime};
use crate::{Apimachinery, Options};

/// The file name the command-line tool looks for in the working directory.
pub const FILE_NAME: &str = "apigen.toml";

/// What an `apigen.toml` asks for: the crates to generate, each as [`Options`] with its
/// folders resolved against the file's folder.
#[derive(Debug, Clone)]
pub struct Config {
    /// One per `[[crate]]`, in the file's order.
    pub crates: Vec<Options>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(rename = "crate", default)]
    crates: Vec<CrateEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CrateEntry {
    specs: PathBuf,
    out: PathBuf,
    name: Option<String>,
    version: Option<String>,
    edition: Option<String>,
    license: Option<String>,
    description: Option<String>,
    publish: Option<PublishEntry>,
    #[serde(default)]
    workspace: WorkspaceEntry,
    #[serde(default)]
    apimachinery: ApimachineryEntry,
    runtime: Option<toml::Spanned<RuntimeEntry>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum PublishEntry {
    Flag(bool),
    Registries(Vec<String>),
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(rename_all = "lowercase")]
enum WorkspaceEntry {
    #[default]
    Detect,
    Member,
    Standalone,
}

#[derive(Deserialize, Default, Clone, Copy)]
#[serde(rename_all = "kebab-case")]
enum ApimachineryEntry {
    #[default]
    Runtime,
    K8sOpenapi,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RuntimeEntry {
    version: Option<String>,
    path: Option<PathBuf>,
    git: Option<String>,
    branch: Option<String>,
    tag: Option<String>,
    rev: Option<String>,
}

impl Config {
    /// Reads the file at `path`.
    pub fn read(path: &Path) -> Result<Config> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::in_file(path, format!("cannot read: {e}")))?;
        Config::parse(&text, path)
    }

    /// Parses the text of the file at `path` (which resolves its folders).
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        let file: File = toml::from_str(text).map_err(|e| {
            let position = e.span().map(|span| line_column(text, span.start));
            Error::in_file(path, e.message().trim_end()).with_position(position)
        })?;
        if file.crates.is_empty() {
            return Err(Error::in_file(path, "no [[crate]] to generate"));
        }
        let base = path.parent().unwrap_or(Path::new(""));
        let crates = file.crates.into_iter().map(|entry| entry.options(base, path, text)).collect::<Result<_>>()?;
        Ok(Config { crates })
    }
}

impl CrateEntry {
    fn options(self, base: &Path, path: &Path, text: &str) -> Result<Options> {
        let mut options = Options::new(base.join(&self.specs), base.join(&self.out));
        let defaults = Package::default();
        options.package = Package {
            name: self.name,
            version: self.version.unwrap_or(defaults.version),
            edition: self.edition.unwrap_or(defaults.edition),
            publish: match self.publish {
                None | Some(PublishEntry::Flag(false)) => Publish::Nowhere,
                Some(PublishEntry::Flag(true)) => Publish::Anywhere,
                Some(PublishEntry::Registries(names)) => Publish::Registries(names),
            },
            license: self.license,
            description: self.description,
        };
        options.membership = match self.workspace {
            WorkspaceEntry::Detect => Membership::Detect,
            WorkspaceEntry::Member => Membership::Member,
            WorkspaceEntry::Standalone => Membership::Standalone,
        };
        options.apimachinery = match self.apimachinery {
            ApimachineryEntry::Runtime => Apimachinery::Runtime,
            ApimachineryEntry::K8sOpenapi => Apimachinery::K8sOpenapi,
        };
        if let Some(runtime) = self.runtime {
            let start = runtime.span().start;
            options.runtime = runtime
                .into_inner()
                .runtime(base)
                .map_err(|message| Error::in_file(path, message).with_position(Some(line_column(text, start))))?;
        }
        Ok(options)
    }
}

impl RuntimeEntry {
    fn runtime(self, base: &Path) -> std::result::Result<Runtime, String> {
        let version = self.version.unwrap_or_else(|| GENERATOR_VERSION.to_owned());
        let references = [&self.branch, &self.tag, &self.rev].iter().filter(|r| r.is_some()).count();
        match (self.path, self.git) {
            (Some(_), Some(_)) => Err("runtime: `path` and `git` exclude each other".to_owned()),
            (_, None) if references > 0 => Err("runtime: `branch`, `tag` and `rev` need `git`".to_owned()),
            (_, Some(_)) if references > 1 => Err("runtime: at most one of `branch`, `tag` and `rev`".to_owned()),
            (Some(path), None) => Ok(Runtime::Path { path: base.join(path), version }),
            (None, Some(url)) => {
                let reference = match (self.branch, self.tag, self.rev) {
                    (Some(branch), _, _) => GitReference::Branch(branch),
                    (_, Some(tag), _) => GitReference::Tag(tag),
                    (_, _, Some(rev)) => GitReference::Rev(rev),
                    _ => GitReference::DefaultBranch,
                };
                Ok(Runtime::Git { url, reference, version })
            }
            (None, None) => Ok(Runtime::Registry { version }),
        }
    }
}

/// The 1-based line and column of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |line| line.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<Config> {
        Config::parse(text, Path::new("repo/apigen.toml"))
    }

    #[test]
    fn reads_crates_with_their_folders_relative_to_the_file() {
        let config = parse(
            "[[crate]]\nspecs = \"specs\"\nout = \"api\"\nname = \"acme-api\"\nversion = \"1.2.0\"\n\
             license = \"MIT\"\npublish = [\"acme\"]\nworkspace = \"member\"\n\
             [crate.runtime]\npath = \"../kube-apigen\"\n",
        )
        .unwrap();
        let options = &config.crates[0];
        assert_eq!(options.specs, Path::new("repo/specs"));
        assert_eq!(options.out, Path::new("repo/api"));
        assert_eq!(options.package.name.as_deref(), Some("acme-api"));
        assert_eq!(options.package.version, "1.2.0");
        assert_eq!(options.package.publish, Publish::Registries(vec!["acme".into()]));
        assert_eq!(options.membership, Membership::Member);
        assert_eq!(
            options.runtime,
            Runtime::Path { path: "repo/../kube-apigen".into(), version: GENERATOR_VERSION.into() }
        );
    }

    #[test]
    fn defaults_name_the_generators_version() {
        let options = &parse("[[crate]]\nspecs = \"s\"\nout = \"o\"\n").unwrap().crates[0];
        assert_eq!(options.runtime, Runtime::Registry { version: GENERATOR_VERSION.into() });
        assert_eq!(options.package, Package::default());
        assert_eq!(options.membership, Membership::Detect);
    }

    #[test]
    fn unknown_keys_and_wrong_values_name_the_file_line_and_key() {
        let error = parse("[[crate]]\nspecs = \"s\"\nout = \"o\"\nnaem = \"x\"\n").unwrap_err();
        assert_eq!(error.position, Some((4, 1)));
        assert!(
            error.to_string().starts_with("repo/apigen.toml:4:1: unknown field `naem`, expected one of"),
            "{error}"
        );
        let error = parse("[[crate]]\nspecs = \"s\"\nout = \"o\"\nworkspace = \"sometimes\"\n").unwrap_err();
        assert!(error.to_string().starts_with("repo/apigen.toml:4:13: unknown variant `sometimes`"), "{error}");
        let error = parse("[[crate]]\nspecs = 3\nout = \"o\"\n").unwrap_err();
        assert!(error.to_string().starts_with("repo/apigen.toml:2:9: invalid type: integer `3`"), "{error}");
        let error =
            parse("[[crate]]\nspecs = \"s\"\nout = \"o\"\n[crate.runtime]\npath = \"p\"\ngit = \"g\"\n").unwrap_err();
        assert_eq!(error.to_string(), "repo/apigen.toml:4:1: runtime: `path` and `git` exclude each other");
        assert_eq!(parse("").unwrap_err().to_string(), "repo/apigen.toml: no [[crate]] to generate");
    }
}
