//! Object-meta checks against the errors the Kubernetes API server gives.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::collections::BTreeMap;

use kube_apigen_core::Scope;
use kube_apigen_core::field::{ErrorList, ErrorType, FieldError, Path};
use kube_apigen_validation::meta::{
    NameRule, ObjectMetaView, validate_annotations, validate_generate_name, validate_labels, validate_name,
    validate_namespace, validate_object_meta,
};
use serde_json::json;

const SUBDOMAIN_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const NAME_PART_MSG: &str = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

fn invalid(field: &str, value: &str, detail: &str) -> FieldError {
    FieldError {
        field: field.to_owned(),
        error_type: ErrorType::Invalid,
        bad_value: Some(json!(value)),
        detail: detail.to_owned(),
    }
}

fn other(field: &str, error_type: ErrorType, detail: &str) -> FieldError {
    FieldError { field: field.to_owned(), error_type, bad_value: None, detail: detail.to_owned() }
}

fn name_errors(name: &str, rule: NameRule) -> ErrorList {
    let metadata = Path::ROOT.field("metadata");
    let mut errors = ErrorList::new();
    validate_name(&metadata.field("name"), name, rule, &mut errors);
    errors
}

fn generate_name_errors(prefix: &str, rule: NameRule) -> ErrorList {
    let metadata = Path::ROOT.field("metadata");
    let mut errors = ErrorList::new();
    validate_generate_name(&metadata.field("generateName"), prefix, rule, &mut errors);
    errors
}

fn map(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
    entries.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

fn label_errors(labels: &[(&str, &str)]) -> ErrorList {
    let metadata = Path::ROOT.field("metadata");
    let mut errors = ErrorList::new();
    validate_labels(&metadata.field("labels"), &map(labels), &mut errors);
    errors
}

fn annotation_errors(annotations: &BTreeMap<String, String>) -> ErrorList {
    let metadata = Path::ROOT.field("metadata");
    let mut errors = ErrorList::new();
    validate_annotations(&metadata.field("annotations"), annotations, &mut errors);
    errors
}

#[test]
fn subdomain_names() {
    for ok in ["a", "my-app", "my.app.v1", "0abc", &"a".repeat(253)] {
        assert_eq!(name_errors(ok, NameRule::Dns1123Subdomain), vec![], "{ok}");
    }
    let long = "a".repeat(254);
    assert_eq!(
        name_errors(&long, NameRule::Dns1123Subdomain),
        vec![invalid("metadata.name", &long, "must be no more than 253 characters")]
    );
    for bad in ["Foo", "-foo", "foo-", "foo_bar", "a..b", "é"] {
        assert_eq!(
            name_errors(bad, NameRule::Dns1123Subdomain),
            vec![invalid("metadata.name", bad, SUBDOMAIN_MSG)],
            "{bad}"
        );
    }
    let long_bad = format!("{}A", "a".repeat(253));
    assert_eq!(
        name_errors(&long_bad, NameRule::Dns1123Subdomain),
        vec![
            invalid("metadata.name", &long_bad, "must be no more than 253 characters"),
            invalid("metadata.name", &long_bad, SUBDOMAIN_MSG),
        ]
    );
    assert_eq!(
        name_errors("Foo", NameRule::Dns1123Subdomain)[0].to_string(),
        format!("metadata.name: Invalid value: \"Foo\": {SUBDOMAIN_MSG}")
    );
}

#[test]
fn label_names() {
    assert_eq!(name_errors(&"a".repeat(63), NameRule::Dns1123Label), vec![]);
    let long = "a".repeat(64);
    assert_eq!(
        name_errors(&long, NameRule::Dns1123Label),
        vec![invalid("metadata.name", &long, "must be no more than 63 characters")]
    );
    assert_eq!(
        name_errors("a.b", NameRule::Dns1123Label),
        vec![invalid("metadata.name", "a.b", "must not contain dots")]
    );
    assert_eq!(name_errors("-a", NameRule::Dns1123Label), vec![invalid("metadata.name", "-a", LABEL_MSG)]);
}

#[test]
fn path_segment_names() {
    assert_eq!(name_errors("Any Thing:Goes", NameRule::PathSegment), vec![]);
    assert_eq!(name_errors(".", NameRule::PathSegment), vec![invalid("metadata.name", ".", "may not be '.'")]);
    assert_eq!(name_errors("..", NameRule::PathSegment), vec![invalid("metadata.name", "..", "may not be '..'")]);
    assert_eq!(
        name_errors("a/b%c", NameRule::PathSegment),
        vec![
            invalid("metadata.name", "a/b%c", "may not contain '/'"),
            invalid("metadata.name", "a/b%c", "may not contain '%'"),
        ]
    );
}

#[test]
fn empty_name_is_required() {
    let errors = name_errors("", NameRule::Dns1123Subdomain);
    assert_eq!(errors, vec![other("metadata.name", ErrorType::Required, "name or generateName is required")]);
    assert_eq!(errors[0].to_string(), "metadata.name: Required value: name or generateName is required");
}

#[test]
fn generate_name_prefixes() {
    for ok in ["my-app-", "a-", "web", "x.y-", "a--"] {
        assert_eq!(generate_name_errors(ok, NameRule::Dns1123Subdomain), vec![], "{ok}");
    }
    // The trailing dash is masked with the character before it (Kubernetes'
    // maskTrailingDash), so a dot or dash there passes as well.
    assert_eq!(generate_name_errors("a.-", NameRule::Dns1123Subdomain), vec![]);
    for bad in ["My-App-", "-", "-a-", "a_-x"] {
        assert_eq!(
            generate_name_errors(bad, NameRule::Dns1123Subdomain),
            vec![invalid("metadata.generateName", bad, SUBDOMAIN_MSG)],
            "{bad}"
        );
    }
    // The masked prefix is one character shorter.
    let long = format!("{}-", "a".repeat(253));
    assert_eq!(generate_name_errors(&long, NameRule::Dns1123Subdomain), vec![]);
    let too_long = format!("{}-", "a".repeat(254));
    assert_eq!(
        generate_name_errors(&too_long, NameRule::Dns1123Subdomain),
        vec![invalid("metadata.generateName", &too_long, "must be no more than 253 characters")]
    );
    assert_eq!(
        generate_name_errors("my.app-", NameRule::Dns1123Label),
        vec![invalid("metadata.generateName", "my.app-", "must not contain dots")]
    );
    // Path-segment prefixes may be `.` or `..`, a suffix follows.
    assert_eq!(generate_name_errors("..", NameRule::PathSegment), vec![]);
    assert_eq!(
        generate_name_errors("a/", NameRule::PathSegment),
        vec![invalid("metadata.generateName", "a/", "may not contain '/'")]
    );
    assert_eq!(generate_name_errors("", NameRule::Dns1123Subdomain), vec![]);
}

#[test]
fn namespaces() {
    let metadata = Path::ROOT.field("metadata");
    let namespace = metadata.field("namespace");
    let mut errors = ErrorList::new();
    validate_namespace(&namespace, "kube-system", &mut errors);
    validate_namespace(&namespace, "", &mut errors);
    assert_eq!(errors, vec![]);
    validate_namespace(&namespace, "Bad_NS", &mut errors);
    validate_namespace(&namespace, "a.b", &mut errors);
    assert_eq!(
        errors,
        vec![
            invalid("metadata.namespace", "Bad_NS", LABEL_MSG),
            invalid("metadata.namespace", "a.b", "must not contain dots"),
        ]
    );
}

#[test]
fn label_keys_and_values() {
    assert_eq!(
        label_errors(&[
            ("app", "web"),
            ("example.com/app", "My_Value-1.x"),
            ("app.kubernetes.io/name", ""),
            ("MyKey", "v"),
        ]),
        vec![]
    );

    let errors = label_errors(&[("bad key!", "ok")]);
    assert_eq!(errors, vec![invalid("metadata.labels", "bad key!", NAME_PART_MSG)]);
    assert_eq!(
        errors[0].to_string(),
        "metadata.labels: Invalid value: \"bad key!\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
    );

    assert_eq!(
        label_errors(&[("Example.com/app", "v")]),
        vec![invalid("metadata.labels", "Example.com/app", &format!("prefix part {SUBDOMAIN_MSG}"))]
    );
    let long_prefix = format!("{}/app", "a".repeat(254));
    assert_eq!(
        label_errors(&[(&long_prefix, "v")]),
        vec![invalid("metadata.labels", &long_prefix, "prefix part must be no more than 253 characters")]
    );
    assert_eq!(
        label_errors(&[("/app", "v")]),
        vec![invalid("metadata.labels", "/app", "prefix part must be non-empty")]
    );
    assert_eq!(
        label_errors(&[("example.com/", "v")]),
        vec![
            invalid("metadata.labels", "example.com/", "name part must be non-empty"),
            invalid("metadata.labels", "example.com/", NAME_PART_MSG),
        ]
    );
    assert_eq!(
        label_errors(&[("a/b/c", "v")]),
        vec![invalid(
            "metadata.labels",
            "a/b/c",
            "a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        )]
    );
    let long_name = "k".repeat(64);
    assert_eq!(
        label_errors(&[(&long_name, "v")]),
        vec![invalid("metadata.labels", &long_name, "name part must be no more than 63 characters")]
    );
    assert_eq!(label_errors(&[(&"k".repeat(63), "v")]), vec![]);

    // Values: at most 63 characters of the label alphabet; each error carries the value.
    let long_value = "v".repeat(64);
    assert_eq!(
        label_errors(&[("a", &long_value), ("b", "-bad"), ("c", &"v".repeat(63))]),
        vec![
            invalid("metadata.labels", &long_value, "must be no more than 63 characters"),
            invalid("metadata.labels", "-bad", LABEL_VALUE_MSG),
        ]
    );

    // Key errors come before value errors, entries in key order.
    assert_eq!(
        label_errors(&[("z!", "-"), ("a!", "ok")]),
        vec![
            invalid("metadata.labels", "a!", NAME_PART_MSG),
            invalid("metadata.labels", "z!", NAME_PART_MSG),
            invalid("metadata.labels", "-", LABEL_VALUE_MSG),
        ]
    );
}

#[test]
fn annotation_keys_and_size() {
    // Keys are checked lower-cased: an upper-case prefix passes.
    assert_eq!(
        annotation_errors(&map(&[
            ("Example.COM/Key", "any value at all: { \"json\": true }"),
            ("kubectl.kubernetes.io/last-applied-configuration", "{}"),
        ])),
        vec![]
    );
    assert_eq!(
        annotation_errors(&map(&[("bad key!", "v")])),
        vec![invalid("metadata.annotations", "bad key!", NAME_PART_MSG)]
    );
    assert_eq!(
        annotation_errors(&map(&[("Bad_Prefix/key", "v")])),
        vec![invalid("metadata.annotations", "Bad_Prefix/key", &format!("prefix part {SUBDOMAIN_MSG}"))]
    );

    // 256 KiB of keys and values together.
    let key = "big";
    let at_limit = map(&[(key, &"x".repeat(262_144 - key.len()))]);
    assert_eq!(annotation_errors(&at_limit), vec![]);
    let over = map(&[(key, &"x".repeat(262_144 - key.len())), ("b", "")]);
    let errors = annotation_errors(&over);
    assert_eq!(errors, vec![other("metadata.annotations", ErrorType::TooLong, "may not be more than 262144 bytes")]);
    assert_eq!(errors[0].to_string(), "metadata.annotations: Too long: may not be more than 262144 bytes");
}

#[test]
fn object_meta() {
    let metadata = Path::ROOT.field("metadata");
    let labels = map(&[("app", "web")]);
    let annotations = map(&[("note", "hi")]);
    let mut errors = ErrorList::new();

    let valid = ObjectMetaView {
        name: "web",
        namespace: "default",
        labels: Some(&labels),
        annotations: Some(&annotations),
        ..Default::default()
    };
    validate_object_meta(&metadata, valid, Scope::Namespaced, NameRule::default(), &mut errors);
    // Namespaced objects without a namespace get it from the URL.
    validate_object_meta(
        &metadata,
        ObjectMetaView { namespace: "", ..valid },
        Scope::Namespaced,
        NameRule::default(),
        &mut errors,
    );
    // A generateName stands in for the name still to be generated.
    validate_object_meta(
        &metadata,
        ObjectMetaView { name: "", generate_name: "web-", ..valid },
        Scope::Namespaced,
        NameRule::default(),
        &mut errors,
    );
    assert_eq!(errors, vec![]);

    // Cluster-scoped objects have no namespace.
    validate_object_meta(&metadata, valid, Scope::Cluster, NameRule::default(), &mut errors);
    assert_eq!(errors, vec![other("metadata.namespace", ErrorType::Forbidden, "not allowed on this type")]);
    assert_eq!(errors[0].to_string(), "metadata.namespace: Forbidden: not allowed on this type");

    // Everything wrong at once, in Kubernetes' order.
    let bad_labels = map(&[("bad key!", "v")]);
    let bad_annotations = map(&[("a/b/c/", "v")]);
    let mut errors = ErrorList::new();
    validate_object_meta(
        &metadata,
        ObjectMetaView {
            name: "",
            generate_name: "",
            namespace: "Bad",
            labels: Some(&bad_labels),
            annotations: Some(&bad_annotations),
        },
        Scope::Namespaced,
        NameRule::Dns1123Label,
        &mut errors,
    );
    let fields: Vec<(&str, ErrorType)> = errors.iter().map(|e| (e.field.as_str(), e.error_type)).collect();
    assert_eq!(
        fields,
        vec![
            ("metadata.name", ErrorType::Required),
            ("metadata.namespace", ErrorType::Invalid),
            ("metadata.labels", ErrorType::Invalid),
            ("metadata.annotations", ErrorType::Invalid),
        ]
    );

    let mut errors = ErrorList::new();
    validate_object_meta(
        &metadata,
        ObjectMetaView { name: "Web", generate_name: "Web-", ..Default::default() },
        Scope::Cluster,
        NameRule::Dns1123Subdomain,
        &mut errors,
    );
    assert_eq!(
        errors,
        vec![invalid("metadata.generateName", "Web-", SUBDOMAIN_MSG), invalid("metadata.name", "Web", SUBDOMAIN_MSG),]
    );
}

/// Counts this thread's allocations, to show that checking valid metadata allocates nothing.
struct CountingAllocator;

thread_local! {
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|count| count.set(count.get() + 1));
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

#[test]
fn valid_metadata_does_not_allocate() {
    let labels = map(&[("app", "web"), ("app.kubernetes.io/name", "web-1.2_x"), ("empty", "")]);
    let annotations = map(&[("Example.COM/Key", "{\"a\": 1}"), ("note", "")]);
    let meta = ObjectMetaView {
        name: "web-0",
        generate_name: "web-",
        namespace: "default",
        labels: Some(&labels),
        annotations: Some(&annotations),
    };
    let metadata = Path::ROOT.field("metadata");
    let mut errors = ErrorList::new();
    let before = ALLOCATIONS.with(Cell::get);
    for rule in [NameRule::Dns1123Subdomain, NameRule::Dns1123Label, NameRule::PathSegment] {
        validate_object_meta(&metadata, meta, Scope::Namespaced, rule, &mut errors);
    }
    let after = ALLOCATIONS.with(Cell::get);
    assert_eq!(errors, vec![]);
    assert_eq!(after - before, 0, "allocations while validating valid metadata");
}
