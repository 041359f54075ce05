//! The features of the generated crates: every combination of `validation`, `server` and
//! `dynamic` builds clippy-clean, and each pulls in only the dependencies it is for.
//!
//! The builds are `cargo clippy` runs over `generated/` and `tests/fixture-api/` (and with
//! them `support`, compiled with the features each combination turns on) into one target
//! folder of their own, `target/feature-combinations` (the outer `cargo test` holds the
//! lock of `target/debug`): dependencies are checked once per feature set, then kept.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The feature combinations, as cargo's arguments.
const COMBINATIONS: &[(&str, &[&str])] = &[
    ("models only", &["--no-default-features"]),
    ("validation", &["--no-default-features", "--features", "validation"]),
    ("server", &["--no-default-features", "--features", "server"]),
    ("default", &[]),
    ("dynamic", &["--features", "dynamic"]),
];

/// Crates of the HTTP and async stack, which only `server` may bring in.
const SERVER_STACK: &[&str] = &["axum", "hyper", "tokio", "tower"];

/// Proc macros and their parser, which models do without (their serde impls are written out).
const PROC_MACROS: &[&str] = &["serde_derive", "syn"];

/// Crates only validation needs.
const VALIDATION_ONLY: &[&str] = &["cel", "regex"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ is inside the workspace").to_path_buf()
}

fn cargo(args: &[&str]) -> Output {
    let root = root();
    Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .current_dir(&root)
        .env("CARGO_TARGET_DIR", root.join("target").join("feature-combinations"))
        .args(args)
        .output()
        .expect("cargo runs")
}

/// The names of the packages `package` depends on (normal dependencies, transitively).
fn dependencies(package: &str, features: &[&str]) -> Vec<String> {
    let mut args = vec!["tree", "--offline", "-p", package, "-e", "normal", "--prefix", "none", "--format", "{p}"];
    args.extend(features);
    let output = cargo(&args);
    assert!(output.status.success(), "cargo tree: {}", String::from_utf8_lossy(&output.stderr));
    let mut names: Vec<String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_whitespace().next())
        .map(str::to_owned)
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Which of `crates` are among `dependencies`.
fn present<'a>(dependencies: &[String], crates: &[&'a str]) -> Vec<&'a str> {
    crates.iter().copied().filter(|name| dependencies.iter().any(|d| d == name)).collect()
}

#[test]
fn every_feature_combination_builds_clippy_clean() {
    let mut failures = Vec::new();
    for (name, features) in COMBINATIONS {
        let mut args = vec!["clippy", "--offline", "--quiet", "--all-targets", "-p", "generated", "-p", "fixture-api"];
        args.extend(*features);
        args.extend(["--", "-D", "warnings"]);
        let output = cargo(&args);
        if !output.status.success() {
            failures.push(format!("{name} ({}):\n{}", features.join(" "), String::from_utf8_lossy(&output.stderr)));
        }
    }
    assert!(failures.is_empty(), "feature combinations with errors or warnings:\n{}", failures.join("\n"));
}

#[test]
fn models_only_need_neither_validation_nor_the_server_stack() {
    let models = dependencies("generated", &["--no-default-features"]);
    assert_eq!(present(&models, SERVER_STACK), Vec::<&str>::new(), "models only");
    assert_eq!(present(&models, VALIDATION_ONLY), Vec::<&str>::new(), "models only");
    assert_eq!(present(&models, PROC_MACROS), Vec::<&str>::new(), "models only");
    assert!(present(&models, &["serde", "jiff", "prost"]).len() == 3, "models need serde, jiff and prost: {models:?}");

    let validation = dependencies("generated", &["--no-default-features", "--features", "validation"]);
    assert_eq!(present(&validation, SERVER_STACK), Vec::<&str>::new(), "validation");
    assert_eq!(present(&validation, VALIDATION_ONLY), VALIDATION_ONLY, "validation");

    let default = dependencies("generated", &[]);
    assert_eq!(present(&default, SERVER_STACK), SERVER_STACK, "default");
}

#[test]
fn the_generator_needs_no_server_stack() {
    let xtask = dependencies("xtask", &[]);
    assert_eq!(present(&xtask, SERVER_STACK), Vec::<&str>::new(), "cargo xtask");
    assert!(xtask.iter().any(|d| d == "cel"), "the generator checks CEL rules: {xtask:?}");
}
