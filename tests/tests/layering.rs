//! The crates' layering, as their manifests state it: what a published crate may depend
//! on, so that a user gets what they ask for and no more. Read from `cargo metadata`.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The crates a user depends on, and which of this workspace's crates each may depend on
/// (normal dependencies; dev-dependencies may use anything).
const PUBLISHED: &[(&str, &[&str])] = &[
    ("kube-apigen-core", &[]),
    ("kube-apigen-validation", &["kube-apigen-core"]),
    // The HTTP layer runs the Validate trait on request bodies.
    ("kube-apigen-server", &["kube-apigen-core", "kube-apigen-validation"]),
    ("kube-apigen", &["kube-apigen-core", "kube-apigen-validation", "kube-apigen-server"]),
    ("kube-apigen-patch", &["kube-apigen-core"]),
    ("kube-apigen-registry", &["kube-apigen", "kube-apigen-patch"]),
    // The generator compiles CEL rules with the runtime's own code, never its HTTP layer.
    ("kube-apigen-codegen", &["kube-apigen-core", "kube-apigen-validation"]),
    ("kube-apigen-cli", &["kube-apigen-codegen"]),
];

/// Crates of the HTTP and async stack, which neither the models layer nor the generator
/// may bring in.
const SERVER_STACK: &[&str] = &["axum", "hyper", "tokio", "tower"];

/// The published crates below the HTTP layer.
const BELOW_HTTP: &[&str] =
    &["kube-apigen-core", "kube-apigen-validation", "kube-apigen-patch", "kube-apigen-codegen", "kube-apigen-cli"];

fn metadata() -> Value {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace");
    let output = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline", "--no-deps"])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON")
}

/// Each workspace package: whether it may be published, and its normal dependencies.
fn packages() -> BTreeMap<String, (bool, Vec<String>)> {
    let metadata = metadata();
    let packages = metadata["packages"].as_array().expect("packages");
    packages
        .iter()
        .map(|package| {
            let publishable = package["publish"].as_array().is_none_or(|registries| !registries.is_empty());
            let dependencies = package["dependencies"]
                .as_array()
                .expect("dependencies")
                .iter()
                .filter(|dependency| dependency["kind"].is_null())
                .map(|dependency| dependency["name"].as_str().expect("a name").to_owned())
                .collect();
            (package["name"].as_str().expect("a name").to_owned(), (publishable, dependencies))
        })
        .collect()
}

#[test]
fn exactly_the_published_crates_may_be_published() {
    let packages = packages();
    let publishable: Vec<&str> =
        packages.iter().filter(|(_, (publishable, _))| *publishable).map(|(name, _)| name.as_str()).collect();
    let mut expected: Vec<&str> = PUBLISHED.iter().map(|(name, _)| *name).collect();
    expected.sort();
    assert_eq!(publishable, expected, "every other package has `publish = false` (and .ci/run packages these)");
}

#[test]
fn published_crates_depend_only_on_the_layers_below_them() {
    let packages = packages();
    let mut problems = Vec::new();
    for (name, allowed) in PUBLISHED {
        let (_, dependencies) = &packages[*name];
        for dependency in dependencies {
            let internal = packages.contains_key(dependency);
            if internal && !allowed.contains(&dependency.as_str()) {
                problems.push(format!("{name} depends on {dependency}"));
            }
        }
        if BELOW_HTTP.contains(name) {
            for dependency in dependencies.iter().filter(|d| SERVER_STACK.contains(&d.as_str())) {
                problems.push(format!("{name} depends on {dependency}, of the HTTP stack"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
