//! Kubernetes' URL library: `url`, `isURL` and the getters of `kubernetes.URL` values.
//!
//! Kubernetes checks a URL with Go's `url.ParseRequestURI` (an absolute URI, or an
//! absolute path) and takes its parts from `url.Parse`; this module follows both (Go's
//! `net/url`, not the WHATWG URL standard): nothing is normalized but the scheme's case,
//! `'https://example.com#x'` is no request URI (the fragment is part of the host there),
//! `'*'` is one, and percent-escapes are checked but only decoded where Go decodes them.
//! As in Go 1.24.8/1.25.2 and later, a bracketed host must be an IPv6 address (older API
//! servers accept any host there). Parts and query values whose escapes decode to bytes
//! that are not UTF-8 hold U+FFFD instead of those bytes.

use std::any::Any;
use std::collections::HashMap;
use std::sync::LazyLock;

use cel::common::types::{CelBool, CelList, CelMap, CelMapKey, CelString, STRING_TYPE, Type};
use cel::common::value::{CowVal, StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::{Args, Returns, args, k8s_error, string_arg};
use kube_apigen_core::go::fmt as gofmt;

/// `kubernetes.URL`.
static URL_TYPE: LazyLock<Type> = LazyLock::new(|| Type::new_opaque_type("kubernetes.URL"));

/// A URL as Go's `url.URL` holds it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Url {
    scheme: String,
    opaque: String,
    user: Option<(Vec<u8>, Option<Vec<u8>>)>,
    /// Decoded: only escapes of non-ASCII bytes (and a zone's) are allowed there.
    host: Vec<u8>,
    /// Decoded.
    path: Vec<u8>,
    /// The path as written, when it is not the default encoding of `path`.
    raw_path: String,
    force_query: bool,
    raw_query: String,
    fragment: Vec<u8>,
    omit_host: bool,
}

impl Val for Url {
    fn get_type(&self) -> &Type {
        &URL_TYPE
    }

    fn cel_type() -> &'static Type {
        &URL_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<Url>() == Some(self)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Url {}

/// The parts of a URL Go escapes differently (`encoding` in `net/url`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Path,
    Host,
    Zone,
    UserPassword,
    QueryComponent,
    Fragment,
}

/// Whether Go's `shouldEscape` escapes byte `c` in that part.
fn should_escape(c: u8, mode: Mode) -> bool {
    if c.is_ascii_alphanumeric() {
        return false;
    }
    if matches!(mode, Mode::Host | Mode::Zone)
        && matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'['
                | b']'
                | b'<'
                | b'>'
                | b'"'
        )
    {
        return false;
    }
    match c {
        b'-' | b'_' | b'.' | b'~' => return false,
        b'$' | b'&' | b'+' | b',' | b'/' | b':' | b';' | b'=' | b'?' | b'@' => match mode {
            Mode::Path => return c == b'?',
            Mode::UserPassword => return matches!(c, b'@' | b'/' | b'?' | b':'),
            Mode::QueryComponent => return true,
            Mode::Fragment => return false,
            Mode::Host | Mode::Zone => {}
        },
        _ => {}
    }
    !(mode == Mode::Fragment && matches!(c, b'!' | b'(' | b')' | b'*'))
}

fn hex_value(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Go's `unescape`: `%XX` decoded (and `+` as a space in a query component), with its
/// errors for malformed escapes and for characters a host may not hold.
fn unescape(s: &str, mode: Mode) -> Result<Vec<u8>, String> {
    let bytes = s.as_bytes();
    let escape_error = |from: usize, len: usize| {
        let end = (from + len).min(bytes.len());
        format!("invalid URL escape {}", gofmt::quote(&String::from_utf8_lossy(&bytes[from..end])))
    };
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let (Some(hi), Some(lo)) =
                    (bytes.get(i + 1).copied().and_then(hex_value), bytes.get(i + 2).copied().and_then(hex_value))
                else {
                    return Err(escape_error(i, 3));
                };
                let escaped = &bytes[i..i + 3];
                if mode == Mode::Host && hi < 8 && escaped != b"%25" {
                    return Err(escape_error(i, 3));
                }
                let value = hi << 4 | lo;
                if mode == Mode::Zone && escaped != b"%25" && value != b' ' && should_escape(value, Mode::Host) {
                    return Err(escape_error(i, 3));
                }
                out.push(value);
                i += 3;
            }
            b'+' => {
                out.push(if mode == Mode::QueryComponent { b' ' } else { b'+' });
                i += 1;
            }
            c => {
                if matches!(mode, Mode::Host | Mode::Zone) && c < 0x80 && should_escape(c, mode) {
                    return Err(format!("invalid character {} in host name", gofmt::quote(&(c as char).to_string())));
                }
                out.push(c);
                i += 1;
            }
        }
    }
    Ok(out)
}

/// Go's `escape`: every byte `should_escape` as `%XX`.
fn escape(bytes: &[u8], mode: Mode) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &c in bytes {
        if should_escape(c, mode) {
            out.push_str(&format!("%{c:02X}"));
        } else {
            out.push(c as char);
        }
    }
    out
}

/// Go's `validEncoded`: only characters a path may hold as they are, and escapes.
fn valid_encoded(s: &str, mode: Mode) -> bool {
    s.bytes().all(|c| {
        matches!(
            c,
            b'!' | b'$'
                | b'&'
                | b'\''
                | b'('
                | b')'
                | b'*'
                | b'+'
                | b','
                | b';'
                | b'='
                | b':'
                | b'@'
                | b'['
                | b']'
                | b'%'
        ) || !should_escape(c, mode)
    })
}

fn valid_optional_port(port: &str) -> bool {
    port.is_empty() || port.strip_prefix(':').is_some_and(|digits| digits.bytes().all(|b| b.is_ascii_digit()))
}

fn valid_userinfo(s: &str) -> bool {
    s.chars().all(|c| {
        c.is_ascii_alphanumeric()
            || matches!(
                c,
                '-' | '.'
                    | '_'
                    | ':'
                    | '~'
                    | '!'
                    | '$'
                    | '&'
                    | '\''
                    | '('
                    | ')'
                    | '*'
                    | '+'
                    | ','
                    | ';'
                    | '='
                    | '%'
                    | '@'
            )
    })
}

/// The scheme and what follows its colon, if `raw` starts with one.
fn split_scheme(raw: &str) -> Result<(&str, &str), String> {
    for (i, c) in raw.bytes().enumerate() {
        match c {
            b'a'..=b'z' | b'A'..=b'Z' => {}
            b'0'..=b'9' | b'+' | b'-' | b'.' if i > 0 => {}
            b':' if i == 0 => return Err("missing protocol scheme".to_owned()),
            b':' => return Ok((&raw[..i], &raw[i + 1..])),
            _ => return Ok(("", raw)),
        }
    }
    Ok(("", raw))
}

fn parse_host(host: &str) -> Result<Vec<u8>, String> {
    if host.starts_with('[') {
        let Some(close) = host.rfind(']') else {
            return Err("missing ']' in host".to_owned());
        };
        let colon_port = &host[close + 1..];
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", gofmt::quote(colon_port)));
        }
        // Only an IPv6 address may stand in brackets; `%25` starts its zone.
        let zone = host[..close].find("%25");
        let literal = &host[1..zone.unwrap_or(close)];
        let literal = String::from_utf8_lossy(&unescape(literal, Mode::Host)?).into_owned();
        match super::net::parse_addr(&literal) {
            Ok((addr, _)) if addr.is_ipv4() => return Err("invalid IP-literal".to_owned()),
            Ok(_) => {}
            Err(err) => return Err(format!("invalid host: {err}")),
        }
        if let Some(zone) = zone {
            let mut out = unescape(&host[..zone], Mode::Host)?;
            out.extend(unescape(&host[zone..close], Mode::Zone)?);
            out.extend(unescape(&host[close..], Mode::Host)?);
            return Ok(out);
        }
    } else if let Some(colon) = host.rfind(':') {
        let colon_port = &host[colon..];
        if !valid_optional_port(colon_port) {
            return Err(format!("invalid port {} after host", gofmt::quote(colon_port)));
        }
    }
    unescape(host, Mode::Host)
}

type User = Option<(Vec<u8>, Option<Vec<u8>>)>;

fn parse_authority(authority: &str) -> Result<(User, Vec<u8>), String> {
    let at = authority.rfind('@');
    let host = parse_host(at.map_or(authority, |i| &authority[i + 1..]))?;
    let Some(at) = at else {
        return Ok((None, host));
    };
    let userinfo = &authority[..at];
    if !valid_userinfo(userinfo) {
        return Err("net/url: invalid userinfo".to_owned());
    }
    let user = match userinfo.split_once(':') {
        None => (unescape(userinfo, Mode::UserPassword)?, None),
        Some((name, password)) => (unescape(name, Mode::UserPassword)?, Some(unescape(password, Mode::UserPassword)?)),
    };
    Ok((Some(user), host))
}

impl Url {
    fn set_path(&mut self, written: &str) -> Result<(), String> {
        self.path = unescape(written, Mode::Path)?;
        self.raw_path = if escape(&self.path, Mode::Path) == written { String::new() } else { written.to_owned() };
        Ok(())
    }

    /// Go's `EscapedPath`: the path as written when that is a valid encoding of it, else
    /// its default encoding.
    fn escaped_path(&self) -> String {
        if !self.raw_path.is_empty()
            && valid_encoded(&self.raw_path, Mode::Path)
            && unescape(&self.raw_path, Mode::Path).as_deref() == Ok(&self.path[..])
        {
            return self.raw_path.clone();
        }
        if self.path == b"*" {
            return "*".to_owned();
        }
        escape(&self.path, Mode::Path)
    }

    /// The host and the port, as Go's `Hostname` and `Port` split them.
    fn host_and_port(&self) -> (String, String) {
        let host = String::from_utf8_lossy(&self.host);
        let mut name: &str = &host;
        let mut port = "";
        if let Some(colon) = name.rfind(':')
            && valid_optional_port(&name[colon..])
        {
            port = &name[colon + 1..];
            name = &name[..colon];
        }
        if name.len() >= 2 && name.starts_with('[') && name.ends_with(']') {
            name = &name[1..name.len() - 1];
        }
        (name.to_owned(), port.to_owned())
    }

    /// Go's `Query`: `&`-separated `key=value` pairs, decoded, skipping the malformed
    /// ones (a `;`, a bad escape); the values of a key in order.
    fn query(&self) -> HashMap<String, Vec<String>> {
        let mut out: HashMap<String, Vec<String>> = HashMap::new();
        for pair in self.raw_query.split('&') {
            if pair.is_empty() || pair.contains(';') {
                continue;
            }
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            let (Ok(key), Ok(value)) = (unescape(key, Mode::QueryComponent), unescape(value, Mode::QueryComponent))
            else {
                continue;
            };
            out.entry(String::from_utf8_lossy(&key).into_owned())
                .or_default()
                .push(String::from_utf8_lossy(&value).into_owned());
        }
        out
    }
}

/// Go's internal `parse`; errors unwrapped.
fn parse(raw: &str, via_request: bool) -> Result<Url, String> {
    if raw.bytes().any(|b| b < 0x20 || b == 0x7f) {
        return Err("net/url: invalid control character in URL".to_owned());
    }
    if raw.is_empty() && via_request {
        return Err("empty url".to_owned());
    }
    let mut url = Url::default();
    if raw == "*" {
        url.path = b"*".to_vec();
        return Ok(url);
    }
    let (scheme, mut rest) = split_scheme(raw)?;
    url.scheme = scheme.to_ascii_lowercase();
    if rest.ends_with('?') && rest.matches('?').count() == 1 {
        url.force_query = true;
        rest = &rest[..rest.len() - 1];
    } else if let Some((before, query)) = rest.split_once('?') {
        url.raw_query = query.to_owned();
        rest = before;
    }
    if !rest.starts_with('/') {
        if !url.scheme.is_empty() {
            // Rootless paths are opaque.
            url.opaque = rest.to_owned();
            return Ok(url);
        }
        if via_request {
            return Err("invalid URI for request".to_owned());
        }
        if rest.split('/').next().is_some_and(|segment| segment.contains(':')) {
            return Err("first path segment in URL cannot contain colon".to_owned());
        }
    }
    if (!url.scheme.is_empty() || !via_request && !rest.starts_with("///")) && rest.starts_with("//") {
        let after = &rest[2..];
        let (authority, path) = after.split_at(after.find('/').unwrap_or(after.len()));
        let (user, host) = parse_authority(authority)?;
        url.user = user;
        url.host = host;
        rest = path;
    } else if !url.scheme.is_empty() && rest.starts_with('/') {
        url.omit_host = true;
    }
    url.set_path(rest)?;
    Ok(url)
}

fn wrap(raw: &str, err: String) -> String {
    format!("parse {}: {err}", gofmt::quote(raw))
}

/// Go's `url.ParseRequestURI`, with its error text.
pub(super) fn parse_request_uri(raw: &str) -> Result<Url, String> {
    parse(raw, true).map_err(|err| wrap(raw, err))
}

/// Go's `url.Parse`, with its error text.
fn parse_reference(raw: &str) -> Result<Url, String> {
    let (before, fragment) = raw.split_once('#').unwrap_or((raw, ""));
    let mut url = parse(before, false).map_err(|err| wrap(before, err))?;
    if !fragment.is_empty() {
        url.fragment = unescape(fragment, Mode::Fragment).map_err(|err| wrap(raw, err))?;
    }
    Ok(url)
}

/// A URL as Kubernetes' `url()` makes it: checked as a request URI, its parts those of
/// `url.Parse`.
pub(super) fn parse_url(raw: &str) -> Result<Url, String> {
    parse_request_uri(raw)
        .and_then(|_| parse_reference(raw))
        .map_err(|err| format!("URL parse error during conversion from string: {err}"))
}

// ---- The CEL functions ----

/// Registers the library.
pub(super) fn library(env: &mut Env) -> Result<(), DeclarationError> {
    let url = || (*URL_TYPE).to_owned();
    env.add_type(url())?;
    env.add_overload("url", "string_to_url", vec![STRING_TYPE], to_url)?;
    env.add_overload("isURL", "is_url_string", vec![STRING_TYPE], is_url)?;
    env.add_member_overload("getScheme", "url_get_scheme", url(), vec![], get_scheme)?;
    env.add_member_overload("getHost", "url_get_host", url(), vec![], get_host)?;
    env.add_member_overload("getHostname", "url_get_hostname", url(), vec![], get_hostname)?;
    env.add_member_overload("getPort", "url_get_port", url(), vec![], get_port)?;
    env.add_member_overload("getEscapedPath", "url_get_escaped_path", url(), vec![], get_escaped_path)?;
    env.add_member_overload("getQuery", "url_get_query", url(), vec![], get_query)?;
    Ok(())
}

fn url_arg<'a>(function: &str, value: &'a dyn Val) -> Result<&'a Url, ExecutionError> {
    value
        .downcast_ref::<Url>()
        .ok_or_else(|| ExecutionError::no_such_overload(function, vec![value.get_type().name().to_owned()]))
}

fn to_url<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let url = parse_url(string_arg("url", text.as_ref())?).map_err(k8s_error)?;
    Ok(CowVal::owned(url))
}

fn is_url<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let valid = parse_request_uri(string_arg("isURL", text.as_ref())?).is_ok();
    Ok(CowVal::owned(CelBool::from(valid)))
}

fn url_string<'b, 'v>(function: &str, a: Args<'b, 'v>, part: fn(&Url) -> String) -> Returns<'b, 'v> {
    let [url] = args(a)?;
    Ok(CowVal::owned(CelString::from(part(url_arg(function, url.as_ref())?))))
}

fn get_scheme<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    url_string("getScheme", a, |u| u.scheme.clone())
}

fn get_host<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    url_string("getHost", a, |u| String::from_utf8_lossy(&u.host).into_owned())
}

fn get_hostname<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    url_string("getHostname", a, |u| u.host_and_port().0)
}

fn get_port<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    url_string("getPort", a, |u| u.host_and_port().1)
}

fn get_escaped_path<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    url_string("getEscapedPath", a, Url::escaped_path)
}

fn get_query<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [url] = args(a)?;
    let entries: HashMap<CelMapKey<'v>, Box<dyn Val + 'v>> = url_arg("getQuery", url.as_ref())?
        .query()
        .into_iter()
        .map(|(key, values)| {
            let values: Vec<Box<dyn Val + 'v>> =
                values.into_iter().map(|v| Box::new(CelString::from(v)) as Box<dyn Val + 'v>).collect();
            (CelMapKey::from(key), Box::new(CelList::from(values)) as Box<dyn Val + 'v>)
        })
        .collect();
    Ok(CowVal::owned(CelMap::from(entries)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        parse_url(text).unwrap_or_else(|err| panic!("{err}"))
    }

    #[test]
    fn valid_request_uris() {
        for valid in [
            "https://user:pass@example.com:80/path?query=val#fragment",
            "/absolute-path",
            "http://example.com",
            "http://[::1]:80/",
            "http://[fe80::1%25en0]/",
            "mailto:someone@example.com",
            "*",
            "https://example.com/path with spaces/",
            "https://example.com/path#frag",
            "HTTP://EXAMPLE.COM/",
            "https://例え.jp/",
            "https://example.com/%E4%BE%8B",
        ] {
            assert!(parse_request_uri(valid).is_ok(), "{valid}");
            assert!(parse_url(valid).is_ok(), "{valid}");
        }
    }

    #[test]
    fn invalid_request_uris_with_gos_errors() {
        let err = |text: &str| parse_request_uri(text).unwrap_err();
        assert_eq!(err("https://a:b:c/"), r#"parse "https://a:b:c/": invalid port ":c" after host"#);
        assert_eq!(err("../relative-path"), r#"parse "../relative-path": invalid URI for request"#);
        assert_eq!(err(""), r#"parse "": empty url"#);
        assert_eq!(err(":foo"), r#"parse ":foo": missing protocol scheme"#);
        assert_eq!(err("example.com"), r#"parse "example.com": invalid URI for request"#);
        assert_eq!(
            err("http://example.com/\n"),
            r#"parse "http://example.com/\n": net/url: invalid control character in URL"#
        );
        assert_eq!(err("/a%zzb"), r#"parse "/a%zzb": invalid URL escape "%zz""#);
        assert_eq!(err("/a%2"), r#"parse "/a%2": invalid URL escape "%2""#);
        assert_eq!(
            err("https://exa mple.com/"),
            r#"parse "https://exa mple.com/": invalid character " " in host name"#
        );
        assert_eq!(
            err("https://example.com#frag"),
            r##"parse "https://example.com#frag": invalid character "#" in host name"##
        );
        assert_eq!(err("http://%41.com/"), r#"parse "http://%41.com/": invalid URL escape "%41""#);
        assert_eq!(err("http://[::1/"), r#"parse "http://[::1/": missing ']' in host"#);
        assert_eq!(err("http://[1.2.3.4]/"), r#"parse "http://[1.2.3.4]/": invalid IP-literal"#);
        assert!(err("http://[example.com]/").contains("invalid host: ParseAddr"));
        assert_eq!(err("http://a b@c/"), r#"parse "http://a b@c/": net/url: invalid userinfo"#);
        assert_eq!(
            parse_url("https://a:b:c/").unwrap_err(),
            r#"URL parse error during conversion from string: parse "https://a:b:c/": invalid port ":c" after host"#
        );
    }

    #[test]
    fn parts_as_go_reports_them() {
        let u = url("https://user:pass@example.com:80/path?query=val#fragment");
        assert_eq!(u.scheme, "https");
        assert_eq!(u.host, b"example.com:80");
        assert_eq!(u.host_and_port(), ("example.com".to_owned(), "80".to_owned()));
        assert_eq!(u.escaped_path(), "/path");
        assert_eq!(u.raw_query, "query=val");
        assert_eq!(u.fragment, b"fragment");

        assert_eq!(url("/path").scheme, "");
        assert_eq!(url("/path").host_and_port(), (String::new(), String::new()));
        assert_eq!(url("HTTP://Example.COM/").scheme, "http");
        assert_eq!(url("HTTP://Example.COM/").host, b"Example.COM");
        assert_eq!(url("https://[::1]:80/").host, b"[::1]:80");
        assert_eq!(url("https://[::1]:80/").host_and_port(), ("::1".to_owned(), "80".to_owned()));
        assert_eq!(url("https://[::1]/").host_and_port(), ("::1".to_owned(), String::new()));
        assert_eq!(url("https://127.0.0.1:80/").host_and_port().0, "127.0.0.1");
        assert_eq!(url("https://example.com").escaped_path(), "");
        assert_eq!(url("https://example.com/path with spaces/").escaped_path(), "/path%20with%20spaces/");
        assert_eq!(url("https://example.com/a%2Fb").escaped_path(), "/a%2Fb");
        assert_eq!(url("https://example.com/%7Euser").escaped_path(), "/%7Euser");
        assert_eq!(url("https://example.com/caf%C3%A9").escaped_path(), "/caf%C3%A9");
        assert_eq!(url("https://example.com/café").escaped_path(), "/caf%C3%A9");
        assert_eq!(url("*").escaped_path(), "*");
        assert_eq!(url("https://[fe80::1%25en0]/").host, b"[fe80::1%en0]");
        assert_eq!(url("//host/path").host, b"host", "url.Parse reads the authority");

        let query = url("https://example.com/path?k1=a&k2=b&k2=c").query();
        assert_eq!(query.len(), 2);
        assert_eq!(query["k1"], ["a"]);
        assert_eq!(query["k2"], ["b", "c"]);
        let query = url("https://example.com/path?key with spaces=value with spaces").query();
        assert_eq!(query["key with spaces"], ["value with spaces"]);
        let query = url("https://example.com/?a=1+2&b=%41&c&bad=%zz&semi=x;y&=empty").query();
        assert_eq!(query["a"], ["1 2"]);
        assert_eq!(query["b"], ["A"]);
        assert_eq!(query["c"], [""]);
        assert_eq!(query[""], ["empty"]);
        assert!(!query.contains_key("bad") && !query.contains_key("semi"));
        assert!(url("https://example.com/path?").query().is_empty());
        assert!(url("https://example.com/path").query().is_empty());
    }
}
