//! `.proto` files beside the specs: which models get a protobuf codec, and how the files
//! must agree with the schemas (a field of the wrong type is an error at its line; a
//! property the message lacks costs the model its codec, with a note; a field the schema
//! lacks is noted and skipped).

use std::path::Path;

use kube_apigen_codegen::ir::{Api, ProtoLabel, TypeKind};

use crate::common::{emit, temp_dir, write_file};

const SCHEMA: &str = r#"openapi: 3.0.0
info: {title: demo, version: v1}
paths: {}
components:
  schemas:
    io.k8s.api.demo.v1.Thing:
      type: object
      properties:
        name: {type: string}
        count: {type: integer, format: int32}
        tags: {type: array, items: {type: string}}
        labels: {type: object, additionalProperties: {type: string}}
        inner: {$ref: '#/components/schemas/io.k8s.api.demo.v1.Inner'}
    io.k8s.api.demo.v1.Inner:
      type: object
      properties:
        verbs: {type: array, items: {type: string}}
        raw: {type: object, x-kubernetes-preserve-unknown-fields: true}
"#;

const PROTO_PATH: &str = "proto/k8s.io/api/demo/v1/generated.proto";

/// The messages of [`SCHEMA`], with `thing` as the body of message `Thing`.
fn proto(thing: &str) -> String {
    format!(
        r#"syntax = "proto2";
package k8s.io.api.demo.v1;
option go_package = "k8s.io/api/demo/v1";

message Thing {{
{thing}
}}

message Inner {{
  optional Verbs verbs = 1;
  optional Raw raw = 2;
}}

message Verbs {{
  repeated string items = 1;
}}

message Raw {{
  optional bytes raw = 1;
}}
"#
    )
}

const THING: &str = "  optional string name = 1;
  optional int32 count = 2;
  repeated string tags = 3;
  map<string, string> labels = 4;
  optional Inner inner = 5;";

fn read(specs: &Path) -> kube_apigen_codegen::Result<Api> {
    kube_apigen_codegen::read_api(specs).map(|(api, _)| api)
}

fn specs_with(thing: &str) -> tempfile::TempDir {
    let dir = temp_dir();
    write_file(&dir.path().join("demo.yaml"), SCHEMA);
    write_file(&dir.path().join(PROTO_PATH), proto(thing));
    dir
}

fn message_of<'a>(api: &'a Api, type_name: &str) -> Option<&'a kube_apigen_codegen::ir::ProtoMessage> {
    let id = api.type_ids().find(|&id| api.ty(id).name == type_name).expect("the type exists");
    api.protobuf.messages.get(&id)
}

#[test]
fn matching_messages_give_codecs_with_their_numbers() {
    let dir = specs_with(THING);
    let api = read(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(api.notes, Vec::<String>::new());
    let thing = message_of(&api, "Thing").expect("Thing has a codec");
    assert_eq!(thing.name, "k8s.io.api.demo.v1.Thing");
    let id = api.type_ids().find(|&id| api.ty(id).name == "Thing").expect("Thing");
    let TypeKind::Struct(s) = &api.ty(id).kind else { panic!("Thing is a struct") };
    let mut numbers: Vec<(&str, u32, ProtoLabel)> = s
        .fields
        .iter()
        .zip(&thing.fields)
        .map(|(field, proto)| {
            let proto = proto.expect("every field has a number");
            (field.wire_name.as_str(), proto.number, proto.label)
        })
        .collect();
    numbers.sort_by_key(|(_, number, _)| *number);
    assert_eq!(
        numbers,
        [
            ("name", 1, ProtoLabel::Single),
            ("count", 2, ProtoLabel::Single),
            ("tags", 3, ProtoLabel::Repeated),
            ("labels", 4, ProtoLabel::Map),
            ("inner", 5, ProtoLabel::Single)
        ]
    );
    // A list that is one value (`Verbs`) and free-form JSON (`Raw`) fit their messages.
    assert!(message_of(&api, "Inner").is_some());
    let files = emit(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    let thing_rs = files.iter().find(|(path, _)| path.ends_with("thing.rs")).map(|(_, text)| text).expect("thing.rs");
    assert!(thing_rs.contains("impl protobuf::Message for Thing"), "{thing_rs}");
    assert!(thing_rs.contains("protobuf::encode_map(4, map, buf)"), "{thing_rs}");
}

#[test]
fn a_field_of_the_wrong_type_is_an_error_at_its_line() {
    let dir = specs_with(&THING.replace("optional int32 count = 2;", "optional string count = 2;"));
    let error = read(dir.path()).expect_err("a string field for an int32 property");
    assert_eq!(
        error.to_string(),
        format!(
            "{}/{PROTO_PATH}:7:3: field `count` (2) of message k8s.io.api.demo.v1.Thing is string, which does not fit \
             property `count` of io.k8s.api.demo.v1.Thing: an int32 integer",
            dir.path().file_name().unwrap().to_string_lossy()
        )
    );
    let dir = specs_with(&THING.replace("repeated string tags = 3;", "optional string tags = 3;"));
    let error = read(dir.path()).expect_err("a single field for a list");
    assert!(error.to_string().contains("field `tags` (3) of message k8s.io.api.demo.v1.Thing is string"), "{error}");
}

#[test]
fn a_property_the_message_lacks_costs_the_codec_of_its_type_and_of_those_holding_it() {
    let dir = specs_with(THING);
    write_file(&dir.path().join(PROTO_PATH), proto(THING).replace("  optional Raw raw = 2;\n", ""));
    let api = read(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert!(message_of(&api, "Inner").is_none());
    assert!(message_of(&api, "Thing").is_none());
    assert_eq!(
        api.notes,
        [
            "io.k8s.api.demo.v1.Inner has no protobuf codec: its property `raw` is not a field of message k8s.io.api.demo.v1.Inner",
            "io.k8s.api.demo.v1.Thing has no protobuf codec: it holds io.k8s.api.demo.v1.Inner, which has none",
        ]
    );
    let files = emit(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert!(!files.values().any(|text| text.contains("impl protobuf::Message")));
}

#[test]
fn a_field_the_schema_lacks_is_noted_and_skipped() {
    let dir = specs_with(&format!("{THING}\n  optional string extra = 9;"));
    let api = read(dir.path()).unwrap_or_else(|e| panic!("{e}"));
    assert!(message_of(&api, "Thing").is_some());
    assert_eq!(
        api.notes,
        [
            "field `extra` (9) of message k8s.io.api.demo.v1.Thing is not a property of io.k8s.api.demo.v1.Thing: decoding skips it"
        ]
    );
}

#[test]
fn a_malformed_proto_file_is_an_error_at_its_line() {
    let dir = specs_with(&THING.replace("optional int32 count = 2;", "optional int32 count = ;"));
    let error = read(dir.path()).expect_err("a syntax error");
    let text = error.to_string();
    assert!(
        text.starts_with(&format!("{}/{PROTO_PATH}:7:", dir.path().file_name().unwrap().to_string_lossy())),
        "{text}"
    );
}

#[test]
fn support_messages_must_be_written_as_the_support_crate_writes_them() {
    let dir = specs_with(THING);
    write_file(
        &dir.path().join("proto/k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto"),
        "syntax = \"proto2\";\npackage k8s.io.apimachinery.pkg.apis.meta.v1;\n\
         option go_package = \"k8s.io/apimachinery/pkg/apis/meta/v1\";\n\
         message Time {\n  optional int64 seconds = 2;\n  optional int32 nanos = 1;\n}\n",
    );
    let error = read(dir.path()).expect_err("numbers swapped");
    assert!(
        error.to_string().ends_with(
            "message k8s.io.apimachinery.pkg.apis.meta.v1.Time must have the fields the runtime encodes it with \
             (1 = seconds: int64; 2 = nanos: int32), not (1 = nanos: int32; 2 = seconds: int64)"
        ),
        "{error}"
    );
}
