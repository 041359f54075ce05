//! One synthetic change per rule, each as an OpenAPI document and as a
//! CustomResourceDefinition where the format can state it, with the exact report entries
//! it must give (see [`super::line`] for their shape).

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::Target::{Document, Spec, Status};
use super::{Edit, Format, Target, changes, line, unchanged};
use crate::diff::Rule;

struct Case {
    name: &'static str,
    target: Target,
    old: Edit,
    new: Edit,
    /// The entries for each format; `None` where the format cannot state the change.
    openapi: Option<&'static [&'static str]>,
    crd: Option<&'static [&'static str]>,
}

fn property<'v>(schema: &'v mut Value, name: &str) -> &'v mut Value {
    &mut schema["properties"][name]
}

fn remove(schema: &mut Value, name: &str) {
    schema["properties"].as_object_mut().expect("properties").remove(name);
}

fn set(schema: &mut Value, name: &str, key: &str, value: Value) {
    property(schema, name)[key] = value;
}

fn unset(schema: &mut Value, name: &str, key: &str) {
    property(schema, name).as_object_mut().expect("a schema").remove(key);
}

/// `demo.k8s.io/v1` renamed to `version` throughout an OpenAPI document.
fn openapi_version(document: &mut Value, version: &str) {
    let text = document
        .to_string()
        .replace("/apis/demo.k8s.io/v1/", &format!("/apis/demo.k8s.io/{version}/"))
        .replace(r#""version":"v1""#, &format!(r#""version":"{version}""#))
        .replace("io.k8s.demo.v1.", &format!("io.k8s.demo.{version}."));
    *document = serde_json::from_str(&text).expect("still JSON");
}

/// A second kind, Gadget, beside Widget in an OpenAPI document.
fn with_gadget(document: &mut Value) {
    let gadget: Value =
        serde_json::from_str(&document.to_string().replace("widgets", "gadgets").replace("Widget", "Gadget"))
            .expect("still JSON");
    for section in ["/paths", "/components/schemas"] {
        let from = gadget.pointer(section).and_then(Value::as_object).expect("a section").clone();
        document.pointer_mut(section).and_then(Value::as_object_mut).expect("a section").extend(from);
    }
}

/// Gadget beside Widget, its `spec` the schema of Widget's.
fn with_gadget_sharing_the_spec(document: &mut Value) {
    with_gadget(document);
    let spec = &mut document["components"]["schemas"]["io.k8s.demo.v1.Gadget"]["properties"]["spec"];
    *spec = json!({"allOf": [{"$ref": "#/components/schemas/io.k8s.demo.v1.WidgetSpec"}], "default": {}});
}

/// The second version of the CRD: a copy of `v1` named `v2`, served.
fn crd_with_v2(document: &mut Value) {
    let mut v2 = document["spec"]["versions"][0].clone();
    v2["name"] = json!("v2");
    v2["storage"] = json!(false);
    document["spec"]["versions"].as_array_mut().expect("versions").push(v2);
}

const CASES: &[Case] = &[
    // Resources and versions.
    Case {
        name: "a version renamed",
        target: Document,
        old: unchanged,
        new: |d| openapi_version(d, "v2"),
        openapi: Some(&[
            r#"breaking version-removed : "widgets" → —; group/version removed; the kind is still served in v2 => major: type Widget and trait WidgetApi removed"#,
            r#"[demo.k8s.io/v2 Widget] compatible version-added : — → "widgets"; group/version added => minor: new type Widget and trait WidgetApi"#,
        ]),
        crd: None,
    },
    Case {
        name: "a version renamed",
        target: Document,
        old: unchanged,
        new: |d| d["spec"]["versions"][0]["name"] = json!("v2"),
        openapi: None,
        crd: Some(&[
            r#"breaking version-removed : "widgets" → —; group/version removed; the kind is still served in v2 => major: type Widget and trait WidgetApi removed"#,
            r#"[demo.k8s.io/v2 Widget] review storage-version-changed : "v1" → "v2"; storage version v1 → v2 => patch: the resources' storage_version flags change"#,
            r#"[demo.k8s.io/v2 Widget] compatible version-added : — → "widgets"; group/version added => minor: new type Widget and trait WidgetApi"#,
        ]),
    },
    Case {
        name: "a version no longer served",
        target: Document,
        old: |d| {
            crd_with_v2(d);
        },
        new: |d| {
            crd_with_v2(d);
            d["spec"]["versions"][0]["served"] = json!(false);
        },
        openapi: None,
        crd: Some(&[
            r#"breaking version-unserved : "widgets" → —; version no longer served; the kind is still served in v2 => major: type Widget and trait WidgetApi removed"#,
        ]),
    },
    Case {
        name: "a kind removed from its version",
        target: Document,
        old: with_gadget,
        new: unchanged,
        openapi: Some(&[
            r#"[demo.k8s.io/v1 Gadget] breaking kind-removed : "gadgets" → —; kind removed from the version => major: type Gadget and trait GadgetApi removed"#,
        ]),
        crd: None,
    },
    Case {
        name: "a kind added to a version",
        target: Document,
        old: unchanged,
        new: with_gadget,
        openapi: Some(&[
            r#"[demo.k8s.io/v1 Gadget] compatible kind-added : — → "gadgets"; kind added => minor: new type Gadget and trait GadgetApi"#,
        ]),
        crd: None,
    },
    Case {
        name: "the resource renamed",
        target: Document,
        old: unchanged,
        new: |d| {
            d["metadata"]["name"] = json!("gizmos.demo.k8s.io");
            d["spec"]["names"]["plural"] = json!("gizmos");
        },
        openapi: None,
        crd: Some(&[
            r#"breaking resource-renamed : "widgets" → "gizmos"; served as widgets → gizmos => patch: the routes and the resource info name the new plural"#,
        ]),
    },
    Case {
        name: "the scope changed",
        target: Document,
        old: unchanged,
        new: |d| d["spec"]["scope"] = json!("Cluster"),
        openapi: None,
        crd: Some(&[
            r#"breaking scope-changed : "Namespaced" → "Cluster"; scope Namespaced → Cluster => major: the path parameters of the methods of WidgetApi change"#,
        ]),
    },
    Case {
        name: "the storage version moved",
        target: Document,
        old: crd_with_v2,
        new: |d| {
            crd_with_v2(d);
            d["spec"]["versions"][0]["storage"] = json!(false);
            d["spec"]["versions"][1]["storage"] = json!(true);
        },
        openapi: None,
        crd: Some(&[
            r#"[demo.k8s.io/v2 Widget] review storage-version-changed : "v1" → "v2"; storage version v1 → v2 => patch: the resources' storage_version flags change"#,
        ]),
    },
    Case {
        name: "a version deprecated",
        target: Document,
        old: unchanged,
        new: |d| {
            d["components"]["schemas"]["io.k8s.demo.v1.Widget"]["x-kubernetes-deprecation-warning"] =
                json!("demo.k8s.io/v1 Widget is deprecated; use v2")
        },
        openapi: Some(&[
            r#"review version-deprecated : — → "demo.k8s.io/v1 Widget is deprecated; use v2"; version deprecated => patch: responses carry a different deprecation warning"#,
        ]),
        crd: None,
    },
    Case {
        name: "a version deprecated",
        target: Document,
        old: unchanged,
        new: |d| d["spec"]["versions"][0]["deprecated"] = json!(true),
        openapi: None,
        crd: Some(&[
            r#"review version-deprecated : — → "demo.k8s.io/v1 Widget is deprecated"; version deprecated => patch: responses carry a different deprecation warning"#,
        ]),
    },
    Case {
        name: "a version no longer deprecated",
        target: Document,
        old: |d| d["spec"]["versions"][0]["deprecated"] = json!(true),
        new: unchanged,
        openapi: None,
        crd: Some(&[
            r#"compatible version-undeprecated : "demo.k8s.io/v1 Widget is deprecated" → —; version no longer deprecated => patch: responses carry a different deprecation warning"#,
        ]),
    },
    Case {
        name: "a verb removed",
        target: Document,
        old: unchanged,
        new: |d| {
            let item = &mut d["paths"]["/apis/demo.k8s.io/v1/namespaces/{namespace}/widgets/{name}"];
            item.as_object_mut().expect("a path item").remove("delete");
        },
        openapi: Some(&[
            r#"breaking verb-removed verbs/delete: "delete" → —; verb delete removed => major: WidgetApi::delete removed"#,
        ]),
        crd: None,
    },
    Case {
        name: "a verb added",
        target: Document,
        old: |d| {
            let item = &mut d["paths"]["/apis/demo.k8s.io/v1/namespaces/{namespace}/widgets/{name}"];
            item.as_object_mut().expect("a path item").remove("delete");
        },
        new: unchanged,
        openapi: Some(&[
            r#"compatible verb-added verbs/delete: — → "delete"; verb delete added => minor: new WidgetApi::delete, answering 405 until implemented"#,
        ]),
        crd: None,
    },
    Case {
        name: "the status subresource removed",
        target: Document,
        old: unchanged,
        new: |d| {
            d["paths"]
                .as_object_mut()
                .expect("paths")
                .remove("/apis/demo.k8s.io/v1/namespaces/{namespace}/widgets/{name}/status");
        },
        openapi: Some(&[
            r#"breaking subresource-removed subresources/status: "status" → —; subresource status removed => major: WidgetApi::read_status, WidgetApi::replace_status removed"#,
        ]),
        crd: None,
    },
    Case {
        name: "the status subresource removed",
        target: Document,
        old: unchanged,
        new: |d| {
            d["spec"]["versions"][0].as_object_mut().expect("a version").remove("subresources").map(drop).unwrap_or(())
        },
        openapi: None,
        crd: Some(&[
            r#"breaking subresource-removed subresources/status: "status" → —; subresource status removed => major: WidgetApi::read_status, WidgetApi::patch_status, WidgetApi::replace_status removed"#,
        ]),
    },
    Case {
        name: "the scale subresource added",
        target: Document,
        old: unchanged,
        new: |d| {
            d["spec"]["versions"][0]["subresources"]["scale"] =
                json!({"specReplicasPath": ".spec.replicas", "statusReplicasPath": ".status.replicas"})
        },
        openapi: None,
        crd: Some(&[
            r#"compatible subresource-added subresources/scale: — → "scale"; subresource scale added => minor: new WidgetApi::read_scale, WidgetApi::patch_scale, WidgetApi::replace_scale"#,
        ]),
    },
    Case {
        name: "the status subresource added",
        target: Document,
        old: |d| {
            d["spec"]["versions"][0].as_object_mut().expect("a version").remove("subresources").map(drop).unwrap_or(())
        },
        new: unchanged,
        openapi: None,
        crd: Some(&[
            r#"review subresource-added subresources/status: — → "status"; subresource status added; writes to the resource itself now ignore status => minor: new WidgetApi::read_status, WidgetApi::patch_status, WidgetApi::replace_status"#,
        ]),
    },
    Case {
        name: "short names and categories changed",
        target: Document,
        old: unchanged,
        new: |d| {
            let widget = &mut d["components"]["schemas"]["io.k8s.demo.v1.Widget"];
            widget["x-kubernetes-short-names"] = json!(["wdg"]);
            widget["x-kubernetes-categories"] = json!(["demo"]);
        },
        openapi: Some(&[
            r#"breaking short-name-removed shortNames/wd: "wd" → —; short name wd removed => patch: the resource info's discovery names change"#,
            r#"review category-removed categories/all: "all" → —; category all removed => patch: the resource info's discovery names change"#,
            r#"compatible category-added categories/demo: — → "demo"; category demo added => patch: the resource info's discovery names change"#,
            r#"compatible short-name-added shortNames/wdg: — → "wdg"; short name wdg added => patch: the resource info's discovery names change"#,
        ]),
        crd: None,
    },
    Case {
        name: "short names and categories changed",
        target: Document,
        old: unchanged,
        new: |d| {
            d["spec"]["names"]["shortNames"] = json!(["wdg"]);
            d["spec"]["names"]["categories"] = json!(["demo"]);
        },
        openapi: None,
        crd: Some(&[
            r#"breaking short-name-removed shortNames/wd: "wd" → —; short name wd removed => patch: the resource info's discovery names change"#,
            r#"review category-removed categories/all: "all" → —; category all removed => patch: the resource info's discovery names change"#,
            r#"compatible category-added categories/demo: — → "demo"; category demo added => patch: the resource info's discovery names change"#,
            r#"compatible short-name-added shortNames/wdg: — → "wdg"; short name wdg added => patch: the resource info's discovery names change"#,
        ]),
    },
    Case {
        name: "printer columns changed",
        target: Document,
        old: |d| {
            d["components"]["schemas"]["io.k8s.demo.v1.Widget"]["x-kubernetes-printer-columns"] = json!([
                {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                {"name": "Mode", "type": "string", "jsonPath": ".spec.mode"},
            ])
        },
        new: |d| {
            d["components"]["schemas"]["io.k8s.demo.v1.Widget"]["x-kubernetes-printer-columns"] = json!([
                {"name": "Replicas", "type": "integer", "jsonPath": ".status.replicas"},
                {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
            ])
        },
        openapi: Some(&[
            r#"compatible printer-column-removed additionalPrinterColumns/Mode: {"format":"","jsonPath":".spec.mode","priority":0,"type":"string"} → —; printer column Mode removed => patch: the Table columns change"#,
            r#"compatible printer-column-added additionalPrinterColumns/Phase: — → {"format":"","jsonPath":".status.phase","priority":0,"type":"string"}; printer column Phase added => patch: the Table columns change"#,
            r#"compatible printer-column-changed additionalPrinterColumns/Replicas: {"format":"","jsonPath":".spec.replicas","priority":0,"type":"integer"} → {"format":"","jsonPath":".status.replicas","priority":0,"type":"integer"}; printer column Replicas changed => patch: the Table columns change"#,
        ]),
        crd: None,
    },
    Case {
        name: "printer columns changed",
        target: Document,
        old: |d| {
            d["spec"]["versions"][0]["additionalPrinterColumns"] = json!([
                {"name": "Replicas", "type": "integer", "jsonPath": ".spec.replicas"},
                {"name": "Mode", "type": "string", "jsonPath": ".spec.mode"},
            ])
        },
        new: |d| {
            d["spec"]["versions"][0]["additionalPrinterColumns"] = json!([
                {"name": "Replicas", "type": "integer", "jsonPath": ".status.replicas"},
                {"name": "Phase", "type": "string", "jsonPath": ".status.phase"},
            ])
        },
        openapi: None,
        crd: Some(&[
            r#"compatible printer-column-removed additionalPrinterColumns/Mode: {"format":"","jsonPath":".spec.mode","priority":0,"type":"string"} → —; printer column Mode removed => patch: the Table columns change"#,
            r#"compatible printer-column-added additionalPrinterColumns/Phase: — → {"format":"","jsonPath":".status.phase","priority":0,"type":"string"}; printer column Phase added => patch: the Table columns change"#,
            r#"compatible printer-column-changed additionalPrinterColumns/Replicas: {"format":"","jsonPath":".spec.replicas","priority":0,"type":"integer"} → {"format":"","jsonPath":".status.replicas","priority":0,"type":"integer"}; printer column Replicas changed => patch: the Table columns change"#,
        ]),
    },
    Case {
        name: "query parameters changed",
        target: Document,
        old: unchanged,
        new: |d| {
            let list = &mut d["paths"]["/apis/demo.k8s.io/v1/namespaces/{namespace}/widgets"]["get"];
            list["parameters"] = json!([
                {"name": "watch", "in": "query", "schema": {"type": "boolean"}},
                {"name": "continue", "in": "query", "schema": {"type": "string"}},
            ]);
        },
        openapi: Some(&[
            r#"breaking query-parameter-removed list?limit: "limit" → —; query parameter limit of list removed => major: field ListParams::limit removed"#,
            r#"breaking query-parameter-removed watch?limit: "limit" → —; query parameter limit of watch removed => major: field ListParams::limit removed"#,
            r#"compatible query-parameter-added list?continue: — → "continue"; query parameter continue of list added => major: new field ListParams::continue_ (struct literals must name it)"#,
            r#"compatible query-parameter-added watch?continue: — → "continue"; query parameter continue of watch added => major: new field ListParams::continue_ (struct literals must name it)"#,
        ]),
        crd: None,
    },
    Case {
        name: "patch types changed",
        target: Document,
        old: unchanged,
        new: |d| {
            let patch = &mut d["paths"]["/apis/demo.k8s.io/v1/namespaces/{namespace}/widgets/{name}"]["patch"];
            patch["requestBody"]["content"] = json!({
                "application/merge-patch+json": {"schema": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}},
                "application/apply-patch+yaml": {"schema": {"$ref": "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.Patch"}},
            });
        },
        openapi: Some(&[
            r#"breaking patch-type-removed patch[application/json-patch+json]: "application/json-patch+json" → —; patch type application/json-patch+json of patch removed => patch: the router's accepted patch types change"#,
            r#"compatible patch-type-added patch[application/apply-patch+yaml]: — → "application/apply-patch+yaml"; patch type application/apply-patch+yaml of patch added => patch: the router's accepted patch types change"#,
        ]),
        crd: None,
    },
    // Fields.
    Case {
        name: "a field removed",
        target: Spec,
        old: unchanged,
        new: |s| remove(s, "name"),
        openapi: Some(&[
            r#"breaking field-removed spec.name: "string" → —; field removed (was string) => major: field WidgetSpec::name removed"#,
        ]),
        crd: Some(&[
            r#"breaking field-removed spec.name: "string" → —; field removed (was string) => major: field WidgetSpec::name removed"#,
        ]),
    },
    Case {
        name: "a field removed from a schema two kinds share",
        target: Document,
        old: with_gadget_sharing_the_spec,
        new: |d| {
            with_gadget_sharing_the_spec(d);
            remove(&mut d["components"]["schemas"]["io.k8s.demo.v1.WidgetSpec"], "name");
        },
        openapi: Some(&[
            r#"[demo.k8s.io/v1 Gadget] breaking field-removed spec.name: "string" → —; field removed (was string) => major: field WidgetSpec::name removed"#,
            r#"breaking field-removed spec.name: "string" → —; field removed (was string) => major: field WidgetSpec::name removed"#,
        ]),
        crd: None,
    },
    Case {
        name: "an optional field added",
        target: Spec,
        old: unchanged,
        new: |s| *property(s, "size") = json!({"type": "integer"}),
        openapi: Some(&[
            r#"compatible field-added spec.size: — → "integer"; field added (integer) => major: new field WidgetSpec::size (struct literals must name it)"#,
        ]),
        crd: Some(&[
            r#"compatible field-added spec.size: — → "integer"; field added (integer) => major: new field WidgetSpec::size (struct literals must name it)"#,
        ]),
    },
    Case {
        name: "a required field added",
        target: Spec,
        old: unchanged,
        new: |s| {
            *property(s, "size") = json!({"type": "integer"});
            s["required"] = json!(["replicas", "size"]);
        },
        openapi: Some(&[
            r#"breaking required-field-added spec.size: — → "integer"; required field added (integer) => major: new field WidgetSpec::size (struct literals must name it)"#,
        ]),
        crd: Some(&[
            r#"breaking required-field-added spec.size: — → "integer"; required field added (integer); validation ratcheting does not cover `required` => major: new field WidgetSpec::size (struct literals must name it)"#,
        ]),
    },
    Case {
        name: "a required field with a default added",
        target: Spec,
        old: unchanged,
        new: |s| {
            *property(s, "size") = json!({"type": "integer", "default": 3});
            s["required"] = json!(["replicas", "size"]);
        },
        openapi: None,
        crd: Some(&[
            r#"compatible required-field-added spec.size: — → "integer"; required field added (integer); it has a default, which requests without it get => major: new field WidgetSpec::size (struct literals must name it)"#,
        ]),
    },
    Case {
        name: "a required status field added",
        target: Status,
        old: unchanged,
        new: |s| {
            *property(s, "observedGeneration") = json!({"type": "integer", "format": "int64"});
            s["required"] = json!(["observedGeneration"]);
        },
        openapi: Some(&[
            r#"compatible required-field-added status.observedGeneration: — → "integer (int64)"; required field added (integer (int64)); status may tighten: clients see a subset of the values they saw => major: new field WidgetStatus::observed_generation (struct literals must name it)"#,
        ]),
        crd: Some(&[
            r#"compatible required-field-added status.observedGeneration: — → "integer (int64)"; required field added (integer (int64)); status may tighten: clients see a subset of the values they saw => major: new field WidgetStatus::observed_generation (struct literals must name it)"#,
        ]),
    },
    Case {
        name: "a field retyped",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "name", "type", json!("integer")),
        openapi: Some(&[
            r#"breaking field-type-changed spec.name: "string" → "integer"; type string → integer => major: WidgetSpec::name: Option<String> → Option<i64>"#,
        ]),
        crd: Some(&[
            r#"breaking field-type-changed spec.name: "string" → "integer"; type string → integer => major: WidgetSpec::name: Option<String> → Option<i64>"#,
        ]),
    },
    Case {
        name: "a list's items retyped",
        target: Spec,
        old: unchanged,
        new: |s| property(s, "tags")["items"] = json!({"type": "integer"}),
        openapi: Some(&[
            r#"breaking field-type-changed spec.tags[*]: "string" → "integer"; type string → integer => major: WidgetSpec::tags: Option<Vec<String>> → Option<Vec<i64>>"#,
        ]),
        crd: Some(&[
            r#"breaking field-type-changed spec.tags[*]: "string" → "integer"; type string → integer => major: WidgetSpec::tags: Option<Vec<String>> → Option<Vec<i64>>"#,
        ]),
    },
    Case {
        name: "a format changed",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "replicas", "format", json!("int64")),
        openapi: Some(&[
            r#"breaking format-changed spec.replicas: "int32" → "int64"; format int32 → int64 => major: WidgetSpec::replicas: i32 → i64"#,
        ]),
        crd: Some(&[
            r#"breaking format-changed spec.replicas: "int32" → "int64"; format int32 → int64 => major: WidgetSpec::replicas: Option<i32> → Option<i64>"#,
        ]),
    },
    Case {
        name: "int-or-string removed",
        target: Spec,
        old: |s| *property(s, "port") = json!({"x-kubernetes-int-or-string": true}),
        new: |s| *property(s, "port") = json!({"type": "integer"}),
        openapi: Some(&[
            r#"breaking int-or-string-removed spec.port: "IntOrString" → "integer"; type IntOrString → integer => major: WidgetSpec::port: Option<IntOrString> → Option<i64>"#,
        ]),
        crd: Some(&[
            r#"breaking int-or-string-removed spec.port: "IntOrString" → "integer"; type IntOrString → integer => major: WidgetSpec::port: Option<IntOrString> → Option<i64>"#,
        ]),
    },
    Case {
        name: "preserve-unknown-fields removed",
        target: Spec,
        old: |s| {
            *property(s, "config") = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                "properties": {"level": {"type": "string"}}})
        },
        new: |s| *property(s, "config") = json!({"type": "object", "properties": {"level": {"type": "string"}}}),
        openapi: Some(&[
            "breaking preserve-unknown-fields-removed spec.config: true → false; x-kubernetes-preserve-unknown-fields: unknown fields pruned => major: field WidgetSpecConfig::unknown_fields removed",
        ]),
        crd: Some(&[
            "breaking preserve-unknown-fields-removed spec.config: true → false; x-kubernetes-preserve-unknown-fields: unknown fields pruned => major: field WidgetConfig::unknown_fields removed",
        ]),
    },
    Case {
        name: "preserve-unknown-fields added",
        target: Spec,
        old: |s| *property(s, "config") = json!({"type": "object", "properties": {"level": {"type": "string"}}}),
        new: |s| {
            *property(s, "config") = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                "properties": {"level": {"type": "string"}}})
        },
        openapi: Some(&[
            "review preserve-unknown-fields-added spec.config: false → true; x-kubernetes-preserve-unknown-fields: unknown fields kept => major: new field WidgetSpecConfig::unknown_fields",
        ]),
        crd: Some(&[
            "review preserve-unknown-fields-added spec.config: false → true; x-kubernetes-preserve-unknown-fields: unknown fields kept => major: new field WidgetConfig::unknown_fields",
        ]),
    },
    Case {
        name: "an optional field made required",
        target: Spec,
        old: unchanged,
        new: |s| s["required"] = json!(["replicas", "name"]),
        openapi: Some(&[
            r#"breaking field-became-required spec.name: "optional" → "required"; optional → required => major: WidgetSpec::name: Option<String> → String; validate() rejects values it accepted"#,
        ]),
        crd: Some(&[
            r#"breaking field-became-required spec.name: "optional" → "required"; optional → required; validation ratcheting does not cover `required` => patch: validate() rejects values it accepted"#,
        ]),
    },
    Case {
        name: "a required field made optional",
        target: Spec,
        old: unchanged,
        new: |s| s["required"] = json!([]),
        openapi: Some(&[
            r#"review field-became-optional spec.replicas: "required" → "optional"; required → optional => major: WidgetSpec::replicas: i32 → Option<i32>; validate() accepts values it rejected"#,
        ]),
        crd: Some(&[
            r#"review field-became-optional spec.replicas: "required" → "optional"; required → optional => patch: validate() accepts values it rejected"#,
        ]),
    },
    Case {
        name: "nullable removed",
        target: Spec,
        old: |s| set(s, "name", "nullable", json!(true)),
        new: unchanged,
        openapi: Some(&[
            "breaking nullable-removed spec.name: true → false; nullable true → false => patch: validate() rejects values it accepted",
        ]),
        crd: Some(&[
            "review nullable-removed spec.name: true → false; nullable true → false; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted",
        ]),
    },
    Case {
        name: "nullable added",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "name", "nullable", json!(true)),
        openapi: Some(&[
            "review nullable-added spec.name: false → true; nullable false → true => patch: validate() accepts values it rejected",
        ]),
        crd: Some(&[
            "review nullable-added spec.name: false → true; nullable false → true => patch: validate() accepts values it rejected",
        ]),
    },
    // Enums.
    Case {
        name: "enum values removed and added",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "mode", "enum", json!(["Fast", "Off"])),
        openapi: Some(&[
            r#"breaking enum-value-removed spec.mode: "Slow" → —; enum value Slow removed => major: variant WidgetSpecMode::Slow removed"#,
            r#"review enum-value-added spec.mode: — → "Off"; enum value Off added => major: new variant WidgetSpecMode::Off"#,
        ]),
        crd: Some(&[
            r#"review enum-value-removed spec.mode: "Slow" → —; enum value Slow removed; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => major: variant WidgetSpecMode::Slow removed"#,
            r#"review enum-value-added spec.mode: — → "Off"; enum value Off added => major: new variant WidgetSpecMode::Off"#,
        ]),
    },
    Case {
        name: "an enum value removed from status",
        target: Status,
        old: unchanged,
        new: |s| set(s, "phase", "enum", json!(["Ready"])),
        openapi: Some(&[
            r#"compatible enum-value-removed status.phase: "Pending" → —; enum value Pending removed; status may tighten: clients see a subset of the values they saw => major: variant WidgetStatusPhase::Pending removed"#,
        ]),
        crd: Some(&[
            r#"compatible enum-value-removed status.phase: "Pending" → —; enum value Pending removed; status may tighten: clients see a subset of the values they saw => major: variant WidgetStatusPhase::Pending removed"#,
        ]),
    },
    Case {
        name: "an enum introduced",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "name", "enum", json!(["a", "b"])),
        openapi: Some(&[
            r#"breaking enum-introduced spec.name: — → ["a","b"]; enum introduced: a, b => major: WidgetSpec::name: Option<String> → Option<WidgetSpecName>; validate() rejects values it accepted"#,
        ]),
        crd: Some(&[
            r#"review enum-introduced spec.name: — → ["a","b"]; enum introduced: a, b; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => major: WidgetSpec::name: Option<String> → Option<WidgetSpecName>; validate() rejects values it accepted"#,
        ]),
    },
    Case {
        name: "an enum lifted",
        target: Spec,
        old: unchanged,
        new: |s| unset(s, "mode", "enum"),
        openapi: Some(&[
            r#"review enum-lifted spec.mode: ["Fast","Slow"] → —; enum lifted (was Fast, Slow) => major: WidgetSpec::mode: Option<WidgetSpecMode> → Option<String>; validate() accepts values it rejected"#,
        ]),
        crd: Some(&[
            r#"review enum-lifted spec.mode: ["Fast","Slow"] → —; enum lifted (was Fast, Slow) => major: WidgetSpec::mode: Option<WidgetSpecMode> → Option<String>; validate() accepts values it rejected"#,
        ]),
    },
    // Validation keywords.
    Case {
        name: "minimum raised",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "replicas", "minimum", json!(1)),
        openapi: Some(&[
            r#"breaking minimum-tightened spec.replicas: ">= 0" → ">= 1"; minimum >= 0 → >= 1 => patch: validate() rejects values it accepted"#,
        ]),
        crd: Some(&[
            r#"review minimum-tightened spec.replicas: ">= 0" → ">= 1"; minimum >= 0 → >= 1; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted"#,
        ]),
    },
    Case {
        name: "minimum made exclusive",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "replicas", "exclusiveMinimum", json!(true)),
        openapi: Some(&[
            r#"breaking minimum-tightened spec.replicas: ">= 0" → "> 0"; minimum >= 0 → > 0 => patch: validate() rejects values it accepted"#,
        ]),
        crd: Some(&[
            r#"review minimum-tightened spec.replicas: ">= 0" → "> 0"; minimum >= 0 → > 0; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted"#,
        ]),
    },
    Case {
        name: "minimum removed",
        target: Spec,
        old: unchanged,
        new: |s| unset(s, "replicas", "minimum"),
        openapi: Some(&[
            r#"review minimum-loosened spec.replicas: ">= 0" → —; minimum >= 0 → none => patch: validate() accepts values it rejected"#,
        ]),
        crd: Some(&[
            r#"review minimum-loosened spec.replicas: ">= 0" → —; minimum >= 0 → none => patch: validate() accepts values it rejected"#,
        ]),
    },
    Case {
        name: "maximum added, then raised",
        target: Spec,
        old: |s| set(s, "replicas", "maximum", json!(10)),
        new: |s| set(s, "replicas", "maximum", json!(20)),
        openapi: Some(&[
            r#"review maximum-loosened spec.replicas: "<= 10" → "<= 20"; maximum <= 10 → <= 20 => patch: validate() accepts values it rejected"#,
        ]),
        crd: Some(&[
            r#"review maximum-loosened spec.replicas: "<= 10" → "<= 20"; maximum <= 10 → <= 20 => patch: validate() accepts values it rejected"#,
        ]),
    },
    Case {
        name: "maximum added",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "replicas", "maximum", json!(10)),
        openapi: Some(&[
            r#"breaking maximum-tightened spec.replicas: — → "<= 10"; maximum none → <= 10 => patch: validate() rejects values it accepted"#,
        ]),
        crd: Some(&[
            r#"review maximum-tightened spec.replicas: — → "<= 10"; maximum none → <= 10; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted"#,
        ]),
    },
    Case {
        name: "a maximum added in status",
        target: Status,
        old: unchanged,
        new: |s| set(s, "replicas", "maximum", json!(10)),
        openapi: Some(&[
            r#"compatible maximum-tightened status.replicas: — → "<= 10"; maximum none → <= 10; status may tighten: clients see a subset of the values they saw => patch: validate() rejects values it accepted"#,
        ]),
        crd: Some(&[
            r#"compatible maximum-tightened status.replicas: — → "<= 10"; maximum none → <= 10; status may tighten: clients see a subset of the values they saw => patch: validate() rejects values it accepted"#,
        ]),
    },
    Case {
        name: "lengths tightened and loosened",
        target: Spec,
        old: |s| set(s, "name", "maxLength", json!(63)),
        new: |s| {
            set(s, "name", "minLength", json!(1));
            set(s, "name", "maxLength", json!(253));
        },
        openapi: Some(&[
            "breaking min-length-tightened spec.name: — → 1; minLength none → 1 => patch: validate() rejects values it accepted",
            "review max-length-loosened spec.name: 63 → 253; maxLength 63 → 253 => patch: validate() accepts values it rejected",
        ]),
        crd: Some(&[
            "review min-length-tightened spec.name: — → 1; minLength none → 1; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted",
            "review max-length-loosened spec.name: 63 → 253; maxLength 63 → 253 => patch: validate() accepts values it rejected",
        ]),
    },
    Case {
        name: "lengths loosened and tightened",
        target: Spec,
        old: |s| set(s, "name", "minLength", json!(1)),
        new: |s| set(s, "name", "maxLength", json!(63)),
        openapi: Some(&[
            "breaking max-length-tightened spec.name: — → 63; maxLength none → 63 => patch: validate() rejects values it accepted",
            "review min-length-loosened spec.name: 1 → —; minLength 1 → none => patch: validate() accepts values it rejected",
        ]),
        crd: Some(&[
            "review min-length-loosened spec.name: 1 → —; minLength 1 → none => patch: validate() accepts values it rejected",
            "review max-length-tightened spec.name: — → 63; maxLength none → 63; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted",
        ]),
    },
    Case {
        name: "item counts changed",
        target: Spec,
        old: |s| set(s, "tags", "maxItems", json!(10)),
        new: |s| {
            set(s, "tags", "minItems", json!(1));
            set(s, "tags", "maxItems", json!(5));
        },
        openapi: Some(&[
            "breaking min-items-tightened spec.tags: — → 1; minItems none → 1 => patch: validate() rejects values it accepted",
            "breaking max-items-tightened spec.tags: 10 → 5; maxItems 10 → 5 => patch: validate() rejects values it accepted",
        ]),
        crd: Some(&[
            "review min-items-tightened spec.tags: — → 1; minItems none → 1; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted",
            "review max-items-tightened spec.tags: 10 → 5; maxItems 10 → 5; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted",
        ]),
    },
    Case {
        name: "item counts loosened",
        target: Spec,
        old: |s| {
            set(s, "tags", "minItems", json!(1));
            set(s, "tags", "maxItems", json!(5));
        },
        new: unchanged,
        openapi: Some(&[
            "review min-items-loosened spec.tags: 1 → —; minItems 1 → none => patch: validate() accepts values it rejected",
            "review max-items-loosened spec.tags: 5 → —; maxItems 5 → none => patch: validate() accepts values it rejected",
        ]),
        crd: Some(&[
            "review min-items-loosened spec.tags: 1 → —; minItems 1 → none => patch: validate() accepts values it rejected",
            "review max-items-loosened spec.tags: 5 → —; maxItems 5 → none => patch: validate() accepts values it rejected",
        ]),
    },
    Case {
        name: "property counts changed",
        target: Spec,
        old: |s| set(s, "selector", "maxProperties", json!(10)),
        new: |s| {
            set(s, "selector", "minProperties", json!(1));
            set(s, "selector", "maxProperties", json!(20));
        },
        openapi: Some(&[
            "breaking min-properties-tightened spec.selector: — → 1; minProperties none → 1 => patch: validate() rejects values it accepted",
            "review max-properties-loosened spec.selector: 10 → 20; maxProperties 10 → 20 => patch: validate() accepts values it rejected",
        ]),
        crd: Some(&[
            "review min-properties-tightened spec.selector: — → 1; minProperties none → 1; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted",
            "review max-properties-loosened spec.selector: 10 → 20; maxProperties 10 → 20 => patch: validate() accepts values it rejected",
        ]),
    },
    Case {
        name: "property counts changed the other way",
        target: Spec,
        old: |s| set(s, "selector", "minProperties", json!(1)),
        new: |s| set(s, "selector", "maxProperties", json!(5)),
        openapi: Some(&[
            "breaking max-properties-tightened spec.selector: — → 5; maxProperties none → 5 => patch: validate() rejects values it accepted",
            "review min-properties-loosened spec.selector: 1 → —; minProperties 1 → none => patch: validate() accepts values it rejected",
        ]),
        crd: Some(&[
            "review min-properties-loosened spec.selector: 1 → —; minProperties 1 → none => patch: validate() accepts values it rejected",
            "review max-properties-tightened spec.selector: — → 5; maxProperties none → 5; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted",
        ]),
    },
    Case {
        name: "patterns added, removed and changed",
        target: Spec,
        old: |s| {
            set(s, "mode", "pattern", json!("^[A-Z]"));
            property(s, "tags")["items"]["pattern"] = json!("^[a-z]+$");
        },
        new: |s| {
            set(s, "name", "pattern", json!("^[a-z]+$"));
            set(s, "mode", "pattern", json!("^[A-Z][a-z]*$"));
        },
        openapi: Some(&[
            r#"breaking pattern-changed spec.mode: "^[A-Z]" → "^[A-Z][a-z]*$"; pattern `^[A-Z]` → `^[A-Z][a-z]*$` => patch: validate() checks differently"#,
            r#"breaking pattern-added spec.name: — → "^[a-z]+$"; pattern none → `^[a-z]+$` => patch: validate() rejects values it accepted"#,
            r#"review pattern-removed spec.tags[*]: "^[a-z]+$" → —; pattern `^[a-z]+$` → none => patch: validate() accepts values it rejected"#,
        ]),
        crd: Some(&[
            r#"review pattern-changed spec.mode: "^[A-Z]" → "^[A-Z][a-z]*$"; pattern `^[A-Z]` → `^[A-Z][a-z]*$`; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() checks differently"#,
            r#"review pattern-added spec.name: — → "^[a-z]+$"; pattern none → `^[a-z]+$`; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted"#,
            r#"review pattern-removed spec.tags[*]: "^[a-z]+$" → —; pattern `^[a-z]+$` → none => patch: validate() accepts values it rejected"#,
        ]),
    },
    Case {
        name: "uniqueItems added",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "tags", "uniqueItems", json!(true)),
        openapi: Some(&[
            "breaking unique-items-added spec.tags: false → true; uniqueItems false → true => patch: validate() rejects values it accepted",
        ]),
        crd: Some(&[
            "review unique-items-added spec.tags: false → true; uniqueItems false → true; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted",
        ]),
    },
    Case {
        name: "uniqueItems removed",
        target: Spec,
        old: |s| set(s, "tags", "uniqueItems", json!(true)),
        new: unchanged,
        openapi: Some(&[
            "review unique-items-removed spec.tags: true → false; uniqueItems true → false => patch: validate() accepts values it rejected",
        ]),
        crd: Some(&[
            "review unique-items-removed spec.tags: true → false; uniqueItems true → false => patch: validate() accepts values it rejected",
        ]),
    },
    // CEL rules.
    Case {
        name: "CEL rules added, removed, rewritten and reworded",
        target: Spec,
        old: |s| {
            s["x-kubernetes-validations"] = json!([
                {"rule": "self.replicas <= 100", "message": "at most 100 replicas"},
                {"rule": "has(self.name)"},
                {"rule": "!has(self.mode) || self.mode != 'Slow'"},
            ])
        },
        new: |s| {
            s["x-kubernetes-validations"] = json!([
                {"rule": "self.replicas <= 100", "message": "too many replicas"},
                {"rule": "has(self.name) && size(self.name) > 0"},
            ])
        },
        openapi: Some(&[
            r#"breaking cel-rule-changed spec: "has(self.name)" → "has(self.name) && size(self.name) > 0"; CEL rule `has(self.name)` → `has(self.name) && size(self.name) > 0` => patch: validate() checks differently"#,
            r#"review cel-rule-removed spec: "!has(self.mode) || self.mode != 'Slow'" → —; CEL rule removed: `!has(self.mode) || self.mode != 'Slow'` => patch: validate() accepts values it rejected"#,
            r#"compatible cel-message-changed spec: {"fieldPath":null,"message":"at most 100 replicas","messageExpression":null,"reason":null} → {"fieldPath":null,"message":"too many replicas","messageExpression":null,"reason":null}; message, reason or field path of CEL rule `self.replicas <= 100` changed => patch: validate() reports the rule differently"#,
        ]),
        crd: Some(&[
            r#"review cel-rule-removed spec: "!has(self.mode) || self.mode != 'Slow'" → —; CEL rule removed: `!has(self.mode) || self.mode != 'Slow'` => patch: validate() accepts values it rejected"#,
            r#"review cel-rule-changed spec: "has(self.name)" → "has(self.name) && size(self.name) > 0"; CEL rule `has(self.name)` → `has(self.name) && size(self.name) > 0`; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() checks differently"#,
            r#"compatible cel-message-changed spec: {"fieldPath":null,"message":"at most 100 replicas","messageExpression":null,"reason":null} → {"fieldPath":null,"message":"too many replicas","messageExpression":null,"reason":null}; message, reason or field path of CEL rule `self.replicas <= 100` changed => patch: validate() reports the rule differently"#,
        ]),
    },
    Case {
        name: "a CEL rule added",
        target: Spec,
        old: unchanged,
        new: |s| s["x-kubernetes-validations"] = json!([{"rule": "self.replicas <= 100"}]),
        openapi: Some(&[
            r#"breaking cel-rule-added spec: — → "self.replicas <= 100"; CEL rule added: `self.replicas <= 100` => patch: validate() rejects values it accepted"#,
        ]),
        crd: Some(&[
            r#"review cel-rule-added spec: — → "self.replicas <= 100"; CEL rule added: `self.replicas <= 100`; validation ratcheting applies: stored objects keep updating while this field is left unchanged, but new values must pass => patch: validate() rejects values it accepted"#,
        ]),
    },
    Case {
        name: "a transition rule added",
        target: Spec,
        old: unchanged,
        new: |s| s["x-kubernetes-validations"] = json!([{"rule": "self.replicas >= oldSelf.replicas"}]),
        openapi: Some(&[
            r#"breaking cel-rule-added spec: — → "self.replicas >= oldSelf.replicas"; CEL rule added: `self.replicas >= oldSelf.replicas` => patch: validate() rejects values it accepted"#,
        ]),
        crd: Some(&[
            r#"breaking cel-rule-added spec: — → "self.replicas >= oldSelf.replicas"; CEL rule added: `self.replicas >= oldSelf.replicas`; a transition rule (it reads oldSelf): validation ratcheting does not cover it => patch: validate() rejects values it accepted"#,
        ]),
    },
    // Defaults.
    Case {
        name: "defaults added, changed and removed",
        target: Spec,
        old: |s| {
            set(s, "mode", "default", json!("Fast"));
            set(s, "replicas", "default", json!(1));
        },
        new: |s| {
            set(s, "mode", "default", json!("Slow"));
            set(s, "name", "default", json!("widget"));
        },
        openapi: Some(&[
            r#"breaking default-changed spec.mode: "Fast" → "Slow"; default "Fast" → "Slow" => none"#,
            "breaking default-removed spec.replicas: 1 → —; default 1 → none => none",
            r#"review default-added spec.name: — → "widget"; default none → "widget" => none"#,
        ]),
        crd: Some(&[
            r#"breaking default-changed spec.mode: "Fast" → "Slow"; default "Fast" → "Slow" => patch: decoding and Default give the new default"#,
            "breaking default-removed spec.replicas: 1 → —; default 1 → none => patch: decoding and Default give the new default",
            r#"review default-added spec.name: — → "widget"; default none → "widget" => patch: decoding and Default give the new default"#,
        ]),
    },
    Case {
        name: "a zero-value default dropped",
        target: Spec,
        old: |s| set(s, "name", "default", json!("")),
        new: unchanged,
        openapi: Some(&[
            r#"compatible default-removed spec.name: "" → —; default "" → none; a zero value in a built-in API, which Go's decoding gives anyway => none"#,
        ]),
        crd: Some(&[
            r#"breaking default-removed spec.name: "" → —; default "" → none => patch: decoding and Default give the new default"#,
        ]),
    },
    // Lists, maps and patches.
    Case {
        name: "list map keys changed",
        target: Spec,
        old: unchanged,
        new: |s| {
            set(s, "ports", "x-kubernetes-list-map-keys", json!(["name", "port"]));
            property(s, "ports")["items"]["required"] = json!(["name", "port"]);
        },
        openapi: Some(&[
            r#"breaking list-map-keys-changed spec.ports: {"map":["name"]} → {"map":["name","port"]}; x-kubernetes-list-type map keyed by name → map keyed by name, port => patch: validate() checks differently"#,
            r#"breaking field-became-required spec.ports[*].port: "optional" → "required"; optional → required => major: WidgetSpecPortsItem::port: Option<i32> → i32; validate() rejects values it accepted"#,
        ]),
        crd: Some(&[
            r#"breaking list-map-keys-changed spec.ports: {"map":["name"]} → {"map":["name","port"]}; x-kubernetes-list-type map keyed by name → map keyed by name, port; validation ratcheting does not cover list types and their keys => patch: validate() checks differently"#,
            r#"breaking field-became-required spec.ports[*].port: "optional" → "required"; optional → required; validation ratcheting does not cover `required` => patch: validate() rejects values it accepted"#,
        ]),
    },
    Case {
        name: "a list made a set, a map made atomic",
        target: Spec,
        old: unchanged,
        new: |s| {
            set(s, "tags", "x-kubernetes-list-type", json!("set"));
            set(s, "ports", "x-kubernetes-list-type", json!("atomic"));
            unset(s, "ports", "x-kubernetes-list-map-keys");
        },
        openapi: Some(&[
            r#"breaking list-type-changed spec.tags: — → "set"; x-kubernetes-list-type none → set => patch: validate() rejects values it accepted"#,
            r#"review list-type-changed spec.ports: {"map":["name"]} → "atomic"; x-kubernetes-list-type map keyed by name → atomic => patch: validate() accepts values it rejected"#,
        ]),
        crd: Some(&[
            r#"breaking list-type-changed spec.tags: — → "set"; x-kubernetes-list-type none → set; validation ratcheting does not cover list types and their keys => patch: validate() rejects values it accepted"#,
            r#"review list-type-changed spec.ports: {"map":["name"]} → "atomic"; x-kubernetes-list-type map keyed by name → atomic => patch: validate() accepts values it rejected"#,
        ]),
    },
    Case {
        name: "a list marked atomic",
        target: Spec,
        old: unchanged,
        new: |s| set(s, "tags", "x-kubernetes-list-type", json!("atomic")),
        openapi: Some(&[
            r#"compatible list-type-changed spec.tags: — → "atomic"; x-kubernetes-list-type none → atomic; no change in effect: the list already merged as atomic => none"#,
        ]),
        crd: Some(&[
            r#"compatible list-type-changed spec.tags: — → "atomic"; x-kubernetes-list-type none → atomic; no change in effect: the list already merged as atomic => none"#,
        ]),
    },
    Case {
        name: "map types changed",
        target: Spec,
        old: unchanged,
        new: |s| {
            set(s, "selector", "x-kubernetes-map-type", json!("atomic"));
            s["x-kubernetes-map-type"] = json!("granular");
        },
        openapi: Some(&[
            r#"review map-type-changed spec.selector: — → "atomic"; x-kubernetes-map-type none → atomic => none"#,
            r#"compatible map-type-changed spec: — → "granular"; x-kubernetes-map-type none → granular; granular is what an unmarked object already is => none"#,
        ]),
        crd: Some(&[
            r#"review map-type-changed spec.selector: — → "atomic"; x-kubernetes-map-type none → atomic => none"#,
            r#"compatible map-type-changed spec: — → "granular"; x-kubernetes-map-type none → granular; granular is what an unmarked object already is => none"#,
        ]),
    },
    Case {
        name: "patch strategies changed",
        target: Spec,
        old: |s| {
            set(s, "tags", "x-kubernetes-patch-strategy", json!("merge"));
            set(s, "name", "x-kubernetes-patch-strategy", json!("merge"));
        },
        new: |s| {
            set(s, "tags", "x-kubernetes-patch-strategy", json!("replace"));
            set(s, "ports", "x-kubernetes-patch-strategy", json!("merge"));
            set(s, "ports", "x-kubernetes-patch-merge-key", json!("name"));
        },
        openapi: Some(&[
            r#"breaking patch-strategy-changed spec.tags: "merge" → "replace"; x-kubernetes-patch-strategy merge → replace => none"#,
            r#"review patch-strategy-changed spec.ports: — → "merge"; x-kubernetes-patch-strategy none → merge => none"#,
            r#"review patch-merge-key-changed spec.ports: — → "name"; x-kubernetes-patch-merge-key none → name => none"#,
            r#"compatible patch-strategy-changed spec.name: "merge" → —; x-kubernetes-patch-strategy merge → none; a scalar, which a patch replaces whatever the strategy => none"#,
        ]),
        crd: None,
    },
    Case {
        name: "a merge key changed",
        target: Spec,
        old: |s| {
            set(s, "ports", "x-kubernetes-patch-strategy", json!("merge"));
            set(s, "ports", "x-kubernetes-patch-merge-key", json!("name"));
        },
        new: |s| {
            set(s, "ports", "x-kubernetes-patch-strategy", json!("merge"));
            set(s, "ports", "x-kubernetes-patch-merge-key", json!("port"));
        },
        openapi: Some(&[
            r#"breaking patch-merge-key-changed spec.ports: "name" → "port"; x-kubernetes-patch-merge-key name → port => none"#,
        ]),
        crd: None,
    },
    // The generated crate only.
    Case {
        name: "a schema renamed",
        target: Document,
        old: unchanged,
        new: |d| {
            let text = d.to_string().replace("io.k8s.demo.v1.WidgetSpec", "io.k8s.demo.v1.WidgetSettings");
            *d = serde_json::from_str(&text).expect("still JSON");
        },
        openapi: Some(&[
            r#"compatible rust-type-changed spec: "Option<WidgetSpec>" → "Option<WidgetSettings>"; generated Rust type changed => major: Widget::spec: Option<WidgetSpec> → Option<WidgetSettings>"#,
            r#"compatible rust-type-changed spec.mode: "Option<WidgetSpecMode>" → "Option<WidgetSettingsMode>"; generated Rust type changed => major: WidgetSpec::mode: Option<WidgetSpecMode> → Option<WidgetSettingsMode>"#,
            r#"compatible rust-type-changed spec.ports: "Option<Vec<WidgetSpecPortsItem>>" → "Option<Vec<WidgetSettingsPortsItem>>"; generated Rust type changed => major: WidgetSpec::ports: Option<Vec<WidgetSpecPortsItem>> → Option<Vec<WidgetSettingsPortsItem>>"#,
        ]),
        crd: None,
    },
    // Alpha versions.
    Case {
        name: "a field removed from an alpha version",
        target: Document,
        old: |d| openapi_version(d, "v1alpha1"),
        new: |d| {
            openapi_version(d, "v1alpha1");
            remove(&mut d["components"]["schemas"]["io.k8s.demo.v1alpha1.WidgetSpec"], "name");
        },
        openapi: Some(&[
            r#"[demo.k8s.io/v1alpha1 Widget] compatible field-removed spec.name: "string" → —; field removed (was string); alpha version, exempt from compatibility (would be breaking in a beta or GA version) => major: field WidgetSpec::name removed"#,
        ]),
        crd: None,
    },
    Case {
        name: "a field removed from an alpha version",
        target: Document,
        old: |d| d["spec"]["versions"][0]["name"] = json!("v1alpha1"),
        new: |d| {
            d["spec"]["versions"][0]["name"] = json!("v1alpha1");
            remove(&mut d["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"], "name");
        },
        openapi: None,
        crd: Some(&[
            r#"[demo.k8s.io/v1alpha1 Widget] compatible field-removed spec.name: "string" → —; field removed (was string); alpha version, exempt from compatibility (would be breaking in a beta or GA version) => major: field WidgetSpec::name removed"#,
        ]),
    },
];

#[test]
fn each_rule_gives_its_report_entries() {
    let mut failures = Vec::new();
    for case in CASES {
        for (format, expected) in [(Format::OpenApi, case.openapi), (Format::Crd, case.crd)] {
            let Some(expected) = expected else { continue };
            let actual: Vec<String> = changes(format, case.target, case.old, case.new).iter().map(line).collect();
            if actual != expected {
                failures.push(format!(
                    "{} ({format:?}):\n{}",
                    case.name,
                    actual.iter().map(|l| format!("    {l:?},\n")).collect::<String>()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{} cases differ; they give:\n{}", failures.len(), failures.join("\n"));
}

/// The table exercises every rule.
#[test]
fn every_rule_has_a_case() {
    let named: BTreeSet<&str> = CASES
        .iter()
        .flat_map(|case| case.openapi.into_iter().chain(case.crd).flatten())
        .filter_map(|line| line.split(' ').find_map(Rule::from_id))
        .map(Rule::id)
        .collect();
    let missing: Vec<&str> = Rule::ALL.iter().map(|rule| rule.id()).filter(|id| !named.contains(id)).collect();
    assert!(missing.is_empty(), "rules without a case: {missing:?}");
}
