//! `io.k8s.apimachinery.pkg.apis.meta.v1.Time` and `MicroTime`.

use std::fmt;

use jiff::Timestamp;
use jiff::civil::DateTime;
use jiff::tz::Offset;
use serde::de::{self, Deserializer, Visitor};
use serde::ser::{self as ser, Serializer};
use serde::{Deserialize, Serialize};

/// A point in time with second precision: `metav1.Time`.
///
/// Serializes as RFC 3339 in UTC with whole seconds (`2024-01-02T03:04:05Z`); any
/// fraction is truncated, as Kubernetes does, so a value with fractional seconds does not
/// survive a round trip. Deserializes what Go's `time.Parse(time.RFC3339, s)` accepts, as
/// the API server does: RFC 3339 with any offset, and Go's leniencies (a one-digit hour,
/// a comma before the fraction, offsets up to `±24:60`).
/// RFC 3339 writes only the years `0000..=9999`: serializing an earlier time (jiff
/// reaches back to -9999) is an error, not a panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Time(pub Timestamp);

/// A point in time with microsecond precision: `metav1.MicroTime`.
///
/// Like [`Time`], but serializes exactly six fractional digits
/// (`2024-01-02T03:04:05.123456Z`), truncating nanoseconds, and deserializes only what
/// Go's layout `2006-01-02T15:04:05.000000Z07:00` accepts: exactly six digits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MicroTime(pub Timestamp);

/// Go's zero time, `0001-01-01T00:00:00Z`: what an unset required timestamp decodes to.
/// Kubernetes encodes it as `null`, and so do [`Time`] and [`MicroTime`].
const ZERO_SECONDS: i64 = -62_135_596_800;

fn zero() -> Timestamp {
    Timestamp::from_second(ZERO_SECONDS).expect("year 1 is within jiff's range")
}

impl Default for Time {
    /// Go's zero time, which is encoded as `null`.
    fn default() -> Self {
        Time(zero())
    }
}

impl Default for MicroTime {
    /// Go's zero time, which is encoded as `null`.
    fn default() -> Self {
        MicroTime(zero())
    }
}

impl Time {
    /// Whether this is Go's zero time (the default), encoded as `null`.
    pub fn is_zero(&self) -> bool {
        self.0 == zero()
    }

    /// The current time, truncated to whole seconds so that it equals what clients read back.
    pub fn now() -> Self {
        Time(truncate(Timestamp::now(), 1_000_000_000))
    }
}

impl MicroTime {
    /// The current time, truncated to whole microseconds so that it equals what clients
    /// read back.
    pub fn now() -> Self {
        MicroTime(truncate(Timestamp::now(), 1_000))
    }
}

/// Rounds down (towards the past) to a multiple of `unit` nanoseconds.
fn truncate(ts: Timestamp, unit: i128) -> Timestamp {
    let ns = ts.as_nanosecond();
    Timestamp::from_nanosecond(ns - ns.rem_euclid(unit)).unwrap_or(ts)
}

impl From<Timestamp> for Time {
    fn from(value: Timestamp) -> Self {
        Time(value)
    }
}

impl From<Timestamp> for MicroTime {
    fn from(value: Timestamp) -> Self {
        MicroTime(value)
    }
}

impl From<Time> for Timestamp {
    fn from(value: Time) -> Self {
        value.0
    }
}

impl From<MicroTime> for Timestamp {
    fn from(value: MicroTime) -> Self {
        value.0
    }
}

/// The civil UTC datetime of `ts`, if its year fits RFC 3339's four digits.
fn utc_datetime(ts: Timestamp) -> Option<DateTime> {
    let dt = Offset::UTC.to_datetime(ts);
    (0..=9999).contains(&dt.year()).then_some(dt)
}

/// Writes `dt` as RFC 3339 in UTC, with no fraction or exactly six digits.
fn write_rfc3339(f: &mut impl fmt::Write, dt: DateTime, micros: bool) -> fmt::Result {
    write!(
        f,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
        dt.year(),
        dt.month(),
        dt.day(),
        dt.hour(),
        dt.minute(),
        dt.second()
    )?;
    if micros {
        write!(f, ".{:06}", dt.subsec_nanosecond() / 1_000)?;
    }
    f.write_char('Z')
}

fn display(f: &mut fmt::Formatter<'_>, ts: Timestamp, micros: bool) -> fmt::Result {
    match utc_datetime(ts) {
        Some(dt) => write_rfc3339(f, dt, micros),
        // Years outside 0000..=9999 have no RFC 3339 form; show jiff's extended-year form.
        None if micros => write!(f, "{ts:.6}"),
        None => write!(f, "{ts:.0}"),
    }
}

/// `2024-01-02T03:04:05Z`, the wire form.
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, self.0, false)
    }
}

/// `2024-01-02T03:04:05.123456Z`, the wire form.
impl fmt::Display for MicroTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display(f, self.0, true)
    }
}

fn serialize<S: Serializer>(serializer: S, ts: Timestamp, micros: bool) -> Result<S::Ok, S::Error> {
    if ts == zero() {
        return serializer.serialize_none();
    }
    let dt = utc_datetime(ts).ok_or_else(|| {
        ser::Error::custom(format_args!("timestamp {ts} is outside the years 0000..=9999 that RFC 3339 can write"))
    })?;
    let mut text = String::with_capacity(27);
    write_rfc3339(&mut text, dt, micros).map_err(ser::Error::custom)?;
    serializer.serialize_str(&text)
}

impl Serialize for Time {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(serializer, self.0, false)
    }
}

impl Serialize for MicroTime {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serialize(serializer, self.0, true)
    }
}

impl<'de> Deserialize<'de> for Time {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(LayoutVisitor(Layout::Seconds)).map(Time)
    }
}

impl<'de> Deserialize<'de> for MicroTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(LayoutVisitor(Layout::Micros)).map(MicroTime)
    }
}

impl std::str::FromStr for Time {
    type Err = ParseTimeError;

    /// Parses the text of a `metav1.Time`, as deserialization does.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s, Layout::Seconds).map(Time)
    }
}

impl std::str::FromStr for MicroTime {
    type Err = ParseTimeError;

    /// Parses the text of a `metav1.MicroTime`, as deserialization does.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse(s, Layout::Micros).map(MicroTime)
    }
}

/// Why a string is not a time in the layout: Go's `time.ParseError` text, such as
/// `parsing time "2024-01-02" as "2006-01-02T15:04:05Z07:00": cannot parse "" as "T"`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseTimeError {
    message: String,
}

impl fmt::Display for ParseTimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for ParseTimeError {}

/// The layouts Kubernetes parses with Go's `time.Parse`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// `metav1.Time`: `time.RFC3339`.
    Seconds,
    /// `metav1.MicroTime`: `RFC3339Micro`, exactly six fractional digits.
    Micros,
    /// A `format: date` string: `2006-01-02`.
    Date,
}

impl Layout {
    fn text(self) -> &'static str {
        match self {
            Layout::Seconds => "2006-01-02T15:04:05Z07:00",
            Layout::Micros => "2006-01-02T15:04:05.000000Z07:00",
            Layout::Date => "2006-01-02",
        }
    }
}

struct LayoutVisitor(Layout);

impl Visitor<'_> for LayoutVisitor {
    type Value = Timestamp;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a time in the layout {:?}", self.0.text())
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Timestamp, E> {
        parse(v, self.0).map_err(E::custom)
    }
}

/// One element of a layout, in the order Go's parser meets them.
#[derive(Clone, Copy)]
enum Element {
    Literal(&'static str),
    Year,
    Month,
    Day,
    Hour,
    Minute,
    Second,
    /// `.000000`: a period or comma and exactly six digits.
    Micros,
    /// `Z07:00`: `Z` or a `±hh:mm` offset.
    Zone,
}

impl Element {
    fn text(self) -> &'static str {
        match self {
            Element::Literal(text) => text,
            Element::Year => "2006",
            Element::Month => "01",
            Element::Day => "02",
            Element::Hour => "15",
            Element::Minute => "04",
            Element::Second => "05",
            Element::Micros => ".000000",
            Element::Zone => "Z07:00",
        }
    }
}

/// The elements of MicroTime's layout, of which the others are parts: Time's without
/// the fraction, the date's the first five.
const ELEMENTS: [Element; 13] = [
    Element::Year,
    Element::Literal("-"),
    Element::Month,
    Element::Literal("-"),
    Element::Day,
    Element::Literal("T"),
    Element::Hour,
    Element::Literal(":"),
    Element::Minute,
    Element::Literal(":"),
    Element::Second,
    Element::Micros,
    Element::Zone,
];

impl Layout {
    fn elements(self) -> impl Iterator<Item = Element> {
        let count = if self == Layout::Date { 5 } else { ELEMENTS.len() };
        ELEMENTS.into_iter().take(count).filter(move |e| self == Layout::Micros || !matches!(e, Element::Micros))
    }
}

/// Go's `time.Parse(layout, value)` for the layouts Kubernetes uses, written after Go's
/// general parser (no crate parses Go layouts): what it accepts beyond RFC 3339 is
/// accepted here too, such as a one-digit hour (`T7:04:05Z`), a comma before the fraction,
/// any number of fractional digits where the layout has none (beyond nine they are
/// ignored), offsets up to `±24:60`, and a sign inside MicroTime's six digits
/// (`.+12345`); what it refuses is refused (lowercase `t`/`z`, a MicroTime without six
/// digits). Errors are Go's, as Go 1.20 and later word them.
fn parse_fields(value: &str, layout: Layout) -> Result<Parsed, ParseTimeError> {
    let bytes = value.as_bytes();
    let cannot_parse = |at: usize, element: Element| ParseTimeError {
        message: format!(
            "parsing time {} as {}: cannot parse {} as {}",
            quote(value),
            quote(layout.text()),
            quote(&String::from_utf8_lossy(&bytes[at..])),
            quote(element.text())
        ),
    };
    let out_of_range = |what: &str| out_of_range(value, what);
    let digit = |at: usize| bytes.get(at).is_some_and(u8::is_ascii_digit);
    // Go's getnum: one or two digits, exactly two when `fixed`.
    let number = |at: usize, fixed: bool| -> Option<(i32, usize)> {
        if !digit(at) {
            return None;
        }
        let first = i32::from(bytes[at] - b'0');
        if !digit(at + 1) {
            return (!fixed).then_some((first, at + 1));
        }
        Some((first * 10 + i32::from(bytes[at + 1] - b'0'), at + 2))
    };

    let (mut year, mut month, mut day, mut hour, mut minute, mut second, mut nanos) = (0, 0, 0, 0, 0, 0, 0);
    let mut offset_seconds = 0;
    let mut at = 0;
    for element in layout.elements() {
        let start = at;
        let fail = || cannot_parse(start, element);
        match element {
            Element::Literal(text) => {
                if !bytes[at..].starts_with(text.as_bytes()) {
                    return Err(fail());
                }
                at += text.len();
            }
            Element::Year => {
                let field = bytes.get(at..at + 4).filter(|d| d.iter().all(u8::is_ascii_digit)).ok_or_else(fail)?;
                year = field.iter().fold(0, |n, d| n * 10 + i32::from(d - b'0'));
                at += 4;
            }
            Element::Month => {
                (month, at) = number(at, true).ok_or_else(fail)?;
                if !(1..=12).contains(&month) {
                    return Err(out_of_range("month"));
                }
            }
            Element::Day => (day, at) = number(at, true).ok_or_else(fail)?,
            Element::Hour => {
                (hour, at) = number(at, false).ok_or_else(fail)?;
                if hour >= 24 {
                    return Err(out_of_range("hour"));
                }
            }
            Element::Minute => {
                (minute, at) = number(at, true).ok_or_else(fail)?;
                if minute >= 60 {
                    return Err(out_of_range("minute"));
                }
            }
            Element::Second => {
                (second, at) = number(at, true).ok_or_else(fail)?;
                if second >= 60 {
                    return Err(out_of_range("second"));
                }
                // A fraction the layout does not have is read anyway, all its digits.
                let fraction_follows = matches!(bytes.get(at), Some(b'.' | b',')) && digit(at + 1);
                let layout_has_fraction = layout == Layout::Micros;
                if fraction_follows && !layout_has_fraction {
                    let digits = bytes[at + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
                    nanos = fraction_nanos(&bytes[at + 1..at + 1 + digits.min(9)], false).unwrap_or(0);
                    at += 1 + digits;
                }
            }
            Element::Micros => {
                let field = bytes.get(at..at + 7).filter(|f| matches!(f[0], b'.' | b',')).ok_or_else(fail)?;
                nanos = fraction_nanos(&field[1..], true).ok_or_else(fail)?;
                if nanos < 0 {
                    return Err(out_of_range("fractional second"));
                }
                at += 7;
            }
            Element::Zone => {
                if bytes.get(at) == Some(&b'Z') {
                    at += 1;
                    continue;
                }
                let zone = bytes.get(at..at + 6).filter(|z| z[3] == b':').ok_or_else(fail)?;
                let (hours, _) = number(at + 1, true).ok_or_else(fail)?;
                let (minutes, _) = number(at + 4, true).ok_or_else(fail)?;
                // Go allows 24 hours and 60 minutes: "some people do write" them.
                if hours > 24 {
                    return Err(out_of_range("time zone offset hour"));
                }
                if minutes > 60 {
                    return Err(out_of_range("time zone offset minute"));
                }
                offset_seconds = match zone[0] {
                    b'+' => hours * 3600 + minutes * 60,
                    b'-' => -(hours * 3600 + minutes * 60),
                    _ => return Err(fail()),
                };
                at += 6;
            }
        }
    }
    if at < bytes.len() {
        let rest = String::from_utf8_lossy(&bytes[at..]);
        return Err(ParseTimeError { message: format!("parsing time {}: extra text: {}", quote(value), quote(&rest)) });
    }
    // Years have four digits, the other fields two: the narrowing casts cannot truncate.
    let date = jiff::civil::Date::new(year as i16, month as i8, 1).map_err(|_| out_of_range("day"))?;
    if day < 1 || day > i32::from(date.days_in_month()) {
        return Err(out_of_range("day"));
    }
    let datetime = DateTime::new(year as i16, month as i8, day as i8, hour as i8, minute as i8, second as i8, nanos)
        .map_err(|_| out_of_range("day"))?;
    Ok(Parsed { datetime, offset_seconds })
}

/// Go's error for a field beyond its range, e.g. `parsing time "...": day out of range`.
fn out_of_range(value: &str, what: &str) -> ParseTimeError {
    ParseTimeError { message: format!("parsing time {}: {what} out of range", quote(value)) }
}

/// What [`parse_fields`] read: the civil time and the offset it was written in.
struct Parsed {
    datetime: DateTime,
    offset_seconds: i32,
}

/// Go's `time.Parse(layout, value)`, as an instant ([`parse_fields`]).
fn parse(value: &str, layout: Layout) -> Result<Timestamp, ParseTimeError> {
    if layout == Layout::Seconds
        && let Some(canonical) = parse_canonical(value.as_bytes())
    {
        return Ok(canonical);
    }
    let Parsed { datetime, offset_seconds } = parse_fields(value, layout)?;
    // A time beyond jiff's range (up to 9999-12-30T22:00:00Z) is reported as Go reports
    // years beyond its own.
    let beyond = |_| out_of_range(value, "year");
    let utc = Offset::UTC.to_timestamp(datetime).map_err(beyond)?;
    utc.checked_sub(jiff::SignedDuration::from_secs(i64::from(offset_seconds))).map_err(beyond)
}

/// The form Kubernetes writes every `metav1.Time` in, `2006-01-02T15:04:05Z`, read in one
/// step: what [`parse_fields`] makes of it, with none of its generality. `None` for
/// anything else, valid or not, which [`parse_fields`] then reads (and words the errors of).
fn parse_canonical(bytes: &[u8]) -> Option<Timestamp> {
    let &[y1, y2, y3, y4, b'-', mo1, mo2, b'-', d1, d2, b'T', h1, h2, b':', mi1, mi2, b':', s1, s2, b'Z'] = bytes
    else {
        return None;
    };
    let number =
        |digits: &[u8]| digits.iter().try_fold(0_i16, |n, d| d.is_ascii_digit().then(|| n * 10 + i16::from(d - b'0')));
    let two = |high, low| number(&[high, low]).map(|n| n as i8);
    // `DateTime::new` refuses what Go's ranges refuse: month 13, day 31 in April, hour 24.
    let datetime = DateTime::new(
        number(&[y1, y2, y3, y4])?,
        two(mo1, mo2)?,
        two(d1, d2)?,
        two(h1, h2)?,
        two(mi1, mi2)?,
        two(s1, s2)?,
        0,
    )
    .ok()?;
    Offset::UTC.to_timestamp(datetime).ok()
}

/// Whether Go's `time.Parse("2006-01-02", s)` accepts `s` (a `format: date` string).
pub fn is_date(s: &str) -> bool {
    parse_fields(s, Layout::Date).is_ok()
}

/// Nanoseconds from the field after the period, as Go's `parseNanoseconds` reads it: its
/// width sets the scale (at most nine places), and with `signed` a leading `+` or `-`
/// is allowed, as Go's `atoi` allows it (`None`: not a number).
fn fraction_nanos(field: &[u8], signed: bool) -> Option<i32> {
    let scale = 10_i32.pow(9 - field.len() as u32);
    let (negative, digits) = match field.split_first() {
        Some((b'-', rest)) if signed => (true, rest),
        Some((b'+', rest)) if signed => (false, rest),
        _ => (false, field),
    };
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let value = digits.iter().fold(0, |n, d| n * 10 + i32::from(d - b'0')) * scale;
    Some(if negative { -value } else { value })
}

/// Go's `time` package quoting of a value in an error: `"` and `\` escaped, bytes outside
/// printable ASCII as `\xNN`.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='\x7e' => out.push(c),
            _ => {
                let mut buf = [0; 4];
                for byte in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\x{byte:02x}"));
                }
            }
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seconds(text: &str) -> Result<(i64, i32), String> {
        parse(text, Layout::Seconds).map(|t| (t.as_second(), t.subsec_nanosecond())).map_err(|e| e.to_string())
    }

    fn micros(text: &str) -> Result<(i64, i32), String> {
        parse(text, Layout::Micros).map(|t| (t.as_second(), t.subsec_nanosecond())).map_err(|e| e.to_string())
    }

    #[test]
    fn go_leniencies() {
        assert_eq!(seconds("2024-01-02T03:04:05Z"), Ok((1_704_164_645, 0)));
        assert_eq!(seconds("2024-01-02T3:04:05Z"), seconds("2024-01-02T03:04:05Z"), "one-digit hour");
        assert_eq!(seconds("2024-01-02T03:04:05,5Z"), Ok((1_704_164_645, 500_000_000)), "comma");
        assert_eq!(seconds("2024-01-02T03:04:05.1234567891Z"), Ok((1_704_164_645, 123_456_789)));
        assert_eq!(seconds("2024-01-02T03:04:05+24:00"), Ok((1_704_164_645 - 86_400, 0)));
        assert_eq!(micros("2024-01-02T03:04:05.+12345Z"), Ok((1_704_164_645, 12_345_000)), "sign in the digits");
        assert_eq!(micros("2024-01-02T03:04:05.-00000Z"), Ok((1_704_164_645, 0)));
    }

    #[test]
    fn the_canonical_form_reads_as_the_general_parser_reads_it() {
        let general = |text: &str| {
            let Parsed { datetime, offset_seconds } = parse_fields(text, Layout::Seconds).ok()?;
            assert_eq!(offset_seconds, 0);
            Offset::UTC.to_timestamp(datetime).ok()
        };
        let canonical = [
            "2024-01-02T03:04:05Z",
            "0000-01-01T00:00:00Z",
            "0001-01-01T00:00:00Z",
            "1970-01-01T00:00:00Z",
            "2024-02-29T23:59:59Z",
            "2000-02-29T12:00:00Z",
            "9999-12-30T21:59:59Z",
        ];
        for text in canonical {
            assert!(parse_canonical(text.as_bytes()).is_some(), "{text}");
            assert_eq!(parse_canonical(text.as_bytes()), general(text), "{text}");
        }
        // Out of range, not canonical, or beyond jiff: left to the general parser, which
        // accepts the lenient forms and words the errors.
        let others = [
            "2023-02-29T00:00:00Z",
            "1900-02-29T00:00:00Z",
            "2024-04-31T00:00:00Z",
            "2024-13-01T00:00:00Z",
            "2024-00-01T00:00:00Z",
            "2024-01-00T00:00:00Z",
            "2024-01-01T24:00:00Z",
            "2024-01-01T00:60:00Z",
            "2024-01-01T00:00:60Z",
            "2024-01-01T00:00:00z",
            "2024-01-01t00:00:00Z",
            "2024-01-01T00:00:00+00:00",
            "2024-01-01T00:00:00.5Z",
            "2024-01-01T0:00:00Z ",
            "2024-01-01T+1:00:00Z",
            "2024-01-0+T00:00:00Z",
            "9999-12-31T23:59:59Z",
        ];
        for text in others {
            assert_eq!(parse_canonical(text.as_bytes()), None, "{text}");
        }
        assert_eq!(seconds("2024-01-01T00:00:00+00:00"), seconds("2024-01-01T00:00:00Z"));
        assert!(seconds("9999-12-31T23:59:59Z").unwrap_err().ends_with("year out of range"));
    }

    #[test]
    fn go_refusals_in_go_words() {
        let layout = r#"as "2006-01-02T15:04:05Z07:00""#;
        assert_eq!(
            seconds("2024-01-02t03:04:05Z").unwrap_err(),
            format!(r#"parsing time "2024-01-02t03:04:05Z" {layout}: cannot parse "t03:04:05Z" as "T""#)
        );
        assert_eq!(
            seconds("2024-01-02T03:04:05z").unwrap_err(),
            format!(r#"parsing time "2024-01-02T03:04:05z" {layout}: cannot parse "z" as "Z07:00""#)
        );
        assert_eq!(
            seconds("2024-02-30T03:04:05Z").unwrap_err(),
            r#"parsing time "2024-02-30T03:04:05Z": day out of range"#
        );
        assert_eq!(
            seconds("2024-01-02T03:04:05+25:00").unwrap_err(),
            r#"parsing time "2024-01-02T03:04:05+25:00": time zone offset hour out of range"#
        );
        assert_eq!(
            seconds("2024-01-02T03:04:05Zé").unwrap_err(),
            r#"parsing time "2024-01-02T03:04:05Z\xc3\xa9": extra text: "\xc3\xa9""#
        );
        assert_eq!(
            micros("2024-01-02T03:04:05.1234567Z").unwrap_err(),
            r#"parsing time "2024-01-02T03:04:05.1234567Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00""#
        );
        assert!(micros("2024-01-02T03:04:05Z").is_err(), "MicroTime needs its six digits");
        assert!(micros("2024-01-02T03:04:05.12345Z").is_err());
        assert!(micros("2024-01-02T03:04:05.-12345Z").unwrap_err().ends_with("fractional second out of range"));
    }
}
