//! Throughput and latency of the reference server on loopback (`cargo bench -p apiserver
//! --bench server`).
//!
//! The server is the `apiserver` binary (bench profile) in its own process on a free
//! loopback port; the load generator is this process, a 2-thread tokio runtime with raw
//! HTTP/1.1 keep-alive connections (hyper). Both share the machine's cores, so the figures
//! are for client and server together, as a user running both on one machine sees them.
//!
//! - create, get, list (a namespace of 100 HorizontalPodAutoscalers): 64 connections, each
//!   sending its next request as soon as the previous answer is read, for a fixed time after
//!   a warm-up; requests/s over that time, and p50/p99 of the per-request latencies. Each
//!   phase gets a fresh server. The list is measured on two servers, one with the namespace
//!   alone in the store, one with 20,000 more objects of the kind in other namespaces (a
//!   list of one namespace should not pay for the others), in alternating rounds.
//! - watch fan-out: 1,000 watch connections on one namespace; for each of several creates,
//!   the time from sending the POST to the moment the last watcher has read the ADDED event;
//!   the median over the writes (and the min and max).
//! - on etcd, the baseline of creates: as many raw etcd v3 clients (gRPC over one
//!   channel, as the server's), each committing its next create transaction (a put if the
//!   key has no revision, as the server's store writes) as soon as the previous one is
//!   done, with the object as the server serves one of the create phase (its stored bytes
//!   but for `resourceVersion`), on an etcd of its own; reported as the server's creates
//!   per second over these.
//!
//! Every phase runs on each storage backend, side by side in one run: in memory, on a data
//! directory (`--data-dir`, a fresh one per phase), and on etcd (`--etcd-servers`, a
//! single-member etcd of its own per phase, on a free loopback port, with its data in a
//! temporary folder; skipped without an etcd binary).
//!
//! `BENCH_SECONDS` sets the measured time per phase (default 5); `BENCH_BACKENDS` the
//! backends (`memory,embedded,etcd` by default).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

// The tests' etcd, of which the benchmark uses a part.
#[allow(dead_code)]
#[path = "../tests/harness/etcd.rs"]
mod etcd;

const CONNECTIONS: usize = 64;
const WARMUP: Duration = Duration::from_millis(500);
const LIST_SIZE: usize = 100;
const WATCHERS: usize = 1000;
const FANOUT_WRITES: usize = 9;
const NS_PATH: &str = "/apis/autoscaling/v2/namespaces";
/// Objects of the kind outside the listed namespace, for the second list figure.
const OTHER_OBJECTS: usize = 20_000;
/// The two list figures are measured in this many alternating rounds each.
const LIST_ROUNDS: usize = 5;

/// Where a server keeps its objects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backend {
    Memory,
    Embedded,
    Etcd,
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Memory => "memory",
            Backend::Embedded => "embedded",
            Backend::Etcd => "etcd",
        }
    }
}

/// What a server's backend needs alive; read only for the etcd members' process ids.
#[allow(dead_code)]
enum Held {
    Nothing,
    Directory(tempfile::TempDir),
    Etcd(etcd::Etcd),
}

/// The reference server as a child process on a free loopback port, on a fresh backend;
/// SIGTERM on drop, then its backend goes.
struct Server {
    child: Child,
    addr: String,
    held: Held,
}

impl Server {
    fn start(backend: Backend) -> Server {
        let (held, args) = match backend {
            Backend::Memory => (Held::Nothing, vec![]),
            Backend::Embedded => {
                let directory = tempfile::tempdir().expect("a data directory");
                let args = vec!["--data-dir".to_owned(), directory.path().display().to_string()];
                (Held::Directory(directory), args)
            }
            Backend::Etcd => {
                let etcd = etcd::Etcd::start(1, "the etcd benchmark").expect("an etcd binary");
                let args = vec!["--etcd-servers".to_owned(), etcd.servers()];
                (Held::Etcd(etcd), args)
            }
        };
        let mut child = Command::new(env!("CARGO_BIN_EXE_apiserver"))
            // The phases write into namespaces they never create, as the figures before
            // the namespace lifecycle did.
            .args(["--listen", "127.0.0.1:0", "--disable-admission-plugins", "NamespaceLifecycle"])
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starting the apiserver binary");
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.trim().strip_prefix("listening on http://") {
                    let _ = tx.send(url.trim_end_matches('/').to_owned());
                }
            }
        });
        let addr = rx.recv_timeout(Duration::from_secs(30)).expect("the server's `listening on` line");
        Server { child, addr, held }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let pid = libc::pid_t::try_from(self.child.id()).expect("pid fits pid_t");
        // SAFETY: kill(2) with the pid of our own child process, not yet reaped.
        unsafe { libc::kill(pid, libc::SIGTERM) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn connect(addr: &str) -> SendRequest<Full<Bytes>> {
    let stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream)).await.expect("handshake");
    tokio::spawn(async move {
        let _ = connection.await;
    });
    sender
}

fn request(addr: &str, method: &str, path: &str, body: Option<&Value>) -> hyper::Request<Full<Bytes>> {
    let builder =
        hyper::Request::builder().method(method).uri(path).header("host", addr).header("accept", "application/json");
    match body {
        Some(body) => builder.header("content-type", "application/json").body(Full::new(Bytes::from(body.to_string()))),
        None => builder.body(Full::new(Bytes::new())),
    }
    .expect("a valid request")
}

/// Sends one request and reads the whole answer; panics on an unexpected status.
async fn call(sender: &mut SendRequest<Full<Bytes>>, req: hyper::Request<Full<Bytes>>, expect: u16) -> Bytes {
    sender.ready().await.expect("connection ready");
    let what = format!("{} {}", req.method(), req.uri());
    let response = sender.send_request(req).await.expect("an answer");
    let status = response.status().as_u16();
    let body = response.into_body().collect().await.expect("the body").to_bytes();
    assert_eq!(status, expect, "{what}: {}", String::from_utf8_lossy(&body));
    body
}

fn hpa(name: &str) -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "labels": {"app": "bench"}},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 10,
            "metrics": [{"type": "Resource", "resource": {"name": "cpu",
                "target": {"type": "Utilization", "averageUtilization": 80}}}],
        },
    })
}

struct Figures {
    seconds: f64,
    /// Every measured request's latency, sorted.
    latencies: Vec<Duration>,
}

impl Figures {
    fn rate(&self) -> f64 {
        self.latencies.len() as f64 / self.seconds
    }

    /// The figures of several measurements together.
    fn merged(rounds: Vec<Figures>) -> Figures {
        let seconds = rounds.iter().map(|f| f.seconds).sum();
        let mut latencies: Vec<Duration> = rounds.into_iter().flat_map(|f| f.latencies).collect();
        latencies.sort();
        Figures { seconds, latencies }
    }
}

/// The CPU time (user and system) process `pid` has used so far, from `/proc`.
fn cpu_time(pid: u32) -> Duration {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // The fields after the command (which may hold spaces), from the state on: utime and
    // stime are the 12th and 13th, in clock ticks.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    let ticks: u64 = [11, 12].iter().filter_map(|&i| fields.get(i)?.parse::<u64>().ok()).sum();
    // SAFETY: sysconf has no preconditions.
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).unwrap_or(100).max(1);
    Duration::from_millis(ticks * 1000 / per_second)
}

/// The CPU time of `pids` together.
fn cpu_of(pids: &[u32]) -> Duration {
    pids.iter().map(|&pid| cpu_time(pid)).sum()
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let index = ((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1;
    sorted[index]
}

/// `CONNECTIONS` closed-loop clients for `WARMUP` + `measure`: each connection `c` gets
/// its client from `open(c)`, then sends `send(client, c, i)` for i = 0, 1, ... (which
/// hands the client back) as soon as the previous one is answered; the latencies are
/// those of the requests sent after the warm-up.
async fn clients<C, O, OF, S, SF>(measure: Duration, open: O, send: S) -> Figures
where
    C: Send + 'static,
    O: Fn(usize) -> OF,
    OF: Future<Output = C> + Send + 'static,
    S: Fn(C, usize, usize) -> SF + Clone + Send + 'static,
    SF: Future<Output = C> + Send,
{
    let start = tokio::time::Instant::now() + Duration::from_millis(200);
    let measure_from = start + WARMUP;
    let end = measure_from + measure;
    let mut tasks = Vec::new();
    for c in 0..CONNECTIONS {
        let (client, send) = (open(c), send.clone());
        tasks.push(tokio::spawn(async move {
            let mut client = client.await;
            let mut latencies = Vec::new();
            tokio::time::sleep_until(start).await;
            for i in 0.. {
                let begun = tokio::time::Instant::now();
                if begun >= end {
                    break;
                }
                client = send(client, c, i).await;
                if begun >= measure_from {
                    latencies.push(begun.elapsed());
                }
            }
            latencies
        }));
    }
    let mut all = Vec::new();
    for task in tasks {
        all.extend(task.await.expect("a client task panicked"));
    }
    all.sort();
    Figures { seconds: measure.as_secs_f64(), latencies: all }
}

/// [`clients`] sending `make(connection, i)` to the server at `addr`, each answer `expect`ed.
async fn closed_loop<F>(addr: &str, measure: Duration, expect: u16, make: F) -> Figures
where
    F: Fn(usize, usize) -> (String, String, Option<Value>) + Send + Sync + 'static,
{
    let make = Arc::new(make);
    let addr = addr.to_owned();
    let open = |_| {
        let addr = addr.clone();
        async move { (connect(&addr).await, addr) }
    };
    clients(measure, open, move |(mut sender, addr): (SendRequest<Full<Bytes>>, String), c, i| {
        let (method, path, body) = make(c, i);
        let req = request(&addr, &method, &path, body.as_ref());
        async move {
            call(&mut sender, req, expect).await;
            (sender, addr)
        }
    })
    .await
}

/// [`clients`] of etcd committing create transactions of `value` under new keys: what
/// the server's creates cost etcd alone.
async fn raw_etcd_creates(servers: &str, value: Vec<u8>, measure: Duration) -> Figures {
    use etcdv3client::KvClient;
    use etcdv3client::grpc::{CredentialInterceptor, TonicClient};
    use etcdv3client::pb::{self, compare, request_op};

    let url = servers.split(',').next().expect("an etcd server").to_owned();
    let channel = tonic::transport::Endpoint::from_shared(url).expect("an etcd URL").connect_lazy();
    let service = CredentialInterceptor::new(None, None, TonicClient::new(channel));
    let value = Arc::new(value);
    let open = |_| std::future::ready(KvClient::new(service.clone()));
    clients(measure, open, move |mut kv: KvClient<CredentialInterceptor<TonicClient>>, c, i| {
        let key = format!("/registry/autoscaling/horizontalpodautoscalers/bench-create-{}/c{c}-{i}", c % 8);
        let create = pb::Compare {
            result: compare::CompareResult::Equal as i32,
            target: compare::CompareTarget::Create as i32,
            key: key.clone().into(),
            target_union: Some(compare::TargetUnion::CreateRevision(0)),
            ..Default::default()
        };
        let put = pb::PutRequest { key: key.into(), value: (*value).clone(), ..Default::default() };
        let request = pb::TxnRequest {
            compare: vec![create],
            success: vec![pb::RequestOp { request: Some(request_op::Request::RequestPut(put)) }],
            failure: Vec::new(),
        };
        async move {
            let committed = kv.txn(request).await.expect("an etcd transaction");
            assert!(committed.succeeded, "a new key");
            kv
        }
    })
    .await
}

/// Opens `WATCHERS` watches on `namespace`, then times `FANOUT_WRITES` creates until every
/// watcher has read each one's ADDED event. Returns the time per write.
async fn fanout(addr: &str) -> Vec<Duration> {
    let namespace = "bench-watch";
    let mut setup = connect(addr).await;
    let list =
        call(&mut setup, request(addr, "GET", &format!("{NS_PATH}/{namespace}/horizontalpodautoscalers"), None), 200)
            .await;
    let list: Value = serde_json::from_slice(&list).expect("list JSON");
    let rv = list["metadata"]["resourceVersion"].as_str().expect("list resourceVersion").to_owned();

    let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel::<()>(WATCHERS);
    let (seen_tx, mut seen_rx) = tokio::sync::mpsc::unbounded_channel::<(usize, tokio::time::Instant)>();
    let mut watchers = Vec::new();
    for _ in 0..WATCHERS {
        let addr = addr.to_owned();
        let path = format!(
            "{NS_PATH}/{namespace}/horizontalpodautoscalers?watch=true&resourceVersion={rv}&timeoutSeconds=600"
        );
        let ready_tx = ready_tx.clone();
        let seen_tx = seen_tx.clone();
        watchers.push(tokio::spawn(async move {
            let mut sender = connect(&addr).await;
            let response = sender.send_request(request(&addr, "GET", &path, None)).await.expect("watch");
            assert_eq!(response.status().as_u16(), 200, "watch status");
            ready_tx.send(()).await.expect("ready");
            let mut body = response.into_body();
            let mut buffer = Vec::new();
            while let Some(Ok(frame)) = body.frame().await {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                buffer.extend_from_slice(&data);
                while let Some(end) = buffer.iter().position(|&b| b == b'\n') {
                    let line: Vec<u8> = buffer.drain(..=end).collect();
                    let now = tokio::time::Instant::now();
                    let event: Value = serde_json::from_slice(&line).expect("event JSON");
                    if event["type"] == "ADDED"
                        && let Some(k) = event["object"]["metadata"]["name"].as_str().and_then(|n| n.strip_prefix("w"))
                    {
                        let _ = seen_tx.send((k.parse().expect("write number"), now));
                    }
                }
            }
        }));
    }
    drop(seen_tx);
    for _ in 0..WATCHERS {
        tokio::time::timeout(Duration::from_secs(60), ready_rx.recv()).await.expect("watches open in 60 s");
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    let mut times = Vec::new();
    for k in 0..FANOUT_WRITES {
        let sent = tokio::time::Instant::now();
        call(
            &mut setup,
            request(
                addr,
                "POST",
                &format!("{NS_PATH}/{namespace}/horizontalpodautoscalers"),
                Some(&hpa(&format!("w{k}"))),
            ),
            201,
        )
        .await;
        let mut last = sent;
        for _ in 0..WATCHERS {
            let (write, at) = tokio::time::timeout(Duration::from_secs(30), seen_rx.recv())
                .await
                .expect("every watcher sees the write within 30 s")
                .expect("watchers alive");
            assert_eq!(write, k, "an event of another write");
            last = last.max(at);
        }
        times.push(last - sent);
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for watcher in watchers {
        watcher.abort();
    }
    times
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// Creates `count` HorizontalPodAutoscalers named `{prefix}-{i}` spread over 10 namespaces
/// `{prefix}-0` .. `{prefix}-9`, over 16 connections.
async fn populate(addr: &str, prefix: &str, count: usize) {
    let mut tasks = Vec::new();
    for c in 0..16 {
        let addr = addr.to_owned();
        let prefix = prefix.to_owned();
        tasks.push(tokio::spawn(async move {
            let mut sender = connect(&addr).await;
            for i in (c..count).step_by(16) {
                let path = format!("{NS_PATH}/{prefix}-{}/horizontalpodautoscalers", i % 10);
                let body = hpa(&format!("{prefix}-{i}"));
                call(&mut sender, request(&addr, "POST", &path, Some(&body)), 201).await;
            }
        }));
    }
    for task in tasks {
        task.await.expect("a populating task panicked");
    }
}

/// Each phase has a server of its own, so that one phase's objects do not slow the next.
/// What one backend's phases measured: the rows of the table, the fan-out times, the CPU
/// of the create phase, and on etcd the raw baseline of creates with its CPU.
struct Run {
    rows: Vec<(String, Figures)>,
    fanout: Vec<Duration>,
    create_cpu: Cpu,
    baseline: Option<(Figures, Cpu)>,
}

/// The CPU time the processes of a phase used, over its wall time (warm-up included).
struct Cpu {
    server: Duration,
    etcd: Duration,
    wall: Duration,
}

impl Cpu {
    /// Cores in use on average: `time` over the wall time.
    fn cores(&self, time: Duration) -> f64 {
        time.as_secs_f64() / self.wall.as_secs_f64()
    }
}

async fn run(backend: Backend, measure: Duration) -> Run {
    let mut rows = Vec::new();

    let server = Server::start(backend);
    let addr = server.addr.clone();
    let etcd_pids = match &server.held {
        Held::Etcd(etcd) => etcd.pids(),
        _ => Vec::new(),
    };
    let before = (cpu_time(server.child.id()), cpu_of(&etcd_pids), Instant::now());
    let create = closed_loop(&addr, measure, 201, |c, i| {
        let path = format!("{NS_PATH}/bench-create-{}/horizontalpodautoscalers", c % 8);
        ("POST".into(), path, Some(hpa(&format!("c{c}-{i}"))))
    })
    .await;
    let create_cpu = Cpu {
        server: cpu_time(server.child.id()) - before.0,
        etcd: cpu_of(&etcd_pids) - before.1,
        wall: before.2.elapsed(),
    };
    rows.push(("create (POST, 201; 8 namespaces)".to_owned(), create));
    let mut baseline = None;
    if backend == Backend::Etcd {
        // What the server stored for one of those objects, on an etcd of the baseline's own.
        let mut reader = connect(&addr).await;
        let path = format!("{NS_PATH}/bench-create-0/horizontalpodautoscalers/c0-0");
        let stored = call(&mut reader, request(&addr, "GET", &path, None), 200).await.to_vec();
        drop(server);
        let etcd = etcd::Etcd::start(1, "the etcd baseline").expect("an etcd binary");
        let (cpu, wall) = (cpu_of(&etcd.pids()), Instant::now());
        let figures = raw_etcd_creates(&etcd.servers(), stored, measure).await;
        let cpu = Cpu { server: Duration::ZERO, etcd: cpu_of(&etcd.pids()) - cpu, wall: wall.elapsed() };
        baseline = Some((figures, cpu));
    } else {
        drop(server);
    }

    let server = Server::start(backend);
    let addr = server.addr.clone();
    let mut setup = connect(&addr).await;
    let path = format!("{NS_PATH}/bench-get/horizontalpodautoscalers");
    call(&mut setup, request(&addr, "POST", &path, Some(&hpa("web"))), 201).await;
    let get = closed_loop(&addr, measure, 200, |_, _| {
        ("GET".into(), format!("{NS_PATH}/bench-get/horizontalpodautoscalers/web"), None)
    })
    .await;
    rows.push(("get (one object)".to_owned(), get));
    drop(server);

    // The list alone and the list among 20,000 others: two servers, measured in
    // alternating rounds, so that both see the same load from the rest of the machine.
    let list_path = format!("{NS_PATH}/bench-list/horizontalpodautoscalers");
    let alone = Server::start(backend);
    let crowded = Server::start(backend);
    let mut list_bytes = 0;
    for server in [&alone, &crowded] {
        let mut setup = connect(&server.addr).await;
        for i in 0..LIST_SIZE {
            let body = hpa(&format!("item-{i:03}"));
            call(&mut setup, request(&server.addr, "POST", &list_path, Some(&body)), 201).await;
        }
        list_bytes = call(&mut setup, request(&server.addr, "GET", &list_path, None), 200).await.len();
    }
    populate(&crowded.addr, "other", OTHER_OBJECTS).await;
    let (mut alone_rounds, mut crowded_rounds) = (Vec::new(), Vec::new());
    for _ in 0..LIST_ROUNDS {
        for (server, rounds) in [(&alone, &mut alone_rounds), (&crowded, &mut crowded_rounds)] {
            let path = list_path.clone();
            let round = closed_loop(&server.addr, measure / LIST_ROUNDS as u32, 200, move |_, _| {
                ("GET".into(), path.clone(), None)
            })
            .await;
            rounds.push(round);
        }
    }
    rows.push((
        format!("list (a namespace of {LIST_SIZE} objects, {list_bytes} bytes)"),
        Figures::merged(alone_rounds),
    ));
    rows.push((
        format!("list (the same {LIST_SIZE}, with {OTHER_OBJECTS} more in 10 other namespaces)"),
        Figures::merged(crowded_rounds),
    ));
    drop((alone, crowded));

    let server = Server::start(backend);
    let mut times = fanout(&server.addr).await;
    times.sort();
    drop(server);
    Run { rows, fanout: times, create_cpu, baseline }
}

fn main() {
    let seconds: u64 = std::env::var("BENCH_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let wanted = std::env::var("BENCH_BACKENDS").unwrap_or_else(|_| "memory,embedded,etcd".to_owned());
    let mut backends = Vec::new();
    for backend in [Backend::Memory, Backend::Embedded, Backend::Etcd] {
        if !wanted.split(',').any(|name| name == backend.name()) {
            continue;
        }
        if backend == Backend::Etcd && etcd::binary().is_none() {
            println!("SKIPPED: the etcd backend: no etcd binary (install Debian's etcd-server, or set ETCD)");
            continue;
        }
        backends.push(backend);
    }
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    let results: Vec<_> = backends
        .iter()
        .map(|&backend| (backend, runtime.block_on(run(backend, Duration::from_secs(seconds)))))
        .collect();

    println!("| operation ({CONNECTIONS} connections) | backend | requests/s | p50 | p99 | requests measured |");
    println!("|---|---|---:|---:|---:|---:|");
    let phases = results.first().map_or(0, |(_, run)| run.rows.len());
    for phase in 0..phases {
        for (backend, run) in &results {
            let (name, f) = &run.rows[phase];
            let (p50, p99) = (percentile(&f.latencies, 0.5), percentile(&f.latencies, 0.99));
            let rate = f.rate();
            println!("| {name} | {} | {rate:.0} | {} | {} | {} |", backend.name(), ms(p50), ms(p99), f.latencies.len());
        }
    }
    for (backend, Run { rows, .. }) in &results {
        let (alone, crowded) = (&rows[rows.len() - 2].1, &rows[rows.len() - 1].1);
        println!(
            "{}: list with {OTHER_OBJECTS} others / list alone = {:.2}",
            backend.name(),
            crowded.rate() / alone.rate()
        );
    }
    println!();
    println!("| watch fan-out, {WATCHERS} watchers, {FANOUT_WRITES} writes | backend | median | min | max |");
    println!("|---|---|---:|---:|---:|");
    for (backend, Run { fanout: times, .. }) in &results {
        let (min, median, max) = (times[0], times[times.len() / 2], times[times.len() - 1]);
        println!("| one write to all {WATCHERS} | {} | {} | {} | {} |", backend.name(), ms(median), ms(min), ms(max));
    }
    for (_, run) in &results {
        let (Some((raw, raw_cpu)), Some((_, created))) = (&run.baseline, run.rows.first()) else { continue };
        println!();
        println!(
            "etcd: creates through the server {:.0}/s (p50 {}, p99 {}), raw etcd create transactions {:.0}/s (p50 {}, p99 {}): {:.2} of the baseline",
            created.rate(),
            ms(percentile(&created.latencies, 0.5)),
            ms(percentile(&created.latencies, 0.99)),
            raw.rate(),
            ms(percentile(&raw.latencies, 0.5)),
            ms(percentile(&raw.latencies, 0.99)),
            created.rate() / raw.rate()
        );
        let cpu = &run.create_cpu;
        println!(
            "CPU cores in use: through the server, the server {:.2} and etcd {:.2}; the baseline, etcd {:.2} (the load generator has the rest of 2)",
            cpu.cores(cpu.server),
            cpu.cores(cpu.etcd),
            raw_cpu.cores(raw_cpu.etcd)
        );
        println!(
            "CPU per create: server {:.0} µs, etcd {:.0} µs; baseline etcd {:.0} µs",
            cpu.server.as_secs_f64() * 1e6 / (created.rate() * cpu.wall.as_secs_f64()),
            cpu.etcd.as_secs_f64() * 1e6 / (created.rate() * cpu.wall.as_secs_f64()),
            raw_cpu.etcd.as_secs_f64() * 1e6 / (raw.rate() * raw_cpu.wall.as_secs_f64())
        );
    }
}
