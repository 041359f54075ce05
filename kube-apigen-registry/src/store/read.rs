//! Get and list: selectors, `resourceVersion` semantics, paging over consistent snapshots.

use std::time::Instant;

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use kube_apigen::ResourceInfo;
use kube_apigen::dynamic::{Request, Response};
use kube_apigen::{ListMeta, Status, StatusCause, StatusDetails};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use super::{Inner, reply, storage_status};
use crate::object;
use crate::selector::{FieldSelector, LabelSelector, SelectableFields};
use crate::storage::{KeyValue, RangeRequest, StorageError};

/// What a list or watch selects: a namespace (or all), labels, fields.
pub(crate) struct Filter {
    /// The key prefix of the objects in scope (a namespace's, or the resource's).
    pub(crate) prefix: String,
    labels: LabelSelector,
    fields: FieldSelector,
    selectable: SelectableFields,
}

impl Filter {
    /// Parses the request's selectors; a malformed one is 400 `BadRequest` with the
    /// parser's message.
    pub(crate) fn from_request(inner: &Inner, request: &Request) -> Result<Self, Status> {
        let resource = request.resource;
        let selectable = inner.strategy(resource).selectable_fields();
        let labels = LabelSelector::parse(request.options.label_selector.as_deref().unwrap_or(""))
            .map_err(Status::bad_request)?;
        let fields = FieldSelector::parse(request.options.field_selector.as_deref().unwrap_or(""), &selectable)
            .map_err(Status::bad_request)?;
        let prefix = inner.keys.collection(resource, request.namespace.as_deref());
        Ok(Filter { prefix, labels, fields, selectable })
    }

    /// Whether an object in scope is selected.
    pub(crate) fn matches(&self, object: &Value) -> bool {
        self.labels.matches(object::labels(object)) && self.fields.matches(object, &self.selectable)
    }

    /// Whether the selectors are empty (the API server then counts `remainingItemCount`).
    fn selects_everything(&self) -> bool {
        self.labels.is_empty() && self.fields.is_empty()
    }
}

/// A continue token: base64url of `{"v":"meta.k8s.io/v1","rv":N,"start":"<key>"}`, the
/// snapshot's version and the last key returned, relative to the resource's prefix
/// (`<namespace>/<name>`, or `<name>` for cluster-scoped kinds). `rv` -1 asks for the
/// latest version (the token of an expired snapshot: inconsistent, but complete).
#[derive(Serialize, Deserialize)]
struct ContinueToken {
    v: String,
    rv: i64,
    start: String,
}

impl ContinueToken {
    fn encode(rv: i64, start: &str) -> String {
        let token = ContinueToken { v: "meta.k8s.io/v1".into(), rv, start: start.to_owned() };
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&token).unwrap_or_default())
    }

    fn decode(text: &str) -> Result<(i64, String), Status> {
        let invalid =
            |detail: &str| Status::bad_request(format!("invalid continue token: continue key is not valid: {detail}"));
        let bytes = URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')).map_err(|e| invalid(&e.to_string()))?;
        let token: ContinueToken = serde_json::from_slice(&bytes).map_err(|e| invalid(&e.to_string()))?;
        if token.v != "meta.k8s.io/v1" {
            return Err(invalid(&format!("incorrect encoded start resourceVersion (version {})", token.v)));
        }
        if token.rv == 0 {
            return Err(Status::bad_request("0 continue resource version is not allowed when using continue"));
        }
        Ok((token.rv, token.start))
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
        kube_apigen::status::reason::TIMEOUT,
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
        .map_err(|_| Status::bad_request(format!("invalid resource version: {}", kube_apigen::go::fmt::quote(value))))
}

impl Inner {
    pub(super) async fn get(&self, request: &Request) -> Result<Response, Status> {
        let stored = self.stored(request).await?;
        Ok(reply(200, (*stored.object).clone()))
    }

    /// Waits (a little) until the store has reached `rv`; 504 when it does not.
    pub(crate) async fn wait_for(&self, rv: u64) -> Result<(), Status> {
        let deadline = Instant::now() + self.too_large_wait;
        loop {
            let current = self.storage.revision().await.map_err(storage_status)?;
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
        let filter = Filter::from_request(self, request)?;
        let resource_prefix = self.keys.resource(resource);
        let limit = options.limit.filter(|l| *l > 0).map(|l| l as usize);
        let rv = options.resource_version.as_deref().filter(|v| !v.is_empty());
        let mut start: Option<String> = None;
        let at = match options.continue_.as_deref().filter(|c| !c.is_empty()) {
            Some(token) => {
                if rv.is_some_and(|v| v != "0") {
                    return Err(Status::bad_request("specifying resource version is not allowed when using continue"));
                }
                let (token_rv, key) = ContinueToken::decode(token)?;
                start = Some(key);
                if token_rv > 0 { At::Exact(token_rv as u64) } else { At::Latest }
            }
            None => match (rv, options.resource_version_match.as_deref()) {
                (None, _) | (Some("0"), _) => At::Latest,
                (Some(v), Some("Exact")) => At::Exact(parse_rv(v)?),
                (Some(v), _) => At::NotOlderThan(parse_rv(v)?),
            },
        };
        let revision = match at {
            At::NotOlderThan(rv) => {
                self.wait_for(rv).await?;
                None
            }
            At::Exact(rv) => {
                self.wait_for(rv).await?;
                Some(rv)
            }
            At::Latest => None,
        };
        let start_key = start.as_ref().map(|start| format!("{resource_prefix}{start}"));
        let page = self.select(&filter, start_key, revision, limit).await.map_err(|error| match error {
            StorageError::Compacted { .. } => match &start {
                Some(start) => {
                    let mut status = Status::expired(CONTINUE_TOO_OLD);
                    status.metadata =
                        ListMeta { continue_: Some(ContinueToken::encode(-1, start)), ..ListMeta::default() };
                    status
                }
                None => Status::expired(LIST_TOO_OLD),
            },
            other => storage_status(other),
        })?;
        let mut metadata = ListMeta { resource_version: Some(page.revision.to_string()), ..ListMeta::default() };
        if page.remaining > 0
            && let Some(last) = page.items.last()
        {
            let relative = last.key.strip_prefix(&resource_prefix).unwrap_or(&last.key);
            metadata.continue_ = Some(ContinueToken::encode(page.revision as i64, relative));
            metadata.remaining_item_count = filter.selects_everything().then_some(page.remaining as i64);
        }
        let items = page.items.into_iter().map(|kv| (*kv.object).clone()).collect();
        Ok(reply(200, list_body(resource, metadata, items)))
    }

    /// The objects `filter` selects after `start_after`, at `revision` (the latest when
    /// `None`), at most `limit` of them: ranges of the backend, one after the other, until
    /// the page is full or the keys run out.
    pub(crate) async fn select(
        &self,
        filter: &Filter,
        mut start_after: Option<String>,
        revision: Option<u64>,
        limit: Option<usize>,
    ) -> Result<Page, StorageError> {
        let mut page = Page { items: Vec::new(), revision: 0, remaining: 0 };
        let mut revision = revision;
        loop {
            // One more than the page needs tells whether there is a next page.
            let chunk = limit.map(|limit| limit - page.items.len() + 1);
            let range = self
                .storage
                .range(RangeRequest {
                    prefix: &filter.prefix,
                    start_after: start_after.as_deref(),
                    revision,
                    limit: chunk,
                })
                .await?;
            // Every later range reads at the same revision: one consistent snapshot.
            revision = Some(range.revision);
            page.revision = range.revision;
            let fetched = range.items.len();
            let cut = range.count > fetched;
            start_after = range.items.last().map(|kv| kv.key.clone());
            for (index, kv) in range.items.into_iter().enumerate() {
                if !filter.matches(&kv.object) {
                    continue;
                }
                if limit.is_some_and(|limit| page.items.len() >= limit) {
                    // One more matches: there is a next page.
                    page.remaining = range.count - index;
                    return Ok(page);
                }
                page.items.push(kv);
            }
            if !cut || fetched == 0 {
                return Ok(page);
            }
        }
    }
}

/// A page of a list.
pub(crate) struct Page {
    pub(crate) items: Vec<KeyValue>,
    /// The revision of the snapshot.
    pub(crate) revision: u64,
    /// How many keys come after the last item when more objects match after it (0 when
    /// none do).
    remaining: usize,
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
