//! Wire formats of the special Kubernetes types, checked against exact JSON text.

use std::collections::BTreeMap;

use jiff::Timestamp;
use kube_apigen_core::wire::QuantityError;
use kube_apigen_core::{Bytes, IntOrString, MicroTime, Quantity, Time};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

fn to_json<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap()
}

fn from_json<T: DeserializeOwned>(json: &str) -> T {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{json} did not decode: {e}"))
}

fn error<T: DeserializeOwned + std::fmt::Debug>(json: &str) -> String {
    serde_json::from_str::<T>(json).unwrap_err().to_string()
}

/// Decodes `json`, checks the value, and checks it encodes back to the same text.
fn round_trip<T>(json: &str, expected: T)
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let decoded: T = from_json(json);
    assert_eq!(decoded, expected, "decoding {json}");
    assert_eq!(to_json(&decoded), json, "re-encoding {json}");
}

fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

// ---- IntOrString ----

#[test]
fn int_or_string_round_trips() {
    round_trip("8080", IntOrString::Int(8080));
    round_trip("-1", IntOrString::Int(-1));
    round_trip("0", IntOrString::Int(0));
    round_trip("2147483647", IntOrString::Int(i32::MAX));
    round_trip("-2147483648", IntOrString::Int(i32::MIN));
    round_trip(r#""http""#, IntOrString::String("http".into()));
    round_trip(r#""25%""#, IntOrString::String("25%".into()));
    // A string of digits stays a string, as in Kubernetes.
    round_trip(r#""80""#, IntOrString::String("80".into()));
    round_trip(r#""""#, IntOrString::String(String::new()));
}

#[test]
fn int_or_string_rejects_non_i32_numbers() {
    let e = error::<IntOrString>("2147483648");
    assert_eq!(
        e,
        "invalid value: integer `2147483648`, expected an integer in the range of a 32-bit \
         signed integer, or a string at line 1 column 10"
    );
    let e = error::<IntOrString>("-2147483649");
    assert!(e.starts_with("invalid value: integer `-2147483649`"), "{e}");
    let e = error::<IntOrString>("1.5");
    assert_eq!(
        e,
        "invalid type: floating point `1.5`, expected an integer in the range of a 32-bit \
         signed integer, or a string at line 1 column 3"
    );
    // Kubernetes decodes into an int32: even an integral float is refused.
    assert!(error::<IntOrString>("1.0").starts_with("invalid type: floating point `1.0`"));
    assert!(error::<IntOrString>("1e2").starts_with("invalid type: floating point `100.0`"));
    assert!(error::<IntOrString>("true").starts_with("invalid type: boolean `true`"));
    assert!(error::<IntOrString>("[1]").starts_with("invalid type: sequence"));
    assert!(error::<IntOrString>("{}").starts_with("invalid type: map"));
}

#[test]
fn int_or_string_null_is_the_go_zero_value_but_optional_fields_see_none() {
    assert_eq!(from_json::<IntOrString>("null"), IntOrString::Int(0));
    assert_eq!(from_json::<Option<IntOrString>>("null"), None);
    assert_eq!(IntOrString::default(), IntOrString::Int(0));
}

#[test]
fn int_or_string_conversions_and_display() {
    assert_eq!(IntOrString::from(3), IntOrString::Int(3));
    assert_eq!(IntOrString::from("x"), IntOrString::String("x".into()));
    assert_eq!(IntOrString::from(String::from("y")), IntOrString::String("y".into()));
    assert_eq!(IntOrString::Int(-7).to_string(), "-7");
    assert_eq!(IntOrString::from("25%").to_string(), "25%");
    assert_eq!(IntOrString::Int(1).as_int(), Some(1));
    assert_eq!(IntOrString::Int(1).as_str(), None);
    assert_eq!(IntOrString::from("a").as_str(), Some("a"));
    assert_eq!(serde_json::Value::from(&IntOrString::Int(5)), serde_json::json!(5));
    assert_eq!(serde_json::Value::from(&IntOrString::from("5%")), serde_json::json!("5%"));
}

#[test]
fn int_or_string_in_a_struct() {
    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Port {
        target_port: IntOrString,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_surge: Option<IntOrString>,
    }
    round_trip(
        r#"{"targetPort":"http","maxSurge":1}"#,
        Port { target_port: "http".into(), max_surge: Some(IntOrString::Int(1)) },
    );
    round_trip(r#"{"targetPort":443}"#, Port { target_port: IntOrString::Int(443), max_surge: None });
}

// ---- Quantity ----

#[test]
fn quantity_keeps_the_texts_the_api_server_keeps() {
    for text in ["100m", "2e3", "1E-3", "0", "-1", "+5k", "1.", "128974848", "12Mi", "1Gi", "1500Ki", "05"] {
        let q: Quantity = from_json(&format!("\"{text}\""));
        assert_eq!(q.as_str(), text);
        assert_eq!(to_json(&q), format!("\"{text}\""));
    }
}

#[test]
fn quantity_decodes_to_the_api_servers_canonical_text() {
    for (sent, written) in [
        ("1.5Gi", "1536Mi"),
        ("1024Mi", "1Gi"),
        (".5", "500m"),
        ("1000m", "1"),
        ("1000", "1k"),
        ("0.5Gi", "512Mi"),
        ("1e4", "10e3"),
        ("0.0000000001", "1n"),
    ] {
        let q: Quantity = from_json(&format!("\"{sent}\""));
        assert_eq!(q.as_str(), written, "decoding {sent:?}");
    }
    // Values built in code keep their text until asked.
    let mut q = Quantity::from("1.5");
    assert_eq!(q.as_str(), "1.5");
    q.canonicalize();
    assert_eq!(q.as_str(), "1500m");
    // No quantity: kept as sent, for validation to report.
    let q: Quantity = from_json(r#""1.5 cores""#);
    assert_eq!(q.as_str(), "1.5 cores");
}

#[test]
fn quantity_accepts_numbers_and_writes_strings() {
    let cases = [
        ("1", "1"),
        ("0", "0"),
        ("-3", "-3"),
        ("0.5", "500m"),
        ("1.0", "1"),
        ("1e3", "1k"),
        ("1.5e-3", "1500u"),
        ("18446744073709551615", "18446744073709551615"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("0.1", "100m"),
    ];
    for (json, text) in cases {
        let q: Quantity = from_json(json);
        assert_eq!(q.as_str(), text, "decoding {json}");
        assert_eq!(to_json(&q), format!("\"{text}\""));
    }
}

#[test]
fn quantity_trims_whitespace_and_takes_null_as_zero() {
    assert_eq!(from_json::<Quantity>(r#"" 250m ""#).as_str(), "250m");
    assert_eq!(from_json::<Quantity>("null").as_str(), "0");
    assert_eq!(from_json::<Option<Quantity>>("null"), None);
    assert_eq!(Quantity::default().to_string(), "0");
}

#[test]
fn quantity_compares_and_hashes_by_amount() {
    use std::collections::HashSet;
    assert_eq!(Quantity::from("1"), Quantity::from("1000m"));
    assert_eq!(Quantity::from("1Ki"), Quantity::from("1024"));
    assert!(Quantity::from("50M") < Quantity::from("50Mi"));
    assert_ne!(Quantity::from("1"), Quantity::from("2"));
    // Texts that are no quantity compare by text, after every quantity.
    assert!(Quantity::from("1E") < Quantity::from("abc"));
    assert_ne!(Quantity::from("abc"), Quantity::from("abd"));
    let set: HashSet<Quantity> = ["1", "1000m", "1k", "1000"].map(Quantity::from).into_iter().collect();
    assert_eq!(set.len(), 2);
    assert_eq!(Quantity::from("1.5").amount().unwrap().as_int64(), None);
    assert_eq!(Quantity::from("2k").amount().unwrap().as_int64(), Some(2000));
    assert_eq!(Quantity::from("1 k").amount().unwrap_err(), QuantityError::Format);
}

#[test]
fn quantity_rejects_other_json_types() {
    assert_eq!(
        error::<Quantity>("true"),
        "invalid type: boolean `true`, expected a quantity as a string or a number at line 1 column 4"
    );
    assert!(error::<Quantity>("[]").starts_with("invalid type: sequence"));
    assert!(error::<Quantity>("{}").starts_with("invalid type: map"));
}

#[test]
fn quantity_grammar() {
    let valid = [
        "0",
        "1",
        "-1",
        "+1",
        "1.5",
        ".5",
        "1.",
        "5.Gi",
        "100m",
        "250n",
        "3u",
        "1k",
        "1M",
        "1G",
        "1T",
        "1P",
        "1E",
        "1Ki",
        "1Mi",
        "1Gi",
        "1Ti",
        "1Pi",
        "1Ei",
        "1e3",
        "1E3",
        "1e-3",
        "1e+3",
        "-1.5e-10",
        "0.000001",
        "123456789012345678901234567890",
    ];
    for text in valid {
        assert!(Quantity::from(text).is_valid(), "{text} should be valid");
    }
    let format = ["", " 1", "1 ", "abc", "Ki", "+", "-", ".", "1.2.3", "1,5", "1e3.5", "1e5e", "1Mi ", "0x10", "1KiB"];
    for text in format {
        assert_eq!(Quantity::from(text).validate(), Err(QuantityError::Format), "{text:?}");
    }
    let suffix = ["1ki", "1K", "1mi", "1e", "1E+", "1ee", "1Mi3", "1kk", "1e99999999999999999999"];
    for text in suffix {
        assert_eq!(Quantity::from(text).validate(), Err(QuantityError::Suffix), "{text:?}");
    }
    assert_eq!(
        QuantityError::Format.to_string(),
        "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
    );
    assert_eq!(QuantityError::Suffix.to_string(), "unable to parse quantity's suffix");
}

#[test]
fn quantity_conversions() {
    let q = Quantity::from("1Gi");
    assert_eq!(q.as_str(), "1Gi");
    assert_eq!(AsRef::<str>::as_ref(&q), "1Gi");
    assert_eq!(q.to_string(), "1Gi");
    assert_eq!(Quantity::from(String::from("2")).as_str(), "2");
    assert_eq!(serde_json::Value::from(&q), serde_json::json!("1Gi"));
}

#[test]
fn quantity_map_like_resource_requests() {
    let requests: BTreeMap<String, Quantity> = from_json(r#"{"cpu":0.5,"memory":"128Mi"}"#);
    assert_eq!(to_json(&requests), r#"{"cpu":"500m","memory":"128Mi"}"#);
}

// ---- Time and MicroTime ----

#[test]
fn time_writes_whole_seconds_in_utc() {
    round_trip(r#""2024-01-02T03:04:05Z""#, Time(ts("2024-01-02T03:04:05Z")));
    // Fractions are truncated, not rounded, on output: the Kubernetes behaviour.
    let t: Time = from_json(r#""2024-01-02T03:04:05.999999999Z""#);
    assert_eq!(t.0, ts("2024-01-02T03:04:05.999999999Z"));
    assert_eq!(to_json(&t), r#""2024-01-02T03:04:05Z""#);
    // Offsets are converted to UTC.
    let t: Time = from_json(r#""2024-01-02T03:04:05+01:30""#);
    assert_eq!(to_json(&t), r#""2024-01-02T01:34:05Z""#);
    let t: Time = from_json(r#""2023-12-31T23:30:00-01:00""#);
    assert_eq!(to_json(&t), r#""2024-01-01T00:30:00Z""#);
    assert_eq!(t.to_string(), "2024-01-01T00:30:00Z");
}

#[test]
fn time_round_trip_drops_fractions() {
    let original = Time(ts("2024-05-06T07:08:09.5Z"));
    let back: Time = from_json(&to_json(&original));
    assert_eq!(back, Time(ts("2024-05-06T07:08:09Z")));
    assert_ne!(back, original);
}

#[test]
fn time_before_the_epoch_truncates_towards_the_past() {
    let t = Time(ts("1969-12-31T23:59:59.5Z"));
    assert_eq!(to_json(&t), r#""1969-12-31T23:59:59Z""#);
    round_trip(r#""0002-01-01T00:00:00Z""#, Time(ts("0002-01-01T00:00:00Z")));
}

#[test]
fn micro_time_writes_six_digits() {
    round_trip(r#""2024-01-02T03:04:05.123456Z""#, MicroTime(ts("2024-01-02T03:04:05.123456Z")));
    let t: MicroTime = from_json(r#""2024-01-02T03:04:05,100000Z""#);
    assert_eq!(to_json(&t), r#""2024-01-02T03:04:05.100000Z""#);
    assert_eq!(t.to_string(), "2024-01-02T03:04:05.100000Z");
    let t: MicroTime = from_json(r#""2024-01-02T05:04:05.000001+02:00""#);
    assert_eq!(to_json(&t), r#""2024-01-02T03:04:05.000001Z""#);
    // Go's layout `2006-01-02T15:04:05.000000Z07:00` wants exactly six digits.
    for text in ["2024-01-02T03:04:05Z", "2024-01-02T03:04:05.1Z", "2024-01-02T03:04:05.123456789Z"] {
        let e = error::<MicroTime>(&format!("\"{text}\""));
        assert!(e.contains(r#"as "2006-01-02T15:04:05.000000Z07:00": cannot parse"#), "{text}: {e}");
    }
}

#[test]
fn time_accepts_what_go_accepts() {
    let expected = ts("2024-01-02T03:04:05Z");
    for text in [
        "2024-01-02T03:04:05Z",
        "2024-01-02T03:04:05+00:00",
        "2024-01-02T03:04:05-00:00",
        "2024-01-02T04:04:05+01:00",
        "2024-01-02T03:04:05.0Z",
        "2024-01-02T03:04:05,0Z",
        "2024-01-02T03:04:05.000000000000Z",
        "2024-01-02T3:04:05Z",
        "2024-01-03T03:04:05+24:00",
    ] {
        let t: Time = from_json(&format!("\"{text}\""));
        assert_eq!(t.0, expected, "{text}");
        assert_eq!(text.parse::<Time>().unwrap().0, expected, "{text}");
    }
    // More than nine fractional digits: the rest is ignored.
    let t: Time = from_json(r#""2024-01-02T03:04:05.1234567891Z""#);
    assert_eq!(t.0, ts("2024-01-02T03:04:05.123456789Z"));
}

#[test]
fn time_rejects_what_go_rejects_in_go_words() {
    let cases = [
        ("2024-01-02", r#"cannot parse "" as "T""#),
        ("2024-01-02T03:04:05", r#"cannot parse "" as "Z07:00""#),
        ("2024-01-02 03:04:05Z", r#"cannot parse " 03:04:05Z" as "T""#),
        ("2024-01-02t03:04:05Z", r#"cannot parse "t03:04:05Z" as "T""#),
        ("2024-01-02T03:04:05z", r#"cannot parse "z" as "Z07:00""#),
        ("2024-01-02T03:04Z", r#"cannot parse "Z" as ":""#),
        ("2024-1-02T03:04:05Z", r#"cannot parse "1-02T03:04:05Z" as "01""#),
        ("24-01-02T03:04:05Z", r#"cannot parse "24-01-02T03:04:05Z" as "2006""#),
        ("2024-01-02T03:04:05.Z", r#"cannot parse ".Z" as "Z07:00""#),
        ("2024-01-02T03:04:05+0100", r#"cannot parse "+0100" as "Z07:00""#),
        ("", r#"cannot parse "" as "2006""#),
    ];
    for (text, reason) in cases {
        let e = error::<Time>(&format!("\"{text}\""));
        let expected = format!(r#"parsing time "{text}" as "2006-01-02T15:04:05Z07:00": {reason}"#);
        assert!(e.starts_with(&expected), "{text:?}: got {e}");
    }
    for (text, reason) in [
        ("2023-02-29T00:00:00Z", "day out of range"),
        ("2024-13-01T00:00:00Z", "month out of range"),
        ("2024-01-01T24:00:00Z", "hour out of range"),
        ("2016-12-31T23:59:60Z", "second out of range"),
        ("2024-01-02T03:04:05+25:00", "time zone offset hour out of range"),
        ("2024-01-02T03:04:05Zjunk", r#"extra text: "junk""#),
    ] {
        let e = error::<Time>(&format!("\"{text}\""));
        assert!(e.starts_with(&format!(r#"parsing time "{text}": {reason}"#)), "{e}");
    }
    assert!(
        error::<Time>("12")
            .starts_with(r#"invalid type: integer `12`, expected a time in the layout "2006-01-02T15:04:05Z07:00""#)
    );
    assert!(error::<Time>("null").starts_with("invalid type: null"));
    assert_eq!(from_json::<Option<Time>>("null"), None);
}

#[test]
fn time_years_before_rfc3339_fail_to_serialize_without_panicking() {
    // jiff reaches back to the year -9999; RFC 3339 only to 0000.
    let far = Time(ts("-000001-06-01T00:00:00Z"));
    let e = serde_json::to_string(&far).unwrap_err().to_string();
    assert_eq!(e, "timestamp -000001-06-01T00:00:00Z is outside the years 0000..=9999 that RFC 3339 can write");
    assert_eq!(far.to_string(), "-000001-06-01T00:00:00Z");
    let e = serde_json::to_string(&MicroTime(far.0)).unwrap_err().to_string();
    assert!(e.starts_with("timestamp -000001-06-01T00:00:00Z is outside"), "{e}");
}

#[test]
fn time_now_is_truncated_and_ordered() {
    let t = Time::now();
    assert_eq!(t.0.subsec_nanosecond(), 0);
    let m = MicroTime::now();
    assert_eq!(m.0.subsec_nanosecond() % 1_000, 0);
    let a = Time(ts("2024-01-01T00:00:00Z"));
    let b = Time(ts("2024-01-01T00:00:01Z"));
    assert!(a < b);
    assert_eq!(a.max(b), b);
    assert_eq!(Time::from(ts("2024-01-01T00:00:00Z")), a);
    assert_eq!(Timestamp::from(a), ts("2024-01-01T00:00:00Z"));
    assert_eq!(MicroTime::from(ts("2024-01-01T00:00:00Z")).0, a.0);
}

// ---- Bytes ----

#[test]
fn bytes_are_standard_base64_with_padding() {
    round_trip(r#""aGVsbG8=""#, Bytes(b"hello".to_vec()));
    round_trip(r#""""#, Bytes(Vec::new()));
    round_trip(r#""AP8+/w==""#, Bytes(vec![0x00, 0xff, 0x3e, 0xff]));
    assert_eq!(Bytes::from(&b"hi"[..]).to_base64(), "aGk=");
}

#[test]
fn bytes_ignore_line_breaks_and_take_null_as_empty() {
    assert_eq!(from_json::<Bytes>(r#""aGVs\r\nbG8=\n""#), Bytes(b"hello".to_vec()));
    assert_eq!(from_json::<Bytes>("null"), Bytes::default());
    assert_eq!(from_json::<Option<Bytes>>("null"), None);
}

#[test]
fn bytes_reject_bad_base64() {
    assert_eq!(error::<Bytes>(r#""aGVsbG8""#), "invalid base64 data: Invalid padding at line 1 column 9");
    assert!(error::<Bytes>(r#""aGV$bG8=""#).starts_with("invalid base64 data: Invalid symbol 36, offset 3."));
    // URL-safe alphabet is not the standard one.
    assert!(error::<Bytes>(r#""AP8-_w==""#).starts_with("invalid base64 data: Invalid symbol"));
    assert!(error::<Bytes>("7").starts_with("invalid type: integer `7`, expected a base64-encoded string"));
}

#[test]
fn default_time_is_go_zero_time_and_encodes_as_null() {
    use kube_apigen_core::{MicroTime, Time};
    assert!(Time::default().is_zero());
    assert_eq!(serde_json::to_string(&Time::default()).unwrap(), "null");
    assert_eq!(serde_json::to_string(&MicroTime::default()).unwrap(), "null");
    // What a required field reads a `null` as (`kube_apigen_core::de::read_or_default`).
    let decoded = serde_json::from_value::<Option<Time>>(serde_json::Value::Null).unwrap().unwrap_or_default();
    assert_eq!(decoded, Time::default());
}
