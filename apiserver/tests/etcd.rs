//! The binary on etcd (`--etcd-servers`): several servers on one etcd serve one API; a
//! restart keeps everything; a 3-member cluster loses a member without losing a write,
//! fails cleanly without a quorum and recovers by itself; compaction expires old watches
//! and kube-rs's watcher relists. Every test starts its own etcd on free loopback ports
//! (and stops it), or prints `SKIPPED` without an etcd binary.

mod harness;

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use harness::etcd::Etcd;
use harness::process::{self, ServerProcess};
use harness::{HPAS, hpa};
use serde_json::{Value, json};

fn rv(object: &Value) -> u64 {
    object["metadata"]["resourceVersion"].as_str().and_then(|v| v.parse().ok()).expect("a numeric resourceVersion")
}

/// The names of a list's items.
fn names(list: &Value) -> BTreeSet<String> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["metadata"]["name"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_on_one_etcd_serve_one_api() {
    let Some(etcd) = Etcd::start(1, "two_servers_on_one_etcd_serve_one_api") else { return };
    let servers = etcd.servers();
    let mut one = ServerProcess::start_in_any_namespace(&["--etcd-servers", &servers]);
    let mut other = ServerProcess::start_in_any_namespace(&["--etcd-servers", &servers]);

    // A watch through the other server, from now.
    let start = other.request("GET", HPAS, None).await.unwrap().json();
    let watch_path = format!("{HPAS}?watch=true&resourceVersion={}&timeoutSeconds=2", rv(&start));
    let other_addr = other.addr.clone();
    let watching = tokio::spawn(async move { process::request(&other_addr, "GET", &watch_path, None).await });
    tokio::time::sleep(Duration::from_millis(300)).await;

    let created = one.request("POST", HPAS, Some(&hpa("shared", json!({})))).await.unwrap();
    assert_eq!(created.status, 201, "{}", created.body);
    let created = created.json();
    let read = other.request("GET", &format!("{HPAS}/shared"), None).await.unwrap();
    assert_eq!((read.status, read.json()), (200, created.clone()), "a write through one is read through the other");
    let listed = other.request("GET", HPAS, None).await.unwrap().json();
    assert_eq!(names(&listed), BTreeSet::from(["shared".to_owned()]));
    assert!(rv(&listed) >= rv(&created));
    let events = watching.await.unwrap().unwrap().body;
    let added = events.lines().find(|line| line.contains("\"ADDED\"")).unwrap_or_else(|| panic!("no ADDED: {events}"));
    let added: Value = serde_json::from_str(added.trim()).unwrap_or_else(|e| panic!("{e}: {added}"));
    assert_eq!(added["object"], created, "the other server's watch carries the write");

    // An update with a version read through one and superseded through the other: 409.
    let mut newer = created.clone();
    newer["spec"]["maxReplicas"] = json!(7);
    assert_eq!(other.request("PUT", &format!("{HPAS}/shared"), Some(&newer)).await.unwrap().status, 200);
    let mut stale = created.clone();
    stale["spec"]["maxReplicas"] = json!(9);
    let conflict = one.request("PUT", &format!("{HPAS}/shared"), Some(&stale)).await.unwrap();
    assert_eq!(conflict.status, 409, "{}", conflict.body);
    assert_eq!(conflict.json()["reason"], "Conflict");

    // Both stop; a new server on the same etcd has everything.
    let kept = one.request("GET", &format!("{HPAS}/shared"), None).await.unwrap().json();
    assert_eq!(kept["spec"]["maxReplicas"], 7);
    assert!(one.terminate().is_some_and(|s| s.success()));
    assert!(other.terminate().is_some_and(|s| s.success()));
    let again = ServerProcess::start_in_any_namespace(&["--etcd-servers", &servers]);
    assert_eq!(again.request("GET", &format!("{HPAS}/shared"), None).await.unwrap().json(), kept);
}

/// Creates objects through `addr` until `stop`; records the acknowledged names.
async fn write_until(addr: String, writer: usize, stop: Arc<AtomicBool>, acknowledged: Arc<Mutex<Vec<String>>>) {
    // Bounded in count as well as by `stop`.
    for n in 0..10_000 {
        if stop.load(Ordering::Relaxed) {
            return;
        }
        let name = format!("w{writer}-{n}");
        if let Ok(reply) = process::request(&addr, "POST", HPAS, Some(&hpa(&name, json!({})))).await
            && reply.status == 201
        {
            acknowledged.lock().unwrap().push(name);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_keeps_serving_without_a_member_fails_cleanly_without_a_quorum_and_recovers() {
    let Some(mut etcd) = Etcd::start(3, "a_cluster_keeps_serving...") else { return };
    let timeout = Duration::from_secs(3);
    let server = ServerProcess::start_in_any_namespace(&["--etcd-servers", &etcd.servers(), "--request-timeout", "3s"]);

    // Writers throughout; one member is killed in the middle.
    let stop = Arc::new(AtomicBool::new(false));
    let acknowledged = Arc::new(Mutex::new(Vec::new()));
    let writers: Vec<_> =
        (0..4).map(|w| tokio::spawn(write_until(server.addr.clone(), w, stop.clone(), acknowledged.clone()))).collect();
    tokio::time::sleep(Duration::from_millis(800)).await;
    etcd.stop(2);
    let before_stop = acknowledged.lock().unwrap().len();
    // Writes resume once the members left agree (a new leader when the stopped one led):
    // wait for them, as long as a loaded machine needs, rather than for a fixed time.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while acknowledged.lock().unwrap().len() < before_stop + 20 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    stop.store(true, Ordering::Relaxed);
    for writer in writers {
        writer.await.unwrap();
    }
    let acknowledged: BTreeSet<String> = acknowledged.lock().unwrap().iter().cloned().collect();
    assert!(
        acknowledged.len() > before_stop,
        "writes went on without a member ({before_stop} before, {} in all)",
        acknowledged.len()
    );
    let listed = names(&server.request("GET", HPAS, None).await.unwrap().json());
    let lost: Vec<_> = acknowledged.difference(&listed).collect();
    assert!(lost.is_empty(), "acknowledged creates lost: {lost:?}");
    assert_eq!(server.request("GET", "/readyz", None).await.unwrap().status, 200);

    // Without a quorum: a Status (5xx) within the request timeout, and not ready.
    etcd.stop(1);
    let started = Instant::now();
    let failed = server.request("POST", HPAS, Some(&hpa("no-quorum", json!({})))).await.unwrap();
    let took = started.elapsed();
    assert!(failed.status >= 500, "a write without a quorum: {} {}", failed.status, failed.body);
    assert_eq!(failed.json()["kind"], "Status", "{}", failed.body);
    assert!(took < timeout + Duration::from_secs(2), "answered after {took:?}");
    let read = server.request("GET", HPAS, None).await.unwrap();
    assert!(
        read.status >= 500 && read.json()["kind"] == "Status",
        "a read without a quorum: {} {}",
        read.status,
        read.body
    );
    let ready = server.request("GET", "/readyz?verbose", None).await.unwrap();
    assert_eq!(ready.status, 500, "{}", ready.body);
    assert!(ready.body.contains("[-]storage failed"), "{}", ready.body);
    assert_eq!(server.request("GET", "/livez", None).await.unwrap().status, 200, "alive all the same");

    // The members come back: the server recovers by itself.
    etcd.restart(1);
    etcd.restart(2);
    let deadline = Instant::now() + Duration::from_secs(30);
    while server.request("GET", "/readyz", None).await.unwrap().status != 200 {
        assert!(Instant::now() < deadline, "not ready 30 s after the members came back");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let created = server.request("POST", HPAS, Some(&hpa("after", json!({})))).await.unwrap();
    assert_eq!(created.status, 201, "{}", created.body);
    let listed = names(&server.request("GET", HPAS, None).await.unwrap().json());
    assert!(acknowledged.is_subset(&listed) && listed.contains("after"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_expires_old_watches_and_kube_rs_relists() {
    use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
    use kube::runtime::watcher;

    let Some(etcd) = Etcd::start(1, "compaction_expires_old_watches_and_kube_rs_relists") else { return };
    let server =
        ServerProcess::start_in_any_namespace(&["--etcd-servers", &etcd.servers(), "--etcd-compaction-interval", "1s"]);
    let first = server.request("POST", HPAS, Some(&hpa("a", json!({})))).await.unwrap().json();

    // kube-rs's watcher: a list, then watches of 1 s each from the last version it saw.
    let client = kube::Client::try_from(kube::Config::new(server.url.parse().unwrap())).unwrap();
    let api: kube::Api<HorizontalPodAutoscaler> = kube::Api::namespaced(client, "default");
    let (events, mut received) = tokio::sync::mpsc::unbounded_channel();
    let watching = tokio::spawn(async move {
        let mut stream = watcher(api, watcher::Config::default().timeout(1)).boxed();
        while let Some(event) = stream.next().await {
            let _ = events.send(event.map_err(|e| e.to_string()));
        }
    });
    let mut seen = Vec::new();
    let mut next = async || {
        let event =
            tokio::time::timeout(Duration::from_secs(15), received.recv()).await.expect("a watcher event in time");
        let event = event.expect("the watcher goes on");
        let label = match &event {
            Ok(watcher::Event::Init) => "init".to_owned(),
            Ok(watcher::Event::InitApply(o)) => format!("init-apply {}", o.metadata.name.as_deref().unwrap_or("")),
            Ok(watcher::Event::InitDone) => "init-done".to_owned(),
            Ok(watcher::Event::Apply(o)) => format!("apply {}", o.metadata.name.as_deref().unwrap_or("")),
            Ok(watcher::Event::Delete(o)) => format!("delete {}", o.metadata.name.as_deref().unwrap_or("")),
            Err(e) => format!("error {e}"),
        };
        seen.push(label.clone());
        label
    };
    while next().await != "init-done" {}

    // Writes elsewhere move the revision on; compaction passes the watcher's version.
    for i in 0..6 {
        let other = HPAS.replace("/default/", "/elsewhere/");
        assert_eq!(server.request("POST", &other, Some(&hpa(&format!("o{i}"), json!({})))).await.unwrap().status, 201);
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let expired = server
        .request("GET", &format!("{HPAS}?watch=true&resourceVersion={}&timeoutSeconds=1", rv(&first)), None)
        .await;
    let body = expired.unwrap().body;
    assert!(body.contains("\"type\":\"ERROR\"") && body.contains("\"code\":410") && body.contains("Expired"), "{body}");

    // The watcher got 410 on its next watch, relisted, and goes on.
    assert_eq!(server.request("POST", HPAS, Some(&hpa("b", json!({})))).await.unwrap().status, 201);
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let label = next().await;
        if label == "apply b" || label == "init-apply b" {
            break;
        }
        assert!(Instant::now() < deadline, "no event of b; the watcher saw {seen:?}");
    }
    assert!(seen.iter().filter(|l| *l == "init").count() >= 2, "the watcher relisted after 410: {seen:?}");
    watching.abort();
}
