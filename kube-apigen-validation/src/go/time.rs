//! `time.ParseDuration`, by hand: no crate reads Go's duration syntax (`1h30m`, `-1.5us`,
//! `µs`), and the `duration` format of custom resources starts with it.

/// Go's `time.ParseDuration`: nanoseconds, or `None` where Go fails.
pub fn parse_duration(s: &str) -> Option<i64> {
    let (negative, mut rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    if rest == "0" {
        return Some(0);
    }
    if rest.is_empty() {
        return None;
    }
    let mut total: u64 = 0;
    while !rest.is_empty() {
        if !rest.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
            return None;
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let mut whole: u64 = 0;
        for d in rest[..digits].bytes() {
            if whole > (1 << 63) / 10 {
                return None;
            }
            whole = whole * 10 + u64::from(d - b'0');
            if whole > 1 << 63 {
                return None;
            }
        }
        rest = &rest[digits..];
        // The fraction: digits after the point, kept while they fit.
        let (mut fraction, mut scale, mut fraction_digits) = (0u64, 1f64, 0);
        if let Some(after) = rest.strip_prefix('.') {
            fraction_digits = after.bytes().take_while(u8::is_ascii_digit).count();
            let mut overflow = false;
            for d in after[..fraction_digits].bytes() {
                if overflow || fraction > ((1u64 << 63) - 1) / 10 {
                    overflow = true;
                    continue;
                }
                let next = fraction * 10 + u64::from(d - b'0');
                if next > 1 << 63 {
                    overflow = true;
                    continue;
                }
                fraction = next;
                scale *= 10.0;
            }
            rest = &after[fraction_digits..];
        }
        if digits == 0 && fraction_digits == 0 {
            return None;
        }
        let unit_len = rest.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(rest.len());
        let unit: u64 = match &rest[..unit_len] {
            "ns" => 1,
            "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return None,
        };
        rest = &rest[unit_len..];
        if whole > (1 << 63) / unit {
            return None;
        }
        let mut value = whole * unit;
        if fraction > 0 {
            value += (fraction as f64 * (unit as f64 / scale)) as u64;
            if value > 1 << 63 {
                return None;
            }
        }
        total += value;
        if total > 1 << 63 {
            return None;
        }
    }
    if negative {
        return Some((total as i64).wrapping_neg());
    }
    i64::try_from(total).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_duration("1h30m"), Some(5_400_000_000_000));
        assert_eq!(parse_duration("-1.5us"), Some(-1_500));
        assert_eq!(parse_duration("1µs"), Some(1_000));
        assert_eq!(parse_duration(".5s"), Some(500_000_000));
        assert_eq!(parse_duration("0"), Some(0));
        assert_eq!(parse_duration("1"), None, "a unit is required");
        assert_eq!(parse_duration("1d"), None);
        assert_eq!(parse_duration(""), None);
    }
}
