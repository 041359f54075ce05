//! What Kubernetes' OpenAPI documents do not say about its built-in kinds: short names,
//! categories and name rules, which discovery and validation need, and which kinds are
//! never stored. A spec's own
//! `x-kubernetes-*` extensions take precedence.

use kube_apigen_validation::meta::NameRule;

/// A built-in kind's discovery names and name rule.
pub struct BuiltinKind {
    pub group: &'static str,
    pub kind: &'static str,
    pub short_names: &'static [&'static str],
    pub categories: &'static [&'static str],
    pub name_rule: NameRule,
}

/// Whether Kubernetes stores the objects of a kind: not those of the reviews, which a
/// create answers and forgets, and whose metadata the API server does not check.
pub fn is_stored(group: &str, kind: &str) -> bool {
    !UNSTORED_KINDS.contains(&(group, kind))
}

const UNSTORED_KINDS: &[(&str, &str)] = &[
    ("authorization.k8s.io", "SelfSubjectAccessReview"),
    ("authorization.k8s.io", "SubjectAccessReview"),
    ("authorization.k8s.io", "LocalSubjectAccessReview"),
    ("authorization.k8s.io", "SelfSubjectRulesReview"),
    ("authentication.k8s.io", "SelfSubjectReview"),
    ("authentication.k8s.io", "TokenReview"),
];

/// The built-in kind of a group and kind, if Kubernetes has one.
pub fn builtin_kind(group: &str, kind: &str) -> Option<&'static BuiltinKind> {
    BUILTIN_KINDS.iter().find(|k| k.group == group && k.kind == kind)
}

const fn kind(
    group: &'static str,
    kind: &'static str,
    short_names: &'static [&'static str],
    categories: &'static [&'static str],
    name_rule: NameRule,
) -> BuiltinKind {
    BuiltinKind { group, kind, short_names, categories, name_rule }
}

use NameRule::{Dns1123Label as Label, Dns1123Subdomain as Subdomain, PathSegment};

const BUILTIN_KINDS: &[BuiltinKind] = &[
    kind("autoscaling", "HorizontalPodAutoscaler", &["hpa"], &["all"], Subdomain),
    // Kubernetes accepts any name for a CSR; only the URL path limits it.
    kind("certificates.k8s.io", "CertificateSigningRequest", &["csr"], &[], PathSegment),
    kind("", "Pod", &["po"], &["all"], Subdomain),
    kind("", "Service", &["svc"], &["all"], Label),
    kind("", "Namespace", &["ns"], &[], Label),
    kind("", "ConfigMap", &["cm"], &[], Subdomain),
    kind("", "Secret", &[], &[], Subdomain),
    kind("", "ServiceAccount", &["sa"], &[], Subdomain),
    kind("", "Event", &["ev"], &[], Subdomain),
    kind("", "Endpoints", &["ep"], &[], Subdomain),
    kind("apps", "Deployment", &["deploy"], &["all"], Subdomain),
    kind("apps", "StatefulSet", &["sts"], &["all"], Subdomain),
    kind("apps", "DaemonSet", &["ds"], &["all"], Subdomain),
    kind("apps", "ReplicaSet", &["rs"], &["all"], Subdomain),
    kind("policy", "PodDisruptionBudget", &["pdb"], &[], Subdomain),
    kind("apiextensions.k8s.io", "CustomResourceDefinition", &["crd", "crds"], &["api-extensions"], Subdomain),
    kind("discovery.k8s.io", "EndpointSlice", &[], &[], Subdomain),
    kind("events.k8s.io", "Event", &["ev"], &[], Subdomain),
    kind("coordination.k8s.io", "Lease", &[], &[], Subdomain),
    kind("rbac.authorization.k8s.io", "Role", &[], &[], PathSegment),
    kind("rbac.authorization.k8s.io", "ClusterRole", &[], &[], PathSegment),
    kind("rbac.authorization.k8s.io", "RoleBinding", &[], &[], PathSegment),
    kind("rbac.authorization.k8s.io", "ClusterRoleBinding", &[], &[], PathSegment),
];
