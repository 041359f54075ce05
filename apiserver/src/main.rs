//! `apiserver`: serves every resource of the generated crate, in memory, in a data
//! directory or in etcd.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::{ArgGroup, Parser};
use kube_apigen::auth::TokenFile;
use kube_apigen::http::DEFAULT_MAX_BODY_BYTES;
use kube_apigen_registry::certificates::{ClientCertificates, RequestHeader, RequestHeaderOptions};
use kube_apigen_registry::{AuthorizationMode, shutdown_signal, tls};

/// The allocator of the binary (the library leaves the choice to its users).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// A Kubernetes-style API server for every resource of specs/.
#[derive(Parser, Debug)]
#[command(
    name = "apiserver",
    version,
    after_help = "Every option can also be given as an environment variable (shown in brackets).\n\
                  SIGTERM or Ctrl-C stops the server gracefully: open watches end, requests in flight \
                  finish, and it exits 0."
)]
#[command(group(ArgGroup::new("tls").args(["tls_cert_file", "tls_self_signed"])))]
struct Args {
    /// Address to listen on; port 0 picks a free port. Once ready, the server prints
    /// `listening on http://ADDR` (or https) on stdout.
    #[arg(long, env = "APISERVER_LISTEN", default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Static bearer tokens, one CSV record a line: token,user,uid[,"group1,group2"].
    /// Requests then need `Authorization: Bearer <token>` (else 401). Without it, every
    /// caller is an anonymous administrator.
    #[arg(long, env = "APISERVER_TOKEN_FILE", value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Authenticate clients by certificate: one that verifies against a CA of this PEM
    /// file is the user of its subject's common name, in the groups of its organizations.
    /// Needs HTTPS. With tokens too, either one authenticates.
    #[arg(long, env = "APISERVER_CLIENT_CA_FILE", value_name = "FILE", requires = "tls")]
    client_ca_file: Option<PathBuf>,
    /// Trust an authenticating front proxy (an aggregator): a request over a client
    /// certificate of a CA of this PEM file names its user in the --requestheader-* headers.
    /// The same headers without such a certificate are ignored. Needs HTTPS.
    #[arg(long, env = "APISERVER_REQUESTHEADER_CLIENT_CA_FILE", value_name = "FILE", requires = "tls")]
    requestheader_client_ca_file: Option<PathBuf>,
    /// Common names the front proxy's certificate may have (empty: any its CA signed).
    #[arg(long, value_name = "NAMES", value_delimiter = ',', requires = "requestheader_client_ca_file")]
    requestheader_allowed_names: Vec<String>,
    /// Headers naming the user, the first one set wins.
    #[arg(long, value_name = "HEADERS", value_delimiter = ',', default_value = "X-Remote-User")]
    requestheader_username_headers: Vec<String>,
    /// Headers naming the user's groups.
    #[arg(long, value_name = "HEADERS", value_delimiter = ',', default_value = "X-Remote-Group")]
    requestheader_group_headers: Vec<String>,
    /// Prefixes of headers carrying the user's extra attributes.
    #[arg(long, value_name = "PREFIXES", value_delimiter = ',', default_value = "X-Remote-Extra-")]
    requestheader_extra_headers_prefix: Vec<String>,
    /// The authorizers every request is asked of, in order: AlwaysAllow (everything is
    /// allowed) and RBAC (the Roles, ClusterRoles and bindings of
    /// rbac.authorization.k8s.io/v1; members of system:masters may do everything).
    #[arg(
        long,
        env = "APISERVER_AUTHORIZATION_MODE",
        value_name = "MODES",
        value_delimiter = ',',
        default_value = "AlwaysAllow"
    )]
    authorization_mode: Vec<AuthorizationMode>,
    /// Admission plugins to turn off; the one there is: NamespaceLifecycle (creates
    /// refused in namespaces that are missing or being deleted, and the system namespaces
    /// default, kube-system, kube-public and kube-node-lease)
    #[arg(long, env = "APISERVER_DISABLE_ADMISSION_PLUGINS", value_name = "PLUGINS", value_delimiter = ',')]
    disable_admission_plugins: Vec<AdmissionPlugin>,
    /// Serve HTTPS (HTTP/2 and HTTP/1.1) with this PEM certificate (chain)...
    #[arg(long, env = "APISERVER_TLS_CERT_FILE", value_name = "FILE", requires = "tls_private_key_file")]
    tls_cert_file: Option<PathBuf>,
    /// ...and this PEM private key.
    #[arg(long, env = "APISERVER_TLS_PRIVATE_KEY_FILE", value_name = "FILE", requires = "tls_cert_file")]
    tls_private_key_file: Option<PathBuf>,
    /// Serve HTTPS with a self-signed certificate for localhost made at startup
    /// (kubeconfig: insecure-skip-tls-verify: true). kubectl sends bearer tokens only over
    /// HTTPS.
    #[arg(long, env = "APISERVER_TLS_SELF_SIGNED", conflicts_with = "tls_cert_file")]
    tls_self_signed: bool,
    /// Keep the objects in this directory (an embedded database, created if missing): a
    /// write is answered once it is on disk, and a restart keeps everything. Without it,
    /// objects are kept in memory only.
    #[arg(long, env = "APISERVER_DATA_DIR", value_name = "DIR", conflicts_with = "etcd_servers")]
    data_dir: Option<PathBuf>,
    /// Keep the objects in etcd (v3 API), at these URLs (http://127.0.0.1:2379,...).
    /// Several servers on one etcd serve one API: resourceVersions are etcd's revisions.
    #[arg(long, env = "APISERVER_ETCD_SERVERS", value_name = "URLS", value_delimiter = ',')]
    etcd_servers: Vec<String>,
    /// The prefix of every key in etcd.
    #[arg(long, env = "APISERVER_ETCD_PREFIX", value_name = "PREFIX", default_value = "/registry")]
    etcd_prefix: String,
    /// How often etcd's history is compacted, keeping one interval of it (watches and
    /// continue tokens older than that get 410 Expired). 0: never.
    #[arg(long, env = "APISERVER_ETCD_COMPACTION_INTERVAL", value_name = "DURATION", default_value = "5m", value_parser = parse_interval)]
    etcd_compaction_interval: Duration,
    /// Largest request body accepted, in bytes.
    #[arg(long, env = "APISERVER_MAX_BODY_BYTES", value_name = "N", default_value_t = DEFAULT_MAX_BODY_BYTES)]
    max_body_bytes: usize,
    /// Changes kept in memory for watches from an old resourceVersion, list snapshots and
    /// continue tokens.
    #[arg(long, env = "APISERVER_WATCH_HISTORY", value_name = "N", default_value_t = 1000)]
    watch_history: usize,
    /// Period of BOOKMARK events on watches that allow them (90s, 1m, 500ms; a bare number
    /// is seconds).
    #[arg(long, env = "APISERVER_BOOKMARK_INTERVAL", value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    bookmark_interval: Duration,
    /// How long a request other than a watch may take before it is answered 504.
    #[arg(long, env = "APISERVER_REQUEST_TIMEOUT", value_name = "DURATION", default_value = "60s", value_parser = parse_duration)]
    request_timeout: Duration,
    /// How many requests other than watches are served at once; more are answered 429
    /// with `Retry-After: 1`. 0: no limit.
    #[arg(long, env = "APISERVER_MAX_REQUESTS_INFLIGHT", value_name = "N", default_value_t = 400)]
    max_requests_inflight: usize,
    /// Log verbosity on stderr: 0 warnings and errors, 1 also a line per request (method,
    /// path, status, latency, user, user agent), 2 and more also debugging. `RUST_LOG`,
    /// when set, decides instead.
    #[arg(short = 'v', long = "v", env = "APISERVER_V", value_name = "LEVEL", default_value_t = 0)]
    verbosity: u8,
}

/// A Go-style duration: `90s`, `1m30s`, `500ms`, `2h`; a bare number is seconds.
fn parse_duration(text: &str) -> Result<Duration, String> {
    let invalid = || format!("{text:?} is not a duration (e.g. 60s, 1m30s, 500ms)");
    if let Ok(seconds) = text.parse::<f64>() {
        return if seconds.is_finite() && seconds > 0.0 {
            Ok(Duration::from_secs_f64(seconds))
        } else {
            Err(invalid())
        };
    }
    let mut total = 0.0;
    let mut rest = text;
    while !rest.is_empty() {
        let number_end = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).ok_or_else(invalid)?;
        let value: f64 = rest[..number_end].parse().map_err(|_| invalid())?;
        rest = &rest[number_end..];
        let unit_end = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let unit = match &rest[..unit_end] {
            "ms" => 0.001,
            "s" => 1.0,
            "m" => 60.0,
            "h" => 3600.0,
            _ => return Err(invalid()),
        };
        total += value * unit;
        rest = &rest[unit_end..];
    }
    if total > 0.0 { Ok(Duration::from_secs_f64(total)) } else { Err(invalid()) }
}

/// The admission plugins that can be turned off.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
#[value(rename_all = "PascalCase")]
enum AdmissionPlugin {
    /// Namespaces' lifecycle, and the system namespaces.
    NamespaceLifecycle,
}

/// A duration, or `0` for none.
fn parse_interval(text: &str) -> Result<Duration, String> {
    if text == "0" { Ok(Duration::ZERO) } else { parse_duration(text) }
}

fn main() -> ExitCode {
    let args = Args::parse();
    init_logs(args.verbosity);
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("apiserver: {message}");
            ExitCode::FAILURE
        }
    }
}

/// Logs to stderr, filtered by `RUST_LOG` or else by `--v`.
fn init_logs(verbosity: u8) {
    let filter = match tracing_subscriber::EnvFilter::try_from_default_env() {
        Ok(filter) => filter,
        Err(_) => tracing_subscriber::EnvFilter::new(match verbosity {
            0 => "warn",
            1 => "warn,apiserver=info,kube_apigen_registry=info",
            _ => "info,apiserver=debug,kube_apigen_registry=debug",
        }),
    };
    let colors = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(colors).with_writer(std::io::stderr).init();
}

fn run(args: Args) -> Result<(), String> {
    let mut builder = apiserver::builder()
        .max_body_bytes(args.max_body_bytes)
        .request_timeout(args.request_timeout)
        .max_requests_inflight(args.max_requests_inflight)
        .authorization(args.authorization_mode.iter().cloned())
        .configure_store(|store| {
            store.history = args.watch_history;
            store.bookmark_interval = args.bookmark_interval;
            store.key_prefix = args.etcd_prefix.clone();
            store.namespace_lifecycle = !args.disable_admission_plugins.contains(&AdmissionPlugin::NamespaceLifecycle);
        });
    // kube-apiserver's order: the front proxy, client certificates, tokens.
    if let Some(path) = &args.requestheader_client_ca_file {
        let options = RequestHeaderOptions {
            allowed_names: args.requestheader_allowed_names.clone(),
            username_headers: args.requestheader_username_headers.clone(),
            group_headers: args.requestheader_group_headers.clone(),
            extra_headers_prefixes: args.requestheader_extra_headers_prefix.clone(),
        };
        builder = builder.authenticator(Arc::new(RequestHeader::from_ca_file(path, options)?));
    }
    if let Some(path) = &args.client_ca_file {
        builder = builder.authenticator(Arc::new(ClientCertificates::from_ca_file(path)?));
    }
    if let Some(path) = &args.token_file {
        let tokens = TokenFile::load(path)?;
        for warning in tokens.warnings() {
            tracing::warn!("{warning}");
        }
        builder = builder.authenticator(Arc::new(tokens));
    }
    match (&args.tls_cert_file, &args.tls_private_key_file) {
        (Some(cert), Some(key)) => builder = builder.tls(tls::Identity::from_pem_files(cert, key)?),
        _ if args.tls_self_signed => builder = builder.tls(self_signed()?),
        _ => {}
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    runtime.block_on(async move {
        let listener = tokio::net::TcpListener::bind(args.listen)
            .await
            .map_err(|e| format!("cannot listen on {}: {e}", args.listen))?;
        let address = listener.local_addr().unwrap_or(args.listen);
        if let Some(directory) = &args.data_dir {
            builder = builder.data_dir(directory);
        } else if !args.etcd_servers.is_empty() {
            builder = builder.etcd(&args.etcd_servers, args.etcd_compaction_interval);
        }
        let server = builder.build().map_err(|e| e.to_string())?;
        let scheme = if server.is_tls() { "https" } else { "http" };
        ready(&format!("{scheme}://{address}"));
        server.serve(listener, shutdown_signal()).await.map_err(|e| e.to_string())
    })
}

/// A certificate for localhost made at startup (`--tls-self-signed`).
#[cfg(feature = "tls-self-signed")]
fn self_signed() -> Result<tls::Identity, String> {
    tls::Identity::self_signed()
}

#[cfg(not(feature = "tls-self-signed"))]
fn self_signed() -> Result<tls::Identity, String> {
    Err("--tls-self-signed: this apiserver is built without its `tls-self-signed` feature".to_owned())
}

/// The line tests and scripts wait for.
fn ready(url: &str) {
    println!("listening on {url}");
    let _ = std::io::stdout().flush();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_as_go_writes_them() {
        assert_eq!(parse_duration("60"), Ok(Duration::from_secs(60)));
        assert_eq!(parse_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_duration("500ms"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_duration("0.5s"), Ok(Duration::from_millis(500)));
        assert!(parse_duration("0").is_err());
        assert!(parse_duration("5 minutes").is_err());
        assert!(parse_duration("").is_err());
        assert_eq!(parse_interval("0"), Ok(Duration::ZERO));
        assert_eq!(parse_interval("5m"), Ok(Duration::from_secs(300)));
    }
}
