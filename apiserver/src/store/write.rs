//! Create, update (replace, subresources), patch and delete.

use std::sync::Arc;

use serde_json::{Value, json};
use support::ResourceInfo;
use support::Status;
use support::dynamic::{Request, Response};
use support::http::{Context, FieldValidation, Patch};
use support::validation::{FieldError, Path};

use super::object::{self, meta_str, now, set_meta};
use super::{Inner, ObjKey, State, key_of, reply};
use crate::auth::effective_user;
use crate::hooks::dropped_fields;
use crate::selector::{FieldSelector, LabelSelector, selectable_fields};
use crate::{patch, strategy};

/// The API server's message for a body naming another namespace than the URL
/// (`rest.EnsureObjectNamespaceMatchesRequestNamespace`).
pub const NAMESPACE_MISMATCH: &str =
    "the namespace of the provided object does not match the namespace sent on the request";

/// How the managed fields of a write are recorded.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Mode {
    /// An `Update` entry for the request's manager.
    Update,
    /// Server-side apply: the patch engine already recorded them.
    Apply,
}

/// The characters of generated name suffixes (`names.SimpleNameGenerator`: no vowels,
/// no confusable digits).
const NAME_CHARS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

impl Inner {
    /// The manager of a write: `fieldManager`, else the `User-Agent` prefix.
    pub(super) fn manager(context: &Context) -> String {
        if let Some(manager) = context.field_manager.as_deref()
            && !manager.is_empty()
        {
            return manager.to_owned();
        }
        let agent =
            context.headers.get(support::axum::http::header::USER_AGENT).and_then(|v| v.to_str().ok()).unwrap_or("");
        patch::manager_from_user_agent(agent)
    }

    /// Runs the kind's typed checks (`old` for updates) plus `extra` errors; answers the
    /// object as the model encodes it.
    fn check(
        &self,
        resource: &ResourceInfo,
        object: Value,
        old: Option<&Value>,
        extra: Vec<FieldError>,
    ) -> Result<Value, Status> {
        let name = meta_str(&object, "name").to_owned();
        let invalid = |errors: &[FieldError]| Status::invalid(resource.kind, resource.group, &name, errors);
        let Some(check) = self.validators.get(&(resource.group, resource.version, resource.kind)) else {
            return if extra.is_empty() { Ok(object) } else { Err(invalid(&extra)) };
        };
        match check(&object, old) {
            Err(message) => Err(undecodable(&object, message)),
            Ok(mut checked) => {
                checked.errors.extend(extra);
                if checked.errors.is_empty() { Ok(checked.object) } else { Err(invalid(&checked.errors)) }
            }
        }
    }

    // ---------------------------------------------------------------------------------
    // Create.
    // ---------------------------------------------------------------------------------

    pub(super) fn create(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let body = request.body.clone().ok_or_else(|| Status::bad_request("the request has no body"))?;
        let manager = Self::manager(context);
        let mut state = self.lock();
        self.create_locked(&mut state, context, &request, body, &manager, Mode::Update)
    }

    /// Creates `object` (the body of a create, or an apply's result for a missing object).
    fn create_locked(
        &self,
        state: &mut State,
        context: &Context,
        request: &Request,
        mut object: Value,
        manager: &str,
        mode: Mode,
    ) -> Result<Response, Status> {
        let resource = request.resource;
        if !object.is_object() {
            return Err(Status::bad_request("the object provided is not a JSON object"));
        }
        self.ensure_namespace(resource, request.namespace.as_deref(), &mut object)?;
        if !meta_str(&object, "resourceVersion").is_empty() {
            return Err(Status::internal_error("resourceVersion should not be set on objects to be created"));
        }
        set_type_meta(resource, &mut object);
        let now = now();
        set_meta(&mut object, "uid", Some(json!(uuid::Uuid::new_v4().to_string())));
        set_meta(&mut object, "creationTimestamp", Some(json!(now)));
        set_meta(&mut object, "generation", Some(json!(1)));
        for field in ["deletionTimestamp", "deletionGracePeriodSeconds", "selfLink"] {
            set_meta(&mut object, field, None);
        }
        // The manager owns what it sent, not what the server fills in.
        if mode == Mode::Update {
            let schema = self.schemas.schema(resource.group, resource.version, resource.kind);
            let mut sent = object.clone();
            if self.has_status(resource) {
                object::set_top(&mut sent, "status", None);
            }
            let recorded =
                patch::record_update_with_schema(None, &sent, manager, &resource.api_version(), &now, schema);
            object::copy_meta(&recorded, &mut object, "managedFields");
        }
        let user = effective_user(context.user.as_ref());
        strategy::prepare_create(resource, &mut object, &user);
        if self.has_status(resource) {
            object::set_top(&mut object, "status", None);
        }
        let namespace = meta_str(&object, "namespace").to_owned();
        if meta_str(&object, "name").is_empty() {
            let name = generate_name(state, resource, &namespace, meta_str(&object, "generateName"))?;
            set_meta(&mut object, "name", Some(json!(name)));
        }
        let object = self.check(resource, object, None, Vec::new())?;
        let name = meta_str(&object, "name").to_owned();
        let key: ObjKey = (namespace, name.clone());
        let exists =
            state.objects.get(&(resource.group, resource.plural)).is_some_and(|objects| objects.contains_key(&key));
        if exists {
            return Err(Status::already_exists(resource.group, resource.plural, &name));
        }
        if context.dry_run {
            return Ok(reply(201, object));
        }
        let stored = self.commit(state, resource, key, object, false);
        Ok(reply(201, (*stored).clone()))
    }

    /// The namespace of a namespaced object comes from the URL; a body naming another is
    /// 400. Cluster-scoped objects have none.
    fn ensure_namespace(
        &self,
        resource: &ResourceInfo,
        namespace: Option<&str>,
        object: &mut Value,
    ) -> Result<(), Status> {
        if !resource.is_namespaced() {
            set_meta(object, "namespace", None);
            return Ok(());
        }
        let requested = namespace.unwrap_or("");
        let given = meta_str(object, "namespace");
        if !given.is_empty() && given != requested {
            return Err(Status::bad_request(NAMESPACE_MISMATCH));
        }
        set_meta(object, "namespace", Some(json!(requested)));
        Ok(())
    }

    // ---------------------------------------------------------------------------------
    // Update.
    // ---------------------------------------------------------------------------------

    pub(super) fn update(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let body = request.body.clone().ok_or_else(|| Status::bad_request("the request has no body"))?;
        let name = request.name.clone().unwrap_or_default();
        check_name(&body, &name)?;
        let manager = Self::manager(context);
        let mut state = self.lock();
        let (key, old) = stored(&state, &request)?;
        self.update_locked(&mut state, context, &request, key, &old, body, &manager, Mode::Update)
    }

    /// Replaces `old` with `body` as the request's subresource says; answers 200. Through
    /// `scale`, `body` is already the whole new object ([`super::scale`] makes it).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn update_locked(
        &self,
        state: &mut State,
        context: &Context,
        request: &Request,
        key: ObjKey,
        old: &Value,
        mut body: Value,
        manager: &str,
        mode: Mode,
    ) -> Result<Response, Status> {
        let resource = request.resource;
        let subresource = request.subresource;
        let name = key.1.clone();
        if !body.is_object() {
            return Err(Status::bad_request("the object provided is not a JSON object"));
        }
        if resource.is_namespaced() {
            let given = meta_str(&body, "namespace");
            if !given.is_empty() && given != key.0 {
                return Err(Status::bad_request(NAMESPACE_MISMATCH));
            }
        }
        let precondition = meta_str(&body, "resourceVersion");
        if !precondition.is_empty() && precondition != meta_str(old, "resourceVersion") {
            return Err(Status::conflict(resource.group, resource.plural, &name, Status::OPTIMISTIC_LOCK_MESSAGE));
        }
        let now = now();
        let mut new = match subresource {
            None => {
                for field in [
                    "uid",
                    "creationTimestamp",
                    "generation",
                    "deletionTimestamp",
                    "deletionGracePeriodSeconds",
                    "resourceVersion",
                ] {
                    object::copy_meta(old, &mut body, field);
                }
                set_meta(&mut body, "selfLink", None);
                set_meta(&mut body, "name", Some(json!(name)));
                if resource.is_namespaced() {
                    set_meta(&mut body, "namespace", Some(json!(key.0)));
                } else {
                    set_meta(&mut body, "namespace", None);
                }
                if self.has_status(resource) {
                    object::set_top(&mut body, "status", old.get("status").cloned());
                }
                body
            }
            Some("scale") => body,
            Some("approval") => {
                let mut new = strategy::approval_object(old, &body);
                if mode == Mode::Apply {
                    object::copy_meta(&body, &mut new, "managedFields");
                }
                new
            }
            Some(_) => {
                let mut new = old.clone();
                object::set_top(&mut new, "status", body.get("status").cloned());
                if mode == Mode::Apply {
                    object::copy_meta(&body, &mut new, "managedFields");
                }
                new
            }
        };
        set_type_meta(resource, &mut new);
        strategy::prepare_update(resource, subresource, old, &mut new, &now);
        let generation = old.pointer("/metadata/generation").and_then(Value::as_i64).unwrap_or(1);
        let generation = if object::same_spec(old, &new) { generation } else { generation + 1 };
        set_meta(&mut new, "generation", Some(json!(generation)));
        if mode == Mode::Update {
            let schema = self.schemas.schema(resource.group, resource.version, resource.kind);
            new = patch::record_subresource_update(
                Some(old),
                &new,
                manager,
                &resource.api_version(),
                subresource.unwrap_or(""),
                &now,
                schema,
            );
        }
        let extra = strategy::validate_update(resource, subresource, old, &new);
        let new = self.check(resource, new, Some(old), extra)?;
        if object::same_ignoring_times(old, &new) {
            return Ok(reply(200, old.clone()));
        }
        let dry_run = context.dry_run;
        if !meta_str(&new, "deletionTimestamp").is_empty() && !object::has_finalizers(&new) {
            // The last finalizer is gone: the object goes.
            if dry_run {
                return Ok(reply(200, new));
            }
            let deleted = self.commit(state, resource, key, new, true);
            return Ok(reply(200, (*deleted).clone()));
        }
        if dry_run {
            return Ok(reply(200, new));
        }
        let stored = self.commit(state, resource, key, new, false);
        Ok(reply(200, (*stored).clone()))
    }

    // ---------------------------------------------------------------------------------
    // Patch.
    // ---------------------------------------------------------------------------------

    pub(super) fn patch(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let resource = request.resource;
        let name = request.name.clone().unwrap_or_default();
        let patch = request.patch.clone().ok_or_else(|| Status::bad_request("the request has no patch"))?;
        let manager = Self::manager(context);
        let schema = self.schemas.schema(resource.group, resource.version, resource.kind);
        let key = key_of(resource, request.namespace.as_deref(), &name);
        let mut state = self.lock();
        let old = get_object(&state, resource, &key);
        if let Patch::Apply(applied) = &patch {
            require_apply_manager(context)?;
            let force = request.options.force.unwrap_or(false);
            let now = now();
            let config = self.apply_configuration(resource, request.subresource, applied);
            let result = patch::apply_subresource(
                old.as_deref(),
                &config,
                &manager,
                request.subresource.unwrap_or(""),
                force,
                schema,
                &now,
            )
            .map_err(|e| e.to_status(resource.group, resource.plural, &name))?;
            check_name(&result, &name)?;
            return match old {
                None if request.subresource.is_some() => Err(Status::not_found(resource.group, resource.plural, &name)),
                None => self.create_locked(&mut state, context, &request, result, &manager, Mode::Apply),
                Some(old) => {
                    self.update_locked(&mut state, context, &request, key, &old, result, &manager, Mode::Apply)
                }
            };
        }
        let old = old.ok_or_else(|| Status::not_found(resource.group, resource.plural, &name))?;
        let patched = match &patch {
            Patch::Json(operations) => patch::json_patch(&old, operations).map_err(|e| e.to_status())?,
            Patch::Merge(merge) => {
                patch::check_merge_patch(merge).map_err(|e| e.to_status())?;
                patch::merge_patch(&old, merge)
            }
            Patch::StrategicMerge(merge) => patch::strategic_merge(&old, merge, schema).map_err(|e| e.to_status())?,
            Patch::Apply(_) => unreachable!("handled above"),
        };
        if !patched.is_object() {
            let kind = match &patched {
                Value::Array(_) => "array",
                Value::String(_) => "string",
                Value::Number(_) => "number",
                Value::Bool(_) => "bool",
                _ => "null",
            };
            return Err(undecodable(
                &patched,
                format!("json: cannot unmarshal {kind} into Go value of type map[string]interface {{}}"),
            ));
        }
        check_name(&patched, &name)?;
        if context.field_validation == FieldValidation::Strict {
            self.reject_unknown_fields(resource, &patched, &old)?;
        }
        self.update_locked(&mut state, context, &request, key, &old, patched, &manager, Mode::Update)
    }

    /// The part of an apply configuration the endpoint writes (the API server's reset
    /// fields): no `status` through the resource of a kind with a status subresource, only
    /// `status` through a subresource.
    fn apply_configuration(&self, resource: &ResourceInfo, subresource: Option<&str>, applied: &Value) -> Value {
        let mut config = applied.clone();
        match subresource {
            None if self.has_status(resource) => object::set_top(&mut config, "status", None),
            None => {}
            Some(_) => {
                if let Some(root) = config.as_object_mut() {
                    root.retain(|key, _| matches!(key.as_str(), "apiVersion" | "kind" | "metadata" | "status"));
                    if let Some(meta) = root.get_mut("metadata").and_then(Value::as_object_mut) {
                        meta.retain(|key, _| matches!(key.as_str(), "name" | "namespace" | "resourceVersion"));
                    }
                }
            }
        }
        config
    }

    /// Under `fieldValidation=Strict`, a patch that introduces fields the kind's model does
    /// not know is 422 ` "" is invalid: patch: Invalid value: "<object>": strict decoding
    /// error: unknown field "spec.foo"`, as the API server reports it.
    fn reject_unknown_fields(&self, resource: &ResourceInfo, patched: &Value, old: &Value) -> Result<(), Status> {
        let Some(check) = self.validators.get(&(resource.group, resource.version, resource.kind)) else {
            return Ok(());
        };
        let checked = check(patched, Some(old)).map_err(|message| undecodable(patched, message))?;
        strict_unknown_fields(patched, &dropped_fields(patched, &checked.object))
    }

    // ---------------------------------------------------------------------------------
    // Delete.
    // ---------------------------------------------------------------------------------

    pub(super) fn delete(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let resource = request.resource;
        let options = DeleteOptions::from_request(context, &request);
        let mut state = self.lock();
        let (key, old) = stored(&state, &request)?;
        let (code, status) = self.delete_locked(&mut state, resource, key, &old, &options)?;
        Ok(reply(code, serde_json::to_value(status).unwrap_or_default()))
    }

    /// Deletes `old`, honoring preconditions and finalizers: an object with finalizers
    /// only gets its `deletionTimestamp` (202); the others go at once (200). Either way the
    /// answer is the API server's success `Status` naming the object.
    fn delete_locked(
        &self,
        state: &mut State,
        resource: &ResourceInfo,
        key: ObjKey,
        old: &Value,
        options: &DeleteOptions,
    ) -> Result<(u16, Status), Status> {
        let name = key.1.clone();
        let uid = meta_str(old, "uid").to_owned();
        if let Some(expected) = &options.uid
            && *expected != uid
        {
            return Err(Status::conflict(
                resource.group,
                resource.kind,
                &name,
                format_args!(
                    "the UID in the precondition ({expected}) does not match the UID in record ({uid}). The object might have been deleted and then recreated"
                ),
            ));
        }
        let current = meta_str(old, "resourceVersion");
        if let Some(expected) = &options.resource_version
            && expected != current
        {
            return Err(Status::conflict(
                resource.group,
                resource.kind,
                &name,
                format_args!(
                    "the ResourceVersion in the precondition ({expected}) does not match the ResourceVersion in record ({current}). The object might have been modified"
                ),
            ));
        }
        let status = Status::deleted(resource.group, resource.plural, &name, &uid);
        if object::has_finalizers(old) {
            if meta_str(old, "deletionTimestamp").is_empty() && !options.dry_run {
                let mut marked = old.clone();
                set_meta(&mut marked, "deletionTimestamp", Some(json!(now())));
                set_meta(&mut marked, "deletionGracePeriodSeconds", Some(json!(0)));
                self.commit(state, resource, key, marked, false);
            }
            return Ok((202, status));
        }
        if !options.dry_run {
            let mut last = old.clone();
            set_meta(&mut last, "resourceVersion", None);
            self.commit(state, resource, key, last, true);
        }
        Ok((200, status))
    }

    pub(super) fn delete_collection(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let resource = request.resource;
        let options = DeleteOptions::from_request(context, &request);
        let fields = selectable_fields(resource.group, resource.plural);
        let labels = LabelSelector::parse(request.options.label_selector.as_deref().unwrap_or(""))
            .map_err(Status::bad_request)?;
        let field_selector = FieldSelector::parse(request.options.field_selector.as_deref().unwrap_or(""), fields)
            .map_err(Status::bad_request)?;
        let mut state = self.lock();
        let selected: Vec<(ObjKey, Arc<Value>)> = state
            .objects
            .get(&(resource.group, resource.plural))
            .map(|objects| {
                objects
                    .iter()
                    .filter(|((namespace, _), object)| {
                        (!resource.is_namespaced() || request.namespace.as_deref().is_none_or(|ns| ns == namespace))
                            && labels.matches(object::labels(object))
                            && field_selector.matches(object, fields)
                    })
                    .map(|(key, object)| (key.clone(), Arc::clone(object)))
                    .collect()
            })
            .unwrap_or_default();
        for (key, object) in selected {
            self.delete_locked(&mut state, resource, key, &object, &options)?;
        }
        Ok(reply(200, serde_json::to_value(Status::success()).unwrap_or_default()))
    }
}

/// What a delete is asked to check and do.
struct DeleteOptions {
    uid: Option<String>,
    resource_version: Option<String>,
    dry_run: bool,
}

impl DeleteOptions {
    /// From the `DeleteOptions` body and the query (`dryRun`, `propagationPolicy` and
    /// `gracePeriodSeconds` are accepted; there are no dependents to cascade to and no
    /// graceful deletion to wait for).
    fn from_request(context: &Context, request: &Request) -> Self {
        let body = request.body.as_ref();
        let precondition = |field: &str| {
            body.and_then(|b| b.get("preconditions"))
                .and_then(|p| p.get(field))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        let body_dry_run = body
            .and_then(|b| b.get("dryRun"))
            .and_then(Value::as_array)
            .is_some_and(|values| values.iter().any(|v| v == "All"));
        DeleteOptions {
            uid: precondition("uid"),
            resource_version: precondition("resourceVersion"),
            dry_run: context.dry_run || body_dry_run,
        }
    }
}

/// An apply patch needs a `fieldManager`: 422 `PatchOptions.meta.k8s.io "" is invalid:
/// fieldManager: Required value: is required for apply patch`.
pub(super) fn require_apply_manager(context: &Context) -> Result<(), Status> {
    let has_manager = context.field_manager.as_deref().is_some_and(|m| !m.is_empty());
    if has_manager {
        return Ok(());
    }
    Err(Status::invalid(
        "PatchOptions",
        "meta.k8s.io",
        "",
        &[FieldError::required(&Path::ROOT.field("fieldManager"), "is required for apply patch")],
    ))
}

/// The key of the object a request names, and the object; 404 `NotFound` when there is
/// none.
pub(super) fn stored(state: &State, request: &Request) -> Result<(ObjKey, Arc<Value>), Status> {
    let resource = request.resource;
    let name = request.name.as_deref().unwrap_or("");
    let key = key_of(resource, request.namespace.as_deref(), name);
    let object =
        get_object(state, resource, &key).ok_or_else(|| Status::not_found(resource.group, resource.plural, name))?;
    Ok((key, object))
}

/// The stored object at `key`.
pub(super) fn get_object(state: &State, resource: &ResourceInfo, key: &ObjKey) -> Option<Arc<Value>> {
    state.objects.get(&(resource.group, resource.plural)).and_then(|objects| objects.get(key)).cloned()
}

/// `apiVersion` and `kind` of the resource.
fn set_type_meta(resource: &ResourceInfo, object: &mut Value) {
    object::set_top(object, "apiVersion", Some(json!(resource.api_version())));
    object::set_top(object, "kind", Some(json!(resource.kind)));
}

/// 400 when the object's name is not the URL's (`checkName`).
pub(super) fn check_name(object: &Value, name: &str) -> Result<(), Status> {
    let given = meta_str(object, "name");
    if given != name {
        return Err(Status::bad_request(format!(
            "the name of the object ({given}) does not match the name on the URL ({name})"
        )));
    }
    Ok(())
}

/// A name for `generateName`: the prefix and five random characters, not yet taken.
fn generate_name(state: &State, resource: &ResourceInfo, namespace: &str, prefix: &str) -> Result<String, Status> {
    // The prefix is cut so that the name stays within 63 characters, as the API server does.
    let prefix: String = prefix.chars().take(58).collect();
    let objects = state.objects.get(&(resource.group, resource.plural));
    for _ in 0..100 {
        let suffix: String = (0..5).map(|_| NAME_CHARS[fastrand::usize(..NAME_CHARS.len())] as char).collect();
        let candidate = format!("{prefix}{suffix}");
        let taken = objects.is_some_and(|o| o.contains_key(&(namespace.to_owned(), candidate.clone())));
        if !taken {
            return Ok(candidate);
        }
    }
    Err(Status::already_exists(resource.group, resource.plural, &prefix))
}

/// The Status for a patched object that does not decode into its model, as the API
/// server reports it: 422 ` "" is invalid: patch: Invalid value: "<object>": <error>`.
pub(super) fn undecodable(object: &Value, message: String) -> Status {
    Status::invalid("", "", "", &[FieldError::invalid(&Path::ROOT.field("patch"), object.to_string(), message)])
}

/// `fieldValidation=Strict` on a patch: the fields of `patched` the model does not know
/// fail the request, all named in one error, as the API server words it.
pub(super) fn strict_unknown_fields(patched: &Value, unknown: &[String]) -> Result<(), Status> {
    if unknown.is_empty() {
        return Ok(());
    }
    let detail = unknown
        .iter()
        .map(|path| format!("unknown field {}", support::go::fmt::quote(path)))
        .collect::<Vec<_>>()
        .join(", ");
    Err(Status::invalid(
        "",
        "",
        "",
        &[FieldError::invalid(
            &Path::ROOT.field("patch"),
            patched.to_string(),
            format!("strict decoding error: {detail}"),
        )],
    ))
}
