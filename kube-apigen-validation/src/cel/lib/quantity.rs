//! Kubernetes' quantity library: `quantity`, `isQuantity` and the methods of
//! `kubernetes.Quantity` values.
//!
//! A value keeps the representation the API server's `resource.Quantity` would have, since
//! some results depend on it, not only on the amount:
//! - `Int`, Kubernetes' `int64Amount`: `value × 10^scale`, what parsing gives for at most
//!   18 significant digits and a scale of at least `-9` (`1.5`, `500m`, `1Gi`, `1e3`), and
//!   what adding such amounts gives while nothing overflows;
//! - `Dec`, Kubernetes' `inf.Dec` amount: exact, for everything else. Parsing rounds such
//!   an amount up (away from zero) to a multiple of `1n` and caps its magnitude at
//!   `2^63 - 1`; arithmetic on it is exact.
//!
//! `isInteger()` (and `asInteger()`) hold only for an `Int` amount that scales to an
//! integer without a negative scale, as `AsInt64` does: `quantity('1Pi')`,
//! `quantity('1.5Gi')` and `quantity('1000m')` are not integers, `quantity('1k')` and
//! `quantity('50k').sub(20)` are. Comparisons and `==` are by amount, whatever the
//! representation (`quantity('1') == quantity('1000m')`).
//!
//! Differences from the API server: `quantity('+')`, `'-'` and `'.'` are invalid here (Go
//! reads them as zero, against the documented grammar, see [`kube_apigen_core::Quantity::validate`]);
//! `add`/`sub` of quantities more than 4096 decimal digits apart in scale fail instead of
//! computing a number of that many digits.

use std::any::Any;
use std::cmp::Ordering;
use std::sync::LazyLock;

use cel::common::types::{CelBool, CelDouble, CelInt, INT_TYPE, STRING_TYPE, Type};
use cel::common::value::{CowVal, StaticVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

use super::{Args, Returns, args, k8s_error, string_arg};
use kube_apigen_core::wire::QuantityError;

/// `kubernetes.Quantity`.
static QUANTITY_TYPE: LazyLock<Type> = LazyLock::new(|| Type::new_opaque_type("kubernetes.Quantity"));

/// Longest alignment (in decimal digits) exact arithmetic performs; beyond, `add`/`sub`
/// fail rather than build numbers of millions of digits (the API server's cost limits stop
/// such rules first).
const MAX_ALIGNMENT: u64 = 4096;

/// A `kubernetes.Quantity` value.
#[derive(Clone, Debug)]
pub(super) struct Quantity(Amount);

impl Val for Quantity {
    fn get_type(&self) -> &Type {
        &QUANTITY_TYPE
    }

    fn cel_type() -> &'static Type {
        &QUANTITY_TYPE
    }

    fn equals(&self, other: &dyn Val) -> bool {
        other.downcast_ref::<Quantity>().is_some_and(|other| self.0.compare(&other.0).is_eq())
    }

    fn clone_as_boxed<'v>(&self) -> Box<dyn Val + 'v> {
        Box::new(self.clone())
    }

    fn as_any(&self) -> Option<&dyn Any> {
        Some(self)
    }
}

impl StaticVal for Quantity {}

/// The amount of a quantity, in the representation Kubernetes would have.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Amount {
    /// `value × 10^scale`.
    Int { value: i64, scale: i32 },
    /// An exact decimal.
    Dec(Decimal),
}

/// `±magnitude × 10^exponent`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Decimal {
    negative: bool,
    magnitude: Big,
    exponent: i64,
}

/// Parses `text` as the API server's `resource.ParseQuantity` does: the errors are its
/// errors (see [`kube_apigen_core::Quantity::validate`] for the grammar), the amount its amount.
pub(super) fn parse(text: &str) -> Result<Amount, QuantityError> {
    kube_apigen_core::Quantity(text.to_owned()).validate()?;
    if text == "0" {
        return Ok(Amount::Int { value: 0, scale: 0 });
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
    let (binary, exponent) = interpret_suffix(suffix).ok_or(QuantityError::Suffix)?;
    let denom_len = denom.len() as i64;

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
        let value: i64 = format!("{num}{denom}").parse().map_err(|_| QuantityError::Numeric)?;
        if let Some(value) = value.checked_mul(multiplier) {
            return Ok(Amount::Int { value: if negative { -value } else { value }, scale: scale as i32 });
        }
    }

    // The exact path: `digits × 10^x × 2^bits`, rounded up to nanos and capped.
    let digits = format!("{num}{denom}");
    let digits = digits.trim_start_matches('0');
    let (x, bits) = if binary { (-denom_len, exponent as u32) } else { (i64::from(exponent) - denom_len, 0) };
    if digits.is_empty() {
        return Ok(Amount::Dec(Decimal { negative: false, magnitude: Big::default(), exponent: x }));
    }
    // At least 10^19, more than the cap, whatever the binary factor.
    if digits.len() as i64 - 1 + x >= 19 {
        return Ok(Amount::Dec(Decimal::capped(negative)));
    }
    let nanos = ceil_nanos(digits, x + 9, bits);
    let cap = Big::from_u128(i64::MAX as u128 * 1_000_000_000);
    Ok(Amount::Dec(if nanos.compare(&cap).is_gt() {
        Decimal::capped(negative)
    } else {
        Decimal { negative, magnitude: nanos, exponent: -9 }
    }))
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

/// Whether the suffix is binary, and its exponent (of 2 or of 10), as the API server's
/// suffixer reads it.
fn interpret_suffix(suffix: &str) -> Option<(bool, i32)> {
    Some(match suffix {
        "n" => (false, -9),
        "u" => (false, -6),
        "m" => (false, -3),
        "" => (false, 0),
        "k" => (false, 3),
        "M" => (false, 6),
        "G" => (false, 9),
        "T" => (false, 12),
        "P" => (false, 15),
        "E" => (false, 18),
        "Ki" => (true, 10),
        "Mi" => (true, 20),
        "Gi" => (true, 30),
        "Ti" => (true, 40),
        "Pi" => (true, 50),
        "Ei" => (true, 60),
        _ if suffix.len() > 1 && suffix.starts_with(['e', 'E']) => {
            // Go truncates the int64 exponent to int32.
            (false, suffix[1..].parse::<i64>().ok()? as i32)
        }
        _ => return None,
    })
}

impl Decimal {
    /// The largest magnitude a parsed quantity has: `2^63 - 1`.
    fn capped(negative: bool) -> Decimal {
        Decimal { negative, magnitude: Big::from_u128(i64::MAX as u128), exponent: 0 }
    }

    fn signum(&self) -> i64 {
        match (self.magnitude.is_zero(), self.negative) {
            (true, _) => 0,
            (false, true) => -1,
            (false, false) => 1,
        }
    }

    /// The magnitude scaled to `exponent` (at most its own).
    fn magnitude_at(&self, exponent: i64) -> Result<Big, ExecutionError> {
        let shift = self.exponent.abs_diff(exponent);
        if self.magnitude.is_zero() || shift == 0 {
            return Ok(self.magnitude.clone());
        }
        if shift > MAX_ALIGNMENT {
            return Err(k8s_error("quantity arithmetic exceeds the supported precision"));
        }
        let mut m = self.magnitude.clone();
        m.mul_pow10(shift);
        Ok(m)
    }

    /// `self + other`, exactly, at the smaller of the two exponents (as `inf.Dec` does).
    fn add(&self, other: &Decimal) -> Result<Decimal, ExecutionError> {
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
        Ok(Decimal { negative: negative && !magnitude.is_zero(), magnitude, exponent })
    }

    fn negated(mut self) -> Decimal {
        self.negative = !self.negative && !self.magnitude.is_zero();
        self
    }

    fn compare(&self, other: &Decimal) -> Ordering {
        let (a, b) = (self.signum(), other.signum());
        if a != b || a == 0 {
            return a.cmp(&b);
        }
        let magnitudes = {
            // Orders of magnitude first: aligning 1e-9 with 1e300000 would be costly.
            let order_a = self.magnitude.decimal_digits() as i64 + self.exponent;
            let order_b = other.magnitude.decimal_digits() as i64 + other.exponent;
            if order_a != order_b {
                order_a.cmp(&order_b)
            } else {
                // Same order: the exponents differ by less than the digit counts.
                let exponent = self.exponent.min(other.exponent);
                let scaled = |d: &Decimal| {
                    let mut m = d.magnitude.clone();
                    m.mul_pow10(d.exponent.abs_diff(exponent));
                    m
                };
                scaled(self).compare(&scaled(other))
            }
        };
        if a > 0 { magnitudes } else { magnitudes.reverse() }
    }

    /// The magnitude with its sign, as the nearest double.
    fn unscaled_f64(&self) -> f64 {
        let text = self.magnitude.to_decimal();
        let value: f64 = text.parse().unwrap_or(f64::INFINITY);
        if self.negative { -value } else { value }
    }
}

impl Amount {
    fn decimal(&self) -> Decimal {
        match self {
            Amount::Int { value, scale } => Decimal {
                negative: *value < 0,
                magnitude: Big::from_u128(u128::from(value.unsigned_abs())),
                exponent: i64::from(*scale),
            },
            Amount::Dec(d) => d.clone(),
        }
    }

    fn is_zero(&self) -> bool {
        match self {
            Amount::Int { value, .. } => *value == 0,
            Amount::Dec(d) => d.magnitude.is_zero(),
        }
    }

    fn sign(&self) -> i64 {
        match self {
            Amount::Int { value, .. } => value.signum(),
            Amount::Dec(d) => d.signum(),
        }
    }

    /// `AsInt64`: only an int64 amount with a scale that is not negative converts.
    fn as_int64(&self) -> Option<i64> {
        match self {
            Amount::Int { value, scale } if *scale >= 0 => scale_up(*value, *scale),
            _ => None,
        }
    }

    /// `AsApproximateFloat64`: the unscaled value times `math.Pow10` of the exponent.
    fn approximate_float(&self) -> f64 {
        let (base, exponent) = match self {
            Amount::Int { value, scale } => (*value as f64, i64::from(*scale)),
            Amount::Dec(d) => (d.unscaled_f64(), d.exponent),
        };
        if exponent == 0 { base } else { base * go_pow10(exponent) }
    }

    fn compare(&self, other: &Amount) -> Ordering {
        match (self, other) {
            (Amount::Int { value: a, scale: sa }, Amount::Int { value: b, scale: sb }) if sa == sb => a.cmp(b),
            _ => self.decimal().compare(&other.decimal()),
        }
    }

    /// `Quantity.Add`: int64 arithmetic while it neither overflows nor meets an exact
    /// amount, exact arithmetic otherwise.
    fn add(&self, other: &Amount) -> Result<Amount, ExecutionError> {
        if let (Amount::Int { value: a, scale: sa }, Amount::Int { value: b, scale: sb }) = (self, other)
            && let Some((value, scale)) = int_add((*a, *sa), (*b, *sb))
        {
            return Ok(Amount::Int { value, scale });
        }
        Ok(Amount::Dec(self.decimal().add(&other.decimal())?))
    }

    /// `Quantity.Sub`: as [`add`](Self::add) of the negation, except that subtracting
    /// from zero always gives an exact amount.
    fn sub(&self, other: &Amount) -> Result<Amount, ExecutionError> {
        if self.is_zero() {
            return Ok(Amount::Dec(other.decimal().negated()));
        }
        if let (Amount::Int { value: a, scale: sa }, Amount::Int { value: b, scale: sb }) = (self, other)
            && let Some((value, scale)) = int_add((*a, *sa), (b.wrapping_neg(), *sb))
        {
            return Ok(Amount::Int { value, scale });
        }
        Ok(Amount::Dec(self.decimal().add(&other.decimal().negated())?))
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

// ---- A small unsigned integer of any size, for exact amounts ----

/// Little-endian base-2^32 limbs, without high zero limbs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Big(Vec<u32>);

impl Big {
    fn from_u128(mut v: u128) -> Big {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push(v as u32);
            v >>= 32;
        }
        Big(limbs)
    }

    fn from_decimal(digits: &str) -> Big {
        let mut out = Big::default();
        for chunk in digits.as_bytes().chunks(9) {
            let value = chunk.iter().fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'));
            out.mul_small(10u32.pow(chunk.len() as u32));
            out.add_small(value);
        }
        out
    }

    fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    fn mul_small(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = product as u32;
            carry = product >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
        self.trim();
    }

    fn add_small(&mut self, addend: u32) {
        let mut carry = u64::from(addend);
        for limb in &mut self.0 {
            if carry == 0 {
                break;
            }
            let sum = u64::from(*limb) + carry;
            *limb = sum as u32;
            carry = sum >> 32;
        }
        if carry > 0 {
            self.0.push(carry as u32);
        }
    }

    /// Divides in place, returning the remainder.
    fn div_small(&mut self, divisor: u32) -> u32 {
        let mut remainder = 0u64;
        for limb in self.0.iter_mut().rev() {
            let current = (remainder << 32) | u64::from(*limb);
            *limb = (current / u64::from(divisor)) as u32;
            remainder = current % u64::from(divisor);
        }
        self.trim();
        remainder as u32
    }

    fn mul_pow10(&mut self, mut k: u64) {
        if self.is_zero() {
            return;
        }
        while k >= 9 {
            self.mul_small(1_000_000_000);
            k -= 9;
        }
        self.mul_small(10u32.pow(k as u32));
    }

    /// Divides by 10^k in place, truncating; whether anything was cut off.
    fn div_pow10(&mut self, mut k: u64) -> bool {
        let mut inexact = false;
        while k >= 9 && !self.is_zero() {
            inexact |= self.div_small(1_000_000_000) != 0;
            k -= 9;
        }
        if self.is_zero() {
            return inexact;
        }
        if k > 0 {
            inexact |= self.div_small(10u32.pow(k as u32)) != 0;
        }
        inexact
    }

    fn shl(&mut self, mut bits: u32) {
        while bits > 0 {
            let step = bits.min(31);
            self.mul_small(1 << step);
            bits -= step;
        }
    }

    fn compare(&self, other: &Big) -> Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    fn add(&self, other: &Big) -> Big {
        let (long, short) = if self.0.len() >= other.0.len() { (self, other) } else { (other, self) };
        let mut out = Vec::with_capacity(long.0.len() + 1);
        let mut carry = 0u64;
        for (i, limb) in long.0.iter().enumerate() {
            let sum = u64::from(*limb) + u64::from(short.0.get(i).copied().unwrap_or(0)) + carry;
            out.push(sum as u32);
            carry = sum >> 32;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Big(out)
    }

    /// `self - other`, for `self >= other`.
    fn sub(&self, other: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter().enumerate() {
            let mut diff = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(diff < 0);
            if diff < 0 {
                diff += 1 << 32;
            }
            out.push(diff as u32);
        }
        let mut out = Big(out);
        out.trim();
        out
    }

    fn to_decimal(&self) -> String {
        if self.is_zero() {
            return "0".to_owned();
        }
        let mut rest = self.clone();
        let mut chunks = Vec::new();
        while !rest.is_zero() {
            chunks.push(rest.div_small(1_000_000_000));
        }
        let mut out = chunks.pop().map(|c| c.to_string()).unwrap_or_default();
        for chunk in chunks.iter().rev() {
            out.push_str(&format!("{chunk:09}"));
        }
        out
    }

    fn decimal_digits(&self) -> usize {
        self.to_decimal().len()
    }
}

// ---- The CEL functions ----

/// Registers the library.
pub(super) fn library(env: &mut Env) -> Result<(), DeclarationError> {
    let quantity = || (*QUANTITY_TYPE).to_owned();
    env.add_type(quantity())?;
    env.add_overload("quantity", "string_to_quantity", vec![STRING_TYPE], to_quantity)?;
    env.add_overload("isQuantity", "is_quantity_string", vec![STRING_TYPE], is_quantity)?;
    env.add_member_overload("sign", "quantity_sign", quantity(), vec![], sign)?;
    env.add_overload("sign", "sign_quantity", vec![quantity()], sign)?;
    env.add_member_overload("isInteger", "quantity_is_integer", quantity(), vec![], is_integer)?;
    env.add_member_overload("asInteger", "quantity_get_int", quantity(), vec![], as_integer)?;
    env.add_member_overload("asApproximateFloat", "quantity_get_float", quantity(), vec![], as_approximate_float)?;
    env.add_member_overload("add", "quantity_add", quantity(), vec![quantity()], add)?;
    env.add_member_overload("add", "quantity_add_int", quantity(), vec![INT_TYPE], add)?;
    env.add_member_overload("sub", "quantity_sub", quantity(), vec![quantity()], sub)?;
    env.add_member_overload("sub", "quantity_sub_int", quantity(), vec![INT_TYPE], sub)?;
    env.add_member_overload(
        "isGreaterThan",
        "quantity_is_greater_than",
        quantity(),
        vec![quantity()],
        is_greater_than,
    )?;
    env.add_member_overload("isLessThan", "quantity_is_less_than", quantity(), vec![quantity()], is_less_than)?;
    env.add_member_overload("compareTo", "quantity_compare_to", quantity(), vec![quantity()], compare_to)?;
    Ok(())
}

fn amount<'a>(function: &str, value: &'a dyn Val) -> Result<&'a Amount, ExecutionError> {
    value
        .downcast_ref::<Quantity>()
        .map(|q| &q.0)
        .ok_or_else(|| ExecutionError::no_such_overload(function, vec![value.get_type().name().to_owned()]))
}

/// A quantity, or an int as `resource.NewQuantity(n, DecimalExponent)`.
fn operand(function: &str, value: &dyn Val) -> Result<Amount, ExecutionError> {
    match value.downcast_ref::<CelInt>() {
        Some(i) => Ok(Amount::Int { value: *i.inner(), scale: 0 }),
        None => amount(function, value).cloned(),
    }
}

fn to_quantity<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let amount = parse(string_arg("quantity", text.as_ref())?).map_err(k8s_error)?;
    Ok(CowVal::owned(Quantity(amount)))
}

fn is_quantity<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [text] = args(a)?;
    let valid = parse(string_arg("isQuantity", text.as_ref())?).is_ok();
    Ok(CowVal::owned(CelBool::from(valid)))
}

fn sign<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q] = args(a)?;
    Ok(CowVal::owned(CelInt::from(amount("sign", q.as_ref())?.sign())))
}

fn is_integer<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q] = args(a)?;
    let integer = amount("isInteger", q.as_ref())?.as_int64().is_some();
    Ok(CowVal::owned(CelBool::from(integer)))
}

fn as_integer<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q] = args(a)?;
    let value =
        amount("asInteger", q.as_ref())?.as_int64().ok_or_else(|| k8s_error("cannot convert value to integer"))?;
    Ok(CowVal::owned(CelInt::from(value)))
}

fn as_approximate_float<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q] = args(a)?;
    let value = amount("asApproximateFloat", q.as_ref())?.approximate_float();
    Ok(CowVal::owned(CelDouble::from(value)))
}

fn add<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let sum = amount("add", q.as_ref())?.add(&operand("add", other.as_ref())?)?;
    Ok(CowVal::owned(Quantity(sum)))
}

fn sub<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let difference = amount("sub", q.as_ref())?.sub(&operand("sub", other.as_ref())?)?;
    Ok(CowVal::owned(Quantity(difference)))
}

fn ordering(function: &str, a: &dyn Val, b: &dyn Val) -> Result<Ordering, ExecutionError> {
    Ok(amount(function, a)?.compare(amount(function, b)?))
}

fn is_greater_than<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let greater = ordering("isGreaterThan", q.as_ref(), other.as_ref())?.is_gt();
    Ok(CowVal::owned(CelBool::from(greater)))
}

fn is_less_than<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let less = ordering("isLessThan", q.as_ref(), other.as_ref())?.is_lt();
    Ok(CowVal::owned(CelBool::from(less)))
}

fn compare_to<'b, 'v>(a: Args<'b, 'v>) -> Returns<'b, 'v> {
    let [q, other] = args(a)?;
    let order = ordering("compareTo", q.as_ref(), other.as_ref())? as i64;
    Ok(CowVal::owned(CelInt::from(order)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(text: &str) -> Amount {
        parse(text).unwrap_or_else(|err| panic!("{text}: {err}"))
    }

    fn int(value: i64, scale: i32) -> Amount {
        Amount::Int { value, scale }
    }

    fn nanos(negative: bool, nanos: u128) -> Amount {
        Amount::Dec(Decimal { negative, magnitude: Big::from_u128(nanos), exponent: -9 })
    }

    #[test]
    fn parses_into_the_api_servers_representation() {
        assert_eq!(q("0"), int(0, 0));
        assert_eq!(q("12"), int(12, 0));
        assert_eq!(q("-12"), int(-12, 0));
        assert_eq!(q("+007"), int(7, 0));
        assert_eq!(q("1.5"), int(15, -1));
        assert_eq!(q(".5"), int(5, -1));
        assert_eq!(q("1."), int(1, 0));
        assert_eq!(q("500m"), int(500, -3));
        assert_eq!(q("1.5k"), int(15, 2));
        assert_eq!(q("2e3"), int(2, 3));
        assert_eq!(q("2E-3"), int(2, -3));
        assert_eq!(q("1n"), int(1, -9));
        assert_eq!(q("1Ki"), int(1024, 0));
        assert_eq!(q("12Mi"), int(12 << 20, 0));
        assert_eq!(q("1Ti"), int(1 << 40, 0));
        assert_eq!(q("1E"), int(1, 18));
        assert_eq!(q("000"), int(0, 0));
        // Too many digits, too small a scale, binary fractions and large binary
        // multiples are exact amounts, rounded up to nanos.
        assert_eq!(q("1Pi"), nanos(false, (1u128 << 50) * 1_000_000_000));
        assert_eq!(q("1.5Gi"), nanos(false, 1_610_612_736 * 1_000_000_000));
        assert_eq!(q("0.0000000001"), nanos(false, 1));
        assert_eq!(q("-1e-20"), nanos(true, 1));
        assert_eq!(q("1.0000000001"), nanos(false, 1_000_000_001));
        assert_eq!(q("1234567890123456789"), nanos(false, 1_234_567_890_123_456_789_000_000_000));
        assert_eq!(q(&format!("0.{}1", "0".repeat(5000))), nanos(false, 1), "long fractions round up");
        assert_eq!(
            q(&format!("{}e-9990", "1".repeat(10_000))),
            nanos(false, 1_111_111_111_111_111_112),
            "a long mantissa with a small exponent"
        );
        // Long inputs cost no big arithmetic: only the digits that matter are read.
        assert_eq!(q(&format!("0.{}", "1".repeat(200_000))), nanos(false, 111_111_112));
        assert_eq!(q(&"9".repeat(200_000)), Amount::Dec(Decimal::capped(false)));
        // Capped at 2^63 - 1.
        let capped = Amount::Dec(Decimal::capped(false));
        assert_eq!(q("9999999999999999999999999999999999999G"), capped);
        assert_eq!(q("1e2000000000"), int(1, 2_000_000_000));
        assert_eq!(q("10000000000000000000Ei"), capped);
        assert_eq!(q("-99999999999999999999"), Amount::Dec(Decimal::capped(true)));
    }

    #[test]
    fn parse_errors_are_the_api_servers() {
        for bad in ["", "Three", "Mi", "1,3G", "10Mo", "+", " 1", "1 "] {
            assert_eq!(parse(bad), Err(QuantityError::Format), "{bad:?}");
        }
        for bad in ["10Mm", "200K", "1e", "1ki", "1e1.5"] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(parse("10Mm"), Err(QuantityError::Suffix));
        assert_eq!(
            parse("10Mo").unwrap_err().to_string(),
            "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
        );
        assert_eq!(parse("10Mm").unwrap_err().to_string(), "unable to parse quantity's suffix");
    }

    #[test]
    fn compares_by_amount() {
        let cmp = |a: &str, b: &str| q(a).compare(&q(b));
        assert_eq!(cmp("200M", "0.2G"), Ordering::Equal);
        assert_eq!(cmp("1", "1000m"), Ordering::Equal);
        assert_eq!(cmp("50M", "50Mi"), Ordering::Less);
        assert_eq!(cmp("50Mi", "50M"), Ordering::Greater);
        assert_eq!(cmp("1.5Gi", "1536Mi"), Ordering::Equal);
        assert_eq!(cmp("-1", "1n"), Ordering::Less);
        assert_eq!(cmp("-2", "-1"), Ordering::Less);
        assert_eq!(cmp("0", "-0.0000000000001"), Ordering::Greater);
        assert_eq!(cmp("1e2000000000", "9999999999999999999999Ei"), Ordering::Greater);
        assert_eq!(cmp("0", "0e5"), Ordering::Equal);
    }

    #[test]
    fn integers_as_the_api_server_converts_them() {
        assert_eq!(q("50k").as_int64(), Some(50_000));
        assert_eq!(q("50000000G").as_int64(), Some(50_000_000_000_000_000));
        assert_eq!(q("1Gi").as_int64(), Some(1 << 30));
        assert_eq!(q("-3").as_int64(), Some(-3));
        for not_integer in ["500m", "1000m", "1.0", "1Pi", "1.5Gi", "1e19", "9999999999999999999999999999999999999G"] {
            assert_eq!(q(not_integer).as_int64(), None, "{not_integer}");
        }
    }

    #[test]
    fn arithmetic_keeps_int64_amounts_while_it_can() {
        let add = |a: &str, b: &Amount| q(a).add(b).unwrap();
        let sub = |a: &str, b: &Amount| q(a).sub(b).unwrap();
        assert_eq!(add("50k", &int(20, 0)), int(50_020, 0));
        assert_eq!(add("50k", &q("20")), int(50_020, 0));
        assert_eq!(sub("50k", &q("20")), int(49_980, 0));
        assert_eq!(add("1", &q("500m")), int(1500, -3));
        assert_eq!(add("0", &q("2k")), int(2, 3));
        let chain =
            q("50k").add(&int(20, 0)).and_then(|x| x.sub(&q("100k"))).and_then(|x| x.sub(&int(-50_000, 0))).unwrap();
        assert_eq!(chain.as_int64(), Some(20));
        assert!(chain.compare(&q("20")).is_eq());
        // Subtracting from zero gives an exact amount, which is no int64 one.
        let negated = sub("0", &q("1"));
        assert!(negated.compare(&q("-1")).is_eq());
        assert_eq!(negated.as_int64(), None);
        // Overflow moves to exact arithmetic.
        let big = add("9223372036854775807", &int(1, 0));
        assert!(matches!(big, Amount::Dec(_)));
        assert!(big.compare(&q("9223372036854775807")).is_gt());
        let huge = add("1e100", &int(1, 0));
        assert!(huge.compare(&q("1e100")).is_gt());
        assert!(q("1e5000").add(&int(1, 0)).is_err(), "too far apart");
        assert_eq!(add("1.5Gi", &q("-1.5Gi")).sign(), 0);
    }

    #[test]
    fn approximate_floats_and_signs() {
        assert_eq!(q("50.703k").approximate_float(), 50_703.0);
        assert_eq!(q("50k").sub(&int(20_000, 0)).unwrap().approximate_float(), 30_000.0);
        assert_eq!(q("1Gi").approximate_float(), 1_073_741_824.0);
        assert_eq!(q("-1.5").approximate_float(), -1.5);
        assert_eq!(q("1e400").approximate_float(), f64::INFINITY);
        assert_eq!(q("1e-400").approximate_float(), 1e-9, "rounded up to 1n");
        assert_eq!(go_pow10(0), 1.0);
        assert_eq!(go_pow10(-3), 1e-3);
        assert_eq!(go_pow10(309), f64::INFINITY);
        assert_eq!(go_pow10(-324), 0.0);
        assert_eq!(q("-5m").sign(), -1);
        assert_eq!(q("0").sign(), 0);
        assert_eq!(q("1Pi").sign(), 1);
        assert_eq!(q("-1e-20").sign(), -1);
    }

    #[test]
    fn big_integers() {
        let n = Big::from_decimal("123456789012345678901234567890");
        assert_eq!(n.to_decimal(), "123456789012345678901234567890");
        let mut m = n.clone();
        m.mul_pow10(20);
        assert_eq!(m.decimal_digits(), 50);
        assert!(!m.div_pow10(20));
        assert_eq!(m, n);
        assert!(!m.div_pow10(1));
        assert_eq!(m.to_decimal(), "12345678901234567890123456789");
        assert!(m.div_pow10(1));
        assert_eq!(m.to_decimal(), "1234567890123456789012345678");
        assert_eq!(n.add(&Big::from_u128(10)).sub(&n), Big::from_u128(10));
        assert_eq!(n.sub(&n), Big::default());
        let mut shifted = Big::from_u128(3);
        shifted.shl(70);
        assert_eq!(shifted.to_decimal(), (3u128 << 70).to_string());
    }
}
