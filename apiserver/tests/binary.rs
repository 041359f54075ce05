//! The `apiserver` binary over TCP: its command line, the `listening on` line, bearer
//! tokens (401, and the user a CSR records), and graceful shutdown on SIGTERM with an open
//! watch (which ends with the terminating chunk; the process exits 0); over TLS, client
//! certificates and an authenticating front proxy's headers.

#[path = "harness/certificates.rs"]
mod certificates;

use std::io::{BufRead, BufReader, Write as _};
use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const BIN: &str = env!("CARGO_BIN_EXE_apiserver");

/// A running server, killed when dropped.
struct Server {
    child: Child,
    address: SocketAddr,
}

impl Server {
    fn start(args: &[&str]) -> Server {
        let mut child = Command::new(BIN)
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().unwrap();
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line).expect("a first line");
        let address = line
            .trim()
            .strip_prefix("listening on http://")
            .unwrap_or_else(|| panic!("unexpected first line {line:?}"))
            .parse()
            .expect("an address");
        Server { child, address }
    }

    fn terminate(&self) {
        // SAFETY: sending a signal to our own child process.
        let result = unsafe { libc::kill(self.child.id() as libc::pid_t, libc::SIGTERM) };
        assert_eq!(result, 0, "kill -TERM");
    }

    /// Waits for the process to exit; its exit code.
    fn wait(&mut self, limit: Duration) -> Option<i32> {
        let deadline = std::time::Instant::now() + limit;
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            assert!(std::time::Instant::now() < deadline, "the server did not exit within {limit:?}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

fn request_text(method: &str, path: &str, headers: &[(&str, &str)], body: Option<&Value>) -> String {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() {
        text.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
    }
    text.push_str("\r\n");
    text.push_str(&body);
    text
}

/// Decodes a chunked body; `complete` tells whether the terminating chunk was there.
fn dechunk(mut raw: &[u8]) -> (Vec<u8>, bool) {
    let mut out = Vec::new();
    loop {
        let Some(end) = raw.windows(2).position(|w| w == b"\r\n") else {
            return (out, false);
        };
        let size = usize::from_str_radix(std::str::from_utf8(&raw[..end]).unwrap().trim(), 16).unwrap();
        raw = &raw[end + 2..];
        if size == 0 {
            return (out, raw.starts_with(b"\r\n"));
        }
        if raw.len() < size + 2 {
            out.extend_from_slice(raw);
            return (out, false);
        }
        out.extend_from_slice(&raw[..size]);
        raw = &raw[size + 2..];
    }
}

/// One request on its own connection; the status code and the JSON body.
async fn http(
    address: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> (u16, Value) {
    let mut stream = TcpStream::connect(address).await.unwrap();
    stream.write_all(request_text(method, path, headers, body).as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).await.unwrap();
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a header block");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        body = dechunk(&body).0;
    }
    let code = head.split(' ').nth(1).unwrap().parse().unwrap();
    let value = if body.is_empty() { Value::Null } else { serde_json::from_slice(&body).unwrap() };
    (code, value)
}

#[test]
fn help_and_bad_arguments() {
    let output = Command::new(BIN).arg("--help").output().unwrap();
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    for flag in [
        "--listen",
        "--token-file",
        "--data-dir",
        "--max-body-bytes",
        "--watch-history",
        "--bookmark-interval",
        "--request-timeout",
        "--max-requests-inflight",
        "[env: APISERVER_LISTEN=]",
    ] {
        assert!(text.contains(flag), "{flag} in --help");
    }
    let output = Command::new(BIN).arg("--version").output().unwrap();
    assert!(output.status.success());
    assert_eq!(String::from_utf8(output.stdout).unwrap(), format!("apiserver {}\n", env!("CARGO_PKG_VERSION")));
    let output = Command::new(BIN).arg("--bogus").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unexpected argument '--bogus'"));
    let output = Command::new(BIN).args(["--request-timeout", "soon"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("\"soon\" is not a duration"));
    // The environment variable of a flag stands in for it.
    let output = Command::new(BIN).env("APISERVER_LISTEN", "not-an-address").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("not-an-address"));
    let output = Command::new(BIN).args(["--token-file", "/nonexistent/tokens.csv"]).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
}

#[tokio::test]
async fn serves_discovery_and_resources() {
    let server = Server::start(&[]);
    let (code, version) = http(server.address, "GET", "/version", &[], None).await;
    assert_eq!(code, 200);
    assert_eq!(version["major"], "1");
    let (code, created) = http(
        server.address,
        "POST",
        "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
        &[("User-Agent", "kubectl/v1.32.0 (linux/amd64)")],
        Some(&json!({
            "metadata": {"name": "web"},
            "spec": {"scaleTargetRef": {"kind": "Deployment", "name": "web"}, "maxReplicas": 2}
        })),
    )
    .await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["metadata"]["managedFields"][0]["manager"], "kubectl");
    let (code, read) =
        http(server.address, "GET", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/web", &[], None)
            .await;
    assert_eq!(code, 200);
    assert_eq!(read, created);
}

#[tokio::test]
async fn max_body_bytes_is_configurable() {
    let server = Server::start(&["--max-body-bytes", "64"]);
    let (code, body) = http(
        server.address,
        "POST",
        "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers",
        &[],
        Some(&json!({"metadata": {"name": "web"}, "spec": {"maxReplicas": 2, "scaleTargetRef": {"kind": "D", "name": "d"}}})),
    )
    .await;
    assert_eq!(code, 413);
    assert_eq!(body["message"], "Request entity too large: limit is 64");
}

#[tokio::test]
async fn bearer_tokens_authenticate() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    writeln!(file, "token-alice,alice,uid-alice,\"devs,testers\"").unwrap();
    writeln!(file, "token-bob,bob,uid-bob").unwrap();
    let server = Server::start(&["--token-file", file.path().to_str().unwrap()]);
    let csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let unauthorized = json!({
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
        "message": "Unauthorized", "reason": "Unauthorized", "code": 401
    });
    assert_eq!(http(server.address, "GET", csrs, &[], None).await, (401, unauthorized.clone()));
    assert_eq!(
        http(server.address, "GET", csrs, &[("Authorization", "Bearer nope")], None).await,
        (401, unauthorized.clone())
    );
    assert_eq!(
        http(server.address, "GET", csrs, &[("Authorization", "Basic dG9rZW4tYWxpY2U6")], None).await,
        (401, unauthorized)
    );
    let request = json!({
        "metadata": {"name": "alice-req"},
        "spec": {"request": "cmVxdWVzdA==", "signerName": "example.com/signer", "username": "root"}
    });
    let (code, created) =
        http(server.address, "POST", csrs, &[("Authorization", "Bearer token-alice")], Some(&request)).await;
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"]["username"], "alice");
    assert_eq!(created["spec"]["uid"], "uid-alice");
    assert_eq!(created["spec"]["groups"], json!(["devs", "testers", "system:authenticated"]));
    let (code, list) = http(server.address, "GET", csrs, &[("Authorization", "bearer token-bob")], None).await;
    assert_eq!(code, 200);
    assert_eq!(list["items"][0]["spec"]["username"], "alice");
}

#[tokio::test]
async fn sigterm_ends_open_watches_and_exits_zero() {
    let mut server = Server::start(&["--bookmark-interval", "0.2"]);
    let hpas = "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers";
    let (code, _) = http(
        server.address,
        "POST",
        hpas,
        &[],
        Some(&json!({"metadata": {"name": "web"}, "spec": {"maxReplicas": 2, "scaleTargetRef": {"kind": "D", "name": "d"}}})),
    )
    .await;
    assert_eq!(code, 201);
    let mut watch = TcpStream::connect(server.address).await.unwrap();
    let path = format!("{hpas}?watch=true&allowWatchBookmarks=true");
    watch.write_all(request_text("GET", &path, &[], None).as_bytes()).await.unwrap();
    // Read until the first event has arrived.
    let mut raw = Vec::new();
    let mut chunk = [0u8; 4096];
    while !String::from_utf8_lossy(&raw).contains("\"ADDED\"") {
        let n = tokio::time::timeout(Duration::from_secs(5), watch.read(&mut chunk)).await.unwrap().unwrap();
        assert!(n > 0, "the watch ended early");
        raw.extend_from_slice(&chunk[..n]);
    }
    server.terminate();
    tokio::time::timeout(Duration::from_secs(10), watch.read_to_end(&mut raw)).await.unwrap().unwrap();
    let text = String::from_utf8_lossy(&raw).to_string();
    assert!(text.starts_with("HTTP/1.1 200 OK\r\n"), "{text}");
    assert!(text.to_ascii_lowercase().contains("content-type: application/json;stream=watch"), "{text}");
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let (body, complete) = dechunk(&raw[split + 4..]);
    assert!(complete, "the watch ends with the terminating chunk: {text}");
    let lines: Vec<Value> =
        String::from_utf8(body).unwrap().lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    assert_eq!(lines[0]["type"], "ADDED");
    assert!(lines.iter().skip(1).all(|e| e["type"] == "BOOKMARK"), "{lines:?}");
    assert_eq!(server.wait(Duration::from_secs(10)), Some(0));
}

/// One request over TLS, trusting `roots` and presenting `client`'s certificate if
/// given; the status code and JSON body.
async fn https(
    address: SocketAddr,
    roots: tokio_rustls::rustls::RootCertStore,
    client: Option<&certificates::Client>,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    use tokio_rustls::rustls::ClientConfig;
    use tokio_rustls::rustls::pki_types::pem::PemObject;
    use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
    let provider = std::sync::Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots);
    let config = match client {
        Some(client) => {
            let chain = vec![CertificateDer::from_pem_slice(client.certificate_pem.as_bytes()).unwrap()];
            let key = PrivateKeyDer::from_pem_slice(client.key_pem.as_bytes()).unwrap();
            config.with_client_auth_cert(chain, key).unwrap()
        }
        None => config.with_no_client_auth(),
    };
    let connector = tokio_rustls::TlsConnector::from(std::sync::Arc::new(config));
    let tcp = TcpStream::connect(address).await.unwrap();
    let mut tls =
        connector.connect(ServerName::try_from("localhost").unwrap(), tcp).await.map_err(|e| e.to_string())?;
    tls.write_all(request_text(method, path, headers, body).as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    // A peer closing without close_notify is an error for rustls; the bytes are there.
    let _ = tls.read_to_end(&mut raw).await;
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a header block");
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let code = head.split(' ').nth(1).unwrap().parse().unwrap();
    let body = &raw[split + 4..];
    Ok((code, if body.is_empty() { Value::Null } else { serde_json::from_slice(body).unwrap() }))
}

/// A server on HTTPS with `args`, trusted by the returned roots, killed when dropped.
fn start_https(dir: &std::path::Path, args: &[&str]) -> (Server, tokio_rustls::rustls::RootCertStore) {
    let generated = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    let (cert, key) = (dir.join("tls.crt"), dir.join("tls.key"));
    std::fs::write(&cert, generated.cert.pem()).unwrap();
    std::fs::write(&key, generated.signing_key.serialize_pem()).unwrap();
    let mut roots = tokio_rustls::rustls::RootCertStore::empty();
    roots.add(generated.cert.der().clone()).unwrap();
    let mut child = Command::new(BIN)
        .args(["--listen", "127.0.0.1:0"])
        .args(["--tls-cert-file", cert.to_str().unwrap(), "--tls-private-key-file", key.to_str().unwrap()])
        .args(args)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let address: SocketAddr = line.trim().strip_prefix("listening on https://").expect(&line).parse().unwrap();
    (Server { child, address }, roots)
}

#[tokio::test]
async fn serves_https_with_given_certificates_and_checks_tokens() {
    let dir = tempfile::tempdir().unwrap();
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, "token-alice,alice,uid-alice\n").unwrap();
    let (server, roots) = start_https(dir.path(), &["--token-file", tokens.to_str().unwrap()]);

    let csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests";
    let (code, body) = https(server.address, roots.clone(), None, "GET", csrs, &[], None).await.unwrap();
    assert_eq!((code, body["reason"].as_str()), (401, Some("Unauthorized")));
    let request =
        json!({"metadata": {"name": "r"}, "spec": {"request": "cmVxdWVzdA==", "signerName": "example.com/s"}});
    let (code, created) =
        https(server.address, roots, None, "POST", csrs, &[("Authorization", "Bearer token-alice")], Some(&request))
            .await
            .unwrap();
    assert_eq!(code, 201, "{created}");
    assert_eq!(created["spec"]["username"], "alice");
}

#[tokio::test]
async fn client_certificates_and_a_front_proxy_authenticate() {
    let dir = tempfile::tempdir().unwrap();
    let (clients, front_proxy, other) = (
        certificates::Ca::new(dir.path(), "clients"),
        certificates::Ca::new(dir.path(), "front-proxy"),
        certificates::Ca::new(dir.path(), "other"),
    );
    let alice = clients.client("alice", Some("devs"));
    let aggregator = front_proxy.client("aggregator", None);
    let not_allowed = front_proxy.client("someone-else", None);
    let stranger = other.client("alice", Some("system:masters"));
    let tokens = dir.path().join("tokens.csv");
    std::fs::write(&tokens, "token-bob,bob,uid-bob\n").unwrap();
    let path = |file: &std::path::Path| file.to_str().unwrap().to_owned();
    let (client_ca, proxy_ca, token_file) =
        (path(&clients.certificate_file), path(&front_proxy.certificate_file), path(&tokens));
    let (server, roots) = start_https(
        dir.path(),
        &[
            "--client-ca-file",
            &client_ca,
            "--requestheader-client-ca-file",
            &proxy_ca,
            "--requestheader-allowed-names",
            "aggregator",
            "--token-file",
            &token_file,
        ],
    );
    // Who the server takes the caller for: `kubectl auth whoami`'s SelfSubjectReview.
    let whoami = async |client: Option<&certificates::Client>, headers: &[(&str, &str)]| {
        let review = json!({"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"});
        let reviews = "/apis/authentication.k8s.io/v1/selfsubjectreviews";
        let (code, body) =
            https(server.address, roots.clone(), client, "POST", reviews, headers, Some(&review)).await.unwrap();
        match code {
            201 => body["status"]["userInfo"].clone(),
            _ => json!({"code": code, "message": body["message"]}),
        }
    };
    let unauthorized = json!({"code": 401, "message": "Unauthorized"});

    let user = json!({"username": "alice", "groups": ["devs", "system:authenticated"]});
    assert_eq!(whoami(Some(&alice), &[]).await, user, "CN is the user, O the groups");
    assert_eq!(whoami(Some(&stranger), &[]).await, unauthorized, "a certificate of another CA");
    let bob = json!({"username": "bob", "uid": "uid-bob", "groups": ["system:authenticated"]});
    let token = ("Authorization", "Bearer token-bob");
    assert_eq!(whoami(Some(&stranger), &[token]).await, bob, "the token, beside a certificate of another CA");

    let proxied = [
        ("X-Remote-User", "carol"),
        ("X-Remote-Group", "ops"),
        ("X-Remote-Group", "oncall"),
        ("X-Remote-Extra-Acme.com%2FProject", "apollo"),
    ];
    let carol = json!({
        "username": "carol",
        "groups": ["ops", "oncall", "system:authenticated"],
        "extra": {"acme.com/project": ["apollo"]}
    });
    assert_eq!(whoami(Some(&aggregator), &proxied).await, carol, "the front proxy's headers");
    assert_eq!(whoami(Some(&not_allowed), &proxied).await, unauthorized, "a proxy name not allowed");
    assert_eq!(whoami(Some(&alice), &proxied).await, user, "the headers over another certificate: ignored");
    let mut with_token = proxied.to_vec();
    with_token.push(token);
    assert_eq!(whoami(None, &with_token).await, bob, "the headers without a certificate: ignored");
    assert_eq!(whoami(None, &proxied).await, unauthorized, "the headers alone authenticate nobody");
}

#[tokio::test]
async fn serves_https_with_a_self_signed_certificate() {
    if cfg!(not(feature = "tls-self-signed")) {
        eprintln!("SKIPPED: --tls-self-signed needs the `tls-self-signed` feature");
        return;
    }
    let mut child = Command::new(BIN)
        .args(["--listen", "127.0.0.1:0", "--tls-self-signed"])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let address: SocketAddr = line.trim().strip_prefix("listening on https://").expect(&line).parse().unwrap();
    let server = Server { child, address };
    // The certificate is nobody's: a verifying client refuses it, which shows TLS is spoken.
    let refused =
        https(server.address, tokio_rustls::rustls::RootCertStore::empty(), None, "GET", "/version", &[], None).await;
    let error = refused.expect_err("an unknown issuer");
    assert!(error.contains("UnknownIssuer") || error.contains("unknown issuer"), "{error}");
    let output = Command::new(BIN).args(["--tls-cert-file", "x.crt"]).output().unwrap();
    assert_eq!(output.status.code(), Some(2));
}
