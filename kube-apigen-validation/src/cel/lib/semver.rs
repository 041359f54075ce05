//! Kubernetes' semver library: `semver(s)`, `semver(s, normalize)`, `isSemver(s)`,
//! `isSemver(s, normalize)` and the methods of `kubernetes.Semver` values.
//!
//! Versions are read as the blang/semver `Parse` Kubernetes uses reads them, with its
//! error messages: `MAJOR.MINOR.PATCH`, no leading zeros, an optional `-prerelease` and
//! `+build` of dot-separated identifiers. Normalizing first drops a leading `v`, leading
//! zeros, and completes `1` and `1.2` to `1.0.0` and `1.2.0`. Comparisons follow
//! semver.org precedence (build metadata ignored), and so does `==`.

use std::any::Any;
use std::cmp::Ordering;
use std::sync::LazyLock;

use cel::common::types::{BOOL_TYPE, CelBool, CelInt, STRING_TYPE, Type};
use cel::common::value::{CowVal, StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::{Args, Returns, args, k8s_error, string_arg};
use kube_apigen_core::go::fmt as gofmt;

/// `kubernetes.Semver`.
static SEMVER_TYPE: LazyLock<Type> = LazyLock::new(|| Type::new_opaque_type("kubernetes.Semver"));

/// A `kubernetes.Semver` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Semver {
    major: u64,
    minor: u64,
    patch: u64,
    pre: Vec<Prerelease>,
    build: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Prerelease {
    Number(u64),
    Text(String),
}

impl Val for Semver {
    fn get_type(&self) -> &Type {
        &SEMVER_TYPE
    }

    fn cel_type() -> &'static Type {
        &SEMVER_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<Semver>().is_some_and(|other| self.compare(other).is_eq())
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Semver {}

fn only_digits(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_digit())
}

fn only_alphanumeric(s: &str) -> bool {
    s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

fn has_leading_zero(s: &str) -> bool {
    s.len() > 1 && s.starts_with('0')
}

/// Go's `strconv.ParseUint(s, 10, 64)`, with its error text.
fn parse_uint(s: &str) -> Result<u64, String> {
    if s.is_empty() || !only_digits(s) {
        return Err(format!("strconv.ParseUint: parsing {}: invalid syntax", gofmt::quote(s)));
    }
    s.parse().map_err(|_| format!("strconv.ParseUint: parsing {}: value out of range", gofmt::quote(s)))
}

/// A version number: digits only (an empty one fails as a number), no leading zero.
fn number(s: &str, what: &str) -> Result<u64, String> {
    if !only_digits(s) {
        return Err(format!("Invalid character(s) found in {what} number {}", gofmt::quote(s)));
    }
    if has_leading_zero(s) {
        let capitalized = format!("{}{}", what[..1].to_uppercase(), &what[1..]);
        return Err(format!("{capitalized} number must not contain leading zeroes {}", gofmt::quote(s)));
    }
    parse_uint(s)
}

/// blang/semver `Parse`.
pub(super) fn parse(s: &str) -> Result<Semver, String> {
    if s.is_empty() {
        return Err("Version string empty".to_owned());
    }
    let parts: Vec<&str> = s.splitn(3, '.').collect();
    let [major, minor, rest] = parts[..] else {
        return Err("No Major.Minor.Patch elements found".to_owned());
    };
    let major = number(major, "major")?;
    let minor = number(minor, "minor")?;
    let (rest, build) = match rest.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (rest, None),
    };
    let (patch, pre) = match rest.split_once('-') {
        Some((patch, pre)) => (patch, Some(pre)),
        None => (rest, None),
    };
    let patch = number(patch, "patch")?;
    let mut version = Semver { major, minor, patch, pre: Vec::new(), build: Vec::new() };
    for identifier in pre.into_iter().flat_map(|pre| pre.split('.')) {
        version.pre.push(prerelease(identifier)?);
    }
    for identifier in build.into_iter().flat_map(|build| build.split('.')) {
        if identifier.is_empty() {
            return Err("Build meta data is empty".to_owned());
        }
        if !only_alphanumeric(identifier) {
            return Err(format!("Invalid character(s) found in build meta data {}", gofmt::quote(identifier)));
        }
        version.build.push(identifier.to_owned());
    }
    Ok(version)
}

fn prerelease(s: &str) -> Result<Prerelease, String> {
    if s.is_empty() {
        return Err("Prerelease is empty".to_owned());
    }
    if only_digits(s) {
        if has_leading_zero(s) {
            return Err(format!("Numeric PreRelease version must not contain leading zeroes {}", gofmt::quote(s)));
        }
        return parse_uint(s).map(Prerelease::Number);
    }
    if only_alphanumeric(s) {
        return Ok(Prerelease::Text(s.to_owned()));
    }
    Err(format!("Invalid character(s) found in prerelease {}", gofmt::quote(s)))
}

/// Kubernetes' `normalizeAndParse`: without a leading `v`, leading zeros trimmed from
/// each of the (up to) three dot-separated parts, missing minor and patch set to 0.
pub(super) fn normalize_and_parse(s: &str) -> Result<Semver, String> {
    let s = s.strip_prefix('v').unwrap_or(s);
    let mut parts: Vec<String> = s
        .splitn(3, '.')
        .map(|part| {
            if part.len() <= 1 {
                return part.to_owned();
            }
            let trimmed = part.trim_start_matches('0');
            if trimmed.as_bytes().first().is_some_and(u8::is_ascii_digit) {
                trimmed.to_owned()
            } else {
                format!("0{trimmed}")
            }
        })
        .collect();
    if parts.len() < 3 {
        if parts.last().is_some_and(|last| last.contains(['+', '-'])) {
            return Err("short version cannot contain PreRelease/Build meta data".to_owned());
        }
        parts.resize(3, "0".to_owned());
    }
    parse(&parts.join("."))
}

impl Semver {
    /// Precedence, as blang/semver `Compare`.
    fn compare(&self, other: &Semver) -> Ordering {
        let core = (self.major, self.minor, self.patch).cmp(&(other.major, other.minor, other.patch));
        if core.is_ne() {
            return core;
        }
        match (self.pre.is_empty(), other.pre.is_empty()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Greater,
            (false, true) => return Ordering::Less,
            (false, false) => {}
        }
        for (a, b) in self.pre.iter().zip(&other.pre) {
            let order = match (a, b) {
                (Prerelease::Number(a), Prerelease::Number(b)) => a.cmp(b),
                (Prerelease::Number(_), Prerelease::Text(_)) => Ordering::Less,
                (Prerelease::Text(_), Prerelease::Number(_)) => Ordering::Greater,
                (Prerelease::Text(a), Prerelease::Text(b)) => a.cmp(b),
            };
            if order.is_ne() {
                return order;
            }
        }
        self.pre.len().cmp(&other.pre.len())
    }
}

// ---- The CEL functions ----

/// Registers the library.
pub(super) fn library(env: &mut Env) -> Result<(), DeclarationError> {
    let semver = || (*SEMVER_TYPE).to_owned();
    env.add_type(semver())?;
    env.add_overload("semver", "string_to_semver", vec![STRING_TYPE], to_semver)?;
    env.add_overload("semver", "string_bool_to_semver", vec![STRING_TYPE, BOOL_TYPE], to_semver)?;
    env.add_overload("isSemver", "is_semver_string", vec![STRING_TYPE], is_semver)?;
    env.add_overload("isSemver", "is_semver_string_bool", vec![STRING_TYPE, BOOL_TYPE], is_semver)?;
    env.add_member_overload("major", "semver_major", semver(), vec![], major)?;
    env.add_member_overload("minor", "semver_minor", semver(), vec![], minor)?;
    env.add_member_overload("patch", "semver_patch", semver(), vec![], patch)?;
    env.add_member_overload("isGreaterThan", "semver_is_greater_than", semver(), vec![semver()], is_greater_than)?;
    env.add_member_overload("isLessThan", "semver_is_less_than", semver(), vec![semver()], is_less_than)?;
    env.add_member_overload("compareTo", "semver_compare_to", semver(), vec![semver()], compare_to)?;
    Ok(())
}

fn semver_arg<'a>(function: &str, value: &'a dyn Val) -> Result<&'a Semver, ExecutionError> {
    value
        .downcast_ref::<Semver>()
        .ok_or_else(|| ExecutionError::no_such_overload(function, vec![value.get_type().name().to_owned()]))
}

/// The version from the string argument, normalized when a second argument says so.
fn parse_args(function: &str, a: Args<'_, '_>) -> Result<Result<Semver, String>, ExecutionError> {
    let (text, normalize) = match a.len() {
        2 => {
            let [text, normalize] = args(a)?;
            let normalize = *normalize
                .downcast_ref::<CelBool>()
                .ok_or_else(|| ExecutionError::function_error(function, "expected a bool"))?
                .inner();
            (string_arg(function, text.as_ref())?.to_owned(), normalize)
        }
        _ => {
            let [text] = args(a)?;
            (string_arg(function, text.as_ref())?.to_owned(), false)
        }
    };
    Ok(if normalize { normalize_and_parse(&text) } else { parse(&text) })
}

fn to_semver<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let version = parse_args("semver", a)?.map_err(k8s_error)?;
    Ok(CowVal::owned(version))
}

fn is_semver<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let valid = parse_args("isSemver", a)?.is_ok();
    Ok(CowVal::owned(CelBool::from(valid)))
}

fn part<'b, 'v>(function: &str, a: Args<'b, 'v>, get: fn(&Semver) -> u64) -> Returns<'b, 'v> {
    let [version] = args(a)?;
    // Go converts the uint64 to int64, wrapping.
    let value = get(semver_arg(function, version.as_ref())?) as i64;
    Ok(CowVal::owned(CelInt::from(value)))
}

fn major<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    part("major", a, |v| v.major)
}

fn minor<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    part("minor", a, |v| v.minor)
}

fn patch<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    part("patch", a, |v| v.patch)
}

fn ordering(function: &str, a: &dyn Val, b: &dyn Val) -> Result<Ordering, ExecutionError> {
    Ok(semver_arg(function, a)?.compare(semver_arg(function, b)?))
}

fn is_greater_than<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [v, other] = args(a)?;
    let greater = ordering("isGreaterThan", v.as_ref(), other.as_ref())?.is_gt();
    Ok(CowVal::owned(CelBool::from(greater)))
}

fn is_less_than<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [v, other] = args(a)?;
    let less = ordering("isLessThan", v.as_ref(), other.as_ref())?.is_lt();
    Ok(CowVal::owned(CelBool::from(less)))
}

fn compare_to<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [v, other] = args(a)?;
    let order = ordering("compareTo", v.as_ref(), other.as_ref())? as i64;
    Ok(CowVal::owned(CelInt::from(order)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(text: &str) -> Semver {
        parse(text).unwrap_or_else(|err| panic!("{err}"))
    }

    #[test]
    fn parses_as_blang_semver() {
        let version = v("1.2.3-alpha.1+build.5");
        assert_eq!((version.major, version.minor, version.patch), (1, 2, 3));
        assert_eq!(version.pre, [Prerelease::Text("alpha".to_owned()), Prerelease::Number(1)]);
        assert_eq!(version.build, ["build", "5"]);
        assert_eq!(v("0.1.0-alpha.1").pre.len(), 2);
        assert!(parse("1.0.0-x-y-z.--").is_ok());

        let err = |text: &str| parse(text).unwrap_err();
        assert_eq!(err(""), "Version string empty");
        assert_eq!(err("200K"), "No Major.Minor.Patch elements found");
        assert_eq!(err("1.0"), "No Major.Minor.Patch elements found");
        assert_eq!(err("v1.0.0"), "Invalid character(s) found in major number \"v1\"");
        assert_eq!(err("01.0.0"), "Major number must not contain leading zeroes \"01\"");
        assert_eq!(err("1.01.0"), "Minor number must not contain leading zeroes \"01\"");
        assert_eq!(err("1.0.01"), "Patch number must not contain leading zeroes \"01\"");
        assert_eq!(err("1.x.0"), "Invalid character(s) found in minor number \"x\"");
        assert_eq!(err("1..0"), "strconv.ParseUint: parsing \"\": invalid syntax");
        assert_eq!(
            err("99999999999999999999.0.0"),
            "strconv.ParseUint: parsing \"99999999999999999999\": value out of range"
        );
        assert_eq!(err("1.0.0-"), "Prerelease is empty");
        assert_eq!(err("1.0.0-01"), "Numeric PreRelease version must not contain leading zeroes \"01\"");
        assert_eq!(err("1.0.0-a_b"), "Invalid character(s) found in prerelease \"a_b\"");
        assert_eq!(err("1.0.0+"), "Build meta data is empty");
        assert_eq!(err("1.0.0+a_b"), "Invalid character(s) found in build meta data \"a_b\"");
        assert_eq!(err("1.0.0 "), "Invalid character(s) found in patch number \"0 \"");
    }

    #[test]
    fn normalizes_as_kubernetes() {
        let n = |text: &str| normalize_and_parse(text).unwrap_or_else(|err| panic!("{err}"));
        assert_eq!(n("v1.0.0"), v("1.0.0"));
        assert_eq!(n("1.0"), v("1.0.0"));
        assert_eq!(n("1"), v("1.0.0"));
        assert_eq!(n("01.01.01"), v("1.1.1"));
        assert_eq!(n("v00.000.0"), v("0.0.0"));
        assert_eq!(n("1.2.3-beta"), v("1.2.3-beta"));
        assert_eq!(
            normalize_and_parse("1.0-beta").unwrap_err(),
            "short version cannot contain PreRelease/Build meta data"
        );
        assert!(normalize_and_parse("v").is_err());
        assert!(normalize_and_parse("hello").is_err());
    }

    #[test]
    fn precedence() {
        let ordered = [
            "1.0.0-alpha",
            "1.0.0-alpha.1",
            "1.0.0-alpha.beta",
            "1.0.0-beta",
            "1.0.0-beta.2",
            "1.0.0-beta.11",
            "1.0.0-rc.1",
            "1.0.0",
            "1.0.1",
            "1.2.0",
            "2.0.0",
        ];
        for pair in ordered.windows(2) {
            assert_eq!(v(pair[0]).compare(&v(pair[1])), Ordering::Less, "{pair:?}");
            assert_eq!(v(pair[1]).compare(&v(pair[0])), Ordering::Greater, "{pair:?}");
        }
        assert_eq!(v("1.0.0+a").compare(&v("1.0.0+b")), Ordering::Equal);
    }
}
