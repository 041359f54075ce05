//! Bad specs: the error points at the file, the JSON pointer and the line and column;
//! the generator never panics and never touches the output folder.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use crate::common::{generate, list_dir, read_tree, temp_dir, write_file};

struct Case {
    name: &'static str,
    /// Files of the specs folder: (name, text).
    files: &'static [(&'static str, &'static str)],
    /// The exact `Display` of the error; `{specs}` stands for the specs folder as given.
    error: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "OwnerReference with a field of another type",
        files: &[(
            "meta.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference:
      type: object
      properties:
        uid:
          type: string
        controller:
          type: string
"##,
        )],
        error: "specs/meta.yaml:9:9: at /components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference/properties/controller: field controller of io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference has another type than in the kube-apigen runtime's io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference, which generated crates share",
    },
    Case {
        name: "invalid JSON",
        files: &[("bad.json", "{\n  \"openapi\": \"3.0.0\",\n  \"components\": {,}\n}\n")],
        error: "specs/bad.json:3:18: invalid JSON: key must be a string",
    },
    Case {
        name: "invalid YAML",
        files: &[("bad.yaml", "openapi: 3.0.0\ncomponents:\n  schemas: [unclosed\n")],
        error: "specs/bad.yaml:3:12: invalid YAML: unclosed bracket '['",
    },
    Case {
        name: "unresolved $ref",
        files: &[(
            "bad.json",
            r##"{
  "openapi": "3.0.0",
  "components": {"schemas": {
    "io.k8s.api.demo.v1.A": {
      "type": "object",
      "properties": {
        "b": {"allOf": [{"$ref": "#/components/schemas/io.k8s.api.demo.v1.Missing"}]}
      }
    }
  }}
}
"##,
        )],
        error: "specs/bad.json:7:34: at /components/schemas/io.k8s.api.demo.v1.A/properties/b/allOf/0/$ref: unresolved $ref \"#/components/schemas/io.k8s.api.demo.v1.Missing\": no such schema in components.schemas",
    },
    Case {
        name: "$ref of an unsupported form",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      properties:
        b:
          $ref: 'other.json#/definitions/B'
"##,
        )],
        error: "specs/bad.yaml:8:17: at /components/schemas/io.k8s.api.demo.v1.A/properties/b/$ref: unsupported $ref \"other.json#/definitions/B\": only `#/components/schemas/...` references are supported",
    },
    Case {
        name: "unsupported type",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      properties:
        upload:
          type: file
"##,
        )],
        error: "specs/bad.yaml:8:17: at /components/schemas/io.k8s.api.demo.v1.A/properties/upload/type: unsupported type \"file\"",
    },
    Case {
        name: "unsupported format",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      properties:
        id:
          type: integer
          format: uuid
"##,
        )],
        error: "specs/bad.yaml:9:19: at /components/schemas/io.k8s.api.demo.v1.A/properties/id/format: unsupported format \"uuid\" for type integer",
    },
    Case {
        name: "cycle of required fields",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      required: [b]
      properties:
        b:
          allOf:
          - $ref: '#/components/schemas/io.k8s.api.demo.v1.B'
    io.k8s.api.demo.v1.B:
      type: object
      required: [a]
      properties:
        a:
          allOf:
          - $ref: '#/components/schemas/io.k8s.api.demo.v1.A'
"##,
        )],
        error: "specs/bad.yaml:8:9: at /components/schemas/io.k8s.api.demo.v1.A/properties/b: required fields form a cycle that no finite object can satisfy: io.k8s.api.demo.v1.A.b -> io.k8s.api.demo.v1.B.a -> io.k8s.api.demo.v1.A",
    },
    Case {
        name: "cycle of required fields through an alias",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      required: [b]
      properties:
        b:
          allOf:
          - $ref: '#/components/schemas/io.k8s.api.demo.v1.BAlias'
    io.k8s.api.demo.v1.B:
      type: object
      required: [a]
      properties:
        a:
          $ref: '#/components/schemas/io.k8s.api.demo.v1.A'
    io.k8s.api.demo.v1.BAlias:
      allOf:
      - $ref: '#/components/schemas/io.k8s.api.demo.v1.B'
"##,
        )],
        error: "specs/bad.yaml:8:9: at /components/schemas/io.k8s.api.demo.v1.A/properties/b: required fields form a cycle that no finite object can satisfy: io.k8s.api.demo.v1.A.b -> io.k8s.api.demo.v1.BAlias -> io.k8s.api.demo.v1.B.a -> io.k8s.api.demo.v1.A",
    },
    Case {
        name: "cycle of required fields through an inline object",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      required: [inner]
      properties:
        inner:
          type: object
          required: [a]
          properties:
            a:
              $ref: '#/components/schemas/io.k8s.api.demo.v1.A'
"##,
        )],
        error: "specs/bad.yaml:8:9: at /components/schemas/io.k8s.api.demo.v1.A/properties/inner: required fields form a cycle that no finite object can satisfy: io.k8s.api.demo.v1.A.inner -> AInner.a -> io.k8s.api.demo.v1.A",
    },
    Case {
        name: "schema that is an alias of itself",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      allOf:
      - $ref: '#/components/schemas/io.k8s.api.demo.v1.A'
"##,
        )],
        error: "specs/bad.yaml:4:5: at /components/schemas/io.k8s.api.demo.v1.A: schemas that are only references to each other define no type: io.k8s.api.demo.v1.A -> io.k8s.api.demo.v1.A",
    },
    Case {
        name: "two schemas with one Rust name",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.foo-bar:
      type: object
      properties:
        a:
          type: string
    io.k8s.api.demo.v1.FooBar:
      type: object
      properties:
        b:
          type: string
"##,
        )],
        error: "specs/bad.yaml:4:5: at /components/schemas/io.k8s.api.demo.v1.foo-bar: schemas io.k8s.api.demo.v1.FooBar and io.k8s.api.demo.v1.foo-bar both map to the Rust type api::demo::v1::FooBar",
    },
    Case {
        name: "required entry that is not a property",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      required:
      - name
      - size
      properties:
        name:
          type: string
"##,
        )],
        error: "specs/bad.yaml:8:9: at /components/schemas/io.k8s.api.demo.v1.A/required/1: required field `size` is not among the properties",
    },
    Case {
        name: "allOf with several schemas",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      properties:
        b:
          allOf:
          - $ref: '#/components/schemas/io.k8s.api.demo.v1.A'
          - type: object
"##,
        )],
        error: "specs/bad.yaml:8:11: at /components/schemas/io.k8s.api.demo.v1.A/properties/b/allOf: only `allOf` with exactly one schema (a wrapped `$ref`) is supported",
    },
    Case {
        name: "not an OpenAPI document",
        files: &[("deployment.yaml", "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n")],
        error: "specs/deployment.yaml:1:1: at /: neither an OpenAPI v3 document (there is no `openapi` field) nor a CustomResourceDefinition",
    },
    Case {
        name: "Swagger 2.0 document",
        files: &[("swagger.json", "{\n  \"swagger\": \"2.0\",\n  \"definitions\": {}\n}\n")],
        error: "specs/swagger.json:1:1: at /: neither an OpenAPI v3 document (there is no `openapi` field) nor a CustomResourceDefinition",
    },
    Case {
        name: "error in the second document of a YAML file",
        files: &[(
            "multi.yaml",
            r##"openapi: 3.0.0
components:
  schemas: {}
---
openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      properties:
        b:
          type: array
          items:
            $ref: '#/components/schemas/io.k8s.api.demo.v1.Nope'
"##,
        )],
        error: "specs/multi.yaml:14:19: at /components/schemas/io.k8s.api.demo.v1.A/properties/b/items/$ref: unresolved $ref \"#/components/schemas/io.k8s.api.demo.v1.Nope\": no such schema in components.schemas",
    },
    Case {
        name: "error after empty YAML documents",
        files: &[(
            "empty-docs.yaml",
            r##"# A comment, then an empty document.
---
---
openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.A:
      type: object
      properties:
        b:
          type: file
---
"##,
        )],
        error: "specs/empty-docs.yaml:11:17: at /components/schemas/io.k8s.api.demo.v1.A/properties/b/type: unsupported type \"file\"",
    },
    Case {
        name: "the second file is bad",
        files: &[
            ("a.yaml", "openapi: 3.0.0\ncomponents:\n  schemas: {}\n"),
            (
                "nested/b.json",
                "{\"openapi\": \"3.0.0\", \"components\": {\"schemas\": {\"io.k8s.api.demo.v1.A\": {\"type\": \"object\", \"properties\": {\"x\": {\"type\": [\"string\", \"null\"]}}}}}}\n",
            ),
        ],
        error: "specs/nested/b.json:1:113: at /components/schemas/io.k8s.api.demo.v1.A/properties/x/type: unsupported type [\"string\",\"null\"]; expected a single type name",
    },
    Case {
        name: "CRD of an old apiVersion",
        files: &[(
            "crd.yaml",
            "apiVersion: apiextensions.k8s.io/v1beta1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\n",
        )],
        error: "specs/crd.yaml:1:13: at /apiVersion: \"apiextensions.k8s.io/v1beta1\" is not supported; CustomResourceDefinitions must be apiextensions.k8s.io/v1",
    },
    Case {
        name: "CRD named other than plural.group",
        files: &[(
            "crd.yaml",
            "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widget\nspec:\n  group: example.com\n  names: {kind: Widget, plural: widgets}\n",
        )],
        error: "specs/crd.yaml:4:9: at /metadata/name: must be \"widgets.example.com\", the plural and the group",
    },
    Case {
        name: "CRD with two storage versions",
        files: &[(
            "crd.yaml",
            r##"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
  - name: v2
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object}}
"##,
        )],
        error: "specs/crd.yaml:11:3: at /spec/versions: exactly one version must be the storage version; 2 are",
    },
    Case {
        name: "bad pattern deep in a CRD schema, the second document of its file",
        files: &[(
            "crds.yaml",
            r##"openapi: 3.0.0
components: {schemas: {}}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              ports:
                type: array
                items:
                  type: object
                  properties:
                    name:
                      type: string
                      pattern: "[a-z"
"##,
        )],
        error: "specs/crds.yaml:32:32: at /spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/ports/items/properties/name/pattern: invalid pattern: error parsing regexp: missing closing ]: `[a-z`",
    },
    Case {
        name: "bad CEL rule in a CRD",
        files: &[(
            "crd.yaml",
            r##"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: "self.a >"
            properties:
              a: {type: integer}
"##,
        )],
        error: "specs/crd.yaml:22:15: at /spec/versions/0/schema/openAPIV3Schema/properties/spec/x-kubernetes-validations/0: invalid CEL rule: compilation failed for rule \"self.a >\": ERROR: <input>:1:9: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}\n| self.a >\n| ........^",
    },
    Case {
        name: "CRD default of the wrong type",
        files: &[(
            "crd.yaml",
            r##"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names:
    kind: Widget
    plural: widgets
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              replicas:
                type: integer
                default: one
"##,
        )],
        error: "specs/crd.yaml:24:26: at /spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/replicas/default: default \"one\" does not fit the field's type",
    },
    Case {
        name: "mistyped name rule",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
      x-kubernetes-name-rule: dns1123label
"##,
        )],
        error: "specs/bad.yaml:9:31: at /components/schemas/io.k8s.api.demo.v1.Widget/x-kubernetes-name-rule: unknown name rule \"dns1123label\"; expected one of dns1123-subdomain, dns1123-label, path-segment",
    },
    Case {
        name: "printer column without a jsonPath",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
      x-kubernetes-printer-columns:
      - name: Size
        type: integer
"##,
        )],
        error: "specs/bad.yaml:10:9: at /components/schemas/io.k8s.api.demo.v1.Widget/x-kubernetes-printer-columns/0: a printer column needs a `jsonPath`",
    },
    Case {
        name: "printer column of an unknown type",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
      x-kubernetes-printer-columns:
      - name: Size
        type: int
        jsonPath: .spec.size
"##,
        )],
        error: "specs/bad.yaml:11:15: at /components/schemas/io.k8s.api.demo.v1.Widget/x-kubernetes-printer-columns/0/type: unsupported type \"int\"; expected one of integer, number, string, boolean, date",
    },
    Case {
        name: "malformed short name",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
      x-kubernetes-short-names: [w, Bad_Name]
"##,
        )],
        error: "specs/bad.yaml:9:37: at /components/schemas/io.k8s.api.demo.v1.Widget/x-kubernetes-short-names/1: short name \"Bad_Name\" must be a DNS-1035 label: at most 63 lower case letters, digits or '-', starting with a letter and ending with a letter or digit",
    },
    Case {
        name: "scale path that is no JSON path",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
      x-kubernetes-scale:
        specReplicasPath: spec.replicas
        statusReplicasPath: .status.replicas
"##,
        )],
        error: "specs/bad.yaml:10:27: at /components/schemas/io.k8s.api.demo.v1.Widget/x-kubernetes-scale/specReplicasPath: `specReplicasPath` must be a JSON path such as .spec.replicas",
    },
    Case {
        name: "unknown list type",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
        tags:
          type: array
          items: {type: string}
          x-kubernetes-list-type: sets
"##,
        )],
        error: "specs/bad.yaml:12:35: at /components/schemas/io.k8s.api.demo.v1.Widget/properties/tags/x-kubernetes-list-type: unsupported list type \"sets\"; expected atomic, set or map",
    },
    Case {
        name: "list-map keys without a map list",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
        tags:
          type: array
          items: {type: string}
          x-kubernetes-list-type: set
          x-kubernetes-list-map-keys: [name]
"##,
        )],
        error: "specs/bad.yaml:13:11: at /components/schemas/io.k8s.api.demo.v1.Widget/properties/tags/x-kubernetes-list-map-keys: `x-kubernetes-list-map-keys` needs `x-kubernetes-list-type: map`",
    },
    Case {
        name: "unknown map type",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
        labels:
          type: object
          additionalProperties: {type: string}
          x-kubernetes-map-type: granularish
"##,
        )],
        error: "specs/bad.yaml:12:34: at /components/schemas/io.k8s.api.demo.v1.Widget/properties/labels/x-kubernetes-map-type: unsupported map type \"granularish\"; expected atomic or granular",
    },
    Case {
        name: "unknown patch strategy",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
        tags:
          type: array
          items: {type: string}
          x-kubernetes-patch-strategy: merge,keep
"##,
        )],
        error: "specs/bad.yaml:12:40: at /components/schemas/io.k8s.api.demo.v1.Widget/properties/tags/x-kubernetes-patch-strategy: unsupported patch strategy \"keep\"; expected merge, replace or retainKeys",
    },
    Case {
        name: "int-or-string that is not a boolean",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
components:
  schemas:
    io.k8s.api.demo.v1.Widget:
      type: object
      properties:
        name:
          type: string
        port:
          x-kubernetes-int-or-string: 'yes'
"##,
        )],
        error: "specs/bad.yaml:10:39: at /components/schemas/io.k8s.api.demo.v1.Widget/properties/port/x-kubernetes-int-or-string: `x-kubernetes-int-or-string` must be true or false",
    },
    Case {
        name: "unknown action",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
paths:
  /apis/demo/v1/widgets:
    get:
      x-kubernetes-action: lists
      responses: {}
"##,
        )],
        error: "specs/bad.yaml:5:28: at /paths/~1apis~1demo~1v1~1widgets/get/x-kubernetes-action: unknown action \"lists\"; expected one of get, list, watch, watchlist, post, put, patch, delete, deletecollection, connect",
    },
    Case {
        name: "malformed release",
        files: &[(
            "bad.yaml",
            r##"openapi: 3.0.0
info:
  title: demo
  x-kubernetes-release: v1.33
"##,
        )],
        error: "specs/bad.yaml:4:25: at /info/x-kubernetes-release: unsupported release \"v1.33\"; expected major.minor, such as \"1.33\"",
    },
    Case {
        name: "CRD with a malformed short name",
        files: &[(
            "crd.yaml",
            r##"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets, shortNames: [Wd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
"##,
        )],
        error: "specs/crd.yaml:8:55: at /spec/names/shortNames/0: short name \"Wd\" must be a DNS-1035 label: at most 63 lower case letters, digits or '-', starting with a letter and ending with a letter or digit",
    },
    Case {
        name: "CRD printer column without a jsonPath",
        files: &[(
            "crd.yaml",
            r##"apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
    additionalPrinterColumns:
    - name: Age
      type: date
"##,
        )],
        error: "specs/crd.yaml:17:7: at /spec/versions/0/additionalPrinterColumns/0: a printer column needs a `jsonPath`",
    },
    Case {
        name: "empty folder",
        files: &[("README.md", "no specs here\n")],
        error: "{specs}: no spec files (*.json, *.yaml, *.yml) in this folder",
    },
];

/// Files of an earlier run that a failed run must leave exactly as they are.
fn populate_output(out: &Path) {
    write_file(&out.join("Cargo.toml"), "# an earlier run\n");
    write_file(&out.join("src").join("lib.rs"), "// an earlier run\n");
    write_file(&out.join("target").join("debug").join("keep"), "build output\n");
}

/// Generates the spec files of `case`, runs the generator in normal and in check mode,
/// and returns what went wrong: a panic, a success, another error, or a touched output.
fn problems(case: &Case) -> Vec<String> {
    let mut problems = Vec::new();
    let tmp = temp_dir();
    let specs = tmp.path().join("specs");
    for (name, text) in case.files {
        write_file(&specs.join(name), text);
    }
    let out = tmp.path().join("out");
    populate_output(&out);
    let (tree, siblings) = (read_tree(&out), list_dir(tmp.path()));
    let expected = case.error.replace("{specs}", &specs.display().to_string());
    for check in [false, true] {
        let result = catch_unwind(AssertUnwindSafe(|| generate(&specs, &out, check)));
        let problem = match result {
            Err(_) => Some("panicked".to_owned()),
            Ok(Ok(_)) => Some("succeeded".to_owned()),
            Ok(Err(error)) if error.to_string() != expected => {
                Some(format!("error\n      {error}\n    expected\n      {expected}"))
            }
            Ok(Err(_)) => None,
        };
        problems.extend(problem.map(|problem| format!("{} (check: {check}): {problem}", case.name)));
        if read_tree(&out) != tree || list_dir(tmp.path()) != siblings {
            problems.push(format!("{} (check: {check}): the output folder was touched", case.name));
        }
    }
    problems
}

/// One test per case, named after it, so a case can be run alone.
macro_rules! case_tests {
    ($($test:ident: $name:literal,)*) => {
        $(
            #[test]
            fn $test() {
                let case = CASES.iter().find(|case| case.name == $name).expect("a case of that name");
                let problems = problems(case);
                assert!(problems.is_empty(), "{}", problems.join("\n"));
            }
        )*

        #[test]
        fn every_case_has_a_test() {
            let tested = [$($name),*];
            let untested: Vec<&str> = CASES.iter().map(|case| case.name).filter(|name| !tested.contains(name)).collect();
            assert!(untested.is_empty(), "cases without a test in case_tests!: {untested:?}");
        }
    };
}

case_tests! {
    owner_reference_with_a_field_of_another_type: "OwnerReference with a field of another type",
    invalid_json: "invalid JSON",
    invalid_yaml: "invalid YAML",
    unresolved_ref: "unresolved $ref",
    ref_of_an_unsupported_form: "$ref of an unsupported form",
    unsupported_type: "unsupported type",
    unsupported_format: "unsupported format",
    cycle_of_required_fields: "cycle of required fields",
    cycle_of_required_fields_through_an_alias: "cycle of required fields through an alias",
    cycle_of_required_fields_through_an_inline_object: "cycle of required fields through an inline object",
    schema_that_is_an_alias_of_itself: "schema that is an alias of itself",
    two_schemas_with_one_rust_name: "two schemas with one Rust name",
    required_entry_that_is_not_a_property: "required entry that is not a property",
    allof_with_several_schemas: "allOf with several schemas",
    not_an_openapi_document: "not an OpenAPI document",
    swagger_2_0_document: "Swagger 2.0 document",
    error_in_the_second_document_of_a_yaml_file: "error in the second document of a YAML file",
    error_after_empty_yaml_documents: "error after empty YAML documents",
    the_second_file_is_bad: "the second file is bad",
    crd_of_an_old_apiversion: "CRD of an old apiVersion",
    crd_named_other_than_plural_group: "CRD named other than plural.group",
    crd_with_two_storage_versions: "CRD with two storage versions",
    bad_pattern_deep_in_a_crd_schema_the_second_document_of_its_file: "bad pattern deep in a CRD schema, the second document of its file",
    bad_cel_rule_in_a_crd: "bad CEL rule in a CRD",
    crd_default_of_the_wrong_type: "CRD default of the wrong type",
    mistyped_name_rule: "mistyped name rule",
    printer_column_without_a_jsonpath: "printer column without a jsonPath",
    printer_column_of_an_unknown_type: "printer column of an unknown type",
    malformed_short_name: "malformed short name",
    scale_path_that_is_no_json_path: "scale path that is no JSON path",
    unknown_list_type: "unknown list type",
    list_map_keys_without_a_map_list: "list-map keys without a map list",
    unknown_map_type: "unknown map type",
    unknown_patch_strategy: "unknown patch strategy",
    int_or_string_that_is_not_a_boolean: "int-or-string that is not a boolean",
    unknown_action: "unknown action",
    malformed_release: "malformed release",
    crd_with_a_malformed_short_name: "CRD with a malformed short name",
    crd_printer_column_without_a_jsonpath: "CRD printer column without a jsonPath",
    empty_folder: "empty folder",
}
