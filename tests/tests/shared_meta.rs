//! Generated crates share the runtime's meta types: two crates in one program have one
//! `ObjectMeta`, and it is the runtime's, with its encodings and checks.

use kube_apigen::Validate;
use kube_apigen::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};

#[test]
fn two_generated_crates_have_one_object_meta() {
    let meta =
        generated::apimachinery::pkg::apis::meta::v1::ObjectMeta { name: Some("one".to_owned()), ..Default::default() };
    // The same type under three paths: this compiles only if it is one type.
    let in_fixture: fixture_api::apimachinery::pkg::apis::meta::v1::ObjectMeta = meta;
    let in_runtime: ObjectMeta = in_fixture;
    let csr = generated::api::certificates::v1::CertificateSigningRequest {
        metadata: Some(in_runtime),
        ..Default::default()
    };
    let json = serde_json::to_value(&csr).expect("encodes");
    assert_eq!(json["metadata"], serde_json::json!({"name": "one"}));
}

#[test]
fn the_runtimes_object_meta_keeps_its_checks() {
    let owner = |name: &str| OwnerReference {
        api_version: "v1".to_owned(),
        kind: "ConfigMap".to_owned(),
        name: name.to_owned(),
        uid: "same".to_owned(),
        ..Default::default()
    };
    let meta = ObjectMeta {
        finalizers: Some(vec!["a/b".to_owned(), "a/b".to_owned()]),
        owner_references: Some(vec![owner("first"), owner("second")]),
        ..Default::default()
    };
    let errors: Vec<String> = meta.validate().iter().map(ToString::to_string).collect();
    assert_eq!(
        errors,
        [r#"finalizers[1]: Duplicate value: "a/b""#, r#"ownerReferences[1]: Duplicate value: {"uid":"same"}"#,],
    );
}
