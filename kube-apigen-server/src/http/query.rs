//! Query strings with the API server's semantics.

use std::borrow::Cow;
use std::num::{IntErrorKind, ParseIntError};
use std::str::FromStr;

use kube_apigen_core::Status;
use kube_apigen_core::go::fmt::quote as go_quote;

/// The decoded pairs of a query string, in order, repeated keys kept.
///
/// Decoding is Go's `url.ParseQuery` ([`crate::go::url::parse_query`]), which the API
/// server uses: pairs split on `&`, `+` is a space, `%XX` escapes are decoded in keys and
/// values, and a pair with a `;` or a malformed escape is dropped. Scalar parameters take the first value, as
/// the API server's conversions do; list parameters (`dryRun`) take all of them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Query<'a> {
    pairs: Vec<(Cow<'a, str>, Cow<'a, str>)>,
}

impl<'a> Query<'a> {
    /// Decodes a raw query string (without the `?`).
    pub fn parse(raw: &'a str) -> Self {
        Query { pairs: crate::go::url::parse_query(raw).0 }
    }

    /// All pairs, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.pairs.iter().map(|(k, v)| (k.as_ref(), v.as_ref()))
    }

    /// Every value of `name`, in order.
    pub fn values<'s, 'n>(&'s self, name: &'n str) -> impl Iterator<Item = &'s str> + use<'s, 'n, 'a> {
        self.pairs.iter().filter(move |(k, _)| k == name).map(|(_, v)| v.as_ref())
    }

    /// The first value of `name`, the one the API server uses for a scalar parameter.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values(name).next()
    }

    /// Whether `name` is present, with any value.
    pub fn contains(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Whether there are no pairs.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// The first value of `name` as an owned string.
    pub fn string(&self, name: &str) -> Option<String> {
        self.get(name).map(str::to_owned)
    }

    /// Every value of `name` as owned strings.
    pub fn strings(&self, name: &str) -> Vec<String> {
        self.values(name).map(str::to_owned).collect()
    }

    /// The first value of `name` as a boolean ([`parse_bool`]); `None` when absent.
    pub fn bool(&self, name: &str) -> Option<bool> {
        self.get(name).map(parse_bool)
    }

    /// The first value of `name` as an integer ([`parse_int`]); `None` when absent.
    pub fn int<T: FromStr<Err = ParseIntError>>(&self, name: &str) -> Result<Option<T>, Status> {
        self.get(name).map(|value| parse_int(name, value)).transpose()
    }
}

impl<'a> FromIterator<(Cow<'a, str>, Cow<'a, str>)> for Query<'a> {
    fn from_iter<I: IntoIterator<Item = (Cow<'a, str>, Cow<'a, str>)>>(iter: I) -> Self {
        Query { pairs: iter.into_iter().collect() }
    }
}

/// A boolean parameter as the API server reads one (`Convert_Slice_string_To_bool`):
/// `false` (in any case) and `0` are false; anything else, even the empty string
/// (`?watch`), is true.
pub fn parse_bool(value: &str) -> bool {
    !(value == "0" || value.to_lowercase() == "false")
}

/// An integer parameter as the API server reads one (Go's `strconv.ParseInt`, base 10,
/// optional sign), or 400 `BadRequest` naming the parameter and quoting Go's error:
/// `invalid value for query parameter "limit": strconv.ParseInt: parsing "abc": invalid syntax`.
pub fn parse_int<T: FromStr<Err = ParseIntError>>(name: &str, value: &str) -> Result<T, Status> {
    value.parse::<T>().map_err(|error| {
        let reason = match error.kind() {
            IntErrorKind::PosOverflow | IntErrorKind::NegOverflow => "value out of range",
            _ => "invalid syntax",
        };
        Status::bad_request(format!(
            "invalid value for query parameter {}: strconv.ParseInt: parsing {}: {reason}",
            go_quote(name),
            go_quote(value)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_and_keeps_repeats() {
        let q = Query::parse("dryRun=All&labelSelector=a%3Db%2Cc+in+(x)&dryRun=Other&watch");
        assert_eq!(q.values("dryRun").collect::<Vec<_>>(), ["All", "Other"]);
        assert_eq!(q.get("labelSelector"), Some("a=b,c in (x)"));
        assert_eq!(q.get("watch"), Some(""));
        assert_eq!(q.bool("watch"), Some(true));
        assert_eq!(q.get("missing"), None);
    }

    #[test]
    fn booleans_like_kubernetes() {
        for t in ["", "1", "true", "True", "yes", "anything"] {
            assert!(parse_bool(t), "{t:?}");
        }
        for f in ["0", "false", "FALSE", "False"] {
            assert!(!parse_bool(f), "{f:?}");
        }
    }

    #[test]
    fn integers_like_go() {
        assert_eq!(parse_int::<i64>("limit", "+5").unwrap(), 5);
        assert_eq!(parse_int::<i64>("limit", "-7").unwrap(), -7);
        let e = parse_int::<i64>("limit", "abc").unwrap_err();
        assert_eq!(
            e.message.as_deref(),
            Some(r#"invalid value for query parameter "limit": strconv.ParseInt: parsing "abc": invalid syntax"#)
        );
        let e = parse_int::<i64>("limit", "99999999999999999999").unwrap_err();
        assert!(e.message.as_deref().unwrap().ends_with("value out of range"));
        assert_eq!(parse_int::<i64>("limit", "").unwrap_err().code(), 400);
    }
}
