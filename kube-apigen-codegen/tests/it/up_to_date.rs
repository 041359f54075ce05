//! The committed crates are exactly what their specs generate, as this repository's
//! `apigen.toml` lists them; what the generator embeds agrees with the repository.

use std::fs;

use kube_apigen_codegen::{Config, Runtime};

use crate::common::{slash_path, workspace_root};

#[test]
fn committed_crates_are_up_to_date() {
    let root = workspace_root();
    let config = Config::read(&root.join("apigen.toml")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.crates.len(), 3, "generated/, tests/fixture-api/ and tests/kube-api/");
    for options in config.crates {
        let options =
            kube_apigen_codegen::Options { check: true, command: "cargo xtask codegen".to_owned(), ..options };
        let summary = kube_apigen_codegen::generate(&options)
            .unwrap_or_else(|e| panic!("{} does not generate: {e}", options.specs.display()));
        let changes = &summary.changes;
        let list = |paths: &[std::path::PathBuf]| {
            paths.iter().map(|p| format!("  {}", slash_path(p))).collect::<Vec<_>>().join("\n")
        };
        assert!(
            changes.is_empty(),
            "{} is not up to date; run `cargo xtask codegen`.\nstale:\n{}\nextra:\n{}",
            options.out.display(),
            list(&changes.changed),
            list(&changes.removed)
        );
        assert!(!changes.unchanged.is_empty(), "check mode compared no files");
    }
}

/// Output names its runtime by the generator's version, which is the runtime's: they are
/// released together.
#[test]
fn the_default_runtime_is_the_runtime_of_this_version() {
    let manifest: toml::Table =
        toml::from_str(&fs::read_to_string(workspace_root().join("Cargo.toml")).unwrap()).unwrap();
    let version = manifest["workspace"]["package"]["version"].as_str().expect("a workspace version");
    assert_eq!(Runtime::default(), Runtime::Registry { version: version.to_owned() });
    let facade: toml::Table =
        toml::from_str(&fs::read_to_string(workspace_root().join("kube-apigen/Cargo.toml")).unwrap()).unwrap();
    assert_eq!(
        facade["package"]["version"]["workspace"].as_bool(),
        Some(true),
        "the runtime has the workspace version"
    );
}
