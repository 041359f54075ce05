//! The allow-list: breaking changes a project has accepted, each with its reason, in a
//! committed TOML file:
//!
//! ```toml
//! [[allow]]
//! rule = "field-removed"
//! path = "metadata.clusterName"
//! kind = "HorizontalPodAutoscaler"   # optional, as are group and version
//! reason = "never set by any server; removed upstream"
//! ```
//!
//! An entry accepts the breaking changes of its rule at its path (of its group, version
//! and kind, when it names them). Entries that accept nothing are reported, so the list
//! does not outlive the changes it was written for.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::Change;
use super::rules::{Rule, Severity};
use crate::error::{Error, Result};

/// An allow-list file, read and checked.
#[derive(Clone, Debug)]
pub struct AllowList {
    entries: Vec<Allowance>,
}

/// One accepted breaking change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Allowance {
    /// The rule of the changes it accepts.
    pub rule: Rule,
    /// The field path it accepts them at, as [`Change::path`] names it.
    pub path: String,
    /// Only changes of this group, when given.
    pub group: Option<String>,
    /// Only changes of this version, when given.
    pub version: Option<String>,
    /// Only changes of this kind, when given.
    pub kind: Option<String>,
    /// Why the changes are accepted.
    pub reason: String,
    /// Where the entry is: its file and the line of its `[[allow]]`.
    pub file: PathBuf,
    /// The line of its `[[allow]]`.
    pub line: usize,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    allow: Vec<Spanned<Entry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    rule: String,
    path: String,
    group: Option<String>,
    version: Option<String>,
    kind: Option<String>,
    reason: String,
}

impl AllowList {
    /// Reads the allow-list file at `file`.
    pub fn read(file: &Path) -> Result<AllowList> {
        let text = std::fs::read_to_string(file).map_err(|e| Error::in_file(file, format!("cannot read: {e}")))?;
        AllowList::parse(file, &text)
    }

    /// Reads the text of an allow-list file; errors name `file` with a line and column.
    pub fn parse(file: &Path, text: &str) -> Result<AllowList> {
        let at = |offset: usize| {
            let before = &text[..offset.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            Some((line, column))
        };
        let parsed: File = toml::from_str(text).map_err(|e| {
            let message = format!("invalid allow-list: {}", e.message().trim_end());
            Error::in_file(file, message).with_position(e.span().and_then(|span| at(span.start)))
        })?;
        let mut entries = Vec::with_capacity(parsed.allow.len());
        for entry in parsed.allow {
            let position = at(entry.span().start);
            let entry = entry.into_inner();
            let problem = |message: String| Error::in_file(file, message).with_position(position);
            let rule = Rule::from_id(&entry.rule).ok_or_else(|| problem(format!("unknown rule {:?}", entry.rule)))?;
            if entry.reason.trim().is_empty() {
                return Err(problem("an allow-list entry needs a reason".to_owned()));
            }
            entries.push(Allowance {
                rule,
                path: entry.path,
                group: entry.group,
                version: entry.version,
                kind: entry.kind,
                reason: entry.reason,
                file: file.to_path_buf(),
                line: position.map_or(0, |(line, _)| line),
            });
        }
        Ok(AllowList { entries })
    }

    /// Marks the breaking changes the list accepts, and returns its entries that accept none.
    pub fn apply(&self, changes: &mut [Change]) -> Vec<Allowance> {
        let mut unmatched = Vec::new();
        for entry in &self.entries {
            let mut matched = false;
            for change in changes.iter_mut().filter(|change| entry.accepts(change)) {
                change.allowed.get_or_insert_with(|| entry.reason.clone());
                matched = true;
            }
            if !matched {
                unmatched.push(entry.clone());
            }
        }
        unmatched
    }
}

impl Allowance {
    fn accepts(&self, change: &Change) -> bool {
        let narrows = |wanted: &Option<String>, actual: &str| wanted.as_deref().is_none_or(|w| w == actual);
        change.severity == Severity::Breaking
            && change.rule == self.rule
            && change.path == self.path
            && narrows(&self.group, &change.group)
            && narrows(&self.version, &change.version)
            && narrows(&self.kind, &change.kind)
    }
}
