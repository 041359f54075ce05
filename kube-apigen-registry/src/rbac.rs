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
//! - a ClusterRole with an `aggregationRule` grants the rules of every ClusterRole its
//!   selectors match, read at request time, so that a new role is picked up at once.
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

/// Whether a `metav1.LabelSelector` (`matchLabels`, `matchExpressions`) selects an object
/// with `labels`; an empty selector selects everything.
fn selects(selector: &Value, labels: Option<&serde_json::Map<String, Value>>) -> bool {
    let label = |key: &str| labels.and_then(|labels| labels.get(key)).and_then(Value::as_str);
    let match_labels = selector.get("matchLabels").and_then(Value::as_object);
    let labels_match = match_labels.into_iter().flatten().all(|(key, value)| label(key) == value.as_str());
    let expressions = selector.get("matchExpressions").and_then(Value::as_array);
    let expressions_match = expressions.into_iter().flatten().all(|expression| {
        let key = expression.get("key").and_then(Value::as_str).unwrap_or("");
        let values: Vec<&str> = expression
            .get("values")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        match expression.get("operator").and_then(Value::as_str).unwrap_or("") {
            "In" => label(key).is_some_and(|v| values.contains(&v)),
            "NotIn" => label(key).is_none_or(|v| !values.contains(&v)),
            "Exists" => label(key).is_some(),
            "DoesNotExist" => label(key).is_none(),
            _ => false,
        }
    });
    labels_match && expressions_match
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
        Ok(Rbac { store, resources, bootstrapped: OnceCell::new() })
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
                    match self.store.handle(Context::default(), request).await {
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
        let mut rules = rules_of(&role.object);
        if let Some(selectors) = role.object.pointer("/aggregationRule/clusterRoleSelectors").and_then(Value::as_array)
        {
            for other in self.list(&self.store.resource_prefix(self.resources.cluster_roles)).await? {
                let labels = crate::object::labels(&other);
                if other.pointer("/metadata/name") != role.object.pointer("/metadata/name")
                    && selectors.iter().any(|selector| selects(selector, labels))
                {
                    rules.extend(rules_of(&other));
                }
            }
        }
        Ok(rules)
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
    fn selectors_match_labels_and_expressions() {
        let labels = json!({ "a": "1", "b": "2" });
        let labels = labels.as_object();
        assert!(selects(&json!({}), labels));
        assert!(selects(&json!({ "matchLabels": { "a": "1" } }), labels));
        assert!(!selects(&json!({ "matchLabels": { "a": "2" } }), labels));
        assert!(selects(
            &json!({ "matchExpressions": [{ "key": "b", "operator": "In", "values": ["2", "3"] }] }),
            labels
        ));
        assert!(!selects(&json!({ "matchExpressions": [{ "key": "c", "operator": "Exists" }] }), labels));
        assert!(selects(
            &json!({ "matchExpressions": [{ "key": "c", "operator": "NotIn", "values": ["1"] }] }),
            labels
        ));
    }

    #[test]
    fn reasons_aggregate_errors_once() {
        assert_eq!(reason(vec![]), "");
        assert_eq!(reason(vec!["a".into(), "a".into()]), "RBAC: a");
        assert_eq!(reason(vec!["a".into(), "b".into()]), "RBAC: [a, b]");
    }
}
