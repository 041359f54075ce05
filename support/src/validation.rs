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
        matches!(self, ErrorType::Required | ErrorType::Forbidden | ErrorType::TooLong | ErrorType::Internal)
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
                push_go_quoted(&mut detail, value);
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
        Value::String(s) => push_go_quoted(out, s),
        Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
            Some(f) => push_go_float(out, f, GoFloat::Verb),
            None => out.push_str(&n.to_string()),
        },
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Null | Value::Array(_) | Value::Object(_) => push_go_json(out, value),
    }
}

/// `s` quoted as Go's `strconv.Quote` (`%q`) does: `"a\"b"`, `"\x00"`, `"\u00a0"`.
///
/// Printable characters are kept as they are. Go's notion of printable is Unicode's
/// letters, marks, numbers, punctuation, symbols and the ASCII space; this follows it for
/// control, format, space, private-use and noncharacter code points, and treats other
/// code points as printable (Go would also escape unassigned ones).
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_go_quoted(&mut out, s);
    out
}

fn push_go_quoted(out: &mut String, s: &str) {
    use std::fmt::Write as _;
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{b}' => out.push_str("\\v"),
            c if go_printable(c) => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if (c as u32) < 0x10000 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => {
                let _ = write!(out, "\\U{:08x}", c as u32);
            }
        }
    }
    out.push('"');
}

fn go_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    let cp = c as u32;
    let format = matches!(
        cp,
        0xAD | 0x600..=0x605
            | 0x61C
            | 0x6DD
            | 0x70F
            | 0x890..=0x891
            | 0x8E2
            | 0x180E
            | 0x200B..=0x200F
            | 0x202A..=0x202E
            | 0x2060..=0x2064
            | 0x2066..=0x206F
            | 0xFEFF
            | 0xFFF9..=0xFFFB
            | 0x110BD
            | 0x110CD
            | 0x13430..=0x1343F
            | 0x1BCA0..=0x1BCA3
            | 0x1D173..=0x1D17A
            | 0xE0001
            | 0xE0020..=0xE007F
    );
    let private_use = matches!(cp, 0xE000..=0xF8FF | 0xF0000..=0x10FFFF);
    let noncharacter = matches!(cp, 0xFDD0..=0xFDEF) || cp & 0xFFFE == 0xFFFE;
    !(format || private_use || noncharacter)
}

/// Which Go float formatting to mirror.
#[derive(Clone, Copy)]
enum GoFloat {
    /// `fmt`'s `%v`: `strconv.FormatFloat(f, 'g', -1, 64)`, exponent from 1e+06 / below 1e-04.
    Verb,
    /// `encoding/json`: plain decimal, exponent from 1e21 / below 1e-6, `e-7` not `e-07`.
    Json,
}

fn push_go_float(out: &mut String, f: f64, style: GoFloat) {
    if f == 0.0 {
        out.push_str(if f.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    if f.is_sign_negative() {
        out.push('-');
    }
    // Shortest round-trip digits and decimal exponent, from Rust's `{:e}`: "1.2345e6".
    let sci = format!("{:e}", f.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let scientific = match style {
        GoFloat::Verb => !(-4..6).contains(&exp),
        GoFloat::Json => f.abs() < 1e-6 || f.abs() >= 1e21,
    };
    if scientific {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exp < 0 { '-' } else { '+' });
        let magnitude = exp.unsigned_abs();
        match style {
            GoFloat::Verb if magnitude < 10 => out.push_str(&format!("0{magnitude}")),
            _ => out.push_str(&magnitude.to_string()),
        }
    } else {
        // Position of the decimal point within `digits`.
        let point = exp + 1;
        let len = digits.len() as i32;
        if point <= 0 {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', point.unsigned_abs() as usize));
            out.push_str(&digits);
        } else if point >= len {
            out.push_str(&digits);
            out.extend(std::iter::repeat_n('0', (point - len) as usize));
        } else {
            out.push_str(&digits[..point as usize]);
            out.push('.');
            out.push_str(&digits[point as usize..]);
        }
    }
}

/// `value` as Go's `json.Marshal` writes it: HTML-safe string escapes, Go float format.
fn push_go_json(out: &mut String, value: &Value) {
    use std::fmt::Write as _;
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => match n.as_f64().filter(|_| n.is_f64()) {
            Some(f) => push_go_float(out, f, GoFloat::Json),
            None => out.push_str(&n.to_string()),
        },
        Value::String(s) => {
            out.push('"');
            for c in s.chars() {
                match c {
                    '"' => out.push_str("\\\""),
                    '\\' => out.push_str("\\\\"),
                    '\n' => out.push_str("\\n"),
                    '\r' => out.push_str("\\r"),
                    '\t' => out.push_str("\\t"),
                    '\u{8}' => out.push_str("\\b"),
                    '\u{c}' => out.push_str("\\f"),
                    c if (c as u32) < 0x20 || matches!(c, '<' | '>' | '&' | '\u{2028}' | '\u{2029}') => {
                        let _ = write!(out, "\\u{:04x}", c as u32);
                    }
                    c => out.push(c),
                }
            }
            out.push('"');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_go_json(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            // Go sorts map keys.
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_go_json(out, &Value::String(key.clone()));
                out.push(':');
                push_go_json(out, item);
            }
            out.push('}');
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.body())
    }
}

/// All the errors found in one object, in the order they were found.
pub type ErrorList = Vec<FieldError>;
