//! The `format` of a custom resource's string, checked as apiextensions-apiserver checks
//! it: its list of formats (names compared without `-`, so `date-time` is `datetime`),
//! each with the check kube-openapi registers for it, and unknown formats ignored.
//!
//! The checks are Go's where Go's standard library decides (`net.ParseIP`,
//! `net.ParseMAC`, `time.Parse`, `time.ParseDuration`, through [`crate::go`]) and
//! kube-openapi's own elsewhere (regular expressions, read as Go reads them, and
//! checksums). Not checked here, though the API server checks them: `uri`
//! (`url.ParseRequestURI`) and `email` (`net/mail.ParseAddress`).

use std::sync::LazyLock;

use regex::Regex;

use crate::go::net::{Strictness, parse_cidr, parse_ip, parse_mac};

/// Whether `value` is valid for `format`, as the API server validates a custom
/// resource's string; `None` when the server does not check that format (an unknown one,
/// or `uri` and `email`, see the module).
pub fn check(format: &str, value: &str) -> Option<bool> {
    let valid = match format.replace('-', "").as_str() {
        "bsonobjectid" => value.len() == 24 && value.bytes().all(|b| b.is_ascii_hexdigit()),
        "hostname" => is_hostname(value),
        // IPv4 as Kubernetes' `ParseIPSloppy` reads it (leading zeros allowed), with a dot:
        // `::ffff:1.2.3.4` passes too.
        "ipv4" => parse_ip(value, Strictness::Sloppy).is_some() && value.contains('.'),
        "ipv6" => parse_ip(value, Strictness::Strict).is_some() && value.contains(':'),
        "cidr" => parse_cidr(value, Strictness::Sloppy).is_some(),
        "mac" => parse_mac(value).is_some(),
        "uuid" => matches(&UUID, value),
        "uuid3" => matches(&UUID3, value),
        "uuid4" => matches(&UUID4, value),
        "uuid5" => matches(&UUID5, value),
        "isbn" => is_isbn10(value) || is_isbn13(value),
        "isbn10" => is_isbn10(value),
        "isbn13" => is_isbn13(value),
        "creditcard" => is_credit_card(value),
        "ssn" => value.len() == 11 && matches(&SSN, value),
        "hexcolor" => matches(&HEX_COLOR, value),
        "rgbcolor" => matches(&RGB_COLOR, value),
        "byte" => matches(&BASE64, value),
        "password" => true,
        "date" => kube_apigen_core::wire::is_date(value),
        "datetime" => is_date_time(value),
        "duration" => is_duration(value),
        _ => return None,
    };
    Some(valid)
}

/// The API server's message for a value its format refuses, after the path:
/// `spec.addr in body must be of type ipv4: "999.1.1.1"`.
pub fn message(path: &str, format: &str, value: &str) -> String {
    format!("{path} in body must be of type {format}: {}", kube_apigen_core::go::fmt::quote(value))
}

fn go_regex(pattern: &str) -> Regex {
    crate::go::regexp::compile(pattern).expect("a valid built-in pattern")
}

fn matches(regex: &LazyLock<Regex>, value: &str) -> bool {
    regex.is_match(value)
}

static HOSTNAME: LazyLock<Regex> = LazyLock::new(|| {
    go_regex(
        r"^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$",
    )
});
static UUID: LazyLock<Regex> =
    LazyLock::new(|| go_regex(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID3: LazyLock<Regex> =
    LazyLock::new(|| go_regex(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$"));
static UUID4: LazyLock<Regex> =
    LazyLock::new(|| go_regex(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"));
static UUID5: LazyLock<Regex> =
    LazyLock::new(|| go_regex(r"(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$"));
static SSN: LazyLock<Regex> = LazyLock::new(|| go_regex(r"^\d{3}[- ]?\d{2}[- ]?\d{4}$"));
static HEX_COLOR: LazyLock<Regex> = LazyLock::new(|| go_regex(r"^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$"));
static RGB_COLOR: LazyLock<Regex> = LazyLock::new(|| {
    go_regex(
        r"^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$",
    )
});
/// kube-openapi checks `byte` with a pattern, not Go's decoder: no line breaks, and at
/// least one group of four.
static BASE64: LazyLock<Regex> =
    LazyLock::new(|| go_regex(r"^(?:[A-Za-z0-9+\/]{4})*(?:[A-Za-z0-9+\/]{2}==|[A-Za-z0-9+\/]{3}=|[A-Za-z0-9+\/]{4})$"));
static CREDIT_CARD: LazyLock<Regex> = LazyLock::new(|| {
    go_regex(
        r"^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|(222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11}|6[27][0-9]{14})$",
    )
});
static DATE_TIME: LazyLock<Regex> =
    LazyLock::new(|| go_regex(r"^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$"));
static DURATION: LazyLock<Regex> = LazyLock::new(|| go_regex(r"^\s*(?:\d+\s*[A-Za-zµ]+\s*)+$"));
static DURATION_PART: LazyLock<Regex> = LazyLock::new(|| go_regex(r"(\d+)\s*([A-Za-zµ]+)"));

/// The hostname pattern, at most 255 bytes, labels of at most 63.
fn is_hostname(value: &str) -> bool {
    HOSTNAME.is_match(value) && value.len() <= 255 && value.split('.').all(|label| label.len() <= 63)
}

/// Digits once spaces (Go's `\s`) and `-` are removed.
fn isbn_digits(value: &str) -> Vec<u8> {
    value.bytes().filter(|b| !matches!(b, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ' | b'-')).collect()
}

fn is_isbn10(value: &str) -> bool {
    let digits = isbn_digits(value);
    let shape = digits.len() == 10
        && digits[..9].iter().all(u8::is_ascii_digit)
        && (digits[9].is_ascii_digit() || digits[9] == b'X');
    if !shape {
        return false;
    }
    let sum: u32 = digits
        .iter()
        .enumerate()
        .map(|(i, &d)| (i as u32 + 1) * if d == b'X' { 10 } else { u32::from(d - b'0') })
        .sum();
    sum.is_multiple_of(11)
}

fn is_isbn13(value: &str) -> bool {
    let digits = isbn_digits(value);
    if digits.len() != 13 || !digits.iter().all(u8::is_ascii_digit) {
        return false;
    }
    let sum: u32 =
        digits[..12].iter().enumerate().map(|(i, &d)| if i % 2 == 0 { 1 } else { 3 } * u32::from(d - b'0')).sum();
    u32::from(digits[12] - b'0') == (10 - sum % 10) % 10
}

/// The card pattern on the digits alone, and the Luhn checksum.
fn is_credit_card(value: &str) -> bool {
    let digits: String = value.chars().filter(char::is_ascii_digit).collect();
    if !CREDIT_CARD.is_match(&digits) {
        return false;
    }
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, d)| {
            let d = u32::from(d - b'0');
            if i % 2 == 1 { if d * 2 > 9 { d * 2 - 9 } else { d * 2 } } else { d }
        })
        .sum();
    sum.is_multiple_of(10)
}

/// kube-openapi's `IsDateTime`: lowercased and split at `t`, a `2006-01-02` date, then
/// `hh:mm:ss`, an optional fraction (after any character) and `z` or `±hh:mm`.
fn is_date_time(value: &str) -> bool {
    let lower = value.to_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if value.len() < 4 || !kube_apigen_core::wire::is_date(date) {
        return false;
    }
    DATE_TIME.captures(time).is_some_and(|m| &m[1] <= "23" && &m[2] <= "59" && &m[3] <= "59")
}

/// kube-openapi's `IsDuration`: Go's `time.ParseDuration`, or numbers with units such
/// as `3 days` or `1 hour 5min` (units compared without case; `nano`, `micro`, `milli`,
/// `sec`, `min`, `hour`, `day` and `week` also as prefixes).
fn is_duration(value: &str) -> bool {
    if crate::go::time::parse_duration(value).is_some() {
        return true;
    }
    if !DURATION.is_match(value) {
        return false;
    }
    const UNITS: &[&[&str]] = &[
        &["ns", "nano"],
        &["us", "µs", "micro"],
        &["ms", "milli"],
        &["s", "sec"],
        &["m", "min"],
        &["h", "hr", "hour"],
        &["d", "day"],
        &["w", "wk", "week"],
    ];
    let mut known = false;
    for part in DURATION_PART.captures_iter(value) {
        // Go's strconv.Atoi fails on numbers beyond 64 bits, and so does the check.
        if part[1].parse::<i64>().is_err() {
            return false;
        }
        let unit = part[2].to_lowercase();
        known |= UNITS.iter().any(|variants| {
            let last = variants.len() - 1;
            variants.iter().enumerate().any(|(i, v)| (i == last && unit.starts_with(v)) || unit.eq_ignore_ascii_case(v))
        });
    }
    known
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_the_api_server() {
        for (format, valid, invalid) in [
            ("ipv4", "010.1.1.1", "999.1.1.1"),
            ("ipv6", "::ffff:1.2.3.4", "1.2.3.4"),
            ("cidr", "10.0.0.1/08", "10.0.0.1/33"),
            ("mac", "00-00-5e-00-53-01", "00:00:5e:00:53"),
            ("hostname", "example.com", "-example.com"),
            ("uuid", "A987FBC9-4BED-3078-CF07-9141BA07C9F3", "a987fbc9-4bed-3078-cf07-9141ba07c9f"),
            ("isbn", "978-0321751041", "978-0321751042"),
            ("isbn10", "0321751043", "0321751044"),
            ("creditcard", "4111 1111 1111 1111", "4111 1111 1111 1112"),
            ("ssn", "123-45-6789", "123456789"),
            ("hexcolor", "#fff", "#ffff"),
            ("rgbcolor", "rgb(0, 255 ,10)", "rgb(256,0,0)"),
            ("byte", "aGVsbG9=", ""),
            ("date", "2024-02-29", "2023-02-29"),
            ("date-time", "2024-02-29t23:59:59Z", "2024-02-29T24:00:00Z"),
            ("datetime", "2024-02-29T23:59:59x5+01:00", "2024-02-29 23:59:59Z"),
            ("duration", "1h30m", "1x"),
            ("duration", "3 days 1 hour", "days"),
            ("bsonobjectid", "507f1f77bcf86cd799439011", "507f1f77bcf86cd79943901"),
        ] {
            assert_eq!(check(format, valid), Some(true), "{format}: {valid}");
            assert_eq!(check(format, invalid), Some(false), "{format}: {invalid}");
        }
        assert_eq!(check("password", ""), Some(true));
        assert_eq!(check("int32", "x"), None, "not a string format the server checks");
        assert_eq!(check("email", "x"), None, "not checked here");
        assert_eq!(message("spec.addr", "ipv4", "999.1.1.1"), r#"spec.addr in body must be of type ipv4: "999.1.1.1""#);
    }
}
