//! `/metrics`: the API server's request and storage metrics, under kube-apiserver's names,
//! in the Prometheus text format (OpenMetrics), with the `prometheus-client` crate.
//!
//! - `apiserver_request_total{verb,group,version,resource,subresource,code}`: requests
//!   answered;
//! - `apiserver_request_duration_seconds{verb,group,version,resource,subresource}`: how
//!   long they took (kube-apiserver's buckets; watches count until their headers);
//! - `apiserver_current_inflight_requests{request_kind}`: requests being served,
//!   `readOnly` or `mutating`, watches aside;
//! - `apiserver_longrunning_requests{verb,group,version,resource,subresource}`: open
//!   watches;
//! - `apiserver_storage_objects{resource}`: objects stored per `<plural>.<group>`, counted
//!   when scraped.

use std::sync::Mutex;

use kube_apigen::axum::http::{Method, Uri};
use kube_apigen::http::{Attributes, UserInfo};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::Store;

/// What a request does, as the API server's request info names it.
#[derive(Clone, Debug, Default, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    /// `get`, `list`, `watch`, `create`, `update`, `patch`, `delete` or
    /// `deletecollection`; for other methods and for paths that name no resource, the
    /// method in lower case, and the other labels empty.
    pub verb: String,
    /// The API group; empty for the core group.
    pub group: String,
    /// The API version (`v1`, `v2`).
    pub version: String,
    /// The resource, by its plural (`horizontalpodautoscalers`).
    pub resource: String,
    /// The subresource (`status`, `scale`); empty for the resource itself.
    pub subresource: String,
}

impl RequestLabels {
    /// The verb, group, version, resource and subresource of a request, as authorization
    /// reads them from its method and URI ([`Attributes::of_request`]). Paths that name no
    /// resource, and methods that are no verb, have only a verb: the method in lower case.
    pub fn of(method: &Method, uri: &Uri) -> Self {
        let attributes = Attributes::of_request(UserInfo::default(), method, uri);
        if !attributes.resource_request || attributes.verb.is_empty() {
            return RequestLabels { verb: method.as_str().to_ascii_lowercase(), ..RequestLabels::default() };
        }
        RequestLabels {
            verb: attributes.verb,
            group: attributes.api_group,
            version: attributes.api_version,
            resource: attributes.resource,
            subresource: attributes.subresource,
        }
    }

    /// Whether the request only reads (`apiserver_current_inflight_requests`' kinds).
    pub fn read_only(&self) -> bool {
        matches!(self.verb.as_str(), "get" | "list" | "watch" | "head")
    }
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct AnsweredLabels {
    verb: String,
    group: String,
    version: String,
    resource: String,
    subresource: String,
    code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct KindLabels {
    request_kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ResourceLabels {
    resource: String,
}

/// kube-apiserver's buckets of `apiserver_request_duration_seconds`.
const DURATION_BUCKETS: [f64; 23] = [
    0.005, 0.025, 0.05, 0.1, 0.2, 0.4, 0.6, 0.8, 1.0, 1.25, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 15.0, 20.0, 30.0,
    45.0, 60.0,
];

/// The server's metrics.
pub struct Metrics {
    registry: Registry,
    requests: Family<AnsweredLabels, Counter>,
    durations: Family<RequestLabels, Histogram>,
    inflight: Family<KindLabels, Gauge>,
    longrunning: Family<RequestLabels, Gauge>,
    objects: Family<ResourceLabels, Gauge>,
    /// Scrapes take turns: each sets the object counts, then encodes.
    scrape: Mutex<()>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// The metrics of the module documentation, registered, with no series yet.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<AnsweredLabels, Counter>::default();
        // `prometheus-client` adds `_total` to counters.
        registry.register("apiserver_request", "Counter of apiserver requests broken out for each verb, group, version, resource, subresource and HTTP response code.", requests.clone());
        let durations = Family::<RequestLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(DURATION_BUCKETS.iter().copied())
        });
        registry.register(
            "apiserver_request_duration_seconds",
            "Response latency distribution in seconds for each verb, group, version, resource and subresource.",
            durations.clone(),
        );
        let inflight = Family::<KindLabels, Gauge>::default();
        registry.register(
            "apiserver_current_inflight_requests",
            "Maximal number of currently used inflight request limit of this apiserver per request kind in last second.",
            inflight.clone(),
        );
        let longrunning = Family::<RequestLabels, Gauge>::default();
        registry.register(
            "apiserver_longrunning_requests",
            "Gauge of all active long-running apiserver requests broken out by verb, group, version, resource and subresource.",
            longrunning.clone(),
        );
        let objects = Family::<ResourceLabels, Gauge>::default();
        registry.register(
            "apiserver_storage_objects",
            "Number of stored objects at the time of last check split by kind.",
            objects.clone(),
        );
        Metrics { registry, requests, durations, inflight, longrunning, objects, scrape: Mutex::new(()) }
    }

    /// Counts an answered request and how long it took.
    pub fn answered(&self, request: &RequestLabels, code: u16, seconds: f64) {
        let labels = AnsweredLabels {
            verb: request.verb.clone(),
            group: request.group.clone(),
            version: request.version.clone(),
            resource: request.resource.clone(),
            subresource: request.subresource.clone(),
            code: code.to_string(),
        };
        self.requests.get_or_create(&labels).inc();
        self.durations.get_or_create(request).observe(seconds);
    }

    /// The gauge of requests in flight of `request`'s kind.
    pub fn inflight(&self, request: &RequestLabels) -> Gauge {
        let request_kind = if request.read_only() { "readOnly" } else { "mutating" };
        self.inflight.get_or_create(&KindLabels { request_kind }).clone()
    }

    /// The gauge of open long-running requests like `request`.
    pub fn longrunning(&self, request: &RequestLabels) -> Gauge {
        self.longrunning.get_or_create(request).clone()
    }

    /// The text of `/metrics`, with the object counts of `store` as they are now.
    pub async fn scrape(&self, store: &Store) -> String {
        let counts = store.object_counts().await;
        let _turn = self.scrape.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for (resource, count) in counts {
            self.objects.get_or_create(&ResourceLabels { resource }).set(count as i64);
        }
        let mut text = String::new();
        // Writing to a String does not fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(method: &str, path: &str, query: Option<&str>) -> (String, String, String, String, String) {
        let uri = match query {
            Some(query) => format!("{path}?{query}"),
            None => path.to_owned(),
        };
        let l = RequestLabels::of(&method.parse().unwrap(), &uri.parse().unwrap());
        (l.verb, l.group, l.version, l.resource, l.subresource)
    }

    fn owned(values: [&str; 5]) -> (String, String, String, String, String) {
        let [a, b, c, d, e] = values.map(str::to_owned);
        (a, b, c, d, e)
    }

    #[test]
    fn request_labels_follow_the_path() {
        let hpas = "/apis/autoscaling/v2/namespaces/ns/horizontalpodautoscalers";
        assert_eq!(labels("GET", hpas, None), owned(["list", "autoscaling", "v2", "horizontalpodautoscalers", ""]));
        assert_eq!(
            labels("GET", hpas, Some("watch=true&resourceVersion=1")),
            owned(["watch", "autoscaling", "v2", "horizontalpodautoscalers", ""])
        );
        assert_eq!(
            labels("PATCH", &format!("{hpas}/web/status"), None),
            owned(["patch", "autoscaling", "v2", "horizontalpodautoscalers", "status"])
        );
        assert_eq!(
            labels("DELETE", hpas, None),
            owned(["deletecollection", "autoscaling", "v2", "horizontalpodautoscalers", ""])
        );
        assert_eq!(
            labels("GET", "/apis/autoscaling/v2/watch/horizontalpodautoscalers", None),
            owned(["watch", "autoscaling", "v2", "horizontalpodautoscalers", ""])
        );
        assert_eq!(
            labels("GET", "/apis/certificates.k8s.io/v1/certificatesigningrequests/x", None),
            owned(["get", "certificates.k8s.io", "v1", "certificatesigningrequests", ""])
        );
        assert_eq!(labels("GET", "/api/v1/namespaces", None), owned(["list", "", "v1", "namespaces", ""]));
        assert_eq!(labels("GET", "/apis/autoscaling/v2", None), owned(["get", "", "", "", ""]));
        assert_eq!(labels("GET", "/version", None), owned(["get", "", "", "", ""]));
    }
}
