//! How Go prints decoded JSON values, for error messages that quote them the way the API
//! server does (`fmt`'s `%v` of `map[string]interface{}`, and `reflect.TypeOf(..)`).

use serde_json::Value;

/// `fmt.Sprintf("%v", v)` of a value decoded by `encoding/json` (numbers as the API
/// server's patch decoder keeps them: integers as `int64`, others as `float64`): maps as
/// `map[k:v ...]` with sorted keys, slices as `[a b]`, `null` as `<nil>`.
pub(crate) fn v(value: &Value) -> String {
    let mut out = String::new();
    write_v(&mut out, value);
    out
}

fn write_v(out: &mut String, value: &Value) {
    match value {
        Value::Null => out.push_str("<nil>"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number(n)),
        Value::String(s) => out.push_str(s),
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                write_v(out, item);
            }
            out.push(']');
        }
        Value::Object(map) => {
            out.push_str("map[");
            // fmt prints maps sorted by key.
            let mut entries: Vec<_> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            for (i, (key, item)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(' ');
                }
                out.push_str(key);
                out.push(':');
                write_v(out, item);
            }
            out.push(']');
        }
    }
}

/// A number as `%v` prints an `int64` or a `float64` (shortest representation, with an
/// exponent from 1e21 up and below 1e-4, as `strconv.FormatFloat(f, 'g', -1, 64)` in fmt).
fn number(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    if f == 0.0 {
        return "0".to_owned();
    }
    let abs = f.abs();
    if !(1e-4..1e21).contains(&abs) {
        // Rust: 1e21, 1.5e-5; Go: 1e+21, 1.5e-05.
        let formatted = format!("{f:e}");
        let (mantissa, exponent) = formatted.split_once('e').unwrap_or((&formatted, "0"));
        let (sign, digits) = match exponent.strip_prefix('-') {
            Some(digits) => ('-', digits),
            None => ('+', exponent),
        };
        return format!("{mantissa}e{sign}{digits:0>2}");
    }
    format!("{f}")
}

/// `reflect.TypeOf(v).String()` for a decoded JSON value.
pub(crate) fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "%!s(<nil>)",
        Value::Bool(_) => "bool",
        Value::Number(n) if n.is_i64() || n.is_u64() => "int64",
        Value::Number(_) => "float64",
        Value::String(_) => "string",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
    }
}

/// The JSON kind `encoding/json` names in `cannot unmarshal X into Go value of type ...`.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn prints_like_go() {
        assert_eq!(v(&json!({"name": "a", "$patch": "delete", "n": 1})), "map[$patch:delete n:1 name:a]");
        assert_eq!(v(&json!([{"name": "a"}, {"name": "b"}])), "[map[name:a] map[name:b]]");
        assert_eq!(v(&json!([1.5, null, true])), "[1.5 <nil> true]");
        assert_eq!(v(&json!(1e21)), "1e+21");
        assert_eq!(v(&json!(0.00001)), "1e-05");
    }
}
