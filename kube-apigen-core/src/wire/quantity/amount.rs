//! The amount a quantity's text stands for, in the representation the API server's
//! `resource.Quantity` gives it, and what is built on it: comparison, arithmetic and the
//! canonical text the API server writes.
//!
//! Parsing gives one of two representations, as the API server's parser does:
//! - an `int64Amount`, `value × 10^scale`, for at most 18 significant digits and a scale
//!   of at least `-9` (`1.5`, `500m`, `1Gi`, `1e3`), which sums of such amounts keep while
//!   nothing overflows;
//! - an exact decimal for everything else, rounded up (away from zero) to a multiple of
//!   `1n`. A binary amount (`Ki` ... `Ei`) is capped at `2^63 - 1`; a decimal one is not.
//!
//! Some results depend on the representation, not only on the amount: only an int64
//! amount converts to an integer (`1000m`, `1Pi` and `1.5Gi` do not; `1k` does), and the
//! approximate float of an exact decimal starts from its value in nanos.

use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::LazyLock;

use super::QuantityError;
use super::big::Big;

/// Longest alignment (in decimal digits) exact arithmetic performs; beyond, it gives up
/// rather than build numbers of millions of digits (the API server's cost limits stop
/// CEL rules that would first).
const MAX_ALIGNMENT: u64 = 4096;

/// The amount of a quantity.
///
/// Equality, ordering and hashing are by amount, whatever the text or representation
/// (`1` == `1000m`, `1.5Gi` == `1536Mi`).
#[derive(Clone, Debug)]
pub struct Amount(Repr);

#[derive(Clone, Debug, PartialEq, Eq)]
enum Repr {
    /// `value × 10^scale`.
    Int { value: i64, scale: i32 },
    /// An exact decimal.
    Dec(Decimal),
}

/// `±magnitude × 10^exponent`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Decimal {
    negative: bool,
    magnitude: Big,
    exponent: i64,
}

/// How a quantity's text writes its amount; it decides the canonical text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    /// Decimal suffixes (`m`, `k`, `M`, ...) or none.
    DecimalSi,
    /// Binary suffixes (`Ki`, `Mi`, ...).
    BinarySi,
    /// An exponent (`e3`, `E-2`).
    DecimalExponent,
}

/// A quantity's text as the API server's parser reads it.
pub(super) struct Parsed {
    pub(super) amount: Amount,
    pub(super) format: Format,
    /// Whether the API server keeps the text as sent rather than writing its canonical
    /// form (its parser keeps texts that are canonical at a glance, such as `500m`, `1Gi`
    /// and `+5`).
    pub(super) keeps_text: bool,
}

/// Parses `text` as the API server's `resource.ParseQuantity` does; the errors are its
/// errors (see [`super::Quantity::validate`] for the grammar).
pub(super) fn parse(text: &str) -> Result<Parsed, QuantityError> {
    super::validate(text.as_bytes())?;
    if text == "0" {
        return Ok(Parsed { amount: Amount::from_int(0), format: Format::DecimalSi, keeps_text: true });
    }
    let (negative, unsigned) = match text.as_bytes()[0] {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let digits_end = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let int_end = digits_end(unsigned);
    // Leading zeros do not count as digits; no digits at all is "0".
    let num = match unsigned[..int_end].trim_start_matches('0') {
        "" => "0",
        num => num,
    };
    let (denom, suffix) = match unsigned[int_end..].strip_prefix('.') {
        Some(after) => after.split_at(digits_end(after)),
        None => ("", &unsigned[int_end..]),
    };
    let (mut format, exponent) = interpret_suffix(suffix).ok_or(QuantityError::Suffix)?;
    let binary = format == Format::BinarySi;
    let denom_len = denom.len() as i64;
    let shifted = || num.bytes().chain(denom.bytes());

    // The fast path: an int64 amount, when the digits are few enough.
    let (precision, multiplier, scale) = if binary {
        if denom.is_empty() {
            let exponent = i64::from(exponent);
            (15 - num.len() as i64 - exponent * 3 / 10 - 1, 1i64 << exponent, 0)
        } else {
            (-1, 1, 0)
        }
    } else {
        (18 - (num.len() as i64 + denom_len), 1, i64::from(exponent) - denom_len)
    };
    if precision >= 0 && scale >= -9 {
        // At most 18 digits: always an i64.
        let value = shifted().fold(0i64, |acc, d| acc * 10 + i64::from(d - b'0'));
        if let Some(product) = value.checked_mul(multiplier) {
            let keeps_text = if binary {
                exponent % 10 == 0 && value & 0x07 != 0
            } else {
                let ends_in_000 = shifted().rev().take(3).filter(|d| *d == b'0').count() == 3;
                scale % 3 == 0 && !ends_in_000 && !num.starts_with('0')
            };
            let value = if negative { -product } else { product };
            return Ok(Parsed { amount: Amount(Repr::Int { value, scale: scale as i32 }), format, keeps_text });
        }
    }

    // The exact path: `digits × 10^x × 2^bits`, rounded up to nanos.
    let digits: String = shifted().map(char::from).collect();
    let digits = digits.trim_start_matches('0');
    let (x, bits) = if binary { (-denom_len, exponent as u32) } else { (i64::from(exponent) - denom_len, 0) };
    let decimal = if digits.is_empty() {
        Decimal { negative: false, magnitude: Big::default(), exponent: x }
    } else if binary && digits.len() as i64 - 1 + x >= 19 {
        // At least 10^19, more than the cap, whatever the binary factor.
        Decimal::capped(negative)
    } else if x + 9 > MAX_ALIGNMENT as i64 {
        // Exact as it is; in nanos it would have more digits than anything can use.
        Decimal { negative, magnitude: Big::from_decimal(digits), exponent: x }
    } else {
        let nanos = ceil_nanos(digits, x + 9, bits);
        let cap = Big::from_u128(i64::MAX as u128 * 1_000_000_000);
        if binary && nanos.compare(&cap).is_gt() {
            Decimal::capped(negative)
        } else {
            if binary && nanos.compare(&Big::from_u128(1_000_000_000)).is_lt() {
                // A binary amount below one is written as a decimal one.
                format = Format::DecimalSi;
            }
            Decimal { negative, magnitude: nanos, exponent: -9 }
        }
    };
    Ok(Parsed { amount: Amount(Repr::Dec(decimal)), format, keeps_text: false })
}

/// `ceil(digits × 2^bits × 10^q)` for a value below 10^20 × 2^bits, with `digits` of
/// any length: digits too far right to matter are folded into one sticky digit.
fn ceil_nanos(digits: &str, q: i64, bits: u32) -> Big {
    if q >= 0 {
        let mut m = Big::from_decimal(digits);
        m.mul_pow10(q as u64);
        m.shl(bits);
        return m;
    }
    let k = q.unsigned_abs();
    let bits64 = u64::from(bits);
    let (mut m, k) = if k > bits64 {
        // The result only steps where `m` crosses a multiple of 10^(k - bits): replacing
        // the digits below that by one digit inside the same step keeps the result.
        let granularity = usize::try_from(k - bits64).unwrap_or(usize::MAX);
        let keep = digits.len().saturating_sub(granularity);
        let (head, tail) = digits.split_at(keep);
        let mut m = Big::from_decimal(head);
        m.mul_small(10);
        if tail.bytes().any(|d| d != b'0') {
            m.add_small(1);
        }
        (m, bits64 + 1)
    } else {
        (Big::from_decimal(digits), k)
    };
    m.shl(bits);
    if m.div_pow10(k) {
        m.add_small(1);
    }
    m
}

/// The format of a suffix and its exponent (of 2 or of 10), as the API server's
/// suffixer reads it.
fn interpret_suffix(suffix: &str) -> Option<(Format, i32)> {
    let decimal = |exponent| Some((Format::DecimalSi, exponent));
    let binary = |exponent| Some((Format::BinarySi, exponent));
    match suffix {
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "" => decimal(0),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => binary(10),
        "Mi" => binary(20),
        "Gi" => binary(30),
        "Ti" => binary(40),
        "Pi" => binary(50),
        "Ei" => binary(60),
        // Go truncates the int64 exponent to int32.
        _ if suffix.len() > 1 && suffix.starts_with(['e', 'E']) => {
            Some((Format::DecimalExponent, suffix[1..].parse::<i64>().ok()? as i32))
        }
        _ => None,
    }
}

/// The text the API server writes for an amount read in `format` (`CanonicalizeBytes`).
pub(super) fn canonical_text(amount: &Amount, format: Format) -> String {
    if let Repr::Int { value, scale } = amount.0
        && let Some(text) = canonical_int(value, scale, format)
    {
        return text;
    }
    let decimal = amount.decimal();
    if decimal.magnitude.is_zero() {
        return "0".to_owned();
    }
    let sign = if decimal.negative { "-" } else { "" };
    if format == Format::BinarySi
        && decimal.compare_magnitude(&Decimal::from_int(1024)).is_ge()
        && let Some(mut integer) = decimal.exact_integer()
    {
        let mut times = 0;
        loop {
            let mut quotient = integer.clone();
            if quotient.div_small(1024) != 0 {
                break;
            }
            integer = quotient;
            times += 1;
        }
        return format!("{sign}{}{}", integer.to_decimal(), binary_suffix(times));
    }
    // Base 10, the exponent a multiple of 3 (binary amounts below 1024 or with a fraction too).
    let mut magnitude = decimal.magnitude;
    let zeros = magnitude.trailing_decimal_zeros();
    magnitude.div_pow10(zeros);
    let mut exponent = decimal.exponent + zeros as i64;
    while exponent % 3 != 0 {
        magnitude.mul_small(10);
        exponent -= 1;
    }
    format!("{sign}{}{}", magnitude.to_decimal(), decimal_suffix(format, exponent))
}

/// [`canonical_text`] of an int64 amount in machine integers, where they hold it (every
/// binary amount the parser gives as one has scale 0).
fn canonical_int(value: i64, scale: i32, format: Format) -> Option<String> {
    if value == 0 {
        return Some("0".to_owned());
    }
    let sign = if value < 0 { "-" } else { "" };
    let magnitude = value.unsigned_abs();
    if format == Format::BinarySi && magnitude >= 1024 {
        if scale != 0 {
            return None;
        }
        let (mut integer, mut times) = (magnitude, 0);
        while integer.is_multiple_of(1024) {
            integer /= 1024;
            times += 1;
        }
        return Some(format!("{sign}{integer}{}", binary_suffix(times)));
    }
    let (mut mantissa, mut exponent) = (u128::from(magnitude), i64::from(scale));
    while mantissa.is_multiple_of(10) {
        mantissa /= 10;
        exponent += 1;
    }
    // At most two steps: the mantissa stays below 100 × 2^64.
    while exponent % 3 != 0 {
        mantissa *= 10;
        exponent -= 1;
    }
    Some(format!("{sign}{mantissa}{}", decimal_suffix(format, exponent)))
}

/// The suffix of `1024^times`; the API server has none for 2^70 and beyond, and writes none.
fn binary_suffix(times: usize) -> &'static str {
    ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].get(times).copied().unwrap_or("")
}

/// The suffix of `10^exponent`, a multiple of 3, in a decimal format (binary amounts
/// written in base 10 take the decimal suffixes).
fn decimal_suffix(format: Format, exponent: i64) -> std::borrow::Cow<'static, str> {
    match format {
        Format::DecimalExponent if exponent == 0 => "".into(),
        Format::DecimalExponent => format!("e{exponent}").into(),
        // The API server has no suffix beyond `n` to `E`, and writes none.
        Format::DecimalSi | Format::BinarySi => match exponent {
            -9 => "n",
            -6 => "u",
            -3 => "m",
            3 => "k",
            6 => "M",
            9 => "G",
            12 => "T",
            15 => "P",
            18 => "E",
            _ => "",
        }
        .into(),
    }
}

impl Decimal {
    /// The largest magnitude a parsed binary quantity has: `2^63 - 1`.
    fn capped(negative: bool) -> Decimal {
        Decimal { negative, magnitude: Big::from_u128(i64::MAX as u128), exponent: 0 }
    }

    fn from_int(value: i64) -> Decimal {
        Decimal { negative: value < 0, magnitude: Big::from_u128(u128::from(value.unsigned_abs())), exponent: 0 }
    }

    fn signum(&self) -> i64 {
        match (self.magnitude.is_zero(), self.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }

    /// The magnitude scaled to `exponent` (at most its own), unless that takes more
    /// digits than exact arithmetic allows.
    fn magnitude_at(&self, exponent: i64) -> Option<Big> {
        let shift = self.exponent.abs_diff(exponent);
        if self.magnitude.is_zero() || shift == 0 {
            return Some(self.magnitude.clone());
        }
        if shift > MAX_ALIGNMENT {
            return None;
        }
        let mut m = self.magnitude.clone();
        m.mul_pow10(shift);
        Some(m)
    }

    /// `self + other`, exactly, at the smaller of the two exponents (as `inf.Dec` does).
    fn add(&self, other: &Decimal) -> Option<Decimal> {
        let exponent = self.exponent.min(other.exponent);
        let a = self.magnitude_at(exponent)?;
        let b = other.magnitude_at(exponent)?;
        let (negative, magnitude) = if self.negative == other.negative {
            (self.negative, a.add(&b))
        } else if a.compare(&b).is_ge() {
            (self.negative, a.sub(&b))
        } else {
            (other.negative, b.sub(&a))
        };
        Some(Decimal { negative: negative && !magnitude.is_zero(), magnitude, exponent })
    }

    fn negated(mut self) -> Decimal {
        self.negative = !self.negative && !self.magnitude.is_zero();
        self
    }

    fn compare_magnitude(&self, other: &Decimal) -> Ordering {
        // Orders of magnitude first: aligning 1e-9 with 1e300000 would be costly.
        let order = |d: &Decimal| d.magnitude.decimal_digits() as i64 + d.exponent;
        match (self.magnitude.is_zero(), other.magnitude.is_zero()) {
            (true, true) => return Ordering::Equal,
            (true, false) => return Ordering::Less,
            (false, true) => return Ordering::Greater,
            (false, false) => {}
        }
        order(self).cmp(&order(other)).then_with(|| {
            // Same order: the exponents differ by less than the digit counts.
            let exponent = self.exponent.min(other.exponent);
            let scaled = |d: &Decimal| {
                let mut m = d.magnitude.clone();
                m.mul_pow10(d.exponent.abs_diff(exponent));
                m
            };
            scaled(self).compare(&scaled(other))
        })
    }

    fn compare(&self, other: &Decimal) -> Ordering {
        let (a, b) = (self.signum(), other.signum());
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        let magnitudes = self.compare_magnitude(other);
        if a > 0 { magnitudes } else { magnitudes.reverse() }
    }

    /// The magnitude as an integer, when the amount is one (`AsScale(0)` without loss).
    fn exact_integer(&self) -> Option<Big> {
        let mut magnitude = self.magnitude.clone();
        if self.exponent >= 0 {
            magnitude.mul_pow10(self.exponent as u64);
            return Some(magnitude);
        }
        (!magnitude.div_pow10(self.exponent.unsigned_abs())).then_some(magnitude)
    }

    /// The same amount with no factor of ten left in the magnitude: one per amount.
    fn normalized(&self) -> Decimal {
        if self.magnitude.is_zero() {
            return Decimal { negative: false, magnitude: Big::default(), exponent: 0 };
        }
        let mut magnitude = self.magnitude.clone();
        let zeros = magnitude.trailing_decimal_zeros();
        magnitude.div_pow10(zeros);
        Decimal { negative: self.negative, magnitude, exponent: self.exponent + zeros as i64 }
    }
}

impl Amount {
    /// `value` as the API server's `resource.NewQuantity` holds it.
    pub fn from_int(value: i64) -> Amount {
        Amount(Repr::Int { value, scale: 0 })
    }

    fn decimal(&self) -> Decimal {
        match &self.0 {
            Repr::Int { value, scale } => Decimal { exponent: i64::from(*scale), ..Decimal::from_int(*value) },
            Repr::Dec(d) => d.clone(),
        }
    }

    /// Whether the amount is zero.
    pub fn is_zero(&self) -> bool {
        self.sign() == 0
    }

    /// `-1`, `0` or `1`.
    pub fn sign(&self) -> i64 {
        match &self.0 {
            Repr::Int { value, .. } => value.signum(),
            Repr::Dec(d) => d.signum(),
        }
    }

    /// The amount as an integer, as the API server's `AsInt64` converts it: only an int64
    /// amount with a scale that is not negative converts (`1k` does; `1000m`, `1Pi` do not).
    pub fn as_int64(&self) -> Option<i64> {
        match &self.0 {
            Repr::Int { value, scale } if *scale >= 0 => scale_up(*value, *scale),
            _ => None,
        }
    }

    /// The amount as a float, as the API server's `AsApproximateFloat64` computes it: the
    /// nearest double of the unscaled value times Go's `math.Pow10` of the exponent.
    pub fn approximate_float(&self) -> f64 {
        let (base, exponent) = match &self.0 {
            Repr::Int { value, scale } => (*value as f64, i64::from(*scale)),
            Repr::Dec(d) => {
                let value: f64 = d.magnitude.to_decimal().parse().unwrap_or(f64::INFINITY);
                (if d.negative { -value } else { value }, d.exponent)
            }
        };
        if exponent == 0 { base } else { base * go_pow10(exponent) }
    }

    /// `Quantity.Add`: int64 arithmetic while it neither overflows nor meets an exact
    /// amount, exact arithmetic otherwise; `None` if the two are too many digits apart
    /// in scale to add exactly (more than 4096).
    pub fn checked_add(&self, other: &Amount) -> Option<Amount> {
        if let (Repr::Int { value: a, scale: sa }, Repr::Int { value: b, scale: sb }) = (&self.0, &other.0)
            && let Some((value, scale)) = int_add((*a, *sa), (*b, *sb))
        {
            return Some(Amount(Repr::Int { value, scale }));
        }
        Some(Amount(Repr::Dec(self.decimal().add(&other.decimal())?)))
    }

    /// `Quantity.Sub`: as [`checked_add`](Self::checked_add) of the negation, except that
    /// subtracting from zero always gives an exact amount.
    pub fn checked_sub(&self, other: &Amount) -> Option<Amount> {
        if self.is_zero() {
            return Some(Amount(Repr::Dec(other.decimal().negated())));
        }
        if let (Repr::Int { value: a, scale: sa }, Repr::Int { value: b, scale: sb }) = (&self.0, &other.0)
            && let Some((value, scale)) = int_add((*a, *sa), (b.wrapping_neg(), *sb))
        {
            return Some(Amount(Repr::Int { value, scale }));
        }
        Some(Amount(Repr::Dec(self.decimal().add(&other.decimal().negated())?)))
    }
}

/// Reads a quantity's text as the API server's parser does; the errors are those of
/// [`super::Quantity::validate`].
impl std::str::FromStr for Amount {
    type Err = QuantityError;

    fn from_str(text: &str) -> Result<Amount, QuantityError> {
        parse(text).map(|parsed| parsed.amount)
    }
}

impl PartialEq for Amount {
    fn eq(&self, other: &Amount) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Amount {}

impl PartialOrd for Amount {
    fn partial_cmp(&self, other: &Amount) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Amount {
    fn cmp(&self, other: &Amount) -> Ordering {
        match (&self.0, &other.0) {
            (Repr::Int { value: a, scale: sa }, Repr::Int { value: b, scale: sb }) if sa == sb => a.cmp(b),
            _ => self.decimal().compare(&other.decimal()),
        }
    }
}

impl Hash for Amount {
    fn hash<H: Hasher>(&self, state: &mut H) {
        let Decimal { negative, magnitude, exponent } = self.decimal().normalized();
        (negative, magnitude, exponent).hash(state);
    }
}

/// `int64Amount.Add`: the sum at the smaller scale, or `None` on overflow.
fn int_add(a: (i64, i32), b: (i64, i32)) -> Option<(i64, i32)> {
    if b.0 == 0 {
        return Some(a);
    }
    if a.0 == 0 {
        return Some(b);
    }
    match a.1.cmp(&b.1) {
        Ordering::Equal => Some((a.0.checked_add(b.0)?, a.1)),
        Ordering::Greater => Some((scale_up(a.0, a.1 - b.1)?.checked_add(b.0)?, b.1)),
        Ordering::Less => Some((a.0.checked_add(scale_up(b.0, b.1 - a.1)?)?, a.1)),
    }
}

/// `value × 10^scale` for a scale that is not negative, or `None` on overflow.
fn scale_up(value: i64, scale: i32) -> Option<i64> {
    if value == 0 {
        return Some(0);
    }
    (0..scale).try_fold(value, |v, _| v.checked_mul(10))
}

/// Go's `math.Pow10`: the product (or quotient) of two correctly rounded powers of ten,
/// which is not always the correctly rounded power itself.
fn go_pow10(n: i64) -> f64 {
    static TABLES: LazyLock<[Vec<f64>; 3]> = LazyLock::new(|| {
        let power = |e: i64| format!("1e{e}").parse::<f64>().unwrap_or(0.0);
        [
            (0..32).map(power).collect(),
            (0..10).map(|i| power(32 * i)).collect(),
            (0..11).map(|i| power(-32 * i)).collect(),
        ]
    });
    let [small, big, big_negative] = &*TABLES;
    if (0..=308).contains(&n) {
        big[(n / 32) as usize] * small[(n % 32) as usize]
    } else if (-323..0).contains(&n) {
        let m = -n;
        big_negative[(m / 32) as usize] / small[(m % 32) as usize]
    } else if n > 0 {
        f64::INFINITY
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests;
