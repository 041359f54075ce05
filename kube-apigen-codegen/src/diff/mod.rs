//! What an API change breaks, by Kubernetes' compatibility rules: the report of
//! `kube-apigen diff` (`cargo xtask api-diff` in this repository).
//!
//! [`Api::read`] reads a specs folder as generation does (the typed spec and its IR);
//! [`compare`] lists every difference between two APIs as a [`Change`] with its [`Rule`],
//! its [`Severity`] where it happens (spec or status, built-in API or custom resource,
//! alpha version or not), and its effect on the generated crate's public API
//! ([`RustEffect`]). Resources are compared by group, version and kind; their schemas
//! field by field from the resource root, following references, so a schema reached from
//! several kinds (or paths) is reported at each. A [`Report`] adds the allow-list
//! ([`AllowList`]) and renders text, Markdown and JSON. [`Revision`] reads a revision's
//! spec folder from git.

mod allow;
mod git;
mod render;
mod resources;
mod rules;
mod rust;
mod schema;
#[cfg(test)]
mod tests;

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

pub use allow::{AllowList, Allowance};
pub use git::Revision;
pub use rules::{Rule, Semver, Severity};

use crate::error::Result;
use crate::ir::{self, Gvk, RuntimeType, TypeKind};
use crate::spec::Spec;
use crate::spec::proto::Protos;
use crate::{build, load};
use rules::Verdict;

/// An API as generation reads it: the typed spec, and the IR built from it.
pub struct Api {
    spec: Spec,
    ir: ir::Api,
    /// The named schemas the runtime implements (`Quantity`, `IntOrString`, ...):
    /// compared as the values they are, never field by field.
    runtime: BTreeMap<String, RuntimeType>,
}

impl Api {
    /// Reads the specs of a folder.
    pub fn read(folder: &Path) -> Result<Api> {
        Api::from_documents(load::load_dir(folder)?)
    }

    /// Reads loaded spec documents.
    pub fn from_documents(documents: Vec<load::Document>) -> Result<Api> {
        let spec = Spec::read(documents)?;
        // Protobuf messages change no API the report compares, so they are not read.
        let ir = build::build(&spec, &Protos::default())?;
        let runtime = ir
            .types
            .iter()
            .filter_map(|ty| match (&ty.origin, &ty.kind) {
                (ir::Origin::Schema(name), TypeKind::Runtime(runtime)) => Some((name.clone(), *runtime)),
                _ => None,
            })
            .collect();
        Ok(Api { spec, ir, runtime })
    }
}

/// One difference between two APIs.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// How much it breaks, where it happens.
    pub severity: Severity,
    /// What kind of change it is.
    pub rule: Rule,
    /// The resource's group; empty for the core group.
    pub group: String,
    /// The resource's version.
    pub version: String,
    /// The resource's kind.
    pub kind: String,
    /// The field path from the resource root in Kubernetes notation
    /// (`spec.metrics[*].type`; `[*]` stands for any list item or map value), empty for
    /// the resource itself, or what else changed (`verbs/watch`, `list?limit`,
    /// `shortNames/hpa`, `subresources/status`, `additionalPrinterColumns/Age`).
    pub path: String,
    /// The value before, where there is one.
    pub old: Option<Value>,
    /// The value after, where there is one.
    pub new: Option<Value>,
    /// What changed (`minimum raised from 0 to 1`).
    pub what: String,
    /// Why the severity is what it is here, beyond the rule's reason (ratcheting, status,
    /// alpha version).
    pub note: Option<String>,
    /// What it does to the generated crate's public API.
    pub rust: RustEffect,
    /// The allow-list's reason, for an accepted breaking change.
    pub allowed: Option<String>,
}

/// What a change does to the generated crate's public API.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RustEffect {
    /// The version bump it asks for.
    pub semver: Semver,
    /// What changes in the crate (`field HorizontalPodAutoscalerSpec::min_replicas removed`).
    pub change: Option<String>,
}

impl RustEffect {
    /// A bump and the change in the crate that asks for it.
    pub fn new(semver: Semver, change: impl Into<String>) -> RustEffect {
        RustEffect { semver, change: Some(change.into()) }
    }
}

/// The resource changes are reported for.
struct Subject {
    gvk: Gvk,
    /// Whether the version is an alpha version, exempt from compatibility.
    alpha: bool,
}

impl Subject {
    fn new(gvk: &Gvk) -> Subject {
        Subject { gvk: gvk.clone(), alpha: rules::is_alpha(&gvk.version) }
    }
}

impl Change {
    fn new(subject: &Subject, path: &str, rule: Rule, verdict: Verdict, what: impl Into<String>) -> Change {
        let Verdict { severity, note } = if subject.alpha { rules::in_alpha(verdict) } else { verdict };
        Change {
            severity,
            rule,
            group: subject.gvk.group.clone(),
            version: subject.gvk.version.clone(),
            kind: subject.gvk.kind.clone(),
            path: path.to_owned(),
            old: None,
            new: None,
            what: what.into(),
            note,
            rust: RustEffect::default(),
            allowed: None,
        }
    }

    fn values(self, old: Option<Value>, new: Option<Value>) -> Change {
        Change { old, new, ..self }
    }

    fn rust(self, rust: RustEffect) -> Change {
        Change { rust, ..self }
    }

    /// What changed, why that matters, and why it is this severity here.
    pub fn message(&self) -> String {
        let mut message = format!("{}: {}", self.what, self.rule.reason());
        if let Some(note) = &self.note {
            message.push_str("; ");
            message.push_str(note);
        }
        message
    }

    /// The order of reports: by severity, then resource, path and rule.
    fn order(&self, other: &Change) -> Ordering {
        let key =
            |c: &Change| (c.severity, (c.group.clone(), c.version.clone(), c.kind.clone()), c.path.clone(), c.rule);
        key(self).cmp(&key(other)).then_with(|| {
            let values = |c: &Change| (c.old.as_ref().map(Value::to_string), c.new.as_ref().map(Value::to_string));
            values(self).cmp(&values(other))
        })
    }
}

/// Every difference between two APIs, in report order.
pub fn compare(base: &Api, new: &Api) -> Vec<Change> {
    let mut changes = resources::compare(base, new);
    changes.sort_by(Change::order);
    changes.dedup();
    changes
}

/// The changes between a base and the specs, with the allow-list applied.
#[derive(Debug)]
pub struct Report {
    /// The base as given: a git revision or a folder.
    pub base: String,
    /// The specs folder as given.
    pub specs: String,
    /// Every change, in report order; the allow-list's reason is on those it accepts.
    pub changes: Vec<Change>,
    /// Allow-list entries that match no breaking change.
    pub unmatched: Vec<Allowance>,
}

/// How many changes of each severity a report has, and the version bump they ask of the
/// generated crate.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Breaking changes, the accepted ones included.
    pub breaking: usize,
    /// Breaking changes the allow-list accepts.
    pub allowed: usize,
    /// Changes a person has to review.
    pub review: usize,
    /// Compatible changes.
    pub compatible: usize,
    /// The largest version bump any change asks for.
    pub semver: Semver,
}

impl Report {
    /// Compares two APIs and applies the allow-list, if any.
    pub fn new(base: &str, specs: &str, old: &Api, new: &Api, allow: Option<&AllowList>) -> Report {
        let mut changes = compare(old, new);
        let unmatched = match allow {
            Some(allow) => allow.apply(&mut changes),
            None => Vec::new(),
        };
        Report { base: base.to_owned(), specs: specs.to_owned(), changes, unmatched }
    }

    /// How many changes of each severity the report has, and the bump they ask for.
    pub fn summary(&self) -> Summary {
        let count = |severity| self.changes.iter().filter(|c| c.severity == severity).count();
        Summary {
            breaking: count(Severity::Breaking),
            allowed: self.changes.iter().filter(|c| c.allowed.is_some()).count(),
            review: count(Severity::Review),
            compatible: count(Severity::Compatible),
            semver: self.changes.iter().map(|c| c.rust.semver).max().unwrap_or_default(),
        }
    }

    /// Whether a breaking change is not on the allow-list.
    pub fn breaks(&self) -> bool {
        self.changes.iter().any(|c| c.severity == Severity::Breaking && c.allowed.is_none())
    }

    /// The report as plain text.
    pub fn text(&self) -> String {
        render::text(self)
    }

    /// The report as Markdown.
    pub fn markdown(&self) -> String {
        render::markdown(self)
    }

    /// The report as a JSON document.
    pub fn json(&self) -> String {
        render::json(self)
    }
}
