//! Role-based access control (`--authorization-mode=RBAC`), on the `rbac.authorization.k8s.io/v1`
//! objects of the store, as kube-apiserver's RBAC authorizer decides:
//!
//! - members of `system:masters` may do everything;
//! - the ClusterRoleBindings whose subjects name the user (by name, a group of theirs, or
//!   their service account) grant their ClusterRole everywhere; then, for a request in a
//!   namespace, that namespace's RoleBindings grant their Role (in the namespace) or
//!   ClusterRole (within the namespace);
//! - a rule allows a request when its verbs, API groups, resources (`*`,
//!   `resource/subresource`, `*/subresource`) and resource names match ([`rule_allows`]),
//!   or, for non-resource requests, its verbs and `nonResourceURLs` (`*`, a trailing `*`
//!   as a prefix);
//! - a binding to a role that does not exist grants nothing, and is named in the 403's
//!   reason (`RBAC: clusterrole.rbac.authorization.k8s.io "x" not found`) when nothing
//!   else allows the request;
//! - a ClusterRole with an `aggregationRule` has as its `rules` those of every ClusterRole
//!   its selectors match, rewritten after each ClusterRole write as kube-controller-manager's
//!   aggregation controller does ([`Rbac::aggregate`]).
//!
//! Roles and bindings are read from the store at every request: a change applies to the
//! next request, and several servers on one etcd agree. The first request writes the
//! roles and bindings kube-apiserver bootstraps ([`bootstrap_policy`]) where they are
//! missing.

use std::sync::Arc;

use futures::future::BoxFuture;
use kube_apigen::ResourceInfo;
use kube_apigen::dynamic::{DynamicApi, Request, Verb};
use kube_apigen::http::{
    Attributes, Authorization, Authorizer, Context, NonResourceRule, ResourceRule, Rules, UserInfo,
};
use serde::Deserialize;
use serde_json::{Value, json};
use tokio::sync::OnceCell;

use crate::Store;
use crate::selector::label_selector_selects;
use crate::storage::RangeRequest;

/// The API group of RBAC.
pub const GROUP: &str = "rbac.authorization.k8s.io";
/// The group whose members may do everything, whatever the roles say.
pub const PRIVILEGED_GROUP: &str = "system:masters";

/// One rule of a Role or ClusterRole.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PolicyRule {
    /// `verbs`.
    pub verbs: Vec<String>,
    /// `apiGroups`.
    pub api_groups: Vec<String>,
    /// `resources`.
    pub resources: Vec<String>,
    /// `resourceNames`.
    pub resource_names: Vec<String>,
    /// `nonResourceURLs`.
    #[serde(rename = "nonResourceURLs")]
    pub non_resource_urls: Vec<String>,
}

/// Whether `rule` allows what `attributes` ask (RBAC's `RuleAllows`).
pub fn rule_allows(attributes: &Attributes, rule: &PolicyRule) -> bool {
    let verb = rule.verbs.iter().any(|v| v == "*" || *v == attributes.verb);
    if !attributes.resource_request {
        return verb && rule.non_resource_urls.iter().any(|url| url_matches(url, &attributes.path));
    }
    let group = rule.api_groups.iter().any(|g| g == "*" || *g == attributes.api_group);
    let combined = attributes.resource_and_subresource();
    let subresource = &attributes.subresource;
    let resource = rule.resources.iter().any(|r| {
        r == "*"
            || *r == combined
            || (!subresource.is_empty() && r.strip_prefix("*/").is_some_and(|sub| sub == subresource))
    });
    let name = rule.resource_names.is_empty() || rule.resource_names.contains(&attributes.name);
    verb && group && resource && name
}

/// Whether a rule's `nonResourceURLs` entry covers `path`: `*`, the path itself, or a
/// prefix ending in `*`.
fn url_matches(url: &str, path: &str) -> bool {
    match url.strip_suffix('*') {
        _ if url == "*" || url == path => true,
        Some(prefix) => path.starts_with(prefix),
        None => false,
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Subject {
    kind: String,
    name: String,
    namespace: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct RoleRef {
    kind: String,
    name: String,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct Binding {
    subjects: Vec<Subject>,
    role_ref: RoleRef,
}

/// Whether one of `subjects` names `user`; `namespace` is the binding's, which a service
/// account without one is taken to be in.
fn applies_to(user: &UserInfo, subjects: &[Subject], namespace: &str) -> bool {
    subjects.iter().any(|subject| match subject.kind.as_str() {
        "User" => user.username == subject.name,
        "Group" => user.groups.contains(&subject.name),
        "ServiceAccount" => {
            let namespace = if subject.namespace.is_empty() { namespace } else { &subject.namespace };
            !namespace.is_empty() && user.username == format!("system:serviceaccount:{namespace}:{}", subject.name)
        }
        _ => false,
    })
}

/// The four RBAC resources of the catalog.
struct Resources {
    roles: &'static ResourceInfo,
    cluster_roles: &'static ResourceInfo,
    role_bindings: &'static ResourceInfo,
    cluster_role_bindings: &'static ResourceInfo,
}

/// The RBAC authorizer over a store: allows every request of a member of `system:masters`
/// (which kube-apiserver asks before any other authorizer) and what a role bound to the
/// user grants; no opinion otherwise.
pub struct Rbac {
    store: Store,
    resources: Resources,
    bootstrapped: OnceCell<()>,
    aggregating: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Rbac {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rbac").finish_non_exhaustive()
    }
}

impl Rbac {
    /// The authorizer over `store`, whose catalog must serve `rbac.authorization.k8s.io/v1`
    /// (else an error saying so).
    pub fn new(store: Store) -> Result<Self, String> {
        let find = |plural: &str| {
            store
                .catalog()
                .groups
                .iter()
                .filter(|gv| gv.group == GROUP && gv.version == "v1")
                .flat_map(|gv| gv.resources.iter())
                .find(|resource| resource.plural == plural)
                .ok_or_else(|| format!("authorization mode RBAC needs the API to serve {plural}.{GROUP}/v1"))
        };
        let resources = Resources {
            roles: find("roles")?,
            cluster_roles: find("clusterroles")?,
            role_bindings: find("rolebindings")?,
            cluster_role_bindings: find("clusterrolebindings")?,
        };
        Ok(Rbac { store, resources, bootstrapped: OnceCell::new(), aggregating: Default::default() })
    }

    /// Writes the bootstrap policy where it is missing; once per authorizer.
    async fn bootstrap(&self) {
        self.bootstrapped
            .get_or_init(|| async {
                for object in bootstrap_policy() {
                    let name = object["metadata"]["name"].as_str().unwrap_or("").to_owned();
                    let resource = match object["kind"].as_str() {
                        Some("ClusterRole") => self.resources.cluster_roles,
                        _ => self.resources.cluster_role_bindings,
                    };
                    let request = Request {
                        verb: Verb::Create,
                        resource,
                        subresource: None,
                        namespace: None,
                        name: None,
                        options: Default::default(),
                        body: Some(object),
                        patch: None,
                    };
                    match self.store.handle(server_context(), request).await {
                        // Present already, or written by another server on the same etcd.
                        Err(status) if status.code() != 409 => {
                            tracing::warn!(
                                "cannot write the bootstrap {} {name}: {}",
                                resource.kind,
                                status.message.as_deref().unwrap_or("")
                            );
                        }
                        _ => {}
                    }
                }
                // `admin`, `edit` and `view` hold their rules before the first decision.
                self.aggregate().await;
            })
            .await;
    }

    /// The objects under `prefix`, or the storage's error as RBAC reports it.
    async fn list(&self, prefix: &str) -> Result<Vec<Arc<Value>>, String> {
        let request = RangeRequest { prefix, start_after: None, revision: None, limit: None };
        let range = self.store.storage().range(request).await.map_err(|e| e.to_string())?;
        Ok(range.items.into_iter().map(|item| item.object).collect())
    }

    /// The rules the role a binding refers to grants; `namespace` is the binding's.
    async fn role_rules(&self, role_ref: &RoleRef, namespace: &str) -> Result<Vec<PolicyRule>, String> {
        let (resource, key, singular) = match role_ref.kind.as_str() {
            "Role" => (self.resources.roles, format!("{namespace}/{}", role_ref.name), "role"),
            "ClusterRole" => (self.resources.cluster_roles, role_ref.name.clone(), "clusterrole"),
            other => return Err(format!("unsupported role reference kind: {}", kube_apigen::go::fmt::quote(other))),
        };
        let key = format!("{}{key}", self.store.resource_prefix(resource));
        let found = self.store.storage().get(&key).await.map_err(|e| e.to_string())?;
        let Some(role) = found else {
            return Err(format!("{singular}.{GROUP} {} not found", kube_apigen::go::fmt::quote(&role_ref.name)));
        };
        Ok(rules_of(&role.object))
    }

    /// Rewrites the `rules` of every ClusterRole with an `aggregationRule`: the rules of
    /// the other ClusterRoles its selectors match, in name order, each rule once, as
    /// kube-controller-manager's aggregation controller keeps them. Aggregated roles that
    /// aggregate each other (`view` into `edit` into `admin`) are settled here in one run.
    /// Runs one at a time; a write is guarded by the `resourceVersion` it was computed
    /// from, and one that loses a race is redone by the run the other write starts.
    pub async fn aggregate(&self) {
        let _one_at_a_time = self.aggregating.lock().await;
        let Ok(stored) = self.list(&self.store.resource_prefix(self.resources.cluster_roles)).await else { return };
        let mut roles: Vec<Value> = stored.iter().map(|role| (**role).clone()).collect();
        roles.sort_by(|a, b| crate::object::meta_str(a, "name").cmp(crate::object::meta_str(b, "name")));
        let mut changed = vec![false; roles.len()];
        // Each round can only add rules, so it settles; a round per role is a bound.
        for _ in 0..=roles.len() {
            let mut settled = true;
            for index in 0..roles.len() {
                let Some(rules) = aggregated_rules(&roles, index) else { continue };
                if roles[index].get("rules").and_then(Value::as_array).map_or(rules.is_empty(), |old| *old == rules) {
                    continue;
                }
                roles[index]["rules"] = Value::Array(rules);
                (changed[index], settled) = (true, false);
            }
            if settled {
                break;
            }
        }
        for (role, _) in roles.iter().zip(&changed).filter(|(_, changed)| **changed) {
            let meta = |field| json!(crate::object::meta_str(role, field));
            let patch = json!({"metadata": {"resourceVersion": meta("resourceVersion")}, "rules": role["rules"]});
            let request = Request {
                verb: Verb::Patch,
                resource: self.resources.cluster_roles,
                subresource: None,
                namespace: None,
                name: Some(crate::object::meta_str(role, "name").to_owned()),
                options: Default::default(),
                body: None,
                patch: Some(kube_apigen::http::Patch::Merge(patch)),
            };
            if let Err(status) = self.store.handle(server_context(), request).await
                && status.code() != 409
            {
                tracing::warn!(
                    "cannot aggregate the rules of clusterrole {}: {}",
                    crate::object::meta_str(role, "name"),
                    status.message.as_deref().unwrap_or("")
                );
            }
        }
    }

    /// Shows `visit` every rule granted to `user` in `namespace` (`""`: by
    /// ClusterRoleBindings only), ClusterRoleBindings first, until it answers `true`;
    /// whether it did, and the errors met on the way (RBAC's `VisitRulesFor`).
    async fn visit(
        &self,
        user: &UserInfo,
        namespace: &str,
        mut visit: impl FnMut(&PolicyRule) -> bool,
    ) -> (bool, Vec<String>) {
        let mut errors = Vec::new();
        let cluster = self.store.resource_prefix(self.resources.cluster_role_bindings);
        let local = format!("{}{namespace}/", self.store.resource_prefix(self.resources.role_bindings));
        let scopes = [(cluster, ""), (local, namespace)];
        let scopes = if namespace.is_empty() { &scopes[..1] } else { &scopes[..] };
        for (prefix, binding_namespace) in scopes {
            let bindings = match self.list(prefix).await {
                Ok(bindings) => bindings,
                Err(error) => {
                    errors.push(error);
                    continue;
                }
            };
            for binding in bindings {
                let Ok(binding) = Binding::deserialize(&*binding) else { continue };
                if !applies_to(user, &binding.subjects, binding_namespace) {
                    continue;
                }
                match self.role_rules(&binding.role_ref, binding_namespace).await {
                    Ok(rules) if rules.iter().any(&mut visit) => return (true, errors),
                    Ok(_) => {}
                    Err(error) => errors.push(error),
                }
            }
        }
        (false, errors)
    }
}

/// The rules of a role object; a rule that does not decode grants nothing.
/// The rules `roles[index]` aggregates, if it has an `aggregationRule`: those of the
/// other roles its selectors match, in their order, each once.
fn aggregated_rules(roles: &[Value], index: usize) -> Option<Vec<Value>> {
    let selectors = roles[index].pointer("/aggregationRule/clusterRoleSelectors")?.as_array()?;
    let mut rules = Vec::new();
    for (other, role) in roles.iter().enumerate() {
        if other == index
            || !selectors.iter().any(|selector| label_selector_selects(selector, crate::object::labels(role)))
        {
            continue;
        }
        for rule in role.get("rules").and_then(Value::as_array).into_iter().flatten() {
            if !rules.contains(rule) {
                rules.push(rule.clone());
            }
        }
    }
    Some(rules)
}

fn rules_of(role: &Value) -> Vec<PolicyRule> {
    let rules = role.get("rules").and_then(Value::as_array);
    rules.into_iter().flatten().filter_map(|rule| PolicyRule::deserialize(rule).ok()).collect()
}

impl Authorizer for Rbac {
    fn authorize<'a>(&'a self, attributes: &'a Attributes) -> BoxFuture<'a, Authorization> {
        Box::pin(async move {
            self.bootstrap().await;
            if attributes.user.groups.iter().any(|group| group == PRIVILEGED_GROUP) {
                return Authorization::allow("");
            }
            let (allowed, errors) =
                self.visit(&attributes.user, &attributes.namespace, |rule| rule_allows(attributes, rule)).await;
            if allowed {
                return Authorization::allow("");
            }
            Authorization::no_opinion(reason(errors))
        })
    }

    fn rules_for<'a>(&'a self, user: &'a UserInfo, namespace: &'a str) -> BoxFuture<'a, Rules> {
        Box::pin(async move {
            self.bootstrap().await;
            let mut rules = Rules::default();
            let (_, errors) = self
                .visit(user, namespace, |rule| {
                    if !rule.resources.is_empty() {
                        rules.resource_rules.push(ResourceRule {
                            verbs: rule.verbs.clone(),
                            api_groups: rule.api_groups.clone(),
                            resources: rule.resources.clone(),
                            resource_names: rule.resource_names.clone(),
                        });
                    }
                    if !rule.non_resource_urls.is_empty() {
                        rules.non_resource_rules.push(NonResourceRule {
                            verbs: rule.verbs.clone(),
                            non_resource_urls: rule.non_resource_urls.clone(),
                        });
                    }
                    false
                })
                .await;
            rules.errors = errors;
            rules
        })
    }
}

/// `RBAC: <error>`, or `RBAC: [<error>, <error>]` for several (each once), as the API
/// server aggregates them; empty without errors.
fn reason(mut errors: Vec<String>) -> String {
    let mut seen = std::collections::HashSet::new();
    errors.retain(|error| seen.insert(error.clone()));
    match errors.as_slice() {
        [] => String::new(),
        [one] => format!("RBAC: {one}"),
        many => format!("RBAC: [{}]", many.join(", ")),
    }
}

/// The request context of the server's own writes (the bootstrap policy): a member of
/// `system:masters`, as kube-apiserver's loopback client is.
fn server_context() -> Context {
    let user = UserInfo {
        username: "system:apiserver".to_owned(),
        groups: vec![PRIVILEGED_GROUP.to_owned()],
        ..UserInfo::default()
    };
    Context { user: Some(user), ..Context::default() }
}

/// The server's authorizer and its RBAC authorizer, known once the server is built.
#[derive(Clone, Default)]
pub(crate) struct Deciders {
    /// Every authorization mode, in order: it decides `escalate` and `bind`.
    pub(crate) authorizer: crate::reviews::SharedAuthorizer,
    /// RBAC itself: the rules a writer holds, and those of the role a binding names.
    pub(crate) rbac: Arc<std::sync::OnceLock<Arc<Rbac>>>,
}

/// Escalation prevention, as kube-apiserver's RBAC storage does it: a Role or ClusterRole
/// may be written only by a caller who holds every rule it grants, or may `escalate` it; a
/// binding only by one who holds every rule of its role, or may `bind` it. Members of
/// `system:masters` may always. Otherwise 403 `<resource> "<name>" is forbidden: user
/// "<user>" (groups=[...]) is attempting to grant RBAC permissions not currently held:`
/// and the rules missing, one a line.
struct Escalation {
    plural: &'static str,
    deciders: Deciders,
}

/// Registers the escalation checks on the four RBAC resources `config` serves.
pub(crate) fn register_escalation_checks(config: &mut crate::StoreConfig) -> Deciders {
    let deciders = Deciders::default();
    for plural in ["roles", "clusterroles", "rolebindings", "clusterrolebindings"] {
        let _ = config.strategy(GROUP, plural, Escalation { plural, deciders: deciders.clone() });
    }
    deciders
}

impl crate::Strategy for Escalation {
    /// A ClusterRole written may change what aggregated ClusterRoles hold.
    fn after_write(&self, _context: &crate::WriteContext<'_>, _written: crate::strategy::Written<'_>) {
        if let ("clusterroles", Some(rbac)) = (self.plural, self.deciders.rbac.get()) {
            let rbac = Arc::clone(rbac);
            tokio::spawn(async move { rbac.aggregate().await });
        }
    }

    fn admit<'a>(
        &'a self,
        context: &'a crate::WriteContext<'a>,
        new: &'a Value,
        _old: Option<&'a Value>,
    ) -> BoxFuture<'a, Result<(), kube_apigen::Status>> {
        Box::pin(async move {
            let user = context.user;
            let (Some(authorizer), Some(rbac)) = (self.deciders.authorizer.get(), self.deciders.rbac.get()) else {
                return Ok(());
            };
            if user.groups.iter().any(|group| group == PRIVILEGED_GROUP) {
                return Ok(());
            }
            let namespace = crate::object::meta_str(new, "namespace");
            let name = crate::object::meta_str(new, "name");
            let binding = self.plural.ends_with("bindings");
            let (verb, target_plural, target_name, rules) = if binding {
                let Ok(binding) = Binding::deserialize(new) else { return Ok(()) };
                let plural = if binding.role_ref.kind == "Role" { "roles" } else { "clusterroles" };
                ("bind", plural, binding.role_ref.name.clone(), Some(binding.role_ref))
            } else {
                ("escalate", self.plural, name.to_owned(), None)
            };
            let attributes = Attributes {
                user: user.clone(),
                verb: verb.to_owned(),
                resource_request: true,
                api_group: GROUP.to_owned(),
                api_version: "v1".to_owned(),
                resource: target_plural.to_owned(),
                namespace: namespace.to_owned(),
                name: target_name,
                ..Attributes::default()
            };
            if authorizer.authorize(&attributes).await.decision == kube_apigen::http::Decision::Allow {
                return Ok(());
            }
            let granted = match rules {
                Some(role_ref) => rbac.role_rules(&role_ref, namespace).await.map_err(|message| {
                    kube_apigen::Status::failure(404, kube_apigen::status::reason::NOT_FOUND, message)
                })?,
                None => rules_of(new),
            };
            let held = rbac.rules_for(user, namespace).await;
            let missing = missing_rules(&held, &granted);
            if missing.is_empty() {
                return Ok(());
            }
            let quote = kube_apigen::go::fmt::quote;
            let mut message = format!(
                "user {} (groups={}) is attempting to grant RBAC permissions not currently held:\n{}",
                quote(&user.username),
                go_strings(&user.groups),
                missing.join("\n")
            );
            if !held.errors.is_empty() {
                message.push_str(&format!("; resolution errors: [{}]", held.errors.join(" ")));
            }
            Err(kube_apigen::Status::forbidden(GROUP, self.plural, name, message))
        })
    }
}

/// Go's `%q` of a `[]string`: `["a" "b"]`.
fn go_strings(values: &[String]) -> String {
    let quoted: Vec<String> = values.iter().map(|v| kube_apigen::go::fmt::quote(v)).collect();
    format!("[{}]", quoted.join(" "))
}

/// The rules of `granted` that `held` does not cover, broken down to one verb, group,
/// resource and name each, those differing only by verb merged again, as RBAC's
/// `CompactString` writes them, sorted (`Covers`, `CompactRules`).
fn missing_rules(held: &Rules, granted: &[PolicyRule]) -> Vec<String> {
    let owner: Vec<PolicyRule> = held
        .resource_rules
        .iter()
        .map(|r| PolicyRule {
            verbs: r.verbs.clone(),
            api_groups: r.api_groups.clone(),
            resources: r.resources.clone(),
            resource_names: r.resource_names.clone(),
            non_resource_urls: Vec::new(),
        })
        .chain(held.non_resource_rules.iter().map(|r| PolicyRule {
            verbs: r.verbs.clone(),
            non_resource_urls: r.non_resource_urls.clone(),
            ..PolicyRule::default()
        }))
        .collect();
    let mut missing: Vec<PolicyRule> = Vec::new();
    for sub in granted.iter().flat_map(breakdown) {
        if owner.iter().any(|rule| covers(rule, &sub)) {
            continue;
        }
        let mergeable = |m: &PolicyRule| {
            sub.resource_names.is_empty()
                && sub.non_resource_urls.is_empty()
                && m.resource_names.is_empty()
                && m.api_groups == sub.api_groups
                && m.resources == sub.resources
        };
        match missing.iter_mut().find(|m| mergeable(m)) {
            Some(merged) => merged.verbs.extend(sub.verbs),
            None => missing.push(sub),
        }
    }
    let mut shown: Vec<String> = missing.iter().map(compact_string).collect();
    shown.sort();
    shown.dedup();
    shown
}

/// One rule per verb, group, resource and name (or per verb and URL).
fn breakdown(rule: &PolicyRule) -> Vec<PolicyRule> {
    let one = |value: &String| vec![value.clone()];
    let mut rules = Vec::new();
    for group in &rule.api_groups {
        for resource in &rule.resources {
            for verb in &rule.verbs {
                let base = PolicyRule {
                    api_groups: one(group),
                    resources: one(resource),
                    verbs: one(verb),
                    ..PolicyRule::default()
                };
                if rule.resource_names.is_empty() {
                    rules.push(base);
                } else {
                    rules.extend(
                        rule.resource_names.iter().map(|name| PolicyRule { resource_names: one(name), ..base.clone() }),
                    );
                }
            }
        }
    }
    for url in &rule.non_resource_urls {
        for verb in &rule.verbs {
            rules.push(PolicyRule { non_resource_urls: one(url), verbs: one(verb), ..PolicyRule::default() });
        }
    }
    rules
}

/// Whether `owner` grants everything `sub` does (RBAC's `ruleCovers`).
fn covers(owner: &PolicyRule, sub: &PolicyRule) -> bool {
    let has_all = |set: &[String], values: &[String]| values.iter().all(|v| set.contains(v));
    let star = |set: &[String]| set.iter().any(|v| v == "*");
    let verbs = star(&owner.verbs) || has_all(&owner.verbs, &sub.verbs);
    let groups = star(&owner.api_groups) || has_all(&owner.api_groups, &sub.api_groups);
    let resources = star(&owner.resources)
        || sub.resources.iter().all(|resource| {
            owner.resources.contains(resource)
                || resource
                    .split_once('/')
                    .is_some_and(|(_, subresource)| owner.resources.contains(&format!("*/{subresource}")))
        });
    let urls =
        sub.non_resource_urls.iter().all(|path| owner.non_resource_urls.iter().any(|url| url_matches(url, path)));
    let names = if sub.resource_names.is_empty() {
        owner.resource_names.is_empty()
    } else {
        owner.resource_names.is_empty() || has_all(&owner.resource_names, &sub.resource_names)
    };
    verbs && groups && resources && urls && names
}

/// A rule as RBAC's `CompactString` writes it: `{APIGroups:["g"], Resources:["r"],
/// Verbs:["get" "list"]}`, absent lists left out.
fn compact_string(rule: &PolicyRule) -> String {
    let parts: Vec<String> = [
        ("APIGroups", &rule.api_groups),
        ("Resources", &rule.resources),
        ("NonResourceURLs", &rule.non_resource_urls),
        ("ResourceNames", &rule.resource_names),
        ("Verbs", &rule.verbs),
    ]
    .into_iter()
    .filter(|(_, values)| !values.is_empty())
    .map(|(name, values)| format!("{name}:{}", go_strings(values)))
    .collect();
    format!("{{{}}}", parts.join(", "))
}

/// The ClusterRoles and ClusterRoleBindings kube-apiserver bootstraps that concern what
/// any server serves: `cluster-admin` (bound to `system:masters`), `admin`, `edit` and
/// `view` (aggregated from the `system:aggregate-to-*` roles), `system:discovery`,
/// `system:basic-user` (bound to every authenticated user) and
/// `system:public-info-viewer` (bound to everyone).
pub fn bootstrap_policy() -> Vec<Value> {
    let read = json!(["get", "list", "watch"]);
    let write = json!(["create", "delete", "deletecollection", "patch", "update"]);
    let all = json!(["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"]);
    let aggregated = |name: &str, into: &str| {
        cluster_role(
            name,
            Some(&format!("rbac.authorization.k8s.io/aggregate-to-{into}")),
            json!({ "aggregationRule": { "clusterRoleSelectors": [
                { "matchLabels": { format!("rbac.authorization.k8s.io/aggregate-to-{name}"): "true" } }
            ] } }),
        )
    };
    let rules = |label: &str, rules: Value| {
        cluster_role(
            &format!("system:aggregate-to-{label}"),
            Some(&format!("rbac.authorization.k8s.io/aggregate-to-{label}")),
            json!({ "rules": rules }),
        )
    };
    let discovery_urls = json!([
        "/api",
        "/api/*",
        "/apis",
        "/apis/*",
        "/healthz",
        "/livez",
        "/openapi",
        "/openapi/*",
        "/readyz",
        "/version",
        "/version/"
    ]);
    let public_urls = json!(["/healthz", "/livez", "/readyz", "/version", "/version/"]);
    vec![
        cluster_role(
            "cluster-admin",
            None,
            json!({ "rules": [
            { "apiGroups": ["*"], "resources": ["*"], "verbs": ["*"] },
            { "nonResourceURLs": ["*"], "verbs": ["*"] },
        ] }),
        ),
        cluster_role(
            "admin",
            None,
            json!({ "aggregationRule": { "clusterRoleSelectors": [
            { "matchLabels": { "rbac.authorization.k8s.io/aggregate-to-admin": "true" } }
        ] } }),
        ),
        aggregated("edit", "admin"),
        aggregated("view", "edit"),
        rules(
            "admin",
            json!([
                { "apiGroups": [GROUP], "resources": ["rolebindings", "roles"], "verbs": all },
                { "apiGroups": ["authorization.k8s.io"], "resources": ["localsubjectaccessreviews"], "verbs": ["create"] },
            ]),
        ),
        rules(
            "edit",
            json!([
                { "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"], "verbs": write },
                { "apiGroups": [""], "resources": ["configmaps", "endpoints", "persistentvolumeclaims", "pods", "replicationcontrollers", "replicationcontrollers/scale", "secrets", "serviceaccounts", "services"], "verbs": write },
                { "apiGroups": ["apps"], "resources": ["daemonsets", "deployments", "deployments/rollback", "deployments/scale", "replicasets", "replicasets/scale", "statefulsets", "statefulsets/scale"], "verbs": write },
                { "apiGroups": ["batch"], "resources": ["cronjobs", "jobs"], "verbs": write },
                { "apiGroups": ["policy"], "resources": ["poddisruptionbudgets"], "verbs": write },
            ]),
        ),
        rules(
            "view",
            json!([
                { "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers", "horizontalpodautoscalers/status"], "verbs": read },
                { "apiGroups": [""], "resources": ["configmaps", "endpoints", "persistentvolumeclaims", "persistentvolumeclaims/status", "pods", "replicationcontrollers", "replicationcontrollers/scale", "serviceaccounts", "services", "services/status", "bindings", "events", "limitranges", "namespaces/status", "pods/log", "pods/status", "replicationcontrollers/status", "resourcequotas", "resourcequotas/status", "namespaces"], "verbs": read },
                { "apiGroups": ["apps"], "resources": ["controllerrevisions", "daemonsets", "daemonsets/status", "deployments", "deployments/scale", "deployments/status", "replicasets", "replicasets/scale", "replicasets/status", "statefulsets", "statefulsets/scale", "statefulsets/status"], "verbs": read },
                { "apiGroups": ["batch"], "resources": ["cronjobs", "cronjobs/status", "jobs", "jobs/status"], "verbs": read },
                { "apiGroups": ["policy"], "resources": ["poddisruptionbudgets", "poddisruptionbudgets/status"], "verbs": read },
            ]),
        ),
        cluster_role(
            "system:discovery",
            None,
            json!({ "rules": [{ "nonResourceURLs": discovery_urls, "verbs": ["get"] }] }),
        ),
        cluster_role(
            "system:basic-user",
            None,
            json!({ "rules": [
            { "apiGroups": ["authorization.k8s.io"], "resources": ["selfsubjectaccessreviews", "selfsubjectrulesreviews"], "verbs": ["create"] },
            { "apiGroups": ["authentication.k8s.io"], "resources": ["selfsubjectreviews"], "verbs": ["create"] },
        ] }),
        ),
        cluster_role(
            "system:public-info-viewer",
            None,
            json!({ "rules": [{ "nonResourceURLs": public_urls, "verbs": ["get"] }] }),
        ),
        cluster_role_binding("cluster-admin", &["system:masters"]),
        cluster_role_binding("system:discovery", &["system:authenticated"]),
        cluster_role_binding("system:basic-user", &["system:authenticated"]),
        cluster_role_binding("system:public-info-viewer", &["system:authenticated", "system:unauthenticated"]),
    ]
}

/// The metadata of a bootstrap object: its name, kube-apiserver's bootstrapping label
/// (and `label`), and the annotation that says the server keeps it up to date.
fn bootstrap_meta(name: &str, label: Option<&str>) -> Value {
    let mut labels = json!({ "kubernetes.io/bootstrapping": "rbac-defaults" });
    if let Some(label) = label {
        labels[label] = json!("true");
    }
    json!({ "name": name, "labels": labels, "annotations": { "rbac.authorization.kubernetes.io/autoupdate": "true" } })
}

fn cluster_role(name: &str, label: Option<&str>, fields: Value) -> Value {
    let mut role = json!({ "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": bootstrap_meta(name, label) });
    if let (Some(role), Some(fields)) = (role.as_object_mut(), fields.as_object()) {
        role.extend(fields.clone());
    }
    role
}

fn cluster_role_binding(role: &str, groups: &[&str]) -> Value {
    let subjects: Vec<Value> =
        groups.iter().map(|group| json!({ "apiGroup": GROUP, "kind": "Group", "name": group })).collect();
    json!({
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": bootstrap_meta(role, None),
        "roleRef": { "apiGroup": GROUP, "kind": "ClusterRole", "name": role },
        "subjects": subjects,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube_apigen::axum::http::Method;

    fn request(method: Method, uri: &str) -> Attributes {
        Attributes::of_request(
            UserInfo { username: "alice".into(), ..Default::default() },
            &method,
            &uri.parse().unwrap(),
        )
    }

    fn rule(value: Value) -> PolicyRule {
        PolicyRule::deserialize(&value).unwrap()
    }

    #[test]
    fn rules_match_verbs_groups_resources_and_names() {
        let list = request(Method::GET, "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers");
        let status = request(Method::PATCH, "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers/web/status");
        let reader = rule(
            json!({ "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"], "verbs": ["get", "list"] }),
        );
        assert!(rule_allows(&list, &reader));
        assert!(!rule_allows(&status, &reader), "the resource does not cover its subresources");
        assert!(
            !rule_allows(&request(Method::GET, "/apis/other/v1/horizontalpodautoscalers"), &reader),
            "another group"
        );
        assert!(!rule_allows(&request(Method::GET, "/apis/autoscaling/v2/horizontalpodautoscalers?watch=1"), &reader));
        let any = rule(json!({ "apiGroups": ["*"], "resources": ["*"], "verbs": ["*"] }));
        assert!(rule_allows(&status, &any), "* covers subresources");
        let sub = rule(
            json!({ "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers/status"], "verbs": ["patch"] }),
        );
        assert!(rule_allows(&status, &sub));
        let any_status = rule(json!({ "apiGroups": ["autoscaling"], "resources": ["*/status"], "verbs": ["patch"] }));
        assert!(rule_allows(&status, &any_status));
        assert!(!rule_allows(
            &request(Method::PATCH, "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers/web/scale"),
            &any_status
        ));
        let named = rule(
            json!({ "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers/status"], "resourceNames": ["db"], "verbs": ["*"] }),
        );
        assert!(!rule_allows(&status, &named), "another name");
        assert!(
            !rule_allows(
                &list,
                &rule(
                    json!({ "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"], "resourceNames": ["web"], "verbs": ["list"] })
                )
            ),
            "a list names no object"
        );
        let by_selector = request(
            Method::GET,
            "/apis/autoscaling/v2/namespaces/a/horizontalpodautoscalers?fieldSelector=metadata.name%3Dweb",
        );
        assert!(rule_allows(
            &by_selector,
            &rule(
                json!({ "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"], "resourceNames": ["web"], "verbs": ["list"] })
            )
        ));
        assert!(
            !rule_allows(&list, &rule(json!({ "nonResourceURLs": ["*"], "verbs": ["*"] }))),
            "URL rules cover no resource"
        );
    }

    #[test]
    fn non_resource_urls_match_exactly_or_by_prefix() {
        let healthz = request(Method::GET, "/healthz/etcd");
        assert!(rule_allows(&healthz, &rule(json!({ "nonResourceURLs": ["/healthz/*"], "verbs": ["get"] }))));
        assert!(rule_allows(&healthz, &rule(json!({ "nonResourceURLs": ["/healthz*"], "verbs": ["get"] }))));
        assert!(!rule_allows(&healthz, &rule(json!({ "nonResourceURLs": ["/healthz"], "verbs": ["get"] }))));
        assert!(!rule_allows(
            &request(Method::POST, "/healthz/etcd"),
            &rule(json!({ "nonResourceURLs": ["*"], "verbs": ["get"] }))
        ));
        assert!(rule_allows(
            &request(Method::GET, "/apis"),
            &rule(json!({ "nonResourceURLs": ["/apis"], "verbs": ["get"] }))
        ));
        assert!(!rule_allows(&healthz, &rule(json!({ "apiGroups": ["*"], "resources": ["*"], "verbs": ["*"] }))));
    }

    #[test]
    fn subjects_name_users_groups_and_service_accounts() {
        let user = UserInfo {
            username: "system:serviceaccount:team-a:deployer".into(),
            groups: vec!["devs".into()],
            ..Default::default()
        };
        let subject = |kind: &str, name: &str, namespace: &str| Subject {
            kind: kind.into(),
            name: name.into(),
            namespace: namespace.into(),
        };
        assert!(applies_to(&user, &[subject("Group", "devs", "")], ""));
        assert!(!applies_to(&user, &[subject("User", "devs", "")], ""));
        assert!(applies_to(&user, &[subject("ServiceAccount", "deployer", "team-a")], ""));
        assert!(applies_to(&user, &[subject("ServiceAccount", "deployer", "")], "team-a"), "the binding's namespace");
        assert!(!applies_to(&user, &[subject("ServiceAccount", "deployer", "")], ""));
        assert!(!applies_to(&user, &[subject("Robot", "devs", "")], ""));
    }

    #[test]
    fn escalation_lists_the_rules_not_held_compacted() {
        let held = Rules {
            resource_rules: vec![ResourceRule {
                verbs: vec!["get".into(), "list".into()],
                api_groups: vec!["autoscaling".into()],
                resources: vec!["horizontalpodautoscalers".into(), "*/status".into()],
                resource_names: vec![],
            }],
            non_resource_rules: vec![NonResourceRule {
                verbs: vec!["get".into()],
                non_resource_urls: vec!["/healthz/*".into()],
            }],
            ..Rules::default()
        };
        let granted = [
            rule(
                json!({ "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers", "horizontalpodautoscalers/status"], "verbs": ["get", "delete", "patch"] }),
            ),
            rule(
                json!({ "apiGroups": ["autoscaling"], "resources": ["horizontalpodautoscalers"], "resourceNames": ["web"], "verbs": ["list"] }),
            ),
            rule(json!({ "nonResourceURLs": ["/healthz/etcd", "/metrics"], "verbs": ["get"] })),
        ];
        assert_eq!(
            missing_rules(&held, &granted),
            [
                r#"{APIGroups:["autoscaling"], Resources:["horizontalpodautoscalers"], Verbs:["delete" "patch"]}"#,
                r#"{APIGroups:["autoscaling"], Resources:["horizontalpodautoscalers/status"], Verbs:["delete" "patch"]}"#,
                r#"{NonResourceURLs:["/metrics"], Verbs:["get"]}"#,
            ]
        );
        assert!(missing_rules(&held, &granted[1..2]).is_empty(), "a name is covered by a rule for every name");
    }

    #[test]
    fn reasons_aggregate_errors_once() {
        assert_eq!(reason(vec![]), "");
        assert_eq!(reason(vec!["a".into(), "a".into()]), "RBAC: a");
        assert_eq!(reason(vec!["a".into(), "b".into()]), "RBAC: [a, b]");
    }
}
