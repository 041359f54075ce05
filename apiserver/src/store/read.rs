//! Get and list: selectors, `resourceVersion` semantics, paging over consistent snapshots.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use support::ResourceInfo;
use support::dynamic::{Request, Response};
use support::{ListMeta, Status, StatusCause, StatusDetails};

use super::object::{self, meta_str};
use super::write::stored;
use super::{Inner, ObjKey, State, reply};
use crate::selector::{FieldSelector, LabelSelector, SelectableFields, selectable_fields};

/// What a list or watch selects: a namespace (or all), labels, fields.
pub(crate) struct Filter {
    namespace: Option<String>,
    labels: LabelSelector,
    fields: FieldSelector,
    selectable: &'static SelectableFields,
}

impl Filter {
    /// Parses the request's selectors; a malformed one is 400 `BadRequest` with the
    /// parser's message.
    pub(crate) fn from_request(request: &Request) -> Result<Self, Status> {
        let resource = request.resource;
        let selectable = selectable_fields(resource.group, resource.plural);
        let labels = LabelSelector::parse(request.options.label_selector.as_deref().unwrap_or(""))
            .map_err(Status::bad_request)?;
        let fields = FieldSelector::parse(request.options.field_selector.as_deref().unwrap_or(""), selectable)
            .map_err(Status::bad_request)?;
        let namespace = if resource.is_namespaced() { request.namespace.clone() } else { None };
        Ok(Filter { namespace, labels, fields, selectable })
    }

    pub(crate) fn matches(&self, object: &Value) -> bool {
        self.namespace.as_deref().is_none_or(|ns| meta_str(object, "namespace") == ns)
            && self.labels.matches(object::labels(object))
            && self.fields.matches(object, self.selectable)
    }

    /// Whether the selectors are empty (the API server then counts `remainingItemCount`).
    fn selects_everything(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }
}

/// A continue token: base64url of `{"v":"meta.k8s.io/v1","rv":N,"start":"<ns>/<name>"}`,
/// the snapshot's version and the last key returned. `rv` -1 asks for the latest version
/// (the token of an expired snapshot: inconsistent, but complete).
#[derive(Serialize, Deserialize)]
struct ContinueToken {
    v: String,
    rv: i64,
    start: String,
}

impl ContinueToken {
    fn encode(rv: i64, key: &ObjKey) -> String {
        let token = ContinueToken { v: "meta.k8s.io/v1".into(), rv, start: format!("{}/{}", key.0, key.1) };
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).unwrap_or_default())
    }

    fn decode(text: &str) -> Result<(i64, ObjKey), Status> {
        let invalid =
            |detail: &str| Status::bad_request(format!("invalid continue token: continue key is not valid: {detail}"));
        let bytes = URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).map_err(|e| invalid(&e.to_string()))?;
        let token: ContinueToken = serde_json::from_slice(&bytes).map_err(|e| invalid(&e.to_string()))?;
        if token.v != "meta.k8s.io/v1" {
            return Err(invalid(&format!("incorrect encoded start resourceVersion (version {})", token.v)));
        }
        let Some((namespace, name)) = token.start.split_once('/') else {
            return Err(invalid("the start key has no namespace separator"));
        };
        if token.rv == 0 {
            return Err(Status::bad_request("0 continue resource version is not allowed when using continue"));
        }
        Ok((token.rv, (namespace.to_owned(), name.to_owned())))
    }
}

/// Which version of the store a read is served at.
enum At {
    /// The current state.
    Latest,
    /// At least this version (the current state once the store has it).
    NotOlderThan(u64),
    /// Exactly this version (reconstructed from the history).
    Exact(u64),
}

/// The message of a list at a version the history no longer has.
const LIST_TOO_OLD: &str = "The resourceVersion for the provided list is too old.";
/// The message of a continue token whose snapshot the history no longer has.
const CONTINUE_TOO_OLD: &str = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

/// 504 `Too large resource version: <requested>, current: <current>`, as the API server
/// answers a read for a version it does not have yet.
pub(crate) fn too_large(requested: u64, current: u64) -> Status {
    let mut status = Status::failure(
        504,
        support::status::reason::TIMEOUT,
        format!("Timeout: Too large resource version: {requested}, current: {current}"),
    );
    status.details = Some(StatusDetails {
        causes: vec![StatusCause {
            reason: Some("ResourceVersionTooLarge".into()),
            message: Some("Too large resource version".into()),
            field: None,
        }],
        retry_after_seconds: Some(1),
        ..StatusDetails::default()
    });
    status
}

/// A `resourceVersion` parameter as a number; malformed ones are 400.
pub(crate) fn parse_rv(value: &str) -> Result<u64, Status> {
    value
        .parse::<u64>()
        .map_err(|_| Status::bad_request(format!("invalid resource version: {}", support::go::fmt::quote(value))))
}

impl Inner {
    pub(super) fn get(&self, request: &Request) -> Result<Response, Status> {
        let (_, object) = stored(&self.lock(), request)?;
        Ok(reply(200, (*object).clone()))
    }

    /// Waits (a little) until the store has reached `rv`; 504 when it does not.
    pub(crate) async fn wait_for(&self, rv: u64) -> Result<(), Status> {
        let deadline = Instant::now() + self.too_large_wait;
        loop {
            let current = self.lock().rv;
            if current >= rv {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(too_large(rv, current));
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
    }

    pub(super) async fn list(&self, request: &Request) -> Result<Response, Status> {
        let resource = request.resource;
        let options = &request.options;
        let filter = Filter::from_request(request)?;
        let limit = options.limit.filter(|l| *l > 0).map(|l| l as usize);
        let rv = options.resource_version.as_deref().filter(|v| !v.is_empty());
        let mut start: Option<ObjKey> = None;
        let mut continuing = false;
        let at = match options.continue_.as_deref().filter(|c| !c.is_empty()) {
            Some(token) => {
                if rv.is_some_and(|v| v != "0") {
                    return Err(Status::bad_request("specifying resource version is not allowed when using continue"));
                }
                let (token_rv, key) = ContinueToken::decode(token)?;
                start = Some(key);
                continuing = true;
                if token_rv > 0 { At::Exact(token_rv as u64) } else { At::Latest }
            }
            None => match (rv, options.resource_version_match.as_deref()) {
                (None, _) | (Some("0"), _) => At::Latest,
                (Some(v), Some("Exact")) => At::Exact(parse_rv(v)?),
                (Some(v), _) => At::NotOlderThan(parse_rv(v)?),
            },
        };
        match at {
            At::NotOlderThan(rv) | At::Exact(rv) => self.wait_for(rv).await?,
            At::Latest => {}
        }
        let state = self.lock();
        let (snapshot_rv, objects) = match at {
            At::Latest | At::NotOlderThan(_) => (state.rv, current(&state, resource)),
            At::Exact(rv) if rv < state.history_start => {
                if continuing {
                    let mut status = Status::expired(CONTINUE_TOO_OLD);
                    let key = start.clone().unwrap_or_default();
                    status.metadata =
                        ListMeta { continue_: Some(ContinueToken::encode(-1, &key)), ..ListMeta::default() };
                    return Err(status);
                }
                return Err(Status::expired(LIST_TOO_OLD));
            }
            At::Exact(rv) => (rv, snapshot(&state, resource, rv)),
        };
        drop(state);
        let mut selected = objects
            .into_iter()
            .filter(|(key, _)| start.as_ref().is_none_or(|start| key > start))
            .filter(|(_, object)| filter.matches(object));
        let mut items = Vec::new();
        let mut last_key = None;
        for (key, object) in selected.by_ref() {
            if limit.is_some_and(|limit| items.len() >= limit) {
                // One more matches: there is a next page.
                let remaining = 1 + selected.count();
                return Ok(reply(
                    200,
                    list_body(
                        resource,
                        ListMeta {
                            resource_version: Some(snapshot_rv.to_string()),
                            continue_: last_key.map(|k| ContinueToken::encode(snapshot_rv as i64, &k)),
                            remaining_item_count: filter.selects_everything().then_some(remaining as i64),
                            ..ListMeta::default()
                        },
                        items,
                    ),
                ));
            }
            last_key = Some(key);
            items.push((*object).clone());
        }
        Ok(reply(
            200,
            list_body(
                resource,
                ListMeta { resource_version: Some(snapshot_rv.to_string()), ..ListMeta::default() },
                items,
            ),
        ))
    }
}

/// The current objects of `resource`, in key order.
pub(crate) fn current(state: &State, resource: &ResourceInfo) -> BTreeMap<ObjKey, Arc<Value>> {
    state.objects.get(&(resource.group, resource.plural)).cloned().unwrap_or_default()
}

/// The objects of `resource` as they were at version `rv` (which the history covers):
/// the current ones with every later change undone.
fn snapshot(state: &State, resource: &ResourceInfo, rv: u64) -> BTreeMap<ObjKey, Arc<Value>> {
    let mut objects = current(state, resource);
    let res_key = (resource.group, resource.plural);
    for change in state.history.iter().rev().take_while(|c| c.rv > rv) {
        if change.resource != res_key {
            continue;
        }
        match &change.prev {
            Some(prev) => {
                objects.insert(change.key.clone(), Arc::clone(prev));
            }
            None => {
                objects.remove(&change.key);
            }
        }
    }
    objects
}

/// `{"apiVersion","kind":"<Kind>List","metadata":{...},"items":[...]}`.
fn list_body(resource: &ResourceInfo, metadata: ListMeta, items: Vec<Value>) -> Value {
    json!({
        "apiVersion": resource.api_version(),
        "kind": resource.list_kind,
        "metadata": metadata,
        "items": items,
    })
}
