//! How Go prints values, for messages that must read as the Kubernetes API server's:
//! `%q` of a string ([`quote`]), `%v` and `%s` of a decoded JSON value ([`v`], [`s`]),
//! `encoding/json` ([`json`]), and the Go type of a decoded JSON value ([`type_name`],
//! [`json_kind`]).
//!
//! A JSON value stands for what Kubernetes' decoding into `interface{}` gives
//! (`k8s.io/apimachinery/pkg/util/json`): objects are `map[string]interface{}`, arrays
//! `[]interface{}`, `null` a nil interface, integers that fit `int64`, other numbers
//! `float64`.

use std::fmt::Write as _;

use serde_json::{Number, Value};

/// `s` as `%q` (`strconv.Quote`) prints it: `"a\"b"`, `"\x00"`, `"\u00a0"`.
///
/// Printable characters are kept as they are. Go's notion of printable is Unicode's
/// letters, marks, numbers, punctuation, symbols and the ASCII space; this follows it for
/// control, format, space, private-use and noncharacter code points, and treats other
/// code points as printable (Go also escapes unassigned ones).
pub fn quote(s: &str) -> String {
    quote_bytes(s.as_bytes())
}

/// [`quote`] of a Go string holding any bytes: those that are not UTF-8 print as `\xff`.
pub fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() + 2);
    push_quoted_bytes(&mut out, bytes);
    out
}

pub(crate) fn push_quoted(out: &mut String, s: &str) {
    push_quoted_bytes(out, s.as_bytes());
}

fn push_quoted_bytes(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            push_quoted_char(out, c);
        }
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out.push('"');
}

fn push_quoted_char(out: &mut String, c: char) {
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
        c if is_printable(c) => out.push(c),
        c if (c as u32) < 0x80 => {
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

/// Go's `strconv.IsPrint`, but for unassigned code points (see [`quote`]).
fn is_printable(c: char) -> bool {
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

/// `fmt.Sprintf("%v", value)`: strings as they are, `null` as `<nil>`, arrays as
/// `[a b]`, objects as `map[k:v ...]` with sorted keys, floats as `1e+06`.
pub fn v(value: &Value) -> String {
    let mut out = String::new();
    push_v(&mut out, value);
    out
}

pub(crate) fn push_v(out: &mut String, value: &Value) {
    push_verb(out, value, Verb::V, false);
}

/// `fmt.Sprintf("%s", value)`: strings as they are; any other value as Go's error for a
/// wrong verb (`%!s(int64=1)`, `%!s(<nil>)`), element by element inside arrays and
/// objects (`[%!s(int64=1) a <nil>]`).
pub fn s(value: &Value) -> String {
    let mut out = String::new();
    push_verb(&mut out, value, Verb::S, false);
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Verb {
    V,
    S,
}

/// `value` printed with `verb`; `nested` inside an array or object, where a nil prints
/// as `<nil>` whatever the verb.
fn push_verb(out: &mut String, value: &Value, verb: Verb, nested: bool) {
    match value {
        Value::String(text) => out.push_str(text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(' ');
                }
                push_verb(out, item, verb, true);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push_str("map[");
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(' ');
                }
                out.push_str(key);
                out.push(':');
                push_verb(out, item, verb, true);
            }
            out.push(']');
        }
        Value::Null if verb == Verb::S && !nested => out.push_str("%!s(<nil>)"),
        Value::Null => out.push_str("<nil>"),
        Value::Bool(_) | Value::Number(_) if verb == Verb::S => {
            let _ = write!(out, "%!s({}=", type_name(value).unwrap_or_default());
            push_verb(out, value, Verb::V, nested);
            out.push(')');
        }
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => push_number(out, n, FloatStyle::Verb),
    }
}

/// `value` as `json.Marshal` writes it: keys sorted, `<`, `>`, `&`, U+2028 and U+2029
/// escaped, floats as `1e-7`. Control characters are escaped as Go 1.22 and later do
/// (`\b` and `\f` rather than `\u0008` and `\u000c`).
pub fn json(value: &Value) -> String {
    let mut out = String::new();
    push_json(&mut out, value);
    out
}

pub(crate) fn push_json(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => push_number(out, n, FloatStyle::Json),
        Value::String(text) => push_json_string(out, text),
        Value::Array(items) => {
            out.push('[');
            for (index, item) in items.iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                push_json(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push('{');
            for (index, (key, item)) in entries.into_iter().enumerate() {
                if index > 0 {
                    out.push(',');
                }
                push_json_string(out, key);
                out.push(':');
                push_json(out, item);
            }
            out.push('}');
        }
    }
}

fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
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

/// The Go type of a decoded JSON value, as `%T` and `reflect.TypeOf(value).String()` print
/// it: `map[string]interface {}`, `[]interface {}`, `string`, `bool`, `int64`, `float64`.
/// `None` for `null`, a nil interface, which has no type (`%T` prints `<nil>`).
pub fn type_name(value: &Value) -> Option<&'static str> {
    Some(match value {
        Value::Null => return None,
        Value::Bool(_) => "bool",
        // As Kubernetes decodes JSON numbers (see `push_number`).
        Value::Number(n) if n.is_i64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    })
}

/// The kind of JSON value `encoding/json` names in `json: cannot unmarshal <kind> into Go
/// value of type ...`.
pub fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The two Go rules for printing a `float64` with the fewest digits that read back as it.
#[derive(Clone, Copy)]
enum FloatStyle {
    /// `fmt`'s `%v` (`strconv.FormatFloat(f, 'g', -1, 64)`): an exponent for magnitudes
    /// below 1e-4 and from 1e+06, with at least two digits (`1e-05`, `1.5e+06`).
    Verb,
    /// `encoding/json`: an exponent for magnitudes below 1e-6 and from 1e21, with as few
    /// digits as needed (`1e-7`, `1e+21`).
    Json,
}

/// A JSON number as Go holds it once Kubernetes decoded it
/// (`k8s.io/apimachinery/pkg/util/json`): an `int64` when it is an integer that fits,
/// else a `float64`.
fn push_number(out: &mut String, n: &Number, style: FloatStyle) {
    match n.as_i64() {
        Some(i) => {
            let _ = write!(out, "{i}");
        }
        None => push_float(out, n.as_f64().unwrap_or_default(), style),
    }
}

/// The shortest digits that read back as `f` (finite, positive), and the decimal exponent
/// of the first one: `("12345", 6)` for 1.2345e6. Ties between two shortest candidates
/// go to the even one, as Go's `strconv` (Ryū) does; Rust's own `{:e}` rounds them up.
fn shortest_digits(f: f64) -> (String, i32) {
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(f);
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all = format!("{whole}{fraction}");
    let leading_zeros = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0');
    let digits = if digits.is_empty() { "0".to_owned() } else { digits.to_owned() };
    // The first digit's place: the whole part's length, less the zeros before it.
    let first = whole.len() as i32 - 1 - leading_zeros as i32;
    (digits, first + exponent)
}

fn push_float(out: &mut String, f: f64, style: FloatStyle) {
    if f == 0.0 {
        out.push_str(if f.is_sign_negative() { "-0" } else { "0" });
        return;
    }
    if f.is_sign_negative() {
        out.push('-');
    }
    let (digits, exponent) = shortest_digits(f.abs());
    let use_exponent = match style {
        FloatStyle::Verb => !(-4..6).contains(&exponent),
        FloatStyle::Json => !(-6..21).contains(&exponent),
    };
    if use_exponent {
        out.push_str(&digits[..1]);
        if digits.len() > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if exponent < 0 { '-' } else { '+' });
        let magnitude = exponent.unsigned_abs();
        match style {
            FloatStyle::Verb => {
                let _ = write!(out, "{magnitude:02}");
            }
            FloatStyle::Json => {
                let _ = write!(out, "{magnitude}");
            }
        }
    } else {
        // Where the decimal point falls among `digits`.
        let point = exponent + 1;
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
