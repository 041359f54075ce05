//! Check mode compares only: it lists stale and extra files and writes nothing.

use std::fs;

use crate::common::{fixture, generate, generate_ok, read_tree, slash_path, temp_dir, write_file};

#[test]
fn check_mode_lists_stale_and_extra_files_and_writes_nothing() {
    let tmp = temp_dir();
    let out = tmp.path().join("out");
    generate_ok(&fixture("resource"), &out);

    let clean = generate(&fixture("resource"), &out, true).unwrap_or_else(|e| panic!("{e}"));
    assert!(clean.changes.is_empty(), "a fresh output is reported stale: {:?}", clean.changes);

    // Make the output stale: edit one file, delete another, add one the generator does not
    // produce, and add entries that belong to the user (build output, hidden files).
    let edited = out.join("src/api/demo/v1/gadget.rs");
    let mut text = fs::read_to_string(&edited).expect("gadget.rs");
    text.push_str("// edited by hand\n");
    fs::write(&edited, text).expect("edit");
    fs::remove_file(out.join("src/api/demo/v1/dial.rs")).expect("delete");
    write_file(&out.join("src/api/demo/v1/old_type.rs"), "// left over\n");
    write_file(&out.join("target/debug/build-output"), "kept\n");
    write_file(&out.join(".git/HEAD"), "kept\n");
    let before = read_tree(&out);

    let summary = generate(&fixture("resource"), &out, true).unwrap_or_else(|e| panic!("{e}"));
    let changes = &summary.changes;
    let paths = |list: &[std::path::PathBuf]| list.iter().map(|p| slash_path(p)).collect::<Vec<_>>();
    assert_eq!(paths(&changes.changed), ["src/api/demo/v1/dial.rs", "src/api/demo/v1/gadget.rs"]);
    assert_eq!(paths(&changes.removed), ["src/api/demo/v1/old_type.rs"]);
    assert!(!changes.unchanged.is_empty());
    assert!(read_tree(&out) == before, "check mode changed the output folder");
    assert_eq!(crate::common::list_dir(tmp.path()), ["out"], "check mode left files beside the output");

    // Check mode on a folder that does not exist yet: everything is stale, nothing is created.
    let missing = tmp.path().join("missing");
    let summary = generate(&fixture("resource"), &missing, true).unwrap_or_else(|e| panic!("{e}"));
    assert!(summary.changes.unchanged.is_empty() && !summary.changes.changed.is_empty());
    assert!(!missing.exists(), "check mode created the output folder");
}

#[test]
fn writing_replaces_stale_files_and_keeps_user_entries() {
    let tmp = temp_dir();
    let out = tmp.path().join("out");
    generate_ok(&fixture("resource"), &out);
    let fresh = read_tree(&out);
    write_file(&out.join("src/api/demo/v1/old_type.rs"), "// left over\n");
    write_file(&out.join("src/lib.rs"), "// edited by hand\n");
    write_file(&out.join("target/debug/build-output"), "kept\n");
    write_file(&out.join(".git/HEAD"), "kept\n");

    let summary = generate_ok(&fixture("resource"), &out);
    let paths = |list: &[std::path::PathBuf]| list.iter().map(|p| slash_path(p)).collect::<Vec<_>>();
    assert_eq!(paths(&summary.changes.changed), ["src/lib.rs"]);
    assert_eq!(paths(&summary.changes.removed), ["src/api/demo/v1/old_type.rs"]);
    let mut after = read_tree(&out);
    assert_eq!(
        after.remove(std::path::Path::new("target/debug/build-output")).map(|s| s.bytes),
        Some(b"kept\n".to_vec())
    );
    assert_eq!(after.remove(std::path::Path::new(".git/HEAD")).map(|s| s.bytes), Some(b"kept\n".to_vec()));
    let contents = |tree: &std::collections::BTreeMap<std::path::PathBuf, crate::common::FileState>| {
        tree.iter().map(|(p, s)| (p.clone(), s.bytes.clone())).collect::<Vec<_>>()
    };
    assert_eq!(contents(&after), contents(&fresh));
    assert_eq!(crate::common::list_dir(tmp.path()), ["out"], "the writer left staging folders behind");
}
