//! The in-memory backend: a sorted map of keys, one revision counter, and the last changes
//! kept for watches and reads at older revisions.
//!
//! - Writes check and commit under one lock, and the same lock orders the broadcast to
//!   watchers, so every watcher sees every committed write once, in order.
//! - The last `history` changes are kept: they serve watches from an older revision,
//!   ranges at an older revision (the current objects with the later changes undone) and
//!   watchers that fell behind the broadcast buffer. Older revisions are compacted.
//! - A range copies only the objects under its prefix (`Arc`s), after the start key.
//! - With a [`Journal`] (the `redb` feature's data directory, [`super::durable`]), a write
//!   is committed there, durably, before it is applied in memory and answered. Writes that arrive while the disk is busy are
//!   committed together in the next transaction (group commit: one `fsync` for all of
//!   them); readers never wait for the disk.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard};

use futures::FutureExt;
use futures::future::{BoxFuture, ready};
use serde_json::Value;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::sync::oneshot;

use super::{
    Event, KeyValue, Outbox, RangeRequest, RangeResponse, Result, Storage, StorageError, WatchItem, WatchStream,
    Written,
};
use crate::object::set_meta;

/// A stored object and the revision of its last write.
#[derive(Clone, Debug)]
struct Stored {
    object: Arc<Value>,
    revision: u64,
}

#[derive(Default)]
struct State {
    revision: u64,
    objects: BTreeMap<String, Stored>,
    history: VecDeque<Arc<Event>>,
    /// Every change after this revision is in `history`.
    compacted: u64,
}

struct Shared {
    state: Mutex<State>,
    events: broadcast::Sender<Arc<Event>>,
    history: usize,
    disk: Option<Box<dyn Journal>>,
    /// Durable writes waiting for the disk.
    queue: Mutex<Vec<Queued>>,
    /// Held while the queue is committed, from the checks until the writes are applied.
    committer: Arc<tokio::sync::Mutex<()>>,
}

/// Where a durable in-memory backend commits its writes before it applies them.
pub trait Journal: Send + Sync + 'static {
    /// Commits writes durably, in one transaction: each `(key, object)` (`None`: the key
    /// deleted), the last of them at `revision`.
    fn commit(&self, revision: u64, writes: Vec<(String, Option<Value>)>) -> BoxFuture<'_, Result<()>>;
}

/// What a journal holds when the backend starts: the revision of its last write and the
/// objects by key.
pub struct Recovered {
    /// The revision of the last committed write (0: none).
    pub revision: u64,
    /// Every object with its key, each carrying the revision of its last write as
    /// `metadata.resourceVersion`.
    pub objects: Vec<(String, Value)>,
}

/// The in-memory backend; see the module documentation.
pub struct MemoryStorage {
    shared: Arc<Shared>,
}

/// A durable write waiting for the disk, and where its outcome goes.
struct Queued {
    key: String,
    write: Write,
    done: oneshot::Sender<Result<Written>>,
}

/// A write, before it is checked against what the key holds.
enum Write {
    Create(Value),
    Update(Value, u64),
    Delete(u64),
}

impl MemoryStorage {
    /// A backend keeping `history` changes, with `broadcast_capacity` changes buffered
    /// per watcher before it must catch up from the history.
    pub fn new(history: usize, broadcast_capacity: usize) -> Self {
        Self::with_state(State::default(), None, history, broadcast_capacity)
    }

    /// A backend holding what `journal` recovered, committing every write to it before
    /// applying it.
    pub fn journaled(journal: impl Journal, recovered: Recovered, history: usize, broadcast_capacity: usize) -> Self {
        let objects = recovered
            .objects
            .into_iter()
            .map(|(key, object)| {
                let revision = revision_of(&object);
                (key, Stored { object: Arc::new(object), revision })
            })
            .collect();
        let state =
            State { revision: recovered.revision, objects, history: VecDeque::new(), compacted: recovered.revision };
        Self::with_state(state, Some(Box::new(journal)), history, broadcast_capacity)
    }

    fn with_state(state: State, disk: Option<Box<dyn Journal>>, history: usize, broadcast_capacity: usize) -> Self {
        let (events, _) = broadcast::channel(broadcast_capacity.max(1));
        let shared = Shared {
            state: Mutex::new(state),
            events,
            history: history.max(1),
            disk,
            queue: Mutex::new(Vec::new()),
            committer: Arc::new(tokio::sync::Mutex::new(())),
        };
        MemoryStorage { shared: Arc::new(shared) }
    }

    /// The latest revision, without waiting.
    pub fn current_revision(&self) -> u64 {
        self.shared.lock().revision
    }

    /// Commits `write` if what `key` holds allows it: on the disk first, when there is
    /// one.
    async fn write(&self, key: &str, write: Write) -> Result<Written> {
        if self.shared.disk.is_none() {
            return Ok(self.shared.apply(&mut self.shared.lock(), key, write));
        }
        let (done, mut outcome) = oneshot::channel();
        lock(&self.shared.queue).push(Queued { key: key.to_owned(), write, done });
        // Whoever has the turn commits everything queued; this write may be done already.
        let turn = Arc::clone(&self.shared.committer).lock_owned().await;
        if let Ok(result) = outcome.try_recv() {
            return result;
        }
        // A task of its own: the commit finishes even if this request goes away, so that
        // the disk and the memory agree.
        let shared = Arc::clone(&self.shared);
        let _ = tokio::spawn(async move {
            let batch = std::mem::take(&mut *lock(&shared.queue));
            shared.commit(batch).await;
            drop(turn);
        })
        .await;
        outcome.await.unwrap_or_else(|_| Err(StorageError::Unavailable("the write was dropped".to_owned())))
    }

    fn range_now(&self, request: &RangeRequest<'_>) -> Result<RangeResponse> {
        let state = self.shared.lock();
        let revision = request.revision.unwrap_or(state.revision);
        if revision > state.revision {
            return Err(StorageError::FutureRevision { requested: revision, current: state.revision });
        }
        if revision < state.compacted {
            return Err(StorageError::Compacted { requested: revision, oldest: state.compacted });
        }
        let lower = match request.start_after {
            Some(start) if start >= request.prefix => Bound::Excluded(start),
            _ => Bound::Included(request.prefix),
        };
        let in_range = |key: &str| key.starts_with(request.prefix);
        let limit = request.limit.unwrap_or(usize::MAX);
        if revision == state.revision {
            let mut entries =
                state.objects.range::<str, _>((lower, Bound::Unbounded)).take_while(|(key, _)| in_range(key));
            let items: Vec<KeyValue> =
                entries.by_ref().take(limit).map(|(key, stored)| key_value(key, stored.clone())).collect();
            let count = items.len() + entries.count();
            return Ok(RangeResponse { items, revision, count });
        }
        // An older revision: the objects of the range now, with every later change undone.
        let mut objects: BTreeMap<String, Stored> = state
            .objects
            .range::<str, _>((lower, Bound::Unbounded))
            .take_while(|(key, _)| in_range(key))
            .map(|(key, stored)| (key.clone(), stored.clone()))
            .collect();
        let after_start = |key: &str| request.start_after.is_none_or(|start| key > start);
        for change in state.history.iter().rev().take_while(|change| change.revision > revision) {
            if !in_range(&change.key) || !after_start(&change.key) {
                continue;
            }
            match &change.prev {
                Some(prev) => {
                    let revision = revision_of(prev);
                    objects.insert(change.key.clone(), Stored { object: Arc::clone(prev), revision });
                }
                None => {
                    objects.remove(&change.key);
                }
            }
        }
        let count = objects.len();
        let items = objects.into_iter().take(limit).map(|(key, stored)| key_value(&key, stored)).collect();
        Ok(RangeResponse { items, revision, count })
    }

    fn watch_now(&self, prefix: &str, after: u64) -> MemoryWatch {
        let state = self.shared.lock();
        let mut watch = MemoryWatch {
            shared: Arc::clone(&self.shared),
            prefix: prefix.to_owned(),
            receiver: self.shared.events.subscribe(),
            outbox: Outbox::default(),
            seen: state.revision,
            after,
        };
        if after < state.compacted {
            watch.fail(StorageError::Compacted { requested: after, oldest: state.compacted });
        } else {
            watch.replay(&state);
        }
        watch
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        lock(&self.state)
    }

    /// Checks `batch` in order against what is stored and the batch's earlier writes,
    /// commits the writes that pass in one disk transaction, applies them in memory and
    /// answers every write.
    async fn commit(&self, batch: Vec<Queued>) {
        let Some(disk) = &self.disk else { return };
        let mut records = Vec::new();
        let revision = {
            let state = self.lock();
            // The revision of each key the batch writes, after its writes so far.
            let mut written: HashMap<&str, Option<u64>> = HashMap::new();
            let mut revision = state.revision;
            for queued in &batch {
                let key = queued.key.as_str();
                let current = match written.get(key) {
                    Some(current) => *current,
                    None => state.objects.get(key).map(|stored| stored.revision),
                };
                let passes = match (&queued.write, current) {
                    (Write::Create(_), None) => true,
                    (Write::Update(_, expected) | Write::Delete(expected), Some(current)) => current == *expected,
                    _ => false,
                };
                if !passes {
                    continue;
                }
                revision += 1;
                let object = match &queued.write {
                    Write::Create(object) | Write::Update(object, _) => Some(with_revision(object.clone(), revision)),
                    Write::Delete(_) => None,
                };
                written.insert(key, object.is_some().then_some(revision));
                records.push((queued.key.clone(), object));
            }
            revision
        };
        let committed = if records.is_empty() { Ok(()) } else { disk.commit(revision, records).await };
        let mut state = self.lock();
        for queued in batch {
            // The writes that passed apply now as they were checked: nothing else writes
            // while the turn is held. The others are conflicts with what is there now.
            let outcome = match &committed {
                Ok(()) => Ok(self.apply(&mut state, &queued.key, queued.write)),
                Err(error) => match allowed(&state, &queued.key, &queued.write) {
                    Ok(_) => Err(error.clone()),
                    Err(conflict) => Ok(conflict),
                },
            };
            let _ = queued.done.send(outcome);
        }
    }

    /// Applies `write` in memory, if what `key` holds allows it.
    fn apply(&self, state: &mut State, key: &str, write: Write) -> Written {
        let current = match allowed(state, key, &write) {
            Ok(current) => current,
            Err(conflict) => return conflict,
        };
        state.revision += 1;
        let revision = state.revision;
        let prev = current.map(|stored| stored.object);
        let (object, deleted) = match write {
            Write::Create(object) | Write::Update(object, _) => (object, false),
            Write::Delete(_) => (prev.as_deref().cloned().unwrap_or_default(), true),
        };
        let object = Arc::new(with_revision(object, revision));
        if deleted {
            state.objects.remove(key);
        } else {
            state.objects.insert(key.to_owned(), Stored { object: Arc::clone(&object), revision });
        }
        let event = Arc::new(Event { revision, key: key.to_owned(), prev, object: Arc::clone(&object), deleted });
        if state.history.len() >= self.history
            && let Some(evicted) = state.history.pop_front()
        {
            state.compacted = evicted.revision;
        }
        state.history.push_back(Arc::clone(&event));
        // No receivers is fine: nobody watches.
        let _ = self.events.send(event);
        Written::Done(KeyValue { key: key.to_owned(), object, revision })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Storage for MemoryStorage {
    fn revision(&self) -> BoxFuture<'_, Result<u64>> {
        ready(Ok(self.current_revision())).boxed()
    }

    fn get<'a>(&'a self, key: &'a str) -> BoxFuture<'a, Result<Option<KeyValue>>> {
        let found = self.shared.lock().objects.get(key).cloned().map(|stored| key_value(key, stored));
        ready(Ok(found)).boxed()
    }

    fn range<'a>(&'a self, request: RangeRequest<'a>) -> BoxFuture<'a, Result<RangeResponse>> {
        ready(self.range_now(&request)).boxed()
    }

    fn create<'a>(&'a self, key: &'a str, object: Value) -> BoxFuture<'a, Result<Written>> {
        self.write(key, Write::Create(object)).boxed()
    }

    fn update<'a>(&'a self, key: &'a str, object: Value, expected: u64) -> BoxFuture<'a, Result<Written>> {
        self.write(key, Write::Update(object, expected)).boxed()
    }

    fn delete<'a>(&'a self, key: &'a str, expected: u64) -> BoxFuture<'a, Result<Written>> {
        self.write(key, Write::Delete(expected)).boxed()
    }

    fn watch<'a>(&'a self, prefix: &'a str, after: u64) -> BoxFuture<'a, Result<Box<dyn WatchStream>>> {
        let watch: Box<dyn WatchStream> = Box::new(self.watch_now(prefix, after));
        ready(Ok(watch)).boxed()
    }

    fn compact(&self, revision: u64) -> BoxFuture<'_, Result<()>> {
        let mut state = self.shared.lock();
        while state.history.front().is_some_and(|change| change.revision <= revision) {
            state.history.pop_front();
        }
        state.compacted = state.compacted.max(revision.min(state.revision));
        ready(Ok(())).boxed()
    }

    fn count<'a>(&'a self, prefix: &'a str) -> BoxFuture<'a, Result<usize>> {
        let state = self.shared.lock();
        let count = state
            .objects
            .range::<str, _>((Bound::Included(prefix), Bound::Unbounded))
            .take_while(|(key, _)| key.starts_with(prefix))
            .count();
        ready(Ok(count)).boxed()
    }
}

/// A watch of the in-memory backend: the changes from the history first, then those
/// broadcast; after missing broadcasts, the history again.
struct MemoryWatch {
    shared: Arc<Shared>,
    prefix: String,
    receiver: broadcast::Receiver<Arc<Event>>,
    outbox: Outbox,
    /// Every change up to this revision has been looked at.
    seen: u64,
    /// Changes up to this revision are not sent.
    after: u64,
}

impl MemoryWatch {
    fn process(&mut self, event: &Arc<Event>) {
        self.seen = self.seen.max(event.revision);
        if event.revision > self.after && event.key.starts_with(&self.prefix) {
            self.outbox.push(WatchItem::Event(Arc::clone(event)));
        }
    }

    /// The changes of the history after `seen` (the state is locked).
    fn replay(&mut self, state: &State) {
        let from = self.after.min(self.seen);
        let replay: Vec<Arc<Event>> = state.history.iter().filter(|c| c.revision > from).cloned().collect();
        for event in &replay {
            self.process(event);
        }
        self.seen = state.revision;
    }

    fn fail(&mut self, error: StorageError) {
        self.outbox.fail(error);
    }

    /// After missing broadcasts: the changes since `seen` from the history, and a new
    /// subscription; or the end when the history no longer reaches back to `seen`.
    fn catch_up(&mut self) {
        let shared = Arc::clone(&self.shared);
        let state = shared.lock();
        if self.seen < state.compacted {
            self.fail(StorageError::Compacted { requested: self.seen, oldest: state.compacted });
            return;
        }
        self.receiver = shared.events.subscribe();
        self.after = self.after.max(self.seen);
        self.replay(&state);
    }

    /// Takes every change already broadcast, without waiting.
    fn drain(&mut self) {
        while !self.outbox.ended() {
            match self.receiver.try_recv() {
                Ok(event) => self.process(&event),
                Err(TryRecvError::Lagged(_)) => self.catch_up(),
                Err(TryRecvError::Empty | TryRecvError::Closed) => return,
            }
        }
    }
}

impl WatchStream for MemoryWatch {
    fn next(&mut self) -> BoxFuture<'_, Option<WatchItem>> {
        async move {
            loop {
                if let Some(item) = self.outbox.ready() {
                    return item;
                }
                match self.receiver.recv().await {
                    Ok(event) => self.process(&event),
                    Err(RecvError::Lagged(_)) => self.catch_up(),
                    Err(RecvError::Closed) => self.outbox.end(),
                }
            }
        }
        .boxed()
    }

    fn request_progress(&mut self) {
        self.drain();
        if !self.outbox.ended() {
            self.outbox.push(WatchItem::Progress(self.seen));
        }
    }
}

/// What `key` holds, if `write` may be applied to it; else the conflict.
fn allowed(state: &State, key: &str, write: &Write) -> std::result::Result<Option<Stored>, Written> {
    let current = state.objects.get(key).cloned();
    let allowed = match (write, &current) {
        (Write::Create(_), None) => true,
        (Write::Update(_, expected) | Write::Delete(expected), Some(current)) => current.revision == *expected,
        _ => false,
    };
    if allowed { Ok(current) } else { Err(Written::Conflict(current.map(|stored| key_value(key, stored)))) }
}

/// `object` with `metadata.resourceVersion` set to `revision`.
pub(crate) fn with_revision(mut object: Value, revision: u64) -> Value {
    set_meta(&mut object, "resourceVersion", Some(Value::String(revision.to_string())));
    object
}

/// The revision an object carries in `metadata.resourceVersion` (0 when it has none).
fn revision_of(object: &Value) -> u64 {
    crate::object::meta_str(object, "resourceVersion").parse().unwrap_or(0)
}

fn key_value(key: &str, stored: Stored) -> KeyValue {
    KeyValue { key: key.to_owned(), object: stored.object, revision: stored.revision }
}
