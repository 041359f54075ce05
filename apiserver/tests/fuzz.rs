//! A deterministic request fuzz test: a few thousand requests from a seeded RNG against one
//! server process, over raw HTTP/1.1 (a fresh connection each).
//!
//! Requests mix valid API paths (with random names and extra segments), discovery paths and
//! random paths; every method; known query parameters with garbage values, unknown ones,
//! duplicates; JSON, YAML, the four patch types, protobuf and garbage Content-Types;
//! protobuf bodies (valid, mutated, truncated, of the other kind, garbage, nested groups); and
//! bodies that are valid objects with random mutations, truncated JSON, random bytes, deep
//! nesting, huge numbers, YAML alias bombs, random JSON and merge patches, and bodies over
//! the 3 MiB limit.
//!
//! One run, judged by two tests: every answer must come within 10 s and be no 5xx (but the
//! API server's own 504 for a resourceVersion newer than any it has), and
//! afterwards the process is still running and still answers
//! (`fuzzed_requests_never_crash_hang_or_fail_with_5xx`); every error (4xx) must be a
//! `Status` JSON with `kind: Status`, `apiVersion: v1`, `status: Failure` and a `code`
//! equal to the HTTP status, and every other `application/json` answer must be JSON
//! (`fuzzed_error_answers_are_status_objects`). All violations are collected and reported
//! grouped by kind, with the first requests of each, rather than stopping at the first.
//!
//! `FUZZ_SEED` and `FUZZ_REQUESTS` override the seed and the count, to explore further.

mod harness;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use bytes::Bytes;
use generated::api::autoscaling::v2::HorizontalPodAutoscaler;
use generated::api::certificates::v1::CertificateSigningRequest;
use harness::Backend;
use harness::process::ServerProcess;
use kube_apigen::protobuf;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const DEFAULT_SEED: u64 = 0x6b75_6265_2d66_757a;
const DEFAULT_REQUESTS: usize = 3000;
/// The whole fuzz loop must finish in this time.
const DEADLINE: Duration = Duration::from_secs(240);
/// One request, headers and body, must be answered within this time.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a watch stream opened by a fuzzed request is read before it is dropped.
const WATCH_READ: Duration = Duration::from_millis(100);

// ---- One request ----

#[derive(Clone, Debug)]
struct Req {
    method: String,
    path: String,
    content_type: Option<String>,
    accept: Option<String>,
    body: Vec<u8>,
}

impl Req {
    fn get(path: &str) -> Req {
        Req { method: "GET".into(), path: path.into(), content_type: None, accept: None, body: Vec::new() }
    }

    fn describe(&self) -> String {
        let mut preview = String::new();
        for &b in self.body.iter().take(160) {
            if b.is_ascii_graphic() || b == b' ' {
                preview.push(b as char);
            } else {
                let _ = write!(preview, "\\x{b:02x}");
            }
        }
        if self.body.len() > 160 {
            let _ = write!(preview, "... ({} bytes)", self.body.len());
        }
        let path: String = if self.path.len() > 200 {
            format!("{}...({} chars)", &self.path[..200], self.path.len())
        } else {
            self.path.clone()
        };
        format!(
            "{} {path} [Content-Type: {:?}, Accept: {:?}] body: {preview}",
            self.method, self.content_type, self.accept
        )
    }
}

struct Answer {
    status: u16,
    content_type: String,
    body: Bytes,
    watch: bool,
}

/// Sends `req` on a fresh connection and reads the answer, with a minimal HTTP/1.1 client
/// on a raw socket: the request is written by its own task, so that an answer the server
/// sends before reading the whole body (413, 404, ...) is read all the same, as a real
/// client reads it.
async fn send(addr: &str, req: &Req) -> Result<Answer, String> {
    let stream = tokio::net::TcpStream::connect(addr).await.map_err(|e| format!("connect: {e}"))?;
    let (mut reader, mut writer) = stream.into_split();
    let mut head = format!(
        "{} {} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Length: {}\r\n",
        req.method,
        req.path,
        req.body.len()
    );
    if let Some(content_type) = &req.content_type {
        let _ = write!(head, "Content-Type: {content_type}\r\n");
    }
    if let Some(accept) = &req.accept {
        let _ = write!(head, "Accept: {accept}\r\n");
    }
    head.push_str("\r\n");
    let body = req.body.clone();
    // The write half is kept open until the answer is read: a half-closed connection may
    // be taken for a client that went away.
    let write = tokio::spawn(async move {
        let result = async {
            writer.write_all(head.as_bytes()).await?;
            writer.write_all(&body).await?;
            writer.flush().await
        }
        .await;
        (writer, result)
    });
    let answer = tokio::time::timeout(REQUEST_TIMEOUT, read_answer(&mut reader, &req.method))
        .await
        .unwrap_or_else(|_| Err(format!("no complete answer within {REQUEST_TIMEOUT:?}")));
    let written = if write.is_finished() {
        write.await.ok().and_then(|(_, result)| result.err())
    } else {
        write.abort();
        None
    };
    match (answer, written) {
        (Err(e), Some(write_error)) => {
            Err(format!("{e} (after the server stopped reading the {}-byte body: {write_error})", req.body.len()))
        }
        (answer, _) => answer,
    }
}

/// Reads one HTTP/1.1 answer: status line, headers, then a body by Content-Length, chunked
/// encoding or connection close. An open watch is read for `WATCH_READ`, then dropped.
async fn read_answer(reader: &mut tokio::net::tcp::OwnedReadHalf, method: &str) -> Result<Answer, String> {
    let mut buffer: Vec<u8> = Vec::new();
    let header_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at;
        }
        if !fill(reader, &mut buffer).await? {
            return Err(format!("no answer: connection closed after {} bytes", buffer.len()));
        }
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).into_owned();
    let mut rest = buffer.split_off(header_end + 4);
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or("");
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| format!("no answer: bad status line {status_line:?}"))?;
    let mut content_type = String::new();
    let mut length = None;
    let mut chunked = false;
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match name.to_ascii_lowercase().as_str() {
            "content-type" => content_type = value.to_owned(),
            "content-length" => length = value.parse::<usize>().ok(),
            "transfer-encoding" => chunked = value.eq_ignore_ascii_case("chunked"),
            _ => {}
        }
    }
    let watch = content_type.contains("stream=watch");
    if watch {
        // An open watch: read what comes quickly, then hang up.
        let until = tokio::time::Instant::now() + WATCH_READ;
        while let Ok(Ok(true)) = tokio::time::timeout_at(until, fill(reader, &mut rest)).await {}
        return Ok(Answer { status, content_type, body: Bytes::from(rest), watch });
    }
    let body = if method == "HEAD" || status == 204 || status == 304 || status < 200 {
        Vec::new()
    } else if chunked {
        let mut body = Vec::new();
        loop {
            let line_end = loop {
                if let Some(at) = rest.windows(2).position(|w| w == b"\r\n") {
                    break at;
                }
                if !fill(reader, &mut rest).await? {
                    return Err("body: connection closed inside a chunk header".into());
                }
            };
            let size_text = String::from_utf8_lossy(&rest[..line_end]).into_owned();
            let size = usize::from_str_radix(size_text.split(';').next().unwrap_or("").trim(), 16)
                .map_err(|_| format!("body: bad chunk size {size_text:?}"))?;
            rest.drain(..line_end + 2);
            while rest.len() < size + 2 {
                if !fill(reader, &mut rest).await? {
                    return Err("body: connection closed inside a chunk".into());
                }
            }
            if size == 0 {
                break body;
            }
            body.extend_from_slice(&rest[..size]);
            rest.drain(..size + 2);
        }
    } else if let Some(length) = length {
        while rest.len() < length {
            if !fill(reader, &mut rest).await? {
                return Err(format!("body: connection closed after {} of {length} bytes", rest.len()));
            }
        }
        rest.truncate(length);
        rest
    } else {
        while fill(reader, &mut rest).await? {}
        rest
    };
    Ok(Answer { status, content_type, body: Bytes::from(body), watch })
}

/// Reads more bytes into `buffer`; `false` at the end of the stream.
async fn fill(reader: &mut tokio::net::tcp::OwnedReadHalf, buffer: &mut Vec<u8>) -> Result<bool, String> {
    let mut chunk = [0u8; 16 * 1024];
    match reader.read(&mut chunk).await {
        Ok(0) => Ok(false),
        Ok(n) => {
            buffer.extend_from_slice(&chunk[..n]);
            Ok(true)
        }
        Err(e) => Err(format!("no answer: {e}")),
    }
}

/// A violation: its kind (to group by) and what exactly was answered.
struct Violation {
    kind: String,
    detail: String,
}

fn preview(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(&bytes[..bytes.len().min(max)]);
    if bytes.len() > max { format!("{text}... ({} bytes)", bytes.len()) } else { text.into_owned() }
}

/// The one 5xx the API server answers by design: a list or get at a resourceVersion newer
/// than any it has is 504 `Timeout` with a `ResourceVersionTooLarge` cause (after a short
/// wait for it to appear), as `k8s.io/apiserver`'s `NewTooLargeResourceVersionError`.
fn too_large_resource_version(status: u16, body: &[u8]) -> bool {
    let Ok(json) = serde_json::from_slice::<Value>(body) else {
        return false;
    };
    status == 504 && json["reason"] == "Timeout" && json["details"]["causes"][0]["reason"] == "ResourceVersionTooLarge"
}

/// The `Status` of an error answer as JSON: its JSON body, or its protobuf body decoded.
fn status_json(answer: &Answer) -> Option<Value> {
    if !answer.content_type.starts_with(protobuf::CONTENT_TYPE) {
        return serde_json::from_slice(&answer.body).ok();
    }
    let envelope = protobuf::decode_envelope(&answer.body).ok()?;
    if (envelope.api_version.as_str(), envelope.kind.as_str()) != ("v1", "Status") {
        return None;
    }
    let status: kube_apigen::Status = protobuf::decode_message(envelope.raw).ok()?;
    let mut json = serde_json::to_value(status).ok()?;
    // The envelope carries the kind; the message itself has none.
    json["kind"] = "Status".into();
    json["apiVersion"] = "v1".into();
    Some(json)
}

/// What is wrong with an answer, if anything.
fn check(req: &Req, answer: &Answer) -> Option<Violation> {
    let status = answer.status;
    let body = preview(&answer.body, 300);
    let violation =
        |kind: String| Some(Violation { kind, detail: format!("{status} {:?}: {body}", answer.content_type) });
    if status >= 500 && !too_large_resource_version(status, &answer.body) {
        return violation(format!("{status} answer"));
    }
    if req.method == "HEAD" {
        return None;
    }
    if status >= 400 {
        let Some(json) = status_json(answer) else {
            return violation(format!(
                "{status} whose body is neither JSON nor a protobuf Status (Content-Type {:?}, body {:?})",
                answer.content_type,
                preview(&answer.body, 40)
            ));
        };
        let ok = json["kind"] == "Status"
            && json["apiVersion"] == "v1"
            && json["status"] == "Failure"
            && json["code"].as_u64() == Some(u64::from(status));
        if !ok {
            return violation(format!("{status} whose JSON body is no Status with code {status}"));
        }
        let protobuf_asked = req.accept.as_deref().is_some_and(|accept| accept.contains(protobuf::CONTENT_TYPE));
        let protobuf_sent = answer.content_type.starts_with(protobuf::CONTENT_TYPE);
        if !(answer.content_type.starts_with("application/json") || protobuf_sent && protobuf_asked) {
            return violation(format!("{status} Status with Content-Type {:?}", answer.content_type));
        }
        return None;
    }
    if !answer.watch
        && answer.content_type.starts_with("application/json")
        && serde_json::from_slice::<Value>(&answer.body).is_err()
    {
        return violation(format!("{status} application/json body that is not JSON"));
    }
    None
}

// ---- Generators ----

const NAMESPACES: &[&str] = &["fuzz", "default", "kube-system"];
const NAMES: &[&str] = &["web", "api", "csr-1", "missing"];

fn hpa_object(name: &str) -> Value {
    json!({
        "apiVersion": "autoscaling/v2",
        "kind": "HorizontalPodAutoscaler",
        "metadata": {"name": name, "namespace": "fuzz", "labels": {"app": "web"}, "annotations": {"a": "b"}},
        "spec": {
            "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"},
            "minReplicas": 2,
            "maxReplicas": 5,
            "metrics": [{
                "type": "Resource",
                "resource": {"name": "cpu", "target": {"type": "Utilization", "averageUtilization": 80}},
            }],
            "behavior": {"scaleUp": {"stabilizationWindowSeconds": 0, "selectPolicy": "Max",
                "policies": [{"type": "Pods", "value": 4, "periodSeconds": 60}]}},
        },
    })
}

fn csr_object(name: &str) -> Value {
    json!({
        "apiVersion": "certificates.k8s.io/v1",
        "kind": "CertificateSigningRequest",
        "metadata": {"name": name},
        "spec": {
            // base64 of a PEM CERTIFICATE REQUEST header and a few bytes: only format:byte
            // matters to the schema.
            "request": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlJQgotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K",
            "signerName": "kubernetes.io/kube-apiserver-client",
            "expirationSeconds": 3600,
            "usages": ["digital signature", "client auth"],
        },
        "status": {"conditions": [{"type": "Approved", "status": "True", "reason": "Fuzz"}]},
    })
}

fn percent_encode(bytes: &[u8]) -> String {
    let mut out = String::new();
    for &b in bytes {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

fn random_text(rng: &mut StdRng, max: usize) -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:@!$&'()*+,;=";
    let len = rng.random_range(0..=max);
    (0..len).map(|_| *ALPHABET.choose(rng).expect("alphabet") as char).collect()
}

fn random_segment(rng: &mut StdRng) -> String {
    match rng.random_range(0..12) {
        0 => String::new(),
        1 => "..".into(),
        2 => ".".into(),
        3 => "a".repeat(rng.random_range(250..400)),
        4 => percent_encode(&(0..rng.random_range(1..12)).map(|_| rng.random::<u8>()).collect::<Vec<_>>()),
        5 => "%C3%A9t%C3%A9".into(),
        6 => "%2F".into(),
        7 => "%00".into(),
        8 => "UPPER_case".into(),
        9 => "status".into(),
        10 => "watch".into(),
        _ => random_text(rng, 20),
    }
}

fn namespace(rng: &mut StdRng) -> String {
    if rng.random_bool(0.8) { (*NAMESPACES.choose(rng).expect("ns")).into() } else { random_segment(rng) }
}

fn name(rng: &mut StdRng) -> String {
    if rng.random_bool(0.7) { (*NAMES.choose(rng).expect("name")).into() } else { random_segment(rng) }
}

fn path(rng: &mut StdRng) -> String {
    let hpa = "/apis/autoscaling/v2";
    let csr = "/apis/certificates.k8s.io/v1";
    let mut path = match rng.random_range(0..20) {
        0..=2 => format!("{hpa}/namespaces/{}/horizontalpodautoscalers", namespace(rng)),
        3..=6 => format!("{hpa}/namespaces/{}/horizontalpodautoscalers/{}", namespace(rng), name(rng)),
        7 => format!("{hpa}/namespaces/{}/horizontalpodautoscalers/{}/status", namespace(rng), name(rng)),
        8 => format!("{hpa}/horizontalpodautoscalers"),
        9 => format!("{hpa}/watch/namespaces/{}/horizontalpodautoscalers", namespace(rng)),
        10 => format!("{hpa}/watch/namespaces/{}/horizontalpodautoscalers/{}", namespace(rng), name(rng)),
        11 => format!("{csr}/certificatesigningrequests"),
        12 | 13 => format!("{csr}/certificatesigningrequests/{}", name(rng)),
        14 => format!(
            "{csr}/certificatesigningrequests/{}/{}",
            name(rng),
            ["status", "approval", "scale", "x"].choose(rng).expect("sub")
        ),
        15 => format!("{csr}/watch/certificatesigningrequests/{}", name(rng)),
        16 => (*[
            "/",
            "/api",
            "/api/v1",
            "/apis",
            "/apis/autoscaling",
            "/apis/autoscaling/v2",
            "/apis/autoscaling/v1",
            "/apis/certificates.k8s.io",
            "/apis/certificates.k8s.io/v1",
            "/version",
            "/openapi/v2",
            "/openapi/v3",
            "/openapi/v3/apis/autoscaling/v2",
            "/openapi/v3/apis/certificates.k8s.io/v1",
            "/healthz",
            "/readyz",
            "/livez",
            "/metrics",
            "/apis/nope/v1/things",
        ]
        .choose(rng)
        .expect("path"))
        .into(),
        _ => {
            let mut path = String::new();
            for _ in 0..rng.random_range(1..6) {
                path.push('/');
                path.push_str(&random_segment(rng));
            }
            path
        }
    };
    if rng.random_bool(0.08) {
        for _ in 0..rng.random_range(1..4) {
            path.push('/');
            path.push_str(&random_segment(rng));
        }
    }
    if rng.random_bool(0.05) {
        path.push('/');
    }
    path
}

const PARAMS: &[&str] = &[
    "watch",
    "resourceVersion",
    "resourceVersionMatch",
    "limit",
    "continue",
    "labelSelector",
    "fieldSelector",
    "timeoutSeconds",
    "allowWatchBookmarks",
    "sendInitialEvents",
    "dryRun",
    "fieldManager",
    "fieldValidation",
    "force",
    "pretty",
    "gracePeriodSeconds",
    "propagationPolicy",
    "orphanDependents",
    "ignoreStoreReadErrorWithClusterBreakingPotential",
    "shardSelector",
    "hash",
];

fn param_value(rng: &mut StdRng) -> String {
    let fixed = [
        "",
        "-1",
        "0",
        "1",
        "abc",
        "99999999999999999999",
        "true",
        "false",
        "True",
        "1.5",
        "0x10",
        "All",
        "all",
        "Strict",
        "Warn",
        "Ignore",
        "NotOlderThan",
        "Exact",
        "Foreground",
        "Background",
        "Orphan",
        "metadata.name=web",
        "metadata.namespace!=x",
        "spec.signerName=a",
        "a=b,c!=d",
        "x in (a,b)",
        "!x",
        "app=",
        "=",
        "a==b==c",
        "k8s.io/x=y",
        "!!!",
    ];
    match rng.random_range(0..10) {
        0 => percent_encode(&(0..rng.random_range(0..30)).map(|_| rng.random::<u8>()).collect::<Vec<_>>()),
        1 => "x".repeat(rng.random_range(100..3000)),
        2 => rng.random::<i64>().to_string(),
        3 => random_text(rng, 30).replace(['&', '='], ""),
        _ => percent_encode(fixed.choose(rng).expect("value").as_bytes()),
    }
}

fn query(rng: &mut StdRng) -> String {
    let count = match rng.random_range(0..10) {
        0..=3 => 0,
        4..=7 => rng.random_range(1..3),
        _ => rng.random_range(3..8),
    };
    let mut pairs = Vec::new();
    for _ in 0..count {
        match rng.random_range(0..10) {
            0 => pairs.push(random_text(rng, 12).replace(['&', '=', '#'], "")),
            1 => pairs.push(format!("{}={}", random_text(rng, 12).replace(['&', '=', '#'], ""), param_value(rng))),
            2 => pairs.push((*PARAMS.choose(rng).expect("param")).into()),
            3 => pairs.push(String::new()),
            _ => pairs.push(format!("{}={}", PARAMS.choose(rng).expect("param"), param_value(rng))),
        }
    }
    if pairs.is_empty() { String::new() } else { format!("?{}", pairs.join("&")) }
}

fn method(rng: &mut StdRng) -> String {
    let methods = [
        ("GET", 30),
        ("POST", 16),
        ("PUT", 14),
        ("PATCH", 22),
        ("DELETE", 10),
        ("HEAD", 3),
        ("OPTIONS", 2),
        ("TRACE", 1),
        ("CONNECT", 1),
        ("PROPFIND", 1),
    ];
    let total: u32 = methods.iter().map(|m| m.1).sum();
    let mut pick = rng.random_range(0..total);
    for (method, weight) in methods {
        if pick < weight {
            return method.into();
        }
        pick -= weight;
    }
    unreachable!()
}

fn content_type(rng: &mut StdRng, method: &str) -> Option<String> {
    // Mostly the type the method expects, so that bodies reach the decoders.
    if rng.random_bool(0.6) {
        let expected: &[&str] = match method {
            "POST" | "PUT" => &["application/json", "application/yaml"],
            "PATCH" => &[
                "application/merge-patch+json",
                "application/json-patch+json",
                "application/strategic-merge-patch+json",
                "application/apply-patch+yaml",
            ],
            _ => &["application/json"],
        };
        return Some((*expected.choose(rng).expect("type")).into());
    }
    let types = [
        "application/json",
        "application/json",
        "application/yaml",
        "application/merge-patch+json",
        "application/merge-patch+json",
        "application/json-patch+json",
        "application/json-patch+json",
        "application/strategic-merge-patch+json",
        "application/apply-patch+yaml",
        "application/apply-patch+yaml",
        "application/vnd.kubernetes.protobuf",
        "text/plain",
        "application/json; charset=utf-8",
        "application/json; charset=latin1",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "x/y;;;",
        "application/",
        "*/*",
        "application/apply-patch+yaml; charset=utf-8",
    ];
    match rng.random_range(0..12) {
        0 => None,
        1 => Some(random_text(rng, 30)),
        _ => Some((*types.choose(rng).expect("type")).into()),
    }
}

fn accept(rng: &mut StdRng) -> Option<String> {
    let accepts = [
        "application/json",
        "*/*",
        "application/json, */*",
        "application/json;as=Table;v=v1;g=meta.k8s.io",
        "application/json;as=Table;v=v1;g=meta.k8s.io,application/json",
        "text/html",
        "application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io",
        "application/json;as=Nope",
        "application/vnd.kubernetes.protobuf, application/json",
    ];
    if rng.random_bool(0.6) { None } else { Some((*accepts.choose(rng).expect("accept")).into()) }
}

fn random_value(rng: &mut StdRng, depth: u32) -> Value {
    match rng.random_range(0..if depth > 3 { 8 } else { 11 }) {
        0 => Value::Null,
        1 => json!(rng.random_bool(0.5)),
        2 => json!(rng.random::<i64>()),
        3 => json!(rng.random::<f64>() * 1e300),
        4 => json!(-1),
        5 => json!(random_text(rng, 20)),
        6 => json!(""),
        7 => json!("ümlaut \u{0} \u{1F600}"),
        8 => Value::Array((0..rng.random_range(0..4)).map(|_| random_value(rng, depth + 1)).collect()),
        _ => {
            let mut map = serde_json::Map::new();
            for _ in 0..rng.random_range(0..4) {
                map.insert(random_text(rng, 8), random_value(rng, depth + 1));
            }
            Value::Object(map)
        }
    }
}

/// Every JSON pointer into `value`.
fn pointers(value: &Value, prefix: String, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                let p = format!("{prefix}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(v, p, out);
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                let p = format!("{prefix}/{i}");
                out.push(p.clone());
                pointers(v, p, out);
            }
        }
        _ => {}
    }
}

fn mutate(rng: &mut StdRng, object: &mut Value) {
    let mut all = Vec::new();
    pointers(object, String::new(), &mut all);
    let Some(pointer) = all.choose(rng).cloned() else {
        return;
    };
    let (parent, last) = pointer.rsplit_once('/').expect("a pointer has a slash");
    let replacement = random_value(rng, 0);
    let extra_key = random_text(rng, 10);
    match object.pointer_mut(parent) {
        Some(Value::Object(map)) => {
            let key = last.replace("~1", "/").replace("~0", "~");
            match rng.random_range(0..4) {
                0 => {
                    map.remove(&key);
                }
                1 => {
                    map.insert(extra_key, replacement);
                }
                _ => {
                    map.insert(key, replacement);
                }
            }
        }
        Some(Value::Array(items)) => {
            let index: usize = last.parse().expect("index");
            if rng.random_bool(0.5) {
                items.remove(index);
            } else {
                items[index] = replacement;
            }
        }
        _ => {}
    }
}

fn nested(open: &str, inner: &str, close: &str, depth: usize) -> Vec<u8> {
    let mut out = open.repeat(depth);
    out.push_str(inner);
    out.push_str(&close.repeat(depth));
    out.into_bytes()
}

/// A YAML "billion laughs": 9 levels of 10 aliases each.
fn alias_bomb() -> Vec<u8> {
    let mut yaml =
        String::from("a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
    for level in 1..10 {
        let prev = level - 1;
        let refs = vec![format!("*a{prev}"); 10].join(",");
        let _ = writeln!(yaml, "a{level}: &a{level} [{refs}]");
    }
    yaml.push_str("apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: bomb}\nspec: *a9\n");
    yaml.into_bytes()
}

fn body(rng: &mut StdRng, path: &str) -> Vec<u8> {
    let valid =
        if path.contains("certificatesigningrequests") { csr_object(&name(rng)) } else { hpa_object(&name(rng)) };
    match rng.random_range(0..40) {
        0..=2 => Vec::new(),
        3..=8 => valid.to_string().into_bytes(),
        9..=16 => {
            let mut object = valid;
            for _ in 0..rng.random_range(1..5) {
                mutate(rng, &mut object);
            }
            object.to_string().into_bytes()
        }
        17 | 18 => {
            let text = valid.to_string();
            text.as_bytes()[..rng.random_range(0..text.len())].to_vec()
        }
        19 | 20 => (0..rng.random_range(0..2000)).map(|_| rng.random::<u8>()).collect(),
        21 => nested("[", "", "]", rng.random_range(100..200_000)),
        22 => nested("{\"a\":", "1", "}", rng.random_range(100..100_000)),
        23 => {
            nested("- ", "x", "", 1).into_iter().chain(nested("[", "", "]", rng.random_range(1000..100_000))).collect()
        }
        24 => {
            // Deep block-style YAML.
            let depth = rng.random_range(100..2_000);
            let mut yaml = String::new();
            for level in 0..depth {
                let _ = writeln!(yaml, "{}a:", " ".repeat(level));
            }
            yaml.into_bytes()
        }
        25 | 26 => {
            let huge = [
                "1e999",
                "-1e999",
                "99999999999999999999999999999",
                "2147483648",
                "-2147483649",
                "1.5",
                "0.0000001e-999",
                "18446744073709551616",
                "-0",
                "1E400",
            ];
            let number = huge.choose(rng).expect("number");
            valid
                .to_string()
                .replace("\"maxReplicas\":5", &format!("\"maxReplicas\":{number}"))
                .replace("\"expirationSeconds\":3600", &format!("\"expirationSeconds\":{number}"))
                .into_bytes()
        }
        27 => alias_bomb(),
        28 => {
            let ops = ["add", "remove", "replace", "move", "copy", "test", "nope"];
            let paths = [
                "/spec/maxReplicas",
                "/spec/metrics/-",
                "/spec/metrics/99",
                "/metadata/name",
                "/~2",
                "",
                "/",
                "/metadata/labels/a~1b",
                "/spec",
                "/status",
                "/metadata/resourceVersion",
                "/kind",
            ];
            let patch: Vec<Value> = (0..rng.random_range(0..5))
                .map(|_| {
                    json!({
                        "op": ops.choose(rng).expect("op"),
                        "path": paths.choose(rng).expect("path"),
                        "from": paths.choose(rng).expect("path"),
                        "value": random_value(rng, 0),
                    })
                })
                .collect();
            Value::Array(patch).to_string().into_bytes()
        }
        29 => json!({"spec": random_value(rng, 0), "metadata": random_value(rng, 0)}).to_string().into_bytes(),
        30 => random_value(rng, 0).to_string().into_bytes(),
        31 => {
            // Duplicate keys and unknown fields, as text.
            let text = valid.to_string();
            text.replacen("{\"apiVersion\"", "{\"unknown\":1,\"spec\":{\"foo\":1},\"apiVersion\"", 1).into_bytes()
        }
        32 => {
            // Invalid UTF-8 inside a JSON string.
            let mut bytes = valid.to_string().into_bytes();
            if let Some(at) = bytes.windows(3).position(|w| w == b"web") {
                bytes[at] = 0xff;
            }
            bytes
        }
        33 => {
            // Over the 3 MiB body limit.
            let mut bytes = b"{\"a\":\"".to_vec();
            bytes.resize(3 * 1024 * 1024 + rng.random_range(1..200_000), b'x');
            bytes.extend_from_slice(b"\"}");
            bytes
        }
        34 => b"--- \n---\n".to_vec(),
        35 => b"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata:\n\tname: tab\n".to_vec(),
        36 => b"!!binary AAAA\n".to_vec(),
        37 => b"apiVersion: !!python/object:os.system autoscaling/v2\nkind: HorizontalPodAutoscaler\n".to_vec(),
        38 => "\u{feff}".bytes().chain(valid.to_string().into_bytes()).collect(),
        _ => b"null".to_vec(),
    }
}

/// A protobuf body: the valid object of the path in its envelope, mutated, truncated, the
/// other kind, garbage after the magic, or groups nested far deeper than any decoder allows.
fn protobuf_body(rng: &mut StdRng, path: &str) -> Vec<u8> {
    let csr = || -> Vec<u8> {
        let object: CertificateSigningRequest = serde_json::from_value(csr_object("pb")).expect("a CSR");
        protobuf::encode_envelope(
            "certificates.k8s.io/v1",
            "CertificateSigningRequest",
            &protobuf::encode_message(&object),
        )
    };
    let hpa = || -> Vec<u8> {
        let object: HorizontalPodAutoscaler = serde_json::from_value(hpa_object("pb")).expect("an HPA");
        protobuf::encode_envelope("autoscaling/v2", "HorizontalPodAutoscaler", &protobuf::encode_message(&object))
    };
    let is_csr = path.contains("certificatesigningrequests");
    let valid = if is_csr { csr() } else { hpa() };
    match rng.random_range(0..8) {
        0 | 1 => valid,
        2 | 3 => {
            let mut bytes = valid;
            for _ in 0..rng.random_range(1..8) {
                let at = rng.random_range(protobuf::MAGIC.len()..bytes.len());
                bytes[at] = rng.random();
            }
            bytes
        }
        4 => valid[..rng.random_range(0..valid.len())].to_vec(),
        5 => protobuf::MAGIC.iter().copied().chain((0..rng.random_range(0..500)).map(|_| rng.random::<u8>())).collect(),
        6 => {
            // Field 99 opening a group, over and over, inside the object.
            let groups: Vec<u8> = [0x9b, 0x06].repeat(rng.random_range(200..50_000));
            let kind = if is_csr { "CertificateSigningRequest" } else { "HorizontalPodAutoscaler" };
            protobuf::encode_envelope("", kind, &groups)
        }
        _ => {
            if is_csr {
                hpa()
            } else {
                csr()
            }
        }
    }
}

/// A method the path serves, for a path of a resource: so that half of such requests get
/// past routing into the handlers.
fn fitting_method(rng: &mut StdRng, path: &str) -> Option<String> {
    let methods: &[&str] = if path.contains("/watch/") {
        &["GET"]
    } else if path.ends_with("horizontalpodautoscalers") || path.ends_with("certificatesigningrequests") {
        &["GET", "POST", "DELETE"]
    } else if path.contains("horizontalpodautoscalers/") || path.contains("certificatesigningrequests/") {
        &["GET", "PUT", "PATCH", "PATCH", "DELETE"]
    } else {
        return None;
    };
    Some((*methods.choose(rng).expect("method")).into())
}

fn request(rng: &mut StdRng) -> Req {
    let path = path(rng);
    let method = match fitting_method(rng, &path) {
        Some(fitting) if rng.random_bool(0.5) => fitting,
        _ => method(rng),
    };
    let path = format!("{path}{}", query(rng));
    let with_body = match method.as_str() {
        "POST" | "PUT" | "PATCH" => rng.random_bool(0.95),
        _ => rng.random_bool(0.1),
    };
    if matches!(method.as_str(), "POST" | "PUT") && rng.random_bool(0.15) {
        let body = protobuf_body(rng, &path);
        return Req { method, content_type: Some(protobuf::CONTENT_TYPE.into()), accept: accept(rng), body, path };
    }
    let body = if with_body { body(rng, &path) } else { Vec::new() };
    let content_type = content_type(rng, &method);
    Req { method, content_type, accept: accept(rng), body, path }
}

// ---- The tests ----

/// The outcome of the one fuzz run that both tests judge.
struct FuzzRun {
    seed: u64,
    sent: usize,
    /// The server crashed, hung, cut a connection, answered 5xx, or stopped answering.
    broken: Vec<(usize, Req, Violation)>,
    /// An answer of the wrong shape: an error that is no `Status`, JSON that is not JSON.
    misshapen: Vec<(usize, Req, Violation)>,
}

/// Runs the fuzz against a server on `backend` (`None`: there is no etcd), once per test
/// process (on its own runtime), whichever test asks first.
fn fuzz_run(backend: Backend) -> Option<&'static FuzzRun> {
    static RUNS: [OnceLock<Option<FuzzRun>>; 3] = [OnceLock::new(), OnceLock::new(), OnceLock::new()];
    RUNS[backend as usize]
        .get_or_init(|| {
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .expect("a tokio runtime")
                .block_on(run_fuzz(backend))
        })
        .as_ref()
}

/// Violations grouped by kind, most frequent first, with the first three requests of each.
fn report(run: &FuzzRun, violations: &[(usize, Req, Violation)], what: &str) -> String {
    let mut kinds: BTreeMap<&str, Vec<&(usize, Req, Violation)>> = BTreeMap::new();
    for v in violations {
        kinds.entry(v.2.kind.as_str()).or_default().push(v);
    }
    let mut kinds: Vec<_> = kinds.into_iter().collect();
    kinds.sort_by_key(|(_, list)| std::cmp::Reverse(list.len()));
    let mut report = format!(
        "{} of {} fuzzed requests {what} (seed {:#x}), {} kinds:",
        violations.len(),
        run.sent,
        run.seed,
        kinds.len()
    );
    for (kind, list) in &kinds {
        let _ = writeln!(report, "\n{} x {kind}", list.len());
        for (index, req, violation) in list.iter().take(3) {
            let _ = writeln!(report, "  #{index}: {}\n    -> {}", req.describe(), violation.detail);
        }
    }
    report
}

/// The two tests of one fuzz run, per storage backend.
macro_rules! fuzz_tests {
    ($($module:ident: $backend:ident),*) => {$(
        mod $module {
            use super::{Backend, fuzz_run, report};

            /// No 5xx, no hang (10 s per request, 240 s in all), no connection cut without
            /// an answer, and afterwards the process still runs and answers.
            #[test]
            fn fuzzed_requests_never_crash_hang_or_fail_with_5xx() {
                let Some(run) = fuzz_run(Backend::$backend) else { return };
                assert!(run.broken.is_empty(), "{}", report(run, &run.broken, "broke the server"));
            }

            /// Every 4xx is a `Status` JSON whose `code` is the HTTP status; every
            /// `application/json` answer is JSON.
            #[test]
            fn fuzzed_error_answers_are_status_objects() {
                let Some(run) = fuzz_run(Backend::$backend) else { return };
                assert!(run.misshapen.is_empty(), "{}", report(run, &run.misshapen, "got a misshapen answer"));
            }
        }
    )*};
}

fuzz_tests!(memory: Memory, embedded: Embedded, etcd: Etcd);

async fn run_fuzz(backend: Backend) -> Option<FuzzRun> {
    let seed = std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_SEED);
    let count = std::env::var("FUZZ_REQUESTS").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_REQUESTS);
    let mut server = ServerProcess::start_on(backend, &[])?;
    let addr = server.addr.clone();

    // Objects for the fuzzed paths to find.
    for (path, object) in [
        ("/apis/autoscaling/v2/namespaces/fuzz/horizontalpodautoscalers", hpa_object("web")),
        ("/apis/autoscaling/v2/namespaces/fuzz/horizontalpodautoscalers", hpa_object("api")),
        ("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", hpa_object("web")),
        ("/apis/certificates.k8s.io/v1/certificatesigningrequests", csr_object("csr-1")),
    ] {
        let mut object = object;
        if let Some(metadata) = object["metadata"].as_object_mut() {
            metadata.remove("namespace");
        }
        let req = Req {
            method: "POST".into(),
            path: path.into(),
            content_type: Some("application/json".into()),
            accept: None,
            body: object.to_string().into_bytes(),
        };
        let answer = send(&addr, &req).await.expect("setup request");
        assert_eq!(answer.status, 201, "setup {}: {}", req.describe(), String::from_utf8_lossy(&answer.body));
    }

    let mut rng = StdRng::seed_from_u64(seed);
    let started = Instant::now();
    let mut statuses: BTreeMap<u16, usize> = BTreeMap::new();
    let mut broken = Vec::new();
    let mut misshapen = Vec::new();
    let mut sent = 0;
    for index in 0..count {
        if started.elapsed() > DEADLINE {
            let detail = format!("stopped after {index} of {count} requests");
            let kind = format!("fuzzing took longer than {DEADLINE:?}");
            broken.push((index, Req::get("-"), Violation { kind, detail }));
            break;
        }
        let req = request(&mut rng);
        sent += 1;
        match send(&addr, &req).await {
            Ok(answer) => {
                *statuses.entry(answer.status).or_default() += 1;
                if let Some(violation) = check(&req, &answer) {
                    if answer.status >= 500 {
                        broken.push((index, req, violation));
                    } else {
                        misshapen.push((index, req, violation));
                    }
                }
            }
            Err(e) => {
                let kind = e.split(':').next().unwrap_or("").to_owned();
                broken.push((index, req, Violation { kind, detail: e }));
                if let Some(status) = server.exited() {
                    let detail = format!("the server exited ({status})");
                    broken.push((index, Req::get("-"), Violation { kind: "exited".into(), detail }));
                    break;
                }
            }
        }
    }
    eprintln!("fuzz: seed {seed:#x}, {sent} requests in {:?}; statuses {statuses:?}", started.elapsed());

    // Still alive and answering.
    if let Some(status) = server.exited() {
        let detail = format!("the server exited ({status})");
        broken.push((sent, Req::get("-"), Violation { kind: "exited".into(), detail }));
    }
    for path in ["/version", "/apis/autoscaling/v2/horizontalpodautoscalers", "/apis"] {
        let req = Req::get(path);
        match send(&addr, &req).await {
            Ok(answer) if answer.status == 200 => {}
            Ok(answer) => {
                let detail = format!("{}: {}", answer.status, preview(&answer.body, 300));
                broken.push((sent, req, Violation { kind: "not 200 after fuzzing".into(), detail }));
            }
            Err(detail) => {
                broken.push((sent, req, Violation { kind: "no answer after fuzzing".into(), detail }));
            }
        }
    }
    Some(FuzzRun { seed, sent, broken, misshapen })
}
