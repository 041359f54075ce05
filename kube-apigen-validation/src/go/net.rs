//! `net.ParseIP`, `net.ParseCIDR` and `net.ParseMAC`, by hand: Rust's `std::net`
//! parsers refuse what Go accepts (an IPv4 tail after `::` anywhere Go allows it, CIDR
//! masks with leading zeros) and know nothing of the "sloppy" forms Kubernetes keeps for
//! compatibility.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Which Go reads the address.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strictness {
    /// Go 1.22 and later (`net.ParseIP` over `netip`): IPv4 fields without leading zeros,
    /// IPv6 groups of at most four hex digits.
    Strict,
    /// Go 1.16, as Kubernetes' `ParseIPSloppy`/`ParseCIDRSloppy` keep it: IPv4 fields
    /// with leading zeros read as decimal (`010.1.1.1` is 10.1.1.1), IPv6 groups of any
    /// length whose value fits 16 bits.
    Sloppy,
}

/// Decimal digits at the start of `s`: the value, how many, whether any (Go's `dtoi`).
fn decimal(s: &[u8]) -> Option<(u32, usize)> {
    let mut value = 0u32;
    let mut count = 0;
    for &c in s.iter().take_while(|c| c.is_ascii_digit()) {
        value = value * 10 + u32::from(c - b'0');
        count += 1;
        if value >= 0xFF_FFFF {
            return None;
        }
    }
    (count > 0).then_some((value, count))
}

/// Hex digits at the start of `s` (Go's `xtoi`).
fn hex(s: &[u8]) -> Option<(u32, usize)> {
    let mut value = 0u32;
    let mut count = 0;
    for &c in s.iter().take_while(|c| c.is_ascii_hexdigit()) {
        value = value * 16 + (c as char).to_digit(16).unwrap_or(0);
        count += 1;
        if value >= 0xFF_FFFF {
            return None;
        }
    }
    (count > 0).then_some((value, count))
}

fn parse_ipv4(s: &[u8], strictness: Strictness) -> Option<[u8; 4]> {
    let mut out = [0; 4];
    let mut rest = s;
    for (i, octet) in out.iter_mut().enumerate() {
        if i > 0 {
            rest = rest.strip_prefix(b".")?;
        }
        let (value, count) = decimal(rest)?;
        if value > 0xFF || (strictness == Strictness::Strict && count > 1 && rest[0] == b'0') {
            return None;
        }
        *octet = value as u8;
        rest = &rest[count..];
    }
    rest.is_empty().then_some(out)
}

fn parse_ipv6(s: &[u8], strictness: Strictness) -> Option<[u8; 16]> {
    let mut ip = [0u8; 16];
    let mut ellipsis = None;
    let mut rest = s;
    if rest.starts_with(b"::") {
        ellipsis = Some(0);
        rest = &rest[2..];
        if rest.is_empty() {
            return Some(ip);
        }
    }
    let mut i = 0;
    while i < 16 {
        let (value, count) = hex(rest)?;
        if value > 0xFFFF || (strictness == Strictness::Strict && count > 4) {
            return None;
        }
        // An IPv4 tail, in the last 32 bits.
        if rest.get(count) == Some(&b'.') {
            if (ellipsis.is_none() && i != 12) || i + 4 > 16 {
                return None;
            }
            ip[i..i + 4].copy_from_slice(&parse_ipv4(rest, strictness)?);
            rest = &[];
            i += 4;
            break;
        }
        ip[i] = (value >> 8) as u8;
        ip[i + 1] = value as u8;
        i += 2;
        rest = &rest[count..];
        if rest.is_empty() {
            break;
        }
        if rest[0] != b':' || rest.len() == 1 {
            return None;
        }
        rest = &rest[1..];
        if rest[0] == b':' {
            if ellipsis.is_some() {
                return None;
            }
            ellipsis = Some(i);
            rest = &rest[1..];
            if rest.is_empty() {
                break;
            }
        }
    }
    if !rest.is_empty() {
        return None;
    }
    match ellipsis {
        _ if i == 16 && ellipsis.is_some() => None,
        None if i < 16 => None,
        Some(at) if i < 16 => {
            let shift = 16 - i;
            ip.copy_within(at..i, at + shift);
            ip[at..at + shift].fill(0);
            Some(ip)
        }
        _ => Some(ip),
    }
}

/// `net.ParseIP`: an IPv4 address when the text has a `.` before any `:`, else IPv6.
/// IPv4-mapped IPv6 addresses (`::ffff:1.2.3.4`) are returned as IPv6.
pub fn parse_ip(s: &str, strictness: Strictness) -> Option<IpAddr> {
    match s.bytes().find(|&c| c == b'.' || c == b':')? {
        b'.' => parse_ipv4(s.as_bytes(), strictness).map(|ip| IpAddr::V4(Ipv4Addr::from(ip))),
        _ => parse_ipv6(s.as_bytes(), strictness).map(|ip| IpAddr::V6(Ipv6Addr::from(ip))),
    }
}

/// `net.ParseCIDR`: the address and the prefix length (`1.2.3.4/8`; the mask may have
/// leading zeros, `/08`).
pub fn parse_cidr(s: &str, strictness: Strictness) -> Option<(IpAddr, u8)> {
    let (address, mask) = s.split_once('/')?;
    let (ip, bits) = match parse_ipv4(address.as_bytes(), strictness) {
        Some(ip) => (IpAddr::V4(Ipv4Addr::from(ip)), 32),
        None => (IpAddr::V6(Ipv6Addr::from(parse_ipv6(address.as_bytes(), strictness)?)), 128),
    };
    let (length, count) = decimal(mask.as_bytes())?;
    (count == mask.len() && length <= bits).then_some((ip, length as u8))
}

/// `net.IP.String()`: IPv4 (and IPv4-mapped IPv6) dotted, IPv6 in RFC 5952 form.
pub fn ip_string(ip: IpAddr) -> String {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or_else(|| v6.to_string(), |v4| v4.to_string()),
        IpAddr::V4(v4) => v4.to_string(),
    }
}

/// `net.ParseMAC`: six, eight or twenty bytes, as `aa:bb:..`, `aa-bb-..` or `aabb.ccdd..`.
pub fn parse_mac(s: &str) -> Option<Vec<u8>> {
    let b = s.as_bytes();
    if b.len() < 14 {
        return None;
    }
    let pair = |at: usize| -> Option<u8> {
        let digits = b.get(at..at + 2)?;
        u8::from_str_radix(std::str::from_utf8(digits).ok()?, 16)
            .ok()
            .filter(|_| digits.iter().all(u8::is_ascii_hexdigit))
    };
    let valid_count = |n: usize| matches!(n, 6 | 8 | 20);
    if b[2] == b':' || b[2] == b'-' {
        let separator = b[2];
        if !(b.len() + 1).is_multiple_of(3) || !valid_count((b.len() + 1) / 3) {
            return None;
        }
        let n = (b.len() + 1) / 3;
        (0..n)
            .map(|i| {
                let at = i * 3;
                // Each pair but the last is followed by the separator.
                (i + 1 == n || b[at + 2] == separator).then_some(())?;
                pair(at)
            })
            .collect()
    } else if b[4] == b'.' {
        if !(b.len() + 1).is_multiple_of(5) || !valid_count(2 * (b.len() + 1) / 5) {
            return None;
        }
        let n = 2 * (b.len() + 1) / 5;
        let mut out = Vec::with_capacity(n);
        for i in (0..n).step_by(2) {
            let at = i / 2 * 5;
            (at + 4 == b.len() || b[at + 4] == b'.').then_some(())?;
            out.push(pair(at)?);
            out.push(pair(at + 2)?);
        }
        Some(out)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strict_and_sloppy() {
        let ip = |s, strictness| parse_ip(s, strictness).map(ip_string);
        assert_eq!(ip("010.1.1.1", Strictness::Strict), None);
        assert_eq!(ip("010.1.1.1", Strictness::Sloppy).as_deref(), Some("10.1.1.1"));
        assert_eq!(ip("::ffff:1.2.3.4", Strictness::Strict).as_deref(), Some("1.2.3.4"));
        assert_eq!(ip("1::00001", Strictness::Strict), None);
        assert_eq!(ip("1::00001", Strictness::Sloppy).as_deref(), Some("1::1"));
        assert_eq!(parse_cidr("10.0.0.1/08", Strictness::Strict), Some(("10.0.0.1".parse().unwrap(), 8)));
        assert_eq!(parse_mac("00:00:5e:00:53:01"), Some(vec![0, 0, 0x5e, 0, 0x53, 1]));
        assert_eq!(parse_mac("0000.5e00.5301"), Some(vec![0, 0, 0x5e, 0, 0x53, 1]));
    }
}
