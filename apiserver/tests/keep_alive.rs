//! Keep-alive connections carry request after request, bodies or not, as the API server's
//! do: a body that the handler leaves unread (discovery, OpenAPI, `/version`, health
//! checks, `/metrics`, errors decided from the headers) is read and discarded before the
//! answer, so the next request on the connection is answered too; a body too large for
//! that, or one the client waits to be asked for (`Expect: 100-continue`), is answered with
//! `Connection: close` instead of a connection dropped without a word.
//!
//! The body of each request is sent a moment after its head, as clients that write the
//! two separately send it, so that a handler answering from the head alone answers before
//! the body has arrived.

mod harness;

use std::time::Duration;

use harness::process::ServerProcess;
use harness::{Api, Backend, CSRS, HPAS, backend_tests, hpa};
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Between a request's head and its body.
const BODY_DELAY: Duration = Duration::from_millis(10);
/// How long one answer may take.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// Rounds of every endpoint on one connection.
const ROUNDS: usize = 3;
/// The most of an unread body the server reads, as Go's server.
const DRAINED: usize = 256 * 1024;

const AGGREGATED: &str = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList";
const PROTOBUF_V2: &str = "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";

/// A request of the round: method, path, `Accept`, body, and the expected status.
struct Step {
    method: &'static str,
    path: String,
    accept: &'static str,
    body: Vec<u8>,
    status: u16,
}

/// A JSON body of about 500 bytes, nothing any endpoint expects.
fn filler() -> Vec<u8> {
    json!({"apiVersion": "v1", "kind": "Filler", "data": "x".repeat(480)}).to_string().into_bytes()
}

fn get(path: &str, status: u16) -> Step {
    Step { method: "GET", path: path.to_owned(), accept: "application/json", body: filler(), status }
}

/// What the generated router serves: resources, discovery, OpenAPI, `/version`, and the
/// answers to paths and methods no route serves.
fn api_steps(round: usize) -> Vec<Step> {
    let created = hpa(&format!("kept-{round}"), json!({})).to_string().into_bytes();
    vec![
        get(HPAS, 200),
        get(&format!("{HPAS}/missing"), 404),
        get(CSRS, 200),
        Step { method: "POST", path: HPAS.to_owned(), accept: "application/json", body: created, status: 201 },
        get(&format!("{HPAS}/kept-{round}"), 200),
        get("/api", 200),
        Step { accept: AGGREGATED, ..get("/api", 200) },
        get("/api/v1", 200),
        get("/apis", 200),
        Step { accept: AGGREGATED, ..get("/apis", 200) },
        get("/apis/autoscaling", 200),
        get("/apis/autoscaling/v2", 200),
        get("/openapi/v2", 200),
        Step { accept: PROTOBUF_V2, ..get("/openapi/v2", 200) },
        get("/openapi/v3", 200),
        get("/openapi/v3/apis/autoscaling/v2", 200),
        get("/version", 200),
        Step { method: "DELETE", ..get("/version", 405) },
        get("/no/such/path", 404),
    ]
}

/// What the binary serves besides: health checks and metrics.
fn operations_steps() -> Vec<Step> {
    vec![
        get("/healthz", 200),
        get("/livez", 200),
        get("/readyz", 200),
        get("/readyz/storage", 200),
        get("/livez/storage", 404),
        Step { method: "POST", ..get("/readyz", 405) },
        get("/metrics", 200),
    ]
}

/// One HTTP/1.1 connection, kept open across requests.
struct Connection {
    stream: TcpStream,
    addr: String,
    /// Read but not yet consumed.
    buffer: Vec<u8>,
}

/// An answer: its status, its header block, its body.
#[derive(Debug)]
struct Answer {
    status: u16,
    head: String,
    body: Vec<u8>,
}

impl Answer {
    /// Whether the server says it closes the connection.
    fn closes(&self) -> bool {
        self.head.lines().any(|line| {
            line.split_once(':').is_some_and(|(name, value)| {
                name.eq_ignore_ascii_case("connection") && value.trim().eq_ignore_ascii_case("close")
            })
        })
    }
}

impl Connection {
    async fn open(addr: &str) -> Connection {
        let stream = TcpStream::connect(addr).await.expect("connect");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        Connection { stream, addr: addr.to_owned(), buffer: Vec::new() }
    }

    /// Writes the head of `step` with `extra` header lines, and then its body, after
    /// [`BODY_DELAY`].
    async fn write(&mut self, step: &Step, extra: &str) -> std::io::Result<()> {
        let head = format!(
            "{} {} HTTP/1.1\r\nHost: {}\r\nAccept: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n{extra}\r\n",
            step.method,
            step.path,
            self.addr,
            step.accept,
            step.body.len()
        );
        self.stream.write_all(head.as_bytes()).await?;
        if !step.body.is_empty() {
            tokio::time::sleep(BODY_DELAY).await;
            self.stream.write_all(&step.body).await?;
        }
        Ok(())
    }

    /// Sends `step` and reads its answer.
    async fn send(&mut self, step: &Step) -> Result<Answer, String> {
        self.write(step, "").await.map_err(|e| format!("sending: {e}"))?;
        self.answer().await
    }

    /// Reads one answer (a body by `Content-Length` or chunked).
    async fn answer(&mut self) -> Result<Answer, String> {
        tokio::time::timeout(ANSWER_TIMEOUT, self.read_answer())
            .await
            .unwrap_or_else(|_| Err(format!("no answer within {ANSWER_TIMEOUT:?}")))
    }

    async fn read_answer(&mut self) -> Result<Answer, String> {
        let end = loop {
            if let Some(at) = self.buffer.windows(4).position(|w| w == b"\r\n\r\n") {
                break at;
            }
            self.fill().await?;
        };
        let head = String::from_utf8_lossy(&self.buffer[..end]).into_owned();
        self.buffer.drain(..end + 4);
        let status = head.split(' ').nth(1).and_then(|code| code.parse().ok()).ok_or("a status line")?;
        let header = |wanted: &str| {
            head.lines().skip(1).find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case(wanted).then(|| value.trim().to_ascii_lowercase())
            })
        };
        let body = if header("transfer-encoding").as_deref() == Some("chunked") {
            let mut body = Vec::new();
            loop {
                let line = self.line().await?;
                let size = usize::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16)
                    .map_err(|_| format!("a chunk size, not {line:?}"))?;
                let chunk = self.take(size + 2).await?;
                if size == 0 {
                    break body;
                }
                body.extend_from_slice(&chunk[..size]);
            }
        } else {
            let length = header("content-length").and_then(|v| v.parse().ok()).unwrap_or(0);
            self.take(length).await?
        };
        Ok(Answer { status, head, body })
    }

    async fn line(&mut self) -> Result<String, String> {
        loop {
            if let Some(at) = self.buffer.windows(2).position(|w| w == b"\r\n") {
                let line = String::from_utf8_lossy(&self.buffer[..at]).into_owned();
                self.buffer.drain(..at + 2);
                return Ok(line);
            }
            self.fill().await?;
        }
    }

    async fn take(&mut self, length: usize) -> Result<Vec<u8>, String> {
        while self.buffer.len() < length {
            self.fill().await?;
        }
        Ok(self.buffer.drain(..length).collect())
    }

    async fn fill(&mut self) -> Result<(), String> {
        let mut chunk = [0; 16 * 1024];
        match self.stream.read(&mut chunk).await {
            Ok(0) => Err("the server closed the connection".to_owned()),
            Ok(n) => {
                self.buffer.extend_from_slice(&chunk[..n]);
                Ok(())
            }
            Err(e) => Err(format!("reading: {e}")),
        }
    }

    /// Whether the server closes the connection (end of stream, or reset) within a second,
    /// sending nothing more.
    async fn closed_by_server(&mut self) -> bool {
        let mut chunk = [0; 1024];
        matches!(tokio::time::timeout(Duration::from_secs(1), self.stream.read(&mut chunk)).await, Ok(Ok(0) | Err(_)))
    }
}

/// Sends `steps` `ROUNDS` times on one connection to `addr`; every request must be
/// answered with its status, and none with `Connection: close`.
async fn every_request_answered(addr: &str, steps: impl Fn(usize) -> Vec<Step>) {
    let mut connection = Connection::open(addr).await;
    let mut answered = 0;
    for round in 0..ROUNDS {
        for step in steps(round) {
            let what = format!("{} {} (Accept: {})", step.method, step.path, step.accept);
            let answer = connection
                .send(&step)
                .await
                .unwrap_or_else(|e| panic!("round {round}: {what} after {answered} answers on this connection: {e}"));
            let body = String::from_utf8_lossy(&answer.body);
            assert_eq!(answer.status, step.status, "round {round}: {what}: {}\n{body}", answer.head);
            assert!(!answer.closes(), "round {round}: {what} closes the connection:\n{}", answer.head);
            answered += 1;
        }
    }
}

/// The generated router alone, served in process on the test's backend.
async fn serve_generated_router() -> (Api, String) {
    let api = Api::new();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a free port");
    let addr = listener.local_addr().expect("an address").to_string();
    let router = generated::server::router(
        kube_apigen::dynamic::Dynamic(api.store.clone()),
        kube_apigen::http::Config::default(),
    );
    tokio::spawn(async move { kube_apigen::axum::serve(listener, router).await });
    (api, addr)
}

backend_tests! {
    /// The binary: the generated router inside the health checks, `/metrics` and limits.
    async fn the_binary_answers_every_request_on_a_kept_connection() {
        let server = ServerProcess::start_on(Backend::current(), &[]).expect("a server on the backend");
        let steps = |round| api_steps(round).into_iter().chain(operations_steps()).collect();
        every_request_answered(&server.addr, steps).await;
    }

    /// The generated router served as it is, without what the binary adds around it.
    async fn the_generated_router_answers_every_request_on_a_kept_connection() {
        let (_api, addr) = serve_generated_router().await;
        every_request_answered(&addr, api_steps).await;
    }
}

/// A body larger than what is read of an unread body (256 KiB, as Go's server) is left:
/// the answer says `Connection: close`, and the server then closes the connection.
#[tokio::test]
async fn a_large_unread_body_closes_the_connection_after_the_answer() {
    let (_api, addr) = serve_generated_router().await;
    let mut connection = Connection::open(&addr).await;
    let length = DRAINED + 1;
    // The head declares the body; none of it is sent, so that none is left unread when
    // the server closes (which would reset the connection before the answer is read).
    let head = format!(
        "GET /version HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
    );
    connection.stream.write_all(head.as_bytes()).await.unwrap();
    let answer = connection.answer().await.expect("an answer");
    assert_eq!(answer.status, 200, "{}", answer.head);
    assert!(answer.closes(), "no Connection: close:\n{}", answer.head);
    assert!(connection.closed_by_server().await, "the connection stays open");

    // Within the limit, the same request keeps the connection.
    let mut connection = Connection::open(&addr).await;
    let step = Step { body: vec![b' '; DRAINED], ..get("/version", 200) };
    for _ in 0..2 {
        let answer = connection.send(&step).await.expect("an answer");
        assert_eq!(answer.status, 200, "{}", answer.head);
        assert!(!answer.closes(), "{}", answer.head);
    }
}

/// A chunked body (no length known up front) is read up to the limit, then left with
/// `Connection: close`; a short one keeps the connection.
#[tokio::test]
async fn a_chunked_unread_body_is_read_up_to_the_limit() {
    let (_api, addr) = serve_generated_router().await;
    let chunked = |size: usize| {
        let chunk = vec![b' '; 16 * 1024];
        let mut body = Vec::new();
        for _ in 0..size.div_ceil(chunk.len()) {
            body.extend_from_slice(format!("{:x}\r\n", chunk.len()).as_bytes());
            body.extend_from_slice(&chunk);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(b"0\r\n\r\n");
        body
    };
    let head = format!("GET /version HTTP/1.1\r\nHost: {addr}\r\nTransfer-Encoding: chunked\r\n\r\n");

    let mut connection = Connection::open(&addr).await;
    for _ in 0..2 {
        connection.stream.write_all(head.as_bytes()).await.unwrap();
        tokio::time::sleep(BODY_DELAY).await;
        connection.stream.write_all(&chunked(32 * 1024)).await.unwrap();
        let answer = connection.answer().await.expect("an answer");
        assert_eq!(answer.status, 200, "{}", answer.head);
        assert!(!answer.closes(), "{}", answer.head);
    }

    let mut connection = Connection::open(&addr).await;
    connection.stream.write_all(head.as_bytes()).await.unwrap();
    // The limit and one byte more, and no end: the server reads every byte sent and stops
    // (a byte left unread would make it reset the connection, maybe before the answer is
    // read).
    let mut body = chunked(DRAINED);
    body.truncate(body.len() - b"0\r\n\r\n".len());
    body.extend_from_slice(b"1\r\n ");
    connection.stream.write_all(&body).await.unwrap();
    let answer = connection.answer().await.expect("an answer");
    assert_eq!(answer.status, 200, "{}", answer.head);
    assert!(answer.closes(), "no Connection: close:\n{}", answer.head);
}

/// A client waiting for `100 Continue` before it sends its body is not asked for a body
/// the handler does not read: the answer comes at once, with `Connection: close`. One
/// whose body is read gets its `100 Continue`, and keeps the connection.
#[tokio::test]
async fn expect_continue_is_answered_without_asking_for_an_unread_body() {
    let (_api, addr) = serve_generated_router().await;
    let mut connection = Connection::open(&addr).await;
    let step = get("/version", 200);
    let head = format!(
        "GET /version HTTP/1.1\r\nHost: {addr}\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
        step.body.len()
    );
    connection.stream.write_all(head.as_bytes()).await.unwrap();
    let answer = connection.answer().await.expect("an answer without the body");
    assert_eq!(answer.status, 200, "{}", answer.head);
    assert!(answer.closes(), "no Connection: close:\n{}", answer.head);

    let mut connection = Connection::open(&addr).await;
    let body = hpa("continued", json!({})).to_string();
    let head = format!(
        "POST {HPAS} HTTP/1.1\r\nHost: {addr}\r\nExpect: 100-continue\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    connection.stream.write_all(head.as_bytes()).await.unwrap();
    let interim = connection.answer().await.expect("100 Continue");
    assert_eq!(interim.status, 100, "{}", interim.head);
    connection.stream.write_all(body.as_bytes()).await.unwrap();
    let answer = connection.answer().await.expect("an answer");
    assert_eq!(answer.status, 201, "{}", answer.head);
    assert!(!answer.closes(), "{}", answer.head);
    let answer = connection.send(&get("/version", 200)).await.expect("the next request answered");
    assert_eq!(answer.status, 200, "{}", answer.head);
}
