//! Kubernetes object-meta conventions: names, namespaces, labels, annotations.
//!
//! The checks and their messages are those of the Kubernetes API server
//! (apimachinery `pkg/api/validation` `ValidateObjectMetaAccessor`,
//! `pkg/apis/meta/v1/validation` `ValidateLabels`, `pkg/util/validation` and
//! `pkg/api/validate/content`), so a client sees the same
//! `metadata.name: Invalid value: "Foo": a lowercase RFC 1123 subdomain must ...`
//! it would get from a real cluster.
//!
//! The functions take primitive inputs (the generated `ObjectMeta` type lives in generated
//! code) and push [`FieldError`]s into an [`ErrorList`]. They match the formats by hand
//! rather than with regexes: checking a valid object allocates nothing, and error messages
//! are only built for values that fail.
//!
//! Each function takes the path of the field it checks (`metadata.name`,
//! `metadata.labels`, ...); [`validate_object_meta`] takes the path of `metadata` itself.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::Value;

use kube_apigen_core::Scope;
use kube_apigen_core::field::{ErrorList, ErrorType, FieldError, Path};

/// Longest DNS-1123 label (`IsDNS1123Label`), and longest namespace.
pub const DNS1123_LABEL_MAX_LENGTH: usize = 63;
/// Longest DNS-1123 subdomain (`IsDNS1123Subdomain`), the default for object names.
pub const DNS1123_SUBDOMAIN_MAX_LENGTH: usize = 253;
/// Longest name part of a qualified name (label and annotation keys).
pub const QUALIFIED_NAME_MAX_LENGTH: usize = 63;
/// Longest label value.
pub const LABEL_VALUE_MAX_LENGTH: usize = 63;
/// Largest total size of annotation keys and values, in bytes (`TotalAnnotationSizeLimitB`).
pub const TOTAL_ANNOTATION_SIZE_LIMIT: usize = 256 * 1024;

const DNS1123_LABEL_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";
const DNS1123_LABEL_ERR_MSG: &str = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
const DNS1035_LABEL_FMT: &str = "[a-z]([-a-z0-9]*[a-z0-9])?";
const DNS1035_LABEL_ERR_MSG: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character";
const DNS1123_SUBDOMAIN_FMT: &str = "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";
const DNS1123_SUBDOMAIN_ERR_MSG: &str = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_KEY_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_KEY_ERR_MSG: &str =
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";
const LABEL_VALUE_ERR_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character";

/// Detail of the `Required` error for an object with neither a name nor a generateName.
pub const NAME_REQUIRED_MSG: &str = "name or generateName is required";
/// Detail of the `Forbidden` error for a namespace on a cluster-scoped object.
pub const NAMESPACE_FORBIDDEN_MSG: &str = "not allowed on this type";

/// The rule an object's name must follow; Kubernetes picks one per resource.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NameRule {
    /// A lowercase RFC 1123 subdomain of at most 253 characters (`NameIsDNSSubdomain`),
    /// what most resources use.
    #[default]
    Dns1123Subdomain,
    /// A lowercase RFC 1123 label of at most 63 characters (`NameIsDNSLabel`), as for
    /// namespaces and services.
    Dns1123Label,
    /// Anything that can be a URL path segment (`ValidatePathSegmentName`): not `.` or
    /// `..`, no `/` or `%`, as for RBAC roles.
    PathSegment,
}

impl NameRule {
    /// The messages for a name, or a `generateName` prefix when `prefix` is true: Kubernetes'
    /// `ValidateNameFunc(name, prefix)`. Empty when the name is valid; allocates only then.
    pub fn check(self, name: &str, prefix: bool) -> Vec<Cow<'static, str>> {
        match self {
            NameRule::Dns1123Subdomain if prefix => with_masked(name, is_dns1123_subdomain),
            NameRule::Dns1123Subdomain => is_dns1123_subdomain(name),
            NameRule::Dns1123Label if prefix => with_masked(name, is_dns1123_label),
            NameRule::Dns1123Label => is_dns1123_label(name),
            NameRule::PathSegment if prefix => is_valid_path_segment_prefix(name),
            NameRule::PathSegment => is_valid_path_segment_name(name),
        }
    }
}

/// What [`validate_object_meta`] reads of an object's metadata. Empty strings and `None`
/// stand for absent fields, as in Kubernetes' Go types.
#[derive(Clone, Copy, Debug, Default)]
pub struct ObjectMetaView<'a> {
    /// `metadata.name`.
    pub name: &'a str,
    /// `metadata.generateName`.
    pub generate_name: &'a str,
    /// `metadata.namespace`.
    pub namespace: &'a str,
    /// `metadata.labels`.
    pub labels: Option<&'a BTreeMap<String, String>>,
    /// `metadata.annotations`.
    pub annotations: Option<&'a BTreeMap<String, String>>,
}

/// Checks an object's metadata as the API server does on create and update
/// (`ValidateObjectMetaAccessor`), in its order: `generateName`, `name`, `namespace`,
/// `labels`, `annotations`. `path` is the path of `metadata`.
///
/// Differences from the API server, which validates after it has filled some fields in:
/// - An empty name with a `generateName` is accepted: the server generates the name
///   before it validates. Only an object with neither gets
///   `metadata.name: Required value: name or generateName is required`.
/// - A namespaced object without a namespace is accepted: on create through a namespaced
///   URL the server takes the namespace from the URL (and rejects a body that names
///   another one). Only what is present is checked, as a DNS-1123 label.
/// - A namespace on a cluster-scoped object is rejected with
///   `metadata.namespace: Forbidden: not allowed on this type`.
pub fn validate_object_meta(
    path: &Path<'_>,
    meta: ObjectMetaView<'_>,
    scope: Scope,
    name_rule: NameRule,
    errors: &mut ErrorList,
) {
    validate_generate_name(&path.field("generateName"), meta.generate_name, name_rule, errors);
    // With a generateName and no name yet, the server generates the name.
    if !meta.name.is_empty() || meta.generate_name.is_empty() {
        validate_name(&path.field("name"), meta.name, name_rule, errors);
    }
    match scope {
        Scope::Namespaced => {
            if !meta.namespace.is_empty() {
                validate_namespace(&path.field("namespace"), meta.namespace, errors);
            }
        }
        Scope::Cluster => {
            if !meta.namespace.is_empty() {
                errors.push(FieldError::new(
                    &path.field("namespace"),
                    ErrorType::Forbidden,
                    None,
                    NAMESPACE_FORBIDDEN_MSG,
                ));
            }
        }
    }
    if let Some(labels) = meta.labels {
        validate_labels(&path.field("labels"), labels, errors);
    }
    if let Some(annotations) = meta.annotations {
        validate_annotations(&path.field("annotations"), annotations, errors);
    }
}

/// Checks `metadata.name` (`path`) against `rule`. An empty name is
/// `Required value: name or generateName is required`: callers with a `generateName`
/// whose name is still to be generated should not call this ([`validate_object_meta`]
/// doesn't).
pub fn validate_name(path: &Path<'_>, name: &str, rule: NameRule, errors: &mut ErrorList) {
    if name.is_empty() {
        errors.push(FieldError::new(path, ErrorType::Required, None, NAME_REQUIRED_MSG));
        return;
    }
    push_invalid(path, name, rule.check(name, false), errors);
}

/// Checks `metadata.generateName` (`path`), a prefix to which the server appends five
/// random characters. As in Kubernetes, the prefix is checked against `rule` with a
/// trailing `-` masked (`maskTrailingDash`: the last two characters are replaced by `a`,
/// so `my-app-` is checked as `my-apa`); path-segment prefixes may be `.` or `..`. An
/// empty prefix is not checked.
pub fn validate_generate_name(path: &Path<'_>, generate_name: &str, rule: NameRule, errors: &mut ErrorList) {
    if generate_name.is_empty() {
        return;
    }
    push_invalid(path, generate_name, rule.check(generate_name, true), errors);
}

/// Checks `metadata.namespace` (`path`): a DNS-1123 label (`ValidateNamespaceName`).
/// An empty namespace is not checked.
pub fn validate_namespace(path: &Path<'_>, namespace: &str, errors: &mut ErrorList) {
    if namespace.is_empty() {
        return;
    }
    push_invalid(path, namespace, is_dns1123_label(namespace), errors);
}

/// Checks `metadata.labels` (`path`) as `ValidateLabels` does: every key must be a
/// qualified name and every value a label value. All errors are reported at `path`
/// itself, with the bad key or value as the value: `metadata.labels: Invalid value:
/// "bad key!": name part must consist of ...`. Entries are visited in key order, key
/// before value.
pub fn validate_labels(path: &Path<'_>, labels: &BTreeMap<String, String>, errors: &mut ErrorList) {
    for (key, value) in labels {
        push_invalid(path, key, is_qualified_name(key), errors);
        push_invalid(path, value, is_valid_label_value(value), errors);
    }
}

/// Checks `metadata.annotations` (`path`) as `ValidateAnnotations` does: every key must
/// be a qualified name once lower-cased (so `Example.COM/Key` passes), reported at `path`
/// with the key as it was sent; and the keys and values together may not exceed 256 KiB:
/// `metadata.annotations: Too long: may not be more than 262144 bytes`.
pub fn validate_annotations(path: &Path<'_>, annotations: &BTreeMap<String, String>, errors: &mut ErrorList) {
    let mut total = 0usize;
    for (key, value) in annotations {
        total = total.saturating_add(key.len()).saturating_add(value.len());
        let messages = if key.is_ascii() {
            is_qualified_name_ascii_case_insensitive(key)
        } else {
            is_qualified_name(&key.to_lowercase())
        };
        push_invalid(path, key, messages, errors);
    }
    if total > TOTAL_ANNOTATION_SIZE_LIMIT {
        errors.push(FieldError::new(path, ErrorType::TooLong, None, too_long_detail(TOTAL_ANNOTATION_SIZE_LIMIT)));
    }
}

/// The detail of a Kubernetes `field.TooLong` error: `may not be more than N bytes`.
pub fn too_long_detail(max: usize) -> String {
    let unit = if max == 1 { "byte" } else { "bytes" };
    format!("may not be more than {max} {unit}")
}

fn push_invalid(path: &Path<'_>, value: &str, messages: Vec<Cow<'static, str>>, errors: &mut ErrorList) {
    for message in messages {
        errors.push(FieldError::new(path, ErrorType::Invalid, Some(Value::String(value.to_owned())), message));
    }
}

// ---- The formats of `pkg/util/validation` and `pkg/api/validate/content`. ----
//
// Each returns the messages Kubernetes would, in its order; an empty `Vec` (which does
// not allocate) when the value is valid.

/// `IsDNS1123Label`: at most 63 characters matching `[a-z0-9]([-a-z0-9]*[a-z0-9])?`.
pub fn is_dns1123_label(value: &str) -> Vec<Cow<'static, str>> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    if !matches_dns1123_label(value.as_bytes()) {
        if matches_dns1123_subdomain(value.as_bytes()) {
            // A valid subdomain that is no label: it has dots.
            errs.push(Cow::Borrowed("must not contain dots"));
        } else {
            errs.push(regex_error(DNS1123_LABEL_ERR_MSG, DNS1123_LABEL_FMT, &["my-name", "123-abc"]));
        }
    }
    errs
}

/// `IsDNS1035Label`: at most 63 characters matching `[a-z]([-a-z0-9]*[a-z0-9])?` (a
/// DNS-1123 label that starts with a letter).
pub fn is_dns1035_label(value: &str) -> Vec<Cow<'static, str>> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_LABEL_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_LABEL_MAX_LENGTH));
    }
    let bytes = value.as_bytes();
    if !(bytes.first().is_some_and(u8::is_ascii_lowercase) && matches_dns1123_label(bytes)) {
        errs.push(regex_error(DNS1035_LABEL_ERR_MSG, DNS1035_LABEL_FMT, &["my-name", "abc-123"]));
    }
    errs
}

/// `IsDNS1123Subdomain`: at most 253 characters of dot-separated DNS-1123 labels.
pub fn is_dns1123_subdomain(value: &str) -> Vec<Cow<'static, str>> {
    let mut errs = Vec::new();
    if value.len() > DNS1123_SUBDOMAIN_MAX_LENGTH {
        errs.push(max_len_error(DNS1123_SUBDOMAIN_MAX_LENGTH));
    }
    if !matches_dns1123_subdomain(value.as_bytes()) {
        errs.push(regex_error(DNS1123_SUBDOMAIN_ERR_MSG, DNS1123_SUBDOMAIN_FMT, &["example.com"]));
    }
    errs
}

/// `IsQualifiedName` (`IsLabelKey`): an optional DNS-1123 subdomain prefix and `/`, then
/// a name of at most 63 characters matching `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
pub fn is_qualified_name(value: &str) -> Vec<Cow<'static, str>> {
    qualified_name_errors(value, false)
}

/// [`is_qualified_name`] of the ASCII lower-casing of `value`, without allocating it.
fn is_qualified_name_ascii_case_insensitive(value: &str) -> Vec<Cow<'static, str>> {
    qualified_name_errors(value, true)
}

fn qualified_name_errors(value: &str, fold_case: bool) -> Vec<Cow<'static, str>> {
    let mut errs = Vec::new();
    let mut parts = value.split('/');
    let first = parts.next().unwrap_or("");
    let (prefix, name) = match (parts.next(), parts.next()) {
        (None, _) => (None, first),
        (Some(name), None) => (Some(first), name),
        (Some(_), Some(_)) => {
            errs.push(Cow::Owned(format!(
                "a valid label key {} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
                regex_error(LABEL_KEY_ERR_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
            )));
            return errs;
        }
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() {
            errs.push(Cow::Borrowed("prefix part must be non-empty"));
        } else {
            let valid = prefix.len() <= DNS1123_SUBDOMAIN_MAX_LENGTH
                && if fold_case {
                    matches_dns1123_subdomain_ignoring_case(prefix.as_bytes())
                } else {
                    matches_dns1123_subdomain(prefix.as_bytes())
                };
            if !valid {
                let lowered;
                let checked = if fold_case {
                    lowered = prefix.to_ascii_lowercase();
                    &lowered
                } else {
                    prefix
                };
                errs.extend(
                    is_dns1123_subdomain(checked).into_iter().map(|msg| Cow::Owned(format!("prefix part {msg}"))),
                );
            }
        }
    }
    if name.is_empty() {
        errs.push(Cow::Borrowed("name part must be non-empty"));
    } else if name.len() > QUALIFIED_NAME_MAX_LENGTH {
        errs.push(Cow::Owned(format!("name part {}", max_len_error(QUALIFIED_NAME_MAX_LENGTH))));
    }
    if !matches_label_key_name(name.as_bytes()) {
        errs.push(Cow::Owned(format!(
            "name part {}",
            regex_error(LABEL_KEY_ERR_MSG, LABEL_KEY_FMT, &["MyName", "my.name", "123-abc"])
        )));
    }
    errs
}

/// `IsValidLabelValue`: empty, or at most 63 characters matching
/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
pub fn is_valid_label_value(value: &str) -> Vec<Cow<'static, str>> {
    let mut errs = Vec::new();
    if value.len() > LABEL_VALUE_MAX_LENGTH {
        errs.push(max_len_error(LABEL_VALUE_MAX_LENGTH));
    }
    if !value.is_empty() && !matches_label_key_name(value.as_bytes()) {
        errs.push(regex_error(LABEL_VALUE_ERR_MSG, LABEL_VALUE_FMT, &["MyValue", "my_value", "12345"]));
    }
    errs
}

/// `IsValidPathSegmentName`: not `.` or `..`, and without `/` or `%`.
pub fn is_valid_path_segment_name(name: &str) -> Vec<Cow<'static, str>> {
    match name {
        "." => vec![Cow::Borrowed("may not be '.'")],
        ".." => vec![Cow::Borrowed("may not be '..'")],
        _ => is_valid_path_segment_prefix(name),
    }
}

/// `IsValidPathSegmentPrefix`: without `/` or `%`.
pub fn is_valid_path_segment_prefix(name: &str) -> Vec<Cow<'static, str>> {
    let mut errs = Vec::new();
    if name.contains('/') {
        errs.push(Cow::Borrowed("may not contain '/'"));
    }
    if name.contains('%') {
        errs.push(Cow::Borrowed("may not contain '%'"));
    }
    errs
}

/// `check(mask_trailing_dash(name))`, masking in a stack buffer for names short enough
/// to be valid, so that a valid prefix costs no allocation.
fn with_masked(name: &str, check: impl FnOnce(&str) -> Vec<Cow<'static, str>>) -> Vec<Cow<'static, str>> {
    const BUF: usize = DNS1123_SUBDOMAIN_MAX_LENGTH + 1;
    if name.len() > 1 && name.len() <= BUF && name.ends_with('-') && name.is_ascii() {
        let mut buf = [0u8; BUF];
        let cut = name.len() - 2;
        buf[..cut].copy_from_slice(&name.as_bytes()[..cut]);
        buf[cut] = b'a';
        // ASCII in, ASCII out.
        let masked = std::str::from_utf8(&buf[..=cut]).unwrap_or_default();
        return check(masked);
    }
    check(&mask_trailing_dash(name))
}

/// Kubernetes' `maskTrailingDash`, quirk included: a trailing `-` makes the last *two*
/// bytes be replaced by `a` (`ab-` is checked as `aa`). Names of one byte are kept.
fn mask_trailing_dash(name: &str) -> Cow<'_, str> {
    if name.len() > 1 && name.ends_with('-') {
        let cut = name.len() - 2;
        match name.get(..cut) {
            Some(head) => Cow::Owned(format!("{head}a")),
            // The cut falls inside a multi-byte character. Go slices bytes and keeps the
            // broken character, which no name rule accepts; stand in for its remaining
            // bytes with as many `_`, equally invalid, so the length stays Go's too.
            None => {
                let without_dash = &name[..name.len() - 1];
                let last = without_dash.chars().next_back().map_or(0, char::len_utf8);
                let head = &without_dash[..without_dash.len() - last];
                Cow::Owned(format!("{head}{}a", "_".repeat(last - 1)))
            }
        }
    } else {
        Cow::Borrowed(name)
    }
}

/// `MaxLenError`.
fn max_len_error(length: usize) -> Cow<'static, str> {
    Cow::Owned(format!("must be no more than {length} characters"))
}

/// `RegexError`: the message, the examples and the regex, in Kubernetes' punctuation
/// (`(e.g. 'a',  or 'b', regex used for validation is '...')`).
fn regex_error(msg: &str, fmt: &str, examples: &[&str]) -> Cow<'static, str> {
    let mut out = String::from(msg);
    if examples.is_empty() {
        out.push_str(" (regex used for validation is '");
    } else {
        out.push_str(" (e.g. ");
        for (i, example) in examples.iter().enumerate() {
            if i > 0 {
                out.push_str(" or ");
            }
            out.push('\'');
            out.push_str(example);
            out.push_str("', ");
        }
        out.push_str("regex used for validation is '");
    }
    out.push_str(fmt);
    out.push_str("')");
    Cow::Owned(out)
}

// ---- Hand-written matchers for the regexes above (whole-string matches). ----

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn matches_dns1123_label(s: &[u8]) -> bool {
    matches_label_with(s, |b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*`
fn matches_dns1123_subdomain(s: &[u8]) -> bool {
    s.split(|&b| b == b'.').all(matches_dns1123_label)
}

/// [`matches_dns1123_subdomain`] of the ASCII lower-casing of `s`.
fn matches_dns1123_subdomain_ignoring_case(s: &[u8]) -> bool {
    s.split(|&b| b == b'.').all(|label| matches_label_with(label, |b| b.is_ascii_alphanumeric()))
}

fn matches_label_with(s: &[u8], alnum: impl Fn(u8) -> bool) -> bool {
    match (s.first(), s.last()) {
        (Some(&first), Some(&last)) => alnum(first) && alnum(last) && s.iter().all(|&b| b == b'-' || alnum(b)),
        _ => false,
    }
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`
fn matches_label_key_name(s: &[u8]) -> bool {
    match (s.first(), s.last()) {
        (Some(first), Some(last)) => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && s.iter().all(|&b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_like_kubernetes() {
        assert_eq!(mask_trailing_dash("my-app-"), "my-apa");
        assert_eq!(mask_trailing_dash("ab-"), "aa");
        assert_eq!(mask_trailing_dash("-"), "-");
        assert_eq!(mask_trailing_dash("abc"), "abc");
        assert_eq!(mask_trailing_dash("é-"), "_a");
    }

    #[test]
    fn regex_error_punctuation() {
        assert_eq!(regex_error("m", "f", &["a", "b"]), "m (e.g. 'a',  or 'b', regex used for validation is 'f')");
        assert_eq!(regex_error("m", "f", &[]), "m (regex used for validation is 'f')");
    }

    #[test]
    fn matchers() {
        assert!(matches_dns1123_subdomain(b"a.b-c.d1"));
        assert!(!matches_dns1123_subdomain(b"a..b"));
        assert!(!matches_dns1123_subdomain(b"a."));
        assert!(!matches_dns1123_subdomain(b""));
        assert!(matches_label_key_name(b"a"));
        assert!(matches_label_key_name(b"A_b.c-D"));
        assert!(!matches_label_key_name(b"_a"));
        assert!(!matches_label_key_name(b"a."));
    }
}
