//! The storage interface under the store, shaped like etcd's key-value and watch API, and
//! its backends.
//!
//! A backend keeps JSON objects under string keys and gives every committed write the
//! next revision of one counter. It knows nothing of Kubernetes but one thing: the object
//! it hands out carries its revision as `metadata.resourceVersion`, as the API server's
//! storage layer sets it from etcd's `mod_revision`. Everything else (uid, generation,
//! managed fields, selectors, paging, watch event types, bookmarks, dry run,
//! preconditions) is the store's, written once above this interface.
//!
//! - [`Storage::get`] and [`Storage::range`] read at the latest revision or, for a range,
//!   at an older one the backend still has (else [`StorageError::Compacted`]);
//! - [`Storage::create`] writes only if the key is absent; [`Storage::update`] and
//!   [`Storage::delete`] only if the key's revision is the expected one. A write that
//!   does not happen answers [`Written::Conflict`] with what the key holds, so the caller
//!   can decide between retrying and failing;
//! - [`Storage::watch`] streams the changes under a prefix after a revision, each with the
//!   object before and after, and answers progress requests with a revision up to which
//!   every change has been sent (the store's bookmarks);
//! - [`Storage::compact`] forgets the history up to a revision.
//!
//! Keys are laid out as kube-apiserver lays them out in etcd
//! (`<prefix>/<group>/<resource>/<namespace>/<name>`, [`keys`]), so the objects of one
//! namespace are one range and listing them costs what that namespace holds.

#[cfg(feature = "redb")]
pub mod durable;
#[cfg(feature = "etcd")]
pub mod etcd;
pub mod keys;
pub mod memory;

use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::Value;

pub use memory::MemoryStorage;

/// An object as stored: its key, the object (with `metadata.resourceVersion` set to
/// `revision`) and the revision of its last write (etcd's `mod_revision`).
#[derive(Clone, Debug)]
pub struct KeyValue {
    /// The key (`/registry/autoscaling/horizontalpodautoscalers/default/web`).
    pub key: String,
    /// The object, `metadata.resourceVersion` included.
    pub object: Arc<Value>,
    /// The revision of the key's last write.
    pub revision: u64,
}

/// What [`Storage::range`] reads.
#[derive(Clone, Debug)]
pub struct RangeRequest<'a> {
    /// Every key starting with this (which ends with `/`).
    pub prefix: &'a str,
    /// Only keys after this one (a continue token's key).
    pub start_after: Option<&'a str>,
    /// The revision to read at; `None` for the latest.
    pub revision: Option<u64>,
    /// At most this many objects.
    pub limit: Option<usize>,
}

/// What [`Storage::range`] answers.
#[derive(Clone, Debug, Default)]
pub struct RangeResponse {
    /// The objects, in key order.
    pub items: Vec<KeyValue>,
    /// The revision the range was read at.
    pub revision: u64,
    /// How many keys the range holds, `items` included (more than `items` when the limit
    /// cut it).
    pub count: usize,
}

/// The outcome of a conditional write.
#[derive(Clone, Debug)]
pub enum Written {
    /// Committed: the object as stored (for a delete, its last state with the delete's
    /// revision, as a DELETED watch event carries it).
    Done(KeyValue),
    /// Not written: the key exists (a create), or holds another revision or nothing (an
    /// update or delete). What the key holds now.
    Conflict(Option<KeyValue>),
}

/// One committed change, as a watch delivers it.
#[derive(Debug)]
pub struct Event {
    /// The revision the change was committed at.
    pub revision: u64,
    /// The key changed.
    pub key: String,
    /// The object before the change; `None` for a create.
    pub prev: Option<Arc<Value>>,
    /// The object after the change; for a delete, the last state with the delete's
    /// revision.
    pub object: Arc<Value>,
    /// Whether the change deleted the key.
    pub deleted: bool,
}

/// What a watch stream yields.
#[derive(Debug)]
pub enum WatchItem {
    /// A change under the watched prefix.
    Event(Arc<Event>),
    /// Every change up to this revision has been delivered (the answer to
    /// [`WatchStream::request_progress`]).
    Progress(u64),
    /// The watch cannot go on: the changes it needs were compacted (this is the oldest
    /// revision still there), or the backend failed.
    Failed(StorageError),
}

/// What a watch stream has ready to hand out, and whether it ended.
#[derive(Default)]
pub(crate) struct Outbox {
    items: std::collections::VecDeque<WatchItem>,
    ended: bool,
}

impl Outbox {
    /// The next item to hand out: `Some(None)` once the stream ended, `None` when the
    /// stream must wait for more.
    pub(crate) fn ready(&mut self) -> Option<Option<WatchItem>> {
        match self.items.pop_front() {
            Some(item) => Some(Some(item)),
            None => self.ended.then_some(None),
        }
    }

    pub(crate) fn push(&mut self, item: WatchItem) {
        self.items.push_back(item);
    }

    /// Ends the stream with `error`.
    pub(crate) fn fail(&mut self, error: StorageError) {
        self.push(WatchItem::Failed(error));
        self.ended = true;
    }

    /// Ends the stream without an error.
    pub(crate) fn end(&mut self) {
        self.ended = true;
    }

    pub(crate) fn ended(&self) -> bool {
        self.ended
    }
}

/// The changes under a prefix after a revision, in order.
pub trait WatchStream: Send {
    /// The next item; `None` once the stream ended. Cancel-safe: the store selects over it.
    fn next(&mut self) -> BoxFuture<'_, Option<WatchItem>>;
    /// Asks for a [`WatchItem::Progress`] once the changes committed so far are sent.
    fn request_progress(&mut self);
}

/// Why a storage operation failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StorageError {
    /// The revision asked for is older than the oldest the backend keeps.
    Compacted {
        /// The revision asked for.
        requested: u64,
        /// The oldest revision kept (where etcd's error does not name it, the revision
        /// after `requested`).
        oldest: u64,
    },
    /// The revision asked for is newer than the backend's current one.
    FutureRevision {
        /// The revision asked for.
        requested: u64,
        /// The backend's current revision (etcd's error does not name it: there, the
        /// revision before `requested`).
        current: u64,
    },
    /// The backend cannot be reached or failed; the message says why.
    Unavailable(String),
    /// The backend did not answer in time.
    Timeout(String),
}

impl std::fmt::Display for StorageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StorageError::Compacted { requested, oldest } => {
                write!(f, "revision {requested} has been compacted (the oldest kept is {oldest})")
            }
            StorageError::FutureRevision { requested, current } => {
                write!(f, "revision {requested} is a future revision (the current one is {current})")
            }
            StorageError::Unavailable(message) => write!(f, "storage unavailable: {message}"),
            StorageError::Timeout(message) => write!(f, "storage timeout: {message}"),
        }
    }
}

impl std::error::Error for StorageError {}

/// The result of a storage operation.
pub type Result<T> = std::result::Result<T, StorageError>;

/// A storage backend. Every method is a single round trip to the backend; the store
/// composes them.
pub trait Storage: Send + Sync + 'static {
    /// The latest revision.
    fn revision(&self) -> BoxFuture<'_, Result<u64>>;
    /// The object at `key`.
    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<KeyValue>>>;
    /// The objects under a prefix.
    fn range<'a>(&'a self, request: RangeRequest<'a>) -> BoxFuture<'a, Result<RangeResponse>>;
    /// Writes `object` at `key` if the key is absent.
    fn create<'a>(&'a self, key: &'a str, object: Value) -> BoxFuture<'a, Result<Written>>;
    /// Replaces the object at `key` if its revision is `expected`.
    fn update<'a>(&'a self, key: &'a str, object: Value, expected: u64) -> BoxFuture<'a, Result<Written>>;
    /// Deletes the object at `key` if its revision is `expected`.
    fn delete<'a>(&'a self, key: &'a str, expected: u64) -> BoxFuture<'a, Result<Written>>;
    /// The changes under `prefix` after revision `after`.
    fn watch<'a>(&'a self, prefix: &'a str, after: u64) -> BoxFuture<'a, Result<Box<dyn WatchStream>>>;
    /// Forgets the history up to `revision`: reads and watches at older revisions fail
    /// with [`StorageError::Compacted`].
    fn compact(&self, revision: u64) -> BoxFuture<'_, Result<()>>;
    /// How many objects are under `prefix` (for `apiserver_storage_objects`).
    fn count<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<usize>>;
}

/// Compacts `storage` every `interval`, to the revision it had one interval before, as
/// kube-apiserver's compactor does: one interval of history always remains. Runs until
/// the process ends; a failed round is logged and tried again at the next one.
pub async fn compact_every(storage: Arc<dyn Storage>, interval: Duration) {
    let mut previous = None;
    loop {
        tokio::time::sleep(interval).await;
        if let Some(revision) = previous
            && let Err(error) = storage.compact(revision).await
        {
            tracing::warn!("compaction to revision {revision} failed: {error}");
        }
        previous = match storage.revision().await {
            Ok(revision) => Some(revision),
            Err(error) => {
                tracing::warn!("compaction: cannot read the revision: {error}");
                None
            }
        };
    }
}
