//! Field errors in the Kubernetes format, as generated `Validate` impls collect them.
//!
//! Generated `validate` methods walk an object and push one [`FieldError`] per broken rule,
//! never stopping at the first. Paths are built on the stack ([`Path`]) and only rendered
//! to a string when an error is recorded, so validating a valid object does not allocate.

use std::fmt;

use serde_json::Value;

use crate::go::fmt as gofmt;

/// One step of the path from the root object to a field, borrowed from its parent.
#[derive(Clone, Copy, Debug)]
pub struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    segment: Segment<'a>,
}

#[derive(Clone, Copy, Debug)]
enum Segment<'a> {
    Root,
    Field(&'a str),
    Index(usize),
    Key(&'a str),
}

impl Path<'static> {
    /// The object itself; its fields render without a leading dot (`spec.replicas`).
    pub const ROOT: Path<'static> = Path { parent: None, segment: Segment::Root };
}

impl<'a> Path<'a> {
    /// `self.name`
    pub fn field(&'a self, name: &'a str) -> Path<'a> {
        Path { parent: Some(self), segment: Segment::Field(name) }
    }

    /// `self[index]`
    pub fn index(&'a self, index: usize) -> Path<'a> {
        Path { parent: Some(self), segment: Segment::Index(index) }
    }

    /// `self[key]`, for map entries: `metadata.labels[app]`.
    pub fn key(&'a self, key: &'a str) -> Path<'a> {
        Path { parent: Some(self), segment: Segment::Key(key) }
    }

    /// Whether this is the root, which renders as the empty string.
    pub fn is_root(&self) -> bool {
        matches!(self.segment, Segment::Root)
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        match self.segment {
            Segment::Root => Ok(()),
            Segment::Field(name) if self.parent.is_none_or(|p| p.is_root()) => f.write_str(name),
            Segment::Field(name) => write!(f, ".{name}"),
            Segment::Index(index) => write!(f, "[{index}]"),
            Segment::Key(key) => write!(f, "[{key}]"),
        }
    }
}

/// The kinds of field error Kubernetes reports, with their `StatusCause` reasons.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorType {
    /// `FieldValueNotFound`: what the value refers to (a name, a key) does not exist.
    NotFound,
    /// `FieldValueRequired`: a required value is missing or empty.
    Required,
    /// `FieldValueDuplicate`: a value that must be unique occurs more than once.
    Duplicate,
    /// `FieldValueInvalid`: a malformed or out-of-range value.
    Invalid,
    /// `FieldValueNotSupported`: a value outside the supported set of an enumeration.
    NotSupported,
    /// `FieldValueForbidden`: a well-formed value that is not allowed here.
    Forbidden,
    /// `FieldValueTooLong`: a value longer than its limit.
    TooLong,
    /// `FieldValueTooMany`: a list or map with more entries than its limit.
    TooMany,
    /// `InternalError`: a failure of the server, not of the input.
    Internal,
    /// `FieldValueTypeInvalid`: a value that does not have the schema's type.
    TypeInvalid,
}

impl ErrorType {
    /// The `reason` of a `StatusCause`, e.g. `FieldValueRequired`.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorType::NotFound => "FieldValueNotFound",
            ErrorType::Required => "FieldValueRequired",
            ErrorType::Duplicate => "FieldValueDuplicate",
            ErrorType::Invalid => "FieldValueInvalid",
            ErrorType::NotSupported => "FieldValueNotSupported",
            ErrorType::Forbidden => "FieldValueForbidden",
            ErrorType::TooLong => "FieldValueTooLong",
            ErrorType::TooMany => "FieldValueTooMany",
            ErrorType::Internal => "InternalError",
            ErrorType::TypeInvalid => "FieldValueTypeInvalid",
        }
    }

    /// The phrase that starts the message, e.g. `Required value`.
    pub fn phrase(self) -> &'static str {
        match self {
            ErrorType::NotFound => "Not found",
            ErrorType::Required => "Required value",
            ErrorType::Duplicate => "Duplicate value",
            ErrorType::Invalid | ErrorType::TypeInvalid => "Invalid value",
            ErrorType::NotSupported => "Unsupported value",
            ErrorType::Forbidden => "Forbidden",
            ErrorType::TooLong => "Too long",
            ErrorType::TooMany => "Too many",
            ErrorType::Internal => "Internal error",
        }
    }

    /// Kubernetes leaves the bad value out of the message for these types.
    fn omits_value(self) -> bool {
        matches!(self, ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal)
    }
}

/// One broken rule at one field.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// Rendered path, e.g. `spec.metrics[2].resource.target.averageUtilization`.
    pub field: String,
    /// What kind of error it is, which gives the cause's `reason`.
    pub error_type: ErrorType,
    /// The offending value; `None` when there is none to show.
    pub bad_value: Option<Value>,
    /// What is wrong, after the value in the message; may be empty.
    pub detail: String,
}

impl FieldError {
    /// An error at `path`. The root renders as `<nil>`, as Kubernetes names the field of an
    /// error about a whole custom resource.
    pub fn new(path: &Path<'_>, error_type: ErrorType, bad_value: Option<Value>, detail: impl Into<String>) -> Self {
        // The API server validates a custom resource from a nil path, which Go renders as
        // `<nil>`: an error about the whole object reads `<nil>: Invalid value: ...`.
        let field = if path.is_root() { "<nil>".to_owned() } else { path.to_string() };
        FieldError { field, error_type, bad_value, detail: detail.into() }
    }

    /// The error moved to a child of its field, given as one rendered path (a CEL rule's
    /// `fieldPath`, which Kubernetes appends as a single child): `spec` + `.replicas`.
    pub fn at_child(mut self, child: &str) -> Self {
        self.field = if self.field.is_empty() || self.field == "<nil>" {
            child.to_owned()
        } else {
            format!("{}.{child}", self.field)
        };
        self
    }

    /// The message without the field: what a `StatusCause` carries, e.g.
    /// `Invalid value: "Foo": must be ...`.
    ///
    /// Mirrors apimachinery's `field.Error.ErrorBody`: `Required`, `Forbidden`, `TooLong`
    /// and `Internal` never show the value, nor does any error whose `bad_value` is `None`.
    /// Values are rendered as Go renders them: strings Go-quoted (`%q`), numbers and
    /// booleans plainly (floats as Go's `%v`: `1e+06`, `0.5`), anything else (arrays,
    /// objects, `null`) as Go's `encoding/json` writes it.
    pub fn body(&self) -> String {
        let mut body = String::from(self.error_type.phrase());
        if !self.error_type.omits_value()
            && let Some(value) = &self.bad_value
        {
            body.push_str(": ");
            render_value(&mut body, value);
        }
        if !self.detail.is_empty() {
            body.push_str(": ");
            body.push_str(&self.detail);
        }
        body
    }

    /// `Required value`, with an optional detail.
    pub fn required(path: &Path<'_>, detail: impl Into<String>) -> Self {
        Self::new(path, ErrorType::Required, None, detail)
    }

    /// `Invalid value: <value>: <detail>`.
    pub fn invalid(path: &Path<'_>, value: impl Into<Value>, detail: impl Into<String>) -> Self {
        Self::new(path, ErrorType::Invalid, Some(value.into()), detail)
    }

    /// `Invalid value: <shown>: <detail>`, the value already written as Go prints it
    /// (`%#v` of a struct or map, a time by its `String` method), where the JSON of
    /// [`FieldError::invalid`] would read otherwise. The error carries it as text in its
    /// detail: `bad_value` is `None`.
    pub fn invalid_shown(path: &Path<'_>, shown: impl fmt::Display, detail: impl fmt::Display) -> Self {
        Self::new(path, ErrorType::Invalid, None, format!("{shown}: {detail}"))
    }

    /// `Unsupported value: <value>: supported values: "a", "b"` (no detail when `supported`
    /// is empty).
    pub fn not_supported(path: &Path<'_>, value: impl Into<Value>, supported: &[&str]) -> Self {
        let mut detail = String::new();
        if !supported.is_empty() {
            detail.push_str("supported values: ");
            for (i, value) in supported.iter().enumerate() {
                if i > 0 {
                    detail.push_str(", ");
                }
                gofmt::push_quoted(&mut detail, value);
            }
        }
        Self::new(path, ErrorType::NotSupported, Some(value.into()), detail)
    }

    /// `Duplicate value: <value>`.
    pub fn duplicate(path: &Path<'_>, value: impl Into<Value>) -> Self {
        Self::new(path, ErrorType::Duplicate, Some(value.into()), "")
    }

    /// `Not found: <value>`.
    pub fn not_found(path: &Path<'_>, value: impl Into<Value>) -> Self {
        Self::new(path, ErrorType::NotFound, Some(value.into()), "")
    }

    /// `Too long: may not be more than <max> bytes` (`byte` when `max` is 1). The value is
    /// kept in `bad_value` but, as in Kubernetes, never shown.
    pub fn too_long(path: &Path<'_>, value: impl Into<Value>, max: usize) -> Self {
        let unit = if max == 1 { "byte" } else { "bytes" };
        let detail = format!("may not be more than {max} {unit}");
        Self::new(path, ErrorType::TooLong, Some(value.into()), detail)
    }

    /// `Too long: may not be more than <max> characters` (`character` when `max` is 1):
    /// apimachinery's `TooLongCharacters`, for limits counted in characters.
    pub fn too_long_characters(path: &Path<'_>, value: impl Into<Value>, max: usize) -> Self {
        let unit = if max == 1 { "character" } else { "characters" };
        let detail = format!("may not be more than {max} {unit}");
        Self::new(path, ErrorType::TooLong, Some(value.into()), detail)
    }

    /// `Too many: <actual>: must have at most <max> items` (`item` when `max` is 1).
    pub fn too_many(path: &Path<'_>, actual: usize, max: usize) -> Self {
        let unit = if max == 1 { "item" } else { "items" };
        let detail = format!("must have at most {max} {unit}");
        Self::new(path, ErrorType::TooMany, Some(Value::from(actual)), detail)
    }

    /// `Forbidden: <detail>`.
    pub fn forbidden(path: &Path<'_>, detail: impl Into<String>) -> Self {
        Self::new(path, ErrorType::Forbidden, None, detail)
    }

    /// `Invalid value: <value>: <detail>` with the `FieldValueTypeInvalid` reason: the value
    /// does not have the schema's type.
    pub fn type_invalid(path: &Path<'_>, value: impl Into<Value>, detail: impl Into<String>) -> Self {
        Self::new(path, ErrorType::TypeInvalid, Some(value.into()), detail)
    }

    /// `Internal error: <detail>`: a failure not caused by the input.
    pub fn internal(path: &Path<'_>, detail: impl Into<String>) -> Self {
        Self::new(path, ErrorType::Internal, None, detail)
    }
}

/// Appends `value` the way apimachinery's `ErrorBody` renders a bad value.
fn render_value(out: &mut String, value: &Value) {
    match value {
        Value::String(s) => gofmt::push_quoted(out, s),
        Value::Number(_) | Value::Bool(_) => gofmt::push_v(out, value),
        Value::Null | Value::Array(_) | Value::Object(_) => gofmt::push_json(out, value),
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// All the errors found in one object, in the order they were found.
pub type ErrorList = Vec<FieldError>;
