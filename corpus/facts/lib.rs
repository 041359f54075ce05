//! Facts about the crate generated from all upstream Kubernetes documents together,
//! checked by the compiler: the corpus test builds (and lints) this crate beside the
//! generated ones; it is never run. The test copies this file into the scratch workspace.

use all::api::autoscaling::{v1 as autoscaling_v1, v2 as autoscaling_v2};
use all::api::certificates::v1::CertificateSigningRequest;
use all::api::coordination::v1::Lease;
use all::api::discovery::v1::EndpointSlice;
use all::api::policy::v1::PodDisruptionBudget;
use all::api::rbac::v1::{ClusterRole, ClusterRoleBinding, Role, RoleBinding};
use all::apiextensions_apiserver::pkg::apis::apiextensions::v1::{CustomResourceDefinition, JSONSchemaProps};
use all::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube_apigen::{Resource, Scope};

/// String equality in constant evaluation.
const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// For each resource of each document: its `kube_apigen::Resource` description (checked at
/// compile time) and a `metadata` field of the one shared `ObjectMeta` type.
macro_rules! resources {
    ($($resource:path => $group:literal, $version:literal, $kind:literal, $plural:literal, $scope:ident;)*) => {
        /// Puts one `ObjectMeta` into a resource of every document: this compiles only if
        /// they all share that one type. Returns how many resources took it.
        pub fn share_metadata(meta: &ObjectMeta) -> usize {
            let mut shared = 0;
            $(
                let mut resource = <$resource>::default();
                resource.metadata = Some(meta.clone());
                shared += usize::from(resource.metadata.as_ref() == Some(meta));
            )*
            shared
        }

        /// How many resource types the combined crate has.
        pub const RESOURCES: usize = [$(stringify!($resource)),*].len();

        const _: () = {
            $(
                assert!(same(<$resource as Resource>::INFO.group, $group));
                assert!(same(<$resource as Resource>::INFO.version, $version));
                assert!(same(<$resource as Resource>::INFO.kind, $kind));
                assert!(same(<$resource as Resource>::INFO.plural, $plural));
                assert!(matches!(<$resource as Resource>::INFO.scope, Scope::$scope));
            )*
        };
    };
}

resources! {
    CustomResourceDefinition => "apiextensions.k8s.io", "v1", "CustomResourceDefinition", "customresourcedefinitions", Cluster;
    autoscaling_v1::HorizontalPodAutoscaler => "autoscaling", "v1", "HorizontalPodAutoscaler", "horizontalpodautoscalers", Namespaced;
    autoscaling_v2::HorizontalPodAutoscaler => "autoscaling", "v2", "HorizontalPodAutoscaler", "horizontalpodautoscalers", Namespaced;
    CertificateSigningRequest => "certificates.k8s.io", "v1", "CertificateSigningRequest", "certificatesigningrequests", Cluster;
    Lease => "coordination.k8s.io", "v1", "Lease", "leases", Namespaced;
    EndpointSlice => "discovery.k8s.io", "v1", "EndpointSlice", "endpointslices", Namespaced;
    PodDisruptionBudget => "policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets", Namespaced;
    ClusterRole => "rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", Cluster;
    ClusterRoleBinding => "rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", Cluster;
    Role => "rbac.authorization.k8s.io", "v1", "Role", "roles", Namespaced;
    RoleBinding => "rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", Namespaced;
}

/// `JSONSchemaProps` contains itself: by value in `not` (which must be boxed for the type
/// to have a size at all) and through `allOf` and `properties`.
pub fn nested_schema() -> JSONSchemaProps {
    let leaf = JSONSchemaProps { type_: Some("string".to_owned()), ..Default::default() };
    JSONSchemaProps {
        not: Some(Box::new(leaf.clone())),
        all_of: Some(vec![leaf.clone()]),
        properties: Some([("name".to_owned(), leaf)].into()),
        ..Default::default()
    }
}
