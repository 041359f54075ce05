//! The `apiserver` binary as a child process on a free loopback port, on a storage
//! backend; SIGTERM (then SIGKILL) by PID when dropped.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The flags of a server whose objects go in any namespace.
const WITHOUT_NAMESPACE_LIFECYCLE: [&str; 2] = ["--disable-admission-plugins", "NamespaceLifecycle"];

/// A running server.
pub struct ServerProcess {
    child: Child,
    /// `http://127.0.0.1:PORT` (or https).
    pub url: String,
    /// `127.0.0.1:PORT`.
    pub addr: String,
    /// Everything it wrote on stderr.
    pub stderr: Arc<Mutex<String>>,
    /// Its data directory or etcd, stopped after it.
    held: Option<super::Held>,
}

impl ServerProcess {
    /// Starts `apiserver --listen 127.0.0.1:0 ARGS` and waits for its `listening on` line.
    pub fn start(args: &[&str]) -> ServerProcess {
        let mut child = Command::new(env!("CARGO_BIN_EXE_apiserver"))
            .args(["--listen", "127.0.0.1:0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("starting the apiserver binary");
        let stderr = Arc::new(Mutex::new(String::new()));
        let collected = Arc::clone(&stderr);
        let pipe = child.stderr.take().expect("piped stderr");
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines() {
                let Ok(line) = line else { break };
                let mut text = collected.lock().unwrap();
                text.push_str(&line);
                text.push('\n');
            }
        });
        let stdout = child.stdout.take().expect("piped stdout");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(url) = line.trim().strip_prefix("listening on ") {
                    let _ = tx.send(url.trim_end_matches('/').to_owned());
                }
            }
        });
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(url) => {
                let addr = url.split("://").nth(1).unwrap_or(&url).to_owned();
                ServerProcess { child, url, addr, stderr, held: None }
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("apiserver {args:?} did not print `listening on ...` within 30 s: {}", stderr.lock().unwrap());
            }
        }
    }

    /// The first line of stderr containing `needle`, waiting up to 10 s for it: the
    /// server may write a line after answering the request it is about.
    pub fn stderr_line(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let text = self.stderr.lock().unwrap().clone();
            if let Some(line) = text.lines().find(|line| line.contains(needle)) {
                return line.to_owned();
            }
            assert!(Instant::now() < deadline, "no stderr line containing {needle:?} within 10 s:\n{text}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// The exit status, once the process has exited.
    pub fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// [`ServerProcess::start`] without the namespace lifecycle: objects go in any
    /// namespace, for the tests of everything but namespaces, which name namespaces they
    /// never create.
    pub fn start_in_any_namespace(args: &[&str]) -> ServerProcess {
        ServerProcess::start(&[args, &WITHOUT_NAMESPACE_LIFECYCLE].concat())
    }

    /// [`ServerProcess::start`] on `backend`: in memory, on a data directory of its own,
    /// or on an etcd of its own; `None` (with a `SKIPPED` line) when there is no etcd.
    /// Without the namespace lifecycle ([`ServerProcess::start_in_any_namespace`]).
    pub fn start_on(backend: super::Backend, args: &[&str]) -> Option<ServerProcess> {
        let held = match backend {
            super::Backend::Memory => None,
            super::Backend::Embedded => Some(super::Held::Directory(tempfile::tempdir().expect("a data directory"))),
            super::Backend::Etcd => Some(super::Held::Etcd(super::etcd::Etcd::start(1, "a server on etcd")?)),
        };
        let backend_args = match &held {
            None => vec![],
            Some(super::Held::Directory(directory)) => {
                vec!["--data-dir".to_owned(), directory.path().display().to_string()]
            }
            Some(super::Held::Etcd(etcd)) => vec!["--etcd-servers".to_owned(), etcd.servers()],
        };
        let mut all: Vec<&str> = backend_args.iter().map(String::as_str).collect();
        all.extend_from_slice(args);
        let mut server = ServerProcess::start_in_any_namespace(&all);
        server.held = held;
        Some(server)
    }

    /// Sends `signal` and waits up to 5 s for the process to exit.
    fn signal(&mut self, signal: libc::c_int) -> Option<std::process::ExitStatus> {
        if let Ok(Some(status)) = self.child.try_wait() {
            return Some(status);
        }
        let pid = libc::pid_t::try_from(self.child.id()).expect("pid fits pid_t");
        // SAFETY: kill(2) with the pid of our own child process, not yet reaped.
        unsafe { libc::kill(pid, signal) };
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        None
    }

    /// SIGTERM: the graceful stop; the exit status.
    pub fn terminate(&mut self) -> Option<std::process::ExitStatus> {
        self.signal(libc::SIGTERM)
    }

    /// SIGKILL (`kill -9`): no chance to clean up.
    pub fn kill(&mut self) {
        self.signal(libc::SIGKILL);
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.terminate().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// An answer over HTTP/1.1.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// The header block, as received.
    pub head: String,
    pub body: String,
}

impl Reply {
    /// The body as JSON.
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

impl ServerProcess {
    /// One plain HTTP/1.1 request on its own connection, with a JSON body when given.
    pub async fn request(&self, method: &str, path: &str, body: Option<&serde_json::Value>) -> std::io::Result<Reply> {
        request(&self.addr, method, path, body).await
    }
}

/// One plain HTTP/1.1 request to `addr` on its own connection, with a JSON body when
/// given.
pub async fn request(addr: &str, method: &str, path: &str, body: Option<&serde_json::Value>) -> std::io::Result<Reply> {
    {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let body = body.map(|b| b.to_string()).unwrap_or_default();
        let mut stream = tokio::net::TcpStream::connect(addr).await?;
        let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
        if !body.is_empty() {
            text.push_str(&format!("Content-Type: application/json\r\nContent-Length: {}\r\n", body.len()));
        }
        text.push_str("\r\n");
        text.push_str(&body);
        stream.write_all(text.as_bytes()).await?;
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).await?;
        let raw = String::from_utf8_lossy(&raw).into_owned();
        let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((raw.as_str(), ""));
        let status = head.split(' ').nth(1).and_then(|code| code.parse().ok()).unwrap_or(0);
        Ok(Reply { status, head: head.to_owned(), body: body.to_owned() })
    }
}
