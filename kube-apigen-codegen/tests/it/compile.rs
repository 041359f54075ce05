//! Every fixture's crate compiles, warning-free.
//!
//! Generated crates written outside the repository's own members are standalone: each
//! `Cargo.toml` has a `[workspace]` table of its own, so they cannot be members of a
//! parent workspace. Instead, one `harness` crate depends on all of them by path (a path
//! dependency's `[workspace]` table is ignored), and a single `cargo build` of the harness
//! compiles every fixture: dependencies (serde, support) are built once.
//!
//! Everything lives in `target/fixture-builds/` (beside the outer build's folders,
//! wherever `CARGO_TARGET_DIR` puts them): the crates at fixed paths, so cargo's caches
//! stay valid between runs (the writer leaves unchanged files untouched), and a target
//! folder of its own, because the outer `cargo test` holds the lock of its own.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{fixture, fixture_names, generate_ok, temp_dir, workspace_root, write_file};

fn builds_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target folder").join("fixture-builds")
}

#[test]
fn fixtures_compile_without_warnings() {
    let crates = builds_dir().join("crates");
    let packages: Vec<(String, PathBuf)> = fixture_names()
        .into_iter()
        .map(|name| {
            let out = crates.join(&name);
            generate_ok(&fixture(&name), &out);
            (name.replace('_', "-"), out)
        })
        .collect();
    build("harness", &packages);
}

/// Generates `specs` into `target/fixture-builds/extra/<name>` and builds it on its own.
fn build_spec(name: &str, spec: &str) {
    let tmp = temp_dir();
    let specs = tmp.path().join(name);
    write_file(&specs.join("spec.yaml"), spec);
    let out = builds_dir().join("extra").join(name);
    generate_ok(&specs, &out);
    build(&format!("harness-{name}"), &[(name.replace('_', "-"), out)]);
}

/// Builds a crate depending on `packages` (name, folder) with one `cargo build`, and fails
/// on errors and on warnings in those packages.
fn build(harness_name: &str, packages: &[(String, PathBuf)]) {
    let root = builds_dir();
    let harness = root.join(harness_name);
    let dependencies: String = packages
        .iter()
        .map(|(package, folder)| format!("{package} = {{ path = {:?} }}\n", folder.display().to_string()))
        .collect();
    write_if_changed(
        &harness.join("Cargo.toml"),
        &format!(
            "[package]\nname = \"fixture-{harness_name}\"\nversion = \"0.1.0\"\nedition = \"2024\"\npublish = false\n\n\
             [dependencies]\n{dependencies}\n[workspace]\n"
        ),
    );
    write_if_changed(&harness.join("src").join("lib.rs"), "//! Depends on the crates under test.\n");
    // Start from the workspace's lock file so the same dependency versions are used.
    if let Ok(lock) = fs::read_to_string(workspace_root().join("Cargo.lock")) {
        write_if_changed(&harness.join("Cargo.lock"), &lock);
    }

    let output = Command::new(env!("CARGO"))
        .args(["build", "--offline", "--manifest-path"])
        .arg(harness.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", root.join("target"))
        .env("CARGO_TERM_COLOR", "never")
        .output()
        .expect("cargo runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the generated crates do not compile:\n{stderr}");

    let warned: Vec<&str> = packages
        .iter()
        .filter(|(package, _)| stderr.contains(&format!("warning: `{package}` (lib) generated")))
        .map(|(package, _)| package.as_str())
        .collect();
    assert!(warned.is_empty(), "generated crates {warned:?} compile with warnings:\n{stderr}");
}

/// Writes only when the content differs, so cargo's fingerprints stay valid.
fn write_if_changed(path: &Path, content: &str) {
    if fs::read_to_string(path).ok().as_deref() != Some(content) {
        write_file(path, content);
    }
}

/// A resource whose `ObjectMeta` schema has only some of the upstream fields, as
/// hand-written specs do. The generator should either produce code that compiles or
/// reject the spec with an error; today the validation emitter reads
/// `generate_name`, `labels` and `annotations` unconditionally.
#[test]
fn resource_with_a_reduced_object_meta_compiles() {
    build_spec(
        "reduced_object_meta",
        r##"openapi: 3.0.0
info: {title: Kubernetes, version: unversioned}
paths:
  /apis/demo.k8s.io/v1/namespaces/{namespace}/gadgets:
    post:
      operationId: createDemoV1NamespacedGadget
      responses: {'201': {description: Created}}
      x-kubernetes-action: post
      x-kubernetes-group-version-kind: {group: demo.k8s.io, kind: Gadget, version: v1}
components:
  schemas:
    io.k8s.api.demo.v1.Gadget:
      type: object
      properties:
        metadata:
          allOf:
          - $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta'
      x-kubernetes-group-version-kind:
      - {group: demo.k8s.io, kind: Gadget, version: v1}
    io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta:
      type: object
      properties:
        name:
          type: string
        namespace:
          type: string
"##,
    );
}
