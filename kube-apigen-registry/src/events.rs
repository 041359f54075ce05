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
//! The API server checks both versions as its internal (core) event, so every error
//! names the internal field: `involvedObject` for `regarding`, `message` for `note`,
//! `reportingController` for core/v1's `reportingComponent`,
//! `source`, `firstTimestamp`, `lastTimestamp` and `count` for their `deprecated` forms.
//! Not checked: which fields an update may change.

use kube_apigen::field::{ErrorList, FieldError, Path};
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

    fn validate_update(&self, _: &WriteContext<'_>, new: &Value, _: &Value) -> ErrorList {
        self.legacy_errors(new)
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
            let controller_path = Path::ROOT.field("reportingController");
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
        if let Some(series) = object.get("series").filter(|series| series.is_object()) {
            let path = Path::ROOT.field("series");
            if series.get("count").and_then(Value::as_i64).unwrap_or(0) < 2 {
                errors.push(FieldError::invalid(&path.field("count"), "", "should be at least 2"));
            }
            if !is_set(series, "lastObservedTime") {
                errors.push(FieldError::required(&path.field("lastObservedTime"), ""));
            }
        }
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
