//! Watch streams.
//!
//! A watch is a backend watch of the request's key prefix: from the requested
//! `resourceVersion`, or, without one, from the revision of a list whose objects come
//! first as synthetic ADDED events, so that nothing is missed or repeated. Each change
//! becomes an event as the API server's watch cache makes it: ADDED when the object enters
//! the selection, MODIFIED while it stays, DELETED when it is deleted or leaves the
//! selection (the previous object, with the change's `resourceVersion`). A watch the
//! backend cannot serve (its start was compacted) ends with an ERROR event carrying 410
//! `Expired`. Bookmarks carry a revision the backend vouches for: every change up to it
//! has been delivered (a progress request, as the API server asks etcd).

use std::collections::VecDeque;
use std::sync::Arc;

use kube_apigen::ResourceInfo;
use kube_apigen::Status;
use kube_apigen::dynamic::{Request, Response};
use kube_apigen::http::watch::Event;
use serde_json::{Value, json};
use tokio::time::{Instant, Interval, MissedTickBehavior};

use super::read::{Filter, parse_rv};
use super::{Inner, storage_status};
use crate::object::set_meta;
use crate::storage::{self, WatchItem, WatchStream};

/// Where a watch starts.
enum Start {
    /// Synthetic ADDED events for the current objects, then changes; with the
    /// `k8s.io/initial-events-end` bookmark when `sendInitialEvents=true`.
    Initial { end_bookmark: bool },
    /// Changes after this version.
    From(u64),
}

struct Watcher {
    resource: &'static ResourceInfo,
    filter: Filter,
    changes: Box<dyn WatchStream>,
    pending: VecDeque<Event<Value>>,
    bookmarks: Option<Interval>,
    /// A progress request is out: the next progress answer becomes a BOOKMARK.
    bookmark_asked: bool,
    shutdown: tokio::sync::watch::Receiver<bool>,
    finished: bool,
}

impl Inner {
    pub(super) async fn watch(self: &Arc<Self>, request: &Request) -> Result<Response, Status> {
        let resource = request.resource;
        let options = &request.options;
        let filter = Filter::from_request(self, request)?;
        let rv = options.resource_version.as_deref().filter(|v| !v.is_empty() && *v != "0");
        let start = match options.send_initial_events {
            Some(true) => {
                if let Some(rv) = rv {
                    self.wait_for(parse_rv(rv)?).await?;
                }
                Start::Initial { end_bookmark: true }
            }
            Some(false) => match rv {
                Some(rv) => Start::From(parse_rv(rv)?),
                None => Start::From(self.storage.revision().await.map_err(storage_status)?),
            },
            None => match rv {
                Some(rv) => Start::From(parse_rv(rv)?),
                None => Start::Initial { end_bookmark: false },
            },
        };
        let bookmarks = (options.allow_watch_bookmarks == Some(true)).then(|| {
            let period = self.bookmark_interval.max(std::time::Duration::from_millis(10));
            let mut interval = tokio::time::interval_at(Instant::now() + period, period);
            interval.set_missed_tick_behavior(MissedTickBehavior::Delay);
            interval
        });
        let mut pending = VecDeque::new();
        let from = match start {
            Start::Initial { end_bookmark } => {
                let initial = self.select(&filter, None, None, None).await.map_err(storage_status)?;
                pending.extend(initial.items.into_iter().map(|kv| Event::Added((*kv.object).clone())));
                if end_bookmark {
                    pending.push_back(bookmark(resource, initial.revision, true));
                }
                initial.revision
            }
            Start::From(rv) => rv,
        };
        let changes = self.storage.watch(&filter.prefix, from).await.map_err(storage_status)?;
        let watcher = Watcher {
            resource,
            filter,
            changes,
            pending,
            bookmarks,
            bookmark_asked: false,
            shutdown: self.shutdown.subscribe(),
            finished: false,
        };
        let events = futures::stream::unfold(watcher, |mut watcher| async move {
            watcher.next().await.map(|event| (event, watcher))
        });
        Ok(Response::Watch(Box::pin(events)))
    }
}

impl Watcher {
    async fn next(&mut self) -> Option<Event<Value>> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                if matches!(event, Event::Error(_)) {
                    self.finished = true;
                    self.pending.clear();
                }
                return Some(event);
            }
            if self.finished || *self.shutdown.borrow() {
                return None;
            }
            tokio::select! {
                changed = self.shutdown.changed() => {
                    if changed.is_err() {
                        self.finished = true;
                    }
                }
                item = self.changes.next() => match item {
                    Some(WatchItem::Event(change)) => self.process(&change),
                    Some(WatchItem::Progress(revision)) => {
                        if std::mem::take(&mut self.bookmark_asked) {
                            self.pending.push_back(bookmark(self.resource, revision, false));
                        }
                    }
                    Some(WatchItem::Failed(error)) => self.pending.push_back(Event::Error(storage_status(error))),
                    None => self.finished = true,
                },
                () = tick(&mut self.bookmarks) => {
                    self.bookmark_asked = true;
                    self.changes.request_progress();
                }
            }
        }
    }

    /// Turns a change into this watcher's event, if it concerns it.
    fn process(&mut self, change: &storage::Event) {
        let now_selected = !change.deleted && self.filter.matches(&change.object);
        let was_selected = change.prev.as_ref().is_some_and(|prev| self.filter.matches(prev));
        let event = match (now_selected, was_selected) {
            (true, false) => Event::Added((*change.object).clone()),
            (true, true) => Event::Modified((*change.object).clone()),
            (false, true) if change.deleted => Event::Deleted((*change.object).clone()),
            (false, true) => {
                // Left the selection: the previous object, at the change's version.
                let mut prev = change.prev.as_deref().cloned().unwrap_or_default();
                set_meta(&mut prev, "resourceVersion", Some(json!(change.revision.to_string())));
                Event::Deleted(prev)
            }
            (false, false) => return,
        };
        self.pending.push_back(event);
    }
}

/// A BOOKMARK: an object of the kind with only `metadata.resourceVersion` (and the
/// `k8s.io/initial-events-end` annotation after the initial events).
fn bookmark(resource: &ResourceInfo, rv: u64, initial_events_end: bool) -> Event<Value> {
    let mut metadata = json!({"resourceVersion": rv.to_string()});
    if initial_events_end {
        metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
    }
    Event::Bookmark(json!({
        "apiVersion": resource.api_version(),
        "kind": resource.kind,
        "metadata": metadata,
    }))
}

async fn tick(interval: &mut Option<Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}
