//! `net/url`'s query parsing, by hand: `form_urlencoded` decodes a malformed escape
//! literally and splits only on `&` without refusing `;`, where Go skips such pairs.

use std::borrow::Cow;

use kube_apigen_core::go::fmt::quote as go_quote;

/// A decoded key and value.
pub type QueryPair<'a> = (Cow<'a, str>, Cow<'a, str>);

/// `url.ParseQuery`: the pairs of a raw query string in order, and Go's error for the
/// first pair it skipped. Pairs are separated by `&`; a pair containing `;` is skipped
/// (`invalid semicolon separator in query`), as is one with a malformed `%` escape in its
/// key or value (`invalid URL escape "%zz"`); empty pairs are ignored. Decoded bytes that
/// are not UTF-8 are replaced with U+FFFD (Go keeps them).
pub fn parse_query(raw: &str) -> (Vec<QueryPair<'_>>, Option<String>) {
    let mut pairs = Vec::new();
    let mut error = None;
    for pair in raw.split('&') {
        if pair.contains(';') {
            error = Some("invalid semicolon separator in query".to_owned());
            continue;
        }
        if pair.is_empty() {
            continue;
        }
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        match (query_unescape(key), query_unescape(value)) {
            (Ok(key), Ok(value)) => pairs.push((key, value)),
            (Err(e), _) | (_, Err(e)) => {
                error.get_or_insert(e);
            }
        }
    }
    (pairs, error)
}

/// `url.QueryUnescape`: `+` is a space, `%XX` a byte; any other `%` is Go's error,
/// `invalid URL escape "%zz"`.
pub fn query_unescape(s: &str) -> Result<Cow<'_, str>, String> {
    if !s.contains(['%', '+']) {
        return Ok(Cow::Borrowed(s));
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let escape = bytes.get(i + 1..i + 3).and_then(|hex| Some(hex_value(hex[0])? << 4 | hex_value(hex[1])?));
                let Some(byte) = escape else {
                    let end = (i + 3).min(bytes.len());
                    return Err(format!("invalid URL escape {}", quote_bytes(&bytes[i..end])));
                };
                out.push(byte);
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            byte => {
                out.push(byte);
                i += 1;
            }
        }
    }
    Ok(Cow::Owned(String::from_utf8_lossy(&out).into_owned()))
}

/// `strconv.Quote` of bytes that may end inside a character: those bytes as `\xNN`.
fn quote_bytes(bytes: &[u8]) -> String {
    let mut out = String::from("\"");
    for chunk in bytes.utf8_chunks() {
        let quoted = go_quote(chunk.valid());
        out.push_str(&quoted[1..quoted.len() - 1]);
        for byte in chunk.invalid() {
            out.push_str(&format!("\\x{byte:02x}"));
        }
    }
    out.push('"');
    out
}

fn hex_value(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_query_rules() {
        let (pairs, error) = parse_query("a=1;b=2&c=%zz&d=%41+x&&e&f=%4");
        assert_eq!(pairs, [("d".into(), "A x".into()), ("e".into(), "".into())]);
        assert_eq!(error.as_deref(), Some("invalid semicolon separator in query"));
        assert_eq!(parse_query("c=%zz").1.as_deref(), Some(r#"invalid URL escape "%zz""#));
        assert_eq!(parse_query("c=%4").1.as_deref(), Some(r#"invalid URL escape "%4""#));
    }
}
