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
        error: "specs/crds.yaml:32:32: at /spec/versions/0/schema/openAPIV3Schema/properties/spec/properties/ports/items/properties/name/pattern: invalid pattern: regex parse error:\n    [a-z\n    ^\nerror: unclosed character class",
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

#[test]
fn bad_specs_are_reported_and_leave_the_output_alone() {
    let mut failures = Vec::new();
    for case in CASES {
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
            if let Some(problem) = problem {
                failures.push(format!("{} (check: {check}): {problem}", case.name));
            }
            if read_tree(&out) != tree || list_dir(tmp.path()) != siblings {
                failures.push(format!("{} (check: {check}): the output folder was touched", case.name));
            }
        }
    }
    assert!(failures.is_empty(), "{} problems:\n  {}", failures.len(), failures.join("\n  "));
}
