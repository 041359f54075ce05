//! `/openapi/v2`: the Swagger 2.0 document kube-apiserver still publishes (kubectl 1.27
//! and 1.28 read it before `create`, `apply` and `replace`), built from the OpenAPI v3
//! documents of every group-version, as JSON and as gnostic's protobuf
//! (`openapi.v2.Document`, see [`super::gnostic`]).
//!
//! The document is what kube-openapi's handler serves: `swagger: "2.0"`, `info` with the
//! title `Kubernetes` and the server's version, every path of every group-version with its
//! operations (parameters in place, the request body as the `body` parameter, each
//! response's schema, `consumes` and `produces` from the media types,
//! `x-kubernetes-action` and `x-kubernetes-group-version-kind` kept), every schema under
//! `definitions` by its v3 name (`io.k8s.api.autoscaling.v2.HorizontalPodAutoscaler`, as
//! upstream's swagger.json names them) with `$ref`s rewritten to `#/definitions/`, the
//! `allOf` wrapping of references undone, and what Swagger 2.0 cannot say (`nullable`,
//! `oneOf`, `anyOf`, `not`) left out, patch strategies, list types and other
//! `x-kubernetes-*` extensions kept; and the `BearerToken` security definition. Custom
//! resources are in it as their v3 documents describe them.
//!
//! Negotiation follows the handler: `application/json`, or the gnostic media type
//! (`application/com.github.proto-openapi.spec.v2.v1.0+protobuf`, or its deprecated
//! spelling with `@v1.0`), answered with the non-deprecated spelling; anything else is 406
//! with an empty body. Both representations carry one `ETag` (the SHA-512 of the JSON),
//! honor `If-None-Match` with 304, and say `Vary: Accept`.

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::Response;
use serde_json::{Map, Value, json};

use super::openapi::{none_match, openapi_hash};
use super::{ApiCatalog, GroupVersionInfo};
use crate::http::accept;

/// The media type of gnostic's protobuf document, as the handler answers with it.
pub const PROTOBUF_CONTENT_TYPE: &str = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

/// The media types `/openapi/v2` serves, in the handler's order of preference for `*/*`.
const OFFERED: &[(&str, &str)] = &[
    ("application/json", "application/json"),
    ("application/com.github.proto-openapi.spec.v2@v1.0+protobuf", PROTOBUF_CONTENT_TYPE),
    (PROTOBUF_CONTENT_TYPE, PROTOBUF_CONTENT_TYPE),
];

/// The Swagger 2.0 document in both representations, rendered once.
pub(crate) struct SwaggerV2 {
    json: Bytes,
    protobuf: Bytes,
    etag: String,
}

impl SwaggerV2 {
    pub(crate) fn new(catalog: &ApiCatalog, group_versions: &[&GroupVersionInfo]) -> SwaggerV2 {
        let document = swagger(catalog, group_versions);
        let json = serde_json::to_vec(&document).unwrap_or_default();
        let etag = openapi_hash(&json);
        SwaggerV2 { protobuf: Bytes::from(super::gnostic::document(&document)), json: Bytes::from(json), etag }
    }

    /// The answer to a `GET /openapi/v2` with these headers.
    pub(crate) fn respond(&self, request: &HeaderMap) -> Response {
        let mut response = Response::new(Body::empty());
        response.headers_mut().insert(header::VARY, HeaderValue::from_static("Accept"));
        let Some(content_type) = negotiate(request) else {
            *response.status_mut() = StatusCode::NOT_ACCEPTABLE;
            return response;
        };
        if let Ok(etag) = HeaderValue::from_str(&format!("\"{}\"", self.etag)) {
            response.headers_mut().insert(header::ETAG, etag);
        }
        if none_match(request, &self.etag) {
            *response.status_mut() = StatusCode::NOT_MODIFIED;
            return response;
        }
        response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
        let body = if content_type == PROTOBUF_CONTENT_TYPE { self.protobuf.clone() } else { self.json.clone() };
        *response.body_mut() = Body::from(body);
        response
    }
}

/// The `Content-Type` to answer with: the first offered type the most preferred range of
/// `Accept` admits.
fn negotiate(request: &HeaderMap) -> Option<&'static str> {
    accept::most_preferred(accept::header(request), |range| {
        OFFERED.iter().find(|(offered, _)| range.admits(offered)).map(|(_, answer)| *answer)
    })
}

/// The Swagger 2.0 document of every group-version's v3 document.
fn swagger(catalog: &ApiCatalog, group_versions: &[&GroupVersionInfo]) -> Value {
    let mut paths = Map::new();
    let mut definitions = Map::new();
    for gv in group_versions {
        let Ok(v3) = serde_json::from_str::<Value>(gv.openapi) else { continue };
        for (path, item) in v3["paths"].as_object().into_iter().flatten() {
            paths.entry(path.clone()).or_insert_with(|| path_item(item));
        }
        for (name, schema) in v3["components"]["schemas"].as_object().into_iter().flatten() {
            definitions.entry(name.clone()).or_insert_with(|| self::schema(schema));
        }
    }
    json!({
        "swagger": "2.0",
        "info": {"title": "Kubernetes", "version": catalog.version.git_version},
        "paths": paths,
        "definitions": definitions,
        "securityDefinitions": {
            "BearerToken": {
                "description": "Bearer Token authentication",
                "type": "apiKey",
                "name": "authorization",
                "in": "header"
            }
        },
        "security": [{"BearerToken": []}]
    })
}

const METHODS: &[&str] = &["get", "put", "post", "delete", "options", "head", "patch"];

fn path_item(item: &Value) -> Value {
    let mut out = Map::new();
    for (key, value) in item.as_object().into_iter().flatten() {
        if METHODS.contains(&key.as_str()) {
            out.insert(key.clone(), operation(value));
        } else if key == "parameters" {
            out.insert(key.clone(), parameters(value));
        } else if key.starts_with("x-") {
            out.insert(key.clone(), value.clone());
        }
    }
    Value::Object(out)
}

fn operation(op: &Value) -> Value {
    let mut out = Map::new();
    for key in ["description", "operationId", "tags", "deprecated"] {
        if let Some(value) = op.get(key) {
            out.insert(key.to_owned(), value.clone());
        }
    }
    let body = op.get("requestBody");
    let consumes: Vec<&String> =
        body.and_then(|b| b["content"].as_object()).into_iter().flatten().map(|(k, _)| k).collect();
    if !consumes.is_empty() {
        out.insert("consumes".to_owned(), json!(consumes));
    }
    let mut produces: Vec<&String> = Vec::new();
    for response in op["responses"].as_object().into_iter().flatten().map(|(_, r)| r) {
        for media in response["content"].as_object().into_iter().flatten().map(|(k, _)| k) {
            if !produces.contains(&media) {
                produces.push(media);
            }
        }
    }
    if !produces.is_empty() {
        out.insert("produces".to_owned(), json!(produces));
    }
    out.insert("schemes".to_owned(), json!(["https"]));
    let mut params: Vec<Value> = Vec::new();
    if let Some(body) = body {
        let schema = body["content"].as_object().and_then(|c| c.values().next()).map(|m| schema(&m["schema"]));
        params.push(json!({"name": "body", "in": "body", "required": true, "schema": schema.unwrap_or(json!({}))}));
    }
    if let Value::Array(more) = parameters(&op["parameters"]) {
        params.extend(more);
    }
    if !params.is_empty() {
        out.insert("parameters".to_owned(), Value::Array(params));
    }
    let responses: Map<String, Value> = op["responses"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(code, response)| {
            let mut converted = Map::new();
            converted.insert("description".to_owned(), response.get("description").cloned().unwrap_or(json!("")));
            if let Some(media) = response["content"].as_object().and_then(|c| c.values().next()) {
                converted.insert("schema".to_owned(), schema(&media["schema"]));
            }
            (code.clone(), Value::Object(converted))
        })
        .collect();
    out.insert("responses".to_owned(), Value::Object(responses));
    for (key, value) in op.as_object().into_iter().flatten().filter(|(k, _)| k.starts_with("x-")) {
        out.insert(key.clone(), value.clone());
    }
    Value::Object(out)
}

/// v3 parameters (`schema` nested) as v2 ones (the schema's keywords beside `name` and `in`).
fn parameters(params: &Value) -> Value {
    let converted = params
        .as_array()
        .into_iter()
        .flatten()
        .map(|param| {
            let mut out = Map::new();
            for (key, value) in param.as_object().into_iter().flatten() {
                match key.as_str() {
                    "schema" => {
                        if let Value::Object(keywords) = schema(value) {
                            out.extend(keywords);
                        }
                    }
                    "style" | "explode" | "allowReserved" => {}
                    _ => {
                        out.insert(key.clone(), value.clone());
                    }
                }
            }
            Value::Object(out)
        })
        .collect();
    Value::Array(converted)
}

/// A v3 schema as a Swagger 2.0 one.
fn schema(value: &Value) -> Value {
    match value {
        Value::Object(object) => {
            let mut out = Map::new();
            for (key, value) in object {
                match key.as_str() {
                    "$ref" => {
                        let target =
                            value.as_str().unwrap_or_default().replace("#/components/schemas/", "#/definitions/");
                        out.insert(key.clone(), Value::String(target));
                    }
                    // A reference with siblings is written `allOf: [{$ref}]` in v3 only.
                    "allOf" if value.as_array().is_some_and(|all| all.len() == 1) => {
                        if let Value::Object(inner) = schema(&value[0]) {
                            out.extend(inner);
                        }
                    }
                    "nullable" | "oneOf" | "anyOf" | "not" => {}
                    "properties" | "patternProperties" => {
                        let converted = value.as_object().into_iter().flatten().map(|(k, v)| (k.clone(), schema(v)));
                        out.insert(key.clone(), Value::Object(converted.collect()));
                    }
                    "items" | "additionalProperties" => {
                        out.insert(key.clone(), if value.is_object() { schema(value) } else { value.clone() });
                    }
                    _ => {
                        out.insert(key.clone(), value.clone());
                    }
                }
            }
            // What `oneOf` allowed, a string first (Quantity is a string or a number).
            let one_of_string = object
                .get("oneOf")
                .and_then(Value::as_array)
                .is_some_and(|alternatives| alternatives.iter().any(|alternative| alternative["type"] == "string"));
            if one_of_string && !out.contains_key("type") {
                out.insert("type".to_owned(), json!("string"));
            }
            Value::Object(out)
        }
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    fn negotiated(accept: &'static str) -> Option<&'static str> {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static(accept));
        negotiate(&headers)
    }

    #[test]
    fn negotiation() {
        const KUBECTL: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
        assert_eq!(negotiate(&HeaderMap::new()), Some("application/json"));
        assert_eq!(negotiated(KUBECTL), Some(PROTOBUF_CONTENT_TYPE));
        assert_eq!(negotiated("application/json;q=0.5, application/*"), Some("application/json"));
        assert_eq!(
            negotiated("*/*;q=0.5, application/com.github.proto-openapi.spec.v2.v1.0+protobuf"),
            Some(PROTOBUF_CONTENT_TYPE)
        );
        assert_eq!(negotiated("application/json;q=0, text/html"), None, "q=0 refuses");
        // As kube-apiserver reads them: a lone `*` is `*/*`, a malformed q ranks last.
        assert_eq!(negotiated("*"), Some("application/json"));
        assert_eq!(
            negotiated("application/json;q=high, application/com.github.proto-openapi.spec.v2@v1.0+protobuf;q=0.5"),
            Some(PROTOBUF_CONTENT_TYPE)
        );
        assert_eq!(negotiated("application/json;q=high"), Some("application/json"));
    }
}
