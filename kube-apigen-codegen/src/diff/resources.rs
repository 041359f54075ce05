//! Resources compared by group, version and kind: which are served, how (scope, verbs,
//! subresources, query parameters), how kubectl finds and prints them, and their schemas
//! ([`super::schema`]).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::rules::{Rule, Semver, Severity, Verdict};
use super::rust::Here;
use super::{Api, Change, RustEffect, Subject, schema};
use crate::ir::{self, Gvk, PrinterColumn, Resource};
use crate::spec::{Origin, Schema};

/// Every difference between the resources of two APIs, in no particular order.
pub(super) fn compare(old: &Api, new: &Api) -> Vec<Change> {
    let (old_resources, new_resources) = (resources(old), resources(new));
    let mut out = Vec::new();
    for (gvk, resource) in &old_resources {
        match new_resources.get(gvk) {
            Some(new_resource) => Pair::new(old, resource, new, new_resource).compare(&mut out),
            None => out.push(removed(old, resource, new, &new_resources)),
        }
    }
    for (gvk, resource) in &new_resources {
        if !old_resources.contains_key(gvk) {
            out.push(added(new, resource, &old_resources));
        }
    }
    storage_versions(old, new, &mut out);
    out
}

fn resources(api: &Api) -> BTreeMap<&Gvk, &Resource> {
    api.ir.resources.iter().map(|resource| (&resource.gvk, resource)).collect()
}

fn serves_group_version(resources: &BTreeMap<&Gvk, &Resource>, gvk: &Gvk) -> bool {
    resources.keys().any(|other| other.group == gvk.group && other.version == gvk.version)
}

/// `type X and trait XApi`.
fn rust_items(api: &Api, resource: &Resource) -> String {
    format!("type {} and trait {}", api.ir.ty(resource.type_id).name, resource.trait_name)
}

fn removed(old: &Api, resource: &Resource, new: &Api, new_resources: &BTreeMap<&Gvk, &Resource>) -> Change {
    let gvk = &resource.gvk;
    let (rule, what) = if new.spec.unserved.contains(gvk) {
        (Rule::VersionUnserved, "version no longer served")
    } else if serves_group_version(new_resources, gvk) {
        (Rule::KindRemoved, "kind removed from the version")
    } else {
        (Rule::VersionRemoved, "group/version removed")
    };
    let elsewhere: Vec<&str> = new_resources
        .keys()
        .filter(|other| other.group == gvk.group && other.kind == gvk.kind)
        .map(|other| other.version.as_str())
        .collect();
    let verdict = match elsewhere.as_slice() {
        [] => Verdict::new(Severity::Breaking),
        versions => Verdict::noted(Severity::Breaking, format!("the kind is still served in {}", versions.join(", "))),
    };
    Change::new(&Subject::new(gvk), "", rule, verdict, what)
        .values(Some(json!(resource.plural)), None)
        .rust(RustEffect::new(Semver::Major, format!("{} removed", rust_items(old, resource))))
}

fn added(new: &Api, resource: &Resource, old_resources: &BTreeMap<&Gvk, &Resource>) -> Change {
    let (rule, what) = if serves_group_version(old_resources, &resource.gvk) {
        (Rule::KindAdded, "kind added")
    } else {
        (Rule::VersionAdded, "group/version added")
    };
    Change::new(&Subject::new(&resource.gvk), "", rule, Verdict::new(Severity::Compatible), what)
        .values(None, Some(json!(resource.plural)))
        .rust(RustEffect::new(Semver::Minor, format!("new {}", rust_items(new, resource))))
}

/// The versions each group and kind is stored in, as custom resources (and specs with
/// `x-kubernetes-storage-version`) say.
fn storage(api: &Api) -> BTreeMap<(&str, &str), Vec<&str>> {
    let mut storage: BTreeMap<(&str, &str), Vec<&str>> = BTreeMap::new();
    for resource in &api.ir.resources {
        if root_schema(api, resource).is_some_and(|schema| schema.k8s.resource.storage_version == Some(true)) {
            let gvk = &resource.gvk;
            storage.entry((gvk.group.as_str(), gvk.kind.as_str())).or_default().push(gvk.version.as_str());
        }
    }
    storage
}

fn storage_versions(old: &Api, new: &Api, out: &mut Vec<Change>) {
    let new_storage = storage(new);
    for (key @ (group, kind), old_versions) in storage(old) {
        let Some(new_versions) = new_storage.get(&key).filter(|versions| **versions != old_versions) else { continue };
        let gvk = Gvk { group: group.to_owned(), version: new_versions.join(", "), kind: kind.to_owned() };
        let what = format!("storage version {} → {}", old_versions.join(", "), new_versions.join(", "));
        let change =
            Change::new(&Subject::new(&gvk), "", Rule::StorageVersionChanged, Verdict::new(Severity::Review), what)
                .values(Some(json!(old_versions.join(", "))), Some(json!(new_versions.join(", "))))
                .rust(RustEffect::new(Semver::Patch, "the resources' storage_version flags change"));
        out.push(change);
    }
}

/// The schema a resource's type was read from.
fn root_schema<'a>(api: &'a Api, resource: &Resource) -> Option<&'a Schema> {
    match &api.ir.ty(resource.type_id).origin {
        ir::Origin::Schema(name) => api.spec.schemas.get(name),
        ir::Origin::Inline { .. } => None,
    }
}

/// What an operation accepts.
#[derive(Default)]
struct Accepts {
    /// Query parameters by name, with the Rust field carrying each.
    parameters: BTreeMap<String, String>,
    /// Patch content types.
    patch_types: BTreeSet<&'static str>,
}

impl Accepts {
    fn parameter_names(&self) -> Vec<&str> {
        self.parameters.keys().map(String::as_str).collect()
    }
}

/// A resource both APIs serve.
struct Pair<'a> {
    old: &'a Api,
    new: &'a Api,
    old_resource: &'a Resource,
    new_resource: &'a Resource,
    subject: Subject,
}

/// A kind of name a resource has (a verb, a short name, a query parameter of an
/// operation) and what it means for one to be on one side only.
struct OneSided<'f> {
    /// Where a name is reported (`verbs/watch`, `list?limit`).
    path: &'f dyn Fn(&str) -> String,
    removed: (Rule, Severity),
    added: (Rule, Severity),
    /// The change in words and its effect on the generated crate, for a name removed
    /// (`false`) or added (`true`).
    describe: &'f dyn Fn(&str, bool) -> (String, RustEffect),
}

impl<'a> Pair<'a> {
    fn new(old: &'a Api, old_resource: &'a Resource, new: &'a Api, new_resource: &'a Resource) -> Pair<'a> {
        Pair { old, new, old_resource, new_resource, subject: Subject::new(&new_resource.gvk) }
    }

    fn change(&self, path: &str, rule: Rule, severity: Severity, what: impl Into<String>) -> Change {
        Change::new(&self.subject, path, rule, Verdict::new(severity), what)
    }

    fn compare(&self, out: &mut Vec<Change>) {
        let (old, new) = (self.old_resource, self.new_resource);
        if old.plural != new.plural {
            let what = format!("served as {} → {}", old.plural, new.plural);
            out.push(
                self.change("", Rule::ResourceRenamed, Severity::Breaking, what)
                    .values(Some(json!(old.plural)), Some(json!(new.plural)))
                    .rust(RustEffect::new(Semver::Patch, "the routes and the resource info name the new plural")),
            );
        }
        if old.scope != new.scope {
            let scope = |scope: kube_apigen_core::Scope| format!("{scope:?}");
            let what = format!("scope {} → {}", scope(old.scope), scope(new.scope));
            let rust = RustEffect::new(
                Semver::Major,
                format!("the path parameters of the methods of {} change", new.trait_name),
            );
            out.push(
                self.change("", Rule::ScopeChanged, Severity::Breaking, what)
                    .values(Some(json!(scope(old.scope))), Some(json!(scope(new.scope))))
                    .rust(rust),
            );
        }
        self.deprecation(out);
        self.verbs(None, "verbs", &old.verbs, &new.verbs, out);
        self.subresources(out);
        let discovery = |what: &'static str| {
            move |name: &str, added: bool| {
                let how = if added { "added" } else { "removed" };
                (
                    format!("{what} {name} {how}"),
                    RustEffect::new(Semver::Patch, "the resource info's discovery names change"),
                )
            }
        };
        let (short_names, categories) = (discovery("short name"), discovery("category"));
        self.one_sided(
            &OneSided {
                path: &|name| format!("shortNames/{name}"),
                removed: (Rule::ShortNameRemoved, Severity::Breaking),
                added: (Rule::ShortNameAdded, Severity::Compatible),
                describe: &short_names,
            },
            &strs(&old.short_names),
            &strs(&new.short_names),
            out,
        );
        self.one_sided(
            &OneSided {
                path: &|name| format!("categories/{name}"),
                removed: (Rule::CategoryRemoved, Severity::Review),
                added: (Rule::CategoryAdded, Severity::Compatible),
                describe: &categories,
            },
            &strs(&old.categories),
            &strs(&new.categories),
            out,
        );
        self.printer_columns(out);
        self.accepts(out);
        self.schema(out);
    }

    fn deprecation(&self, out: &mut Vec<Change>) {
        let (old, new) = (&self.old_resource.deprecation_warning, &self.new_resource.deprecation_warning);
        let (rule, severity, what) = match (old, new) {
            (None, Some(_)) => (Rule::VersionDeprecated, Severity::Review, "version deprecated"),
            (Some(_), None) => (Rule::VersionUndeprecated, Severity::Compatible, "version no longer deprecated"),
            _ => return,
        };
        out.push(
            self.change("", rule, severity, what)
                .values(old.as_ref().map(|w| json!(w)), new.as_ref().map(|w| json!(w)))
                .rust(RustEffect::new(Semver::Patch, "responses carry a different deprecation warning")),
        );
    }

    /// The Rust methods serving a verb (of a subresource), as `XApi::method` names.
    fn methods(resource: &Resource, subresource: Option<&str>, verb: &str) -> String {
        let names: Vec<String> = resource
            .methods
            .iter()
            .filter(|m| m.role.verb().as_str() == verb && m.subresource.as_deref() == subresource)
            .map(|m| format!("{}::{}", resource.trait_name, m.name))
            .collect();
        names.join(", ")
    }

    fn verbs(&self, subresource: Option<&str>, path: &str, old: &[&str], new: &[&str], out: &mut Vec<Change>) {
        let describe = |verb: &str, added: bool| {
            let what = format!("verb {verb} {}", if added { "added" } else { "removed" });
            let rust = if added {
                let methods = Pair::methods(self.new_resource, subresource, verb);
                RustEffect::new(Semver::Minor, format!("new {methods}, answering 405 until implemented"))
            } else {
                RustEffect::new(
                    Semver::Major,
                    format!("{} removed", Pair::methods(self.old_resource, subresource, verb)),
                )
            };
            (what, rust)
        };
        let kind = OneSided {
            path: &|verb| format!("{path}/{verb}"),
            removed: (Rule::VerbRemoved, Severity::Breaking),
            added: (Rule::VerbAdded, Severity::Compatible),
            describe: &describe,
        };
        self.one_sided(&kind, old, new, out);
    }

    /// A change for each name only one side has.
    fn one_sided(&self, kind: &OneSided, old: &[&str], new: &[&str], out: &mut Vec<Change>) {
        let removed = old.iter().filter(|name| !new.contains(name)).map(|name| (*name, false));
        let added = new.iter().filter(|name| !old.contains(name)).map(|name| (*name, true));
        for (name, is_added) in removed.chain(added) {
            let (rule, severity) = if is_added { kind.added } else { kind.removed };
            let (what, rust) = (kind.describe)(name, is_added);
            let value = Some(json!(name));
            let (old_value, new_value) = if is_added { (None, value) } else { (value, None) };
            out.push(self.change(&(kind.path)(name), rule, severity, what).values(old_value, new_value).rust(rust));
        }
    }

    fn subresources(&self, out: &mut Vec<Change>) {
        let find = |resource: &'a Resource, name: &str| resource.subresources.iter().find(|s| s.name == name);
        let names: BTreeSet<&str> = self
            .old_resource
            .subresources
            .iter()
            .chain(&self.new_resource.subresources)
            .map(|s| s.name.as_str())
            .collect();
        for name in names {
            let path = format!("subresources/{name}");
            let methods = |resource: &Resource, verbs: &[&str]| {
                let names: Vec<String> = verbs.iter().map(|verb| Pair::methods(resource, Some(name), verb)).collect();
                names.join(", ")
            };
            match (find(self.old_resource, name), find(self.new_resource, name)) {
                (Some(old), Some(new)) => self.verbs(Some(name), &format!("{path}/verbs"), &old.verbs, &new.verbs, out),
                (Some(old), None) => {
                    let methods = methods(self.old_resource, &old.verbs);
                    out.push(
                        self.change(
                            &path,
                            Rule::SubresourceRemoved,
                            Severity::Breaking,
                            format!("subresource {name} removed"),
                        )
                        .values(Some(json!(name)), None)
                        .rust(RustEffect::new(Semver::Major, format!("{methods} removed"))),
                    );
                }
                (None, Some(new)) => {
                    let methods = methods(self.new_resource, &new.verbs);
                    // With a status subresource, writes to the resource itself leave
                    // status alone: clients writing status that way lose their writes.
                    let verdict = if name == "status" {
                        Verdict::noted(Severity::Review, "writes to the resource itself now ignore status")
                    } else {
                        Verdict::new(Severity::Compatible)
                    };
                    out.push(
                        Change::new(
                            &self.subject,
                            &path,
                            Rule::SubresourceAdded,
                            verdict,
                            format!("subresource {name} added"),
                        )
                        .values(None, Some(json!(name)))
                        .rust(RustEffect::new(Semver::Minor, format!("new {methods}"))),
                    );
                }
                (None, None) => unreachable!("a subresource of either"),
            }
        }
    }

    fn printer_columns(&self, out: &mut Vec<Change>) {
        let (old, new) = (&self.old_resource.columns, &self.new_resource.columns);
        let find = |columns: &'a [PrinterColumn], name: &str| columns.iter().find(|c| c.name == name);
        // What a column shows; its description only documents it.
        let shown = |c: &PrinterColumn| json!({"type": c.type_, "format": c.format, "priority": c.priority, "jsonPath": c.json_path});
        let names: BTreeSet<&str> = old.iter().chain(new).map(|c| c.name.as_str()).collect();
        let rust = || RustEffect::new(Semver::Patch, "the Table columns change");
        for name in names {
            let path = format!("additionalPrinterColumns/{name}");
            let (old_column, new_column) = (find(old, name).map(shown), find(new, name).map(shown));
            let (rule, what) = match (&old_column, &new_column) {
                (Some(_), None) => (Rule::PrinterColumnRemoved, "removed"),
                (None, Some(_)) => (Rule::PrinterColumnAdded, "added"),
                (Some(a), Some(b)) if a != b => (Rule::PrinterColumnChanged, "changed"),
                _ => continue,
            };
            out.push(
                self.change(&path, rule, Severity::Compatible, format!("printer column {name} {what}"))
                    .values(old_column, new_column)
                    .rust(rust()),
            );
        }
    }

    /// What each operation (`list`, `patch/status`) accepts: its query parameters, with
    /// the Rust field carrying each (`ListParams::limit`), and its patch types.
    fn operations(api: &Api, resource: &Resource) -> BTreeMap<String, Accepts> {
        let mut operations: BTreeMap<String, Accepts> = BTreeMap::new();
        for method in &resource.methods {
            let operation = match &method.subresource {
                Some(subresource) => format!("{}/{subresource}", method.role.verb().as_str()),
                None => method.role.verb().as_str().to_owned(),
            };
            let accepts = operations.entry(operation).or_default();
            accepts.patch_types.extend(method.patch_types.iter().map(|patch_type| patch_type.content_type()));
            let Some(set) = method.param_set else { continue };
            let set = api.ir.param_set(set);
            for parameter in &set.params {
                accepts
                    .parameters
                    .entry(parameter.name.clone())
                    .or_insert_with(|| format!("{}::{}", set.name, parameter.rust_name));
            }
        }
        operations
    }

    /// What the operations both APIs have accept (an operation that comes or goes is
    /// reported as its verb or subresource).
    fn accepts(&self, out: &mut Vec<Change>) {
        let old = Pair::operations(self.old, self.old_resource);
        let new = Pair::operations(self.new, self.new_resource);
        for (operation, old_accepts) in &old {
            let Some(new_accepts) = new.get(operation) else { continue };
            let parameter = |name: &str, added: bool| {
                let field = &(if added { new_accepts } else { old_accepts }).parameters[name];
                if added {
                    let rust = format!("new field {field} (struct literals must name it)");
                    (format!("query parameter {name} of {operation} added"), RustEffect::new(Semver::Major, rust))
                } else {
                    let rust = RustEffect::new(Semver::Major, format!("field {field} removed"));
                    (format!("query parameter {name} of {operation} removed"), rust)
                }
            };
            let parameters = OneSided {
                path: &|name| format!("{operation}?{name}"),
                removed: (Rule::QueryParameterRemoved, Severity::Breaking),
                added: (Rule::QueryParameterAdded, Severity::Compatible),
                describe: &parameter,
            };
            self.one_sided(&parameters, &old_accepts.parameter_names(), &new_accepts.parameter_names(), out);
            let patch_type = |name: &str, added: bool| {
                let how = if added { "added" } else { "removed" };
                let rust = RustEffect::new(Semver::Patch, "the router's accepted patch types change");
                (format!("patch type {name} of {operation} {how}"), rust)
            };
            let patch_types = OneSided {
                path: &|name| format!("{operation}[{name}]"),
                removed: (Rule::PatchTypeRemoved, Severity::Breaking),
                added: (Rule::PatchTypeAdded, Severity::Compatible),
                describe: &patch_type,
            };
            let (old_types, new_types): (Vec<_>, Vec<_>) =
                (old_accepts.patch_types.iter().copied().collect(), new_accepts.patch_types.iter().copied().collect());
            self.one_sided(&patch_types, &old_types, &new_types, out);
        }
    }

    fn schema(&self, out: &mut Vec<Change>) {
        let (Some(old_schema), Some(new_schema)) =
            (root_schema(self.old, self.old_resource), root_schema(self.new, self.new_resource))
        else {
            return;
        };
        let (old_type, new_type) =
            (&self.old.ir.ty(self.old_resource.type_id).name, &self.new.ir.ty(self.new_resource.type_id).name);
        if old_type != new_type {
            out.push(
                self.change("", Rule::RustTypeChanged, Severity::Compatible, "generated Rust type renamed")
                    .values(Some(Value::String(old_type.clone())), Some(Value::String(new_type.clone())))
                    .rust(RustEffect::new(Semver::Major, format!("type {old_type} renamed to {new_type}"))),
            );
        }
        let custom_resource = self.new.spec.document(new_schema.loc.doc).origin == Origin::CustomResource;
        schema::compare_resource(
            (self.old, old_schema, Here::root(&self.old.ir, self.old_resource.type_id)),
            (self.new, new_schema, Here::root(&self.new.ir, self.new_resource.type_id)),
            &self.subject,
            custom_resource,
            out,
        );
    }
}

fn strs(names: &[String]) -> Vec<&str> {
    names.iter().map(String::as_str).collect()
}
