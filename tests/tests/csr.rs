//! `certificates.k8s.io/v1` CertificateSigningRequest: a real PEM request and certificate,
//! base64-encoded on the wire (`format: byte`), survive decoding and re-encoding.

mod common;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use common::{assert_json_eq, decode, fixture, fixture_bytes, fixture_text, round_trip, time};
use generated::api::certificates::v1::{
    CertificateSigningRequest, CertificateSigningRequestConditionStatus, CertificateSigningRequestConditionType,
    CertificateSigningRequestList, CertificateSigningRequestSpecUsagesItem as Usage,
};
use kube_apigen::{Resource, Scope};

/// The DER body of a PEM file with one block of the given label.
fn pem_body(pem: &[u8], label: &str) -> Vec<u8> {
    let text = std::str::from_utf8(pem).expect("PEM is ASCII");
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let body = text
        .split_once(&begin)
        .and_then(|(_, rest)| rest.split_once(&end))
        .map(|(body, _)| body)
        .unwrap_or_else(|| panic!("no {label} block in {text}"));
    let b64: String = body.chars().filter(|c| !c.is_whitespace()).collect();
    STANDARD.decode(b64).expect("PEM body is base64")
}

#[test]
fn csr_fixture_round_trips_to_equal_json() {
    let input = fixture("csr.json");
    let (csr, output) = round_trip::<CertificateSigningRequest>("csr.json", &input);
    assert_json_eq("csr.json re-encoded", &input, &output);

    // The base64 text is written back byte for byte, not merely an equivalent encoding.
    assert_eq!(output["spec"]["request"], input["spec"]["request"]);
    assert_eq!(output["status"]["certificate"], input["status"]["certificate"]);

    let again: CertificateSigningRequest = decode("re-encoded csr.json", &output.to_string());
    assert_eq!(again, csr);
}

#[test]
fn csr_request_and_certificate_decode_to_the_pem_files() {
    let csr: CertificateSigningRequest = decode("csr.json", &fixture_text("csr.json"));

    // spec.request is the PEM file openssl wrote, base64-encoded once more in JSON.
    let request_pem = fixture_bytes("node-csr.pem");
    assert_eq!(csr.spec.request.as_slice(), request_pem.as_slice());
    assert!(request_pem.starts_with(b"-----BEGIN CERTIFICATE REQUEST-----\n"));
    let der = pem_body(csr.spec.request.as_slice(), "CERTIFICATE REQUEST");
    assert_eq!(der[0], 0x30, "a DER SEQUENCE");
    // The subject is inside the DER: CN=system:node:worker-1, O=system:nodes.
    assert!(der.windows(20).any(|w| w == b"system:node:worker-1"));
    assert!(der.windows(12).any(|w| w == b"system:nodes"));

    let certificate_pem = fixture_bytes("node-cert.pem");
    let certificate = csr.status.as_ref().and_then(|s| s.certificate.as_ref()).expect("certificate");
    assert_eq!(certificate.as_slice(), certificate_pem.as_slice());
    assert_eq!(pem_body(certificate.as_slice(), "CERTIFICATE")[0], 0x30);
    assert_eq!(certificate.to_base64(), fixture("csr.json")["status"]["certificate"]);
}

#[test]
fn csr_fixture_decodes_to_expected_values() {
    let csr: CertificateSigningRequest = decode("csr.json", &fixture_text("csr.json"));
    assert_eq!(csr.api_version.as_deref(), Some("certificates.k8s.io/v1"));
    assert_eq!(csr.kind.as_deref(), Some("CertificateSigningRequest"));

    let meta = csr.metadata.as_ref().expect("metadata");
    assert_eq!(meta.name.as_deref(), Some("csr-7kq2x"));
    assert_eq!(meta.generate_name.as_deref(), Some("csr-"));
    assert_eq!(meta.namespace, None, "cluster-scoped");
    assert_eq!(meta.uid.as_deref(), Some("2a5b7375-920a-4037-a1a1-6b7d27c63a99"));
    assert_eq!(meta.resource_version.as_deref(), Some("48220114"));
    assert_eq!(meta.creation_timestamp.map(|t| t.0.as_second()), Some(1_795_979_147));
    assert_eq!(meta.labels.as_ref().map(|l| l.len()), Some(2));
    let owner = &meta.owner_references.as_ref().expect("ownerReferences")[0];
    assert_eq!((owner.kind.as_str(), owner.name.as_str()), ("Node", "worker-1"));
    assert_eq!((owner.controller, owner.block_owner_deletion), (None, None));
    let managed = meta.managed_fields.as_ref().expect("managedFields");
    let subresources: Vec<Option<&str>> = managed.iter().map(|m| m.subresource.as_deref()).collect();
    assert_eq!(subresources, [None, Some("approval"), Some("status")]);

    let spec = &csr.spec;
    assert_eq!(spec.signer_name, "kubernetes.io/kube-apiserver-client-kubelet");
    assert_eq!(spec.expiration_seconds, Some(86_400));
    assert_eq!(spec.usages.as_deref(), Some(&[Usage::DigitalSignature, Usage::ClientAuth][..]));
    assert!(spec.usages.iter().flatten().all(Usage::is_known));
    assert_eq!(spec.username.as_deref(), Some("system:node:worker-1"));
    assert_eq!(spec.uid.as_deref(), Some("56aa9096-07b4-4e5c-9c87-02dde90bc28d"));
    assert_eq!(spec.groups.as_deref(), Some(&["system:nodes".to_owned(), "system:authenticated".to_owned()][..]));
    let extra = spec.extra.as_ref().expect("extra");
    assert_eq!(extra.len(), 2);
    assert_eq!(
        extra["authentication.kubernetes.io/credential-id"],
        ["X509SHA256=420b762d114460068e601874323bc1c7e101c854945825077423dce6a0fefdc3"]
    );
    assert_eq!(extra["authentication.kubernetes.io/node-name"], ["worker-1"]);

    let conditions = csr.status.as_ref().and_then(|s| s.conditions.as_ref()).expect("conditions");
    assert_eq!(conditions.len(), 1);
    let approved = &conditions[0];
    assert_eq!(approved.type_, CertificateSigningRequestConditionType::Approved);
    assert_eq!(approved.status, CertificateSigningRequestConditionStatus::True);
    assert_eq!(approved.reason.as_deref(), Some("AutoApproved"));
    assert_eq!(
        approved.message.as_deref(),
        Some("Auto approving self kubelet client certificate after SubjectAccessReview.")
    );
    assert_eq!(approved.last_update_time, Some(time("2026-11-29T19:05:48Z")));
    assert_eq!(approved.last_transition_time.map(|t| t.0.as_second()), Some(1_795_979_148));
}

#[test]
fn csr_resource_identity() {
    let info = CertificateSigningRequest::INFO;
    assert_eq!(info.group, "certificates.k8s.io");
    assert_eq!(info.version, "v1");
    assert_eq!(info.api_version(), "certificates.k8s.io/v1");
    assert_eq!(info.kind, "CertificateSigningRequest");
    assert_eq!(info.plural, "certificatesigningrequests");
    assert_eq!(info.scope, Scope::Cluster);
    assert_eq!(info.list_kind, "CertificateSigningRequestList");
}

#[test]
fn csr_list_fixture_round_trips_to_equal_json() {
    let input = fixture("csr-list.json");
    let (list, output) = round_trip::<CertificateSigningRequestList>("csr-list.json", &input);
    assert_json_eq("csr-list.json re-encoded", &input, &output);
    assert_eq!(list.kind.as_deref(), Some(CertificateSigningRequest::INFO.list_kind));
    let meta = list.metadata.as_ref().expect("metadata");
    assert_eq!(meta.resource_version.as_deref(), Some("48224977"));
    assert_eq!((&meta.continue_, meta.remaining_item_count), (&None, None));

    // A pending request being deleted: no expirationSeconds, no extra, and `status: {}`,
    // which stays an empty object rather than disappearing.
    assert_eq!(list.items.len(), 1);
    let pending = &list.items[0];
    assert_eq!((&pending.api_version, &pending.kind), (&None, &None));
    let meta = pending.metadata.as_ref().expect("item metadata");
    assert_eq!(meta.deletion_timestamp, Some(time("2026-11-29T19:22:40Z")));
    assert_eq!(meta.deletion_grace_period_seconds, Some(0), "an explicit 0 is kept");
    assert_eq!(meta.finalizers.as_deref(), Some(&["example.com/csr-audit".to_owned()][..]));
    assert_eq!(pending.spec.expiration_seconds, None);
    assert_eq!(pending.spec.extra, None);
    assert_eq!(pending.spec.username.as_deref(), Some("system:bootstrap:abcdef"));
    assert_eq!(pending.spec.request.as_slice(), fixture_bytes("node-csr.pem").as_slice());
    let status = pending.status.as_ref().expect("status: {} decodes as Some");
    assert_eq!((&status.certificate, &status.conditions), (&None, &None));
    assert_eq!(output["items"][0]["status"], serde_json::json!({}));
}
