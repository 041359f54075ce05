//! The `scale` subresource of resources with scale paths (a custom resource's
//! `subresources.scale`), as the API server's `ScaleREST` of custom resources serves it.
//!
//! - GET answers an `autoscaling/v1` Scale built from the object: its name, namespace,
//!   uid, resourceVersion and creationTimestamp; `spec.replicas` from `specReplicasPath`
//!   and `status.replicas` from `statusReplicasPath` (0 when absent; `spec.replicas` 0 is
//!   omitted, as Go's `omitempty` does), `status.selector` from `labelSelectorPath`
//!   (omitted when absent or empty). A value of the wrong type there is 400.
//! - PUT takes a Scale: only its `spec.replicas` is written, at `specReplicasPath`
//!   (intermediate objects created); its `metadata.resourceVersion`, when set, is a
//!   precondition (409 Conflict). The object is then updated as any update through a
//!   subresource: new resourceVersion, generation bumped (the spec changed), an `Update`
//!   managed-fields entry with `subresource: scale`, the kind's typed checks on the whole
//!   object (a CEL rule on replicas rejects with the kind's 422), a MODIFIED watch event.
//!   The answer is the Scale of the updated object.
//! - PATCH (JSON patch, merge patch) is applied to the Scale of the stored object, then
//!   written as a PUT. As the API server, a stored object without a value at
//!   `specReplicasPath` shows its Scale `spec.replicas` as -2147483648 to the patch, and a
//!   patch that leaves it so is 400 `the spec replicas field ".spec.replicas" cannot be
//!   empty`. Server-side apply takes an `autoscaling/v1` Scale configuration and applies
//!   its `spec.replicas` to the object at `specReplicasPath`, owned by the manager with
//!   `subresource: scale` (conflicts with other owners of that field as for any apply).
//! - `spec.replicas` must be a non-negative int32: 422 `Scale.autoscaling "<name>" is
//!   invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`.

use kube_apigen::ResourceInfo;
use kube_apigen::Status;
use kube_apigen::dynamic::{Request, Response, Verb};
use kube_apigen::field::{FieldError, Path};
use kube_apigen::go::fmt as gofmt;
use kube_apigen::http::{Context, FieldValidation, Patch};
use kube_apigen::resource::ScalePaths;
use serde_json::{Map, Value, json};

use super::write::{
    Mode, NAMESPACE_MISMATCH, Next, check_name, require_apply_manager, strict_unknown_fields, undecodable,
};
use super::{Inner, reply};
use crate::object::{meta_str, now, set_meta};
use kube_apigen_patch as patch;

/// What the API server puts in a Scale's `spec.replicas` for the patch to see when the
/// object has no value at `specReplicasPath` (the smallest int32).
const UNSET_REPLICAS: i64 = i32::MIN as i64;

/// The scale paths of `resource`; a resource without them has no `scale` subresource
/// (the store answers 405 before this is reached).
fn paths_of(resource: &ResourceInfo) -> Result<ScalePaths, Status> {
    resource.scale.ok_or_else(|| Status::method_not_allowed(resource.group, resource.plural, "get"))
}

impl Inner {
    /// Serves `request` through the `scale` subresource.
    pub(super) async fn scale(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let resource = request.resource;
        let paths = paths_of(resource)?;
        match request.verb {
            Verb::Get => self.get_scale(&request, paths).await,
            Verb::Update => self.update_scale(context, request, paths).await,
            Verb::Patch => self.patch_scale(context, request, paths).await,
            _ => Err(Status::method_not_allowed(resource.group, resource.plural, "create")),
        }
    }

    async fn get_scale(&self, request: &Request, paths: ScalePaths) -> Result<Response, Status> {
        let stored = self.stored(request).await?;
        Ok(reply(200, scale_of(&stored.object, paths)?.0))
    }

    async fn update_scale(&self, context: &Context, request: Request, paths: ScalePaths) -> Result<Response, Status> {
        let resource = request.resource;
        let name = request.name.clone().unwrap_or_default();
        let scale = request.body.clone().ok_or_else(|| Status::bad_request("the request has no body"))?;
        if !scale.is_object() {
            return Err(Status::bad_request("the object provided is not a JSON object"));
        }
        check_name(&scale, &name)?;
        check_namespace(resource, request.namespace.as_deref(), &scale)?;
        let replicas = scale_replicas(&scale, &name)?;
        if replicas == UNSET_REPLICAS {
            return Err(empty_replicas(paths));
        }
        let manager = Self::manager(context);
        let response = self
            .write(context, &request, |current| {
                let old = &self.existing(&request, current)?.object;
                let new = scaled(old, paths, replicas, meta_str(&scale, "resourceVersion"))?;
                self.prepare_update(context, &request, old, new, &manager, Mode::Update).map(Next::Replace)
            })
            .await?;
        as_scale(response, paths)
    }

    async fn patch_scale(&self, context: &Context, request: Request, paths: ScalePaths) -> Result<Response, Status> {
        let resource = request.resource;
        let name = request.name.clone().unwrap_or_default();
        let patch = request.patch.clone().ok_or_else(|| Status::bad_request("the request has no patch"))?;
        if let Patch::Apply(_) = &patch {
            require_apply_manager(context)?;
        }
        let manager = Self::manager(context);
        let response = self
            .write(context, &request, |current| {
                let old = &self.existing(&request, current)?.object;
                let (mut current, found) = scale_of(old, paths)?;
                if !found {
                    current["spec"]["replicas"] = json!(UNSET_REPLICAS);
                }
                let (new, mode) = match &patch {
                    Patch::Apply(config) => {
                        let new = self.apply_scale(resource, paths, old, config, &manager, request.options.force)?;
                        (new, Mode::Apply)
                    }
                    Patch::Json(operations) => {
                        let patched = patch::json_patch(&current, operations).map_err(|e| e.to_status())?;
                        (self.patched_scale(context, old, paths, &patched, &name)?, Mode::Update)
                    }
                    Patch::Merge(merge) => {
                        patch::check_merge_patch(merge).map_err(|e| e.to_status())?;
                        let patched = patch::merge_patch(&current, merge);
                        (self.patched_scale(context, old, paths, &patched, &name)?, Mode::Update)
                    }
                    Patch::StrategicMerge(_) => {
                        return Err(Status::unsupported_media_type(&[
                            "application/json-patch+json",
                            "application/merge-patch+json",
                            "application/apply-patch+yaml",
                        ]));
                    }
                };
                self.prepare_update(context, &request, old, new, &manager, mode).map(Next::Replace)
            })
            .await?;
        as_scale(response, paths)
    }

    /// The object a patched Scale makes of `old`.
    fn patched_scale(
        &self,
        context: &Context,
        old: &Value,
        paths: ScalePaths,
        patched: &Value,
        name: &str,
    ) -> Result<Value, Status> {
        if !patched.is_object() {
            return Err(undecodable(
                patched,
                format!(
                    "json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                    gofmt::json_kind(patched)
                ),
            ));
        }
        check_name(patched, name)?;
        if context.field_validation == FieldValidation::Strict {
            strict_unknown_fields(patched, &unknown_scale_fields(patched))?;
        }
        let replicas = scale_replicas(patched, name)?;
        if replicas == UNSET_REPLICAS {
            return Err(empty_replicas(paths));
        }
        scaled(old, paths, replicas, meta_str(patched, "resourceVersion"))
    }

    /// Server-side apply of a Scale configuration: its `spec.replicas` applied to `old`
    /// at `specReplicasPath`, through the `scale` subresource.
    fn apply_scale(
        &self,
        resource: &ResourceInfo,
        paths: ScalePaths,
        old: &Value,
        config: &Value,
        manager: &str,
        force: Option<bool>,
    ) -> Result<Value, Status> {
        let name = meta_str(old, "name").to_owned();
        let Some(fields) = config.as_object() else {
            return Err(Status::bad_request(format!(
                "error decoding YAML: json: cannot unmarshal {} into Go value of type map[string]interface {{}}",
                gofmt::json_kind(config)
            )));
        };
        let api_version = fields.get("apiVersion").and_then(Value::as_str).unwrap_or("");
        let kind = fields.get("kind").and_then(Value::as_str).unwrap_or("");
        if (api_version, kind) != ("autoscaling/v1", "Scale") {
            return Err(Status::bad_request(format!("invalid object type: {api_version}, Kind={kind}")));
        }
        if config.pointer("/metadata/managedFields").is_some_and(|v| !v.is_null()) {
            return Err(Status::bad_request("metadata.managedFields must be nil"));
        }
        check_name(config, &name)?;
        // The configuration, as one of the object: the same metadata, the replicas at
        // their path.
        let mut object = json!({
            "apiVersion": resource.api_version(),
            "kind": resource.kind,
            "metadata": {"name": name},
        });
        if resource.is_namespaced() {
            set_meta(&mut object, "namespace", Some(json!(meta_str(old, "namespace"))));
        }
        if config.pointer("/spec/replicas").is_some_and(|v| !v.is_null()) {
            let replicas = scale_replicas(config, &name)?;
            if replicas == UNSET_REPLICAS {
                return Err(empty_replicas(paths));
            }
            set_path(&mut object, paths.spec_replicas, json!(replicas))?;
        }
        let schema = self.schemas.schema(resource.group, resource.version, resource.kind);
        let mut result =
            patch::apply_subresource(Some(old), &object, manager, "scale", force.unwrap_or(false), schema, &now())
                .map_err(|e| e.to_status(resource.group, resource.plural, &name))?;
        if lookup(&result, paths.spec_replicas)?.is_none() {
            return Err(empty_replicas(paths));
        }
        // The precondition of the configuration, if any; else the stored version.
        let precondition = match meta_str(config, "resourceVersion") {
            "" => meta_str(old, "resourceVersion").to_owned(),
            given => given.to_owned(),
        };
        set_meta(&mut result, "resourceVersion", Some(json!(precondition)));
        Ok(result)
    }
}

/// The `autoscaling/v1` Scale of `object`, and whether the object has a value at
/// `specReplicasPath`.
pub(crate) fn scale_of(object: &Value, paths: ScalePaths) -> Result<(Value, bool), Status> {
    let spec = int_at(object, paths.spec_replicas)?;
    let status = int_at(object, paths.status_replicas)?.unwrap_or(0);
    let selector = match paths.label_selector {
        Some(path) => string_at(object, path)?.unwrap_or_default(),
        None => String::new(),
    };
    let mut metadata = Map::new();
    for field in ["name", "namespace", "uid", "resourceVersion"] {
        let value = meta_str(object, field);
        if !value.is_empty() {
            metadata.insert(field.to_owned(), json!(value));
        }
    }
    // A `metav1.Time`, which Go's encoder never omits.
    let created = object.pointer("/metadata/creationTimestamp").cloned().unwrap_or(Value::Null);
    metadata.insert("creationTimestamp".to_owned(), created);
    let mut spec_fields = Map::new();
    // Go's `int32(value)`: wraps.
    let spec_replicas = spec.unwrap_or(0) as i32;
    if spec_replicas != 0 {
        spec_fields.insert("replicas".to_owned(), json!(spec_replicas));
    }
    let mut status_fields = Map::new();
    status_fields.insert("replicas".to_owned(), json!(status as i32));
    if !selector.is_empty() {
        status_fields.insert("selector".to_owned(), json!(selector));
    }
    let scale = json!({
        "kind": "Scale",
        "apiVersion": "autoscaling/v1",
        "metadata": metadata,
        "spec": spec_fields,
        "status": status_fields,
    });
    Ok((scale, spec.is_some()))
}

/// An object answer of the store, as the Scale of that object.
fn as_scale(response: Response, paths: ScalePaths) -> Result<Response, Status> {
    match response {
        Response::Object { code, body } => Ok(reply(code, scale_of(&body, paths)?.0)),
        watch => Ok(watch),
    }
}

/// `old` with `replicas` at `specReplicasPath` and `resource_version` (when not empty)
/// as the update's precondition.
fn scaled(old: &Value, paths: ScalePaths, replicas: i64, resource_version: &str) -> Result<Value, Status> {
    let mut new = old.clone();
    set_path(&mut new, paths.spec_replicas, json!(replicas))?;
    if !resource_version.is_empty() {
        set_meta(&mut new, "resourceVersion", Some(json!(resource_version)));
    }
    Ok(new)
}

/// 400 for a write that leaves the Scale's `spec.replicas` at [`UNSET_REPLICAS`].
fn empty_replicas(paths: ScalePaths) -> Status {
    Status::bad_request(format!("the spec replicas field {} cannot be empty", gofmt::quote(paths.spec_replicas)))
}

/// `spec.replicas` of a Scale: absent or null is 0; not an int32 is the decoder's error
/// (422), negative (but [`UNSET_REPLICAS`], which the callers refuse with 400) the Scale
/// validation's 422.
fn scale_replicas(scale: &Value, name: &str) -> Result<i64, Status> {
    let Some(value) = scale.pointer("/spec/replicas").filter(|v| !v.is_null()) else {
        return Ok(0);
    };
    let replicas = value.as_i64().filter(|n| i32::try_from(*n).is_ok()).ok_or_else(|| {
        let message = match value {
            Value::Number(n) => {
                format!("json: cannot unmarshal number {n} into Go struct field ScaleSpec.spec.replicas of type int32")
            }
            other => format!(
                "json: cannot unmarshal {} into Go struct field ScaleSpec.spec.replicas of type int32",
                gofmt::json_kind(other)
            ),
        };
        undecodable(scale, message)
    })?;
    if replicas < 0 && replicas != UNSET_REPLICAS {
        let spec = Path::ROOT.field("spec");
        let path = spec.field("replicas");
        return Err(Status::invalid(
            "Scale",
            "autoscaling",
            name,
            &[FieldError::invalid(&path, replicas, "must be greater than or equal to 0")],
        ));
    }
    Ok(replicas)
}

/// 400 when a namespaced Scale names another namespace than the URL.
fn check_namespace(resource: &ResourceInfo, namespace: Option<&str>, scale: &Value) -> Result<(), Status> {
    let given = meta_str(scale, "namespace");
    if resource.is_namespaced() && !given.is_empty() && Some(given) != namespace {
        return Err(Status::bad_request(NAMESPACE_MISMATCH));
    }
    Ok(())
}

/// The fields of a patched Scale that `autoscaling/v1` Scale does not have (its
/// metadata is not checked).
fn unknown_scale_fields(scale: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let Some(root) = scale.as_object() else {
        return out;
    };
    for (key, value) in root {
        let known: &[&str] = match key.as_str() {
            "apiVersion" | "kind" | "metadata" => continue,
            "spec" => &["replicas"],
            "status" => &["replicas", "selector"],
            _ => {
                if !value.is_null() {
                    out.push(key.clone());
                }
                continue;
            }
        };
        if let Some(fields) = value.as_object() {
            for (field, value) in fields {
                if !known.contains(&field.as_str()) && !value.is_null() {
                    out.push(format!("{key}.{field}"));
                }
            }
        }
    }
    out
}

/// The fields of a simple JSON path (`.spec.replicas`).
fn fields(path: &str) -> impl Iterator<Item = &str> {
    path.strip_prefix('.').unwrap_or(path).split('.')
}

/// The value at `path`, `None` when a field on the way is missing; 400 as apimachinery's
/// `NestedFieldNoCopy` when something on the way is not an object.
fn lookup<'a>(object: &'a Value, path: &str) -> Result<Option<&'a Value>, Status> {
    let mut current = object;
    let mut walked = String::new();
    for field in fields(path) {
        let Some(map) = current.as_object() else {
            return Err(Status::bad_request(format!(
                "{walked} accessor error: {} is of the type {}, expected map[string]interface{{}}",
                gofmt::v(current),
                gofmt::type_name(current).unwrap_or("<nil>")
            )));
        };
        walked.push('.');
        walked.push_str(field);
        match map.get(field) {
            Some(value) => current = value,
            None => return Ok(None),
        }
    }
    Ok(Some(current))
}

/// An integer at `path` (`NestedInt64`); 400 when it is something else.
fn int_at(object: &Value, path: &str) -> Result<Option<i64>, Status> {
    match lookup(object, path)? {
        None => Ok(None),
        Some(value) => value.as_i64().map(Some).ok_or_else(|| {
            Status::bad_request(format!(
                "{path} accessor error: {} is of the type {}, expected int64",
                gofmt::v(value),
                gofmt::type_name(value).unwrap_or("<nil>")
            ))
        }),
    }
}

/// A string at `path` (`NestedString`); 400 when it is something else.
fn string_at(object: &Value, path: &str) -> Result<Option<String>, Status> {
    match lookup(object, path)? {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(value) => Err(Status::bad_request(format!(
            "{path} accessor error: {} is of the type {}, expected string",
            gofmt::v(value),
            gofmt::type_name(value).unwrap_or("<nil>")
        ))),
    }
}

/// Sets `value` at `path`, creating missing objects on the way (`SetNestedField`); 400
/// when something on the way is not an object.
fn set_path(object: &mut Value, path: &str, value: Value) -> Result<(), Status> {
    let names: Vec<&str> = fields(path).collect();
    let Some((last, parents)) = names.split_last() else {
        return Ok(());
    };
    let mut current = object;
    let mut walked = String::new();
    for field in parents {
        walked.push('.');
        walked.push_str(field);
        let map = current.as_object_mut().ok_or_else(|| not_a_map(&walked))?;
        let next = map.entry((*field).to_owned()).or_insert_with(|| json!({}));
        if next.is_null() {
            *next = json!({});
        }
        if !next.is_object() {
            return Err(not_a_map(&walked));
        }
        current = next;
    }
    let map = current.as_object_mut().ok_or_else(|| not_a_map(&walked))?;
    map.insert((*last).to_owned(), value);
    Ok(())
}

fn not_a_map(walked: &str) -> Status {
    Status::bad_request(format!("value cannot be set because {walked} is not a map[string]interface{{}}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const PATHS: ScalePaths = ScalePaths {
        spec_replicas: ".spec.replicas",
        status_replicas: ".status.replicas",
        label_selector: Some(".status.selector"),
    };

    #[test]
    fn scale_of_an_object() {
        let object = json!({
            "metadata": {"name": "a", "namespace": "ns", "uid": "u", "resourceVersion": "7",
                         "creationTimestamp": "2024-01-01T00:00:00Z", "labels": {"x": "y"}},
            "spec": {"replicas": 3},
            "status": {"replicas": 2, "selector": "app=a"}
        });
        let (scale, found) = scale_of(&object, PATHS).unwrap();
        assert!(found);
        assert_eq!(
            scale,
            json!({
                "kind": "Scale", "apiVersion": "autoscaling/v1",
                "metadata": {"name": "a", "namespace": "ns", "uid": "u", "resourceVersion": "7",
                             "creationTimestamp": "2024-01-01T00:00:00Z"},
                "spec": {"replicas": 3},
                "status": {"replicas": 2, "selector": "app=a"}
            })
        );
    }

    #[test]
    fn absent_values_are_zero_and_omitted() {
        let object = json!({"metadata": {"name": "a", "creationTimestamp": "2024-01-01T00:00:00Z"}});
        let (scale, found) = scale_of(&object, PATHS).unwrap();
        assert!(!found);
        assert_eq!(scale["spec"], json!({}));
        assert_eq!(scale["status"], json!({"replicas": 0}));
    }

    #[test]
    fn wrong_types_are_400() {
        let object = json!({"metadata": {"name": "a"}, "spec": {"replicas": "3"}});
        let error = scale_of(&object, PATHS).unwrap_err();
        assert_eq!(error.code(), 400);
        assert_eq!(
            error.message.as_deref(),
            Some(".spec.replicas accessor error: 3 is of the type string, expected int64")
        );
        let object = json!({"metadata": {"name": "a"}, "spec": 5});
        let error = scale_of(&object, PATHS).unwrap_err();
        assert_eq!(
            error.message.as_deref(),
            Some(".spec accessor error: 5 is of the type int64, expected map[string]interface{}")
        );
    }

    #[test]
    fn set_path_creates_objects() {
        let mut object = json!({"metadata": {}});
        set_path(&mut object, ".spec.scaling.replicas", json!(4)).unwrap();
        assert_eq!(object["spec"], json!({"scaling": {"replicas": 4}}));
        let mut object = json!({"spec": "text"});
        let error = set_path(&mut object, ".spec.replicas", json!(4)).unwrap_err();
        assert_eq!(error.message.as_deref(), Some("value cannot be set because .spec is not a map[string]interface{}"));
    }

    #[test]
    fn replicas_of_a_scale() {
        assert_eq!(scale_replicas(&json!({"spec": {}}), "a").unwrap(), 0);
        assert_eq!(scale_replicas(&json!({"spec": {"replicas": 5}}), "a").unwrap(), 5);
        let negative = scale_replicas(&json!({"spec": {"replicas": -1}}), "a").unwrap_err();
        assert_eq!(
            negative.message.as_deref(),
            Some(
                "Scale.autoscaling \"a\" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0"
            )
        );
        let text = scale_replicas(&json!({"spec": {"replicas": "x"}}), "a").unwrap_err();
        assert_eq!(text.code(), 422);
        let huge = scale_replicas(&json!({"spec": {"replicas": 1u64 << 40}}), "a").unwrap_err();
        assert_eq!(huge.code(), 422);
    }

    #[test]
    fn unknown_fields_of_a_scale() {
        let scale = json!({"metadata": {"name": "a"}, "spec": {"replicas": 1, "extra": 2},
                           "status": {"replicas": 1}, "other": true});
        assert_eq!(unknown_scale_fields(&scale), vec!["other", "spec.extra"]);
    }
}
