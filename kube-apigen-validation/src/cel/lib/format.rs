//! Kubernetes' format library: `format.<name>()`, `format.named(name)` and
//! `<format>.validate(string)`, which gives `optional.none()` for a valid string and
//! `optional.of([errors...])` otherwise, with the API server's messages.
//!
//! The name formats use the checks of [`crate::meta`];
//! `uri` is Go's `url.ParseRequestURI` (as `isURL`); `uuid`, `byte`, `date` and
//! `datetime` follow kube-openapi's `strfmt` (a UUID with optional dashes, padded
//! standard base64 with line breaks ignored, `YYYY-MM-DD` calendar dates, RFC 3339
//! date-times as its `IsDateTime` matches them).

use std::any::Any;
use std::borrow::Cow;
use std::sync::LazyLock;

use cel::common::functions::Function;
use cel::common::types::{CelList, CelOptional, CelString, STRING_TYPE, Type};
use cel::common::value::{CowVal, StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::{Args, Returns, args, string_arg};
use crate::meta::{self, NameRule};

/// `kubernetes.NamedFormat`.
static FORMAT_TYPE: LazyLock<Type> = LazyLock::new(|| Type::new_opaque_type("kubernetes.NamedFormat"));

/// A `kubernetes.NamedFormat` value: an index in [`FORMATS`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NamedFormat(usize);

impl Val for NamedFormat {
    fn get_type(&self) -> &Type {
        &FORMAT_TYPE
    }

    fn cel_type() -> &'static Type {
        &FORMAT_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<NamedFormat>() == Some(self)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(*self)
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for NamedFormat {}

type Check = fn(&str) -> Vec<String>;

/// The named formats, by the name `format.named` takes (and `format.<name>()` spells).
const FORMATS: [(&str, Check); 13] = [
    ("dns1123Label", |s| owned(NameRule::Dns1123Label.check(s, false))),
    ("dns1123Subdomain", |s| owned(NameRule::Dns1123Subdomain.check(s, false))),
    ("dns1035Label", |s| owned(meta::is_dns1035_label(s))),
    ("qualifiedName", |s| owned(meta::is_qualified_name(s))),
    ("dns1123LabelPrefix", |s| owned(NameRule::Dns1123Label.check(s, true))),
    ("dns1123SubdomainPrefix", |s| owned(NameRule::Dns1123Subdomain.check(s, true))),
    ("dns1035LabelPrefix", |s| owned(meta::is_dns1035_label(&mask_trailing_dash(s)))),
    ("labelValue", |s| owned(meta::is_valid_label_value(s))),
    ("uri", |s| super::url::parse_request_uri(s).err().into_iter().collect()),
    ("uuid", |s| failure(is_uuid(s), "does not match the UUID format")),
    ("byte", |s| failure(kube_apigen_core::go::base64::decode(s).is_ok(), "invalid base64")),
    ("date", |s| failure(is_date(s), "invalid date")),
    ("datetime", |s| failure(is_date_time(s), "invalid datetime")),
];

/// `format.<name>()` for each of [`FORMATS`], in order.
const CONSTRUCTORS: [Function; 13] = [
    constant::<0>,
    constant::<1>,
    constant::<2>,
    constant::<3>,
    constant::<4>,
    constant::<5>,
    constant::<6>,
    constant::<7>,
    constant::<8>,
    constant::<9>,
    constant::<10>,
    constant::<11>,
    constant::<12>,
];

fn owned(messages: Vec<Cow<'static, str>>) -> Vec<String> {
    messages.into_iter().map(Cow::into_owned).collect()
}

fn failure(valid: bool, message: &str) -> Vec<String> {
    if valid { Vec::new() } else { vec![message.to_owned()] }
}

/// `maskTrailingDash`: a name ending in `-` (longer than one byte) has its last two bytes
/// replaced by `a`, as Kubernetes checks a `generateName` prefix.
fn mask_trailing_dash(name: &str) -> Cow<'_, str> {
    if name.len() > 1 && name.ends_with('-') {
        let mut masked = name.as_bytes()[..name.len() - 2].to_vec();
        masked.push(b'a');
        Cow::Owned(String::from_utf8_lossy(&masked).into_owned())
    } else {
        Cow::Borrowed(name)
    }
}

/// `(?i)^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$`.
fn is_uuid(s: &str) -> bool {
    let mut rest = s.as_bytes();
    for (i, len) in [8, 4, 4, 4, 12].into_iter().enumerate() {
        if rest.len() < len || !rest[..len].iter().all(u8::is_ascii_hexdigit) {
            return false;
        }
        rest = &rest[len..];
        if i < 4 && rest.first() == Some(&b'-') {
            rest = &rest[1..];
        }
    }
    rest.is_empty()
}

fn digits(s: &[u8]) -> Option<u32> {
    s.iter().try_fold(0u32, |acc, b| b.is_ascii_digit().then(|| acc * 10 + u32::from(b - b'0')))
}

/// `YYYY-MM-DD`, a day of the Gregorian calendar (Go's `time.Parse("2006-01-02", s)`).
fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(year), Some(month), Some(day)) = (digits(&b[..4]), digits(&b[5..7]), digits(&b[8..])) else {
        return false;
    };
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&day)
}

/// strfmt's `IsDateTime`: a date, `T` (either case), then
/// `^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$` (case
/// folded) with hours to 23, minutes and seconds to 59.
fn is_date_time(s: &str) -> bool {
    if s.len() < 4 {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    let mut parts = lower.split('t');
    let (Some(date), Some(time)) = (parts.next(), parts.next()) else {
        return false;
    };
    if !is_date(date) {
        return false;
    }
    let t = time.as_bytes();
    let two = |at: usize| t.get(at..at + 2).and_then(digits);
    let (Some(hour), Some(minute), Some(second)) = (two(0), two(3), two(6)) else {
        return false;
    };
    if t.get(2) != Some(&b':') || t.get(5) != Some(&b':') {
        return false;
    }
    let zone_matches = |z: &[u8]| {
        z == b"z"
            || (z.len() == 6
                && matches!(z[0], b'+' | b'-')
                && z[1..3].iter().all(u8::is_ascii_digit)
                && z[3] == b':'
                && z[4..].iter().all(u8::is_ascii_digit))
    };
    let rest = &time[8..];
    if !zone_matches(rest.as_bytes()) {
        // `(.[0-9]+)`: any character but a newline, then digits. The zone starts with
        // `z`, `+` or `-`, never a digit, so only the longest run of digits can be
        // followed by it.
        let mut chars = rest.chars();
        if chars.next().is_none_or(|c| c == '\n') {
            return false;
        }
        let after = chars.as_str().as_bytes();
        let fraction = after.iter().take_while(|b| b.is_ascii_digit()).count();
        if fraction == 0 || !zone_matches(&after[fraction..]) {
            return false;
        }
    }
    hour <= 23 && minute <= 59 && second <= 59
}

// ---- The CEL functions ----

/// Registers the library.
pub(super) fn library(env: &mut Env) -> Result<(), DeclarationError> {
    let format = || (*FORMAT_TYPE).to_owned();
    env.add_type(format())?;
    for ((name, _), constructor) in FORMATS.iter().zip(CONSTRUCTORS) {
        let function = format!("format.{name}");
        env.add_overload(&function, &function, vec![], constructor)?;
    }
    env.add_overload("format.named", "format-named", vec![STRING_TYPE], named)?;
    env.add_member_overload("validate", "format-validate", format(), vec![STRING_TYPE], validate)?;
    Ok(())
}

fn constant<'b, 'v, const INDEX: usize>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [] = args(a)?;
    Ok(CowVal::owned(NamedFormat(INDEX)))
}

fn named<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [name] = args(a)?;
    let name = string_arg("format.named", name.as_ref())?;
    let found = FORMATS.iter().position(|(n, _)| *n == name);
    Ok(CowVal::owned(match found {
        Some(index) => CelOptional::of(Box::new(NamedFormat(index))),
        None => CelOptional::none(),
    }))
}

fn validate<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [format, text] = args(a)?;
    let NamedFormat(index) = *format
        .downcast_ref::<NamedFormat>()
        .ok_or_else(|| ExecutionError::no_such_overload("validate", vec![format.get_type().name().to_owned()]))?;
    let errors = (FORMATS[index].1)(string_arg("validate", text.as_ref())?);
    Ok(CowVal::owned(if errors.is_empty() {
        CelOptional::none()
    } else {
        let list: Vec<Box<dyn Val + 'v>> =
            errors.into_iter().map(|e| Box::new(CelString::from(e)) as Box<dyn Val + 'v>).collect();
        CelOptional::of(Box::new(CelList::from(list)))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(name: &str, value: &str) -> Vec<String> {
        let (_, check) = FORMATS.iter().find(|(n, _)| *n == name).unwrap();
        check(value)
    }

    #[test]
    fn kubernetes_examples_are_valid() {
        for (name, value) in [
            ("dns1123Label", "my-label-name"),
            ("dns1123Subdomain", "apiextensions.k8s.io"),
            ("dns1035Label", "my-label-name"),
            ("qualifiedName", "apiextensions.k8s.io/v1beta1"),
            ("qualifiedName", "my.name"),
            ("dns1123LabelPrefix", "my-label-prefix-"),
            ("dns1123SubdomainPrefix", "mysubdomain.prefix.-"),
            ("dns1035LabelPrefix", "my-label-prefix-"),
            ("labelValue", "my-cool-label-Value"),
            ("labelValue", ""),
            ("uri", "http://example.com"),
            ("uuid", "123e4567-e89b-12d3-a456-426614174000"),
            ("uuid", "123E4567E89B12D3A456426614174000"),
            ("byte", "aGVsbG8="),
            ("byte", ""),
            ("byte", "aGVs\nbG8="),
            ("date", "2021-01-01"),
            ("date", "2024-02-29"),
            ("datetime", "2021-01-01T00:00:00Z"),
            ("datetime", "2021-01-01t23:59:59.123+05:30"),
        ] {
            assert_eq!(check(name, value), Vec::<String>::new(), "{name} {value:?}");
        }
    }

    #[test]
    fn kubernetes_messages() {
        assert_eq!(
            check("dns1123Label", "contains a space"),
            [
                "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
            ]
        );
        assert_eq!(
            check("dns1123Subdomain", "contains a space"),
            [
                "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
            ]
        );
        const DNS1035_LABEL_ERROR: &str = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
        assert_eq!(check("dns1035Label", "contains a space"), [DNS1035_LABEL_ERROR]);
        assert_eq!(check("dns1035Label", "1abc"), [DNS1035_LABEL_ERROR]);
        assert_eq!(check("dns1035LabelPrefix", "contains a space-"), [DNS1035_LABEL_ERROR]);
        assert_eq!(check("dns1035Label", &"a".repeat(64)), ["must be no more than 63 characters"]);
        assert_eq!(
            check("qualifiedName", "contains a space"),
            [
                "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
            ]
        );
        assert_eq!(check("dns1123LabelPrefix", "contains a space-"), check("dns1123Label", "contains a space"));
        assert_eq!(
            check("labelValue", "my-cool-label-Value!!\n\n!!!"),
            [
                "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')"
            ]
        );
        assert_eq!(check("uri", "../relative"), ["parse \"../relative\": invalid URI for request"]);
        assert_eq!(check("uuid", "123e4567-e89b-12d3-a456-42661417400"), ["does not match the UUID format"]);
        assert_eq!(check("byte", "aGVsbG8"), ["invalid base64"]);
        assert_eq!(check("date", "2020-01-32"), ["invalid date"]);
        assert_eq!(check("datetime", "2020-01-32T00:00:00Z"), ["invalid datetime"]);
    }

    #[test]
    fn strfmt_details() {
        for bad_uuid in [
            "",
            "123e4567-e89b-12d3-a456-4266141740000",
            "g23e4567-e89b-12d3-a456-426614174000",
            "123e4567--e89b-12d3-a456-426614174000",
        ] {
            assert!(!is_uuid(bad_uuid), "{bad_uuid}");
        }
        assert!(is_uuid("123e4567e89b-12d3a456-426614174000"));
        for bad_base64 in ["a", "a===", "ab=c", "====", "a b=", "aGVsbG8=="] {
            assert!(kube_apigen_core::go::base64::decode(bad_base64).is_err(), "{bad_base64}");
        }
        assert!(kube_apigen_core::go::base64::decode("aGVsbA==").is_ok());
        assert!(kube_apigen_core::go::base64::decode("aGVsbG9=").is_ok(), "trailing bits are not checked");
        for bad_date in [
            "2021-1-01",
            "2021-13-01",
            "2021-00-10",
            "2021-02-29",
            "1900-02-29",
            "20210101",
            "2021-01-01 ",
            "+021-01-01",
        ] {
            assert!(!is_date(bad_date), "{bad_date}");
        }
        assert!(is_date("2000-02-29"));
        assert!(is_date("0000-01-01"));
        for bad in [
            "2021-01-01",
            "2021-01-01T",
            "2021-01-01T24:00:00Z",
            "2021-01-01T00:60:00Z",
            "2021-01-01T00:00:60Z",
            "2021-01-01T00:00:00",
            "2021-01-01T00:00:00+0100",
            "2021-01-01T00:00:00.Z",
            "2021-01-01 00:00:00Z",
        ] {
            assert!(!is_date_time(bad), "{bad}");
        }
        for good in [
            "2021-01-01T00:00:00z",
            "2021-01-01T00:00:00-23:59",
            "2021-01-01T00:00:00,5Z",
            "2021-01-01T12:00:00.000000001+99:99",
        ] {
            assert!(is_date_time(good), "{good}");
        }
        assert_eq!(mask_trailing_dash("abc-"), "aba");
        assert_eq!(mask_trailing_dash("-"), "-");
        assert_eq!(mask_trailing_dash("ab"), "ab");
    }
}
