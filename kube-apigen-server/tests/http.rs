//! `kube_apigen_server::http` driven through an axum router, with handlers written the way the
//! generator writes them.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;

use kube_apigen_core::field::{ErrorList, FieldError, Path as FieldPath};
use kube_apigen_core::protobuf::{self, Payload};
use kube_apigen_core::resource::{Column, ResourceInfo};
use kube_apigen_core::{ListMeta, Status};
use kube_apigen_server::axum::Router;
use kube_apigen_server::axum::body::Body;
use kube_apigen_server::axum::extract::{Path, Request, State};
use kube_apigen_server::axum::http::{Extensions, HeaderMap, Method, header};
use kube_apigen_server::axum::response::Response;
use kube_apigen_server::axum::routing::get;
use kube_apigen_server::http::watch::{Event, WatchStream};
use kube_apigen_server::http::{
    self, ApiState, Authenticator, Config, Context, FieldValidation, Patch, PatchType, Query, StatusCode, UserInfo,
};
use kube_apigen_validation::Validate;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tower::ServiceExt;

// ---------------------------------------------------------------------------------------
// A tiny API: `widgets.example.com/v1`, with printer columns, and `gadgets` without.

static WIDGETS: ResourceInfo = ResourceInfo {
    group: "example.com",
    version: "v1",
    kind: "Widget",
    plural: "widgets",
    singular: "widget",
    list_kind: "WidgetList",
    short_names: &["wd"],
    categories: &["all"],
    columns: &[
        Column {
            name: "Replicas",
            type_: "integer",
            format: "int32",
            description: "Desired replicas.",
            priority: 0,
            json_path: ".spec.replicas",
        },
        Column { name: "Mode", type_: "string", format: "", description: "", priority: 1, json_path: "{.spec.mode}" },
    ],
    scale: None,
    deprecation_warning: None,
    storage_version: true,
    ..ResourceInfo::EMPTY
};

static GADGETS: ResourceInfo = ResourceInfo {
    group: "example.com",
    version: "v1",
    kind: "Gadget",
    plural: "gadgets",
    singular: "gadget",
    list_kind: "GadgetList",
    short_names: &[],
    categories: &[],
    columns: &[],
    scale: None,
    deprecation_warning: Some("example.com/v1 Gadget is deprecated; use v2"),
    storage_version: false,
    ..ResourceInfo::EMPTY
};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ObjectMeta {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    namespace: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    resource_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    creation_timestamp: Option<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Widget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    api_version: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kind: Option<String>,
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default)]
    spec: WidgetSpec,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct WidgetSpec {
    #[serde(default)]
    replicas: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    mode: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    ports: Vec<Port>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
struct Port {
    #[serde(default)]
    port: i32,
}

impl Validate for Widget {
    fn validate_into(&self, _old: Option<&Self>, path: &FieldPath<'_>, errors: &mut ErrorList) {
        let spec = path.field("spec");
        kube_apigen_validation::rules::minimum(&spec.field("replicas"), self.spec.replicas, 0, false, errors);
        if let Some(mode) = &self.spec.mode
            && !["Fast", "Slow"].contains(&mode.as_str())
        {
            kube_apigen_validation::rules::not_supported(&spec.field("mode"), mode, &["Fast", "Slow"], errors);
        }
    }
}

#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct WidgetList {
    api_version: &'static str,
    kind: &'static str,
    metadata: ListMeta,
    items: Vec<Widget>,
}

// The test's types have no protobuf message, like a custom resource's.
impl Payload for Widget {
    const GO_TYPE: &'static str = "Widget";
}
impl Payload for WidgetList {
    const GO_TYPE: &'static str = "WidgetList";
}
impl Payload for DeleteOptions {
    const GO_TYPE: &'static str = "DeleteOptions";
}

#[derive(Debug, Deserialize)]
struct NamespacePath {
    namespace: String,
}

#[derive(Debug, Deserialize)]
struct NamePath {
    #[allow(dead_code)]
    namespace: String,
    name: String,
}

/// What a generated `CreateParams` looks like.
#[derive(Debug, Default)]
struct CreateParams {
    field_validation: Option<String>,
}

impl CreateParams {
    fn from_query(query: Query<'_>) -> Result<Self, Status> {
        Ok(CreateParams { field_validation: query.string("fieldValidation") })
    }

    fn validate(&self) -> ErrorList {
        let mut errors = ErrorList::new();
        if let Some(value) = &self.field_validation
            && !FieldValidation::SUPPORTED.contains(&value.as_str())
        {
            errors.push(FieldError::not_supported(
                &FieldPath::ROOT.field("fieldValidation"),
                value.as_str(),
                FieldValidation::SUPPORTED,
            ));
        }
        errors
    }
}

/// What a generated `ListParams` looks like.
#[derive(Debug, Default)]
struct ListParams {
    limit: Option<i64>,
    watch: bool,
    timeout_seconds: Option<i64>,
}

impl ListParams {
    fn from_query(query: Query<'_>) -> Result<Self, Status> {
        let mut params = ListParams::default();
        for (name, value) in query.iter() {
            match name {
                "limit" if params.limit.is_none() => params.limit = Some(http::parse_int("limit", value)?),
                "watch" => params.watch = http::parse_bool(value),
                "timeoutSeconds" if params.timeout_seconds.is_none() => {
                    params.timeout_seconds = Some(http::parse_int("timeoutSeconds", value)?)
                }
                _ => {}
            }
        }
        Ok(params)
    }
}

/// The server side: a fixed store, and what the last create saw.
#[derive(Default)]
struct Api {
    seen: std::sync::Mutex<Option<Context>>,
}

/// Half an hour before the tests started: every object's creation time, shown as `30m`.
static CREATED: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    let now = jiff::Timestamp::now().as_second();
    jiff::Timestamp::from_second(now - 30 * 60).unwrap().to_string()
});

fn widget(name: &str, replicas: i32) -> Widget {
    Widget {
        api_version: Some("example.com/v1".into()),
        kind: Some("Widget".into()),
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            resource_version: Some("7".into()),
            creation_timestamp: Some(CREATED.clone()),
        },
        spec: WidgetSpec { replicas, mode: Some("Fast".into()), ports: vec![] },
    }
}

impl Api {
    async fn create(
        &self,
        context: Context,
        path: NamespacePath,
        _params: CreateParams,
        mut body: Widget,
    ) -> Result<Widget, Status> {
        if body.metadata.name.as_deref() == Some("exists") {
            return Err(Status::already_exists(WIDGETS.group, WIDGETS.plural, "exists"));
        }
        *self.seen.lock().unwrap() = Some(context);
        body.metadata.namespace = Some(path.namespace);
        body.metadata.resource_version = Some("1".into());
        Ok(body)
    }

    async fn read(&self, path: NamePath) -> Result<Widget, Status> {
        match path.name.as_str() {
            "boom" => panic!("the store is on fire"),
            "missing" => Err(Status::not_found(WIDGETS.group, WIDGETS.plural, "missing")),
            name => Ok(widget(name, 3)),
        }
    }

    async fn list(&self, _namespace: String, _params: ListParams) -> Result<WidgetList, Status> {
        Ok(WidgetList {
            api_version: "example.com/v1",
            kind: "WidgetList",
            metadata: ListMeta {
                resource_version: Some("42".into()),
                continue_: Some("next".into()),
                ..ListMeta::default()
            },
            items: vec![widget("a", 1), widget("b", 2)],
        })
    }

    async fn watch(&self, timeout: Option<i64>) -> Result<WatchStream<Widget>, Status> {
        let events =
            vec![Event::Added(widget("a", 1)), Event::Modified(widget("a", 2)), Event::Deleted(widget("a", 2))];
        if timeout.is_some() {
            // A watch that never ends by itself: only the timeout ends it.
            Ok(Box::pin(futures::stream::iter(events).chain(futures::stream::pending())))
        } else {
            Ok(Box::pin(futures::stream::iter(events)))
        }
    }
}

// ---------------------------------------------------------------------------------------
// Handlers, exactly in the shape of generated ones.

async fn create_namespaced_widget(
    State(state): State<ApiState<Api>>,
    Path(path): Path<NamespacePath>,
    request: Request,
) -> Response {
    http::serve(request, &state.config, &WIDGETS, async move |mut call| {
        let params = CreateParams::from_query(call.query())?;
        call.check_options("CreateOptions", params.validate())?;
        let body: Widget = call.body()?;
        call.validate(&body, None)?;
        let created = state.api.create(call.context(), path, params, body).await?;
        call.reply(StatusCode::CREATED, &created)
    })
    .await
}

async fn list_namespaced_widget(
    State(state): State<ApiState<Api>>,
    Path(path): Path<NamespacePath>,
    request: Request,
) -> Response {
    http::serve(request, &state.config, &WIDGETS, async move |call| {
        let params = ListParams::from_query(call.query())?;
        if params.watch && call.query().contains("explode") {
            let events: WatchStream<Widget> = Box::pin(
                futures::stream::iter([1, 2])
                    .map(|i| if i == 1 { Event::Added(widget("a", 1)) } else { panic!("lost the store") }),
            );
            return call.watch(events, None);
        }
        if params.watch {
            let timeout = params.timeout_seconds;
            let events = state.api.watch(timeout).await?;
            return call.watch(events, timeout);
        }
        let list = state.api.list(path.namespace, params).await?;
        call.reply(StatusCode::OK, &list)
    })
    .await
}

async fn read_namespaced_widget(
    State(state): State<ApiState<Api>>,
    Path(path): Path<NamePath>,
    request: Request,
) -> Response {
    http::serve(request, &state.config, &WIDGETS, async move |call| {
        let value = state.api.read(path).await?;
        call.reply(StatusCode::OK, &value)
    })
    .await
}

async fn patch_namespaced_widget(
    State(state): State<ApiState<Api>>,
    Path(path): Path<NamePath>,
    request: Request,
) -> Response {
    http::serve(request, &state.config, &WIDGETS, async move |mut call| {
        let patch = call.patch(&[PatchType::Json, PatchType::Merge, PatchType::Apply])?;
        let current = serde_json::to_value(state.api.read(path).await?).unwrap();
        let patched = match &patch {
            Patch::Json(p) => {
                let mut doc = current;
                json_patch::patch(&mut doc, p).map_err(|e| Status::bad_request(e.to_string()))?;
                doc
            }
            Patch::Merge(p) | Patch::Apply(p) | Patch::StrategicMerge(p) => {
                let mut doc = current;
                json_patch::merge(&mut doc, p);
                doc
            }
        };
        let widget: Widget = call.decode_patched(patched)?;
        call.validate(&widget, None)?;
        let mut reply = call.reply(StatusCode::OK, &widget)?;
        let kind = match patch.patch_type() {
            PatchType::Json => "json",
            PatchType::Merge => "merge",
            PatchType::StrategicMerge => "strategic",
            PatchType::Apply => "apply",
        };
        let mut response = kube_apigen_server::axum::response::IntoResponse::into_response(reply);
        response.headers_mut().insert("x-patch-type", kind.parse().unwrap());
        reply = http::Reply::from_response(response);
        Ok(reply)
    })
    .await
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct DeleteOptions {
    #[serde(default)]
    api_version: Option<String>,
    #[serde(default)]
    kind: Option<String>,
    #[serde(default)]
    grace_period_seconds: Option<i64>,
}

async fn delete_namespaced_widget(
    State(state): State<ApiState<Api>>,
    Path(path): Path<NamePath>,
    request: Request,
) -> Response {
    http::serve(request, &state.config, &WIDGETS, async move |mut call| {
        let options: Option<DeleteOptions> = call.optional_body()?;
        let _ = &state.api;
        let grace = options.and_then(|o| o.grace_period_seconds);
        call.warn(format!("deleted with grace period {grace:?}"));
        let status = Status::deleted(WIDGETS.group, WIDGETS.plural, &path.name, "uid-1");
        call.reply(StatusCode::OK, &status)
    })
    .await
}

async fn list_namespaced_gadget(Path(_path): Path<NamespacePath>, request: Request) -> Response {
    http::serve(request, &Config::default(), &GADGETS, |call| async move {
        let mut gadget = widget("g1", 1);
        gadget.kind = Some("Gadget".into());
        call.reply(StatusCode::OK, &gadget)
    })
    .await
}

async fn not_implemented_handler(request: Request) -> Response {
    http::serve(request, &Config::default(), &WIDGETS, |_call| async move {
        Err::<http::Reply, _>(http::not_implemented(&WIDGETS, "deletecollection"))
    })
    .await
}

fn app(config: Config) -> Router {
    let state = ApiState::with_config(Api::default(), config);
    Router::new()
        .route(
            "/apis/example.com/v1/namespaces/{namespace}/widgets",
            get(list_namespaced_widget).post(create_namespaced_widget).delete(not_implemented_handler),
        )
        .route(
            "/apis/example.com/v1/namespaces/{namespace}/widgets/{name}",
            get(read_namespaced_widget).patch(patch_namespaced_widget).delete(delete_namespaced_widget),
        )
        .route("/apis/example.com/v1/namespaces/{namespace}/gadgets", get(list_namespaced_gadget))
        .with_state(state)
}

const WIDGETS_URL: &str = "/apis/example.com/v1/namespaces/default/widgets";
const KUBECTL_TABLE: &str =
    "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }

    fn content_type(&self) -> &str {
        self.headers.get(header::CONTENT_TYPE).unwrap().to_str().unwrap()
    }

    fn warnings(&self) -> Vec<&str> {
        self.headers.get_all(header::WARNING).iter().map(|v| v.to_str().unwrap()).collect()
    }
}

async fn send_to(app: Router, method: Method, uri: &str, headers: &[(&str, &str)], body: impl Into<Body>) -> Answer {
    let mut request = Request::builder().method(method).uri(uri);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = app.oneshot(request.body(body.into()).unwrap()).await.unwrap();
    let status = response.status();
    let headers = response.headers().clone();
    let bytes = kube_apigen_server::axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    Answer { status, headers, body: String::from_utf8(bytes.to_vec()).unwrap() }
}

async fn send(method: Method, uri: &str, headers: &[(&str, &str)], body: impl Into<Body>) -> Answer {
    send_to(app(Config::default()), method, uri, headers, body).await
}

const JSON: (&str, &str) = ("content-type", "application/json");

fn widget_body(extra_spec: &str) -> String {
    format!(
        r#"{{"apiVersion":"example.com/v1","kind":"Widget","metadata":{{"name":"w1"}},"spec":{{"replicas":2{extra_spec}}}}}"#
    )
}

// ---------------------------------------------------------------------------------------

struct Tokens;

impl Authenticator for Tokens {
    fn authenticate(&self, headers: &HeaderMap, _: &Extensions) -> Result<Option<UserInfo>, Status> {
        match headers.get(header::AUTHORIZATION).and_then(|v| v.to_str().ok()) {
            Some("Bearer good") => Ok(Some(UserInfo { username: "alice".into(), ..UserInfo::default() })),
            _ => Err(http::authentication_failed()),
        }
    }
}

#[tokio::test]
async fn unauthenticated_is_401() {
    let config = Config { authenticator: Arc::new(Tokens), ..Config::default() };
    let answer = send_to(app(config.clone()), Method::GET, &format!("{WIDGETS_URL}/a"), &[], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    assert_eq!(answer.content_type(), "application/json");
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}"#
    );
    let answer = send_to(
        app(config),
        Method::GET,
        &format!("{WIDGETS_URL}/a"),
        &[("authorization", "Bearer good")],
        Body::empty(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
}

#[tokio::test]
async fn authenticated_user_and_options_reach_the_server() {
    let state = ApiState::with_config(Api::default(), Config { authenticator: Arc::new(Tokens), ..Config::default() });
    let app = Router::new()
        .route(
            "/apis/example.com/v1/namespaces/{namespace}/widgets",
            get(list_namespaced_widget).post(create_namespaced_widget),
        )
        .with_state(state.clone());
    let uri = format!("{WIDGETS_URL}?dryRun=All&fieldManager=kubectl-client-side-apply&fieldValidation=Ignore");
    let answer =
        send_to(app, Method::POST, &uri, &[JSON, ("authorization", "Bearer good")], widget_body(r#","foo":1"#)).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    assert!(answer.warnings().is_empty());
    let seen = state.api.seen.lock().unwrap().clone().unwrap();
    assert_eq!(seen.user.unwrap().username, "alice");
    assert!(seen.dry_run);
    assert_eq!(seen.field_manager.as_deref(), Some("kubectl-client-side-apply"));
    assert_eq!(seen.field_validation, FieldValidation::Ignore);
    assert_eq!(seen.headers.get("authorization").unwrap(), "Bearer good");
}

#[tokio::test]
async fn too_large_is_413() {
    let config = Config { max_body_bytes: 64, ..Config::default() };
    let expected = r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Request entity too large: limit is 64","reason":"RequestEntityTooLarge","code":413}"#;
    // Streamed without a length...
    let answer = send_to(app(config.clone()), Method::POST, WIDGETS_URL, &[JSON], widget_body(&" ".repeat(100))).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.body, expected);
    // ... and declared up front.
    let answer =
        send_to(app(config.clone()), Method::POST, WIDGETS_URL, &[JSON, ("content-length", "100000")], "{}").await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(answer.body, expected);
    // Exactly at the limit is fine.
    let body = format!("{:<64}", r#"{"metadata":{"name":"w1"}}"#);
    let answer = send_to(app(config), Method::POST, WIDGETS_URL, &[JSON], body).await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
}

#[tokio::test]
async fn unsupported_media_type_is_415() {
    let answer = send(Method::POST, WIDGETS_URL, &[("content-type", "text/plain")], widget_body("")).await;
    assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"UnsupportedMediaType","code":415}"#
    );
    // Absent and wildcard Content-Types are JSON.
    assert_eq!(send(Method::POST, WIDGETS_URL, &[], widget_body("")).await.status, StatusCode::CREATED);
    assert_eq!(
        send(Method::POST, WIDGETS_URL, &[("content-type", "*/*")], widget_body("")).await.status,
        StatusCode::CREATED
    );
    assert_eq!(
        send(Method::POST, WIDGETS_URL, &[("content-type", "application/json; charset=utf-8")], widget_body(""))
            .await
            .status,
        StatusCode::CREATED
    );
}

#[tokio::test]
async fn malformed_json_is_400_with_position() {
    let body = "{\n  \"metadata\": {\"name\": \"w1\",}\n}";
    let answer = send(Method::POST, WIDGETS_URL, &[JSON], body).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the object provided is unrecognized (must be of type Widget): couldn't get version/kind; json parse error: trailing comma at line 2 column 29 ({\n  \"metadata\": {\"name\": \"w1\", ...)","reason":"BadRequest","code":400}"#
    );

    let answer = send(Method::POST, WIDGETS_URL, &[JSON], widget_body(r#","ports":[{"port":"http"}]"#)).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.json()["message"],
        r#"Widget in version "v1" cannot be handled as a Widget: invalid type: string "http", expected i32 at line 1 column 116"#
    );
}

#[tokio::test]
async fn bad_integer_parameter_is_400() {
    let answer = send(Method::GET, &format!("{WIDGETS_URL}?limit=ten"), &[], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"invalid value for query parameter \"limit\": strconv.ParseInt: parsing \"ten\": invalid syntax","reason":"BadRequest","code":400}"#
    );
}

#[tokio::test]
async fn bad_options_are_422() {
    let answer = send(Method::POST, &format!("{WIDGETS_URL}?fieldValidation=strict"), &[JSON], widget_body("")).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"","reason":"Invalid","details":{"group":"meta.k8s.io","kind":"CreateOptions","causes":[{"reason":"FieldValueNotSupported","message":"Unsupported value: \"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\"","field":"fieldValidation"}]},"code":422}"#
    );
}

#[tokio::test]
async fn strict_rejects_unknown_and_duplicate_fields() {
    let body = r#"{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w1","name":"w2"},"spec":{"foo":1,"replicas":1,"replicas":2,"ports":[{"port":80,"bar":true}]}}"#;
    let answer = send(Method::POST, &format!("{WIDGETS_URL}?fieldValidation=Strict"), &[JSON], body).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: duplicate field \"metadata.name\", unknown field \"spec.foo\", duplicate field \"spec.replicas\", unknown field \"spec.ports[0].bar\"","reason":"BadRequest","code":400}"#
    );
    // Without duplicates, the text is decoded directly.
    let answer =
        send(Method::POST, &format!("{WIDGETS_URL}?fieldValidation=Strict"), &[JSON], widget_body(r#","foo":1"#)).await;
    assert_eq!(
        answer.json()["message"],
        r#"Widget in version "v1" cannot be handled as a Widget: strict decoding error: unknown field "spec.foo""#
    );
}

#[tokio::test]
async fn warn_is_the_default_and_adds_warning_headers() {
    let body = r#"{"metadata":{"name":"w1"},"spec":{"foo":1,"replicas":1,"replicas":2}}"#;
    for uri in [WIDGETS_URL.to_owned(), format!("{WIDGETS_URL}?fieldValidation=Warn")] {
        let answer = send(Method::POST, &uri, &[JSON], body).await;
        assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
        assert_eq!(
            answer.warnings(),
            [r#"299 - "unknown field \"spec.foo\"""#, r#"299 - "duplicate field \"spec.replicas\"""#]
        );
        assert_eq!(answer.json()["spec"]["replicas"], 2, "the last duplicate wins");
    }
    let answer = send(Method::POST, &format!("{WIDGETS_URL}?fieldValidation=Ignore"), &[JSON], body).await;
    assert_eq!(answer.status, StatusCode::CREATED);
    assert!(answer.warnings().is_empty());
}

#[tokio::test]
async fn yaml_in_and_out() {
    let body = "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\nspec:\n  replicas: 4\n  mode: Slow\n  mode: Fast\n  extra: 1\n";
    let answer =
        send(Method::POST, WIDGETS_URL, &[("content-type", "application/yaml"), ("accept", "application/yaml")], body)
            .await;
    assert_eq!(answer.status, StatusCode::CREATED, "{}", answer.body);
    assert_eq!(answer.content_type(), "application/yaml");
    assert_eq!(
        answer.body,
        "apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w1\n  namespace: default\n  resourceVersion: \"1\"\nspec:\n  mode: Fast\n  replicas: 4\n"
    );
    assert_eq!(
        answer.warnings(),
        [r#"299 - "line 8: key \"mode\" already set in map""#, r#"299 - "unknown field \"spec.extra\"""#]
    );

    let answer = send(
        Method::POST,
        &format!("{WIDGETS_URL}?fieldValidation=Strict"),
        &[("content-type", "application/yaml")],
        body,
    )
    .await;
    assert_eq!(
        answer.json()["message"],
        "Widget in version \"v1\" cannot be handled as a Widget: strict decoding error: yaml: unmarshal errors:\n  line 8: key \"mode\" already set in map, unknown field \"spec.extra\""
    );

    // Errors follow Accept too.
    let answer =
        send(Method::GET, &format!("{WIDGETS_URL}/missing"), &[("accept", "application/yaml")], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.content_type(), "application/yaml");
    assert_eq!(
        answer.body,
        "apiVersion: v1\ncode: 404\ndetails:\n  group: example.com\n  kind: widgets\n  name: missing\nkind: Status\nmessage: widgets.example.com \"missing\" not found\nmetadata: {}\nreason: NotFound\nstatus: Failure\n"
    );

    let answer =
        send(Method::POST, WIDGETS_URL, &[("content-type", "application/yaml")], "metadata:\n  name: [\n").await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    let message = answer.json()["message"].as_str().unwrap().to_owned();
    assert!(
        message.starts_with(
            "the object provided is unrecognized (must be of type Widget): error converting YAML to JSON: yaml: "
        ),
        "{message}"
    );
    assert!(message.ends_with("(6d657461646174613a0a20206e616d653a205b0a)"), "{message}");
}

#[tokio::test]
async fn validation_errors_are_422() {
    let body = r#"{"metadata":{"name":"w1"},"spec":{"replicas":-1,"mode":"Warp"}}"#;
    let answer = send(Method::POST, WIDGETS_URL, &[JSON], body).await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Widget.example.com \"w1\" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.mode: Unsupported value: \"Warp\": supported values: \"Fast\", \"Slow\"]","reason":"Invalid","details":{"name":"w1","group":"example.com","kind":"Widget","causes":[{"reason":"FieldValueInvalid","message":"Invalid value: -1: must be greater than or equal to 0","field":"spec.replicas"},{"reason":"FieldValueNotSupported","message":"Unsupported value: \"Warp\": supported values: \"Fast\", \"Slow\"","field":"spec.mode"}]},"code":422}"#
    );
}

#[tokio::test]
async fn server_errors_pass_through() {
    let answer = send(Method::POST, WIDGETS_URL, &[JSON], r#"{"metadata":{"name":"exists"}}"#).await;
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.example.com \"exists\" already exists","reason":"AlreadyExists","details":{"name":"exists","group":"example.com","kind":"widgets"},"code":409}"#
    );
    let answer = send(Method::DELETE, WIDGETS_URL, &[], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"deletecollection is not supported on resources of kind \"widgets.example.com\"","reason":"MethodNotAllowed","details":{"group":"example.com","kind":"widgets"},"code":405}"#
    );
}

#[tokio::test]
async fn delete_with_and_without_options() {
    let uri = format!("{WIDGETS_URL}/w1");
    let answer = send(Method::DELETE, &uri, &[], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Success","details":{"name":"w1","group":"example.com","kind":"widgets","uid":"uid-1"}}"#
    );
    assert_eq!(answer.warnings(), [r#"299 - "deleted with grace period None""#]);
    let answer =
        send(Method::DELETE, &uri, &[JSON], r#"{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0}"#)
            .await;
    assert_eq!(answer.warnings(), [r#"299 - "deleted with grace period Some(0)""#]);
    // A Status is never converted, even when a Table is asked for.
    let answer = send(Method::DELETE, &uri, &[("accept", KUBECTL_TABLE)], Body::empty()).await;
    assert_eq!(answer.json()["kind"], "Status");
}

#[tokio::test]
async fn panics_are_500() {
    let answer = send(Method::GET, &format!("{WIDGETS_URL}/boom"), &[], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: This request caused apiserver to panic. Look in the logs for details.","reason":"InternalError","details":{"causes":[{"message":"This request caused apiserver to panic. Look in the logs for details."}]},"code":500}"#
    );
}

#[tokio::test]
async fn unacceptable_accept_is_406() {
    let answer = send(Method::GET, &format!("{WIDGETS_URL}/a"), &[("accept", "text/html")], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf","reason":"NotAcceptable","code":406}"#
    );
}

const NAME_DESCRIPTION: &str = "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const CREATION_DESCRIPTION: &str = "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

fn partial_metadata(name: &str) -> Value {
    json!({
        "kind": "PartialObjectMetadata",
        "apiVersion": "meta.k8s.io/v1",
        "metadata": {"name": name, "namespace": "default", "resourceVersion": "7", "creationTimestamp": *CREATED}
    })
}

#[tokio::test]
async fn table_for_one_object_with_default_columns() {
    let uri = "/apis/example.com/v1/namespaces/default/gadgets";
    let answer = send(Method::GET, uri, &[("accept", KUBECTL_TABLE)], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), "application/json");
    assert_eq!(
        answer.json(),
        json!({
            "kind": "Table",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "7"},
            "columnDefinitions": [
                {"name": "Name", "type": "string", "format": "name", "description": NAME_DESCRIPTION, "priority": 0},
                {"name": "Age", "type": "date", "format": "", "description": CREATION_DESCRIPTION, "priority": 0},
            ],
            "rows": [{"cells": ["g1", "30m"], "object": partial_metadata("g1")}],
        })
    );
    // Fields in the API server's order.
    let name = serde_json::to_string(NAME_DESCRIPTION).unwrap();
    let created = serde_json::to_string(CREATION_DESCRIPTION).unwrap();
    let timestamp = &*CREATED;
    assert_eq!(
        answer.body,
        format!(
            r#"{{"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{{"resourceVersion":"7"}},"columnDefinitions":[{{"name":"Name","type":"string","format":"name","description":{name},"priority":0}},{{"name":"Age","type":"date","format":"","description":{created},"priority":0}}],"rows":[{{"cells":["g1","30m"],"object":{{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{{"creationTimestamp":"{timestamp}","name":"g1","namespace":"default","resourceVersion":"7"}}}}}}]}}"#
        )
    );

    // v1beta1 when only that is offered; includeObject=None leaves the object out.
    let answer = send(
        Method::GET,
        &format!("{uri}?includeObject=None"),
        &[("accept", "application/json;as=Table;v=v1beta1;g=meta.k8s.io")],
        Body::empty(),
    )
    .await;
    let table = answer.json();
    assert_eq!(table["apiVersion"], "meta.k8s.io/v1beta1");
    assert_eq!(table["rows"][0]["object"], Value::Null);

    let answer =
        send(Method::GET, &format!("{uri}?includeObject=All"), &[("accept", KUBECTL_TABLE)], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.json()["message"],
        "Unable to convert to Table as requested: includeObject: Invalid value: \"All\": must be 'Metadata', 'Object', 'None', or empty"
    );
}

#[tokio::test]
async fn table_for_a_list_with_declared_columns() {
    let answer = send(Method::GET, WIDGETS_URL, &[("accept", KUBECTL_TABLE)], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::OK, "{}", answer.body);
    assert_eq!(
        answer.json(),
        json!({
            "kind": "Table",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "42", "continue": "next"},
            "columnDefinitions": [
                {"name": "Name", "type": "string", "format": "name", "description": NAME_DESCRIPTION, "priority": 0},
                {"name": "Replicas", "type": "integer", "format": "int32", "description": "Desired replicas.", "priority": 0},
                {"name": "Mode", "type": "string", "format": "", "description": "", "priority": 1},
            ],
            "rows": [
                {"cells": ["a", 1, "Fast"], "object": partial_metadata("a")},
                {"cells": ["b", 2, "Fast"], "object": partial_metadata("b")},
            ],
        })
    );

    // A plain list when no Table is asked for; PartialObjectMetadataList when that is.
    let answer = send(Method::GET, WIDGETS_URL, &[("accept", "application/json")], Body::empty()).await;
    assert_eq!(answer.json()["kind"], "WidgetList");
    let answer = send(
        Method::GET,
        WIDGETS_URL,
        &[("accept", "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1")],
        Body::empty(),
    )
    .await;
    assert_eq!(
        answer.json(),
        json!({
            "kind": "PartialObjectMetadataList",
            "apiVersion": "meta.k8s.io/v1",
            "metadata": {"resourceVersion": "42", "continue": "next"},
            "items": [partial_metadata("a"), partial_metadata("b")],
        })
    );
    let answer = send(
        Method::GET,
        WIDGETS_URL,
        &[("accept", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1")],
        Body::empty(),
    )
    .await;
    assert_eq!(answer.status, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(
        answer.json()["message"],
        "you requested PartialObjectMetadata, but the requested object is a list (*v1.WidgetList)"
    );
}

fn lines(body: &str) -> Vec<Value> {
    assert!(body.ends_with('\n'), "{body:?}");
    body.lines().map(|line| serde_json::from_str(line).unwrap()).collect()
}

#[tokio::test]
async fn watch_streams_one_event_per_line() {
    let answer = tokio::time::timeout(
        Duration::from_secs(10),
        send(Method::GET, &format!("{WIDGETS_URL}?watch=1"), &[], Body::empty()),
    )
    .await
    .expect("the stream ends when the events end");
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.content_type(), "application/json;stream=watch");
    assert!(answer.headers.get(header::CONTENT_LENGTH).is_none(), "chunked");
    let events = lines(&answer.body);
    let types: Vec<&str> = events.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["ADDED", "MODIFIED", "DELETED"]);
    assert_eq!(events[1]["object"]["spec"]["replicas"], 2);
    let first = format!(r#"{{"type":"ADDED","object":{}}}"#, serde_json::to_string(&widget("a", 1)).unwrap());
    assert_eq!(answer.body.lines().next().unwrap(), first);
}

#[tokio::test]
async fn watch_panic_ends_with_an_error_event() {
    let answer = send(Method::GET, &format!("{WIDGETS_URL}?watch=true&explode"), &[], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::OK);
    let events = lines(&answer.body);
    assert_eq!(events.len(), 2);
    assert_eq!(events[0]["type"], "ADDED");
    assert_eq!(
        answer.body.lines().nth(1).unwrap(),
        r#"{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Internal error occurred: This request caused apiserver to panic. Look in the logs for details.","reason":"InternalError","details":{"causes":[{"message":"This request caused apiserver to panic. Look in the logs for details."}]},"code":500}}"#
    );
}

#[tokio::test]
async fn watch_ends_after_timeout_seconds() {
    let started = std::time::Instant::now();
    let answer = tokio::time::timeout(
        Duration::from_secs(10),
        send(Method::GET, &format!("{WIDGETS_URL}?watch=true&timeoutSeconds=1"), &[], Body::empty()),
    )
    .await
    .expect("timeoutSeconds ends the stream");
    assert!(started.elapsed() >= Duration::from_millis(900));
    assert_eq!(lines(&answer.body).len(), 3);
}

#[tokio::test]
async fn watch_as_table_sends_headers_once() {
    let answer =
        send(Method::GET, &format!("{WIDGETS_URL}?watch=true"), &[("accept", KUBECTL_TABLE)], Body::empty()).await;
    assert_eq!(answer.content_type(), "application/json;stream=watch");
    let events = lines(&answer.body);
    assert_eq!(events.len(), 3);
    assert_eq!(events[0]["type"], "ADDED");
    assert_eq!(events[0]["object"]["kind"], "Table");
    assert_eq!(events[0]["object"]["columnDefinitions"].as_array().unwrap().len(), 3);
    assert_eq!(events[0]["object"]["rows"][0]["cells"], json!(["a", 1, "Fast"]));
    assert_eq!(events[1]["object"]["columnDefinitions"], Value::Null);
    assert_eq!(events[1]["object"]["rows"][0]["cells"], json!(["a", 2, "Fast"]));
    assert_eq!(events[2]["object"]["metadata"]["resourceVersion"], "7");
}

#[tokio::test]
async fn patch_dispatches_on_content_type() {
    let uri = format!("{WIDGETS_URL}/w1");
    let cases = [
        ("application/json-patch+json", r#"[{"op":"replace","path":"/spec/replicas","value":5}]"#, "json"),
        ("application/merge-patch+json", r#"{"spec":{"replicas":5}}"#, "merge"),
        ("application/merge-patch+json; charset=utf-8", r#"{"spec":{"replicas":5}}"#, "merge"),
        ("application/apply-patch+yaml", "spec:\n  replicas: 5\n", "apply"),
        ("application/apply-patch+yaml", r#"{"spec":{"replicas":5}}"#, "apply"),
    ];
    for (content_type, body, kind) in cases {
        let answer = send(Method::PATCH, &uri, &[("content-type", content_type)], body).await;
        assert_eq!(answer.status, StatusCode::OK, "{content_type}: {}", answer.body);
        assert_eq!(answer.headers.get("x-patch-type").unwrap(), kind);
        assert_eq!(answer.json()["spec"]["replicas"], 5);
    }

    let answer = send(Method::PATCH, &uri, &[("content-type", "application/strategic-merge-patch+json")], "{}").await;
    assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(
        answer.body,
        r#"{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml","reason":"UnsupportedMediaType","code":415}"#
    );

    let answer = send(Method::PATCH, &uri, &[("content-type", "application/merge-patch+json")], "{\"spec\":").await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.json()["message"], "error decoding patch: EOF while parsing a value at line 1 column 8");

    let answer = send(Method::PATCH, &uri, &[("content-type", "application/apply-patch+yaml")], "spec: [\n").await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert!(answer.json()["message"].as_str().unwrap().starts_with("error decoding YAML: "));
}

#[tokio::test]
async fn patched_objects_follow_field_validation() {
    let uri = format!("{WIDGETS_URL}/w1?fieldValidation=Strict");
    let answer = send(
        Method::PATCH,
        &uri,
        &[("content-type", "application/merge-patch+json")],
        r#"{"spec":{"replicas":5,"replicas":6,"zzz":1}}"#,
    )
    .await;
    assert_eq!(answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let status = answer.json();
    let message = status["message"].as_str().unwrap();
    assert!(
        message.starts_with(r#" "" is invalid: patch: Invalid value: "{\"apiVersion\":\"example.com/v1\""#),
        "{message}"
    );
    assert!(
        message.ends_with(r#"": strict decoding error: duplicate field "spec.replicas", unknown field "spec.zzz""#),
        "{message}"
    );
    assert_eq!(status["details"]["causes"][0]["field"], "patch");

    let answer = send(
        Method::PATCH,
        &format!("{WIDGETS_URL}/w1"),
        &[("content-type", "application/json-patch+json")],
        r#"[{"op":"add","path":"/spec/zzz","value":1,"foo":2}]"#,
    )
    .await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.warnings(),
        [r#"299 - "json patch unknown field \"[0].foo\"""#, r#"299 - "unknown field \"spec.zzz\"""#]
    );
}

#[tokio::test]
async fn a_deprecated_version_warns_on_every_response() {
    let uri = "/apis/example.com/v1/namespaces/default/gadgets";
    let answer = send(Method::GET, uri, &[], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.warnings(), [r#"299 - "example.com/v1 Gadget is deprecated; use v2""#]);
    // Errors too: the warning is about the version, whatever the request.
    let answer = send(Method::GET, uri, &[("accept", "application/protobuf")], Body::empty()).await;
    assert_eq!(answer.status, StatusCode::NOT_ACCEPTABLE);
    assert_eq!(answer.warnings(), [r#"299 - "example.com/v1 Gadget is deprecated; use v2""#]);
    // Resources of versions that are not deprecated carry none.
    let answer = send(Method::GET, "/apis/example.com/v1/namespaces/default/widgets", &[], Body::empty()).await;
    assert!(answer.warnings().is_empty());
}

/// A type without a protobuf message (a custom resource's) answers protobuf requests as the
/// API server answers them for custom resources: a response is 406, a request body 400,
/// each `Status` in the format the client accepts.
#[tokio::test]
async fn a_type_without_a_message_answers_protobuf_as_for_custom_resources() {
    let request = Request::get(format!("{WIDGETS_URL}/a"))
        .header("accept", "application/vnd.kubernetes.protobuf, application/json")
        .body(Body::empty())
        .unwrap();
    let response = app(Config::default()).oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::NOT_ACCEPTABLE);
    let body = kube_apigen_server::axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let envelope = protobuf::decode_envelope(&body).expect("a protobuf Status");
    let status: Status = protobuf::decode_message(envelope.raw).expect("a Status");
    assert_eq!(
        status.message.as_deref(),
        Some(
            "object *unstructured.Unstructured does not implement the protobuf marshalling interface and cannot be \
             encoded to a protobuf message"
        )
    );
    let body = protobuf::encode_envelope("example.com/v1", "Widget", &[]);
    let answer = send(
        Method::POST,
        WIDGETS_URL,
        &[("content-type", "application/vnd.kubernetes.protobuf"), ("accept", "application/json")],
        body,
    )
    .await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.json()["message"],
        "Widget in version \"v1\" cannot be handled as a Widget: object *unstructured.Unstructured does not implement \
         the protobuf marshalling interface and cannot be encoded to a protobuf message"
    );
}
