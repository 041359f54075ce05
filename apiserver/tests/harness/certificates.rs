//! Test CAs and the client certificates they sign, written as PEM files for the server's
//! `--client-ca-file` and `--requestheader-client-ca-file` and for clients.

use std::path::{Path, PathBuf};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair, KeyUsagePurpose,
};

/// A CA whose certificate is written to `<dir>/<name>-ca.crt`.
pub struct Ca {
    issuer: Issuer<'static, KeyPair>,
    dir: PathBuf,
    name: String,
    /// The PEM file of the CA's certificate.
    pub certificate_file: PathBuf,
}

/// A client certificate and its key, as PEM text and files.
// A test crate uses either the text or the files.
#[allow(dead_code)]
pub struct Client {
    pub certificate_pem: String,
    pub key_pem: String,
    pub certificate_file: PathBuf,
    pub key_file: PathBuf,
}

impl Ca {
    pub fn new(dir: &Path, name: &str) -> Ca {
        let mut params = CertificateParams::new(Vec::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.distinguished_name.push(DnType::CommonName, format!("{name} CA"));
        params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::DigitalSignature];
        let key = KeyPair::generate().unwrap();
        let certificate = params.self_signed(&key).unwrap();
        let certificate_file = dir.join(format!("{name}-ca.crt"));
        std::fs::write(&certificate_file, certificate.pem()).unwrap();
        Ca { issuer: Issuer::new(params, key), dir: dir.to_owned(), name: name.to_owned(), certificate_file }
    }

    /// A certificate for client authentication with the subject `CN=<common_name>`, and
    /// `O=<organization>` if given (rcgen writes one attribute of each type).
    pub fn client(&self, common_name: &str, organization: Option<&str>) -> Client {
        let mut params = CertificateParams::new(Vec::new()).unwrap();
        params.distinguished_name.push(DnType::CommonName, common_name);
        if let Some(organization) = organization {
            params.distinguished_name.push(DnType::OrganizationName, organization);
        }
        params.key_usages = vec![KeyUsagePurpose::DigitalSignature, KeyUsagePurpose::KeyEncipherment];
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
        let key = KeyPair::generate().unwrap();
        let certificate = params.signed_by(&key, &self.issuer).unwrap();
        let stem = self.dir.join(format!("{}-{common_name}", self.name));
        let (certificate_file, key_file) = (stem.with_extension("crt"), stem.with_extension("key"));
        let (certificate_pem, key_pem) = (certificate.pem(), key.serialize_pem());
        std::fs::write(&certificate_file, &certificate_pem).unwrap();
        std::fs::write(&key_file, &key_pem).unwrap();
        Client { certificate_pem, key_pem, certificate_file, key_file }
    }
}
