//! Targeted checks of emitted code: behaviour that a snapshot shows but does not guard
//! (a snapshot accepted in bulk would accept a regression too).

use std::path::Path;

use crate::common::{emit, fixture};

/// The text of `fn <name>` in `source`, up to the next item at the top level.
fn function<'s>(source: &'s str, name: &str) -> &'s str {
    let start = source.find(&format!("fn {name}")).unwrap_or_else(|| panic!("no fn {name} in:\n{source}"));
    let rest = &source[start..];
    let end = rest.find("\n}\n").map_or(rest.len(), |i| i + 3);
    &rest[..end]
}

/// Responses use the status codes the spec lists. The fixture's create
/// operations list only `201 Created`.
#[test]
fn create_answers_with_the_status_code_the_spec_lists() {
    let files = emit(&fixture("resource")).unwrap_or_else(|e| panic!("{e}"));
    for file in ["src/api/demo/v1/gadget_api.rs", "src/api/demo/v1/dial_api.rs"] {
        let source = &files[Path::new(file)];
        let create = function(source, "handle_create");
        assert!(
            create.contains("StatusCode::CREATED") || create.contains("201"),
            "{file}: create does not answer 201 Created:\n{create}"
        );
    }
}

/// A property whose name is a keyword and one that differs from it only by a `$` map to
/// distinct snake_case names without doubled underscores (`ref__2` warns `non_snake_case`).
#[test]
fn colliding_keyword_properties_get_snake_case_names() {
    let files = emit(&fixture("odd_names")).unwrap_or_else(|e| panic!("{e}"));
    let source = &files[Path::new("src/api/demo/v1/odd.rs")];
    assert!(source.contains("pub ref_: Option<String>"), "{source}");
    assert!(source.contains("pub ref_2: Option<String>"), "{source}");
    assert!(!source.contains("__"), "a field name with a doubled underscore:\n{source}");
}

/// Fields that close a cycle through an alias are boxed (otherwise the type has infinite size).
#[test]
fn recursion_through_an_alias_is_boxed() {
    let files = emit(&fixture("recursion")).unwrap_or_else(|e| panic!("{e}"));
    let source = &files[Path::new("src/api/demo/v1/chain.rs")];
    assert!(source.contains("pub next: Option<Box<ChainLink>>"), "{source}");
    let tree = &files[Path::new("src/api/demo/v1/tree.rs")];
    assert!(!tree.contains("Box<"), "recursion through Vec and map needs no Box:\n{tree}");
}

/// Custom resources' operations take the same query parameters as built-in ones, so a
/// specs folder mixing both has one parameter type per set (no per-operation
/// type explosion).
#[test]
fn custom_resources_share_the_parameter_types_of_built_in_ones() {
    let specs = crate::common::workspace_root().join("specs");
    let files = emit(&specs).unwrap_or_else(|e| panic!("{e}"));
    let params = &files[Path::new("src/params.rs")];
    let structs: Vec<&str> = params
        .lines()
        .filter_map(|line| line.strip_prefix("pub struct "))
        .map(|rest| rest.trim_end_matches(" {"))
        .collect();
    assert_eq!(
        structs,
        [
            "ListParams",
            "CreateOrReplaceParams",
            "DeleteCollectionParams",
            "ReadParams",
            "DeleteParams",
            "PatchParams",
            "NamespacePath",
            "NamespaceNamePath",
            "NamePath",
        ]
    );
}
