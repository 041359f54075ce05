//! One snapshot per fixture: the whole emitted crate, file by file.
//!
//! Review a changed snapshot as you would review the generated code itself.

use std::path::Path;

use crate::common::{emit, fixture, fixture_names, render};

fn snapshot(name: &str) {
    let files = emit(&fixture(name)).unwrap_or_else(|e| panic!("fixture {name}: {e}"));
    let mut settings = insta::Settings::clone_current();
    // An absolute path: insta's own lookup of the workspace root fails when `cargo
    // metadata` does (for example while another crate of the checkout is broken).
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("it").join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_description(format!("kube-apigen-codegen/tests/fixtures/{name}"));
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name, render(&files)));
}

macro_rules! fixtures {
    ($($name:ident),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                snapshot(stringify!($name));
            }
        )*

        /// Every fixture with a snapshot test.
        pub const FIXTURES: &[&str] = &[$(stringify!($name)),*];
    };
}

fixtures!(
    all_of_refs,
    custom_resource,
    enums,
    formats,
    int_or_string,
    maps,
    name_collisions,
    odd_names,
    quantity,
    recursion,
    required_optional,
    resource,
);

#[test]
fn every_fixture_folder_has_a_snapshot_test() {
    let mut listed: Vec<&str> = FIXTURES.to_vec();
    listed.sort();
    assert_eq!(fixture_names(), listed, "add the new fixture folder to `fixtures!` in {}", file!());
}
