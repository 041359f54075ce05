//! The same specs give byte-identical files, wherever they are and however often they run.

use crate::common::{
    copy_dir, differing_paths, emit, fixture, fixture_names, generate_ok, read_contents, temp_dir, write_file,
};

#[test]
fn emitting_twice_gives_identical_files() {
    for name in fixture_names() {
        let first = emit(&fixture(&name)).unwrap_or_else(|e| panic!("{e}"));
        let second = emit(&fixture(&name)).unwrap_or_else(|e| panic!("{e}"));
        assert!(first == second, "fixture {name}: files differ: {:?}", differing_paths(&first, &second));
    }
}

#[test]
fn generating_twice_rewrites_nothing() {
    let tmp = temp_dir();
    let out = tmp.path().join("out");
    let first = generate_ok(&fixture("resource"), &out);
    assert!(!first.changes.changed.is_empty());
    let written = read_contents(&out);
    let second = generate_ok(&fixture("resource"), &out);
    assert!(second.changes.is_empty(), "second run changed {:?}", second.changes);
    assert_eq!(second.changes.unchanged.len(), written.len());
    assert!(written == read_contents(&out));
}

#[test]
fn the_specs_location_does_not_leak_into_the_output() {
    let tmp = temp_dir();
    // The same folder name (it names the crate's source in headers), somewhere else.
    let copy = tmp.path().join("elsewhere").join("deeper").join("recursion");
    copy_dir(&fixture("recursion"), &copy);
    // Output folders at the same depth, so the relative path to the runtime agrees.
    let (out_a, out_b) = (tmp.path().join("a").join("out"), tmp.path().join("b").join("out"));
    generate_ok(&fixture("recursion"), &out_a);
    generate_ok(&copy, &out_b);
    let (a, b) = (read_contents(&out_a), read_contents(&out_b));
    assert!(!a.is_empty());
    assert!(a == b, "files differ: {:?}", differing_paths(&a, &b));
}

/// Object keys come out sorted whatever their order in the document. This guards against
/// `serde_json/preserve_order` being switched on by feature unification, which would make
/// the output depend on which crates happen to be built together.
#[test]
fn key_order_in_the_document_does_not_matter() {
    let document = |properties: &str| {
        format!(
            r#"{{"openapi": "3.0.0", "info": {{"title": "t", "version": "v"}}, "components": {{"schemas": {{
                "io.k8s.api.demo.v1.Order": {{"type": "object", "properties": {{{properties}}}}}
            }}}}}}"#
        )
    };
    let tmp = temp_dir();
    let (one, two) = (tmp.path().join("1").join("specs"), tmp.path().join("2").join("specs"));
    write_file(&one.join("demo.json"), document(r#""zeta": {"type": "string"}, "alpha": {"type": "boolean"}"#));
    write_file(&two.join("demo.json"), document(r#""alpha": {"type": "boolean"}, "zeta": {"type": "string"}"#));
    let (a, b) = (emit(&one).unwrap_or_else(|e| panic!("{e}")), emit(&two).unwrap_or_else(|e| panic!("{e}")));
    assert!(a == b, "files differ: {:?}", differing_paths(&a, &b));
}
