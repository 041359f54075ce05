//! The functions rules can call: the CEL standard library of the `cel` crate (macros
//! `has`, `all`, `exists`, `exists_one`, `map`, `filter`; `size`, `contains`,
//! `startsWith`, `endsWith`, `matches`, conversions, `duration`, `timestamp`, optionals
//! with `.?` syntax), the crate's strings extension (`charAt`, `indexOf`, `lastIndexOf`,
//! `lowerAscii`, `upperAscii`, `replace`, `split`, `substring`, `trim`, `join`, `format`,
//! `strings.quote`, and also `reverse`, which Kubernetes' version 2 lacks), and the
//! Kubernetes libraries, one submodule each (all of them, whatever Kubernetes version
//! introduced them):
//! - [`lists`]: `isSorted()`, `sum()`, `min()`, `max()`, `indexOf(x)`, `lastIndexOf(x)`;
//! - [`regex`]: `find(re)`, `findAll(re)`, `findAll(re, n)`;
//! - [`sets`]: `sets.contains(a, b)`, `sets.equivalent(a, b)`, `sets.intersects(a, b)`;
//! - [`quantity`]: `quantity(s)`, `isQuantity(s)`, and on a `kubernetes.Quantity`
//!   `isInteger()`, `asInteger()`, `asApproximateFloat()`, `sign()` (also `sign(q)`),
//!   `add(q | int)`, `sub(q | int)`, `isLessThan(q)`, `isGreaterThan(q)`, `compareTo(q)`;
//! - [`url`]: `url(s)`, `isURL(s)`, and on a `kubernetes.URL` `getScheme()`, `getHost()`,
//!   `getHostname()`, `getPort()`, `getEscapedPath()`, `getQuery()` (a
//!   `map(string, list(string))`), read as Go's `net/url` reads them;
//! - [`net`], IP: `ip(s)`, `isIP(s)`, `ip.isCanonical(s)`, `string(ip)`, and on a `net.IP`
//!   `family()`, `isUnspecified()`, `isLoopback()`, `isLinkLocalMulticast()`,
//!   `isLinkLocalUnicast()`, `isGlobalUnicast()`;
//! - [`net`], CIDR: `cidr(s)`, `isCIDR(s)`, `string(cidr)`, and on a `net.CIDR`
//!   `containsIP(ip | string)`, `containsCIDR(cidr | string)`, `ip()`, `masked()`,
//!   `prefixLength()` (`containsCIDR` as fixed in Kubernetes 1.33: any contained subnet);
//! - [`format`]: `format.dns1123Label()`, `format.dns1123Subdomain()`,
//!   `format.dns1035Label()`, `format.qualifiedName()`, `format.dns1123LabelPrefix()`,
//!   `format.dns1123SubdomainPrefix()`, `format.dns1035LabelPrefix()`,
//!   `format.labelValue()`, `format.uri()`, `format.uuid()`, `format.byte()`,
//!   `format.date()`, `format.datetime()`, `format.named(s)` (an optional), and on a
//!   `kubernetes.NamedFormat` `validate(s)`: `optional.none()` or `optional.of` the
//!   API server's error messages;
//! - [`semver`]: `semver(s)`, `semver(s, normalize)`, `isSemver(s)`,
//!   `isSemver(s, normalize)`, and on a `kubernetes.Semver` `major()`, `minor()`,
//!   `patch()`, `isLessThan(v)`, `isGreaterThan(v)`, `compareTo(v)`.
//!
//! The values of those libraries are opaque CEL values of the types Kubernetes names
//! (`type(ip('::1')) == net.IP`); `==` and `!=` compare quantities by amount
//! (`quantity('1') == quantity('1000m')`), semantic versions by precedence, the others
//! by value (`cidr('10.0.0.1/8') != cidr('10.0.0.0/8')`). As in Kubernetes, `<` and the
//! like are not defined on them (a rule using them fails with 'no such overload'). Their
//! evaluation errors have the API server's texts (`quantities must match the regular
//! expression ...`, `URL parse error during conversion from string: parse "x": invalid
//! URI for request`, `IP Address "x" parse error during conversion from string:
//! ParseAddr("x"): unable to parse IP`, ...), as have the messages of `validate`.
//!
//! Missing, compared with the Kubernetes API server: the image and authz libraries, and
//! the newest quantity methods (`mul`, `div`, `divInt`). Each submodule says where it
//! differs in smaller ways.

use std::fmt;

use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

mod format;
mod lists;
mod net;
mod quantity;
mod regex;
mod semver;
mod sets;
#[cfg(test)]
mod tests;
mod url;

/// Adds the strings extension and every Kubernetes library to `env`.
pub(super) fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_extension(cel::extensions::strings)?;
    lists::library(env)?;
    regex::library(env)?;
    sets::library(env)?;
    quantity::library(env)?;
    url::library(env)?;
    net::library(env)?;
    format::library(env)?;
    semver::library(env)
}

type Args<'b, 'v> = Vec<CowVal<'b, 'v>>;
type Returns<'b, 'v> = Result<CowVal<'b, 'v>, ExecutionError>;

/// An evaluation error shown as `message` alone, as the Kubernetes libraries' errors are
/// (`quantities must match the regular expression ...`), not prefixed with a function.
fn k8s_error(message: impl fmt::Display) -> ExecutionError {
    ExecutionError::function_error("", message)
}

fn args<'b, 'v, const N: usize>(args: Args<'b, 'v>) -> Result<[CowVal<'b, 'v>; N], ExecutionError> {
    args.try_into().map_err(|args: Vec<_>| ExecutionError::invalid_argument_count(N, args.len()))
}

fn elements<'a, 'v>(function: &str, list: &'a (dyn Val + 'v)) -> Result<Vec<&'a (dyn Val + 'v)>, ExecutionError> {
    let iterable =
        list.as_iterable().ok_or_else(|| ExecutionError::function_error(function, "receiver is not a list"))?;
    let mut items = iterable.iter();
    let mut out = Vec::new();
    while let Some(item) = items.next() {
        out.push(item);
    }
    Ok(out)
}

fn string_arg<'a>(function: &str, val: &'a dyn Val) -> Result<&'a str, ExecutionError> {
    <&str>::try_from(val).map_err(|_| {
        ExecutionError::function_error(function, format!("expected a string, got {}", val.get_type().name()))
    })
}
