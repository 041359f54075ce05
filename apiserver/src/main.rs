//! `apiserver`: serves every resource of the generated crate from memory.

use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use apiserver::auth::TokenFile;
use apiserver::hooks;
use apiserver::{Store, StoreConfig, server, tls};
use support::http::{Authenticator, DEFAULT_MAX_BODY_BYTES};

const USAGE: &str = "\
apiserver: an in-memory Kubernetes-style API server for every resource of specs/

Usage: apiserver [OPTIONS]

Options:
  --listen ADDR                address to listen on [default: 127.0.0.1:8080];
                               port 0 picks a free port. Once ready, prints
                               `listening on http://ADDR` on stdout.
  --token-file FILE            static bearer tokens, one CSV record a line:
                               token,user,uid[,\"group1,group2\"]. Requests then need
                               `Authorization: Bearer <token>` (else 401). Without it,
                               every caller is an anonymous administrator.
  --tls-cert-file FILE         serve HTTPS with this PEM certificate (chain) ...
  --tls-private-key-file FILE  ... and this PEM private key; the line printed is then
                               `listening on https://ADDR`
  --tls-self-signed            serve HTTPS with a self-signed certificate for
                               localhost made at startup (kubeconfig:
                               insecure-skip-tls-verify: true). kubectl sends bearer
                               tokens only over HTTPS.
  --max-body-bytes N           largest request body accepted [default: 3145728]
  --watch-history N            changes kept for watches from an old resourceVersion,
                               list snapshots and continue tokens [default: 1000]
  --bookmark-interval SECONDS  period of BOOKMARK events on watches that allow them
                               [default: 60]
  -h, --help                   print this help

SIGTERM or Ctrl-C stops the server gracefully: open watches end, requests in flight
finish, and it exits 0.
";

struct Args {
    listen: SocketAddr,
    token_file: Option<PathBuf>,
    tls_cert_file: Option<PathBuf>,
    tls_private_key_file: Option<PathBuf>,
    tls_self_signed: bool,
    max_body_bytes: usize,
    watch_history: usize,
    bookmark_interval: Duration,
}

enum Parsed {
    Run(Args),
    Help,
}

fn parse_args(args: impl IntoIterator<Item = String>) -> Result<Parsed, String> {
    let mut parsed = Args {
        listen: SocketAddr::from(([127, 0, 0, 1], 8080)),
        token_file: None,
        tls_cert_file: None,
        tls_private_key_file: None,
        tls_self_signed: false,
        max_body_bytes: DEFAULT_MAX_BODY_BYTES,
        watch_history: 1000,
        bookmark_interval: Duration::from_secs(60),
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "-h" || arg == "--help" {
            return Ok(Parsed::Help);
        }
        if arg == "--tls-self-signed" {
            parsed.tls_self_signed = true;
            continue;
        }
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag.to_owned(), Some(value.to_owned())),
            _ => (arg.clone(), None),
        };
        let mut value = |name: &str| -> Result<String, String> {
            inline.clone().or_else(|| args.next()).ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--listen" => {
                let text = value("--listen")?;
                parsed.listen =
                    text.parse().map_err(|e| format!("--listen {text}: not an address (e.g. 127.0.0.1:8080): {e}"))?;
            }
            "--token-file" => parsed.token_file = Some(PathBuf::from(value("--token-file")?)),
            "--tls-cert-file" => parsed.tls_cert_file = Some(PathBuf::from(value("--tls-cert-file")?)),
            "--tls-private-key-file" => {
                parsed.tls_private_key_file = Some(PathBuf::from(value("--tls-private-key-file")?))
            }
            "--max-body-bytes" => {
                let text = value("--max-body-bytes")?;
                parsed.max_body_bytes = text.parse().map_err(|e| format!("--max-body-bytes {text}: {e}"))?;
            }
            "--watch-history" => {
                let text = value("--watch-history")?;
                parsed.watch_history = text.parse().map_err(|e| format!("--watch-history {text}: {e}"))?;
            }
            "--bookmark-interval" => {
                let text = value("--bookmark-interval")?;
                let seconds: f64 = text.parse().map_err(|e| format!("--bookmark-interval {text}: {e}"))?;
                if !(seconds.is_finite() && seconds > 0.0) {
                    return Err(format!("--bookmark-interval {text}: must be a positive number"));
                }
                parsed.bookmark_interval = Duration::from_secs_f64(seconds);
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    match (&parsed.tls_cert_file, &parsed.tls_private_key_file) {
        (Some(_), None) | (None, Some(_)) => {
            return Err("--tls-cert-file and --tls-private-key-file go together".to_owned());
        }
        (Some(_), Some(_)) if parsed.tls_self_signed => {
            return Err("--tls-self-signed excludes --tls-cert-file and --tls-private-key-file".to_owned());
        }
        _ => {}
    }
    Ok(Parsed::Run(parsed))
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Parsed::Run(args)) => args,
        Ok(Parsed::Help) => {
            print!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(message) => {
            eprintln!("apiserver: {message}\n\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let authenticator: Option<Arc<dyn Authenticator>> = match &args.token_file {
        None => None,
        Some(path) => match TokenFile::load(path) {
            Ok(tokens) => {
                for warning in tokens.warnings() {
                    eprintln!("apiserver: warning: {warning}");
                }
                Some(Arc::new(tokens))
            }
            Err(message) => {
                eprintln!("apiserver: {message}");
                return ExitCode::FAILURE;
            }
        },
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("apiserver: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    let identity = match (&args.tls_cert_file, &args.tls_private_key_file) {
        (Some(cert), Some(key)) => match tls::Identity::from_pem_files(cert, key) {
            Ok(identity) => Some(identity),
            Err(message) => {
                eprintln!("apiserver: {message}");
                return ExitCode::FAILURE;
            }
        },
        _ if args.tls_self_signed => match tls::Identity::self_signed() {
            Ok(identity) => Some(identity),
            Err(message) => {
                eprintln!("apiserver: {message}");
                return ExitCode::FAILURE;
            }
        },
        _ => None,
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(args.listen).await {
            Ok(listener) => listener,
            Err(e) => {
                eprintln!("apiserver: cannot listen on {}: {e}", args.listen);
                return ExitCode::FAILURE;
            }
        };
        let address = listener.local_addr().unwrap_or(args.listen);
        let mut config = StoreConfig::new(&generated::server::CATALOG, hooks::generated_validators());
        config.history = args.watch_history;
        config.bookmark_interval = args.bookmark_interval;
        let store = Store::new(config);
        let http = server::config(args.max_body_bytes, authenticator);
        let served = match identity {
            None => {
                ready(&format!("http://{address}"));
                server::serve(listener, store, http, server::shutdown_signal()).await
            }
            Some(identity) => {
                let listener = match tls::TlsListener::new(listener, identity) {
                    Ok(listener) => listener,
                    Err(message) => {
                        eprintln!("apiserver: {message}");
                        return ExitCode::FAILURE;
                    }
                };
                ready(&format!("https://{address}"));
                server::serve(listener, store, http, server::shutdown_signal()).await
            }
        };
        match served {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("apiserver: {e}");
                ExitCode::FAILURE
            }
        }
    })
}

/// The line tests and scripts wait for.
fn ready(url: &str) {
    println!("listening on {url}");
    let _ = std::io::stdout().flush();
}
