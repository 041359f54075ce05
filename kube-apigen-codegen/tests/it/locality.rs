//! A small change to a spec changes only the files that must change, so reviews of the
//! committed output see only what the change means.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::{differing_paths, fixture, generate_ok, read_tree, slash_path, temp_dir, write_file};

/// A fixture's documents, parsed, with their paths relative to the fixture folder.
fn parsed_fixture(name: &str) -> Vec<(PathBuf, Value)> {
    let dir = fixture(name);
    let documents = kube_apigen_codegen::load::load_dir(&dir).unwrap_or_else(|e| panic!("{e}"));
    documents
        .into_iter()
        .map(|d| {
            assert_eq!(d.index_in_file, 0, "multi-document fixtures are not supported here");
            (d.display_path.strip_prefix(name).expect("display path starts with the folder").to_path_buf(), d.value)
        })
        .collect()
}

/// Writes the documents as JSON (which is YAML too) under their original file names, so
/// the headers naming the source files stay the same.
fn write_specs(specs: &Path, documents: &[(PathBuf, Value)]) {
    for (path, value) in documents {
        write_file(&specs.join(path), serde_json::to_string_pretty(value).expect("JSON"));
    }
}

fn schemas(documents: &mut [(PathBuf, Value)]) -> &mut serde_json::Map<String, Value> {
    documents[0].1.pointer_mut("/components/schemas").and_then(Value::as_object_mut).expect("components.schemas")
}

/// Generates `documents`, applies `edit`, generates again, and returns the paths whose
/// content changed; also checks that every other file was left untouched on disk.
fn changed_files(fixture_name: &str, edit: impl FnOnce(&mut serde_json::Map<String, Value>)) -> Vec<String> {
    let tmp = temp_dir();
    let specs = tmp.path().join(fixture_name);
    let out = tmp.path().join("out");
    let mut documents = parsed_fixture(fixture_name);
    write_specs(&specs, &documents);
    generate_ok(&specs, &out);
    let before = read_tree(&out);

    edit(schemas(&mut documents));
    write_specs(&specs, &documents);
    let summary = generate_ok(&specs, &out);
    let after = read_tree(&out);

    let contents = |tree: &std::collections::BTreeMap<PathBuf, crate::common::FileState>| {
        tree.iter().map(|(p, s)| (p.clone(), s.bytes.clone())).collect::<std::collections::BTreeMap<_, _>>()
    };
    let changed = differing_paths(&contents(&before), &contents(&after));
    let reported: Vec<String> = summary.changes.changed.iter().map(|p| slash_path(p)).collect();
    assert_eq!(reported, changed, "the summary reports other files than those that changed");
    assert!(summary.changes.removed.is_empty(), "files removed: {:?}", summary.changes.removed);
    // Unchanged files keep their timestamps: the writer does not rewrite them.
    let touched: Vec<String> = before
        .iter()
        .filter(|(path, state)| !changed.contains(&slash_path(path)) && after.get(*path) != Some(state))
        .map(|(path, _)| slash_path(path))
        .collect();
    assert!(touched.is_empty(), "unchanged files were rewritten: {touched:?}");
    changed
}

#[test]
fn adding_an_optional_field_changes_only_its_type_file() {
    let changed = changed_files("all_of_refs", |schemas| {
        let target = schemas["io.k8s.api.demo.v1.Target"]["properties"].as_object_mut().expect("properties");
        target.insert("extra".to_owned(), json!({"description": "A new optional field.", "type": "string"}));
    });
    assert_eq!(changed, ["src/api/demo/v1/target.rs"]);
}

#[test]
fn adding_a_schema_changes_only_its_file_and_its_module() {
    let changed = changed_files("all_of_refs", |schemas| {
        schemas.insert(
            "io.k8s.api.demo.v1.Extra".to_owned(),
            json!({"description": "A new schema.", "type": "object", "properties": {"value": {"type": "string"}}}),
        );
    });
    assert_eq!(changed, ["src/api/demo/v1/extra.rs", "src/api/demo/v1/mod.rs"]);
}
