//! Authentication by TLS client certificate, as kube-apiserver does it for its clients
//! (`--client-ca-file`) and for the front proxy of an aggregated API server
//! (`--requestheader-client-ca-file`).
//!
//! The TLS listener asks every client for a certificate and accepts any it presents
//! ([`crate::tls`]); each request carries the chain as `ConnectInfo<tls::Peer>`. The
//! authenticators here verify it per request against their CA, so that a certificate of
//! another CA is answered 401 `Unauthorized`, as the API server answers it, instead of a
//! failed handshake. Over plain HTTP and in process there is no chain: both
//! authenticators find no credentials and leave the request to the next one.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use kube_apigen::Status;
use kube_apigen::auth::with_authenticated_group;
use kube_apigen::axum::extract::ConnectInfo;
use kube_apigen::axum::http::{Extensions, HeaderMap};
use kube_apigen::http::{Authenticator, UserInfo, authentication_failed};
use tokio_rustls::rustls::RootCertStore;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, UnixTime};
use tokio_rustls::rustls::server::WebPkiClientVerifier;
use tokio_rustls::rustls::server::danger::ClientCertVerifier;
use x509_parser::prelude::{FromDer, X509Certificate};

use crate::tls::Peer;

/// Verifies client certificate chains against the CAs of one PEM file.
#[derive(Clone, Debug)]
struct TrustedCa {
    verifier: Arc<dyn ClientCertVerifier>,
}

impl TrustedCa {
    fn from_pem_file(path: &Path) -> Result<Self, String> {
        let certificates = CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| format!("cannot read CA certificates from {}: {e}", path.display()))?;
        let mut roots = RootCertStore::empty();
        for certificate in certificates {
            roots.add(certificate).map_err(|e| format!("{}: not a usable CA certificate: {e}", path.display()))?;
        }
        if roots.is_empty() {
            return Err(format!("no CA certificate in {}", path.display()));
        }
        let provider = Arc::new(tokio_rustls::rustls::crypto::ring::default_provider());
        let verifier = WebPkiClientVerifier::builder_with_provider(Arc::new(roots), provider)
            .build()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(TrustedCa { verifier })
    }

    /// The subject of the request's client certificate once its chain verifies (for
    /// client authentication, now): `None` without a certificate, `Err` when it does not
    /// verify or cannot be read.
    fn verified_subject(&self, extensions: &Extensions) -> Option<Result<Subject, Status>> {
        let ConnectInfo(peer) = extensions.get::<ConnectInfo<Peer>>()?;
        let (leaf, intermediates) = peer.certificates.split_first()?;
        let verified = self.verifier.verify_client_cert(leaf, intermediates, UnixTime::now());
        Some(verified.map_err(|_| authentication_failed()).and_then(|_| Subject::of(leaf)))
    }
}

/// The names of a certificate's subject that authentication reads.
struct Subject {
    common_name: String,
    organizations: Vec<String>,
}

impl Subject {
    fn of(certificate: &CertificateDer<'_>) -> Result<Self, Status> {
        let (_, parsed) = X509Certificate::from_der(certificate).map_err(|_| authentication_failed())?;
        let subject = parsed.subject();
        let text = |attribute: &x509_parser::x509::AttributeTypeAndValue<'_>| attribute.as_str().map(str::to_owned);
        let common_name =
            subject.iter_common_name().next().map(text).transpose().map_err(|_| authentication_failed())?;
        let organizations =
            subject.iter_organization().map(text).collect::<Result<_, _>>().map_err(|_| authentication_failed())?;
        Ok(Subject { common_name: common_name.unwrap_or_default(), organizations })
    }
}

/// Users by client certificate (`--client-ca-file`): a certificate whose chain verifies
/// against the CA file for client authentication is the user of its subject's common
/// name, in the groups of its organizations and `system:authenticated`. A certificate of
/// another CA, expired or not for client authentication, is 401; one without a common
/// name, or no certificate, leaves the request to the next authenticator.
#[derive(Clone, Debug)]
pub struct ClientCertificates {
    ca: TrustedCa,
}

impl ClientCertificates {
    /// Trusts the CA certificates of the PEM file `path`.
    pub fn from_ca_file(path: &Path) -> Result<Self, String> {
        Ok(ClientCertificates { ca: TrustedCa::from_pem_file(path)? })
    }
}

impl Authenticator for ClientCertificates {
    fn authenticate(&self, _headers: &HeaderMap, extensions: &Extensions) -> Result<Option<UserInfo>, Status> {
        let Some(subject) = self.ca.verified_subject(extensions).transpose()? else { return Ok(None) };
        if subject.common_name.is_empty() {
            return Ok(None);
        }
        let groups = with_authenticated_group(subject.organizations);
        Ok(Some(UserInfo { username: subject.common_name, groups, ..UserInfo::default() }))
    }
}

/// The front proxy's request headers (`--requestheader-*`), trusted only over a client
/// certificate of the proxy's CA whose common name is allowed.
#[derive(Clone, Debug)]
pub struct RequestHeaderOptions {
    /// Common names the proxy's certificate may have; empty: any the CA signed.
    pub allowed_names: Vec<String>,
    /// Headers naming the user, the first one set wins (`X-Remote-User`).
    pub username_headers: Vec<String>,
    /// Headers naming groups, every value of each (`X-Remote-Group`).
    pub group_headers: Vec<String>,
    /// Prefixes of headers carrying extra attributes (`X-Remote-Extra-`): the rest of the
    /// header name, lowercased and percent-decoded, is the attribute's key.
    pub extra_headers_prefixes: Vec<String>,
}

impl Default for RequestHeaderOptions {
    /// The header names k8s.io/apiserver's delegated authentication defaults to.
    fn default() -> Self {
        RequestHeaderOptions {
            allowed_names: Vec::new(),
            username_headers: vec!["X-Remote-User".to_owned()],
            group_headers: vec!["X-Remote-Group".to_owned()],
            extra_headers_prefixes: vec!["X-Remote-Extra-".to_owned()],
        }
    }
}

/// Users named by an authenticating front proxy (kube-aggregator, for an aggregated API
/// server): the request's headers name the user, its groups and extra attributes, once
/// the connection's client certificate verifies against the proxy's CA and has an
/// allowed common name. The same headers without such a certificate are not looked at;
/// a certificate of another CA or name is 401 unless a later authenticator knows the
/// caller. The user is also in `system:authenticated`.
#[derive(Clone, Debug)]
pub struct RequestHeader {
    ca: TrustedCa,
    options: RequestHeaderOptions,
}

impl RequestHeader {
    /// Trusts the proxy CA certificates of the PEM file `path`, reading the headers
    /// `options` names.
    pub fn from_ca_file(path: &Path, options: RequestHeaderOptions) -> Result<Self, String> {
        Ok(RequestHeader { ca: TrustedCa::from_pem_file(path)?, options })
    }

    fn extra(&self, headers: &HeaderMap) -> BTreeMap<String, Vec<String>> {
        let mut extra: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for (name, value) in headers {
            // Header names are lowercase here already.
            let key = self.options.extra_headers_prefixes.iter().find_map(|prefix| {
                let prefix = prefix.to_ascii_lowercase();
                name.as_str().strip_prefix(prefix.as_str()).map(str::to_owned)
            });
            let (Some(key), Ok(value)) = (key, value.to_str()) else { continue };
            let key = percent_encoding::percent_decode_str(&key).decode_utf8().map_or(key.clone(), |k| k.into_owned());
            extra.entry(key).or_default().push(value.to_owned());
        }
        extra
    }
}

impl Authenticator for RequestHeader {
    fn authenticate(&self, headers: &HeaderMap, extensions: &Extensions) -> Result<Option<UserInfo>, Status> {
        let Some(subject) = self.ca.verified_subject(extensions).transpose()? else { return Ok(None) };
        let allowed = &self.options.allowed_names;
        if !allowed.is_empty() && !allowed.contains(&subject.common_name) {
            return Err(authentication_failed());
        }
        let value = |name: &String| headers.get(name).and_then(|v| v.to_str().ok()).filter(|v| !v.is_empty());
        let Some(username) = self.options.username_headers.iter().find_map(value) else { return Ok(None) };
        let groups = (self.options.group_headers.iter())
            .flat_map(|name| headers.get_all(name))
            .filter_map(|v| v.to_str().ok())
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
            .collect();
        let groups = with_authenticated_group(groups);
        Ok(Some(UserInfo { username: username.to_owned(), uid: String::new(), groups, extra: self.extra(headers) }))
    }
}
