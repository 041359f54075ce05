//! etcd v3 (`--etcd-servers`), as kube-apiserver uses it.
//!
//! - An object is the JSON of the object under its key; its `resourceVersion` is the key's
//!   `mod_revision` (set when read, not stored), so a revision is etcd's revision and
//!   several servers on one etcd agree on every version.
//! - A create is a transaction "if the key's `create_revision` is 0, put"; an update "if
//!   its `mod_revision` is the one read, put"; a delete the same with a delete. A failed
//!   condition reads the key in the same transaction: the caller sees what won.
//! - Reads are linearizable ranges (a read after an acknowledged write through another
//!   server sees it), at a revision for snapshots and continue tokens; a compacted
//!   revision is [`StorageError::Compacted`].
//! - A watch is an etcd watch of the prefix from the next revision with the previous
//!   objects (`prev_kv`); progress requests answer bookmarks; a watch whose start was
//!   compacted ends with [`StorageError::Compacted`].
//!
//! The gRPC client is `etcdv3client`, whose generated protobuf code ships in the crate:
//! building needs no protobuf compiler. Connections are made lazily, so the server starts
//! (not ready) while etcd is down. Requests go to one server of those given; when it
//! cannot be connected to (the request never reached etcd, so sending it elsewhere is
//! safe), the next one takes over, as etcd's own client fails over.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use etcdv3client::grpc::{CredentialInterceptor, TonicClient};
use etcdv3client::pb::{self, compare, request_op, response_op};
use etcdv3client::{ErrKind, KvClient, WatchClient};
use futures::FutureExt;
use futures::channel::mpsc;
use futures::future::BoxFuture;
use serde_json::Value;
use tonic::transport::Endpoint;

use super::keys::prefix_end;
use super::memory::with_revision;
use super::{
    Event, KeyValue, Outbox, RangeRequest, RangeResponse, Result, Storage, StorageError, WatchItem, WatchStream,
    Written,
};
use crate::object::set_meta;

type Service = CredentialInterceptor<TonicClient>;

/// How long a connection to an etcd server may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// How long one etcd request may take (etcd answers within about 7 s when it cannot
/// reach a quorum).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);

/// The etcd backend; see the module documentation.
pub struct EtcdStorage {
    /// One lazily connected client per server.
    services: Vec<Service>,
    /// The server requests go to now.
    current: AtomicUsize,
}

impl EtcdStorage {
    /// A backend on the etcd servers `urls` (`http://127.0.0.1:2379`). Connects lazily:
    /// an unreachable etcd shows in the first requests (and `/readyz`), not here.
    pub fn new(urls: &[String]) -> std::result::Result<Self, String> {
        let mut services = Vec::new();
        for url in urls {
            let endpoint = Endpoint::from_shared(url.clone())
                .map_err(|e| format!("--etcd-servers: {url:?} is not a URL: {e}"))?
                .connect_timeout(CONNECT_TIMEOUT)
                .timeout(REQUEST_TIMEOUT)
                .http2_keep_alive_interval(Duration::from_secs(10))
                .keep_alive_timeout(Duration::from_secs(5));
            let channel = endpoint.connect_lazy();
            services.push(CredentialInterceptor::new(None, None, TonicClient::new(channel)));
        }
        if services.is_empty() {
            return Err("--etcd-servers: no server given".to_owned());
        }
        Ok(EtcdStorage { services, current: AtomicUsize::new(0) })
    }

    /// Runs `call` on the current server, and on the next ones while a server cannot be
    /// connected to.
    async fn on_a_server<T, F>(&self, call: impl Fn(Service) -> F) -> std::result::Result<T, etcdv3client::Error>
    where
        F: Future<Output = std::result::Result<T, etcdv3client::Error>>,
    {
        let mut attempts = self.services.len();
        loop {
            let index = self.current.load(Ordering::Relaxed) % self.services.len();
            match call(self.services[index].clone()).await {
                Err(error) if attempts > 1 && unreachable(&error) => {
                    attempts -= 1;
                    let _ = self.current.compare_exchange(index, index + 1, Ordering::Relaxed, Ordering::Relaxed);
                }
                result => return result,
            }
        }
    }

    async fn range_request(&self, request: pb::RangeRequest) -> Result<pb::RangeResponse> {
        let requested = request.revision as u64;
        self.on_a_server(|service| {
            let request = request.clone();
            async move { KvClient::new(service).range(request).await }
        })
        .await
        .map_err(|e| failure(e, requested))
    }

    async fn get_key(&self, key: &str) -> Result<Option<KeyValue>> {
        let response = self.range_request(pb::RangeRequest { key: key.into(), ..Default::default() }).await?;
        response.kvs.first().map(stored).transpose()
    }

    /// A transaction: `condition` on `key`, then `write`. Committed: the revision and the
    /// write's answer; not: what the key holds.
    async fn conditional(
        &self,
        key: &str,
        condition: pb::Compare,
        write: request_op::Request,
    ) -> Result<std::result::Result<(u64, Option<response_op::Response>), Option<KeyValue>>> {
        let read = request_op::Request::RequestRange(pb::RangeRequest { key: key.into(), ..Default::default() });
        let request = pb::TxnRequest {
            compare: vec![condition],
            success: vec![pb::RequestOp { request: Some(write) }],
            failure: vec![pb::RequestOp { request: Some(read) }],
        };
        let response = self
            .on_a_server(|service| {
                let request = request.clone();
                async move { KvClient::new(service).txn(request).await }
            })
            .await
            .map_err(|e| failure(e, 0))?;
        let revision = response.header.as_ref().map_or(0, |h| h.revision) as u64;
        let answer = response.responses.into_iter().next().and_then(|op| op.response);
        if response.succeeded {
            return Ok(Ok((revision, answer)));
        }
        match answer {
            Some(response_op::Response::ResponseRange(range)) => Ok(Err(range.kvs.first().map(stored).transpose()?)),
            _ => Ok(Err(None)),
        }
    }

    /// Puts `object` at `key` if `condition` holds.
    async fn put_if(&self, key: &str, condition: pb::Compare, mut object: Value) -> Result<Written> {
        // The revision is the key's, not part of the value.
        set_meta(&mut object, "resourceVersion", None);
        let value = serde_json::to_vec(&object).unwrap_or_default();
        let put = request_op::Request::RequestPut(pb::PutRequest { key: key.into(), value, ..Default::default() });
        Ok(match self.conditional(key, condition, put).await? {
            Ok((revision, _)) => Written::Done(KeyValue {
                key: key.to_owned(),
                object: Arc::new(with_revision(object, revision)),
                revision,
            }),
            Err(current) => Written::Conflict(current),
        })
    }
}

/// "The key's `create_revision` (0: absent) / `mod_revision` is `revision`".
fn revision_is(key: &str, target: compare::CompareTarget, revision: u64) -> pb::Compare {
    let union = match target {
        compare::CompareTarget::Create => compare::TargetUnion::CreateRevision(revision as i64),
        _ => compare::TargetUnion::ModRevision(revision as i64),
    };
    pb::Compare {
        result: compare::CompareResult::Equal as i32,
        target: target as i32,
        key: key.into(),
        range_end: Vec::new(),
        target_union: Some(union),
    }
}

/// A stored key-value as an object with its `resourceVersion`.
fn stored(kv: &pb::KeyValue) -> Result<KeyValue> {
    let key = String::from_utf8_lossy(&kv.key).into_owned();
    let object: Value = serde_json::from_slice(&kv.value)
        .map_err(|e| StorageError::Unavailable(format!("the value at {key} is not JSON: {e}")))?;
    let revision = kv.mod_revision as u64;
    Ok(KeyValue { key, object: Arc::new(with_revision(object, revision)), revision })
}

/// Whether a request failed because the server could not be connected to: it never
/// reached etcd.
fn unreachable(error: &etcdv3client::Error) -> bool {
    let message = error.to_string();
    message.contains("tcp connect error") || message.contains("ConnectionRefused")
}

/// The storage error of a failed etcd request (`requested`: the revision it read at).
fn failure(error: etcdv3client::Error, requested: u64) -> StorageError {
    match error.kind() {
        // etcd does not say which revision is the oldest left: the next one is a bound.
        ErrKind::Compacted => StorageError::Compacted { requested, oldest: requested + 1 },
        ErrKind::FutureRev => StorageError::FutureRevision { requested, current: requested.saturating_sub(1) },
        _ => {
            let message = error.to_string();
            if message.contains("timed out") || message.contains("Timeout") || message.contains("deadline") {
                StorageError::Timeout(format!("etcd: {message}"))
            } else {
                StorageError::Unavailable(format!("etcd: {message}"))
            }
        }
    }
}

impl Storage for EtcdStorage {
    fn revision(&self) -> BoxFuture<'_, Result<u64>> {
        async move {
            // A linearizable read of nothing: the header carries the current revision.
            let request = pb::RangeRequest { key: vec![0], count_only: true, ..Default::default() };
            let response = self.range_request(request).await?;
            Ok(response.header.map_or(0, |h| h.revision) as u64)
        }
        .boxed()
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<KeyValue>>> {
        self.get_key(key).boxed()
    }

    fn range<'a>(&'a self, request: RangeRequest<'a>) -> BoxFuture<'a, Result<RangeResponse>> {
        async move {
            let start = match request.start_after {
                // The first key after it.
                Some(start) if start >= request.prefix => {
                    let mut key = start.as_bytes().to_vec();
                    key.push(0);
                    key
                }
                _ => request.prefix.as_bytes().to_vec(),
            };
            let range = pb::RangeRequest {
                key: start,
                range_end: prefix_end(request.prefix),
                limit: request.limit.map_or(0, |limit| limit as i64),
                revision: request.revision.map_or(0, |revision| revision as i64),
                ..Default::default()
            };
            let response = self.range_request(range).await?;
            let revision = match request.revision {
                Some(revision) => revision,
                None => response.header.as_ref().map_or(0, |h| h.revision) as u64,
            };
            let items = response.kvs.iter().map(stored).collect::<Result<Vec<_>>>()?;
            Ok(RangeResponse { items, revision, count: response.count as usize })
        }
        .boxed()
    }

    fn create<'a>(&'a self, key: &'a str, object: Value) -> BoxFuture<'a, Result<Written>> {
        self.put_if(key, revision_is(key, compare::CompareTarget::Create, 0), object).boxed()
    }

    fn update<'a>(&'a self, key: &'a str, object: Value, expected: u64) -> BoxFuture<'a, Result<Written>> {
        self.put_if(key, revision_is(key, compare::CompareTarget::Mod, expected), object).boxed()
    }

    fn delete<'a>(&'a self, key: &'a str, expected: u64) -> BoxFuture<'a, Result<Written>> {
        async move {
            let condition = revision_is(key, compare::CompareTarget::Mod, expected);
            let delete = request_op::Request::RequestDeleteRange(pb::DeleteRangeRequest {
                key: key.into(),
                prev_kv: true,
                ..Default::default()
            });
            Ok(match self.conditional(key, condition, delete).await? {
                Ok((revision, Some(response_op::Response::ResponseDeleteRange(deleted)))) => {
                    let Some(last) = deleted.prev_kvs.first().map(stored).transpose()? else {
                        return Ok(Written::Conflict(None));
                    };
                    let object = Arc::new(with_revision((*last.object).clone(), revision));
                    Written::Done(KeyValue { key: key.to_owned(), object, revision })
                }
                Ok(_) => Written::Conflict(None),
                Err(current) => Written::Conflict(current),
            })
        }
        .boxed()
    }

    fn watch<'a>(&'a self, prefix: &'a str, after: u64) -> BoxFuture<'a, Result<Box<dyn WatchStream>>> {
        async move {
            let create = pb::WatchCreateRequest {
                key: prefix.into(),
                range_end: prefix_end(prefix),
                start_revision: after as i64 + 1,
                prev_kv: true,
                ..Default::default()
            };
            let create =
                pb::WatchRequest { request_union: Some(pb::watch_request::RequestUnion::CreateRequest(create)) };
            let (requests, responses) = self
                .on_a_server(|service| {
                    let (requests, outgoing) = mpsc::unbounded();
                    // The receiver is alive: sending cannot fail.
                    let _ = requests.unbounded_send(create.clone());
                    async move { Ok((requests, WatchClient::new(service).watch(outgoing).await?)) }
                })
                .await
                .map_err(|e| failure(e, after))?;
            let watch: Box<dyn WatchStream> =
                Box::new(EtcdWatch { requests, responses, outbox: Outbox::default(), after });
            Ok(watch)
        }
        .boxed()
    }

    fn compact(&self, revision: u64) -> BoxFuture<'_, Result<()>> {
        async move {
            let request = pb::CompactionRequest { revision: revision as i64, physical: false };
            let compacted =
                self.on_a_server(|service| async move { KvClient::new(service).compact(request).await }).await;
            match compacted {
                Ok(_) => Ok(()),
                // Compacted already, by another server: as good.
                Err(error) if error.kind() == ErrKind::Compacted => Ok(()),
                Err(error) => Err(failure(error, revision)),
            }
        }
        .boxed()
    }

    fn count<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<usize>> {
        async move {
            let request = pb::RangeRequest {
                key: prefix.into(),
                range_end: prefix_end(prefix),
                count_only: true,
                ..Default::default()
            };
            Ok(self.range_request(request).await?.count as usize)
        }
        .boxed()
    }
}

/// An etcd watch stream.
struct EtcdWatch {
    requests: mpsc::UnboundedSender<pb::WatchRequest>,
    responses: tonic::Streaming<pb::WatchResponse>,
    outbox: Outbox,
    after: u64,
}

impl EtcdWatch {
    fn receive(&mut self, response: pb::WatchResponse) {
        let revision = response.header.as_ref().map_or(0, |h| h.revision) as u64;
        if response.canceled {
            let error = if response.compact_revision > 0 {
                StorageError::Compacted { requested: self.after, oldest: response.compact_revision as u64 }
            } else {
                StorageError::Unavailable(format!("etcd ended the watch: {}", response.cancel_reason))
            };
            self.outbox.fail(error);
            return;
        }
        if response.created {
            return;
        }
        if response.events.is_empty() {
            self.outbox.push(WatchItem::Progress(revision));
            return;
        }
        for event in response.events {
            match change(event) {
                Ok(change) => self.outbox.push(WatchItem::Event(Arc::new(change))),
                Err(error) => {
                    self.outbox.fail(error);
                    return;
                }
            }
        }
    }
}

/// An etcd event as a change: the object after (for a delete, the object before with the
/// delete's revision) and before.
fn change(event: pb::Event) -> Result<Event> {
    let Some(kv) = event.kv else {
        return Err(StorageError::Unavailable("etcd sent an event without a key".to_owned()));
    };
    let revision = kv.mod_revision as u64;
    let key = String::from_utf8_lossy(&kv.key).into_owned();
    let prev = event.prev_kv.as_ref().map(stored).transpose()?.map(|kv| kv.object);
    let deleted = event.r#type == pb::event::EventType::Delete as i32;
    let object = if deleted {
        Arc::new(with_revision(prev.as_deref().cloned().unwrap_or_default(), revision))
    } else {
        stored(&kv)?.object
    };
    Ok(Event { revision, key, prev, object, deleted })
}

impl WatchStream for EtcdWatch {
    fn next(&mut self) -> BoxFuture<'_, Option<WatchItem>> {
        async move {
            loop {
                if let Some(item) = self.outbox.ready() {
                    return item;
                }
                match self.responses.message().await {
                    Ok(Some(response)) => self.receive(response),
                    Ok(None) => self.outbox.fail(StorageError::Unavailable("etcd closed the watch".to_owned())),
                    Err(status) => self.outbox.fail(StorageError::Unavailable(format!("etcd watch: {status}"))),
                }
            }
        }
        .boxed()
    }

    fn request_progress(&mut self) {
        let progress = pb::WatchRequest {
            request_union: Some(pb::watch_request::RequestUnion::ProgressRequest(pb::WatchProgressRequest {})),
        };
        let _ = self.requests.unbounded_send(progress);
    }
}
