//! Protobuf against an independent implementation: `protoc` (Debian's `protobuf-compiler`)
//! decodes what the generated codecs write, with the `.proto` files of `specs/proto/` and,
//! when `KUBE_APIGEN_UPSTREAM` names the upstream corpus, with Kubernetes' own
//! `generated.proto` files; and it encodes text-format messages the codecs must read.
//!
//! - Every fixture (HPA, CSR with a real PEM request and certificate, their lists, a
//!   `Status`, a watch event) written by the codecs is decoded by `protoc` and encoded
//!   again: the bytes are the same, so `protoc` knew every field and read it as written.
//! - Round trips protobuf -> model -> JSON give back the fixture's JSON.
//!
//! Without `protoc` the tests print a loud `SKIPPED` line and pass (`.ci/run` installs it).

mod common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{assert_json_eq, encode, fixture};
use generated::api::apps::v1::Deployment;
use generated::api::autoscaling::v2::{HorizontalPodAutoscaler, HorizontalPodAutoscalerList};
use generated::api::certificates::v1::{CertificateSigningRequest, CertificateSigningRequestList};
use generated::api::core::v1::Pod;
use kube_apigen::protobuf::{self, Payload};
use kube_apigen::{Status, Time};
use serde::de::DeserializeOwned;

const APPS: (&str, &str) = ("k8s.io/api/apps/v1/generated.proto", "k8s.io.api.apps.v1");
const CORE: (&str, &str) = ("k8s.io/api/core/v1/generated.proto", "k8s.io.api.core.v1");
const CSR: (&str, &str) = ("k8s.io/api/certificates/v1/generated.proto", "k8s.io.api.certificates.v1");
const HPA: (&str, &str) = ("k8s.io/api/autoscaling/v2/generated.proto", "k8s.io.api.autoscaling.v2");
const META: (&str, &str) =
    ("k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto", "k8s.io.apimachinery.pkg.apis.meta.v1");
const RUNTIME: (&str, &str) = ("k8s.io/apimachinery/pkg/runtime/generated.proto", "k8s.io.apimachinery.pkg.runtime");

/// `specs/proto`, and the upstream corpus's `proto/` when the environment names it.
fn proto_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf();
    let mut dirs = vec![root.join("specs/proto")];
    match std::env::var_os("KUBE_APIGEN_UPSTREAM").filter(|v| !v.is_empty()) {
        Some(upstream) => dirs.push(root.join(upstream).join("proto")),
        None => eprintln!("SKIPPED: the upstream .proto files (set KUBE_APIGEN_UPSTREAM=../shared/specs-upstream)"),
    }
    dirs
}

/// Whether `protoc` runs; a loud line when it does not.
fn have_protoc() -> bool {
    match Command::new("protoc").arg("--version").output() {
        Ok(out) if out.status.success() => true,
        _ => {
            eprintln!(
                "\n==================================================\n\
                 SKIPPED: protoc not found (apt-get install protobuf-compiler)\n\
                 ==================================================\n"
            );
            false
        }
    }
}

/// Runs `protoc --decode` or `--encode` of `message` from `file` under `dir` on `input`.
fn protoc(mode: &str, dir: &Path, (file, package): (&str, &str), message: &str, input: &[u8]) -> Vec<u8> {
    let mut child = Command::new("protoc")
        .arg(format!("--{mode}={package}.{message}"))
        .arg("-I")
        .arg(dir)
        .arg(file)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("protoc starts");
    child.stdin.take().expect("stdin").write_all(input).expect("protoc reads its input");
    let out = child.wait_with_output().expect("protoc runs");
    assert!(
        out.status.success(),
        "protoc --{mode}={package}.{message} with {}: {}",
        dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// `protoc` decodes `bytes` as `message` (every field known, or it could not encode the
/// text again) and encodes its text again to the same bytes; returns the text.
fn protoc_agrees(dir: &Path, file: (&str, &str), message: &str, bytes: &[u8]) -> String {
    let text = protoc("decode", dir, file, message, bytes);
    let again = protoc("encode", dir, file, message, &text);
    assert!(again == bytes, "protoc wrote {message} differently:\n{}", String::from_utf8_lossy(&text));
    String::from_utf8(text).expect("text format is UTF-8")
}

/// A fixture decoded into a model, written as a protobuf body (the envelope carrying its
/// kind), read back, and written as JSON; returns the model's message bytes.
fn round_trip<T: Payload + DeserializeOwned + PartialEq + std::fmt::Debug>(name: &str) -> Vec<u8> {
    let json = fixture(name);
    let model: T = serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{name}: {e}"));
    let codec = T::PROTOBUF.expect("the model has a message");
    let (api_version, kind) = codec.type_meta.expect("the model is one kind");
    let message = (codec.encode)(&model);
    let body = protobuf::encode_envelope(api_version, kind, &message);
    let envelope = protobuf::decode_envelope(&body).unwrap_or_else(|e| panic!("{name}: {e}"));
    let decoded = (codec.decode)(&envelope).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(decoded, model, "{name}: protobuf -> model");
    assert_json_eq(&format!("{name} through protobuf"), &json, &encode(name, &decoded));
    message
}

/// HorizontalPodAutoscalerCondition.observedGeneration is this API's own field: Kubernetes'
/// message lacks it, so the upstream files see it as an unknown field.
fn without_observed_generation(mut value: serde_json::Value) -> serde_json::Value {
    fn strip(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Object(map) => {
                if map.contains_key("lastTransitionTime") {
                    map.remove("observedGeneration");
                }
                map.values_mut().for_each(strip);
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut value);
    value
}

#[test]
fn fixtures_round_trip_through_protobuf_to_equal_json() {
    round_trip::<HorizontalPodAutoscaler>("hpa.json");
    round_trip::<HorizontalPodAutoscalerList>("hpa-list.json");
    round_trip::<CertificateSigningRequest>("csr.json");
    round_trip::<CertificateSigningRequestList>("csr-list.json");
    round_trip::<Status>("status-invalid.json");
    round_trip::<Pod>("pod.json");
    round_trip::<Deployment>("deployment.json");
}

/// Go embeds structs whose fields JSON inlines and protobuf nests: a volume's source, a
/// probe's handler, the reference of a key selector. `protoc` reads them nested, with
/// Kubernetes' own `core/v1` file too.
#[test]
fn protoc_reads_embedded_structs_nested() {
    if !have_protoc() {
        return;
    }
    let pod = round_trip::<Pod>("pod.json");
    for dir in proto_dirs() {
        let text = protoc_agrees(&dir, CORE, "Pod", &pod);
        for nested in [
            "volumeSource {\n      configMap {\n        localObjectReference {\n          name: \"settings\"",
            "volumeSource {\n      persistentVolumeClaim {\n        claimName: \"web-data\"",
            "name: \"nothing\"\n    volumeSource {\n    }",
            "handler {\n        httpGet {\n          path: \"/healthz\"",
            "configMapKeyRef {\n          localObjectReference {\n            name: \"settings\"",
        ] {
            assert!(text.contains(nested), "{} lacks {nested}:\n{text}", dir.display());
        }
    }
    // Kubernetes' apps/v1 file is not in the corpus; ours has its field numbers.
    let deployment = round_trip::<Deployment>("deployment.json");
    let text = protoc_agrees(&proto_dirs()[0], APPS, "Deployment", &deployment);
    assert!(text.contains("\n  template {\n    metadata {"), "{text}");
}

#[test]
fn protoc_reads_every_field_the_codecs_write() {
    if !have_protoc() {
        return;
    }
    for dir in proto_dirs() {
        let upstream = !dir.starts_with(Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap());
        let hpa = |name: &str| -> Vec<u8> {
            let json = if upstream { without_observed_generation(fixture(name)) } else { fixture(name) };
            protobuf::encode_message(&serde_json::from_value::<HorizontalPodAutoscalerList>(json).unwrap())
        };
        let hpa_json = if upstream { without_observed_generation(fixture("hpa.json")) } else { fixture("hpa.json") };
        let one_hpa: HorizontalPodAutoscaler = serde_json::from_value(hpa_json).unwrap();
        let text = protoc_agrees(&dir, HPA, "HorizontalPodAutoscaler", &protobuf::encode_message(&one_hpa));
        assert!(text.contains("maxReplicas: "), "{text}");
        protoc_agrees(&dir, HPA, "HorizontalPodAutoscalerList", &hpa("hpa-list.json"));
        let csr = round_trip::<CertificateSigningRequest>("csr.json");
        let text = protoc_agrees(&dir, CSR, "CertificateSigningRequest", &csr);
        assert!(text.contains("request: \"-----BEGIN CERTIFICATE REQUEST-----\\n"), "{text}");
        assert!(text.contains("certificate: \"-----BEGIN CERTIFICATE-----\\n"), "{text}");
        let csrs = round_trip::<CertificateSigningRequestList>("csr-list.json");
        protoc_agrees(&dir, CSR, "CertificateSigningRequestList", &csrs);
        let status = round_trip::<Status>("status-invalid.json");
        let text = protoc_agrees(&dir, META, "Status", &status);
        assert!(text.contains("causes {"), "{text}");
    }
}

#[test]
fn protoc_reads_the_envelope_and_watch_frames() {
    if !have_protoc() {
        return;
    }
    let status = Status::not_found("autoscaling", "horizontalpodautoscalers", "web");
    let body = protobuf::encode_envelope("v1", "Status", &protobuf::encode_message(&status));
    let hpa: HorizontalPodAutoscaler =
        serde_json::from_value(without_observed_generation(fixture("hpa.json"))).unwrap();
    let object =
        protobuf::encode_envelope("autoscaling/v2", "HorizontalPodAutoscaler", &protobuf::encode_message(&hpa));
    let frame = protobuf::watch_frame("MODIFIED", &object);
    for dir in proto_dirs() {
        let text = protoc_agrees(&dir, RUNTIME, "Unknown", &body[protobuf::MAGIC.len()..]);
        assert!(text.starts_with("typeMeta {\n  apiVersion: \"v1\"\n  kind: \"Status\"\n}\nraw: "), "{text}");
        let (length, event) = frame.split_at(4);
        assert_eq!(u32::from_be_bytes(length.try_into().unwrap()) as usize, event.len());
        let text = protoc_agrees(&dir, META, "WatchEvent", event);
        assert!(text.starts_with("type: \"MODIFIED\"\nobject {\n  raw: \"k8s\\000"), "{text}");
    }
}

/// A CSR as a person writes it in protobuf's text format, with a real PEM request and
/// certificate, every value in a field of its own type.
fn csr_text() -> String {
    let pem = |name: &str| common::fixture_text(name).replace('\n', "\\n");
    format!(
        r#"metadata {{
  name: "node-csr-x"
  creationTimestamp {{ seconds: 1767225600 nanos: 0 }}
  labels {{ key: "app" value: "kubelet" }}
}}
spec {{
  request: "{request}"
  signerName: "kubernetes.io/kube-apiserver-client-kubelet"
  expirationSeconds: 86400
  usages: "digital signature"
  usages: "client auth"
  usages: "some future usage"
  username: "system:node:worker-1"
  groups: "system:nodes"
  extra {{ key: "scopes" value {{ items: "a" items: "b" }} }}
}}
status {{
  conditions {{
    type: "Approved"
    status: "True"
    reason: "AutoApproved"
    lastUpdateTime {{ seconds: 1767225660 nanos: 0 }}
  }}
  certificate: "{certificate}"
}}
"#,
        request = pem("node-csr.pem"),
        certificate = pem("node-cert.pem"),
    )
}

#[test]
fn the_codecs_read_what_protoc_writes() {
    if !have_protoc() {
        return;
    }
    for dir in proto_dirs() {
        let bytes = protoc("encode", &dir, CSR, "CertificateSigningRequest", csr_text().as_bytes());
        let csr: CertificateSigningRequest = protobuf::decode_message(&bytes).expect("protoc's bytes decode");
        let json = encode("protoc's CSR", &csr);
        assert_eq!(json["metadata"]["name"], "node-csr-x");
        assert_eq!(json["metadata"]["creationTimestamp"], "2026-01-01T00:00:00Z");
        assert_eq!(json["metadata"]["labels"], serde_json::json!({"app": "kubelet"}));
        assert_eq!(json["spec"]["expirationSeconds"], 86400);
        // An unknown usage survives, as it does in JSON.
        assert_eq!(
            json["spec"]["usages"],
            serde_json::json!(["digital signature", "client auth", "some future usage"])
        );
        assert_eq!(json["spec"]["extra"], serde_json::json!({"scopes": ["a", "b"]}));
        assert_eq!(csr.spec.request.0, common::fixture_bytes("node-csr.pem"));
        let status = csr.status.as_ref().expect("a status");
        assert_eq!(status.certificate.as_ref().expect("a certificate").0, common::fixture_bytes("node-cert.pem"));
        let condition = &status.conditions.as_ref().expect("conditions")[0];
        assert_eq!(condition.last_update_time, Some(Time("2026-01-01T00:01:00Z".parse().unwrap())));
        assert_eq!(json["status"]["conditions"][0]["reason"], "AutoApproved");
        // The model writes what protoc wrote (Go writes a time's zero nanoseconds too).
        assert!(protobuf::encode_message(&csr) == bytes, "the CSR is written differently from protoc's bytes");

        let status_text = "metadata {}\nstatus: \"Failure\"\nmessage: \"gone\"\nreason: \"Expired\"\ncode: 410\n";
        let bytes = protoc("encode", &dir, META, "Status", status_text.as_bytes());
        let status: Status = protobuf::decode_message(&bytes).expect("protoc's Status decodes");
        assert_eq!(
            (status.code, status.reason.as_deref(), status.message.as_deref()),
            (Some(410), Some("Expired"), Some("gone"))
        );
    }
}

#[tokio::test]
async fn protoc_reads_the_openapi_v2_document() {
    use tower::ServiceExt as _;
    if !have_protoc() {
        return;
    }
    let Some(gnostic) = proto_dirs().get(1).map(|upstream| upstream.join("github.com/google/gnostic-models")) else {
        eprintln!("SKIPPED: the gnostic .proto file is only in the upstream corpus");
        return;
    };
    let request = kube_apigen::axum::http::Request::get("/openapi/v2")
        .header("accept", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf")
        .body(kube_apigen::axum::body::Body::empty())
        .unwrap();
    let response =
        kube_apigen::discovery::routes::<()>(&generated::server::CATALOG).oneshot(request).await.expect("an answer");
    assert_eq!(response.headers()["content-type"], kube_apigen::discovery::OPENAPI_V2_PROTOBUF);
    let bytes = kube_apigen::axum::body::to_bytes(response.into_body(), usize::MAX).await.unwrap();
    let text = protoc_agrees(&gnostic, ("openapiv2/OpenAPIv2.proto", "openapi.v2"), "Document", &bytes);
    assert!(text.starts_with("swagger: \"2.0\"\ninfo {\n  title: \"Kubernetes\""), "{}", &text[..200]);
    for expected in [
        "name: \"io.k8s.api.certificates.v1.CertificateSigningRequest\"",
        "_ref: \"#/definitions/io.k8s.api.certificates.v1.CertificateSigningRequestSpec\"",
        "name: \"x-kubernetes-group-version-kind\"",
        "name: \"x-kubernetes-patch-strategy\"",
        "name: \"/apis/certificates.k8s.io/v1/certificatesigningrequests/{name}/approval\"",
        "name: \"com.coreos.monitoring.v1.Probe\"",
        "api_key_security {",
    ] {
        assert!(text.contains(expected), "{expected} is not in the document");
    }
}
