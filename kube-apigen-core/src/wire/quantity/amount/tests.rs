use super::*;

fn q(text: &str) -> Amount {
    parse(text).unwrap_or_else(|err| panic!("{text}: {err}")).amount
}

fn int(value: i64, scale: i32) -> Repr {
    Repr::Int { value, scale }
}

fn nanos(negative: bool, nanos: u128) -> Repr {
    Repr::Dec(Decimal { negative, magnitude: Big::from_u128(nanos), exponent: -9 })
}

/// What the API server writes for `text` after reading it.
fn written(text: &str) -> String {
    let parsed = parse(text).unwrap_or_else(|err| panic!("{text}: {err}"));
    if parsed.keeps_text { text.to_owned() } else { canonical_text(&parsed.amount, parsed.format) }
}

#[test]
fn parses_into_the_api_servers_representation() {
    assert_eq!(q("0").0, int(0, 0));
    assert_eq!(q("12").0, int(12, 0));
    assert_eq!(q("-12").0, int(-12, 0));
    assert_eq!(q("+007").0, int(7, 0));
    assert_eq!(q("1.5").0, int(15, -1));
    assert_eq!(q(".5").0, int(5, -1));
    assert_eq!(q("1.").0, int(1, 0));
    assert_eq!(q("500m").0, int(500, -3));
    assert_eq!(q("1.5k").0, int(15, 2));
    assert_eq!(q("2e3").0, int(2, 3));
    assert_eq!(q("2E-3").0, int(2, -3));
    assert_eq!(q("1n").0, int(1, -9));
    assert_eq!(q("1Ki").0, int(1024, 0));
    assert_eq!(q("12Mi").0, int(12 << 20, 0));
    assert_eq!(q("1Ti").0, int(1 << 40, 0));
    assert_eq!(q("1E").0, int(1, 18));
    assert_eq!(q("000").0, int(0, 0));
    // Too many digits, too small a scale, binary fractions and large binary
    // multiples are exact amounts, rounded up to nanos.
    assert_eq!(q("1Pi").0, nanos(false, (1u128 << 50) * 1_000_000_000));
    assert_eq!(q("1.5Gi").0, nanos(false, 1_610_612_736 * 1_000_000_000));
    assert_eq!(q("0.0000000001").0, nanos(false, 1));
    assert_eq!(q("-1e-20").0, nanos(true, 1));
    assert_eq!(q("1.0000000001").0, nanos(false, 1_000_000_001));
    assert_eq!(q("1234567890123456789").0, nanos(false, 1_234_567_890_123_456_789_000_000_000));
    assert_eq!(q(&format!("0.{}1", "0".repeat(5000))).0, nanos(false, 1), "long fractions round up");
    assert_eq!(
        q(&format!("{}e-9990", "1".repeat(10_000))).0,
        nanos(false, 1_111_111_111_111_111_112),
        "a long mantissa with a small exponent"
    );
    assert_eq!(q(&format!("0.{}", "1".repeat(200_000))).0, nanos(false, 111_111_112));
    assert_eq!(q("1e2000000000").0, int(1, 2_000_000_000));
    // Binary amounts are capped at 2^63 - 1, decimal ones are not.
    let capped = Repr::Dec(Decimal::capped(false));
    assert_eq!(q("9Ei").0, capped);
    assert_eq!(q("9223372036854775807Ki").0, capped);
    assert_eq!(q("10000000000000000000Ei").0, capped);
    assert_eq!(q("-99999999999999999999Ki").0, Repr::Dec(Decimal::capped(true)));
    assert!((q("-99999999999999999999").approximate_float() + 1e20).abs() < 1e6);
    assert!(q("9999999999999999999999999999999999999G") > q("9223372036854775807"));
    let long = q(&"9".repeat(200_000));
    assert!(long > q("1e199999") && long < q("1e200000"), "long inputs stay exact and cheap");
    assert!(q("12345678901234567890e5000") > q("1e5018"), "exact beyond the nanos of everything");
}

#[test]
fn parse_errors_are_the_api_servers() {
    let error = |text: &str| parse(text).err();
    for bad in ["", "Three", "Mi", "1,3G", "10Mo", "+", " 1", "1 "] {
        assert_eq!(error(bad), Some(QuantityError::Format), "{bad:?}");
    }
    for bad in ["10Mm", "200K", "1e", "1ki", "1e1.5"] {
        assert!(error(bad).is_some(), "{bad:?}");
    }
    assert_eq!(error("10Mm"), Some(QuantityError::Suffix));
}

#[test]
fn writes_the_api_servers_canonical_text() {
    // Texts the API server's parser keeps as sent, quirks included (`+5`, `05`).
    for kept in ["0", "1Ki", "1Gi", "300Mi", "100Mi", "1500Ki", "500m", "1080m", "80e-3", "1e3", "1E3", "+5", "05"] {
        assert_eq!(written(kept), kept);
    }
    for (text, canonical) in [
        ("1024Mi", "1Gi"),
        ("307200Ki", "300Mi"),
        ("1025024Mi", "1001Gi"),
        ("1024Gi", "1Ti"),
        ("128Mi", "128Mi"),
        ("0.5Gi", "512Mi"),
        ("1.5Ki", "1536"),
        ("5000m", "5"),
        ("0.5", "500m"),
        ("1.5", "1500m"),
        ("1.0", "1"),
        ("1000", "1k"),
        ("1000M", "1G"),
        ("0.001T", "1G"),
        ("1000u", "1m"),
        ("1.08", "1080m"),
        ("1080000000n", "1080m"),
        (".001e12", "1e9"),
        ("0.001e0", "1e-3"),
        ("1000e-12", "1e-9"),
        ("1e4", "10e3"),
        ("00", "0"),
        ("0Ki", "0"),
        ("-0.5", "-500m"),
        (".001Ki", "1024m"),
        (".000001Ki", "1024u"),
        (".000000001Ki", "1024n"),
        (".000000000001Ki", "2n"),
        ("-.001Ki", "-1024m"),
        ("3.001n", "4n"),
        ("1234567890123456789", "1234567890123456789"),
        ("9Ei", "9223372036854775807"),
        // The API server has no suffix above `E`, and drops the exponent: 10^21 is written `1`.
        ("1000E", "1"),
    ] {
        assert_eq!(written(text), canonical, "{text}");
        // The machine-integer path and the exact one agree.
        let parsed = parse(text).unwrap();
        let exact = Amount(Repr::Dec(parsed.amount.decimal()));
        assert_eq!(canonical_text(&exact, parsed.format), canonical_text(&parsed.amount, parsed.format), "{text}");
    }
}

#[test]
fn compares_and_hashes_by_amount() {
    use std::hash::{BuildHasher, RandomState};
    let state = RandomState::new();
    for (a, b) in [
        ("200M", "0.2G"),
        ("1", "1000m"),
        ("1.5Gi", "1536Mi"),
        ("0", "0e5"),
        ("1Ki", "1024"),
        ("1Pi", "1125899906842624"),
    ] {
        assert_eq!(q(a), q(b), "{a} == {b}");
        assert_eq!(state.hash_one(q(a)), state.hash_one(q(b)), "{a} and {b} hash alike");
    }
    assert!(q("50M") < q("50Mi"));
    assert!(q("-1") < q("1n"));
    assert!(q("-2") < q("-1"));
    assert!(q("0") > q("-0.0000000000001"));
    assert!(q("1e2000000000") > q("9999999999999999999999Ei"));
}

#[test]
fn integers_as_the_api_server_converts_them() {
    assert_eq!(q("50k").as_int64(), Some(50_000));
    assert_eq!(q("50000000G").as_int64(), Some(50_000_000_000_000_000));
    assert_eq!(q("1Gi").as_int64(), Some(1 << 30));
    assert_eq!(q("-3").as_int64(), Some(-3));
    for not_integer in ["500m", "1000m", "1.0", "1Pi", "1.5Gi", "1e19", "9999999999999999999999999999999999999G"] {
        assert_eq!(q(not_integer).as_int64(), None, "{not_integer}");
    }
}

#[test]
fn arithmetic_keeps_int64_amounts_while_it_can() {
    let add = |a: &str, b: &Amount| q(a).checked_add(b).unwrap();
    let sub = |a: &str, b: &Amount| q(a).checked_sub(b).unwrap();
    let repr = |a: Amount| a.0;
    assert_eq!(repr(add("50k", &Amount::from_int(20))), int(50_020, 0));
    assert_eq!(repr(add("50k", &q("20"))), int(50_020, 0));
    assert_eq!(repr(sub("50k", &q("20"))), int(49_980, 0));
    assert_eq!(repr(add("1", &q("500m"))), int(1500, -3));
    assert_eq!(repr(add("0", &q("2k"))), int(2, 3));
    let chain = q("50k")
        .checked_add(&Amount::from_int(20))
        .and_then(|x| x.checked_sub(&q("100k")))
        .and_then(|x| x.checked_sub(&Amount::from_int(-50_000)))
        .unwrap();
    assert_eq!(chain.as_int64(), Some(20));
    assert_eq!(chain, q("20"));
    // Subtracting from zero gives an exact amount, which is no int64 one.
    let negated = sub("0", &q("1"));
    assert_eq!(negated, q("-1"));
    assert_eq!(negated.as_int64(), None);
    // Overflow moves to exact arithmetic.
    let big = add("9223372036854775807", &Amount::from_int(1));
    assert!(matches!(big.0, Repr::Dec(_)));
    assert!(big > q("9223372036854775807"));
    assert!(add("1e100", &Amount::from_int(1)) > q("1e100"));
    assert!(q("1e5000").checked_add(&Amount::from_int(1)).is_none(), "too far apart");
    assert_eq!(add("1.5Gi", &q("-1.5Gi")).sign(), 0);
}

#[test]
fn approximate_floats_and_signs() {
    assert_eq!(q("50.703k").approximate_float(), 50_703.0);
    assert_eq!(q("50k").checked_sub(&Amount::from_int(20_000)).unwrap().approximate_float(), 30_000.0);
    assert_eq!(q("1Gi").approximate_float(), 1_073_741_824.0);
    assert_eq!(q("-1.5").approximate_float(), -1.5);
    assert_eq!(q("1e400").approximate_float(), f64::INFINITY);
    assert_eq!(q("1e-400").approximate_float(), 1e-9, "rounded up to 1n");
    assert_eq!(go_pow10(0), 1.0);
    assert_eq!(go_pow10(-3), 1e-3);
    assert_eq!(go_pow10(309), f64::INFINITY);
    assert_eq!(go_pow10(-324), 0.0);
    assert_eq!(q("-5m").sign(), -1);
    assert_eq!(q("0").sign(), 0);
    assert_eq!(q("1Pi").sign(), 1);
    assert_eq!(q("-1e-20").sign(), -1);
}
