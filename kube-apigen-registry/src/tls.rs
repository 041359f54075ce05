//! HTTPS serving: a TLS listener for `axum::serve`, from PEM files or a self-signed
//! certificate made at startup.
//!
//! kubectl (client-go's `clientcmd`) sends a kubeconfig's credentials, bearer tokens
//! included, only over TLS; a server checking tokens (`--token-file`) is usable from
//! kubectl only over HTTPS. A self-signed certificate needs `insecure-skip-tls-verify:
//! true` in the kubeconfig (or the certificate as its `certificate-authority`).
//!
//! Every client is asked for a certificate, and any it presents is taken after checking
//! only that the client holds its key: each request carries the chain ([`Peer`]) for the
//! authenticators of [`crate::certificates`] to verify against their CAs.

use std::io;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use kube_apigen::axum::extract::connect_info::Connected;
use kube_apigen::axum::serve::{IncomingStream, Listener};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::TlsAcceptor;
use tokio_rustls::rustls::client::danger::HandshakeSignatureValid;
use tokio_rustls::rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer, UnixTime};
use tokio_rustls::rustls::server::danger::{ClientCertVerified, ClientCertVerifier};
use tokio_rustls::rustls::{DigitallySignedStruct, DistinguishedName, ServerConfig, SignatureScheme};
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
        let mut config = ServerConfig::builder_with_provider(Arc::clone(&provider))
            .with_safe_default_protocol_versions()
            .map_err(|e| format!("TLS configuration: {e}"))?
            .with_client_cert_verifier(Arc::new(AnyClientCertificate(provider)))
            .with_single_cert(self.certificates, self.key)
            .map_err(|e| format!("TLS certificate: {e}"))?;
        // HTTP/2 first, as kubectl (Go's HTTP client) prefers it; the server detects which
        // one a connection speaks.
        config.alpn_protocols = vec![b"h2".to_vec(), b"http/1.1".to_vec()];
        Ok(TlsAcceptor::from(Arc::new(config)))
    }
}

/// Asks for a client certificate without requiring one, and takes any chain: whether it
/// is trusted is for the authenticators to decide per request, so that a certificate of
/// an unknown CA is answered 401 as the API server answers it, not with a failed
/// handshake. What is checked here is that the client holds the certificate's key.
#[derive(Debug)]
struct AnyClientCertificate(Arc<CryptoProvider>);

impl ClientCertVerifier for AnyClientCertificate {
    fn client_auth_mandatory(&self) -> bool {
        false
    }

    fn root_hint_subjects(&self) -> &[DistinguishedName] {
        &[]
    }

    fn verify_client_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _now: UnixTime,
    ) -> Result<ClientCertVerified, tokio_rustls::rustls::Error> {
        Ok(ClientCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        verify_tls12_signature(message, certificate, signature, &self.0.signature_verification_algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        certificate: &CertificateDer<'_>,
        signature: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, tokio_rustls::rustls::Error> {
        verify_tls13_signature(message, certificate, signature, &self.0.signature_verification_algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// Who is at the other end of a TLS connection: its address and the certificate chain it
/// presented (leaf first; empty when it sent none). Served by [`TlsListener`], every
/// request carries it as `axum::extract::ConnectInfo<Peer>`.
#[derive(Clone, Debug)]
pub struct Peer {
    /// The client's address.
    pub address: SocketAddr,
    /// The client's certificate chain, not verified.
    pub certificates: Arc<[CertificateDer<'static>]>,
}

impl Connected<IncomingStream<'_, TlsListener>> for Peer {
    fn connect_info(stream: IncomingStream<'_, TlsListener>) -> Self {
        stream.remote_addr().clone()
    }
}

/// Accepts TCP connections and hands out those whose TLS handshake succeeded. Handshakes
/// run concurrently, so a slow client does not hold up others; failed ones are dropped.
pub struct TlsListener {
    local: SocketAddr,
    handshaken: mpsc::Receiver<(TlsStream<TcpStream>, Peer)>,
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
                        let chain = tls.get_ref().1.peer_certificates().unwrap_or_default();
                        let certificates = chain.iter().map(|c| c.clone().into_owned()).collect();
                        let _ = sender.send((tls, Peer { address: peer, certificates })).await;
                    }
                });
            }
        });
        Ok(TlsListener { local, handshaken })
    }
}

impl Listener for TlsListener {
    type Io = TlsStream<TcpStream>;
    type Addr = Peer;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        match self.handshaken.recv().await {
            Some(accepted) => accepted,
            // The accept loop never ends while the listener lives.
            None => std::future::pending().await,
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        Ok(Peer { address: self.local, certificates: Arc::from([]) })
    }
}
