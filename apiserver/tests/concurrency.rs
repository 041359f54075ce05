//! Many writers and many watchers at once against one server process, over raw HTTP/1.1.
//!
//! 32 writers create, replace (with fresh and with stale resourceVersions), merge-patch,
//! JSON-patch, server-side apply and delete HorizontalPodAutoscalers in 4 namespaces; they
//! also fight over one shared object per namespace (read, then replace with its
//! resourceVersion: 200 or 409) and race to create one name per namespace (one 201, the
//! rest 409). Every write the server acknowledges is recorded with the object it answered.
//!
//! 8 watchers watch all namespaces from the resourceVersion of a list made before the first
//! write (half with `?watch=true` on the collection, half on the `/watch/` path; half with
//! bookmarks); 4 more start from the same resourceVersion halfway through the writes, so
//! their first events come from the server's history and the rest live. A sentinel object
//! created after the writers finish ends every watch.
//!
//! Then, for every watcher: resourceVersions strictly increase; every acknowledged write
//! appears exactly once, as the right event type with exactly the object the write
//! answered (a deletion: the object's uid, and its resourceVersion when the DELETE answered
//! the object); nothing else appears (a rejected write has no event). Finally a list agrees
//! with the last acknowledged state of every object.
//!
//! Bounded: a fixed number of operations, every read of a watch under a timeout, the whole
//! test under 120 s.

mod harness;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use harness::Backend;
use harness::process::ServerProcess;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::sync::Mutex;

const WRITERS: usize = 32;
const NAMESPACES: usize = 4;
const ROUNDS: usize = 6;
const EARLY_WATCHERS: usize = 8;
const LATE_WATCHERS: usize = 4;
const TEST_TIMEOUT: Duration = Duration::from_secs(120);
const READ_TIMEOUT: Duration = Duration::from_secs(30);
const HPA_PATH: &str = "/apis/autoscaling/v2";

// ---- Raw HTTP/1.1 ----

/// One keep-alive connection.
struct Conn {
    addr: String,
    sender: SendRequest<Full<Bytes>>,
}

struct Reply {
    status: u16,
    content_type: String,
    body: Value,
    text: String,
}

async fn handshake(addr: &str) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect to the server");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let (sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("HTTP/1.1 handshake");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    sender
}

fn request(
    addr: &str,
    method: &str,
    path: &str,
    content_type: Option<&str>,
    body: Vec<u8>,
) -> hyper::Request<Full<Bytes>> {
    let mut builder =
        hyper::Request::builder().method(method).uri(path).header("host", addr).header("accept", "application/json");
    if let Some(content_type) = content_type {
        builder = builder.header("content-type", content_type);
    }
    builder.body(Full::new(Bytes::from(body))).expect("a valid request")
}

impl Conn {
    async fn open(addr: &str) -> Conn {
        Conn { addr: addr.to_owned(), sender: handshake(addr).await }
    }

    async fn send(&mut self, method: &str, path: &str, content_type: Option<&str>, body: Vec<u8>) -> Reply {
        // A connection the server closed (it may after an error) is replaced before sending;
        // nothing is ever sent twice.
        if self.sender.ready().await.is_err() {
            self.sender = handshake(&self.addr).await;
        }
        let response = self
            .sender
            .send_request(request(&self.addr, method, path, content_type, body))
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: {e}"));
        let status = response.status().as_u16();
        let content_type =
            response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        let bytes = response
            .into_body()
            .collect()
            .await
            .unwrap_or_else(|e| panic!("{method} {path}: reading the body: {e}"))
            .to_bytes();
        let text = String::from_utf8_lossy(&bytes).into_owned();
        let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Reply { status, content_type, body, text }
    }

    async fn json(&mut self, method: &str, path: &str, content_type: &str, body: &Value) -> Reply {
        self.send(method, path, Some(content_type), body.to_string().into_bytes()).await
    }
}

// ---- Objects and acknowledged writes ----

fn hpa(name: &str, max: i64) -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "labels": {"test": "concurrency"}},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": name},
            "minReplicas": 2,
            "maxReplicas": max,
        },
    })
}

fn rv_of(object: &Value) -> Option<u64> {
    object["metadata"]["resourceVersion"].as_str()?.parse().ok()
}

fn uid_of(object: &Value) -> String {
    object["metadata"]["uid"].as_str().unwrap_or("").to_owned()
}

/// A write the server acknowledged, and what its watch event must be.
#[derive(Clone, Debug)]
struct Ack {
    event: &'static str,
    namespace: String,
    name: String,
    uid: String,
    /// `None` only for a DELETE answered with a Success Status instead of the object.
    rv: Option<u64>,
    /// The object the write answered; `Null` for such a DELETE.
    object: Value,
    what: String,
}

#[derive(Default)]
struct Log {
    acks: Vec<Ack>,
    failures: Vec<String>,
}

struct Writer {
    conn: Conn,
    namespace: String,
    id: usize,
    log: Arc<Mutex<Log>>,
    done: Arc<AtomicUsize>,
}

impl Writer {
    fn collection(&self) -> String {
        format!("{HPA_PATH}/namespaces/{}/horizontalpodautoscalers", self.namespace)
    }

    fn item(&self, name: &str) -> String {
        format!("{}/{name}", self.collection())
    }

    async fn fail(&self, message: String) {
        self.log.lock().await.failures.push(format!("writer {}: {message}", self.id));
    }

    /// Records a successful write answered with the object; checks the status code.
    async fn ack(&self, event: &'static str, what: String, reply: &Reply, expected_status: u16) -> Option<Value> {
        self.done.fetch_add(1, Ordering::Relaxed);
        if reply.status != expected_status {
            self.fail(format!("{what}: expected {expected_status}, got {} {}", reply.status, reply.text)).await;
            return None;
        }
        let Some(rv) = rv_of(&reply.body) else {
            self.fail(format!("{what}: no numeric resourceVersion in {}", reply.text)).await;
            return None;
        };
        let ack = Ack {
            event,
            namespace: self.namespace.clone(),
            name: reply.body["metadata"]["name"].as_str().unwrap_or("").to_owned(),
            uid: uid_of(&reply.body),
            rv: Some(rv),
            object: reply.body.clone(),
            what,
        };
        self.log.lock().await.acks.push(ack);
        Some(reply.body.clone())
    }

    /// Records an expected rejection: `status` with `reason`, and no event.
    async fn rejected(&self, what: String, reply: &Reply, status: u16, reason: &str) {
        self.done.fetch_add(1, Ordering::Relaxed);
        let body = &reply.body;
        let ok =
            reply.status == status && body["kind"] == "Status" && body["code"] == status && body["reason"] == reason;
        if !ok {
            self.fail(format!("{what}: expected {status} {reason}, got {} {}", reply.status, reply.text)).await;
        }
    }

    async fn delete(&mut self, name: &str, uid: &str, what: String) {
        let reply = self.conn.send("DELETE", &self.item(name), None, Vec::new()).await;
        self.done.fetch_add(1, Ordering::Relaxed);
        if reply.status != 200 {
            self.fail(format!("{what}: expected 200, got {} {}", reply.status, reply.text)).await;
            return;
        }
        // The API server answers the deleted object, or a Success Status for kinds that
        // do not return it.
        let (rv, object) = if reply.body["kind"] == "Status" {
            if reply.body["status"] != "Success" {
                self.fail(format!("{what}: {}", reply.text)).await;
                return;
            }
            (None, Value::Null)
        } else {
            if uid_of(&reply.body) != uid {
                self.fail(format!("{what}: answered another object: {}", reply.text)).await;
                return;
            }
            (rv_of(&reply.body), reply.body.clone())
        };
        let ack = Ack {
            event: "DELETED",
            namespace: self.namespace.clone(),
            name: name.to_owned(),
            uid: uid.to_owned(),
            rv,
            object,
            what,
        };
        self.log.lock().await.acks.push(ack);
    }

    async fn run(mut self) {
        let w = self.id;
        for round in 0..ROUNDS {
            let name = format!("w{w}-r{round}");
            let max = 3 + round as i64;
            // create
            let reply = self.conn.json("POST", &self.collection(), "application/json", &hpa(&name, max)).await;
            let Some(created) = self.ack("ADDED", format!("create {name}"), &reply, 201).await else {
                continue;
            };
            let uid = uid_of(&created);

            // replace with the fresh resourceVersion
            let mut changed = created.clone();
            changed["spec"]["maxReplicas"] = json!(max + 10);
            let reply = self.conn.json("PUT", &self.item(&name), "application/json", &changed).await;
            if self.ack("MODIFIED", format!("replace {name}"), &reply, 200).await.is_none() {
                continue;
            }

            // replace with the stale one: 409, no event
            let mut stale = created.clone();
            stale["spec"]["maxReplicas"] = json!(max + 20);
            let reply = self.conn.json("PUT", &self.item(&name), "application/json", &stale).await;
            self.rejected(format!("stale replace {name}"), &reply, 409, "Conflict").await;

            // merge patch
            let patch = json!({"spec": {"maxReplicas": max + 30}});
            let reply = self.conn.json("PATCH", &self.item(&name), "application/merge-patch+json", &patch).await;
            let Some(merged) = self.ack("MODIFIED", format!("merge-patch {name}"), &reply, 200).await else {
                continue;
            };

            // JSON patch, guarded by a test of the current resourceVersion
            let patch = json!([
                {"op": "test", "path": "/metadata/resourceVersion", "value": merged["metadata"]["resourceVersion"]},
                {"op": "replace", "path": "/spec/minReplicas", "value": 1},
            ]);
            let reply = self.conn.json("PATCH", &self.item(&name), "application/json-patch+json", &patch).await;
            if self.ack("MODIFIED", format!("json-patch {name}"), &reply, 200).await.is_none() {
                continue;
            }

            // server-side apply, forced, as this writer's field manager
            let mut applied = hpa(&name, max + 40);
            applied["metadata"]["annotations"] = json!({"applied-by": format!("w{w}")});
            let path = format!("{}?fieldManager=w{w}&force=true", self.item(&name));
            let reply = self.conn.json("PATCH", &path, "application/apply-patch+yaml", &applied).await;
            if self.ack("MODIFIED", format!("apply {name}"), &reply, 200).await.is_none() {
                continue;
            }

            // Contention on the namespace's shared object: read, then replace with its
            // resourceVersion. 200 or 409 Conflict; only a 200 is a write.
            let hot = self.item("hot");
            let current = self.conn.send("GET", &hot, None, Vec::new()).await;
            if current.status == 200 {
                let mut next = current.body.clone();
                next["metadata"]["annotations"] = json!({"last-writer": format!("w{w}-r{round}")});
                let reply = self.conn.json("PUT", &hot, "application/json", &next).await;
                if reply.status == 409 {
                    self.rejected(format!("contended replace of hot by w{w}"), &reply, 409, "Conflict").await;
                } else {
                    self.ack("MODIFIED", format!("contended replace of hot by w{w}"), &reply, 200).await;
                }
            } else {
                self.fail(format!("GET hot: {} {}", current.status, current.text)).await;
            }

            // Everyone in the namespace races to create the same name once.
            if round == 1 {
                let reply = self.conn.json("POST", &self.collection(), "application/json", &hpa("race", 5)).await;
                if reply.status == 409 {
                    self.rejected(format!("racing create by w{w}"), &reply, 409, "AlreadyExists").await;
                } else {
                    self.ack("ADDED", format!("racing create by w{w}"), &reply, 201).await;
                }
            }

            if round.is_multiple_of(2) {
                self.delete(&name, &uid, format!("delete {name}")).await;
            }
        }
    }
}

// ---- Watchers ----

#[derive(Debug)]
struct Seen {
    event: String,
    rv: u64,
    object: Value,
}

/// Reads one watch until the sentinel's ADDED event; records every non-BOOKMARK event.
async fn watch(addr: String, path: String, label: String, sentinel: &'static str) -> Result<Vec<Seen>, String> {
    let mut sender = handshake(&addr).await;
    let response = sender
        .send_request(request(&addr, "GET", &path, None, Vec::new()))
        .await
        .map_err(|e| format!("{label}: GET {path}: {e}"))?;
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
    let mut body = response.into_body();
    if status != 200 {
        let bytes = body.collect().await.map(|b| b.to_bytes()).unwrap_or_default();
        return Err(format!("{label}: GET {path}: {status} {}", String::from_utf8_lossy(&bytes)));
    }
    if content_type != "application/json;stream=watch" {
        return Err(format!("{label}: Content-Type {content_type:?}"));
    }
    let mut seen = Vec::new();
    let mut buffer: Vec<u8> = Vec::new();
    let mut last_bookmark = 0;
    loop {
        let frame = match tokio::time::timeout(READ_TIMEOUT, body.frame()).await {
            Err(_) => {
                return Err(format!("{label}: no event for {READ_TIMEOUT:?} after {} events", seen.len()));
            }
            Ok(None) => {
                return Err(format!("{label}: the server ended the watch after {} events", seen.len()));
            }
            Ok(Some(Err(e))) => return Err(format!("{label}: reading the watch: {e}")),
            Ok(Some(Ok(frame))) => frame,
        };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        buffer.extend_from_slice(&data);
        while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            let line = &line[..line.len() - 1];
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let event: Value = serde_json::from_slice(line)
                .map_err(|e| format!("{label}: not JSON ({e}): {}", String::from_utf8_lossy(line)))?;
            let kind = event["type"].as_str().unwrap_or("").to_owned();
            let object = event["object"].clone();
            if kind == "ERROR" {
                return Err(format!("{label}: ERROR event {object}"));
            }
            let rv =
                rv_of(&object).ok_or_else(|| format!("{label}: event without a numeric resourceVersion: {event}"))?;
            if kind == "BOOKMARK" {
                let last_event = seen.last().map_or(0, |s: &Seen| s.rv);
                if rv < last_bookmark.max(last_event) {
                    return Err(format!("{label}: BOOKMARK at {rv} after {}", last_bookmark.max(last_event)));
                }
                last_bookmark = rv;
                continue;
            }
            let is_sentinel = kind == "ADDED" && object["metadata"]["name"] == sentinel;
            seen.push(Seen { event: kind, rv, object });
            if is_sentinel {
                return Ok(seen);
            }
        }
    }
}

/// Everything wrong with one watcher's events, given the acknowledged writes.
fn check_watcher(label: &str, seen: &[Seen], acks: &[Ack], start_rv: u64) -> Vec<String> {
    let mut problems = Vec::new();
    let mut previous = start_rv;
    for s in seen {
        if s.rv <= previous {
            problems.push(format!(
                "{label}: resourceVersion {} after {previous} ({} {})",
                s.rv, s.event, s.object["metadata"]["name"]
            ));
        }
        previous = s.rv;
    }
    let by_rv: HashMap<u64, usize> = acks.iter().enumerate().filter_map(|(i, a)| Some((a.rv?, i))).collect();
    let by_deleted_uid: HashMap<&str, usize> =
        acks.iter().enumerate().filter(|(_, a)| a.rv.is_none()).map(|(i, a)| (a.uid.as_str(), i)).collect();
    let mut count = vec![0usize; acks.len()];
    for s in seen {
        let index = match by_rv.get(&s.rv) {
            Some(&i) => Some(i),
            None if s.event == "DELETED" => by_deleted_uid.get(uid_of(&s.object).as_str()).copied(),
            None => None,
        };
        let Some(i) = index else {
            problems.push(format!(
                "{label}: {} {}/{} at {} matches no acknowledged write",
                s.event, s.object["metadata"]["namespace"], s.object["metadata"]["name"], s.rv
            ));
            continue;
        };
        count[i] += 1;
        let ack = &acks[i];
        if s.event != ack.event {
            problems.push(format!("{label}: {} at {} is {} in the watch", ack.what, s.rv, s.event));
        } else if ack.event == "DELETED" {
            let identity = (
                s.object["metadata"]["namespace"].as_str().unwrap_or(""),
                s.object["metadata"]["name"].as_str().unwrap_or(""),
                uid_of(&s.object),
            );
            if identity != (ack.namespace.as_str(), ack.name.as_str(), ack.uid.clone()) {
                problems.push(format!("{label}: {}: DELETED event of {identity:?}", ack.what));
            }
        } else if s.object != ack.object {
            problems.push(format!(
                "{label}: {} at {}: the event's object differs from the write's answer:\n  event {}\n  write {}",
                ack.what, s.rv, s.object, ack.object
            ));
        }
    }
    for (ack, n) in acks.iter().zip(&count) {
        if *n != 1 {
            problems.push(format!("{label}: {} (resourceVersion {:?}) seen {n} times", ack.what, ack.rv));
        }
    }
    problems
}

// ---- The test ----

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_and_watchers_agree_in_memory() {
    writers_and_watchers_agree(Backend::Memory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_and_watchers_agree_on_a_data_directory() {
    writers_and_watchers_agree(Backend::Embedded).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_and_watchers_agree_on_etcd() {
    writers_and_watchers_agree(Backend::Etcd).await;
}

async fn writers_and_watchers_agree(backend: Backend) {
    let Some(server) = ServerProcess::start_on(backend, &[]) else { return };
    let started = Instant::now();
    tokio::time::timeout(TEST_TIMEOUT, run(server.addr.clone()))
        .await
        .unwrap_or_else(|_| panic!("the test did not finish within {TEST_TIMEOUT:?}"));
    eprintln!("concurrency test: {:?}", started.elapsed());
}

async fn run(addr: String) {
    let mut setup = Conn::open(&addr).await;
    // One object before the start, so that the start is a real point in the history: a list
    // of an empty store may answer resourceVersion "0", which a watch reads as "any", with
    // the current state as synthetic ADDED events.
    let before = setup
        .json(
            "POST",
            &format!("{HPA_PATH}/namespaces/setup/horizontalpodautoscalers"),
            "application/json",
            &hpa("before", 5),
        )
        .await;
    assert_eq!(before.status, 201, "{}", before.text);
    let before_rv = rv_of(&before.body).expect("a numeric resourceVersion");
    let list = setup.send("GET", &format!("{HPA_PATH}/horizontalpodautoscalers"), None, Vec::new()).await;
    assert_eq!(list.status, 200, "{}", list.text);
    assert_eq!(list.content_type, "application/json", "list Content-Type");
    let start_rv: u64 = list.body["metadata"]["resourceVersion"]
        .as_str()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("list without a numeric resourceVersion: {}", list.text));
    assert!(start_rv >= before_rv, "list resourceVersion {start_rv} before the write at {before_rv}");

    let sentinel: &'static str = "sentinel";
    let watch_path = |i: usize| {
        let bookmarks = if i.is_multiple_of(2) { "&allowWatchBookmarks=true" } else { "" };
        if (i / 2).is_multiple_of(2) {
            format!(
                "{HPA_PATH}/horizontalpodautoscalers?watch=true&resourceVersion={start_rv}&timeoutSeconds=110{bookmarks}"
            )
        } else {
            format!(
                "{HPA_PATH}/watch/horizontalpodautoscalers?resourceVersion={start_rv}&timeoutSeconds=110{bookmarks}"
            )
        }
    };
    let mut watchers = Vec::new();
    for i in 0..EARLY_WATCHERS {
        let label = format!("watcher {i} ({})", watch_path(i));
        watchers.push((label.clone(), tokio::spawn(watch(addr.clone(), watch_path(i), label, sentinel))));
    }
    // Let the early watches be established before the first write (they would see every
    // write anyway: they start from start_rv).
    tokio::time::sleep(Duration::from_millis(200)).await;

    let log = Arc::new(Mutex::new(Log::default()));
    let done = Arc::new(AtomicUsize::new(0));
    // The shared objects, one per namespace: acknowledged writes like any other.
    for n in 0..NAMESPACES {
        let namespace = format!("ns-{n}");
        let writer =
            Writer { conn: Conn::open(&addr).await, namespace, id: usize::MAX, log: log.clone(), done: done.clone() };
        let reply = setup.json("POST", &writer.collection(), "application/json", &hpa("hot", 5)).await;
        writer.ack("ADDED", format!("create ns-{n}/hot"), &reply, 201).await;
    }

    let mut writers = Vec::new();
    for id in 0..WRITERS {
        let writer = Writer {
            conn: Conn::open(&addr).await,
            namespace: format!("ns-{}", id % NAMESPACES),
            id,
            log: log.clone(),
            done: done.clone(),
        };
        writers.push(tokio::spawn(writer.run()));
    }
    // Late watchers: once about half of the operations are done.
    let half = WRITERS * ROUNDS * 4;
    while done.load(Ordering::Relaxed) < half && !writers.iter().all(|w| w.is_finished()) {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let late_at = done.load(Ordering::Relaxed);
    for i in 0..LATE_WATCHERS {
        let label = format!("late watcher {i} (after {late_at} operations; {})", watch_path(i));
        watchers.push((label.clone(), tokio::spawn(watch(addr.clone(), watch_path(i), label, sentinel))));
    }
    for writer in writers {
        writer.await.expect("a writer panicked");
    }
    // The sentinel ends every watch.
    let sentinel_writer = Writer {
        conn: Conn::open(&addr).await,
        namespace: "ns-0".to_owned(),
        id: usize::MAX,
        log: log.clone(),
        done: done.clone(),
    };
    let reply = setup.json("POST", &sentinel_writer.collection(), "application/json", &hpa(sentinel, 5)).await;
    sentinel_writer.ack("ADDED", "create the sentinel".to_owned(), &reply, 201).await;

    let log = std::mem::take(&mut *log.lock().await);
    let mut problems = log.failures.clone();
    let acks = log.acks;
    // The last write of every object: the one with the highest resourceVersion (a DELETE
    // answered with a Status has none, and is always the last write of its object).
    let order = |a: &Ack| a.rv.unwrap_or(u64::MAX);
    let mut last: BTreeMap<(String, String), &Ack> = BTreeMap::new();
    for ack in &acks {
        let key = (ack.namespace.clone(), ack.name.clone());
        if last.get(&key).is_none_or(|prev| order(prev) < order(ack)) {
            last.insert(key, ack);
        }
    }
    let races: Vec<_> = acks.iter().filter(|a| a.what.starts_with("racing create")).collect();
    if races.len() != NAMESPACES {
        problems.push(format!(
            "{} racing creates succeeded, expected one per namespace: {:?}",
            races.len(),
            races.iter().map(|a| &a.what).collect::<Vec<_>>()
        ));
    }

    let mut totals = Vec::new();
    for (label, handle) in watchers {
        match handle.await.expect("a watcher panicked") {
            Ok(seen) => {
                totals.push(seen.len());
                problems.extend(check_watcher(&label, &seen, &acks, start_rv));
            }
            Err(e) => problems.push(e),
        }
    }

    // The final state agrees with the last acknowledged write of every object.
    let list = setup.send("GET", &format!("{HPA_PATH}/horizontalpodautoscalers"), None, Vec::new()).await;
    assert_eq!(list.status, 200, "{}", list.text);
    let mut listed: BTreeMap<(String, String), Value> = BTreeMap::new();
    for item in list.body["items"].as_array().expect("items") {
        let key = (
            item["metadata"]["namespace"].as_str().unwrap_or("").to_owned(),
            item["metadata"]["name"].as_str().unwrap_or("").to_owned(),
        );
        listed.insert(key, item.clone());
    }
    for (key, ack) in &last {
        match (ack.event, listed.remove(key)) {
            ("DELETED", None) => {}
            ("DELETED", Some(_)) => problems.push(format!("{key:?} was deleted but is listed")),
            (_, None) => problems.push(format!("{key:?} is missing from the final list")),
            (_, Some(item)) if item != ack.object => {
                problems.push(format!("{key:?}: listed {item}, last written {}", ack.object))
            }
            _ => {}
        }
    }
    listed.remove(&("setup".to_owned(), "before".to_owned()));
    for key in listed.keys() {
        problems.push(format!("{key:?} is listed but was never written"));
    }

    eprintln!(
        "{} acknowledged writes; watchers saw {:?} events; late watchers started after {late_at} operations",
        acks.len(),
        totals
    );
    if !problems.is_empty() {
        let shown: Vec<_> = problems.iter().take(40).collect();
        panic!(
            "{} problems (first {}):\n{}",
            problems.len(),
            shown.len(),
            shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
        );
    }
}

/// SIGTERM while watches are open and a writer is busy: the server ends the watch streams
/// (cleanly, with the terminating chunk) and exits with status 0 within 5 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_ends_open_watches_and_exits() {
    let mut server = ServerProcess::start_in_any_namespace(&[]);
    let addr = server.addr.clone();
    let mut conn = Conn::open(&addr).await;
    let reply = conn
        .json("POST", &format!("{HPA_PATH}/namespaces/a/horizontalpodautoscalers"), "application/json", &hpa("x", 3))
        .await;
    assert_eq!(reply.status, 201, "{}", reply.text);

    let mut bodies = Vec::new();
    for _ in 0..4 {
        let mut sender = handshake(&addr).await;
        let response = sender
            .send_request(request(
                &addr,
                "GET",
                &format!("{HPA_PATH}/horizontalpodautoscalers?watch=true"),
                None,
                Vec::new(),
            ))
            .await
            .expect("watch");
        assert_eq!(response.status(), 200);
        bodies.push((sender, response.into_body()));
    }
    // Each watch starts with the existing object.
    for (_, body) in &mut bodies {
        let frame = tokio::time::timeout(READ_TIMEOUT, body.frame()).await.expect("first event in time");
        assert!(frame.is_some(), "a first event");
    }
    let status = tokio::task::spawn_blocking(move || {
        let status = server.terminate();
        (server, status)
    });
    let ends = async {
        let mut results = Vec::new();
        for (_, mut body) in bodies {
            let result = tokio::time::timeout(Duration::from_secs(5), async {
                loop {
                    match body.frame().await {
                        None => return Ok(()),
                        Some(Err(e)) => return Err(e.to_string()),
                        Some(Ok(_)) => {}
                    }
                }
            })
            .await;
            results.push(result);
        }
        results
    };
    let (results, terminated) = tokio::join!(ends, status);
    let (_server, status) = terminated.expect("terminate");
    let status = status.expect("the server exited within 5 s of SIGTERM");
    assert!(status.success(), "exit status after SIGTERM: {status:?}");
    for (i, result) in results.into_iter().enumerate() {
        match result {
            Ok(Ok(())) => {}
            Ok(Err(e)) => panic!("watch {i} was cut off instead of ended: {e}"),
            Err(_) => panic!("watch {i} still open 5 s after SIGTERM"),
        }
    }
}
