//! etcd for tests: a single server or a cluster of members on free loopback ports, each
//! with a data directory in a temporary folder; every member is killed (by PID) when the
//! cluster is dropped. The etcd binary is `$ETCD`, else `etcd` on the PATH (Debian's
//! `etcd-server`); without one, [`Etcd::start`] prints a `SKIPPED` line and answers
//! `None`.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a member may take to answer `/health` after it starts.
const STARTUP_TIMEOUT: Duration = Duration::from_secs(30);

struct Member {
    arguments: Vec<String>,
    client_url: String,
    child: Option<Child>,
}

/// A running etcd cluster.
pub struct Etcd {
    binary: PathBuf,
    members: Vec<Member>,
    _directory: tempfile::TempDir,
}

/// The etcd binary, if there is one.
pub fn binary() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("ETCD") {
        return Some(PathBuf::from(path));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join("etcd")).find(|candidate| candidate.is_file())
}

/// A loopback port nobody listens on now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).expect("a free port").port()
}

impl Etcd {
    /// Starts a cluster of `size` members and waits until each answers; `None` (with a
    /// `SKIPPED` line naming `test`) when there is no etcd binary.
    pub fn start(size: usize, test: &str) -> Option<Etcd> {
        let Some(binary) = binary() else {
            eprintln!("SKIPPED: {test}: no etcd binary (install Debian's etcd-server, or set ETCD)");
            return None;
        };
        let directory = tempfile::tempdir().expect("a temporary folder for etcd");
        let ports: Vec<(u16, u16)> = (0..size).map(|_| (free_port(), free_port())).collect();
        let cluster = ports
            .iter()
            .enumerate()
            .map(|(i, (_, peer))| format!("m{i}=http://127.0.0.1:{peer}"))
            .collect::<Vec<_>>()
            .join(",");
        let members = ports
            .iter()
            .enumerate()
            .map(|(i, (client, peer))| {
                let client_url = format!("http://127.0.0.1:{client}");
                let peer_url = format!("http://127.0.0.1:{peer}");
                let data = directory.path().join(format!("m{i}"));
                let arguments = vec![
                    format!("--name=m{i}"),
                    format!("--data-dir={}", data.display()),
                    format!("--listen-client-urls={client_url}"),
                    format!("--advertise-client-urls={client_url}"),
                    format!("--listen-peer-urls={peer_url}"),
                    format!("--initial-advertise-peer-urls={peer_url}"),
                    format!("--initial-cluster={cluster}"),
                    "--initial-cluster-state=new".to_owned(),
                    "--heartbeat-interval=50".to_owned(),
                    "--election-timeout=500".to_owned(),
                    "--logger=zap".to_owned(),
                    "--log-level=error".to_owned(),
                ];
                Member { arguments, client_url, child: None }
            })
            .collect();
        let mut etcd = Etcd { binary, members, _directory: directory };
        for i in 0..size {
            etcd.spawn(i);
        }
        for i in 0..size {
            etcd.wait_healthy(i);
        }
        Some(etcd)
    }

    fn spawn(&mut self, member: usize) {
        let child = Command::new(&self.binary)
            .args(&self.members[member].arguments)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.binary.display()));
        self.members[member].child = Some(child);
    }

    /// Waits until `member` says it is healthy (it has a leader).
    pub fn wait_healthy(&self, member: usize) {
        let url = &self.members[member].client_url;
        let address = url.trim_start_matches("http://");
        let deadline = Instant::now() + STARTUP_TIMEOUT;
        loop {
            let healthy = TcpStream::connect(address)
                .and_then(|mut stream| {
                    stream.set_read_timeout(Some(Duration::from_secs(2)))?;
                    write!(stream, "GET /health HTTP/1.0\r\nHost: {address}\r\n\r\n")?;
                    let mut answer = String::new();
                    stream.read_to_string(&mut answer)?;
                    Ok(answer.contains("\"health\":\"true\""))
                })
                .unwrap_or(false);
            if healthy {
                return;
            }
            assert!(Instant::now() < deadline, "etcd member {member} ({url}) not healthy within {STARTUP_TIMEOUT:?}");
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The process ids of the running members.
    pub fn pids(&self) -> Vec<u32> {
        self.members.iter().filter_map(|m| m.child.as_ref()).map(Child::id).collect()
    }

    /// The client URLs, as `--etcd-servers` takes them.
    pub fn servers(&self) -> String {
        self.members.iter().map(|m| m.client_url.as_str()).collect::<Vec<_>>().join(",")
    }

    /// The client URLs.
    pub fn urls(&self) -> Vec<String> {
        self.members.iter().map(|m| m.client_url.clone()).collect()
    }

    /// Kills `member` (SIGKILL), as a crash or a lost machine.
    pub fn stop(&mut self, member: usize) {
        if let Some(mut child) = self.members[member].child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts a stopped `member` again on its data directory.
    pub fn restart(&mut self, member: usize) {
        assert!(self.members[member].child.is_none(), "member {member} is running");
        self.spawn(member);
    }
}

impl Drop for Etcd {
    fn drop(&mut self) {
        for member in 0..self.members.len() {
            self.stop(member);
        }
    }
}
