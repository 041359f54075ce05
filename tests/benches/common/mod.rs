//! What the GET benchmarks share: the server behind the generated router and the path it
//! serves.

use std::sync::Arc;

use generated::api::autoscaling::v2::{HorizontalPodAutoscaler, HorizontalPodAutoscalerApi};
use generated::api::certificates::v1::CertificateSigningRequestApi;
use generated::params::{NamespaceNamePath, ReadParams};
use kube_apigen::Status;
use kube_apigen::http::Context;

/// The path of the HPA the benchmarks GET.
pub const PATH: &str = "/apis/autoscaling/v2/namespaces/shop/horizontalpodautoscalers/keda-hpa-checkout";

/// The server behind the generated router: `read` answers a clone of one object.
pub struct OneHpa(pub Arc<HorizontalPodAutoscaler>);

impl HorizontalPodAutoscalerApi for OneHpa {
    async fn read(
        &self,
        _context: Context,
        _path: NamespaceNamePath,
        _params: ReadParams,
    ) -> Result<HorizontalPodAutoscaler, Status> {
        Ok(HorizontalPodAutoscaler::clone(&self.0))
    }
}

impl CertificateSigningRequestApi for OneHpa {}
impl generated::com::coreos::monitoring::v1::ProbeApi for OneHpa {}
impl generated::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinitionApi for OneHpa {}
impl generated::api::rbac::v1::RoleApi for OneHpa {}
impl generated::api::rbac::v1::ClusterRoleApi for OneHpa {}
impl generated::api::rbac::v1::RoleBindingApi for OneHpa {}
impl generated::api::rbac::v1::ClusterRoleBindingApi for OneHpa {}
impl generated::api::core::v1::NamespaceApi for OneHpa {}
impl generated::api::core::v1::ConfigMapApi for OneHpa {}
impl generated::api::core::v1::SecretApi for OneHpa {}
impl generated::api::core::v1::ServiceAccountApi for OneHpa {}
impl generated::api::core::v1::EventApi for OneHpa {}
impl generated::api::core::v1::ServiceApi for OneHpa {}
impl generated::api::core::v1::EndpointsApi for OneHpa {}
impl generated::api::core::v1::PodApi for OneHpa {}
impl generated::api::apps::v1::DeploymentApi for OneHpa {}
impl generated::api::apps::v1::ReplicaSetApi for OneHpa {}
impl generated::api::coordination::v1::LeaseApi for OneHpa {}
impl generated::api::discovery::v1::EndpointSliceApi for OneHpa {}
impl generated::api::events::v1::EventApi for OneHpa {}
impl generated::api::authorization::v1::SelfSubjectAccessReviewApi for OneHpa {}
impl generated::api::authorization::v1::SubjectAccessReviewApi for OneHpa {}
impl generated::api::authorization::v1::LocalSubjectAccessReviewApi for OneHpa {}
impl generated::api::authorization::v1::SelfSubjectRulesReviewApi for OneHpa {}
impl generated::api::authentication::v1::SelfSubjectReviewApi for OneHpa {}
