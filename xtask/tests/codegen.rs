//! `cargo xtask codegen` as a user runs it.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

mod common;

/// Generates `specs` into `out`, remembering printed files in `target`.
fn generate_with(specs: &Path, out: &Path, target: &Path) {
    let output = Command::new(env!("CARGO_BIN_EXE_xtask"))
        .args(["codegen", "--specs"])
        .arg(specs)
        .arg("--out")
        .arg(out)
        .env("CARGO_TARGET_DIR", target)
        .output()
        .expect("xtask runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}

/// The Rust files of a generated crate, by path.
fn rust_files(out: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut pending = vec![out.join("src")];
    while let Some(folder) = pending.pop() {
        for entry in std::fs::read_dir(&folder).expect("the output is readable") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&path).expect("a generated file");
                files.insert(path.strip_prefix(out).expect("inside").display().to_string(), text);
            }
        }
    }
    files
}

/// Generated crates are printed, not run through rustfmt; `cargo fmt` in the workspace
/// that holds one leaves it as printed (its crate root skips itself and its modules).
#[test]
fn cargo_fmt_leaves_a_generated_crate_as_printed() {
    if Command::new("cargo").args(["fmt", "--version"]).output().map_or(true, |o| !o.status.success()) {
        eprintln!("SKIPPED: cargo fmt is not installed (`rustup component add rustfmt`)");
        return;
    }
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let out = tmp.path().join("out");
    generate_with(&common::specs(), &out, &tmp.path().join("target"));
    let printed = rust_files(&out);
    let output = Command::new("cargo")
        .arg("fmt")
        .arg("--manifest-path")
        .arg(out.join("Cargo.toml"))
        .output()
        .expect("cargo fmt runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(rust_files(&out), printed, "cargo fmt changed a generated file");
}

/// Regeneration (which reuses printed files) undoes edits of generated files and writes
/// what a generation from scratch writes, with its cache intact or damaged.
#[test]
fn regeneration_writes_what_a_fresh_generation_writes() {
    let tmp = tempfile::tempdir().expect("a temporary folder");
    let specs = common::copy_specs(tmp.path());
    let out = tmp.path().join("out");
    let target = tmp.path().join("target");
    let generate = |specs: &Path, out: &Path| generate_with(specs, out, &target);
    generate(&specs, &out);

    let edited = out.join("src/api/autoscaling/v2/horizontal_pod_autoscaler_spec.rs");
    let original = std::fs::read_to_string(&edited).expect("the file was generated");
    std::fs::write(&edited, format!("{original}// edited by hand\n")).expect("the edit is written");
    generate(&specs, &out);
    assert_eq!(std::fs::read_to_string(&edited).expect("the file is there"), original, "the edit is undone");

    let spec = specs.join("autoscaling_v2.yaml");
    let text = std::fs::read_to_string(&spec).expect("the spec is there");
    let old = "Largest replica count the autoscaler may set";
    assert!(text.contains(old), "the description this test changes is in the spec");
    std::fs::write(&spec, text.replace(old, "The most replicas the autoscaler may set")).expect("the spec is written");
    let first = rust_files(&out);
    generate(&specs, &out);
    let second = rust_files(&out);
    assert!(second.iter().any(|(path, text)| first.get(path) != Some(text)), "the description is in some Rust file");
    let fresh = tmp.path().join("fresh");
    generate(&specs, &fresh);
    assert_eq!(second, rust_files(&fresh), "regeneration writes what a generation from scratch writes");

    // A damaged cache is a cache that knows nothing.
    for entry in std::fs::read_dir(target.join("codegen-format")).expect("the cache folder") {
        std::fs::write(entry.expect("a cache file").path(), "not a cache\n0 1\n").expect("the cache is damaged");
    }
    generate(&specs, &out);
    assert_eq!(rust_files(&out), second, "the output is the same");
}
