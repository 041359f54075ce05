//! HTTPS serving: a TLS listener for `axum::serve`, from PEM files or a self-signed
//! certificate made at startup.
//!
//! kubectl (client-go's `clientcmd`) sends a kubeconfig's credentials, bearer tokens
//! included, only over TLS; a server checking tokens (`--token-file`) is usable from
//! kubectl only over HTTPS. A self-signed certificate needs `insecure-skip-tls-verify:
//! true` in the kubeconfig (or the certificate as its `certificate-authority`).

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use kube_apigen::axum::serve::Listener;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::ServerConfig;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::server::TlsStream;

/// How long a client has to complete the TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A server certificate and its key.
pub struct Identity {
    certificates: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
    /// The certificate in PEM, when generated here.
    pub certificate_pem: Option<String>,
}

impl Identity {
    /// Reads a PEM certificate chain and a PEM private key (PKCS#8, PKCS#1 or SEC1).
    pub fn from_pem_files(certificate: &Path, key: &Path) -> Result<Self, String> {
        let certificates = CertificateDer::pem_file_iter(certificate)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| format!("cannot read certificates from {}: {e}", certificate.display()))?;
        if certificates.is_empty() {
            return Err(format!("no certificate in {}", certificate.display()));
        }
        let key = PrivateKeyDer::from_pem_file(key)
            .map_err(|e| format!("cannot read a private key from {}: {e}", key.display()))?;
        Ok(Identity { certificates, key, certificate_pem: None })
    }

    /// A self-signed certificate for `localhost`, `127.0.0.1` and `::1`.
    #[cfg(feature = "tls-self-signed")]
    pub fn self_signed() -> Result<Self, String> {
        let names = vec!["localhost".to_owned(), "127.0.0.1".to_owned(), "::1".to_owned()];
        let generated =
            rcgen::generate_simple_self_signed(names).map_err(|e| format!("cannot generate a certificate: {e}"))?;
        let certificate_pem = generated.cert.pem();
        let key = PrivateKeyDer::Pkcs8(generated.signing_key.serialize_der().into());
        Ok(Identity { certificates: vec![generated.cert.der().clone()], key, certificate_pem: Some(certificate_pem) })
    }

    fn acceptor(self) -> Result<TlsAcceptor, String> {
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let mut config = ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS configuration: {e}"))?
            .with_no_client_auth()
            .with_single_cert(self.certificates, self.key)
            .map_err(|e| format!("TLS certificate: {e}"))?;
        // HTTP/2 first, as kubectl (Go's HTTP client) prefers it; the server detects which
        // one a connection speaks.
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(TlsAcceptor::from(Arc::new(config)))
    }
}

/// Accepts TCP connections and hands out those whose TLS handshake succeeded. Handshakes
/// run concurrently, so a slow client does not hold up others; failed ones are dropped.
pub struct TlsListener {
    local: SocketAddr,
    handshaken: mpsc::Receiver<(TlsStream<TcpStream>, SocketAddr)>,
}

impl TlsListener {
    /// Accepts on `listener`, handshaking with `identity`, in a task of its own (so call it
    /// within a Tokio runtime); an error when `identity` is not a usable certificate and
    /// key.
    pub fn new(listener: TcpListener, identity: Identity) -> Result<Self, String> {
        let local = listener.local_addr().map_err(|e| e.to_string())?;
        let acceptor = identity.acceptor()?;
        let (sender, handshaken) = mpsc::channel(64);
        tokio::spawn(async move {
            loop {
                let (stream, peer) = match listener.accept().await {
                    Ok(accepted) => accepted,
                    Err(_) => {
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                };
                if sender.is_closed() {
                    return;
                }
                let acceptor = acceptor.clone();
                let sender = sender.clone();
                tokio::spawn(async move {
                    if let Ok(Ok(tls)) = tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(stream)).await {
                        let _ = sender.send((tls, peer)).await;
                    }
                });
            }
        });
        Ok(TlsListener { local, handshaken })
    }
}

impl Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.handshaken.recv().await {
            Some(accepted) => accepted,
            // The accept loop never ends while the listener lives.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(self.local)
    }
}
