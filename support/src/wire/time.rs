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
/// survive a round trip. Deserializes any RFC 3339 timestamp: any offset, `T`/`Z` in
/// either case, any number of fractional digits (beyond nine they are ignored).
/// RFC 3339 writes only the years `0000..=9999`: serializing an earlier time (jiff
/// reaches back to -9999) is an error, not a panic.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Time(pub Timestamp);

/// A point in time with microsecond precision: `metav1.MicroTime`.
///
/// Like [`Time`], but serializes exactly six fractional digits
/// (`2024-01-02T03:04:05.123456Z`), truncating nanoseconds.
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
        deserializer.deserialize_str(Rfc3339Visitor).map(Time)
    }
}

impl<'de> Deserialize<'de> for MicroTime {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(Rfc3339Visitor).map(MicroTime)
    }
}

impl std::str::FromStr for Time {
    type Err = ParseTimeError;

    /// Parses an RFC 3339 timestamp, as deserialization does.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_rfc3339(s).map(Time)
    }
}

impl std::str::FromStr for MicroTime {
    type Err = ParseTimeError;

    /// Parses an RFC 3339 timestamp, as deserialization does.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_rfc3339(s).map(MicroTime)
    }
}

/// Why a string is not an RFC 3339 timestamp.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseTimeError {
    input: String,
    reason: String,
}

impl fmt::Display for ParseTimeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid RFC 3339 timestamp {:?}: {}", self.input, self.reason)
    }
}

impl std::error::Error for ParseTimeError {}

struct Rfc3339Visitor;

impl Visitor<'_> for Rfc3339Visitor {
    type Value = Timestamp;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("an RFC 3339 timestamp such as \"2024-01-02T03:04:05Z\"")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Timestamp, E> {
        parse_rfc3339(v).map_err(E::custom)
    }
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+HH:MM|-HH:MM)` (RFC 3339 `date-time`).
fn parse_rfc3339(s: &str) -> Result<Timestamp, ParseTimeError> {
    let fail = |reason: &str| ParseTimeError { input: s.to_owned(), reason: reason.to_owned() };
    let b = s.as_bytes();
    let num = |at: usize, len: usize, what: &str| -> Result<i32, ParseTimeError> {
        let field = b.get(at..at + len).filter(|d| d.iter().all(u8::is_ascii_digit));
        let field = field.ok_or_else(|| fail(&format!("expected {len} digits for the {what}")))?;
        Ok(field.iter().fold(0, |n, d| n * 10 + i32::from(d - b'0')))
    };
    let sep = |at: usize, expected: &[u8], what: &str| -> Result<(), ParseTimeError> {
        match b.get(at) {
            Some(c) if expected.contains(c) => Ok(()),
            _ => Err(fail(&format!("expected {what}"))),
        }
    };

    let year = num(0, 4, "year")?;
    sep(4, b"-", "'-' after the year")?;
    let month = num(5, 2, "month")?;
    sep(7, b"-", "'-' after the month")?;
    let day = num(8, 2, "day")?;
    sep(10, b"Tt", "'T' between date and time")?;
    let hour = num(11, 2, "hour")?;
    sep(13, b":", "':' after the hour")?;
    let minute = num(14, 2, "minute")?;
    sep(16, b":", "':' after the minute")?;
    let second = num(17, 2, "second")?;

    let mut pos = 19;
    let mut nanos = 0;
    if b.get(pos) == Some(&b'.') {
        let digits = b[pos + 1..].iter().take_while(|d| d.is_ascii_digit()).count();
        if digits == 0 {
            return Err(fail("expected digits after '.'"));
        }
        for i in 0..9 {
            let digit = if i < digits { i32::from(b[pos + 1 + i] - b'0') } else { 0 };
            nanos = nanos * 10 + digit;
        }
        pos += 1 + digits;
    }

    let offset_seconds = match b.get(pos) {
        Some(b'Z' | b'z') => {
            pos += 1;
            0
        }
        Some(&sign @ (b'+' | b'-')) => {
            let hours = num(pos + 1, 2, "offset hours")?;
            sep(pos + 3, b":", "':' in the offset")?;
            let minutes = num(pos + 4, 2, "offset minutes")?;
            if hours > 23 || minutes > 59 {
                return Err(fail("offset out of range"));
            }
            pos += 6;
            let seconds = hours * 3600 + minutes * 60;
            if sign == b'-' { -seconds } else { seconds }
        }
        _ => return Err(fail("expected 'Z' or a numeric offset such as +01:00")),
    };
    if pos != b.len() {
        return Err(fail("unexpected text after the offset"));
    }

    // All fields are at most four digits, so the narrowing casts cannot truncate.
    let datetime = DateTime::new(year as i16, month as i8, day as i8, hour as i8, minute as i8, second as i8, nanos)
        .map_err(|e| fail(&e.to_string()))?;
    let offset = Offset::from_seconds(offset_seconds).map_err(|e| fail(&e.to_string()))?;
    offset.to_timestamp(datetime).map_err(|e| fail(&e.to_string()))
}
