//! `strconv.ParseInt(s, 0, 64)`, `ParseUint(s, 0, 64)` and the decimal forms of
//! `ParseFloat(s, 64)`, which YAML 1.1 number resolution is built on. By hand: Rust's
//! parsers know no base prefixes, and read an overflowing float as infinity where Go
//! fails.

/// The digits after an optional base prefix, and the base (Go's base 0).
fn base_and_digits(s: &str) -> (u32, &str) {
    let b = s.as_bytes();
    match b {
        [b'0', p, ..] if p.eq_ignore_ascii_case(&b'x') => (16, &s[2..]),
        [b'0', p, ..] if p.eq_ignore_ascii_case(&b'o') => (8, &s[2..]),
        [b'0', p, ..] if p.eq_ignore_ascii_case(&b'b') => (2, &s[2..]),
        [b'0', _, ..] => (8, &s[1..]),
        _ => (10, s),
    }
}

/// Go's `underscoreOK`: underscores only between digits, or after a base prefix.
fn underscores_ok(s: &str) -> bool {
    let s = s.strip_prefix(['+', '-']).unwrap_or(s);
    let b = s.as_bytes();
    let mut i = 0;
    // What came last: '^' the start, '0' a digit or prefix, '_' an underscore, '!' else.
    let mut saw = '^';
    let mut hex = false;
    if b.len() >= 2 && b[0] == b'0' && matches!(b[1].to_ascii_lowercase(), b'b' | b'o' | b'x') {
        i = 2;
        saw = '0';
        hex = b[1].eq_ignore_ascii_case(&b'x');
    }
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_digit() || (hex && c.is_ascii_hexdigit()) {
            saw = '0';
        } else if c == b'_' {
            if saw != '0' {
                return false;
            }
            saw = '_';
        } else {
            if saw == '_' {
                return false;
            }
            saw = '!';
        }
        i += 1;
    }
    saw != '_'
}

/// `strconv.ParseUint(s, 0, 64)`.
pub fn parse_uint0(s: &str) -> Option<u64> {
    if s.is_empty() || !underscores_ok(s) {
        return None;
    }
    let (base, digits) = base_and_digits(s);
    let digits = digits.replace('_', "");
    // A prefix alone (`0x`) is no number; `0` alone is.
    if digits.is_empty() {
        return (s == "0").then_some(0);
    }
    if !digits.bytes().all(|c| (c as char).is_digit(base)) {
        return None;
    }
    u64::from_str_radix(&digits, base).ok()
}

/// `strconv.ParseInt(s, 0, 64)`.
pub fn parse_int0(s: &str) -> Option<i64> {
    let (negative, unsigned) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let magnitude = parse_uint0(unsigned)?;
    if negative { 0i64.checked_sub_unsigned(magnitude) } else { i64::try_from(magnitude).ok() }
}

/// `strconv.ParseFloat(s, 64)` for decimal text (`1.5`, `.5e3`, `-2.`): `None` where Go
/// fails, an overflow included. Hex floats, `inf` and `nan` are not read.
pub fn parse_decimal_float(s: &str) -> Option<f64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if !digits.starts_with(|c: char| c.is_ascii_digit() || c == '.') || digits.contains('_') {
        return None;
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_base_prefixes() {
        assert_eq!(parse_int0("010"), Some(8));
        assert_eq!(parse_int0("0x1F"), Some(31));
        assert_eq!(parse_int0("-0b101"), Some(-5));
        assert_eq!(parse_int0("0o17"), Some(15));
        assert_eq!(parse_int0("1_000"), Some(1000));
        assert_eq!(parse_int0("08"), None);
        assert_eq!(parse_int0("-9223372036854775808"), Some(i64::MIN));
        assert_eq!(parse_uint0("+1"), None);
        assert_eq!(parse_decimal_float("1e400"), None);
        assert_eq!(parse_decimal_float(".5"), Some(0.5));
    }
}
