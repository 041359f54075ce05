//! The checks generated `validate` methods call, one function per schema keyword.
//!
//! Each pushes a [`FieldError`] in the Kubernetes format when the rule is broken and does
//! nothing (and allocates nothing) when it holds.

use std::fmt::Display;
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;
use serde_json::Value;

use kube_apigen_core::field::{ErrorList, FieldError, Path};

/// A numeric field type the bounds checks accept.
pub trait Number: Copy + PartialOrd + Display + Into<Value> {}
impl Number for i32 {}
impl Number for i64 {}
impl Number for f64 {}

/// `minimum` (or `exclusiveMinimum` when `exclusive`).
pub fn minimum<T: Number>(path: &Path<'_>, value: T, bound: T, exclusive: bool, errors: &mut ErrorList) {
    if let Some(relation) = below_minimum(value, bound, exclusive) {
        errors.push(FieldError::invalid(path, value, format!("must be {relation} {bound}")));
    }
}

/// `maximum` (or `exclusiveMaximum` when `exclusive`).
pub fn maximum<T: Number>(path: &Path<'_>, value: T, bound: T, exclusive: bool, errors: &mut ErrorList) {
    if let Some(relation) = above_maximum(value, bound, exclusive) {
        errors.push(FieldError::invalid(path, value, format!("must be {relation} {bound}")));
    }
}

/// The relation to the bound `value` fails to have, if it breaks a `minimum`.
fn below_minimum<T: Number>(value: T, bound: T, exclusive: bool) -> Option<&'static str> {
    match exclusive {
        true if value <= bound => Some("greater than"),
        false if value < bound => Some("greater than or equal to"),
        _ => None,
    }
}

/// The relation to the bound `value` fails to have, if it breaks a `maximum`.
fn above_maximum<T: Number>(value: T, bound: T, exclusive: bool) -> Option<&'static str> {
    match exclusive {
        true if value >= bound => Some("less than"),
        false if value > bound => Some("less than or equal to"),
        _ => None,
    }
}

/// `minLength`, counted in characters.
pub fn min_length(path: &Path<'_>, value: &str, min: usize, errors: &mut ErrorList) {
    if value.chars().count() < min {
        let unit = if min == 1 { "character" } else { "characters" };
        errors.push(FieldError::invalid(path, value, format!("must be at least {min} {unit} long")));
    }
}

/// `maxLength`, counted in characters.
pub fn max_length(path: &Path<'_>, value: &str, max: usize, errors: &mut ErrorList) {
    // Byte length bounds the character count from above: skip counting short strings.
    if value.len() > max && value.chars().count() > max {
        errors.push(FieldError::too_long_characters(path, value, max));
    }
}

/// A `pattern`, compiled on first use (as Go's `regexp` reads it: [`crate::go::regexp`])
/// and then shared.
pub struct Pattern {
    source: &'static str,
    regex: OnceLock<Result<Regex, String>>,
}

impl Pattern {
    /// The pattern `source`, compiled when it first checks a value.
    pub const fn new(source: &'static str) -> Self {
        Pattern { source, regex: OnceLock::new() }
    }

    /// Checks `value` against the pattern (a search, not anchored, as in OpenAPI).
    pub fn check(&self, path: &Path<'_>, value: &str, errors: &mut ErrorList) {
        self.check_worded(path, value, errors, |source| format!("must match the regular expression '{source}'"));
    }

    fn check_worded(&self, path: &Path<'_>, value: &str, errors: &mut ErrorList, detail: impl FnOnce(&str) -> String) {
        match self.regex.get_or_init(|| crate::go::regexp::compile(self.source).map_err(|e| e.to_string())) {
            Ok(regex) if regex.is_match(value) => {}
            Ok(_) => errors.push(FieldError::invalid(path, value, detail(self.source))),
            Err(error) => {
                errors.push(FieldError::internal(path, format!("invalid pattern '{}': {error}", self.source)))
            }
        }
    }
}

/// `minItems`.
pub fn min_items(path: &Path<'_>, len: usize, min: usize, errors: &mut ErrorList) {
    if len < min {
        let unit = if min == 1 { "item" } else { "items" };
        errors.push(FieldError::invalid(path, len, format!("must have at least {min} {unit}")));
    }
}

/// `maxItems`.
pub fn max_items(path: &Path<'_>, len: usize, max: usize, errors: &mut ErrorList) {
    if len > max {
        errors.push(FieldError::too_many(path, len, max));
    }
}

/// `minProperties`.
pub fn min_properties(path: &Path<'_>, len: usize, min: usize, errors: &mut ErrorList) {
    if len < min {
        let unit = if min == 1 { "property" } else { "properties" };
        errors.push(FieldError::invalid(path, len, format!("must have at least {min} {unit}")));
    }
}

/// `maxProperties`.
pub fn max_properties(path: &Path<'_>, len: usize, max: usize, errors: &mut ErrorList) {
    if len > max {
        let unit = if max == 1 { "property" } else { "properties" };
        errors.push(FieldError::new(
            path,
            kube_apigen_core::field::ErrorType::TooMany,
            Some(Value::from(len)),
            format!("must have at most {max} {unit}"),
        ));
    }
}

/// `uniqueItems` and `x-kubernetes-list-type: set`: a `Duplicate value` at each later
/// index of an item equal to an earlier one.
pub fn unique_items<T: PartialEq + Serialize>(path: &Path<'_>, items: &[T], errors: &mut ErrorList) {
    report_duplicates(path, items, |a, b| a == b, |item| to_value(item), errors);
}

/// `x-kubernetes-list-type: map`: items must differ in their key fields. `same` compares
/// two items' keys; `keys` gives an item's key values in the order of `names`, for the
/// report: an object of just the key fields (`{"name":"a","port":80}`).
pub fn unique_by<T>(
    path: &Path<'_>,
    items: &[T],
    names: &[&str],
    same: impl Fn(&T, &T) -> bool,
    keys: impl Fn(&T) -> Vec<Value>,
    errors: &mut ErrorList,
) {
    let shown = |item: &T| -> Value {
        names.iter().map(|n| (*n).to_owned()).zip(keys(item)).collect::<serde_json::Map<_, _>>().into()
    };
    report_duplicates(path, items, same, shown, errors);
}

fn report_duplicates<T>(
    path: &Path<'_>,
    items: &[T],
    same: impl Fn(&T, &T) -> bool,
    shown: impl Fn(&T) -> Value,
    errors: &mut ErrorList,
) {
    for (index, item) in items.iter().enumerate().skip(1) {
        if items[..index].iter().any(|earlier| same(earlier, item)) {
            errors.push(FieldError::duplicate(&path.index(index), shown(item)));
        }
    }
}

fn to_value(value: &impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// A string enum value that is not one of `supported`.
pub fn not_supported(path: &Path<'_>, value: &str, supported: &[&str], errors: &mut ErrorList) {
    errors.push(FieldError::not_supported(path, value, supported));
}

/// A non-string `enum`: `value` must equal one of `allowed`.
pub fn one_of<T: Number>(path: &Path<'_>, value: T, allowed: &[T], errors: &mut ErrorList) {
    if !allowed.contains(&value) {
        let supported: Vec<String> = allowed.iter().map(ToString::to_string).collect();
        let supported: Vec<&str> = supported.iter().map(String::as_str).collect();
        errors.push(FieldError::not_supported(path, value, &supported));
    }
}

/// A required field that is missing: absent, `null`, or the empty string, list or map.
pub fn required(path: &Path<'_>, errors: &mut ErrorList) {
    errors.push(FieldError::required(path, ""));
}

/// A `Quantity`'s text (of the runtime's type or k8s-openapi's) must parse as one.
pub fn quantity(path: &Path<'_>, text: &str, errors: &mut ErrorList) {
    if kube_apigen_core::Quantity::validate_text(text).is_err() {
        errors.push(FieldError::invalid(
            path,
            text,
            "must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
        ));
    }
}

/// The list and watch parameters whose combinations Kubernetes restricts.
#[derive(Clone, Copy, Debug, Default)]
pub struct ListOptions<'a> {
    /// `watch`: whether the request is a watch.
    pub watch: bool,
    /// `limit`: the most items a page of a list may hold.
    pub limit: Option<i64>,
    /// `continue`: the token of the next page of a list.
    pub continue_: Option<&'a str>,
    /// `resourceVersion`.
    pub resource_version: Option<&'a str>,
    /// `resourceVersionMatch`: `Exact` or `NotOlderThan`.
    pub resource_version_match: Option<&'a str>,
    /// `sendInitialEvents`: whether a watch starts with the current objects.
    pub send_initial_events: Option<bool>,
}

/// The combinations of list and watch parameters Kubernetes forbids, reported at the
/// parameter's name as `ListOptions` field errors:
/// - `continue` and `limit` page lists; a watch takes neither;
/// - `sendInitialEvents` only with `watch=true` and `resourceVersionMatch=NotOlderThan`;
/// - on a watch, `resourceVersionMatch` only with `sendInitialEvents`;
/// - on a list, `resourceVersionMatch` needs `resourceVersion` and excludes `continue`,
///   and `Exact` cannot ask for resourceVersion `0`.
pub fn list_options(options: ListOptions<'_>, errors: &mut ErrorList) {
    let root = Path::ROOT;
    let is_set = |value: Option<&str>| value.is_some_and(|v| !v.is_empty());
    let resource_version_match = options.resource_version_match.filter(|m| !m.is_empty());
    if options.watch {
        if is_set(options.continue_) {
            errors.push(FieldError::forbidden(&root.field("continue"), "continue is forbidden for watch"));
        }
        if options.limit.is_some_and(|limit| limit > 0) {
            errors.push(FieldError::forbidden(&root.field("limit"), "limit is forbidden for watch"));
        }
        if options.send_initial_events.is_some() && resource_version_match != Some("NotOlderThan") {
            errors.push(FieldError::forbidden(
                &root.field("resourceVersionMatch"),
                "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan",
            ));
        }
        if resource_version_match.is_some() && options.send_initial_events.is_none() {
            errors.push(FieldError::forbidden(
                &root.field("resourceVersionMatch"),
                "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided",
            ));
        }
        return;
    }
    if let Some(found) = resource_version_match {
        if !is_set(options.resource_version) {
            errors.push(FieldError::forbidden(
                &root.field("resourceVersionMatch"),
                "resourceVersionMatch is forbidden unless resourceVersion is provided",
            ));
        }
        if is_set(options.continue_) {
            errors.push(FieldError::forbidden(
                &root.field("resourceVersionMatch"),
                "resourceVersionMatch is forbidden when continue is provided",
            ));
        }
        if found == "Exact" && options.resource_version == Some("0") {
            errors.push(FieldError::forbidden(
                &root.field("resourceVersionMatch"),
                "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"",
            ));
        }
    }
    if options.send_initial_events.is_some() {
        errors.push(FieldError::forbidden(&root.field("sendInitialEvents"), "sendInitialEvents is forbidden for list"));
    }
}

/// The options Kubernetes ties to server-side apply: `force` only with an apply patch,
/// and an apply patch needs a `fieldManager`.
pub fn patch_options(force: Option<bool>, field_manager: Option<&str>, is_apply: bool, errors: &mut ErrorList) {
    if force == Some(true) && !is_apply {
        errors.push(FieldError::forbidden(&Path::ROOT.field("force"), "may not be specified for non-apply patch"));
    }
    if is_apply && field_manager.is_none_or(str::is_empty) {
        errors.push(FieldError::required(&Path::ROOT.field("fieldManager"), "is required for apply patch"));
    }
}

/// The keyword checks of custom resources, worded as the API server's schema validator
/// words them: `spec.replicas: Invalid value: 0: spec.replicas in body should be greater
/// than or equal to 1`. Keywords Kubernetes reports as typed errors (`enum`, `maxLength`,
/// `maxItems`, `maxProperties`, `required`) read the same for every resource and are not
/// repeated here.
pub mod schema {
    use super::{Number, Pattern, above_maximum, below_minimum};
    use kube_apigen_core::field::{ErrorList, FieldError, Path};

    /// `minimum` (or `exclusiveMinimum` when `exclusive`).
    pub fn minimum<T: Number>(path: &Path<'_>, value: T, bound: T, exclusive: bool, errors: &mut ErrorList) {
        if let Some(relation) = below_minimum(value, bound, exclusive) {
            errors.push(FieldError::invalid(path, value, format!("{path} in body should be {relation} {bound}")));
        }
    }

    /// `maximum` (or `exclusiveMaximum` when `exclusive`).
    pub fn maximum<T: Number>(path: &Path<'_>, value: T, bound: T, exclusive: bool, errors: &mut ErrorList) {
        if let Some(relation) = above_maximum(value, bound, exclusive) {
            errors.push(FieldError::invalid(path, value, format!("{path} in body should be {relation} {bound}")));
        }
    }

    /// `minLength`, counted in characters.
    pub fn min_length(path: &Path<'_>, value: &str, min: usize, errors: &mut ErrorList) {
        if value.chars().count() < min {
            errors.push(FieldError::invalid(
                path,
                value,
                format!("{path} in body should be at least {min} chars long"),
            ));
        }
    }

    /// `format` on a string: the formats the API server checks for custom resources
    /// ([`crate::format::check`]), `spec.addr in body must be of type ipv4: "999.1.1.1"`;
    /// formats it does not check are ignored.
    pub fn format(path: &Path<'_>, format: &str, value: &str, errors: &mut ErrorList) {
        if crate::format::check(format, value) == Some(false) {
            errors.push(FieldError::invalid(path, value, crate::format::message(&path.to_string(), format, value)));
        }
    }

    /// `pattern`.
    pub fn pattern(pattern: &Pattern, path: &Path<'_>, value: &str, errors: &mut ErrorList) {
        pattern.check_worded(path, value, errors, |source| format!("{path} in body should match '{source}'"));
    }

    /// `minItems`.
    pub fn min_items(path: &Path<'_>, len: usize, min: usize, errors: &mut ErrorList) {
        if len < min {
            errors.push(FieldError::invalid(path, len, format!("{path} in body should have at least {min} items")));
        }
    }

    /// `minProperties`.
    pub fn min_properties(path: &Path<'_>, len: usize, min: usize, errors: &mut ErrorList) {
        if len < min {
            errors.push(FieldError::invalid(
                path,
                len,
                format!("{path} in body should have at least {min} properties"),
            ));
        }
    }
}
