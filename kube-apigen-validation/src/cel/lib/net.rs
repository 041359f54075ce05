//! Kubernetes' IP and CIDR libraries: `ip`, `isIP`, `ip.isCanonical`, `cidr`, `isCIDR`
//! and the methods of `net.IP` and `net.CIDR` values.
//!
//! Addresses are read as Go's `netip.ParseAddr` reads them (dotted IPv4 without leading
//! zeros, IPv6 with an optional embedded IPv4 tail), with its error messages; Kubernetes
//! then rejects zones (`fe80::1%eth0`) and IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`).
//! A CIDR is an address and a prefix length, as `netip.ParsePrefix` reads it: the address
//! may have bits set after the prefix (`cidr('10.0.0.1/8')` is valid, `masked()` clears
//! them). `containsCIDR` is the corrected one (kubernetes/kubernetes#130450, Kubernetes
//! 1.33 and backports): the other network is contained when its prefix is at least as
//! long and its address masked to this prefix is this network's
//! (`cidr('10.0.0.0/8').containsCIDR('10.1.0.0/16')`, which older servers deny).
//! `containsIP` given a string that is no address fails with 'no such overload', as in
//! Kubernetes; `containsCIDR` given a string that is no CIDR fails with `cidr`'s error.

use std::any::Any;
use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::sync::LazyLock;

use cel::common::types::{CelBool, CelInt, CelString, STRING_TYPE, Type};
use cel::common::value::{CowVal, StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::{Args, Returns, args, k8s_error, string_arg};
use kube_apigen_core::go::fmt as gofmt;

/// `net.IP`.
static IP_TYPE: LazyLock<Type> = LazyLock::new(|| Type::new_opaque_type("net.IP"));
/// `net.CIDR`.
static CIDR_TYPE: LazyLock<Type> = LazyLock::new(|| Type::new_opaque_type("net.CIDR"));

/// A `net.IP` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Ip(pub(super) IpAddr);

/// A `net.CIDR` value: an address and a prefix length, not necessarily masked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cidr {
    addr: IpAddr,
    bits: u8,
}

impl Val for Ip {
    fn get_type(&self) -> &Type {
        &IP_TYPE
    }

    fn cel_type() -> &'static Type {
        &IP_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<Ip>() == Some(self)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(*self)
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Ip {}

impl Val for Cidr {
    fn get_type(&self) -> &Type {
        &CIDR_TYPE
    }

    fn cel_type() -> &'static Type {
        &CIDR_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<Cidr>() == Some(self)
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(*self)
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Cidr {}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.bits)
    }
}

impl Cidr {
    fn masked(self) -> Cidr {
        Cidr { addr: mask(self.addr, self.bits), bits: self.bits }
    }

    fn contains_ip(self, ip: IpAddr) -> bool {
        ip.is_ipv4() == self.addr.is_ipv4() && mask(ip, self.bits) == mask(self.addr, self.bits)
    }

    fn contains_cidr(self, other: Cidr) -> bool {
        self.bits <= other.bits && self.contains_ip(other.addr)
    }
}

/// `addr` with the bits after the first `bits` cleared.
fn mask(addr: IpAddr, bits: u8) -> IpAddr {
    match addr {
        IpAddr::V4(a) => {
            let keep = u32::MAX.checked_shl(32 - u32::from(bits)).unwrap_or(0);
            IpAddr::V4(Ipv4Addr::from(u32::from(a) & keep))
        }
        IpAddr::V6(a) => {
            let keep = u128::MAX.checked_shl(128 - u32::from(bits)).unwrap_or(0);
            IpAddr::V6(Ipv6Addr::from(u128::from(a) & keep))
        }
    }
}

// ---- Parsing, as Go's net/netip ----

/// A `netip.ParseAddr` error, worded as Go's.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct AddrError {
    input: String,
    msg: &'static str,
    at: Option<String>,
}

impl fmt::Display for AddrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ParseAddr({}): {}", gofmt::quote(&self.input), self.msg)?;
        if let Some(at) = &self.at {
            write!(f, " (at {})", gofmt::quote(at))?;
        }
        Ok(())
    }
}

/// An address and its IPv6 zone, as `netip.ParseAddr` reads them.
pub(super) fn parse_addr(input: &str) -> Result<(IpAddr, Option<&str>), AddrError> {
    let error = |msg, at: Option<&str>| AddrError { input: input.to_owned(), msg, at: at.map(str::to_owned) };
    // The first separator decides the family.
    match input.bytes().find(|b| matches!(b, b'.' | b':' | b'%')) {
        Some(b'.') => parse_ipv4_fields(input, input).map(|octets| (IpAddr::V4(Ipv4Addr::from(octets)), None)),
        Some(b':') => parse_ipv6(input).map(|(addr, zone)| (IpAddr::V6(addr), zone)),
        Some(_) => Err(error("missing IPv6 address", None)),
        None => Err(error("unable to parse IP", None)),
    }
}

/// Four dotted decimal octets, without leading zeros; `text` is part of `input`.
fn parse_ipv4_fields(input: &str, text: &str) -> Result<[u8; 4], AddrError> {
    let error = |msg, at: Option<&str>| AddrError { input: input.to_owned(), msg, at: at.map(str::to_owned) };
    let bytes = text.as_bytes();
    let mut octets = [0u8; 4];
    let mut filled = 0;
    let mut value: u32 = 0;
    let mut digits = 0;
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'0'..=b'9' => {
                if digits == 1 && value == 0 {
                    return Err(error("IPv4 field has octet with leading zero", None));
                }
                value = value * 10 + u32::from(b - b'0');
                digits += 1;
                if value > 255 {
                    return Err(error("IPv4 field has value >255", None));
                }
            }
            b'.' => {
                if i == 0 || i == bytes.len() - 1 || bytes[i - 1] == b'.' {
                    return Err(error("IPv4 field must have at least one digit", Some(&text[i..])));
                }
                if filled == 3 {
                    return Err(error("IPv4 address too long", None));
                }
                octets[filled] = value as u8;
                filled += 1;
                value = 0;
                digits = 0;
            }
            _ => return Err(error("unexpected character", Some(&text[i..]))),
        }
    }
    if filled < 3 {
        return Err(error("IPv4 address too short", None));
    }
    octets[3] = value as u8;
    Ok(octets)
}

/// Colon-separated hex groups, one `::` at most, an optional IPv4 tail and zone.
fn parse_ipv6(input: &str) -> Result<(Ipv6Addr, Option<&str>), AddrError> {
    let error = |msg, at: &str| AddrError { input: input.to_owned(), msg, at: (!at.is_empty()).then(|| at.to_owned()) };
    let (mut rest, zone) = match input.split_once('%') {
        Some((_, "")) => return Err(error("zone must be a non-empty string", "")),
        Some((addr, zone)) => (addr, Some(zone)),
        None => (input, None),
    };
    let mut bytes = [0u8; 16];
    let mut filled = 0;
    // Where the `::` stands, in bytes filled before it.
    let mut ellipsis = None;
    if let Some(after) = rest.strip_prefix("::") {
        ellipsis = Some(0);
        rest = after;
        if rest.is_empty() {
            return Ok((Ipv6Addr::UNSPECIFIED, zone));
        }
    }
    while filled < 16 {
        let hex = rest.bytes().take_while(u8::is_ascii_hexdigit).count();
        if hex > 4 {
            return Err(error("each group must have 4 or less digits", rest));
        }
        if hex == 0 {
            return Err(error("each colon-separated field must have at least one digit", rest));
        }
        if rest.as_bytes().get(hex) == Some(&b'.') {
            if ellipsis.is_none() && filled != 12 {
                return Err(error("embedded IPv4 address must replace the final 2 fields of the address", rest));
            }
            if filled + 4 > 16 {
                return Err(error("too many hex fields to fit an embedded IPv4 at the end of the address", rest));
            }
            let octets = parse_ipv4_fields(input, rest)?;
            bytes[filled..filled + 4].copy_from_slice(&octets);
            filled += 4;
            rest = "";
            break;
        }
        let group = u16::from_str_radix(&rest[..hex], 16).unwrap_or_default();
        bytes[filled..filled + 2].copy_from_slice(&group.to_be_bytes());
        filled += 2;
        rest = &rest[hex..];
        if rest.is_empty() {
            break;
        }
        if !rest.starts_with(':') {
            return Err(error("unexpected character, want colon", rest));
        }
        if rest.len() == 1 {
            return Err(error("colon must be followed by more characters", rest));
        }
        rest = &rest[1..];
        if let Some(after) = rest.strip_prefix(':') {
            if ellipsis.is_some() {
                return Err(error("multiple :: in address", rest));
            }
            ellipsis = Some(filled);
            rest = after;
            if rest.is_empty() {
                break;
            }
        }
    }
    if !rest.is_empty() {
        return Err(error("trailing garbage after address", rest));
    }
    match ellipsis {
        Some(at) if filled < 16 => {
            // Move what follows the `::` to the end, zeros in between.
            let gap = 16 - filled;
            bytes.copy_within(at..filled, at + gap);
            bytes[at..at + gap].fill(0);
        }
        Some(_) => {
            return Err(error("the :: must expand to at least one field of zeros", rest));
        }
        None if filled < 16 => return Err(error("address string too short", "")),
        None => {}
    }
    Ok((Ipv6Addr::from(bytes), zone))
}

fn is_ipv4_mapped(addr: IpAddr) -> bool {
    matches!(addr, IpAddr::V6(a) if a.to_ipv4_mapped().is_some())
}

/// An IP address as Kubernetes' `ip()` accepts it, or its error.
pub(super) fn parse_ip(raw: &str) -> Result<IpAddr, String> {
    let (addr, zone) = parse_addr(raw)
        .map_err(|err| format!("IP Address {} parse error during conversion from string: {err}", gofmt::quote(raw)))?;
    if zone.is_some() {
        return Err(format!("IP address {} with zone value is not allowed", gofmt::quote(raw)));
    }
    if is_ipv4_mapped(addr) {
        return Err(format!("IPv4-mapped IPv6 address {} is not allowed", gofmt::quote(raw)));
    }
    Ok(addr)
}

/// A CIDR as Kubernetes' `cidr()` accepts it, or its error (without the outer
/// `network address parse error during conversion from string: ` that `cidr()` adds).
fn parse_cidr(raw: &str) -> Result<Cidr, String> {
    let prefix_error = |msg: &str| {
        format!(
            "network address parse error during conversion from string: netip.ParsePrefix({}): {msg}",
            gofmt::quote(raw)
        )
    };
    let Some(slash) = raw.rfind('/') else {
        return Err(prefix_error("no '/'"));
    };
    let (addr, zone) = parse_addr(&raw[..slash]).map_err(|err| prefix_error(&err.to_string()))?;
    if addr.is_ipv6() && zone.is_some() {
        return Err(prefix_error("IPv6 zones cannot be present in a prefix"));
    }
    let bits_text = &raw[slash + 1..];
    let bad_bits = || prefix_error(&format!("bad bits after slash: {}", gofmt::quote(bits_text)));
    if bits_text.len() > 1 && !matches!(bits_text.as_bytes()[0], b'1'..=b'9') {
        return Err(bad_bits());
    }
    if bits_text.is_empty() || !bits_text.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad_bits());
    }
    let bits: u64 = bits_text.parse().map_err(|_| bad_bits())?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    if bits > max {
        return Err(prefix_error("prefix length out of range"));
    }
    if is_ipv4_mapped(addr) {
        return Err(format!("IPv4-mapped IPv6 address {} is not allowed", gofmt::quote(raw)));
    }
    Ok(Cidr { addr, bits: bits as u8 })
}

fn cidr_of(raw: &str) -> Result<Cidr, ExecutionError> {
    parse_cidr(raw)
        .map_err(|err| k8s_error(format!("network address parse error during conversion from string: {err}")))
}

/// `netip.Addr.IsGlobalUnicast`: not unspecified, broadcast, loopback, multicast or
/// link-local unicast (private addresses are global unicast).
fn is_global_unicast(addr: IpAddr) -> bool {
    if addr == IpAddr::V4(Ipv4Addr::BROADCAST) {
        return false;
    }
    !addr.is_unspecified() && !addr.is_loopback() && !addr.is_multicast() && !is_link_local_unicast(addr)
}

fn is_link_local_unicast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(a) => a.octets()[..2] == [169, 254],
        IpAddr::V6(a) => a.segments()[0] & 0xffc0 == 0xfe80,
    }
}

fn is_link_local_multicast(addr: IpAddr) -> bool {
    match addr {
        IpAddr::V4(a) => a.octets()[..3] == [224, 0, 0],
        IpAddr::V6(a) => a.segments()[0] & 0xff0f == 0xff02,
    }
}

// ---- The CEL functions ----

/// Registers the IP and CIDR libraries.
pub(super) fn library(env: &mut Env) -> Result<(), DeclarationError> {
    let ip = || (*IP_TYPE).to_owned();
    let cidr = || (*CIDR_TYPE).to_owned();
    env.add_type(ip())?;
    env.add_type(cidr())?;

    env.add_overload("ip", "string_to_ip", vec![STRING_TYPE], to_ip)?;
    env.add_overload("isIP", "is_ip", vec![STRING_TYPE], is_ip)?;
    env.add_overload("ip.isCanonical", "ip_is_canonical", vec![STRING_TYPE], is_canonical)?;
    env.add_overload("string", "ip_to_string", vec![ip()], ip_to_string)?;
    env.add_member_overload("family", "ip_family", ip(), vec![], family)?;
    env.add_member_overload("isUnspecified", "ip_is_unspecified", ip(), vec![], ip_is_unspecified)?;
    env.add_member_overload("isLoopback", "ip_is_loopback", ip(), vec![], ip_is_loopback)?;
    env.add_member_overload(
        "isLinkLocalMulticast",
        "ip_is_link_local_multicast",
        ip(),
        vec![],
        ip_is_link_local_multicast,
    )?;
    env.add_member_overload("isLinkLocalUnicast", "ip_is_link_local_unicast", ip(), vec![], ip_is_link_local_unicast)?;
    env.add_member_overload("isGlobalUnicast", "ip_is_global_unicast", ip(), vec![], ip_is_global_unicast)?;

    env.add_overload("cidr", "string_to_cidr", vec![STRING_TYPE], to_cidr)?;
    env.add_overload("isCIDR", "is_cidr", vec![STRING_TYPE], is_cidr)?;
    env.add_overload("string", "cidr_to_string", vec![cidr()], cidr_to_string)?;
    env.add_member_overload("containsIP", "cidr_contains_ip_string", cidr(), vec![STRING_TYPE], contains_ip)?;
    env.add_member_overload("containsIP", "cidr_contains_ip_ip", cidr(), vec![ip()], contains_ip)?;
    env.add_member_overload("containsCIDR", "cidr_contains_cidr_string", cidr(), vec![STRING_TYPE], contains_cidr)?;
    env.add_member_overload("containsCIDR", "cidr_contains_cidr", cidr(), vec![cidr()], contains_cidr)?;
    env.add_member_overload("ip", "cidr_ip", cidr(), vec![], cidr_ip)?;
    env.add_member_overload("masked", "cidr_masked", cidr(), vec![], cidr_masked)?;
    env.add_member_overload("prefixLength", "cidr_prefix_length", cidr(), vec![], prefix_length)?;
    Ok(())
}

fn no_overload(function: &str, value: &dyn Val) -> ExecutionError {
    ExecutionError::no_such_overload(function, vec![value.get_type().name().to_owned()])
}

fn ip_arg(function: &str, value: &dyn Val) -> Result<IpAddr, ExecutionError> {
    value.downcast_ref::<Ip>().map(|ip| ip.0).ok_or_else(|| no_overload(function, value))
}

fn cidr_arg(function: &str, value: &dyn Val) -> Result<Cidr, ExecutionError> {
    value.downcast_ref::<Cidr>().copied().ok_or_else(|| no_overload(function, value))
}

fn to_ip<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let addr = parse_ip(string_arg("ip", text.as_ref())?).map_err(k8s_error)?;
    Ok(CowVal::owned(Ip(addr)))
}

fn is_ip<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let valid = parse_ip(string_arg("isIP", text.as_ref())?).is_ok();
    Ok(CowVal::owned(CelBool::from(valid)))
}

fn is_canonical<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let text = string_arg("ip.isCanonical", text.as_ref())?;
    let addr = parse_ip(text).map_err(k8s_error)?;
    Ok(CowVal::owned(CelBool::from(addr.to_string() == text)))
}

fn ip_to_string<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [ip] = args(a)?;
    let text = ip_arg("string", ip.as_ref())?.to_string();
    Ok(CowVal::owned(CelString::from(text)))
}

fn family<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [ip] = args(a)?;
    let family = if ip_arg("family", ip.as_ref())?.is_ipv4() { 4 } else { 6 };
    Ok(CowVal::owned(CelInt::from(family)))
}

fn ip_predicate<'b, 'v>(function: &str, a: Args<'b, 'v>, predicate: fn(IpAddr) -> bool) -> Returns<'b, 'v> {
    let [ip] = args(a)?;
    Ok(CowVal::owned(CelBool::from(predicate(ip_arg(function, ip.as_ref())?))))
}

fn ip_is_unspecified<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    ip_predicate("isUnspecified", a, |ip| ip.is_unspecified())
}

fn ip_is_loopback<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    ip_predicate("isLoopback", a, |ip| ip.is_loopback())
}

fn ip_is_link_local_multicast<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    ip_predicate("isLinkLocalMulticast", a, is_link_local_multicast)
}

fn ip_is_link_local_unicast<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    ip_predicate("isLinkLocalUnicast", a, is_link_local_unicast)
}

fn ip_is_global_unicast<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    ip_predicate("isGlobalUnicast", a, is_global_unicast)
}

fn to_cidr<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    Ok(CowVal::owned(cidr_of(string_arg("cidr", text.as_ref())?)?))
}

fn is_cidr<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let valid = parse_cidr(string_arg("isCIDR", text.as_ref())?).is_ok();
    Ok(CowVal::owned(CelBool::from(valid)))
}

fn cidr_to_string<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [cidr] = args(a)?;
    let text = cidr_arg("string", cidr.as_ref())?.to_string();
    Ok(CowVal::owned(CelString::from(text)))
}

fn contains_ip<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [cidr, other] = args(a)?;
    let cidr = cidr_arg("containsIP", cidr.as_ref())?;
    let ip = match <&str>::try_from(other.as_ref()) {
        // Kubernetes reports an unparsable string as no matching overload.
        Ok(text) => parse_ip(text).map_err(|_| no_overload("containsIP", other.as_ref()))?,
        Err(_) => ip_arg("containsIP", other.as_ref())?,
    };
    Ok(CowVal::owned(CelBool::from(cidr.contains_ip(ip))))
}

fn contains_cidr<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [cidr, other] = args(a)?;
    let cidr = cidr_arg("containsCIDR", cidr.as_ref())?;
    let other = match <&str>::try_from(other.as_ref()) {
        Ok(text) => cidr_of(text)?,
        Err(_) => cidr_arg("containsCIDR", other.as_ref())?,
    };
    Ok(CowVal::owned(CelBool::from(cidr.contains_cidr(other))))
}

fn cidr_ip<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [cidr] = args(a)?;
    Ok(CowVal::owned(Ip(cidr_arg("ip", cidr.as_ref())?.addr)))
}

fn cidr_masked<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [cidr] = args(a)?;
    Ok(CowVal::owned(cidr_arg("masked", cidr.as_ref())?.masked()))
}

fn prefix_length<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [cidr] = args(a)?;
    let bits = cidr_arg("prefixLength", cidr.as_ref())?.bits;
    Ok(CowVal::owned(CelInt::from(i64::from(bits))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        parse_ip(text).unwrap_or_else(|err| panic!("{err}"))
    }

    fn cidr(text: &str) -> Cidr {
        parse_cidr(text).unwrap_or_else(|err| panic!("{err}"))
    }

    #[test]
    fn addresses_as_netip_reads_them() {
        for (text, canonical) in [
            ("127.0.0.1", "127.0.0.1"),
            ("0.0.0.0", "0.0.0.0"),
            ("::1", "::1"),
            ("::", "::"),
            ("2001:db8::abcd", "2001:db8::abcd"),
            ("2001:DB8::ABCD", "2001:db8::abcd"),
            ("2001:db8::0:0:0:abcd", "2001:db8::abcd"),
            ("2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"),
            ("1:0:0:1:0:0:0:1", "1:0:0:1::1"),
            ("::1.2.3.4", "::102:304"),
            ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
            ("fe80::", "fe80::"),
            ("0001::", "1::"),
        ] {
            assert_eq!(ip(text).to_string(), canonical, "{text}");
        }
    }

    #[test]
    fn address_errors_are_kubernetes() {
        let err = |text: &str| parse_ip(text).unwrap_err();
        let parse = |text: &str, reason: &str| {
            format!(
                "IP Address {} parse error during conversion from string: ParseAddr({}): {reason}",
                gofmt::quote(text),
                gofmt::quote(text)
            )
        };
        assert_eq!(err(""), parse("", "unable to parse IP"));
        assert_eq!(err("foo"), parse("foo", "unable to parse IP"));
        assert_eq!(err("127.0.0.256"), parse("127.0.0.256", "IPv4 field has value >255"));
        assert_eq!(err("01.2.3.4"), parse("01.2.3.4", "IPv4 field has octet with leading zero"));
        assert_eq!(err("1.2.3"), parse("1.2.3", "IPv4 address too short"));
        assert_eq!(err("1.2.3.4.5"), parse("1.2.3.4.5", "IPv4 address too long"));
        assert_eq!(err("1..2.3"), parse("1..2.3", "IPv4 field must have at least one digit (at \".2.3\")"));
        assert_eq!(err("1.2.3.x"), parse("1.2.3.x", "unexpected character (at \"x\")"));
        assert_eq!(err(":::1"), parse(":::1", "each colon-separated field must have at least one digit (at \":1\")"));
        assert_eq!(err("1::2::3"), parse("1::2::3", "multiple :: in address (at \":3\")"));
        assert_eq!(err("1:2"), parse("1:2", "address string too short"));
        assert_eq!(err("12345::"), parse("12345::", "each group must have 4 or less digits (at \"12345::\")"));
        assert_eq!(err("1:2:3:4:5:6:7:8:9"), parse("1:2:3:4:5:6:7:8:9", "trailing garbage after address (at \"9\")"));
        assert_eq!(
            err("1:2:3:4:5:6:7::8"),
            parse("1:2:3:4:5:6:7::8", "the :: must expand to at least one field of zeros")
        );
        assert_eq!(err("1::2:"), parse("1::2:", "colon must be followed by more characters (at \":\")"));
        assert_eq!(
            err("1:2:1.2.3.4"),
            parse(
                "1:2:1.2.3.4",
                "embedded IPv4 address must replace the final 2 fields of the address (at \"1.2.3.4\")"
            )
        );
        assert_eq!(err("%eth0"), parse("%eth0", "missing IPv6 address"));
        assert_eq!(err("fe80::1%eth0"), "IP address \"fe80::1%eth0\" with zone value is not allowed");
        assert_eq!(err("::ffff:1.2.3.4"), "IPv4-mapped IPv6 address \"::ffff:1.2.3.4\" is not allowed");
    }

    #[test]
    fn address_classes_as_netip() {
        let all = |text: &str| {
            let a = ip(text);
            [
                a.is_unspecified(),
                a.is_loopback(),
                is_link_local_multicast(a),
                is_link_local_unicast(a),
                is_global_unicast(a),
            ]
        };
        assert_eq!(all("0.0.0.0"), [true, false, false, false, false]);
        assert_eq!(all("::"), [true, false, false, false, false]);
        assert_eq!(all("127.0.0.1"), [false, true, false, false, false]);
        assert_eq!(all("127.9.9.9"), [false, true, false, false, false]);
        assert_eq!(all("::1"), [false, true, false, false, false]);
        assert_eq!(all("224.0.0.1"), [false, false, true, false, false]);
        assert_eq!(all("224.0.1.1"), [false, false, false, false, false]);
        assert_eq!(all("ff02::1"), [false, false, true, false, false]);
        assert_eq!(all("ff05::1"), [false, false, false, false, false]);
        assert_eq!(all("169.254.169.254"), [false, false, false, true, false]);
        assert_eq!(all("fe80::1"), [false, false, false, true, false]);
        assert_eq!(all("fd80::1"), [false, false, false, false, true]);
        assert_eq!(all("192.168.0.1"), [false, false, false, false, true]);
        assert_eq!(all("255.255.255.255"), [false, false, false, false, false]);
        assert_eq!(all("2001:db8::abcd"), [false, false, false, false, true]);
    }

    #[test]
    fn cidrs_as_kubernetes() {
        assert_eq!(cidr("192.168.0.0/16").to_string(), "192.168.0.0/16");
        assert_eq!(cidr("192.168.0.1/24").to_string(), "192.168.0.1/24");
        assert_eq!(cidr("192.168.0.1/24").masked().to_string(), "192.168.0.0/24");
        assert_eq!(cidr("::1/128").to_string(), "::1/128");
        assert_eq!(cidr("2001:db8::1/32").masked().to_string(), "2001:db8::/32");
        assert_eq!(cidr("0.0.0.0/0").masked().to_string(), "0.0.0.0/0");
        assert_eq!(cidr("1.2.3.4/32").masked(), cidr("1.2.3.4/32"));

        let contains = |net: &str, addr: &str| cidr(net).contains_ip(ip(addr));
        assert!(contains("192.168.0.0/24", "192.168.0.1"));
        assert!(!contains("192.168.0.0/24", "192.168.1.1"));
        assert!(contains("0.0.0.0/0", "8.8.8.8"));
        assert!(!contains("0.0.0.0/0", "::1"));
        assert!(contains("::/0", "::1"));
        let contains = |net: &str, other: &str| cidr(net).contains_cidr(cidr(other));
        assert!(contains("192.168.0.0/16", "192.168.10.0/24"));
        assert!(contains("192.168.0.0/16", "192.168.0.1/32"));
        assert!(!contains("192.168.1.0/24", "192.168.2.0/24"));
        assert!(!contains("192.168.0.0/24", "192.168.0.0/16"));
        assert!(!contains("192.168.0.0/16", "192.200.0.0/30"));
        assert!(!contains("::/0", "10.0.0.0/8"));

        let err = |text: &str| parse_cidr(text).unwrap_err();
        let prefix = |text: &str, reason: &str| {
            format!(
                "network address parse error during conversion from string: netip.ParsePrefix({}): {reason}",
                gofmt::quote(text)
            )
        };
        assert_eq!(err("192.168.0.0"), prefix("192.168.0.0", "no '/'"));
        assert_eq!(err("192.168.0.0/33"), prefix("192.168.0.0/33", "prefix length out of range"));
        assert_eq!(err("::1/129"), prefix("::1/129", "prefix length out of range"));
        assert_eq!(err("1.2.3.4/08"), prefix("1.2.3.4/08", "bad bits after slash: \"08\""));
        assert_eq!(err("1.2.3.4/"), prefix("1.2.3.4/", "bad bits after slash: \"\""));
        assert_eq!(err("1.2.3/8"), prefix("1.2.3/8", "ParseAddr(\"1.2.3\"): IPv4 address too short"));
        assert_eq!(err("fe80::%eth0/64"), prefix("fe80::%eth0/64", "IPv6 zones cannot be present in a prefix"));
        assert_eq!(err("::ffff:1.2.3.4/120"), "IPv4-mapped IPv6 address \"::ffff:1.2.3.4/120\" is not allowed");
    }
}
