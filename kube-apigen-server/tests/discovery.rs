//! Discovery and OpenAPI documents: exact JSON in process, and the real `kubectl` against a
//! served catalog.
//!
//! Set `SUPPORT_DISCOVERY_LOG=1` to print every request `kubectl` makes (method, path,
//! `Accept`, `If-None-Match`, response status) and `kubectl`'s output.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::Request;
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::routing::get;
use kube_apigen_core::Status;
use kube_apigen_core::resource::{KindInfo, ResourceInfo, Scope, SubresourceInfo};
use kube_apigen_server::discovery::{ApiCatalog, GroupVersionInfo, VersionInfo, openapi_hash, routes};
use tower::ServiceExt;

const WIDGET_OPENAPI: &str = r##"{
  "openapi": "3.0.0",
  "info": {"title": "Kubernetes", "version": "v1.32.0"},
  "paths": {
    "/apis/widgets.example.com/v1/namespaces/{namespace}/widgets/{name}": {
      "get": {
        "description": "read the specified Widget",
        "operationId": "readWidgetsExampleComV1NamespacedWidget",
        "responses": {
          "200": {
            "description": "OK",
            "content": {
              "application/json": {
                "schema": {"$ref": "#/components/schemas/com.example.widgets.v1.Widget"}
              }
            }
          }
        },
        "x-kubernetes-action": "get",
        "x-kubernetes-group-version-kind": {"group": "widgets.example.com", "version": "v1", "kind": "Widget"}
      },
      "parameters": [
        {"name": "name", "in": "path", "description": "name of the Widget", "required": true, "schema": {"type": "string", "uniqueItems": true}},
        {"name": "namespace", "in": "path", "description": "object name and auth scope", "required": true, "schema": {"type": "string", "uniqueItems": true}}
      ]
    }
  },
  "components": {
    "schemas": {
      "com.example.widgets.v1.Widget": {
        "description": "Widget is a small thing served by the discovery test.",
        "type": "object",
        "properties": {
          "apiVersion": {"description": "APIVersion defines the versioned schema of this representation of an object.", "type": "string"},
          "kind": {"description": "Kind is a string value representing the REST resource this object represents.", "type": "string"},
          "metadata": {"description": "Standard object's metadata.", "type": "object"},
          "spec": {
            "description": "WidgetSpec is the desired state of a widget.",
            "type": "object",
            "required": ["size"],
            "properties": {
              "size": {"description": "Size of the widget in whole centimetres.", "type": "integer", "format": "int32", "minimum": 1}
            }
          }
        },
        "x-kubernetes-group-version-kind": [{"group": "widgets.example.com", "kind": "Widget", "version": "v1"}]
      }
    }
  }
}"##;

const CRD_VERBS: &[&str] = &["delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"];

static WIDGET: ResourceInfo = ResourceInfo {
    group: "widgets.example.com",
    version: "v1",
    kind: "Widget",
    plural: "widgets",
    singular: "widget",
    scope: Scope::Namespaced,
    verbs: CRD_VERBS,
    short_names: &["wd"],
    categories: &["all"],
    subresources: &[
        SubresourceInfo { name: "status", verbs: &["get", "patch", "update"], kind: None },
        SubresourceInfo {
            name: "scale",
            verbs: &["get", "patch", "update"],
            kind: Some(KindInfo { group: "autoscaling", version: "v1", kind: "Scale" }),
        },
    ],
    ..ResourceInfo::EMPTY
};

const V1_32: VersionInfo = VersionInfo { major: "1", minor: "32", git_version: "v1.32.0" };

static WIDGETS: ApiCatalog = ApiCatalog {
    groups: &[GroupVersionInfo {
        group: "widgets.example.com",
        version: "v1",
        resources: &[&WIDGET],
        openapi: WIDGET_OPENAPI,
    }],
    version: V1_32,
};

static NAMESPACE: ResourceInfo = ResourceInfo {
    version: "v1",
    kind: "Namespace",
    plural: "namespaces",
    singular: "namespace",
    scope: Scope::Cluster,
    verbs: &["get", "list"],
    short_names: &["ns"],
    ..ResourceInfo::EMPTY
};

/// Several groups and versions, listed in an order the API server would not use.
static MIXED: ApiCatalog = ApiCatalog {
    groups: &[
        GroupVersionInfo { group: "monitoring.coreos.com", version: "v1alpha1", resources: &[], openapi: "" },
        GroupVersionInfo {
            group: "monitoring.coreos.com",
            version: "v1",
            resources: &[],
            openapi: r#"{"openapi":"3.0.0"}"#,
        },
        GroupVersionInfo { group: "certificates.k8s.io", version: "v1", resources: &[], openapi: "" },
        GroupVersionInfo { group: "autoscaling", version: "v2beta2", resources: &[], openapi: "" },
        GroupVersionInfo { group: "autoscaling", version: "v1", resources: &[], openapi: "" },
        GroupVersionInfo { group: "autoscaling", version: "v2", resources: &[], openapi: "" },
        GroupVersionInfo {
            group: "",
            version: "v1",
            resources: &[&NAMESPACE],
            openapi: r#"{"openapi":"3.0.0","info":{"title":"core"}}"#,
        },
    ],
    version: V1_32,
};

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Answer {
    fn header(&self, name: header::HeaderName) -> Option<&str> {
        self.headers.get(name).map(|value| value.to_str().unwrap())
    }
}

async fn call(app: Router, method: Method, uri: &str, headers: &[(header::HeaderName, &str)]) -> Answer {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(name, *value);
    }
    let response = app.oneshot(request.body(Body::empty()).unwrap()).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    Answer { status, headers, body: String::from_utf8(bytes.to_vec()).unwrap() }
}

async fn get_json(catalog: &'static ApiCatalog, uri: &str) -> String {
    let answer = call(routes(catalog), Method::GET, uri, &[]).await;
    assert_eq!(answer.status, StatusCode::OK, "{uri}: {}", answer.body);
    assert_eq!(answer.header(header::CONTENT_TYPE), Some("application/json"), "{uri}");
    answer.body
}

const NOT_FOUND: &str = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server could not find the requested resource","reason":"NotFound","details":{},"code":404}"#;

#[tokio::test]
async fn group_list() {
    assert_eq!(
        get_json(&WIDGETS, "/apis").await,
        r#"{"kind":"APIGroupList","apiVersion":"v1","groups":[{"name":"widgets.example.com","versions":[{"groupVersion":"widgets.example.com/v1","version":"v1"}],"preferredVersion":{"groupVersion":"widgets.example.com/v1","version":"v1"}}]}"#
    );
}

#[tokio::test]
async fn group() {
    assert_eq!(
        get_json(&WIDGETS, "/apis/widgets.example.com").await,
        r#"{"kind":"APIGroup","apiVersion":"v1","name":"widgets.example.com","versions":[{"groupVersion":"widgets.example.com/v1","version":"v1"}],"preferredVersion":{"groupVersion":"widgets.example.com/v1","version":"v1"}}"#
    );
}

#[tokio::test]
async fn resource_list() {
    assert_eq!(
        get_json(&WIDGETS, "/apis/widgets.example.com/v1").await,
        concat!(
            r#"{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"widgets.example.com/v1","resources":["#,
            r#"{"name":"widgets","singularName":"widget","namespaced":true,"kind":"Widget","verbs":["delete","deletecollection","get","list","patch","create","update","watch"],"shortNames":["wd"],"categories":["all"],"storageVersionHash":"0oHcIOftZNc="},"#,
            r#"{"name":"widgets/status","singularName":"","namespaced":true,"kind":"Widget","verbs":["get","patch","update"]},"#,
            r#"{"name":"widgets/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]}"#,
            r#"]}"#
        )
    );
}

#[tokio::test]
async fn version() {
    let body = get_json(&WIDGETS, "/version").await;
    let value: serde_json::Value = serde_json::from_str(&body).unwrap();
    let keys: Vec<&str> = value.as_object().unwrap().keys().map(String::as_str).collect();
    // serde_json's map is sorted; the order on the wire is checked below.
    assert_eq!(
        keys,
        ["buildDate", "compiler", "gitCommit", "gitTreeState", "gitVersion", "goVersion", "major", "minor", "platform"]
    );
    assert!(
        body.starts_with("{\n  \"major\": \"1\",\n  \"minor\": \"32\",\n  \"gitVersion\": \"v1.32.0\",\n"),
        "{body}"
    );
    assert!(value["platform"].as_str().unwrap().contains('/'));
}

#[tokio::test]
async fn order_and_preferred_versions() {
    assert_eq!(
        get_json(&MIXED, "/apis").await,
        concat!(
            r#"{"kind":"APIGroupList","apiVersion":"v1","groups":["#,
            r#"{"name":"autoscaling","versions":[{"groupVersion":"autoscaling/v2","version":"v2"},{"groupVersion":"autoscaling/v1","version":"v1"},{"groupVersion":"autoscaling/v2beta2","version":"v2beta2"}],"preferredVersion":{"groupVersion":"autoscaling/v2","version":"v2"}},"#,
            r#"{"name":"certificates.k8s.io","versions":[{"groupVersion":"certificates.k8s.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"certificates.k8s.io/v1","version":"v1"}},"#,
            r#"{"name":"monitoring.coreos.com","versions":[{"groupVersion":"monitoring.coreos.com/v1","version":"v1"},{"groupVersion":"monitoring.coreos.com/v1alpha1","version":"v1alpha1"}],"preferredVersion":{"groupVersion":"monitoring.coreos.com/v1","version":"v1"}}"#,
            r#"]}"#
        )
    );
    assert_eq!(MIXED.preferred_version("autoscaling"), Some("v2"));
    assert_eq!(MIXED.preferred_version("monitoring.coreos.com"), Some("v1"));
    assert_eq!(MIXED.preferred_version("apps"), None);
}

#[tokio::test]
async fn core_group() {
    let answer = call(routes(&MIXED), Method::GET, "/api", &[(header::HOST, "10.0.0.1:6443")]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.body,
        r#"{"kind":"APIVersions","versions":["v1"],"serverAddressByClientCIDRs":[{"clientCIDR":"0.0.0.0/0","serverAddress":"10.0.0.1:6443"}]}"#
    );
    assert_eq!(
        get_json(&MIXED, "/api/v1").await,
        r#"{"kind":"APIResourceList","groupVersion":"v1","resources":[{"name":"namespaces","singularName":"namespace","namespaced":false,"kind":"Namespace","verbs":["get","list"],"shortNames":["ns"],"storageVersionHash":"Q3oi5N2YM8M="}]}"#
    );
    assert_eq!(get_json(&MIXED, "/openapi/v3/api/v1").await, r#"{"openapi":"3.0.0","info":{"title":"core"}}"#);
}

#[tokio::test]
async fn not_found() {
    for (catalog, uri) in [
        (&WIDGETS, "/api"),
        (&WIDGETS, "/api/v1"),
        (&WIDGETS, "/apis/nope.example.com"),
        (&WIDGETS, "/apis/nope.example.com/v1"),
        (&WIDGETS, "/apis/widgets.example.com/v2"),
        (&WIDGETS, "/openapi/v3/apis/widgets.example.com/v2"),
        (&WIDGETS, "/openapi/v3/api/v1"),
        (&MIXED, "/api/v2"),
        (&MIXED, "/apis/"),
        // A group-version without a document.
        (&MIXED, "/openapi/v3/apis/autoscaling/v2"),
    ] {
        let answer = call(routes(catalog), Method::GET, uri, &[]).await;
        if uri == "/apis/" {
            // Not a discovery route at all: whatever the application's fallback says.
            assert_eq!(answer.status, StatusCode::NOT_FOUND, "{uri}");
            continue;
        }
        assert_eq!(answer.status, StatusCode::NOT_FOUND, "{uri}");
        assert_eq!(answer.header(header::CONTENT_TYPE), Some("application/json"), "{uri}");
        assert_eq!(answer.body, NOT_FOUND, "{uri}");
    }
}

#[tokio::test]
async fn method_not_allowed() {
    let answer = call(routes(&WIDGETS), Method::POST, "/apis", &[]).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the server does not allow this method on the requested resource","reason":"MethodNotAllowed","details":{},"code":405}"#
    );
    let answer = call(routes(&WIDGETS), Method::HEAD, "/apis", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, "");
}

// ---------------------------------------------------------------------------------------
// Aggregated discovery.

/// What kubectl 1.32, client-go and kube-rs send to `/api` and `/apis`.
const KUBECTL_DISCOVERY_ACCEPT: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json";
const V2: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const V2BETA1: &str = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList";
const LIST_V2: &str = r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":"#;

const V1_33: VersionInfo = VersionInfo { major: "1", minor: "33", git_version: "v1.33.0" };
const V1_34: VersionInfo = VersionInfo { major: "1", minor: "34", git_version: "v1.34.0" };

/// Built-in groups: the core group and `autoscaling`, as kube-apiserver lists them
/// (`pods/eviction` speaking another group's kind).
const BUILT_IN_GROUPS: &[GroupVersionInfo] = &[
    GroupVersionInfo { group: "autoscaling", version: "v2", resources: &[&HPA], openapi: "" },
    GroupVersionInfo { group: "", version: "v1", resources: &[&NAMESPACE_WITH_FINALIZE, &POD], openapi: "" },
];

static HPA: ResourceInfo = ResourceInfo {
    group: "autoscaling",
    version: "v2",
    kind: "HorizontalPodAutoscaler",
    plural: "horizontalpodautoscalers",
    singular: "horizontalpodautoscaler",
    verbs: &["create", "delete", "get"],
    short_names: &["hpa"],
    categories: &["all"],
    subresources: &[SubresourceInfo { name: "status", verbs: &["get", "patch", "update"], kind: None }],
    ..ResourceInfo::EMPTY
};

static NAMESPACE_WITH_FINALIZE: ResourceInfo =
    ResourceInfo { subresources: &[SubresourceInfo { name: "finalize", verbs: &["update"], kind: None }], ..NAMESPACE };

static POD: ResourceInfo = ResourceInfo {
    version: "v1",
    kind: "Pod",
    plural: "pods",
    singular: "pod",
    verbs: &["get", "list"],
    subresources: &[SubresourceInfo {
        name: "eviction",
        verbs: &["create"],
        kind: Some(KindInfo { group: "policy", version: "v1", kind: "Eviction" }),
    }],
    ..ResourceInfo::EMPTY
};

static BUILT_IN_1_33: ApiCatalog = ApiCatalog { groups: BUILT_IN_GROUPS, version: V1_33 };
static BUILT_IN_1_34: ApiCatalog = ApiCatalog { groups: BUILT_IN_GROUPS, version: V1_34 };

/// An aggregated request's answer: checks the headers and returns the body.
async fn get_aggregated(catalog: &'static ApiCatalog, uri: &str, accept: &str) -> String {
    let answer = call(routes(catalog), Method::GET, uri, &[(header::ACCEPT, accept)]).await;
    assert_eq!(answer.status, StatusCode::OK, "{uri}: {}", answer.body);
    let version = if answer.body.contains(r#""apiVersion":"apidiscovery.k8s.io/v2beta1""#) { V2BETA1 } else { V2 };
    assert_eq!(answer.header(header::CONTENT_TYPE), Some(version), "{uri}");
    assert_eq!(answer.header(header::VARY), Some("Accept"), "{uri}");
    assert_eq!(answer.header(header::CACHE_CONTROL), Some("public"), "{uri}");
    // The API server's ETag: the SHA-512 of the list without `kind` and `apiVersion`.
    let items = answer.body.split_once(r#""metadata":{},"items":"#).unwrap().1;
    let etag = format!("\"{}\"", openapi_hash(format!(r#"{{"metadata":{{}},"items":{items}"#).as_bytes()));
    assert_eq!(answer.header(header::ETAG), Some(etag.as_str()), "{uri}");
    answer.body
}

#[tokio::test]
async fn aggregated_custom_resources() {
    // Custom resources: the group-version in `responseKind`, `status` before `scale`.
    assert_eq!(
        get_aggregated(&WIDGETS, "/apis", KUBECTL_DISCOVERY_ACCEPT).await,
        concat!(
            r#"{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":["#,
            r#"{"metadata":{"name":"widgets.example.com","creationTimestamp":null},"versions":[{"version":"v1","resources":["#,
            r#"{"resource":"widgets","responseKind":{"group":"widgets.example.com","version":"v1","kind":"Widget"},"scope":"Namespaced","singularResource":"widget","#,
            r#""verbs":["delete","deletecollection","get","list","patch","create","update","watch"],"shortNames":["wd"],"categories":["all"],"subresources":["#,
            r#"{"subresource":"status","responseKind":{"group":"widgets.example.com","version":"v1","kind":"Widget"},"verbs":["get","patch","update"]},"#,
            r#"{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]}"#,
            r#"]}],"freshness":"Current"}]}]}"#
        )
    );
    // Without a core group, `/api` lists nothing (the plain `/api` is a 404).
    assert_eq!(get_aggregated(&WIDGETS, "/api", KUBECTL_DISCOVERY_ACCEPT).await, format!("{LIST_V2}[]}}"));
}

#[tokio::test]
async fn aggregated_order_and_core_group() {
    // Groups and versions in the order of the plain `/apis`; versions without resources
    // have no `resources`.
    let current = r#""freshness":"Current"}"#;
    assert_eq!(
        get_aggregated(&MIXED, "/apis", V2).await,
        format!(
            concat!(
                "{list}[",
                r#"{{"metadata":{{"name":"autoscaling","creationTimestamp":null}},"versions":[{{"version":"v2",{c},{{"version":"v1",{c},{{"version":"v2beta2",{c}]}},"#,
                r#"{{"metadata":{{"name":"certificates.k8s.io","creationTimestamp":null}},"versions":[{{"version":"v1",{c}]}},"#,
                r#"{{"metadata":{{"name":"monitoring.coreos.com","creationTimestamp":null}},"versions":[{{"version":"v1",{c},{{"version":"v1alpha1",{c}]}}"#,
                "]}}"
            ),
            list = LIST_V2,
            c = current
        )
    );
    // The core group has no name; a built-in `responseKind` has the entry's own (empty)
    // group and version.
    assert_eq!(
        get_aggregated(&MIXED, "/api", V2).await,
        format!(
            concat!(
                "{}[",
                r#"{{"metadata":{{"creationTimestamp":null}},"versions":[{{"version":"v1","resources":["#,
                r#"{{"resource":"namespaces","responseKind":{{"group":"","version":"","kind":"Namespace"}},"scope":"Cluster","singularResource":"namespace","verbs":["get","list"],"shortNames":["ns"]}}"#,
                r#"],"freshness":"Current"}}]}}]}}"#
            ),
            LIST_V2
        )
    );
}

#[tokio::test]
async fn aggregated_built_in_groups() {
    let autoscaling = concat!(
        r#"{"version":"v2","resources":["#,
        r#"{"resource":"horizontalpodautoscalers","responseKind":{"group":"","version":"","kind":"HorizontalPodAutoscaler"},"scope":"Namespaced","singularResource":"horizontalpodautoscaler","verbs":["create","delete","get"],"shortNames":["hpa"],"categories":["all"],"subresources":["#,
        r#"{"subresource":"status","responseKind":{"group":"","version":"","kind":"HorizontalPodAutoscaler"},"verbs":["get","patch","update"]}"#,
        r#"]}],"freshness":"Current"}"#
    );
    let core = concat!(
        r#"{"version":"v1","resources":["#,
        r#"{"resource":"namespaces","responseKind":{"group":"","version":"","kind":"Namespace"},"scope":"Cluster","singularResource":"namespace","verbs":["get","list"],"shortNames":["ns"],"subresources":["#,
        r#"{"subresource":"finalize","responseKind":{"group":"","version":"","kind":"Namespace"},"verbs":["update"]}]},"#,
        r#"{"resource":"pods","responseKind":{"group":"","version":"","kind":"Pod"},"scope":"Namespaced","singularResource":"pod","verbs":["get","list"],"subresources":["#,
        r#"{"subresource":"eviction","responseKind":{"group":"policy","version":"v1","kind":"Eviction"},"verbs":["create"]}]}"#,
        r#"],"freshness":"Current"}"#
    );
    // 1.33 still writes the zero creationTimestamp ...
    assert_eq!(
        get_aggregated(&BUILT_IN_1_33, "/apis", V2).await,
        format!(
            r#"{LIST_V2}[{{"metadata":{{"name":"autoscaling","creationTimestamp":null}},"versions":[{autoscaling}]}}]}}"#
        )
    );
    assert_eq!(
        get_aggregated(&BUILT_IN_1_33, "/api", V2).await,
        format!(r#"{LIST_V2}[{{"metadata":{{"creationTimestamp":null}},"versions":[{core}]}}]}}"#)
    );
    // ... 1.34 does not.
    assert_eq!(
        get_aggregated(&BUILT_IN_1_34, "/apis", V2).await,
        format!(r#"{LIST_V2}[{{"metadata":{{"name":"autoscaling"}},"versions":[{autoscaling}]}}]}}"#)
    );
    assert_eq!(
        get_aggregated(&BUILT_IN_1_34, "/api", V2).await,
        format!(r#"{LIST_V2}[{{"metadata":{{}},"versions":[{core}]}}]}}"#)
    );
}

/// The plain documents' bytes, whatever else an `Accept` header that prefers them names.
#[tokio::test]
async fn plain_requests_get_the_plain_documents() {
    let plain_apis = get_json(&MIXED, "/apis").await;
    let plain_api = get_json(&MIXED, "/api").await;
    assert!(plain_apis.starts_with(r#"{"kind":"APIGroupList","#), "{plain_apis}");
    assert!(plain_api.starts_with(r#"{"kind":"APIVersions","#), "{plain_api}");
    for accept in [
        "application/json",
        "application/json, */*",
        "*/*",
        "application/json, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5, application/json",
        // Only JSON is written: the protobuf range is skipped.
        "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json",
        // Refused, and unknown versions.
        "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0",
        "application/json;g=apidiscovery.k8s.io;v=v3;as=APIGroupDiscoveryList",
        "application/json;as=Table;v=v1;g=meta.k8s.io",
    ] {
        for (uri, plain) in [("/apis", &plain_apis), ("/api", &plain_api)] {
            let answer = call(routes(&MIXED), Method::GET, uri, &[(header::ACCEPT, accept)]).await;
            assert_eq!(answer.status, StatusCode::OK, "{uri} {accept}");
            assert_eq!(answer.header(header::CONTENT_TYPE), Some("application/json"), "{accept}");
            assert_eq!(&answer.body, plain, "{uri} {accept}");
            assert_eq!(answer.header(header::ETAG), None, "{uri} {accept}");
            assert_eq!(answer.header(header::VARY), None, "{uri} {accept}");
        }
    }
    // Below `/apis`, documents are plain whatever is asked for.
    let answer =
        call(routes(&WIDGETS), Method::GET, "/apis/widgets.example.com", &[(header::ACCEPT, KUBECTL_DISCOVERY_ACCEPT)])
            .await;
    assert_eq!(answer.header(header::CONTENT_TYPE), Some("application/json"));
    assert!(answer.body.starts_with(r#"{"kind":"APIGroup","#), "{}", answer.body);
}

#[tokio::test]
async fn aggregated_negotiation() {
    let v2 = get_aggregated(&MIXED, "/apis", V2).await;
    for accept in [
        KUBECTL_DISCOVERY_ACCEPT,
        // By preference: q first, then the header's order, concrete types before wildcards.
        "application/json;q=0.9, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        "*/*, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        "*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        // Other conversions and media types are skipped.
        "application/json;as=Table;v=v1;g=meta.k8s.io, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
        "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
    ] {
        assert_eq!(get_aggregated(&MIXED, "/apis", accept).await, v2, "{accept}");
    }

    // 1.32 still serves v2beta1: the same list under its own apiVersion and Content-Type.
    let v2beta1 = get_aggregated(&MIXED, "/apis", V2BETA1).await;
    assert_eq!(v2beta1, v2.replacen("apidiscovery.k8s.io/v2", "apidiscovery.k8s.io/v2beta1", 1), "{v2beta1}");
    let beta_first = format!("{V2BETA1},{V2}");
    assert_eq!(get_aggregated(&MIXED, "/apis", &beta_first).await, v2beta1);
    // 1.33 does not: the next range decides.
    let v2_1_33 = get_aggregated(&BUILT_IN_1_33, "/apis", V2).await;
    assert_eq!(get_aggregated(&BUILT_IN_1_33, "/apis", &beta_first).await, v2_1_33);
    let answer = call(routes(&BUILT_IN_1_33), Method::GET, "/apis", &[(header::ACCEPT, V2BETA1)]).await;
    assert_eq!(answer.header(header::CONTENT_TYPE), Some("application/json"));
    assert!(answer.body.starts_with(r#"{"kind":"APIGroupList","#), "{}", answer.body);
}

#[tokio::test]
async fn aggregated_revalidation() {
    let accept = || (header::ACCEPT, KUBECTL_DISCOVERY_ACCEPT);
    for uri in ["/apis", "/api"] {
        let answer = call(routes(&MIXED), Method::GET, uri, &[accept()]).await;
        let etag = answer.header(header::ETAG).unwrap().to_owned();
        let answer = call(routes(&MIXED), Method::GET, uri, &[accept(), (header::IF_NONE_MATCH, etag.as_str())]).await;
        assert_eq!(answer.status, StatusCode::NOT_MODIFIED, "{uri}");
        assert_eq!(answer.body, "");
        assert_eq!(answer.header(header::ETAG), Some(etag.as_str()));
        assert_eq!(answer.header(header::VARY), Some("Accept"));
        assert_eq!(answer.header(header::CACHE_CONTROL), Some("public"));
        assert_eq!(answer.header(header::CONTENT_TYPE), None);
        let answer = call(routes(&MIXED), Method::GET, uri, &[accept(), (header::IF_NONE_MATCH, "\"stale\"")]).await;
        assert_eq!(answer.status, StatusCode::OK, "{uri}");
        // HEAD: the headers of GET.
        let answer = call(routes(&MIXED), Method::HEAD, uri, &[accept()]).await;
        assert_eq!(answer.status, StatusCode::OK, "{uri}");
        assert_eq!(answer.header(header::CONTENT_TYPE), Some(V2));
        assert_eq!(answer.body, "");
    }
    // The tag follows the content.
    let tag = |catalog: &'static ApiCatalog| async move {
        call(routes(catalog), Method::GET, "/apis", &[(header::ACCEPT, V2)])
            .await
            .header(header::ETAG)
            .map(str::to_owned)
    };
    assert_ne!(tag(&MIXED).await, tag(&WIDGETS).await);
    assert_eq!(tag(&BUILT_IN_1_33).await, tag(&BUILT_IN_1_33).await);
}

#[tokio::test]
async fn openapi_paths() {
    let hash = openapi_hash(WIDGET_OPENAPI.as_bytes());
    assert_eq!(hash.len(), 128);
    assert!(hash.bytes().all(|b| b.is_ascii_digit() || b.is_ascii_uppercase()));
    let expected = format!(
        r#"{{"paths":{{"apis/widgets.example.com/v1":{{"serverRelativeURL":"/openapi/v3/apis/widgets.example.com/v1?hash={hash}"}}}}}}"#
    );
    let answer = call(routes(&WIDGETS), Method::GET, "/openapi/v3", &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header(header::CONTENT_TYPE), Some("application/json"));
    assert_eq!(answer.body, expected);
    let etag = format!("\"{}\"", openapi_hash(expected.as_bytes()));
    assert_eq!(answer.header(header::ETAG), Some(etag.as_str()));
    assert_eq!(answer.header(header::CACHE_CONTROL), None);

    let answer = call(routes(&WIDGETS), Method::GET, "/openapi/v3", &[(header::IF_NONE_MATCH, etag.as_str())]).await;
    assert_eq!(answer.status, StatusCode::NOT_MODIFIED);
    assert_eq!(answer.body, "");
    assert_eq!(answer.header(header::ETAG), Some(etag.as_str()));

    // Keys sorted, core group included, group-versions without a document left out.
    let core = openapi_hash(MIXED.groups[6].openapi.as_bytes());
    let monitoring = openapi_hash(MIXED.groups[1].openapi.as_bytes());
    assert_eq!(
        get_json(&MIXED, "/openapi/v3").await,
        format!(
            r#"{{"paths":{{"api/v1":{{"serverRelativeURL":"/openapi/v3/api/v1?hash={core}"}},"apis/monitoring.coreos.com/v1":{{"serverRelativeURL":"/openapi/v3/apis/monitoring.coreos.com/v1?hash={monitoring}"}}}}}}"#
        )
    );
}

#[tokio::test]
async fn openapi_document() {
    let hash = openapi_hash(WIDGET_OPENAPI.as_bytes());
    let etag = format!("\"{hash}\"");
    let path = "/openapi/v3/apis/widgets.example.com/v1";

    // Without a hash: the document, validated by ETag, not cached blindly.
    let answer = call(routes(&WIDGETS), Method::GET, path, &[]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, WIDGET_OPENAPI);
    assert_eq!(answer.header(header::CONTENT_TYPE), Some("application/json"));
    assert_eq!(answer.header(header::ETAG), Some(etag.as_str()));
    assert_eq!(answer.header(header::VARY), Some("Accept"));
    assert_eq!(answer.header(header::CACHE_CONTROL), None);
    assert_eq!(answer.header(header::EXPIRES), None);

    // With the current hash: immutable for a year.
    let with_hash = format!("{path}?hash={hash}");
    let answer = call(routes(&WIDGETS), Method::GET, &with_hash, &[(header::ACCEPT, "application/json")]).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.body, WIDGET_OPENAPI);
    assert_eq!(answer.header(header::CACHE_CONTROL), Some("public, immutable"));
    let expires = answer.header(header::EXPIRES).unwrap();
    assert!(expires.ends_with(" GMT") && expires.len() == 29, "{expires}");
    assert_eq!(answer.header(header::ETAG), Some(etag.as_str()));

    // Revalidation.
    let answer = call(routes(&WIDGETS), Method::GET, &with_hash, &[(header::IF_NONE_MATCH, &etag)]).await;
    assert_eq!(answer.status, StatusCode::NOT_MODIFIED);
    assert_eq!(answer.body, "");
    assert_eq!(answer.header(header::CONTENT_TYPE), None);
    assert_eq!(answer.header(header::ETAG), Some(etag.as_str()));
    let answer = call(routes(&WIDGETS), Method::GET, path, &[(header::IF_NONE_MATCH, "\"stale\"")]).await;
    assert_eq!(answer.status, StatusCode::OK);

    // A stale hash: moved to the current one.
    let answer = call(routes(&WIDGETS), Method::GET, &format!("{path}?hash=0123"), &[]).await;
    assert_eq!(answer.status, StatusCode::MOVED_PERMANENTLY);
    assert_eq!(answer.header(header::LOCATION), Some(with_hash.as_str()));

    // Protobuf is not offered: JSON when acceptable at all, 406 otherwise.
    let proto = "application/com.github.proto-openapi.spec.v3@v1.0+protobuf";
    let answer =
        call(routes(&WIDGETS), Method::GET, path, &[(header::ACCEPT, &format!("{proto}, application/json;q=0.5"))])
            .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.header(header::CONTENT_TYPE), Some("application/json"));
    let answer = call(routes(&WIDGETS), Method::GET, path, &[(header::ACCEPT, proto)]).await;
    assert_eq!(answer.status, StatusCode::NOT_ACCEPTABLE);
    let status: Status = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(status.reason.as_deref(), Some("NotAcceptable"));
}

/// The discovery router merges into an application router whose state has been applied,
/// and resource routes below `/apis/G/V/...` keep working beside `/apis/{group}/{version}`.
#[tokio::test]
async fn merges_with_an_application_router() {
    #[derive(Clone)]
    struct AppState(&'static str);
    let app: Router = Router::new()
        .route(
            "/apis/widgets.example.com/v1/namespaces/{namespace}/widgets",
            get(|axum::extract::State(state): axum::extract::State<AppState>| async move { state.0 }),
        )
        .fallback(|| async { (StatusCode::NOT_FOUND, "app fallback") })
        .with_state(AppState("widget list"))
        .merge(routes(&WIDGETS));
    let answer = call(app.clone(), Method::GET, "/apis/widgets.example.com/v1", &[]).await;
    assert!(answer.body.starts_with(r#"{"kind":"APIResourceList""#));
    let answer = call(app.clone(), Method::GET, "/apis/widgets.example.com/v1/namespaces/default/widgets", &[]).await;
    assert_eq!(answer.body, "widget list");
    let answer = call(app, Method::GET, "/nothing/here", &[]).await;
    assert_eq!(answer.body, "app fallback");
}

// ---------------------------------------------------------------------------------------
// The real kubectl.

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(program)).find(|candidate| candidate.is_file())
}

struct Kubectl {
    program: PathBuf,
    kubeconfig: PathBuf,
    cache_dir: PathBuf,
    home: PathBuf,
    verbose: bool,
}

impl Kubectl {
    /// Runs kubectl; panics with its output unless it succeeds.
    fn run(&self, args: &[&str]) -> String {
        let (success, stdout, stderr) = self.output(args);
        assert!(success, "kubectl {args:?} failed: {stdout}\n{stderr}");
        stdout
    }

    /// Runs kubectl, expecting it to fail; returns its standard error.
    fn run_failing(&self, args: &[&str]) -> String {
        let (success, stdout, stderr) = self.output(args);
        assert!(!success, "kubectl {args:?} succeeded: {stdout}\n{stderr}");
        stderr
    }

    fn output(&self, args: &[&str]) -> (bool, String, String) {
        let output = Command::new(&self.program)
            .arg("--kubeconfig")
            .arg(&self.kubeconfig)
            .arg("--cache-dir")
            .arg(&self.cache_dir)
            .args(args)
            .env_remove("KUBECONFIG")
            .env("HOME", &self.home)
            .output()
            .expect("kubectl runs");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        if self.verbose {
            eprintln!("$ kubectl {}\n{stdout}{stderr}", args.join(" "));
        }
        (output.status.success(), stdout, stderr)
    }
}

fn write_kubeconfig(dir: &Path, port: u16) -> PathBuf {
    let path = dir.join("kubeconfig");
    let config = format!(
        "apiVersion: v1
kind: Config
clusters:
- name: discovery-test
  cluster:
    server: http://127.0.0.1:{port}
contexts:
- name: discovery-test
  context:
    cluster: discovery-test
    user: anonymous
    namespace: default
current-context: discovery-test
users:
- name: anonymous
  user: {{}}
"
    );
    std::fs::write(&path, config).unwrap();
    path
}

/// The path of a logged request, without the query.
fn path_of(line: &str) -> &str {
    let target = line.split(' ').nth(1).unwrap_or("");
    target.split('?').next().unwrap_or("")
}

/// One line per request:
/// `GET /path?query accept=.. if-none-match=.. -> 200 content-type=..`.
async fn log_requests(
    axum::extract::State(log): axum::extract::State<Arc<Mutex<Vec<String>>>>,
    request: Request,
    next: Next,
) -> axum::response::Response {
    let mut line = format!("{} {}", request.method(), request.uri());
    let headers = request.headers();
    if let Some(accept) = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()) {
        line.push_str(&format!(" accept={accept}"));
    }
    if let Some(tag) = headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()) {
        line.push_str(&format!(" if-none-match={}", &tag[..tag.len().min(12)]));
    }
    let response = next.run(request).await;
    line.push_str(&format!(" -> {}", response.status().as_u16()));
    if let Some(kind) = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()) {
        line.push_str(&format!(" content-type={kind}"));
    }
    log.lock().unwrap().push(line);
    response
}

#[test]
fn kubectl_reads_discovery_and_openapi() {
    let Some(program) = find_on_path("kubectl") else {
        eprintln!("\n\n******** SKIPPED kubectl_reads_discovery_and_openapi: kubectl is not on PATH ********\n\n");
        return;
    };
    let verbose = std::env::var_os("SUPPORT_DISCOVERY_LOG").is_some();
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let log = Arc::new(Mutex::new(Vec::<String>::new()));
    let app: Router = routes(&WIDGETS)
        .fallback(|| async {
            let body = serde_json::to_string(&Status::route_not_found()).unwrap();
            (StatusCode::NOT_FOUND, [(header::CONTENT_TYPE, "application/json")], body)
        })
        .layer(axum::middleware::from_fn_with_state(log.clone(), log_requests));
    let listener = runtime.block_on(tokio::net::TcpListener::bind("127.0.0.1:0")).unwrap();
    let port = listener.local_addr().unwrap().port();
    let (stop, stopped) = futures::channel::oneshot::channel::<()>();
    let server = runtime.spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
    });

    let dir = tempfile::tempdir().unwrap();
    let kubectl = Kubectl {
        program,
        kubeconfig: write_kubeconfig(dir.path(), port),
        cache_dir: dir.path().join("cache"),
        home: dir.path().to_owned(),
        verbose,
    };
    let take_log = || std::mem::take(&mut *log.lock().unwrap());
    let show = |what: &str, lines: &[String]| {
        if verbose {
            eprintln!("--- requests of {what}:");
            for line in lines {
                eprintln!("    {line}");
            }
        }
    };

    let version = kubectl.run(&["version", "-o", "json"]);
    let version: serde_json::Value = serde_json::from_str(&version).unwrap();
    assert_eq!(version["serverVersion"]["minor"], "32", "{version}");
    assert_eq!(version["serverVersion"]["gitVersion"], "v1.32.0", "{version}");
    show("kubectl version", &take_log());

    let resources = kubectl.run(&["api-resources"]);
    let widgets: Vec<&str> = resources
        .lines()
        .find(|line| line.starts_with("widgets "))
        .unwrap_or_else(|| panic!("no widgets in:\n{resources}"))
        .split_whitespace()
        .collect();
    assert_eq!(widgets, ["widgets", "wd", "widgets.example.com/v1", "true", "Widget"]);
    assert!(resources.lines().next().unwrap().split_whitespace().eq([
        "NAME",
        "SHORTNAMES",
        "APIVERSION",
        "NAMESPACED",
        "KIND"
    ]));
    let requests = take_log();
    show("kubectl api-resources", &requests);
    // Aggregated discovery: `/api` (an empty list: no core group) and `/apis` say it all.
    let aggregated = |path: &str| {
        let answer = format!(" -> 200 content-type={V2}");
        requests.iter().any(|line| path_of(line) == path && line.ends_with(&answer))
    };
    assert!(aggregated("/api") && aggregated("/apis"), "{requests:#?}");
    assert!(!requests.iter().any(|line| path_of(line).starts_with("/apis/")), "{requests:#?}");

    // Verbs and categories come from the aggregated document too.
    let wide = kubectl.run(&["api-resources", "-o", "wide"]);
    let widgets = wide.lines().find(|line| line.starts_with("widgets ")).unwrap_or("");
    assert!(
        widgets.split_whitespace().eq([
            "widgets",
            "wd",
            "widgets.example.com/v1",
            "true",
            "Widget",
            CRD_VERBS.join(",").as_str(),
            "all"
        ]),
        "{wide}"
    );
    let in_all = kubectl.run(&["api-resources", "--categories=all", "--no-headers"]);
    assert!(in_all.lines().any(|line| line.starts_with("widgets ")), "{in_all}");
    show("kubectl api-resources -o wide, --categories=all", &take_log());

    let versions = kubectl.run(&["api-versions"]);
    assert!(versions.lines().any(|line| line == "widgets.example.com/v1"), "{versions}");
    // kubectl's HTTP cache revalidates the documents by their ETag.
    let requests = take_log();
    show("kubectl api-versions", &requests);
    let revalidated = |path: &str| {
        requests
            .iter()
            .any(|line| path_of(line) == path && line.contains(" if-none-match=\"") && line.ends_with(" -> 304"))
    };
    assert!(revalidated("/api") && revalidated("/apis"), "{requests:#?}");

    let explained = kubectl.run(&["explain", "widgets"]);
    for expected in [
        "GROUP:      widgets.example.com",
        "KIND:       Widget",
        "VERSION:    v1",
        "Widget is a small thing served by the discovery test.",
        "spec\t<Object>",
    ] {
        assert!(explained.contains(expected), "{expected:?} not in:\n{explained}");
    }
    let explained = kubectl.run(&["explain", "wd.spec.size"]);
    assert!(explained.contains("Size of the widget in whole centimetres."), "{explained}");
    assert!(explained.contains("FIELD: size <integer>"), "{explained}");
    let requests = take_log();
    show("kubectl explain", &requests);
    let hash = openapi_hash(WIDGET_OPENAPI.as_bytes());
    let document = |line: &&String| {
        path_of(line) == "/openapi/v3/apis/widgets.example.com/v1"
            && line.contains(&format!("?hash={hash}&"))
            && line.contains(" -> 200 ")
    };
    assert!(requests.iter().any(|line| path_of(line) == "/openapi/v3"), "{requests:#?}");
    assert!(requests.iter().any(|line| document(&line)), "{requests:#?}");

    // A second process with the same cache directory: the immutable document comes from the
    // HTTP cache (or is revalidated), never fetched whole again.
    kubectl.run(&["explain", "widgets.spec"]);
    let requests = take_log();
    show("kubectl explain, again", &requests);
    assert!(!requests.iter().any(|line| document(&line)), "{requests:#?}");

    // Unknown paths: the API server's 404 Status, as kubectl prints it.
    let error = kubectl.run_failing(&["get", "--raw", "/apis/gadgets.example.com/v1"]);
    assert!(
        error.contains("Error from server (NotFound): the server could not find the requested resource"),
        "{error}"
    );
    show("kubectl get --raw", &take_log());

    stop.send(()).unwrap();
    runtime.block_on(server).unwrap().unwrap();
}

/// `/openapi/v2` converts the v3 documents into one Swagger 2.0 document.
#[tokio::test]
async fn openapi_v2_is_the_swagger_document_of_every_group_version() {
    let body = get_json(&WIDGETS, "/openapi/v2").await;
    let swagger: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(swagger["swagger"], "2.0");
    assert_eq!(swagger["info"], serde_json::json!({"title": "Kubernetes", "version": "v1.32.0"}));
    let path = &swagger["paths"]["/apis/widgets.example.com/v1/namespaces/{namespace}/widgets/{name}"];
    assert_eq!(
        path["get"],
        serde_json::json!({
            "description": "read the specified Widget",
            "operationId": "readWidgetsExampleComV1NamespacedWidget",
            "produces": ["application/json"],
            "schemes": ["https"],
            "responses": {"200": {"description": "OK", "schema": {"$ref": "#/definitions/com.example.widgets.v1.Widget"}}},
            "x-kubernetes-action": "get",
            "x-kubernetes-group-version-kind": {"group": "widgets.example.com", "version": "v1", "kind": "Widget"}
        })
    );
    // Parameters: the schema's keywords beside name and in.
    assert_eq!(
        path["parameters"][0],
        serde_json::json!({"name": "name", "in": "path", "description": "name of the Widget", "required": true, "type": "string", "uniqueItems": true})
    );
    let widget = &swagger["definitions"]["com.example.widgets.v1.Widget"];
    assert_eq!(widget["x-kubernetes-group-version-kind"][0]["kind"], "Widget");
    assert_eq!(widget["properties"]["spec"]["properties"]["size"]["minimum"], 1);
    assert_eq!(swagger["securityDefinitions"]["BearerToken"]["type"], "apiKey");
    assert_eq!(swagger["security"], serde_json::json!([{"BearerToken": []}]));
}

#[tokio::test]
async fn openapi_v2_negotiates_json_and_protobuf_with_one_etag() {
    const PROTOBUF: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
    let json = call(routes(&WIDGETS), Method::GET, "/openapi/v2", &[]).await;
    let etag = json.header(header::ETAG).expect("an ETag").to_owned();
    assert_eq!(json.header(header::VARY), Some("Accept"));
    assert_eq!(etag, format!("\"{}\"", kube_apigen_server::discovery::openapi_hash(json.body.as_bytes())));
    for accept in [
        "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
        PROTOBUF,
        "application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json",
    ] {
        let request = Request::get("/openapi/v2").header(header::ACCEPT, accept).body(Body::empty()).unwrap();
        let response = routes::<()>(&WIDGETS).oneshot(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{accept}");
        assert_eq!(response.headers()[header::CONTENT_TYPE], PROTOBUF, "{accept}");
        assert_eq!(response.headers()[header::ETAG], etag.as_str(), "{accept}");
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
        // openapi.v2.Document: swagger (1) is "2.0", info (2) follows.
        assert!(bytes.starts_with(b"\x0a\x032.0\x12"), "{accept}: {:02x?}", &bytes[..8]);
    }
    let json_first =
        call(routes(&WIDGETS), Method::GET, "/openapi/v2", &[(header::ACCEPT, "application/json, */*")]).await;
    assert_eq!(json_first.header(header::CONTENT_TYPE), Some("application/json"));
    let cached = call(routes(&WIDGETS), Method::GET, "/openapi/v2", &[(header::IF_NONE_MATCH, etag.as_str())]).await;
    assert_eq!((cached.status, cached.body.as_str()), (StatusCode::NOT_MODIFIED, ""));
    let refused = call(routes(&WIDGETS), Method::GET, "/openapi/v2", &[(header::ACCEPT, "text/html")]).await;
    assert_eq!((refused.status, refused.body.as_str()), (StatusCode::NOT_ACCEPTABLE, ""));
}
