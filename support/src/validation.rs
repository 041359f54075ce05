//! Field errors in the Kubernetes format.
//!
//! Generated `validate` methods walk an object and push one [`FieldError`] per broken rule,
//! never stopping at the first. Paths are built on the stack ([`Path`]) and only rendered
//! to a string when an error is recorded, so validating a valid object does not allocate.

use std::fmt;

use serde_json::Value;

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
    NotFound,
    Required,
    Duplicate,
    Invalid,
    NotSupported,
    Forbidden,
    TooLong,
    TooMany,
    Internal,
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
        matches!(
            self,
            ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal
        )
    }
}

/// One broken rule at one field.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldError {
    /// Rendered path, e.g. `spec.metrics[2].resource.target.averageUtilization`.
    pub field: String,
    pub error_type: ErrorType,
    /// The offending value; `None` when there is none to show.
    pub bad_value: Option<Value>,
    pub detail: String,
}

impl FieldError {
    pub fn new(
        path: &Path<'_>,
        error_type: ErrorType,
        bad_value: Option<Value>,
        detail: impl Into<String>,
    ) -> Self {
        FieldError { field: path.to_string(), error_type, bad_value, detail: detail.into() }
    }

    /// The message without the field: what a `StatusCause` carries.
    pub fn body(&self) -> String {
        let mut body = String::from(self.error_type.phrase());
        if !self.error_type.omits_value()
            && let Some(value) = &self.bad_value
        {
            body.push_str(": ");
            body.push_str(&value.to_string());
        }
        if !self.detail.is_empty() {
            body.push_str(": ");
            body.push_str(&self.detail);
        }
        body
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// All the errors found in one object, in the order they were found.
pub type ErrorList = Vec<FieldError>;
