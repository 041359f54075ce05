//! The `Accept` request header (RFC 9110, section 12.5.1), read one way by every endpoint
//! that negotiates: resources (`negotiate`), aggregated discovery, `/openapi/v2` and the
//! `/openapi/v3` documents.
//!
//! - The header is the request's first `Accept` line, as kube-apiserver reads it. An
//!   absent or blank one, or one that is not UTF-8, accepts anything, as `*/*` does.
//! - Media ranges are separated by commas outside quoted strings; empty elements are
//!   skipped. A range is `type/subtype`, `type/*` or `*/*`, compared without regard to
//!   case; a lone `*` is read as `*/*`, as kube-apiserver reads it. A range without `/`,
//!   with an empty type or subtype, or with a wildcard type before a concrete subtype
//!   (`*/json`) is malformed and skipped. Types and subtypes are not held to RFC 9110's
//!   token characters: kubectl asks for
//!   `application/com.github.proto-openapi.spec.v2@v1.0+protobuf`.
//! - Parameters follow the media type as `;name=value`, whitespace allowed around `;` and
//!   `=`. Names are matched without regard to case, values as sent; a quoted value is
//!   unquoted and its `\` escapes resolved. A parameter without `=` is ignored; of a
//!   repeated name the last counts (kube-apiserver keeps the parameters in a map).
//! - `q`, wherever it stands among the parameters, is the weight: 0 to 1 with at most three
//!   decimals. `q=0` refuses the range, and no endpoint here answers with a refused range
//!   (kube-apiserver only ranks it last). A malformed `q` (`q=2`, `q=0.0001`, `q=.5`,
//!   `q=high`) ranks the range below every well-formed weight without refusing it:
//!   kube-apiserver reads such a `q` as 0, so ranks the range last, and the client did not
//!   ask for a refusal.
//! - Preference: the higher weight, then `type/subtype` before `type/*` before `*/*`, then
//!   the range sent first.

use std::borrow::Cow;

use axum::http::{HeaderMap, header};

/// The `Accept` header of a request, `*/*` when it has none (see the module docs).
pub(crate) fn header(headers: &HeaderMap) -> &str {
    headers
        .get(header::ACCEPT)
        .and_then(|value| std::str::from_utf8(value.as_bytes()).ok())
        .map(|value| value.trim_matches(is_whitespace))
        .filter(|value| !value.is_empty())
        .unwrap_or("*/*")
}

/// The well-formed media ranges of an `Accept` header that are not refused (`q=0`), in the
/// order sent.
pub(crate) fn ranges(accept: &str) -> impl Iterator<Item = MediaRange<'_>> {
    split_unquoted(accept, b',').filter_map(MediaRange::parse).filter(|range| range.quality != Quality::Refused)
}

/// What `pick` makes of the most preferred range of `accept` it makes something of.
pub(crate) fn most_preferred<T>(accept: &str, pick: impl Fn(&MediaRange<'_>) -> Option<T>) -> Option<T> {
    let mut best = MostPreferred::new();
    for range in ranges(accept) {
        best.offer(&range, &pick);
    }
    best.into_inner()
}

/// The most preferred of the ranges offered to it that something is made of, for callers
/// that look for more than one thing in a single pass over the header.
pub(crate) struct MostPreferred<T> {
    best: Option<((Quality, u8), T)>,
}

impl<T> MostPreferred<T> {
    pub(crate) fn new() -> Self {
        MostPreferred { best: None }
    }

    /// Considers `range`, made into a `T` by `pick` (`None`: nothing to make of it).
    pub(crate) fn offer(&mut self, range: &MediaRange<'_>, pick: impl FnOnce(&MediaRange<'_>) -> Option<T>) {
        let rank = (range.quality, range.specificity());
        let better = self.best.as_ref().is_none_or(|(best, _)| rank > *best);
        if better && let Some(picked) = pick(range) {
            self.best = Some((rank, picked));
        }
    }

    pub(crate) fn into_inner(self) -> Option<T> {
        self.best.map(|(_, picked)| picked)
    }
}

/// How much a client wants a media range (RFC 9110's weight), from refused to most wanted.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Quality {
    /// `q=0`: not acceptable.
    Refused,
    /// A `q` that is no weight: below every weight, yet acceptable.
    Malformed,
    /// A weight from 0.001 to 1, in thousandths; 1000 when the range has no `q`.
    Thousandths(u16),
}

impl Quality {
    fn of(q: &str) -> Quality {
        match thousandths(q) {
            Some(0) => Quality::Refused,
            Some(weight) => Quality::Thousandths(weight),
            None => Quality::Malformed,
        }
    }
}

/// RFC 9110's `qvalue` in thousandths: `0` or `1`, optionally followed by `.` and up to
/// three digits (zeros only after `1`).
fn thousandths(q: &str) -> Option<u16> {
    let (units, decimals) = q.split_once('.').unwrap_or((q, ""));
    if decimals.len() > 3 || !decimals.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let digits = decimals.as_bytes();
    let fraction = (0..3).fold(0, |value, i| value * 10 + digits.get(i).map_or(0, |digit| u16::from(digit - b'0')));
    match (units, fraction) {
        ("0", _) => Some(fraction),
        ("1", 0) => Some(1000),
        _ => None,
    }
}

/// One media range of an `Accept` header, borrowed from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MediaRange<'a> {
    type_: &'a str,
    subtype: &'a str,
    /// The `;`-separated parameters after the media type, as sent (the weight among them).
    params: &'a str,
    quality: Quality,
}

impl<'a> MediaRange<'a> {
    /// One element of the header; `None` when it is no media range.
    fn parse(element: &'a str) -> Option<MediaRange<'a>> {
        let (media_type, params) = element.split_once(';').unwrap_or((element, ""));
        let media_type = media_type.trim_matches(is_whitespace);
        let (type_, subtype) = match media_type.split_once('/') {
            Some((type_, subtype)) => (type_.trim_matches(is_whitespace), subtype.trim_matches(is_whitespace)),
            None if media_type == "*" => ("*", "*"),
            None => return None,
        };
        let well_formed =
            !type_.is_empty() && !subtype.is_empty() && !subtype.contains('/') && (type_ != "*" || subtype == "*");
        if !well_formed {
            return None;
        }
        let range = MediaRange { type_, subtype, params, quality: Quality::Thousandths(1000) };
        let quality = range.param("q").map_or(range.quality, |q| Quality::of(&q));
        Some(MediaRange { quality, ..range })
    }

    /// Whether the range admits `media_type` (`type/subtype`): it names it, or its type
    /// with `/*`, or is `*/*`.
    pub(crate) fn admits(&self, media_type: &str) -> bool {
        let (type_, subtype) = media_type.split_once('/').unwrap_or((media_type, ""));
        (self.type_ == "*" || self.type_.eq_ignore_ascii_case(type_))
            && (self.subtype == "*" || self.subtype.eq_ignore_ascii_case(subtype))
    }

    /// 2 for `type/subtype`, 1 for `type/*`, 0 for `*/*`.
    fn specificity(&self) -> u8 {
        u8::from(self.type_ != "*") + u8::from(self.subtype != "*")
    }

    /// The value of the parameter `name`, the last one when it repeats.
    fn param(&self, name: &str) -> Option<Cow<'a, str>> {
        split_unquoted(self.params, b';')
            .filter_map(|param| param.split_once('='))
            .filter(|(param_name, _)| param_name.trim_matches(is_whitespace).eq_ignore_ascii_case(name))
            .last()
            .map(|(_, value)| unquote(value.trim_matches(is_whitespace)))
    }

    /// The conversion the range asks for with any of Kubernetes' parameters `g`, `v` and
    /// `as`; `None` when it has none of them.
    pub(crate) fn conversion(&self) -> Option<Conversion<'a>> {
        let (group, version, kind) = (self.param("g"), self.param("v"), self.param("as"));
        (group.is_some() || version.is_some() || kind.is_some()).then(|| Conversion {
            group: group.unwrap_or_default(),
            version: version.unwrap_or_default(),
            kind: kind.unwrap_or_default(),
        })
    }
}

/// The object a client asks to be answered with instead of the endpoint's own:
/// `;g=<group>;v=<version>;as=<kind>`, the parameters it leaves out empty (kube-apiserver
/// takes any of them as asking for a conversion).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Conversion<'a> {
    pub(crate) group: Cow<'a, str>,
    pub(crate) version: Cow<'a, str>,
    pub(crate) kind: Cow<'a, str>,
}

/// RFC 9110's optional whitespace.
fn is_whitespace(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// The pieces of `list` between the `separator`s that are not inside quoted strings.
fn split_unquoted(list: &str, separator: u8) -> impl Iterator<Item = &str> {
    let mut rest = Some(list);
    std::iter::from_fn(move || {
        let text = rest?;
        let (mut quoted, mut escaped) = (false, false);
        let end = text.bytes().position(|byte| {
            let at_separator = !quoted && byte == separator;
            if escaped {
                escaped = false;
            } else if quoted && byte == b'\\' {
                escaped = true;
            } else if byte == b'"' {
                quoted = !quoted;
            }
            at_separator
        });
        // The separator is ASCII: the byte after it starts a character.
        rest = end.map(|end| &text[end + 1..]);
        Some(end.map_or(text, |end| &text[..end]))
    })
}

/// A parameter value as meant: a quoted string without its quotes and with its escapes
/// resolved, a token as it is.
fn unquote(value: &str) -> Cow<'_, str> {
    let Some(quoted) = value.strip_prefix('"').and_then(|value| value.strip_suffix('"')) else {
        return Cow::Borrowed(value);
    };
    if !quoted.contains('\\') {
        return Cow::Borrowed(quoted);
    }
    let mut unescaped = String::with_capacity(quoted.len());
    let mut chars = quoted.chars();
    while let Some(c) = chars.next() {
        unescaped.push(if c == '\\' { chars.next().unwrap_or(c) } else { c });
    }
    Cow::Owned(unescaped)
}

#[cfg(test)]
mod tests {
    use axum::http::HeaderValue;

    use super::*;

    /// A range as the tests spell it: type, subtype, quality.
    type Parsed<'a> = (&'a str, &'a str, Quality);

    fn parsed(accept: &str) -> Vec<Parsed<'_>> {
        split_unquoted(accept, b',')
            .filter_map(MediaRange::parse)
            .map(|range| (range.type_, range.subtype, range.quality))
            .collect()
    }

    const fn q(thousandths: u16) -> Quality {
        Quality::Thousandths(thousandths)
    }

    const ONE: Quality = q(1000);

    #[test]
    fn media_ranges() {
        let cases: &[(&str, &[Parsed<'_>])] = &[
            ("application/json", &[("application", "json", ONE)]),
            ("application/json, */*", &[("application", "json", ONE), ("*", "*", ONE)]),
            ("*", &[("*", "*", ONE)]),
            ("application/*;q=0.5", &[("application", "*", q(500))]),
            ("Application/JSON", &[("Application", "JSON", ONE)]),
            (" \tapplication / yaml\t ,, ,text/html ", &[("application", "yaml", ONE), ("text", "html", ONE)]),
            (
                "application/com.github.proto-openapi.spec.v2@v1.0+protobuf",
                &[("application", "com.github.proto-openapi.spec.v2@v1.0+protobuf", ONE)],
            ),
            // Malformed ranges are skipped, the others kept.
            ("application, */json, /json, application/, a/b/c, text/plain", &[("text", "plain", ONE)]),
            ("", &[]),
            // A comma inside a quoted string separates nothing.
            (
                r#"text/plain;x="a, b\", c";q=0.3, application/json"#,
                &[("text", "plain", q(300)), ("application", "json", ONE)],
            ),
        ];
        for (accept, expected) in cases {
            assert_eq!(parsed(accept), *expected, "{accept}");
        }
    }

    #[test]
    fn weights() {
        let cases: &[(&str, Quality)] = &[
            ("a/b", ONE),
            ("a/b;q=1", ONE),
            ("a/b;q=1.000", ONE),
            ("a/b;q=1.", ONE),
            ("a/b;q=0.5", q(500)),
            ("a/b;q=0.05", q(50)),
            ("a/b;q=0.001", q(1)),
            ("a/b ; Q = 0.7 ", q(700)),
            ("a/b;q=\"0.7\"", q(700)),
            ("a/b;q=0", Quality::Refused),
            ("a/b;q=0.000", Quality::Refused),
            ("a/b;q=0.9;q=0", Quality::Refused),
            ("a/b;q=0;q=0.9", q(900)),
            ("a/b;q=0.2;x=1", q(200)),
            ("a/b;q=1.5", Quality::Malformed),
            ("a/b;q=1.001", Quality::Malformed),
            ("a/b;q=2", Quality::Malformed),
            ("a/b;q=-0.5", Quality::Malformed),
            ("a/b;q=0.0001", Quality::Malformed),
            ("a/b;q=.5", Quality::Malformed),
            ("a/b;q=0.5x", Quality::Malformed),
            ("a/b;q=high", Quality::Malformed),
            ("a/b;q=", Quality::Malformed),
            ("a/b;q", ONE),
        ];
        for (accept, expected) in cases {
            assert_eq!(parsed(accept), [("a", "b", *expected)], "{accept}");
        }
        assert!(q(1) > Quality::Malformed && Quality::Malformed > Quality::Refused);
        assert_eq!(ranges("a/b;q=0, c/d;q=x, e/f").count(), 2, "refusals are left out");
    }

    #[test]
    fn parameters() {
        let range = |accept| MediaRange::parse(accept).expect("a media range");
        let table = range("application/json ; AS=Table;v=v1 ;g = meta.k8s.io;pretty");
        assert_eq!(table.param("as").as_deref(), Some("Table"));
        assert_eq!(table.param("G").as_deref(), Some("meta.k8s.io"));
        assert_eq!(table.param("pretty"), None, "no value, no parameter");
        assert_eq!(table.param("q"), None);
        assert_eq!(
            table.conversion(),
            Some(Conversion { group: "meta.k8s.io".into(), version: "v1".into(), kind: "Table".into() })
        );
        let quoted = range(r#"a/b;g="x\"y\\z";v="v;1";v=v2"#);
        assert_eq!(quoted.param("g").as_deref(), Some(r#"x"y\z"#));
        assert_eq!(quoted.param("v").as_deref(), Some("v2"), "the last of a repeated name");
        assert_eq!(quoted.conversion().map(|c| c.kind), Some("".into()), "missing parameters are empty");
        assert_eq!(range("a/b;stream=watch;q=0.5").conversion(), None);
        assert_eq!(range(r#"a/b;v="v;1""#).param("v").as_deref(), Some("v;1"));
    }

    #[test]
    fn matching_and_preference() {
        let range = |accept| MediaRange::parse(accept).expect("a media range");
        assert!(range("application/json").admits("application/json"));
        assert!(range("APPLICATION/Json").admits("application/json"));
        assert!(range("application/*").admits("application/yaml"));
        assert!(range("*/*").admits("text/html"));
        assert!(!range("application/json").admits("application/yaml"));
        assert!(!range("text/*").admits("application/json"));

        let first = |accept| most_preferred(accept, |range: &MediaRange<'_>| Some(range.subtype.to_owned()));
        assert_eq!(first("a/x;q=0.5, a/y;q=0.9"), Some("y".into()), "higher weight");
        assert_eq!(first("*/*, a/*, a/y"), Some("y".into()), "exact before type/* before */*");
        assert_eq!(first("*/*, a/*"), Some("*".into()));
        assert_eq!(first("a/x, a/y"), Some("x".into()), "the first of equals");
        assert_eq!(first("a/x;q=high, a/y;q=0.001"), Some("y".into()), "a malformed q ranks last");
        assert_eq!(first("a/x;q=high"), Some("x".into()), "a malformed q is no refusal");
        assert_eq!(first("a/x;q=0"), None, "q=0 is");
        let json = |accept| most_preferred(accept, |range: &MediaRange<'_>| range.admits("a/json").then_some(()));
        assert_eq!(json("a/yaml;q=1, a/*;q=0.1"), Some(()), "passed over what it makes nothing of");
        assert_eq!(json("a/yaml"), None);
    }

    #[test]
    fn the_header() {
        let mut headers = HeaderMap::new();
        assert_eq!(header(&headers), "*/*", "absent");
        headers.insert(header::ACCEPT, HeaderValue::from_static("  "));
        assert_eq!(header(&headers), "*/*", "blank");
        headers.insert(header::ACCEPT, HeaderValue::from_bytes(b"a/\xff").expect("a header value"));
        assert_eq!(header(&headers), "*/*", "not UTF-8");
        headers.insert(header::ACCEPT, HeaderValue::from_static(" application/yaml "));
        headers.append(header::ACCEPT, HeaderValue::from_static("application/json"));
        assert_eq!(header(&headers), "application/yaml", "the first line");
    }
}
