//! The embedded backend (`--data-dir`) keeps what it acknowledged: across a graceful
//! restart, and across `kill -9` in the middle of concurrent writes.

mod harness;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use harness::process::{self, ServerProcess};
use harness::{CSRS, HPAS, csr, hpa};
use serde_json::{Value, json};

const WRITERS: usize = 8;

/// The namespaces, names and resourceVersions of a list's items.
fn listed(list: &Value) -> Vec<(String, String, String)> {
    list["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|item| {
            let meta = &item["metadata"];
            let text = |field: &str| meta[field].as_str().unwrap_or("").to_owned();
            (text("namespace"), text("name"), text("resourceVersion"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restart_keeps_every_object() {
    let data = tempfile::tempdir().unwrap();
    let args = ["--data-dir", data.path().to_str().unwrap()];
    let mut server = ServerProcess::start_in_any_namespace(&args);
    for i in 0..10 {
        let collection = if i % 2 == 0 { HPAS.to_owned() } else { HPAS.replace("/default/", "/other/") };
        let reply = server.request("POST", &collection, Some(&hpa(&format!("h{i}"), json!({})))).await.unwrap();
        assert_eq!(reply.status, 201, "{}", reply.body);
    }
    let mut changed = server.request("GET", &format!("{HPAS}/h0"), None).await.unwrap().json();
    changed["spec"]["maxReplicas"] = json!(9);
    assert_eq!(server.request("PUT", &format!("{HPAS}/h0"), Some(&changed)).await.unwrap().status, 200);
    assert_eq!(server.request("DELETE", &format!("{HPAS}/h2"), None).await.unwrap().status, 200);
    assert_eq!(server.request("POST", CSRS, Some(&csr("c", "example.com/signer"))).await.unwrap().status, 201);
    let all = "/apis/autoscaling/v2/horizontalpodautoscalers";
    let before = server.request("GET", all, None).await.unwrap().json();
    assert_eq!(listed(&before).len(), 9);
    let csr_before = server.request("GET", &format!("{CSRS}/c"), None).await.unwrap().json();
    assert!(server.terminate().is_some_and(|status| status.success()));

    let server = ServerProcess::start_in_any_namespace(&args);
    let after = server.request("GET", all, None).await.unwrap().json();
    assert_eq!(listed(&after), listed(&before));
    assert_eq!(after["items"], before["items"], "the same objects");
    assert_eq!(after["metadata"]["resourceVersion"], before["metadata"]["resourceVersion"]);
    assert_eq!(server.request("GET", &format!("{CSRS}/c"), None).await.unwrap().json(), csr_before);
    // The revision goes on from where it was.
    let created = server.request("POST", HPAS, Some(&hpa("later", json!({})))).await.unwrap().json();
    let rv = |v: &Value| v["metadata"]["resourceVersion"].as_str().unwrap().parse::<u64>().unwrap();
    assert_eq!(rv(&created), rv(&after["items"][0]).max(rv(&csr_before)) + 1);
    // A watch from before the restart is told to relist.
    let reply = server.request("GET", &format!("{all}?watch=true&resourceVersion=1&timeoutSeconds=1"), None).await;
    let body = reply.unwrap().body;
    assert!(body.contains("\"code\":410"), "a watch from before the restart is 410: {body}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_writes_loses_no_acknowledged_create() {
    let data = tempfile::tempdir().unwrap();
    let args = ["--data-dir", data.path().to_str().unwrap()];
    let mut server = ServerProcess::start(&args);
    let acknowledged = Arc::new(Mutex::new(BTreeSet::new()));
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let addr = server.addr.clone();
        let acknowledged = Arc::clone(&acknowledged);
        writers.push(tokio::spawn(async move {
            // Bounded: the server is killed long before.
            for n in 0..5000 {
                let name = format!("w{w}-{n}");
                match process::request(&addr, "POST", HPAS, Some(&hpa(&name, json!({})))).await {
                    Ok(reply) if reply.status == 201 => {
                        acknowledged.lock().unwrap().insert(name);
                    }
                    // The server died: no answer, or a cut one.
                    _ => return,
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(1500)).await;
    server.kill();
    for writer in writers {
        writer.await.unwrap();
    }
    let acknowledged = acknowledged.lock().unwrap().clone();
    assert!(acknowledged.len() >= WRITERS, "the writers got going: {} creates", acknowledged.len());

    let server = ServerProcess::start(&args);
    let list = server.request("GET", HPAS, None).await.unwrap().json();
    let stored: BTreeSet<String> = listed(&list).into_iter().map(|(_, name, _)| name).collect();
    let lost: Vec<&String> = acknowledged.difference(&stored).collect();
    assert!(lost.is_empty(), "{} of {} acknowledged creates lost: {lost:?}", lost.len(), acknowledged.len());
    eprintln!("{} creates acknowledged before kill -9, {} objects after the restart", acknowledged.len(), stored.len());
}
