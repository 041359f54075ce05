//! Differential tests against Go's standard library: where Kubernetes' behaviour is Go's,
//! the project's reimplementation is asked the same questions as Go itself
//! (`tests/go-oracle/oracle.go`), hand-picked edge cases and thousands of generated
//! inputs per function, and must answer the same. Where Debian's Go is older than the
//! Go current Kubernetes is built with and the two differ, the difference is asserted
//! here on purpose.

mod go;

use go::{Errors, Go, cases};
use serde_json::json;

const BASE64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=-_\r\n .";

#[test]
fn base64_decoding() {
    let Some(mut go) = Go::start("base64_decoding") else { return };
    let inputs = cases(
        &[
            "",
            "=",
            "==",
            "====",
            "aGVsbG9=",
            "aGVsbG8=",
            "aGVsbG8",
            "aGVsbA==",
            "aGVsbB==",
            "aGVsbA=",
            "aGVsbA",
            "aGVs\nbG8=",
            "aGVs\r\nbG8=\r\n",
            "\naGVsbG8=",
            "aGVsbG8=\n\n",
            "aGVsbA==\nYQ==",
            "aG=sbG8=",
            "aGVsbG8_",
            "aGVsbG8-",
            "YQ",
            "YR==",
            "YWI=",
            "YWJ=",
            "YWJj",
            " YWJj",
            "YWJj ",
            "YW\rJj",
        ],
        &["aGVsbG8=", "aGVsbA==", "YWJj", "", "AAAA", "//+/", "aGVsbG8gd29ybGQ="],
        BASE64,
        5000,
    );
    go.agree("base64", &inputs, Errors::Presence, |args| {
        kube_apigen::go::base64::decode(&args[0]).map(|bytes| json!(hex(&bytes))).map_err(|e| e.to_string())
    });
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The text whose UTF-8 bytes `hex` wrote, if they are UTF-8.
fn unhex(hex: &str) -> Result<String, std::string::FromUtf8Error> {
    let bytes = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
    String::from_utf8(bytes)
}

const TIME: &str = "0123456789-+:.,TtZz é";

#[test]
fn time_and_micro_time_layouts() {
    let Some(mut go) = Go::start("time_and_micro_time_layouts") else { return };
    let inputs = cases(
        &[
            "2024-01-02T03:04:05Z",
            "2024-01-02t03:04:05Z",
            "2024-01-02T03:04:05z",
            "2024-01-02T3:04:05Z",
            "2024-01-02T03:4:05Z",
            "2024-01-02T03:04:05,5Z",
            "2024-01-02T03:04:05.Z",
            "2024-01-02T03:04:05.1234567891234Z",
            "2024-01-02T03:04:05.123456Z",
            "2024-01-02T03:04:05.+12345Z",
            "2024-01-02T03:04:05.-12345Z",
            "2024-01-02T03:04:05.-00000Z",
            "2024-01-02T03:04:05+24:00",
            "2024-01-02T03:04:05-00:60",
            "2024-01-02T03:04:05+0100",
            "2024-02-29T03:04:05Z",
            "2023-02-29T03:04:05Z",
            "2024-13-01T03:04:05Z",
            "2024-01-02T24:00:00Z",
            "2024-01-02T23:59:60Z",
            "0000-01-01T00:00:00+01:00",
            "9999-12-31T23:59:59-01:00",
            "2024-01-02T03:04:05Zx",
            "2024-01-02T03:04:05Zé",
            "2024-01-02",
            "",
        ],
        &[
            "2024-01-02T03:04:05Z",
            "2024-02-29T23:59:59.999999+05:30",
            "0000-01-01T00:00:00.000000-24:00",
            "9999-12-31T23:59:59,123456789Z",
            "2023-02-28T7:04:05.123456Z",
        ],
        TIME,
        6000,
    );

    // Go 1.19 read offsets with `atoi` (a sign inside, any value: `+-1:99`), took a
    // fraction for missing seconds (`03:04:,5Z`) and named another part of the input in
    // its errors; Kubernetes' Go (1.20 and later) refuses those inputs, as the Rust side
    // does.
    let older = go_minor(&go) < 20;
    let errors = if older { Errors::Presence } else { Errors::Exact };
    let (inputs, offsets_before_1_20): (Vec<_>, Vec<_>) =
        inputs.into_iter().partition(|args| !older || !read_differently_before_go_1_20(&args[0]));
    for args in &offsets_before_1_20 {
        assert!(args[0].parse::<kube_apigen::Time>().is_err(), "{args:?}");
    }

    // Go answers seconds since the epoch and the nanoseconds within that second.
    let instant = |t: jiff::Timestamp| {
        let nanos = t.as_nanosecond();
        json!(format!("{}.{:09}", nanos.div_euclid(1_000_000_000), nanos.rem_euclid(1_000_000_000)))
    };
    // jiff, under Time and MicroTime, ends at 9999-12-30T22:00:00Z, where Go goes on for
    // two hours: the times after that are refused (a documented difference).
    let beyond_jiff = |answer: &Result<serde_json::Value, String>| {
        answer.as_ref().is_ok_and(|v| {
            let seconds: i64 = v.as_str().unwrap().split('.').next().unwrap().parse().unwrap();
            seconds > jiff::Timestamp::MAX.as_second()
        })
    };
    let go::Split { kept: inputs, others: late } = go.partition("time.rfc3339", inputs, |answer| !beyond_jiff(answer));
    for (args, _) in &late {
        assert!(args[0].parse::<kube_apigen::Time>().is_err(), "{args:?}");
    }
    go.agree("time.rfc3339", &inputs, errors, |args| {
        args[0].parse::<kube_apigen::Time>().map(|t| instant(t.0)).map_err(|e| e.to_string())
    });
    go.agree("time.micro", &inputs, errors, |args| {
        args[0].parse::<kube_apigen::MicroTime>().map(|t| instant(t.0)).map_err(|e| e.to_string())
    });
}

/// Whether Go 1.19 accepts the text where later Go refuses it: a fraction in place of the
/// seconds, or a `±hh:mm` offset with a sign inside or out of range.
fn read_differently_before_go_1_20(text: &str) -> bool {
    let fraction_for_seconds =
        text.as_bytes().windows(3).any(|w| w[0] == b':' && matches!(w[1], b'.' | b',') && w[2].is_ascii_digit());
    if fraction_for_seconds {
        return true;
    }
    let Some(zone) = text.len().checked_sub(6).and_then(|at| text.get(at..)).map(str::as_bytes) else {
        return false;
    };
    let two = |part: &[u8]| -> Option<i32> {
        part.iter().all(u8::is_ascii_digit).then(|| std::str::from_utf8(part).unwrap().parse().unwrap())
    };
    matches!(zone[0], b'+' | b'-')
        && zone[3] == b':'
        && match (two(&zone[1..3]), two(&zone[4..6])) {
            (Some(hours), Some(minutes)) => hours > 24 || minutes > 60,
            _ => zone[1..3].iter().chain(&zone[4..6]).all(|c| c.is_ascii_digit() || matches!(c, b'+' | b'-')),
        }
}

#[test]
fn time_and_micro_time_written_in_utc() {
    let Some(mut go) = Go::start("time_and_micro_time_written_in_utc") else { return };
    let mut rng = fastrand::Rng::with_seed(3339);
    let instants: Vec<(i64, i32)> = (0..3000)
        .map(|_| (rng.i64(-62_167_219_200..=253_402_207_200), rng.i32(0..1_000_000_000)))
        .chain([(0, 0), (-62_167_219_200, 0), (253_402_207_199, 999_999_999)])
        .collect();
    let inputs: Vec<Vec<String>> = instants.iter().map(|(s, n)| vec![s.to_string(), n.to_string()]).collect();
    go.agree("time.format", &inputs, Errors::Exact, |args| {
        let t = jiff::Timestamp::new(args[0].parse().unwrap(), args[1].parse().unwrap()).unwrap();
        Ok(json!([kube_apigen::Time(t).to_string(), kube_apigen::MicroTime(t).to_string()]))
    });
}

/// The minor version of the Go that answers (19 for Debian 12's go1.19.8).
fn go_minor(go: &Go) -> u32 {
    go.version.strip_prefix("go1.").and_then(|v| v.split('.').next()).and_then(|m| m.parse().ok()).unwrap_or(0)
}

#[test]
fn query_strings() {
    let Some(mut go) = Go::start("query_strings") else { return };
    let inputs = cases(
        &[
            "",
            "a=1&b=2&a=3",
            "a=1;b=2",
            "a=1&b=2;c",
            "a=%zz&b=1",
            "a=%4&b=1",
            "a=%&b",
            "%41=%42",
            "a+b=c+d",
            "a=%2B",
            "&&a&&",
            "=",
            "==x",
            "a==b",
            "%=x",
            "a=%e2%82%ac",
            "a=%ff",
            "a=%e2%82",
            "a=%\u{e9}",
            "labelSelector=app%3Dweb%2Cx+in+(a)",
        ],
        &["a=1&b=2", "limit=5&continue=abc%3D", "watch&fieldSelector=metadata.name%3Dx", "a=%41;b=+"],
        "ab=&;%+0aF9gZ\u{e9}",
        5000,
    );
    // Go keeps decoded bytes that are not UTF-8; Rust strings cannot, and have U+FFFD.
    let utf8 = |answer: &Result<serde_json::Value, String>| {
        let values = answer.as_ref().unwrap()["values"].as_object().unwrap();
        values.iter().all(|(key, list)| {
            unhex(key).is_ok() && list.as_array().unwrap().iter().all(|value| unhex(value.as_str().unwrap()).is_ok())
        })
    };
    let go::Split { kept: inputs, others: not_utf8 } = go.partition("url.ParseQuery", inputs, utf8);
    assert!(!not_utf8.is_empty());
    for (args, _) in &not_utf8 {
        let (pairs, _) = kube_apigen::go::url::parse_query(&args[0]);
        assert!(pairs.iter().any(|(k, v)| k.contains('\u{fffd}') || v.contains('\u{fffd}')), "{args:?}");
    }
    go.agree("url.ParseQuery", &inputs, Errors::Exact, |args| {
        let (pairs, error) = kube_apigen::go::url::parse_query(&args[0]);
        let mut values = serde_json::Map::new();
        for (key, value) in pairs {
            let list = values.entry(hex(key.as_bytes())).or_insert_with(|| json!([]));
            list.as_array_mut().unwrap().push(json!(hex(value.as_bytes())));
        }
        let mut answer = json!({"values": values});
        if let Some(error) = error {
            answer["error"] = json!(error);
        }
        Ok(answer)
    });
}

#[test]
fn csv_records_of_the_token_file() {
    let Some(mut go) = Go::start("csv_records_of_the_token_file") else { return };
    let inputs = cases(
        &[
            "",
            "\n\n",
            "t,u,1\n",
            "t,u,1,\"a,b\"\r\nx,y,z",
            ",u,1\n",
            "  \n",
            "a,b\"c\n",
            "a,\"b\"c\n",
            "a,\"b\n",
            "a,\"b\nc\"\n",
            "a,\"b\r\nc\",d\r",
            "\"a\"\"b\",c",
            "a,\"\"\n",
            "a,b,\r",
            "a\rb,c\n",
            "\"a\nb\nc\"d\n",
            "x\n\"a\n\nb\" \n",
        ],
        &["t1,alice,uid1,\"g1,g2\"\nt2,bob,uid2\n", "a,\"b\"\"c\",d\r\n\r\ne,f,g", "\"x\ny\",z\n"],
        "ab,\"\r\n é",
        5000,
    );
    go.agree("csv", &inputs, Errors::Exact, |args| kube_apigen::go::csv::read_all(&args[0]).map(|r| json!(r)));
}

/// Subjects every pattern is matched against.
const SUBJECTS: &[&str] = &[
    "", "a", "abc", "ABC", "aBc", "123", "١٢٣", "a1_", "é", "É", "ſ", "K", "k", "\u{212a}", " ", "\t", "\n", "\x0B",
    "\x0C", "\u{a0}", "a b", "a\nb", "[a]", "{,2}", "a{2}", "*", "\\", "&&", "--", "x-y", "αβγ", "Ωmega", "日本",
    "aaa", "ab ab", "<a>", "#", "a.b", "\u{e000}",
];

#[test]
fn regular_expressions_compile_and_match() {
    let Some(mut go) = Go::start("regular_expressions_compile_and_match") else { return };
    let patterns = cases(
        &[
            r"^\d+$",
            r"\w+",
            r"^\s$",
            r"\S",
            r"\bb",
            r"\Bb",
            r"a\b",
            r"[\d\s]",
            r"[^\w]",
            r"[\D]",
            r"[[a]",
            r"[a&&b]",
            r"[a--b]",
            r"[a~~b]",
            r"a{,2}",
            r"a{01}",
            r"a{2}",
            r"a{2,}",
            r"a{1,2}",
            r"a{2,1}",
            r"a{1001}",
            r"a{1000}",
            r"a{",
            r"a{1",
            r"a{1,",
            r"{",
            r"}",
            r"]",
            r"\Q.*\E",
            r"\Qa",
            r"\101",
            r"\1",
            r"\0",
            r"\08",
            r"\8",
            r"\x41",
            r"\x4",
            r"\x{41}",
            r"\x{}",
            r"\x{110000}",
            r"\x{D800}",
            r"[\x{D7FF}-\x{E001}]",
            r"\pL",
            r"\p{Greek}",
            r"\p{greek}",
            r"\p{^Greek}",
            r"\P{^Greek}",
            r"\pN",
            r"\p{Lu}",
            r"(?i)\p{Lu}",
            r"\p{Any}",
            r"\p{Letter}",
            r"\p",
            r"\p{",
            r"[[:alpha:]]",
            r"[[:^alpha:]]",
            r"[[:foo:]]",
            r"[[:alpha]",
            r"[:alpha:]",
            r"(?i)k",
            r"(?i)[k]",
            r"(?i)\W",
            r"(?i)[^k]",
            r"(?P<name>a)",
            r"(?P<1>a)",
            r"(?P<>a)",
            r"(?P<a",
            r"(?P=a)",
            r"(?:a)",
            r"(?i)a",
            r"(?i-s).",
            r"(?s).",
            r"(?m)^b",
            r"(?U)a+",
            r"(?)",
            r"(?-)",
            r"(?i-)",
            r"(?x)",
            r"(?u)",
            r"(?",
            r"(a",
            r"a)",
            r"*",
            r"a**",
            r"a*?",
            r"a*??",
            r"a+*",
            r"a{2}{3}",
            r"a{2}*",
            r"^*",
            r"$*",
            r"\b*",
            r"(*)",
            r"(|*)",
            r"a|*",
            r"a(?i)*",
            r"(?i)*",
            r"\Q\E*",
            r"\C",
            r"\Z",
            r"\z",
            r"\A",
            r"\<",
            r"\_",
            r"\é",
            r"\",
            r"[a\",
            r"[a",
            r"[]a]",
            r"[^]a]",
            r"[]",
            r"[a-]",
            r"[-a]",
            r"[z-a]",
            r"[a-\d]",
            r"[\b]",
            r"[\Q]",
            r"\v",
            r"\a\f\t\r\n",
            r"a$",
            r"^$",
            r".",
            r"#",
            r"a b",
            r"&",
            r"~",
            r"\&",
            r"[\&]",
        ],
        &[r"^[a-z]\d+\w*$", r"(?i)(a|b)*\s[^\W]{1,3}", r"\p{Greek}+[[:digit:]]?\b", r"\Qa.b\E(?P<x>c)"],
        r"\[]{}()^$.|*+?,-:0123456789aAdDsSwWbBpPQEx&~",
        4000,
    );
    let inputs: Vec<Vec<String>> = patterns
        .into_iter()
        .map(|mut args| {
            args.extend(SUBJECTS.iter().map(|s| s.to_string()));
            args
        })
        .collect();

    // Go 1.19 predates `(?<name>...)` (1.22) and Unicode 15 (1.21: five scripts more).
    let older = go_minor(&go) < 22;
    let inputs: Vec<_> = inputs.into_iter().filter(|args| !older || !uses_newer_regexp_syntax(&args[0])).collect();
    if older {
        assert!(kube_apigen::go::regexp::compile(r"(?<name>a)\p{Kawi}").is_ok());
    }
    go.agree("regexp", &inputs, Errors::Exact, |args| {
        let regex = kube_apigen::go::regexp::compile(&args[0]).map_err(|e| e.to_string())?;
        Ok(json!(args[1..].iter().map(|s| regex.is_match(s)).collect::<Vec<_>>()))
    });
}

/// Syntax Go 1.19 did not know: `(?<name>...)` and the scripts of Unicode 14 and 15.
fn uses_newer_regexp_syntax(pattern: &str) -> bool {
    const NEWER_SCRIPTS: [&str; 7] =
        ["Cypro_Minoan", "Old_Uyghur", "Tangsa", "Toto", "Vithkuqi", "Kawi", "Nag_Mundari"];
    pattern.contains("(?<") || NEWER_SCRIPTS.iter().any(|script| pattern.contains(script))
}

#[test]
fn unicode_class_names_are_gos() {
    let Some(mut go) = Go::start("unicode_class_names_are_gos") else { return };
    let names = go.ask("unicode.classes", &[vec![]]).remove(0).unwrap();
    for name in names.as_array().unwrap() {
        let pattern = format!(r"\p{{{}}}", name.as_str().unwrap());
        assert!(kube_apigen::go::regexp::compile(&pattern).is_ok(), "{pattern}");
    }
}

/// The `pattern` keyword as generated `validate()` checks it (`kube_apigen::rules::Pattern`,
/// both wordings): RE2's ASCII classes, whatever the crate's defaults.
#[test]
fn pattern_keyword_checks_with_go_regexp() {
    use kube_apigen::field::Path;
    static DIGITS: kube_apigen::rules::Pattern = kube_apigen::rules::Pattern::new(r"^\d+$");
    static BRACKETS: kube_apigen::rules::Pattern = kube_apigen::rules::Pattern::new(r"^[[a]+$");
    static BROKEN: kube_apigen::rules::Pattern = kube_apigen::rules::Pattern::new(r"^\d+(");
    let path = Path::ROOT;
    let spec = path.field("spec");
    let code = spec.field("code");
    let check = |pattern: &kube_apigen::rules::Pattern, value: &str| {
        let mut errors = Vec::new();
        pattern.check(&code, value, &mut errors);
        kube_apigen::rules::schema::pattern(pattern, &code, value, &mut errors);
        errors.into_iter().map(|e| e.detail).collect::<Vec<_>>()
    };
    assert!(check(&DIGITS, "123").is_empty());
    assert_eq!(
        check(&DIGITS, "١٢٣"),
        [r"must match the regular expression '^\d+$'", r"spec.code in body should match '^\d+$'"]
    );
    assert!(check(&BRACKETS, "[a[").is_empty(), "[ is a literal inside a class in RE2");
    assert_eq!(check(&BROKEN, "1")[0], r"invalid pattern '^\d+(': error parsing regexp: missing closing ): `^\d+(`");
}

const ADDRESS: &str = "0123456789abcdefABCDEF.:/%-x ";

fn ip_inputs() -> Vec<Vec<String>> {
    cases(
        &[
            "1.2.3.4",
            "010.1.1.1",
            "1.2.3.04",
            "0.0.0.0",
            "255.255.255.255",
            "256.1.1.1",
            "1.2.3",
            "1.2.3.4.5",
            "::",
            "::1",
            "1::",
            "::ffff:1.2.3.4",
            "::1.2.3.4",
            "1:2:3:4:5:6:1.2.3.4",
            "1:2:3:4:5:6:7:1.2.3.4",
            "1::2::3",
            "1:2:3:4:5:6:7:8",
            "1:2:3:4:5:6:7:8:9",
            "1:2:3:4:5:6:7::",
            "::ffff:01.2.3.4",
            "fe80::1%eth0",
            "1::00001",
            "1::12345",
            "",
            ":",
            ":::",
            "1.2.3.4/24",
            "::/0",
            "1.2.3.4/08",
            "1.2.3.4/33",
            "::/129",
            "1.2.3.4/",
            "/24",
            "010.0.0.0/8",
        ],
        &["1.2.3.4", "2001:db8::1", "::ffff:10.0.0.1", "10.0.0.0/8", "fe80::/10", "1:2:3:4:5:6:7:8"],
        ADDRESS,
        5000,
    )
}

/// Whether the text has an IPv6 group of more than four hex digits, which Go before 1.22
/// read when its value fits 16 bits (`1::00001`) and later Go refuses.
fn long_ipv6_group(text: &str) -> bool {
    text.split([':', '/', '.']).any(|group| group.len() > 4 && group.bytes().all(|b| b.is_ascii_hexdigit()))
        && text.contains(':')
}

#[test]
fn ip_addresses_and_cidrs() {
    use kube_apigen::go::net::{Strictness, ip_string, parse_cidr, parse_ip};
    let Some(mut go) = Go::start("ip_addresses_and_cidrs") else { return };
    let inputs = ip_inputs();
    let older = go_minor(&go) < 22;
    let (inputs, long_groups): (Vec<_>, Vec<_>) =
        inputs.into_iter().partition(|args| !older || !long_ipv6_group(&args[0]));
    for args in &long_groups {
        assert_eq!(parse_ip(&args[0], Strictness::Strict), None, "{args:?}");
    }
    let ip = |strictness| {
        move |args: &[String]| Ok(json!(parse_ip(&args[0], strictness).map(ip_string).unwrap_or_default()))
    };
    go.agree("net.ParseIP", &inputs, Errors::Exact, ip(Strictness::Strict));
    let cidr = |strictness| {
        move |args: &[String]| {
            let (address, bits) = parse_cidr(&args[0], strictness).ok_or_else(String::new)?;
            let network = match address {
                std::net::IpAddr::V4(v4) => std::net::IpAddr::V4(
                    (u32::from(v4) & u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0)).into(),
                ),
                std::net::IpAddr::V6(v6) => std::net::IpAddr::V6(
                    (u128::from(v6) & u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0)).into(),
                ),
            };
            Ok(json!([ip_string(address), format!("{}/{bits}", ip_string(network))]))
        }
    };
    go.agree("net.ParseCIDR", &inputs, Errors::Presence, cidr(Strictness::Strict));

    // Kubernetes' sloppy forms are Go 1.16's: where no field has a leading zero, they
    // answer as Go 1.19 does.
    let leading_zero = |text: &str| text.split(['.', '/', ':']).any(|field| field.len() > 1 && field.starts_with('0'));
    let (plain, _): (Vec<_>, Vec<_>) = inputs.into_iter().partition(|args| !leading_zero(&args[0]));
    go.agree("net.ParseIP", &plain, Errors::Exact, ip(Strictness::Sloppy));
    go.agree("net.ParseCIDR", &plain, Errors::Presence, cidr(Strictness::Sloppy));
}

#[test]
fn mac_addresses() {
    let Some(mut go) = Go::start("mac_addresses") else { return };
    let inputs = cases(
        &["00:00:5e:00:53:01", "00-00-5e-00-53-01", "0000.5e00.5301", "00:00:5e:00:53", "00:00:5e-00:53:01"],
        &["00:00:5e:00:53:01", "02:00:5e:10:00:00:00:01", "0000.5e00.5301", "00-00-5E-00-53-01"],
        "0123456789abcdefABCDEFg:-.",
        3000,
    );
    go.agree("net.ParseMAC", &inputs, Errors::Presence, |args| {
        let mac = kube_apigen::go::net::parse_mac(&args[0]).ok_or_else(String::new)?;
        Ok(json!(mac.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(":")))
    });
}

#[test]
fn durations_and_dates() {
    let Some(mut go) = Go::start("durations_and_dates") else { return };
    let inputs = cases(
        &[
            "1h30m",
            "-1.5us",
            "1µs",
            "1μs",
            ".5s",
            "5.s",
            ".s",
            "0",
            "-0",
            "+0",
            "1",
            "",
            "9223372036854775807ns",
            "9223372036854775808ns",
            "-9223372036854775808ns",
            "2562047h47m16.854775807s",
            "2562047h47m16.854775808s",
            "1.0000000000000000000001s",
            "1d",
        ],
        &["1h30m", "-1.5us", "2562047h", "0.000001ms", "1h1m1s1ms1us1ns"],
        "0123456789.+-hmsunµ ",
        4000,
    );
    go.agree("time.ParseDuration", &inputs, Errors::Presence, |args| {
        kube_apigen::go::time::parse_duration(&args[0]).map(|n| json!(n.to_string())).ok_or_else(String::new)
    });

    let dates = cases(
        &["2024-02-29", "2023-02-29", "2024-1-01", "2024-01-1", "0000-01-01", "2024-01-01x", "2024-13-01"],
        &["2024-02-29", "1999-12-31"],
        "0123456789-/ T",
        3000,
    );
    go.agree("time.date", &dates, Errors::Presence, |args| {
        if kube_apigen::format::check("date", &args[0]) == Some(true) { Ok(go::ANY) } else { Err(String::new()) }
    });
}

/// `format` on a custom resource's string, as generated `validate()` will check it
/// (`kube_apigen::rules::schema::format`): the API server's formats and message.
#[test]
fn custom_resource_formats_as_the_api_server_checks_them() {
    use kube_apigen::field::Path;
    let root = Path::ROOT;
    let spec = root.field("spec");
    let addr = spec.field("addr");
    let check = |format: &str, value: &str| {
        let mut errors = Vec::new();
        kube_apigen::rules::schema::format(&addr, format, value, &mut errors);
        errors.into_iter().map(|e| (e.field, e.detail)).collect::<Vec<_>>()
    };
    assert_eq!(
        check("ipv4", "999.1.1.1"),
        [("spec.addr".to_owned(), r#"spec.addr in body must be of type ipv4: "999.1.1.1""#.to_owned())]
    );
    assert!(check("ipv4", "010.1.1.1").is_empty(), "Kubernetes reads IPv4 sloppily");
    assert_eq!(
        check("date-time", "2024-01-02 03:04:05Z")[0].1,
        r#"spec.addr in body must be of type date-time: "2024-01-02 03:04:05Z""#
    );
    assert!(check("x-custom", "anything").is_empty(), "unknown formats are ignored");
    assert!(check("int32", "anything").is_empty());
}

#[test]
fn integers_with_base_prefixes_and_decimal_floats() {
    let Some(mut go) = Go::start("integers_with_base_prefixes_and_decimal_floats") else { return };
    let inputs = cases(
        &[
            "0",
            "00",
            "010",
            "08",
            "0x",
            "0x1F",
            "0X1f",
            "0o17",
            "0O17",
            "0b101",
            "0B2",
            "-0b101",
            "+12",
            "-",
            "+",
            "1_000",
            "_1",
            "1_",
            "1__0",
            "0x_1",
            "0_x1",
            "9223372036854775807",
            "9223372036854775808",
            "-9223372036854775808",
            "18446744073709551615",
            "18446744073709551616",
            "1.5",
            ".5",
            "5.",
            "1e3",
            "1E+3",
            "-.5e-3",
            "1e400",
            "1e-400",
            "+.5",
            ".",
            "e5",
            "1.5.5",
            "0x1p3",
        ],
        &["0x1F", "-0b101", "010", "1_000", "9223372036854775807", "-.5e-3", "12.5E+3"],
        "0123456789abcdefxXoObB_+-.eE",
        5000,
    );
    go.agree("strconv.ParseInt0", &inputs, Errors::Presence, |args| {
        kube_apigen::go::strconv::parse_int0(&args[0]).map(|n| json!(n.to_string())).ok_or_else(String::new)
    });
    go.agree("strconv.ParseUint0", &inputs, Errors::Presence, |args| {
        kube_apigen::go::strconv::parse_uint0(&args[0]).map(|n| json!(n.to_string())).ok_or_else(String::new)
    });
    // Decimal text only (what YAML 1.1 resolution hands to ParseFloat): no hex floats,
    // no inf or nan words, no underscores.
    let decimal: Vec<_> = inputs
        .into_iter()
        .filter(|args| args[0].bytes().all(|b| b.is_ascii_digit() || b".+-eE".contains(&b)))
        .collect();
    go.agree("strconv.ParseFloat", &decimal, Errors::Presence, |args| {
        kube_apigen::go::strconv::parse_decimal_float(&args[0]).map(|f| json!(go_g(f))).ok_or_else(String::new)
    });
}

/// Go's `strconv.FormatFloat(f, 'g', -1, 64)`: the shortest digits, in exponent form when
/// the exponent is below -4 or at least 6.
fn go_g(f: f64) -> String {
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let shortest = format!("{f:e}");
    let (mantissa, exponent) = shortest.split_once('e').unwrap();
    let exponent: i32 = exponent.parse().unwrap();
    if !(-4..6).contains(&exponent) {
        format!("{mantissa}e{}{:02}", if exponent < 0 { '-' } else { '+' }, exponent.abs())
    } else {
        format!("{f}")
    }
}

/// CEL's `isIP`, `isCIDR` and `isURL` (Kubernetes' libraries) against Go's
/// `netip.ParseAddr`, `netip.ParsePrefix` and `url.ParseRequestURI`, with Kubernetes'
/// own refusals on top: no zone, no IPv4-mapped IPv6 address.
#[test]
fn cel_ip_cidr_and_url_libraries() {
    let Some(mut go) = Go::start("cel_ip_cidr_and_url_libraries") else { return };
    let rule = |source: &str| kube_apigen::cel::CelRuleSpec::new(source).compile().unwrap();
    let (is_ip, is_cidr, is_url) = (rule("isIP(self)"), rule("isCIDR(self)"), rule("isURL(self)"));
    // Go's valid answers that Kubernetes refuses (a zone, an IPv4-mapped address) are
    // checked on their own; so are the groups of more than four digits Go 1.19 read.
    let kubernetes_address = |answer: &go::Answer| {
        answer.as_ref().map_or(true, |text| {
            let text = text.as_str().unwrap();
            let zone = text.contains('%');
            let ipv4_mapped = text.starts_with("::ffff:") && text.contains('.');
            !zone && !ipv4_mapped
        })
    };
    let older = go_minor(&go) < 22;
    let inputs: Vec<_> = ip_inputs().into_iter().filter(|args| !older || !long_ipv6_group(&args[0])).collect();
    let cel = |rule: &kube_apigen::cel::CelRule, text: &str| rule.evaluate(&json!(text), None) == Ok(true);
    // Go 1.19's ParsePrefix also read prefix lengths with leading zeros (`/08`), which
    // later Go and Kubernetes refuse.
    let bits_with_leading_zero = |text: &str| {
        text.rsplit_once('/')
            .is_some_and(|(_, bits)| bits.len() > 1 && !bits.starts_with(|c: char| ('1'..='9').contains(&c)))
    };
    for (function, rule) in [("netip.ParseAddr", &is_ip), ("netip.ParsePrefix", &is_cidr)] {
        let inputs: Vec<_> =
            inputs.iter().filter(|args| !older || !bits_with_leading_zero(&args[0])).cloned().collect();
        let go::Split { kept, others: refused } = go.partition(function, inputs, kubernetes_address);
        for (args, _) in &refused {
            assert!(!cel(rule, &args[0]), "{function}{args:?}: Kubernetes refuses it");
        }
        go.agree(
            function,
            &kept,
            Errors::Presence,
            |args| {
                if cel(rule, &args[0]) { Ok(go::ANY) } else { Err(String::new()) }
            },
        );
    }
    let urls = cases(
        &[
            "https://example.com",
            "https://example.com#x",
            "*",
            "/path",
            "path",
            "",
            "http://[::1]:80/",
            "http://[x]/",
            "http://a b/",
            "http://%zz/",
            "mailto:a@b",
            "http://example.com:port/",
            "http://user:p@ss@host/",
            "HTTPS://Example.com/%41",
            "http://[fe80::1%25eth0]/",
            "1http://x",
            ":foo",
        ],
        &["https://user:pw@example.com:8443/a/b?c=d#e", "http://[::1]/x", "/a%20b"],
        ":/?#[]@%!$&'()*+,;=aZ09 -._~",
        3000,
    );
    // Go 1.24.8 and later take a bracketed host only when it is an IPv6 address
    // (`http://[x]/` is refused), as Kubernetes' CEL library does; Go 1.19 took anything.
    let urls: Vec<_> = urls.into_iter().filter(|args| go_minor(&go) >= 25 || !args[0].contains('[')).collect();
    go.agree("url.ParseRequestURI", &urls, Errors::Presence, |args| {
        if cel(&is_url, &args[0]) { Ok(go::ANY) } else { Err(String::new()) }
    });
}

/// Strings as Go's `%q` quotes them in messages: escapes, control and non-ASCII characters.
#[test]
fn strings_quoted_as_go_quotes_them() {
    let Some(mut go) = Go::start("strings_quoted_as_go_quotes_them") else { return };
    let mut rng = fastrand::Rng::with_seed(113);
    let alphabet: Vec<char> =
        "aZ09 \"\\'\t\n\r\u{0}\u{7}\u{1b}\u{7f}\u{80}\u{a0}é€\u{200b}\u{feff}\u{fffd}😀\u{10ffff}\u{e000}"
            .chars()
            .collect();
    let mut inputs: Vec<Vec<String>> = ["", "plain", "say \"hi\"", "tab\there", "\u{0}", "👍🏽", "\u{2028}"]
        .iter()
        .map(|s| vec![(*s).to_owned()])
        .collect();
    inputs.extend((0..4000).map(|_| {
        let len = rng.usize(0..12);
        vec![(0..len).map(|_| alphabet[rng.usize(..alphabet.len())]).collect()]
    }));
    go.agree("fmt.q", &inputs, Errors::Exact, |args| Ok(json!(kube_apigen::go::fmt::quote(&args[0]))));
}

/// Values as Go's `%v` prints them, and as its `encoding/json` writes them: floats around
/// both exponent thresholds (1e+06 for `%v`, 1e21 for JSON), negative zero, integers at
/// the int64 limits, nested maps and lists.
#[test]
fn values_printed_as_go_prints_them() {
    let Some(mut go) = Go::start("values_printed_as_go_prints_them") else { return };
    let mut rng = fastrand::Rng::with_seed(1_000_000);
    let mut inputs: Vec<Vec<String>> = [
        "0",
        "-0.0",
        "1",
        "1.5",
        "999999",
        "1000000",
        "1e6",
        "1234567.0",
        "0.0001",
        "0.00001",
        "1e20",
        "1e21",
        "123456789012345678",
        "9223372036854775807",
        "-9223372036854775808",
        "9223372036854775808",
        "1e308",
        "\"text\"",
        "true",
        "null",
        "[]",
        "{}",
        "[1, \"a\", null, [2.5]]",
        "{\"b\": 1, \"a\": {\"c\": [true]}}",
    ]
    .iter()
    .map(|s| vec![(*s).to_owned()])
    .collect();
    inputs.extend((0..3000).map(|_| {
        let exponent = rng.i32(-8..=24);
        let value = rng.f64() * 10f64.powi(exponent) * if rng.bool() { 1.0 } else { -1.0 };
        vec![serde_json::Value::from(value).to_string()]
    }));
    let value = |text: &str| serde_json::from_str::<serde_json::Value>(text).expect("JSON input");
    go.agree("fmt.v", &inputs, Errors::Exact, |args| Ok(json!(kube_apigen::go::fmt::v(&value(&args[0])))));
    go.agree("json.Marshal", &inputs, Errors::Exact, |args| Ok(json!(kube_apigen::go::fmt::json(&value(&args[0])))));
}
