//! Watch streams.
//!
//! A watch starts under the store lock: it subscribes to the broadcast of changes and
//! takes what comes before them (synthetic ADDED events for the current objects, or the
//! changes after the requested `resourceVersion` from the history), so that nothing is
//! missed or repeated. Each change becomes an event as the API server's watch cache makes
//! it: ADDED when the object enters the selection, MODIFIED while it stays, DELETED when it
//! is deleted or leaves the selection (the previous object, with the change's
//! `resourceVersion`). A watcher that falls behind the broadcast buffer catches up from the
//! history, or, when the history no longer reaches back far enough, ends with an ERROR event
//! carrying 410 `Expired`.

use std::collections::VecDeque;
use std::sync::Arc;

use serde_json::{Value, json};
use support::ResourceInfo;
use support::Status;
use support::dynamic::{Request, Response};
use support::http::watch::Event;
use tokio::sync::broadcast::{self, error::RecvError, error::TryRecvError};
use tokio::time::{Instant, Interval, MissedTickBehavior};

use super::object::set_meta;
use super::read::{Filter, current, parse_rv};
use super::{Change, Inner};

/// Where a watch starts.
enum Start {
    /// Synthetic ADDED events for the current objects, then changes; with the
    /// `k8s.io/initial-events-end` bookmark when `sendInitialEvents=true`.
    Initial { end_bookmark: bool },
    /// Changes after this version.
    From(u64),
}

struct Watcher {
    inner: Arc<Inner>,
    resource: &'static ResourceInfo,
    filter: Filter,
    receiver: broadcast::Receiver<Arc<Change>>,
    pending: VecDeque<Event<Value>>,
    /// Every change up to this version has been looked at.
    seen: u64,
    /// Changes up to this version are not sent (a watch from a future version).
    skip_through: u64,
    bookmarks: Option<Interval>,
    shutdown: tokio::sync::watch::Receiver<bool>,
    finished: bool,
}

impl Inner {
    pub(super) async fn watch(self: &Arc<Self>, request: &Request) -> Result<Response, Status> {
        let resource = request.resource;
        let options = &request.options;
        let filter = Filter::from_request(request)?;
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
                None => Start::From(self.lock().rv),
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
        let state = self.lock();
        let receiver = self.events.subscribe();
        let mut watcher = Watcher {
            inner: Arc::clone(self),
            resource,
            filter,
            receiver,
            pending: VecDeque::new(),
            seen: state.rv,
            skip_through: 0,
            bookmarks,
            shutdown: self.shutdown.subscribe(),
            finished: false,
        };
        match start {
            Start::Initial { end_bookmark } => {
                for object in current(&state, resource).into_values() {
                    if watcher.filter.matches(&object) {
                        watcher.pending.push_back(Event::Added((*object).clone()));
                    }
                }
                if end_bookmark {
                    let bookmark = watcher.bookmark(state.rv, true);
                    watcher.pending.push_back(bookmark);
                }
            }
            Start::From(rv) if rv < state.history_start => {
                watcher.pending.push_back(Event::Error(Status::too_old_resource_version(rv, state.history_start)));
            }
            Start::From(rv) => {
                let replay: Vec<Arc<Change>> = state.history.iter().filter(|c| c.rv > rv).cloned().collect();
                for change in replay {
                    watcher.process(&change);
                }
                watcher.seen = state.rv;
                watcher.skip_through = rv;
            }
        }
        drop(state);
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
                received = self.receiver.recv() => match received {
                    Ok(change) => self.process(&change),
                    Err(RecvError::Lagged(_)) => self.catch_up(),
                    Err(RecvError::Closed) => self.finished = true,
                },
                () = tick(&mut self.bookmarks) => {
                    self.drain();
                    if self.pending.is_empty() || !matches!(self.pending.back(), Some(Event::Error(_))) {
                        let bookmark = self.bookmark(self.seen, false);
                        self.pending.push_back(bookmark);
                    }
                }
            }
        }
    }

    /// Turns a change into this watcher's event, if it concerns it.
    fn process(&mut self, change: &Change) {
        self.seen = self.seen.max(change.rv);
        if change.rv <= self.skip_through || change.resource != (self.resource.group, self.resource.plural) {
            return;
        }
        let now_selected = !change.deleted && self.filter.matches(&change.object);
        let was_selected = change.prev.as_ref().is_some_and(|prev| self.filter.matches(prev));
        let event = match (now_selected, was_selected) {
            (true, false) => Event::Added((*change.object).clone()),
            (true, true) => Event::Modified((*change.object).clone()),
            (false, true) if change.deleted => Event::Deleted((*change.object).clone()),
            (false, true) => {
                // Left the selection: the previous object, at the change's version.
                let mut prev = change.prev.as_deref().cloned().unwrap_or_default();
                set_meta(&mut prev, "resourceVersion", Some(json!(change.rv.to_string())));
                Event::Deleted(prev)
            }
            (false, false) => return,
        };
        self.pending.push_back(event);
    }

    /// Takes every change already broadcast, without waiting.
    fn drain(&mut self) {
        loop {
            match self.receiver.try_recv() {
                Ok(change) => self.process(&change),
                Err(TryRecvError::Lagged(_)) => self.catch_up(),
                Err(TryRecvError::Empty | TryRecvError::Closed) => return,
            }
        }
    }

    /// After missing broadcasts: the changes since `seen` from the history, and a new
    /// subscription; or 410 when the history does not reach back to `seen`.
    fn catch_up(&mut self) {
        let inner = Arc::clone(&self.inner);
        let state = inner.lock();
        if self.seen < state.history_start {
            self.pending.push_back(Event::Error(Status::too_old_resource_version(self.seen, state.history_start)));
            return;
        }
        let replay: Vec<Arc<Change>> = state.history.iter().filter(|c| c.rv > self.seen).cloned().collect();
        self.receiver = inner.events.subscribe();
        for change in replay {
            self.process(&change);
        }
        self.seen = state.rv;
    }

    /// A BOOKMARK: an object of the kind with only `metadata.resourceVersion` (and the
    /// `k8s.io/initial-events-end` annotation after the initial events).
    fn bookmark(&self, rv: u64, initial_events_end: bool) -> Event<Value> {
        let mut metadata = json!({"resourceVersion": rv.to_string()});
        if initial_events_end {
            metadata["annotations"] = json!({"k8s.io/initial-events-end": "true"});
        }
        Event::Bookmark(json!({
            "apiVersion": self.resource.api_version(),
            "kind": self.resource.kind,
            "metadata": metadata,
        }))
    }
}

async fn tick(interval: &mut Option<Interval>) {
    match interval {
        Some(interval) => {
            interval.tick().await;
        }
        None => std::future::pending().await,
    }
}
