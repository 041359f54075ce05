//! The comparison on small specs: one synthetic change per rule (`table`), for an OpenAPI
//! document and a CustomResourceDefinition of the same resource, and the report as a
//! whole (`report`).

mod report;
mod table;

use std::path::Path;

use serde_json::Value;

use super::{Api, Change, compare};

/// The two ways to write an API.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Format {
    OpenApi,
    Crd,
}

impl Format {
    /// The base document of `demo.k8s.io/v1` Widget.
    fn document(self) -> Value {
        let text = match self {
            Format::OpenApi => include_str!("widget.openapi.yaml"),
            Format::Crd => include_str!("widget.crd.yaml"),
        };
        serde_saphyr::from_str(text).expect("the fixture parses")
    }

    /// Where a part of the document is.
    fn pointer(self, target: Target) -> &'static str {
        match (self, target) {
            (_, Target::Document) => "",
            (Format::OpenApi, Target::Spec) => "/components/schemas/io.k8s.demo.v1.WidgetSpec",
            (Format::OpenApi, Target::Status) => "/components/schemas/io.k8s.demo.v1.Widget/properties/status",
            (Format::Crd, Target::Spec) => "/spec/versions/0/schema/openAPIV3Schema/properties/spec",
            (Format::Crd, Target::Status) => "/spec/versions/0/schema/openAPIV3Schema/properties/status",
        }
    }
}

/// The part of a document an edit gets.
#[derive(Clone, Copy, Debug)]
enum Target {
    /// The schema of `spec`.
    Spec,
    /// The schema of `status`.
    Status,
    /// The whole document.
    Document,
}

type Edit = fn(&mut Value);

/// No edit: the base as it is.
fn unchanged(_: &mut Value) {}

/// The API of a document.
fn read(document: &Value) -> Api {
    let documents = crate::load::parse(Path::new("specs/widget.json"), document.to_string()).expect("JSON parses");
    Api::from_documents(documents).unwrap_or_else(|e| panic!("the edited spec reads: {e}"))
}

/// The base document of a format with one edit applied to its target.
fn edited(format: Format, target: Target, edit: Edit) -> Value {
    let mut document = format.document();
    edit(document.pointer_mut(format.pointer(target)).expect("the target exists"));
    document
}

/// The changes between two edits of the base.
fn changes(format: Format, target: Target, old: Edit, new: Edit) -> Vec<Change> {
    compare(&read(&edited(format, target, old)), &read(&edited(format, target, new)))
}

/// A change on one line, with every field: `severity rule path: old → new; what[; note]
/// => semver[: Rust change]`, the resource in front when it is not `demo.k8s.io/v1 Widget`,
/// and the allow-list's reason at the end when there is one.
fn line(change: &Change) -> String {
    let value = |value: &Option<Value>| value.as_ref().map_or("—".to_owned(), Value::to_string);
    let mut line = String::new();
    if (change.group.as_str(), change.version.as_str(), change.kind.as_str()) != ("demo.k8s.io", "v1", "Widget") {
        line.push_str(&format!("[{}/{} {}] ", change.group, change.version, change.kind));
    }
    line.push_str(&format!(
        "{} {} {}: {} → {}; {}",
        change.severity,
        change.rule.id(),
        change.path,
        value(&change.old),
        value(&change.new),
        change.what
    ));
    if let Some(note) = &change.note {
        line.push_str(&format!("; {note}"));
    }
    line.push_str(&format!(" => {}", change.rust.semver.name()));
    if let Some(effect) = &change.rust.change {
        line.push_str(&format!(": {effect}"));
    }
    if let Some(reason) = &change.allowed {
        line.push_str(&format!(" (allowed: {reason})"));
    }
    line
}
