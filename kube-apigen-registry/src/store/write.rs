//! Create, update (replace, subresources), patch and delete.

use kube_apigen::ResourceInfo;
use kube_apigen::Status;
use kube_apigen::dynamic::{Request, Response};
use kube_apigen::field::{FieldError, Path};
use kube_apigen::http::{Context, FieldValidation, Patch, UserInfo};
use serde_json::{Value, json};

use kube_apigen::auth::effective_user;
use kube_apigen_patch as patch;

use super::read::Filter;
use super::{Inner, reply, storage_status};
use crate::checks::dropped_fields;
use crate::object::{self, meta_str, now, set_meta};
use crate::storage::{KeyValue, Written};
use crate::strategy::{Answer, WriteContext, Written as Change};

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

/// What a write makes of the stored object, before it is committed.
pub(super) enum Next {
    /// Create this object (there is none yet).
    Create(Value, Mode),
    /// Replace the stored object with this one, already checked.
    Replace(Value),
}

/// How many times a write is tried again when another write to the same object came in
/// between its read and its commit.
const WRITE_ATTEMPTS: usize = 64;

/// How many generated names a create with `generateName` tries.
const NAME_ATTEMPTS: usize = 16;

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
        let agent = context
            .headers
            .get(kube_apigen::axum::http::header::USER_AGENT)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
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
        let Some(check) = self.typed_checks.get(&(resource.group, resource.version, resource.kind)) else {
            // A custom resource of a stored definition is checked with its schema.
            let (object, mut errors) = match crate::custom::schema_of(resource) {
                Some(schema) => kube_apigen::structural::check(&schema, resource.scope, &object, old),
                None => (object, Vec::new()),
            };
            errors.extend(extra);
            return if errors.is_empty() { Ok(object) } else { Err(invalid(&errors)) };
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

    pub(super) async fn create(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let body = request.body.clone().ok_or_else(|| Status::bad_request("the request has no body"))?;
        let manager = Self::manager(context);
        let resource = request.resource;
        match self.create_object(context, &request, body, &manager, Mode::Update).await? {
            Ok(response) => Ok(response),
            Err(name) => Err(Status::already_exists(resource.group, resource.plural, &name)),
        }
    }

    /// A create of a resource that is never stored: the object checked as a create
    /// checks it, then answered by `answer`.
    pub(super) async fn answer(
        &self,
        answer: &dyn Answer,
        context: &Context,
        request: Request,
    ) -> Result<Response, Status> {
        let resource = request.resource;
        let mut object = request.body.ok_or_else(|| Status::bad_request("the request has no body"))?;
        if !object.is_object() {
            return Err(Status::bad_request("the object provided is not a JSON object"));
        }
        set_type_meta(resource, &mut object);
        let now = now();
        let user = effective_user(context.user.as_ref());
        let write = WriteContext { resource, subresource: None, user: &user, now: &now, dry_run: context.dry_run };
        let extra = self.strategy(resource).validate(&write, &object);
        let object = self.check(resource, object, None, extra)?;
        Ok(reply(201, answer.create(&write, request.namespace.as_deref(), object).await?))
    }

    /// Creates `object` (the body of a create, or an apply's result for a missing
    /// object); `Err(name)` when an object of that name exists.
    async fn create_object(
        &self,
        context: &Context,
        request: &Request,
        mut object: Value,
        manager: &str,
        mode: Mode,
    ) -> Result<Result<Response, String>, Status> {
        let resource = request.resource;
        if !object.is_object() {
            return Err(Status::bad_request("the object provided is not a JSON object"));
        }
        self.ensure_namespace(resource, request.namespace.as_deref(), &mut object)?;
        self.admit_in_namespace(resource, request.namespace.as_deref(), meta_str(&object, "name")).await?;
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
        if self.has_status(resource) {
            object::set_top(&mut object, "status", None);
        }
        let user = effective_user(context.user.as_ref());
        let write = WriteContext { resource, subresource: None, user: &user, now: &now, dry_run: context.dry_run };
        let strategy = self.strategy(resource);
        strategy.prepare_for_create(&write, &mut object);
        let generate = meta_str(&object, "name").is_empty().then(|| meta_str(&object, "generateName").to_owned());
        if let Some(prefix) = &generate {
            set_meta(&mut object, "name", Some(json!(generate_name(prefix))));
        }
        let extra = strategy.validate(&write, &object);
        let mut object = self.check(resource, object, None, extra)?;
        strategy.admit(&write, &object, None).await?;
        let namespace = request.namespace.as_deref();
        for _ in 0..NAME_ATTEMPTS {
            let name = meta_str(&object, "name").to_owned();
            let key = self.keys.object(resource, namespace, &name);
            let written = if context.dry_run {
                match self.storage.get(&key).await.map_err(storage_status)? {
                    Some(existing) => Written::Conflict(Some(existing)),
                    None => return Ok(Ok(reply(201, object))),
                }
            } else {
                self.storage.create(&key, object.clone()).await.map_err(storage_status)?
            };
            match (written, &generate) {
                (Written::Done(stored), _) => {
                    strategy.after_write(&write, Change::Created(&stored.object));
                    return Ok(Ok(reply(201, (*stored.object).clone())));
                }
                (Written::Conflict(_), Some(prefix)) => {
                    set_meta(&mut object, "name", Some(json!(generate_name(prefix))));
                }
                (Written::Conflict(_), None) => return Ok(Err(name)),
            }
        }
        Ok(Err(generate.unwrap_or_default()))
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

    pub(super) async fn update(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let body = request.body.clone().ok_or_else(|| Status::bad_request("the request has no body"))?;
        let name = request.name.clone().unwrap_or_default();
        check_name(&body, &name)?;
        let manager = Self::manager(context);
        self.write(context, &request, |current| {
            let old = self.existing(&request, current)?;
            self.prepare_update(context, &request, &old.object, body.clone(), &manager, Mode::Update).map(Next::Replace)
        })
        .await
    }

    /// The stored object a write needs; 404 `NotFound` when there is none.
    pub(super) fn existing<'a>(
        &self,
        request: &Request,
        current: Option<&'a KeyValue>,
    ) -> Result<&'a KeyValue, Status> {
        let resource = request.resource;
        current.ok_or_else(|| Status::not_found(resource.group, resource.plural, request.name.as_deref().unwrap_or("")))
    }

    /// Reads the object a request names, makes the next one of it with `next`, and
    /// commits that guarded by the revision read; when another write came in between,
    /// does it all again with what that write left, as the API server's
    /// `GuaranteedUpdate` does (a `resourceVersion` precondition then fails with 409).
    pub(super) async fn write(
        &self,
        context: &Context,
        request: &Request,
        mut next: impl FnMut(Option<&KeyValue>) -> Result<Next, Status>,
    ) -> Result<Response, Status> {
        let resource = request.resource;
        let name = request.name.as_deref().unwrap_or("");
        let key = self.key_of(request);
        for _ in 0..WRITE_ATTEMPTS {
            let current = self.storage.get(&key).await.map_err(storage_status)?;
            let committed = match next(current.as_ref())? {
                Next::Create(object, mode) => {
                    let manager = Self::manager(context);
                    self.create_object(context, request, object, &manager, mode).await?.ok()
                }
                Next::Replace(new) => {
                    let old = self.existing(request, current.as_ref())?;
                    self.commit_update(context, request, &key, old, new).await?
                }
            };
            if let Some(response) = committed {
                return Ok(response);
            }
        }
        Err(Status::conflict(resource.group, resource.plural, name, Status::OPTIMISTIC_LOCK_MESSAGE))
    }

    /// Commits `new` over `old`; `None` when `old` is no longer what is stored.
    async fn commit_update(
        &self,
        context: &Context,
        request: &Request,
        key: &str,
        old: &KeyValue,
        new: Value,
    ) -> Result<Option<Response>, Status> {
        if object::same_ignoring_times(&old.object, &new) {
            return Ok(Some(reply(200, (*old.object).clone())));
        }
        let (user, now) = (effective_user(context.user.as_ref()), now());
        let write = WriteContext {
            resource: request.resource,
            subresource: request.subresource,
            user: &user,
            now: &now,
            dry_run: context.dry_run,
        };
        let strategy = self.strategy(request.resource);
        strategy.admit(&write, &new, Some(&old.object)).await?;
        if context.dry_run {
            return Ok(Some(reply(200, new)));
        }
        let goes = object::is_marked(&new) && !object::has_finalizers(&new) && !strategy.holds_deletion(&new);
        let Written::Done(updated) = self.storage.update(key, new, old.revision).await.map_err(storage_status)? else {
            return Ok(None);
        };
        strategy.after_write(&write, Change::Updated { old: &old.object, new: &updated.object });
        if !goes {
            return Ok(Some(reply(200, (*updated.object).clone())));
        }
        // The last finalizer is gone: the object goes.
        match self.storage.delete(key, updated.revision).await.map_err(storage_status)? {
            Written::Done(deleted) => {
                strategy.after_write(&write, Change::Deleted(&deleted.object));
                Ok(Some(reply(200, (*deleted.object).clone())))
            }
            // Written over in between: the next attempt sees what is there now.
            Written::Conflict(_) => Ok(None),
        }
    }

    /// The object replacing `old` with `body` as the request's subresource says, checked.
    /// Through `scale`, `body` is already the whole new object ([`super::scale`] makes it).
    pub(super) fn prepare_update(
        &self,
        context: &Context,
        request: &Request,
        old: &Value,
        mut body: Value,
        manager: &str,
        mode: Mode,
    ) -> Result<Value, Status> {
        let resource = request.resource;
        let subresource = request.subresource;
        let name = request.name.clone().unwrap_or_default();
        let namespace = request.namespace.as_deref().unwrap_or("");
        if !body.is_object() {
            return Err(Status::bad_request("the object provided is not a JSON object"));
        }
        if resource.is_namespaced() {
            let given = meta_str(&body, "namespace");
            if !given.is_empty() && given != namespace {
                return Err(Status::bad_request(NAMESPACE_MISMATCH));
            }
        }
        let precondition = meta_str(&body, "resourceVersion");
        if !precondition.is_empty() && precondition != meta_str(old, "resourceVersion") {
            return Err(Status::conflict(resource.group, resource.plural, &name, Status::OPTIMISTIC_LOCK_MESSAGE));
        }
        let now = now();
        let strategy = self.strategy(resource);
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
                    set_meta(&mut body, "namespace", Some(json!(namespace)));
                } else {
                    set_meta(&mut body, "namespace", None);
                }
                for field in strategy.reset_fields(resource) {
                    object::set_top(&mut body, field, old.get(field).cloned());
                }
                body
            }
            Some("scale") => body,
            Some("status") => {
                let mut new = old.clone();
                object::set_top(&mut new, "status", body.get("status").cloned());
                if mode == Mode::Apply {
                    object::copy_meta(&body, &mut new, "managedFields");
                }
                new
            }
            Some(other) => {
                let mut new = strategy.update_subresource(other, old, &body);
                if mode == Mode::Apply {
                    object::copy_meta(&body, &mut new, "managedFields");
                }
                new
            }
        };
        set_type_meta(resource, &mut new);
        let user = effective_user(context.user.as_ref());
        let write = WriteContext { resource, subresource, user: &user, now: &now, dry_run: context.dry_run };
        strategy.prepare_for_update(&write, &mut new, old);
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
        let mut extra = strategy.validate_update(&write, &new, old);
        extra.extend(no_new_finalizers(old, &new));
        self.check(resource, new, Some(old), extra)
    }

    // ---------------------------------------------------------------------------------
    // Patch.
    // ---------------------------------------------------------------------------------

    pub(super) async fn patch(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let patch = request.patch.clone().ok_or_else(|| Status::bad_request("the request has no patch"))?;
        let manager = Self::manager(context);
        if let Patch::Apply(_) = &patch {
            require_apply_manager(context)?;
        }
        self.write(context, &request, |current| {
            let old = current.map(|kv| kv.object.as_ref());
            if let Patch::Apply(applied) = &patch {
                return self.apply(context, &request, old, applied, &manager);
            }
            let old = &self.existing(&request, current)?.object;
            let patched = self.patched(context, &request, old, &patch)?;
            self.prepare_update(context, &request, old, patched, &manager, Mode::Update).map(Next::Replace)
        })
        .await
    }

    /// Server-side apply of `applied` to `old`: the object to create or the next one.
    fn apply(
        &self,
        context: &Context,
        request: &Request,
        old: Option<&Value>,
        applied: &Value,
        manager: &str,
    ) -> Result<Next, Status> {
        let resource = request.resource;
        let name = request.name.as_deref().unwrap_or("");
        let schema = self.schemas.schema(resource.group, resource.version, resource.kind);
        let force = request.options.force.unwrap_or(false);
        let config = self.apply_configuration(resource, request.subresource, applied);
        let result =
            patch::apply_subresource(old, &config, manager, request.subresource.unwrap_or(""), force, schema, &now())
                .map_err(|e| e.to_status(resource.group, resource.plural, name))?;
        check_name(&result, name)?;
        match old {
            None if request.subresource.is_some() => Err(Status::not_found(resource.group, resource.plural, name)),
            None => Ok(Next::Create(result, Mode::Apply)),
            Some(old) => self.prepare_update(context, request, old, result, manager, Mode::Apply).map(Next::Replace),
        }
    }

    /// `old` with a JSON, merge or strategic merge patch applied, as an object of the
    /// request's name.
    fn patched(&self, context: &Context, request: &Request, old: &Value, patch: &Patch) -> Result<Value, Status> {
        let resource = request.resource;
        let name = request.name.as_deref().unwrap_or("");
        let schema = self.schemas.schema(resource.group, resource.version, resource.kind);
        let patched = match patch {
            Patch::Json(operations) => patch::json_patch(old, operations).map_err(|e| e.to_status())?,
            Patch::Merge(merge) => {
                patch::check_merge_patch(merge).map_err(|e| e.to_status())?;
                patch::merge_patch(old, merge)
            }
            Patch::StrategicMerge(merge) => patch::strategic_merge(old, merge, schema).map_err(|e| e.to_status())?,
            Patch::Apply(_) => unreachable!("applied by Inner::apply"),
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
        check_name(&patched, name)?;
        if context.field_validation == FieldValidation::Strict {
            self.reject_unknown_fields(resource, &patched, old)?;
        }
        Ok(patched)
    }

    /// The part of an apply configuration the endpoint writes: through the resource,
    /// none of its strategy's reset fields (`status`, for a kind with a status
    /// subresource); through a subresource, only `status`.
    fn apply_configuration(&self, resource: &ResourceInfo, subresource: Option<&str>, applied: &Value) -> Value {
        let mut config = applied.clone();
        match subresource {
            None => {
                for field in self.strategy(resource).reset_fields(resource) {
                    object::set_top(&mut config, field, None);
                }
            }
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
        let Some(check) = self.typed_checks.get(&(resource.group, resource.version, resource.kind)) else {
            return match crate::custom::schema_of(resource) {
                Some(schema) => {
                    strict_unknown_fields(patched, &kube_apigen::structural::pruned_fields(&schema, patched))
                }
                None => Ok(()),
            };
        };
        let checked = check(patched, Some(old)).map_err(|message| undecodable(patched, message))?;
        strict_unknown_fields(patched, &dropped_fields(patched, &checked.object))
    }

    // ---------------------------------------------------------------------------------
    // Delete.
    // ---------------------------------------------------------------------------------

    pub(super) async fn delete(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let options = DeleteOptions::from_request(context, &request)?;
        let key = self.key_of(&request);
        let (code, status) = self.delete_object(request.resource, &key, &options).await?.ok_or_else(|| {
            Status::not_found(request.resource.group, request.resource.plural, request.name.as_deref().unwrap_or(""))
        })?;
        Ok(reply(code, serde_json::to_value(status).unwrap_or_default()))
    }

    /// Deletes the object at `key`, honoring preconditions and finalizers: an object with
    /// finalizers only gets its `deletionTimestamp` (202); the others go at once (200).
    /// Either way the answer is the API server's success `Status` naming the object;
    /// `None` when there is no object.
    async fn delete_object(
        &self,
        resource: &'static ResourceInfo,
        key: &str,
        options: &DeleteOptions,
    ) -> Result<Option<(u16, Status)>, Status> {
        for _ in 0..WRITE_ATTEMPTS {
            let Some(old) = self.storage.get(key).await.map_err(storage_status)? else {
                return Ok(None);
            };
            let status = options.check(resource, &old.object)?;
            // A marked object stays as it is: its timestamp does not move.
            if object::is_marked(&old.object) {
                return Ok(Some((202, status)));
            }
            let strategy = self.strategy(resource);
            strategy.admit_delete(&old.object)?;
            let finalizers = options.propagation.finalizers(object::finalizers(&old.object));
            let (code, written) = if !finalizers.is_empty() || strategy.holds_deletion(&old.object) {
                if options.dry_run {
                    return Ok(Some((202, status)));
                }
                let mut marked = (*old.object).clone();
                strategy.prepare_for_deletion(&mut marked);
                let finalizers = (!finalizers.is_empty()).then(|| json!(finalizers));
                set_meta(&mut marked, "finalizers", finalizers);
                set_meta(&mut marked, "deletionTimestamp", Some(json!(now())));
                set_meta(&mut marked, "deletionGracePeriodSeconds", Some(json!(0)));
                if let Some(generation) = marked.pointer("/metadata/generation").and_then(Value::as_i64)
                    && generation > 0
                {
                    set_meta(&mut marked, "generation", Some(json!(generation + 1)));
                }
                (202, self.storage.update(key, marked, old.revision).await)
            } else {
                if options.dry_run {
                    return Ok(Some((200, status)));
                }
                (200, self.storage.delete(key, old.revision).await)
            };
            if let Written::Done(stored) = written.map_err(storage_status)? {
                let now = now();
                let write =
                    WriteContext { resource, subresource: None, user: &options.user, now: &now, dry_run: false };
                let change = if code == 202 {
                    Change::Updated { old: &old.object, new: &stored.object }
                } else {
                    Change::Deleted(&stored.object)
                };
                strategy.after_write(&write, change);
                return Ok(Some((code, status)));
            }
        }
        let name = key.rsplit('/').next().unwrap_or("");
        Err(Status::conflict(resource.group, resource.plural, name, Status::OPTIMISTIC_LOCK_MESSAGE))
    }

    pub(super) async fn delete_collection(&self, context: &Context, request: Request) -> Result<Response, Status> {
        let resource = request.resource;
        let options = DeleteOptions::from_request(context, &request)?;
        let filter = Filter::from_request(self, &request)?;
        let selected = self.select(&filter, None, None, None).await.map_err(storage_status)?;
        for stored in selected.items {
            // Gone in between: nothing left to delete.
            self.delete_object(resource, &stored.key, &options).await?;
        }
        Ok(reply(200, serde_json::to_value(Status::success()).unwrap_or_default()))
    }
}

/// The finalizer that has the garbage collector orphan an object's dependents.
pub(super) const ORPHAN_FINALIZER: &str = "orphan";

/// The finalizer that holds an object until the garbage collector has deleted its
/// blocking dependents.
pub(super) const FOREGROUND_FINALIZER: &str = "foregroundDeletion";

/// What becomes of a deleted object's dependents (`propagationPolicy`, or the legacy
/// `orphanDependents`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Propagation {
    /// Neither was given: the object's own GC finalizers decide.
    Default,
    /// The dependents lose their reference to the object.
    Orphan,
    /// The object goes, then its dependents.
    Background,
    /// The dependents go first, then the object.
    Foreground,
}

impl Propagation {
    /// `existing` finalizers as the delete leaves them (`deletionFinalizersForGarbageCollection`).
    fn finalizers(self, existing: Vec<String>) -> Vec<String> {
        let (add, remove) = match self {
            Propagation::Default => return existing,
            Propagation::Orphan => (Some(ORPHAN_FINALIZER), vec![FOREGROUND_FINALIZER]),
            Propagation::Foreground => (Some(FOREGROUND_FINALIZER), vec![ORPHAN_FINALIZER]),
            Propagation::Background => (None, vec![ORPHAN_FINALIZER, FOREGROUND_FINALIZER]),
        };
        let mut finalizers: Vec<String> = existing.into_iter().filter(|f| !remove.contains(&f.as_str())).collect();
        if let Some(add) = add
            && !finalizers.iter().any(|f| f == add)
        {
            finalizers.push(add.to_owned());
        }
        finalizers
    }

    /// From `propagationPolicy` and `orphanDependents` as the request gives them; 422 as
    /// `ValidateDeleteOptions` words it when they are both set or the policy is unknown.
    fn from_options(policy: Option<&str>, orphan: Option<bool>) -> Result<Self, Status> {
        let path = Path::ROOT.field("propagationPolicy");
        let invalid = |error: FieldError| Status::invalid("DeleteOptions", "meta.k8s.io", "", &[error]);
        if let (Some(policy), Some(_)) = (policy, orphan) {
            return Err(invalid(FieldError::invalid(
                &path,
                policy,
                "orphanDependents and deletionPropagation cannot be both set",
            )));
        }
        Ok(match (policy, orphan) {
            (Some("Orphan"), _) | (None, Some(true)) => Propagation::Orphan,
            (Some("Foreground"), _) => Propagation::Foreground,
            (Some("Background"), _) | (None, Some(false)) => Propagation::Background,
            (None, None) => Propagation::Default,
            (Some(other), _) => {
                return Err(invalid(FieldError::not_supported(
                    &path,
                    other,
                    &["Foreground", "Background", "Orphan", "nil"],
                )));
            }
        })
    }
}

/// What a delete is asked to check and do.
struct DeleteOptions {
    uid: Option<String>,
    resource_version: Option<String>,
    dry_run: bool,
    propagation: Propagation,
    /// Who deletes.
    user: UserInfo,
}

impl DeleteOptions {
    /// From the `DeleteOptions` body, or the query when there is no body, as the API
    /// server reads them (`dryRun` from either; `gracePeriodSeconds` is accepted, there is
    /// no graceful deletion to wait for).
    fn from_request(context: &Context, request: &Request) -> Result<Self, Status> {
        let body = request.body.as_ref();
        let propagation = match body {
            Some(body) => Propagation::from_options(
                body.get("propagationPolicy").and_then(Value::as_str),
                body.get("orphanDependents").and_then(Value::as_bool),
            )?,
            None => Propagation::from_options(
                request.options.propagation_policy.as_deref(),
                request.options.orphan_dependents,
            )?,
        };
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
        Ok(DeleteOptions {
            uid: precondition("uid"),
            resource_version: precondition("resourceVersion"),
            dry_run: context.dry_run || body_dry_run,
            propagation,
            user: effective_user(context.user.as_ref()),
        })
    }

    /// 409 when a precondition does not hold for `old`; else the success `Status` of its
    /// deletion.
    fn check(&self, resource: &ResourceInfo, old: &Value) -> Result<Status, Status> {
        let name = meta_str(old, "name");
        let uid = meta_str(old, "uid");
        if let Some(expected) = &self.uid
            && expected != uid
        {
            return Err(Status::conflict(
                resource.group,
                resource.kind,
                name,
                format_args!(
                    "the UID in the precondition ({expected}) does not match the UID in record ({uid}). The object might have been deleted and then recreated"
                ),
            ));
        }
        let current = meta_str(old, "resourceVersion");
        if let Some(expected) = &self.resource_version
            && expected != current
        {
            return Err(Status::conflict(
                resource.group,
                resource.kind,
                name,
                format_args!(
                    "the ResourceVersion in the precondition ({expected}) does not match the ResourceVersion in record ({current}). The object might have been modified"
                ),
            ));
        }
        Ok(Status::deleted(resource.group, resource.plural, name, uid))
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

/// A marked object takes no new finalizers (`ValidateNoNewFinalizers`).
fn no_new_finalizers(old: &Value, new: &Value) -> Option<FieldError> {
    if !object::is_marked(old) {
        return None;
    }
    let before = object::finalizers(old);
    let mut added: Vec<String> = object::finalizers(new).into_iter().filter(|f| !before.contains(f)).collect();
    if added.is_empty() {
        return None;
    }
    added.sort();
    added.dedup();
    let listed = added.iter().map(|f| kube_apigen::go::fmt::quote(f)).collect::<Vec<_>>().join(", ");
    Some(FieldError::forbidden(
        &Path::ROOT.field("metadata").field("finalizers"),
        format!(
            "no new finalizers can be added if the object is being deleted, found new finalizers []string{{{listed}}}"
        ),
    ))
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

/// A name for `generateName`: the prefix and five random characters.
fn generate_name(prefix: &str) -> String {
    // The prefix is cut so that the name stays within 63 characters, as the API server does.
    let prefix: String = prefix.chars().take(58).collect();
    let suffix: String = (0..5).map(|_| NAME_CHARS[fastrand::usize(..NAME_CHARS.len())] as char).collect();
    format!("{prefix}{suffix}")
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
        .map(|path| format!("unknown field {}", kube_apigen::go::fmt::quote(path)))
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
