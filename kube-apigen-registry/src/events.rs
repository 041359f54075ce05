//! The strategy of Events, core/v1 `events` and `events.k8s.io/v1` `events`, registered by
//! [`crate::Server::builder`] when the API serves them: their creates and updates are
//! checked as the API server checks them, beyond what the specs state.
//!
//! Both versions pass the legacy checks: an event without `eventTime` names an object of
//! its own namespace; one with it names its reporting controller (a qualified name) and
//! instance, its action and reason (at most 128 characters each) and a note of at most
//! 1024. A create through `events.k8s.io/v1` is checked strictly too: `eventTime` is
//! required, `type` is `Normal` or `Warning`, a series counts at least 2 with its last
//! observed time, and the deprecated core fields are unset.
//!
//! An update through `events.k8s.io/v1` may change little more than the series: a
//! changed series is checked as on create, and the object's reference, reason, note,
//! type, times, count, source, action, related object and reporting fields are
//! immutable (`field is immutable`, with the new value as Go prints the internal type).
//! Updates through core/v1 pass the legacy checks only.
//!
//! The API server checks both versions as its internal (core) event, so every error
//! names the internal field: `involvedObject` for `regarding`, `message` for `note`,
//! `source`, `firstTimestamp`, `lastTimestamp` and `count` for their `deprecated` forms;
//! only the reporting controller is named as the request's version names it
//! (`reportingComponent` through core/v1).

use jiff::Timestamp;
use kube_apigen::field::{ErrorList, FieldError, Path};
use kube_apigen::go::fmt::quote;
use kube_apigen::meta::{is_dns1123_subdomain, is_qualified_name};
use serde_json::Value;

use crate::object::meta_str;
use crate::strategy::{Strategy, WriteContext};

/// The group of the strictly checked Events.
pub const GROUP: &str = "events.k8s.io";

/// The strategy of Events in one group: `""` (core/v1) or [`GROUP`].
#[derive(Clone, Copy, Debug)]
pub struct Events {
    fields: &'static Fields,
    strict: bool,
}

impl Events {
    /// Core/v1 events: the legacy checks.
    pub const CORE: Events = Events { fields: &CORE_FIELDS, strict: false };
    /// `events.k8s.io/v1` events: the legacy checks, and the strict ones on create.
    pub const EVENTS_V1: Events = Events { fields: &EVENTS_V1_FIELDS, strict: true };
}

/// The names a version gives the core event's fields the checks read.
#[derive(Debug)]
struct Fields {
    involved_object: &'static str,
    reporting_controller: &'static str,
    message: &'static str,
    source: &'static str,
    first_timestamp: &'static str,
    last_timestamp: &'static str,
    count: &'static str,
}

const CORE_FIELDS: Fields = Fields {
    involved_object: "involvedObject",
    reporting_controller: "reportingComponent",
    message: "message",
    source: "source",
    first_timestamp: "firstTimestamp",
    last_timestamp: "lastTimestamp",
    count: "count",
};

const EVENTS_V1_FIELDS: Fields = Fields {
    involved_object: "regarding",
    reporting_controller: "reportingController",
    message: "note",
    source: "deprecatedSource",
    first_timestamp: "deprecatedFirstTimestamp",
    last_timestamp: "deprecatedLastTimestamp",
    count: "deprecatedCount",
};

/// The longest reporting instance, action and reason.
const NAME_LIKE_LIMIT: usize = 128;
/// The longest message (note).
const MESSAGE_LIMIT: usize = 1024;

impl Strategy for Events {
    fn validate(&self, _: &WriteContext<'_>, object: &Value) -> ErrorList {
        let mut errors = self.legacy_errors(object);
        if self.strict {
            self.strict_errors(object, &mut errors);
        }
        errors
    }

    fn validate_update(&self, _: &WriteContext<'_>, new: &Value, old: &Value) -> ErrorList {
        let mut errors = self.legacy_errors(new);
        if self.strict {
            if new.get("series") != old.get("series") {
                series_errors(new, &mut errors);
            }
            self.immutable_errors(new, old, &mut errors);
        }
        errors
    }
}

/// The text at `field` of `object`, empty when unset.
fn text<'v>(object: &'v Value, field: &str) -> &'v str {
    object.get(field).and_then(Value::as_str).unwrap_or("")
}

/// The API server's error for a text longer than `limit` (it shows no value).
fn too_long(path: &Path<'_>, limit: usize) -> FieldError {
    FieldError::invalid(path, "", format!("can have at most {limit} characters"))
}

/// Whether a time field is set (Go's zero time is never sent as a value).
fn is_set(object: &Value, field: &str) -> bool {
    object.get(field).is_some_and(|value| !value.is_null() && value != "")
}

impl Events {
    /// `legacyValidateEvent`.
    fn legacy_errors(&self, object: &Value) -> ErrorList {
        let mut errors = ErrorList::new();
        let namespace = meta_str(object, "namespace");
        let involved = object.get(self.fields.involved_object).unwrap_or(&Value::Null);
        let involved_namespace = text(involved, "namespace");
        let involved_path = Path::ROOT.field("involvedObject");
        let mismatch = || {
            FieldError::invalid(&involved_path.field("namespace"), involved_namespace, "does not match event.namespace")
        };
        if !is_set(object, "eventTime") {
            // Old events: the involved object's namespace is the event's (or, for
            // cluster-scoped objects, none or `default`).
            let matches = if involved_namespace.is_empty() {
                namespace.is_empty() || namespace == "default"
            } else {
                namespace == involved_namespace
            };
            if !matches {
                errors.push(mismatch());
            }
        } else {
            if involved_namespace.is_empty() && namespace != "default" && namespace != "kube-system" {
                errors.push(mismatch());
            }
            let controller = text(object, self.fields.reporting_controller);
            let controller_path = Path::ROOT.field(self.fields.reporting_controller);
            if controller.is_empty() {
                errors.push(FieldError::required(&controller_path, ""));
            }
            for message in is_qualified_name(controller) {
                errors.push(FieldError::invalid(&controller_path, controller, message));
            }
            for field in ["reportingInstance", "action", "reason"] {
                let path = Path::ROOT.field(field);
                let value = text(object, field);
                if value.is_empty() {
                    errors.push(FieldError::required(&path, ""));
                }
                if value.len() > NAME_LIKE_LIMIT {
                    errors.push(too_long(&path, NAME_LIKE_LIMIT));
                }
            }
            if text(object, self.fields.message).len() > MESSAGE_LIMIT {
                errors.push(too_long(&Path::ROOT.field("message"), MESSAGE_LIMIT));
            }
        }
        for message in is_dns1123_subdomain(namespace) {
            errors.push(FieldError::invalid(&Path::ROOT.field("namespace"), namespace, message));
        }
        errors
    }

    /// The checks of `ValidateEventCreate` for `events.k8s.io/v1` and newer.
    fn strict_errors(&self, object: &Value, errors: &mut ErrorList) {
        series_errors(object, errors);
        if !is_set(object, "eventTime") {
            errors.push(FieldError::required(&Path::ROOT.field("eventTime"), ""));
        }
        let kind = text(object, "type");
        if kind != "Normal" && kind != "Warning" {
            errors.push(FieldError::invalid(&Path::ROOT.field("type"), "", format!("has invalid value: {kind}")));
        }
        let source = object.get(self.fields.source).unwrap_or(&Value::Null);
        let unset = [
            ("firstTimestamp", is_set(object, self.fields.first_timestamp)),
            ("lastTimestamp", is_set(object, self.fields.last_timestamp)),
            ("count", object.get(self.fields.count).and_then(Value::as_i64).unwrap_or(0) != 0),
            ("source", !text(source, "component").is_empty() || !text(source, "host").is_empty()),
        ];
        for (field, set) in unset {
            if set {
                errors.push(FieldError::invalid(&Path::ROOT.field(field), "", "needs to be unset"));
            }
        }
    }
}

/// The checks of a series: at least 2 occurrences, and the time of the last.
fn series_errors(object: &Value, errors: &mut ErrorList) {
    if let Some(series) = object.get("series").filter(|series| series.is_object()) {
        let path = Path::ROOT.field("series");
        if series.get("count").and_then(Value::as_i64).unwrap_or(0) < 2 {
            errors.push(FieldError::invalid(&path.field("count"), "", "should be at least 2"));
        }
        if !is_set(series, "lastObservedTime") {
            errors.push(FieldError::required(&path.field("lastObservedTime"), ""));
        }
    }
}

/// How Go prints one field of the internal event as a bad value.
#[derive(Clone, Copy)]
enum Shown {
    Text,
    Number,
    Time,
    Reference,
    OptionalReference,
    Source,
}

impl Events {
    /// The fields an update through `events.k8s.io/v1` may not change, in the order the
    /// API server checks them (it checks `reason` twice, so a changed reason is reported
    /// twice), each with the internal field's name and the version's.
    fn immutable_fields(&self) -> [(&'static str, &'static str, Shown); 14] {
        let f = self.fields;
        [
            ("involvedObject", f.involved_object, Shown::Reference),
            ("reason", "reason", Shown::Text),
            ("message", f.message, Shown::Text),
            ("source", f.source, Shown::Source),
            ("firstTimestamp", f.first_timestamp, Shown::Time),
            ("lastTimestamp", f.last_timestamp, Shown::Time),
            ("count", f.count, Shown::Number),
            ("reason", "reason", Shown::Text),
            ("type", "type", Shown::Text),
            ("eventTime", "eventTime", Shown::Time),
            ("action", "action", Shown::Text),
            ("related", "related", Shown::OptionalReference),
            ("reportingController", f.reporting_controller, Shown::Text),
            ("reportingInstance", "reportingInstance", Shown::Text),
        ]
    }

    /// `field is immutable` for each of [`Events::immutable_fields`] whose internal value
    /// changed: the values are compared as Go prints them, which tells apart what Go's
    /// semantic equality does (an unset field is its zero value, times are instants).
    fn immutable_errors(&self, new: &Value, old: &Value, errors: &mut ErrorList) {
        for (internal, field, shown) in self.immutable_fields() {
            let now = go_value(new.get(field), shown);
            if now != go_value(old.get(field), shown) {
                errors.push(FieldError::invalid_shown(&Path::ROOT.field(internal), now, "field is immutable"));
            }
        }
    }
}

/// A field of the internal event as apimachinery's `ErrorBody` prints it: strings
/// quoted, numbers plainly, times by their `String` method, structs as `%#v`, a nil
/// pointer as the quoted text `"null"`.
fn go_value(value: Option<&Value>, shown: Shown) -> String {
    let value = value.filter(|value| !value.is_null());
    let text = |value: Option<&Value>, field: &str| quote(value.and_then(|v| v.get(field)?.as_str()).unwrap_or(""));
    match shown {
        Shown::Text => quote(value.and_then(Value::as_str).unwrap_or("")),
        Shown::Number => value.and_then(Value::as_i64).unwrap_or(0).to_string(),
        Shown::Time => go_time(value.and_then(Value::as_str).unwrap_or("")),
        Shown::Source => {
            format!("core.EventSource{{Component:{}, Host:{}}}", text(value, "component"), text(value, "host"))
        }
        Shown::OptionalReference if value.is_none() => quote("null"),
        Shown::Reference | Shown::OptionalReference => format!(
            "core.ObjectReference{{Kind:{}, Namespace:{}, Name:{}, UID:{}, APIVersion:{}, ResourceVersion:{}, FieldPath:{}}}",
            text(value, "kind"),
            text(value, "namespace"),
            text(value, "name"),
            text(value, "uid"),
            text(value, "apiVersion"),
            text(value, "resourceVersion"),
            text(value, "fieldPath"),
        ),
    }
}

/// A time as Go's `time.Time.String` prints it in UTC (the API server's zone), the
/// fraction without trailing zeros: `2026-12-03 10:00:00.5 +0000 UTC`; unset or
/// unreadable, Go's zero time.
fn go_time(text: &str) -> String {
    let time: Timestamp =
        text.parse().unwrap_or_else(|_| "0001-01-01T00:00:00Z".parse().expect("Go's zero time is a timestamp"));
    format!("{} +0000 UTC", time.strftime("%Y-%m-%d %H:%M:%S%.f"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_print_as_go_prints_them() {
        assert_eq!(go_time("2026-12-03T10:00:00Z"), "2026-12-03 10:00:00 +0000 UTC");
        assert_eq!(go_time("2026-12-03T10:00:00.500000Z"), "2026-12-03 10:00:00.5 +0000 UTC");
        assert_eq!(go_time("2026-12-03T11:00:00.000123+01:00"), "2026-12-03 10:00:00.000123 +0000 UTC");
        assert_eq!(go_time(""), "0001-01-01 00:00:00 +0000 UTC");
    }
}
