//! `kube_apigen_core::go::fmt` against what Go prints. The expected texts were printed by Go (1.19)
//! for the same values, decoded as Kubernetes decodes JSON into `interface{}` (integers
//! as `int64` when they fit, other numbers as `float64`); one row, marked, is what Go 1.22
//! and later print. The differential tests against Go itself are in `tests/tests/go_exact.rs`.

use kube_apigen_core::go::fmt as gofmt;
use serde_json::{Value, json};

/// A JSON text, and Go's `%v`, `json.Marshal` and `%T` of it decoded.
const VALUES: &[(&str, &str, &str, &str)] = &[
    // Floats: `%v` switches to an exponent below 1e-4 and from 1e+06, `encoding/json`
    // below 1e-6 and from 1e21.
    ("0.00001", "1e-05", "0.00001", "float64"),
    ("0.0001", "0.0001", "0.0001", "float64"),
    ("0.000015", "1.5e-05", "0.000015", "float64"),
    ("0.000001", "1e-06", "0.000001", "float64"),
    ("0.0000001", "1e-07", "1e-7", "float64"),
    ("0.1", "0.1", "0.1", "float64"),
    ("2.5", "2.5", "2.5", "float64"),
    ("-2.5", "-2.5", "-2.5", "float64"),
    ("-0.0", "-0", "-0", "float64"),
    ("3.0", "3", "3", "float64"),
    ("999999.0", "999999", "999999", "float64"),
    ("1e6", "1e+06", "1000000", "float64"),
    ("1234567.0", "1.234567e+06", "1234567", "float64"),
    ("1e20", "1e+20", "100000000000000000000", "float64"),
    ("1e21", "1e+21", "1e+21", "float64"),
    ("1.5e20", "1.5e+20", "150000000000000000000", "float64"),
    ("123456789.123456789", "1.2345678912345679e+08", "123456789.12345679", "float64"),
    ("0.000123456789123456789", "0.0001234567891234568", "0.0001234567891234568", "float64"),
    ("1.7976931348623157e308", "1.7976931348623157e+308", "1.7976931348623157e+308", "float64"),
    ("5e-324", "5e-324", "5e-324", "float64"),
    // Integers.
    ("0", "0", "0", "int64"),
    ("9007199254740993", "9007199254740993", "9007199254740993", "int64"),
    ("9223372036854775807", "9223372036854775807", "9223372036854775807", "int64"),
    ("-9223372036854775808", "-9223372036854775808", "-9223372036854775808", "int64"),
    ("18446744073709551615", "1.8446744073709552e+19", "18446744073709552000", "float64"),
    // Everything else.
    ("null", "<nil>", "null", "<nil>"),
    ("true", "true", "true", "bool"),
    ("false", "false", "false", "bool"),
    (r#""plain""#, "plain", r#""plain""#, "string"),
    (r#""a b""#, "a b", r#""a b""#, "string"),
    (
        r#""<tag> & \u2028\u2029 é \u0000 \u001f \u007f \"q\" \\ \t\n\r""#,
        "<tag> & \u{2028}\u{2029} é \u{0} \u{1f} \u{7f} \"q\" \\ \t\n\r",
        // DEL is no control character to `encoding/json`.
        "\"\\u003ctag\\u003e \\u0026 \\u2028\\u2029 é \\u0000 \\u001f \u{7f} \\\"q\\\" \\\\ \\t\\n\\r\"",
        "string",
    ),
    // Go 1.22 and later; earlier versions print `"\u0008\u000c"`.
    (r#""\b\f""#, "\u{8}\u{c}", r#""\b\f""#, "string"),
    ("[]", "[]", "[]", "[]interface {}"),
    ("{}", "map[]", "{}", "map[string]interface {}"),
    (r#"[1,2.5,"x y",null,true,[]]"#, "[1 2.5 x y <nil> true []]", r#"[1,2.5,"x y",null,true,[]]"#, "[]interface {}"),
    (
        r#"{"b":[1,{"d":null}],"a":{"z":{},"y":[]},"B":"v","_":1e6}"#,
        "map[B:v _:1e+06 a:map[y:[] z:map[]] b:[1 map[d:<nil>]]]",
        r#"{"B":"v","_":1000000,"a":{"y":[],"z":{}},"b":[1,{"d":null}]}"#,
        "map[string]interface {}",
    ),
    (
        r#"[{"name":"a"},{"name":"b","n":0.000001}]"#,
        "[map[name:a] map[n:1e-06 name:b]]",
        r#"[{"name":"a"},{"n":0.000001,"name":"b"}]"#,
        "[]interface {}",
    ),
    (
        r#"{"b":"1 2","a":[{"x":0.5}]}"#,
        "map[a:[map[x:0.5]] b:1 2]",
        r#"{"a":[{"x":0.5}],"b":"1 2"}"#,
        "map[string]interface {}",
    ),
];

#[test]
fn values_print_as_go_prints_them() {
    for &(text, v, json, type_name) in VALUES {
        let value: Value = serde_json::from_str(text).expect(text);
        assert_eq!(gofmt::v(&value), v, "%v of {text}");
        assert_eq!(gofmt::json(&value), json, "json.Marshal of {text}");
        assert_eq!(gofmt::type_name(&value).unwrap_or("<nil>"), type_name, "%T of {text}");
    }
}

#[test]
fn strings_quote_as_go_quotes_them() {
    // Go's input (its string literal), and `%q` of it.
    let cases: &[(&[u8], &str)] = &[
        (b"plain", r#""plain""#),
        (b"", r#""""#),
        (b"tab\there", r#""tab\there""#),
        (b"\x07\x08\x0c\n\r\x0b", r#""\a\b\f\n\r\v""#),
        (b"\x00\x1f\x7f", r#""\x00\x1f\x7f""#),
        (br#"quote"back\slash 'single'"#, r#""quote\"back\\slash 'single'""#),
        ("é日本 Ünïcödé".as_bytes(), "\"é日本 Ünïcödé\""),
        ("\u{a0}\u{200b}\u{feff}\u{ad}".as_bytes(), r#""\u00a0\u200b\ufeff\u00ad""#),
        ("\u{e000}\u{10ffff}\u{fdd0}\u{ffff}".as_bytes(), r#""\ue000\U0010ffff\ufdd0\uffff""#),
        ("😀\u{1F468}\u{200D}\u{1F469}".as_bytes(), "\"😀👨\\u200d👩\""),
        ("<&> \u{2028}\u{2029}".as_bytes(), r#""<&> \u2028\u2029""#),
        ("e\u{301}".as_bytes(), "\"e\u{301}\""),
        ("\u{fffd}".as_bytes(), "\"\u{fffd}\""),
        ("\u{e0001}\u{61c}\u{3000}".as_bytes(), r#""\U000e0001\u061c\u3000""#),
        // Bytes that are not UTF-8.
        (b"\xff", r#""\xff""#),
        (b"a\xc3(b", r#""a\xc3(b""#),
        (b"\xed\xa0\x80", r#""\xed\xa0\x80""#),
        (b"\xe2\x82A", r#""\xe2\x82A""#),
    ];
    for &(input, quoted) in cases {
        assert_eq!(gofmt::quote_bytes(input), quoted, "{input:?}");
        if let Ok(text) = std::str::from_utf8(input) {
            assert_eq!(gofmt::quote(text), quoted, "{text:?}");
        }
    }
}

#[test]
fn values_in_the_wrong_verb_print_as_go_prints_them() {
    // `fmt.Sprintf("%s", value)`.
    let cases = [
        (json!("x"), "x"),
        (Value::Null, "%!s(<nil>)"),
        (json!(true), "%!s(bool=true)"),
        (json!(1), "%!s(int64=1)"),
        (json!(1.5), "%!s(float64=1.5)"),
        (json!(1e21), "%!s(float64=1e+21)"),
        (json!(18446744073709551615u64), "%!s(float64=1.8446744073709552e+19)"),
        (json!([1, "a", null]), "[%!s(int64=1) a <nil>]"),
        (json!({"b": 1, "a": "s"}), "map[a:s b:%!s(int64=1)]"),
        (json!([1e6, {"k": null, "b": true}, [null]]), "[%!s(float64=1e+06) map[b:%!s(bool=true) k:<nil>] [<nil>]]"),
    ];
    for (value, printed) in cases {
        assert_eq!(gofmt::s(&value), printed, "{value}");
    }
}

#[test]
fn json_kinds_as_encoding_json_names_them() {
    let kinds = [
        (Value::Null, "null"),
        (json!(true), "bool"),
        (json!(1), "number"),
        (json!(1.5), "number"),
        (json!("x"), "string"),
        (json!([]), "array"),
        (json!({}), "object"),
    ];
    for (value, kind) in kinds {
        assert_eq!(gofmt::json_kind(&value), kind, "{value}");
    }
}
