//! The committed `generated/` crate is exactly what `specs/` generates.

use crate::common::{generate, slash_path, workspace_root};

#[test]
fn generated_crate_is_up_to_date() {
    let root = workspace_root();
    let summary = generate(&root.join("specs"), &root.join("generated"), true)
        .unwrap_or_else(|e| panic!("specs/ does not generate: {e}"));
    let changes = &summary.changes;
    let list = |paths: &[std::path::PathBuf]| {
        paths.iter().map(|p| format!("  {}", slash_path(p))).collect::<Vec<_>>().join("\n")
    };
    assert!(
        changes.is_empty(),
        "generated/ is not up to date; run `cargo xtask codegen`.\nstale:\n{}\nextra:\n{}",
        list(&changes.changed),
        list(&changes.removed)
    );
    assert!(!changes.unchanged.is_empty(), "check mode compared no files");
}
