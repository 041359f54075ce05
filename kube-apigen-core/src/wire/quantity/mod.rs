//! `io.k8s.apimachinery.pkg.api.resource.Quantity`.

mod amount;
mod big;

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

use serde::de::{self, Deserializer, Unexpected, Visitor};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};

pub use amount::Amount;

/// A fixed-point amount such as `500m`, `1.5Gi` or `2e3`, kept as its text.
///
/// Serializes as a JSON string. Decoding (JSON, YAML, protobuf) reads the text as the API
/// server does and keeps what it would write back: its canonical form (`1.5` → `1500m`,
/// `1000m` → `1`, `0.5Gi` → `512Mi`, `1024Mi` → `1Gi`), or the text as sent where the API
/// server keeps it (`500m`, `1Gi`, `+5`). A JSON string is trimmed of surrounding
/// whitespace first; a JSON number is read from its shortest decimal text (`0.5`, `1000`;
/// where the API server reads the number as written, `1e3` becomes `1k` here and stays
/// `1e3` there). `null` decodes as `"0"`, the Go zero value; an `Option<Quantity>` field
/// decodes `null` as `None` first. Values built with `From` keep their text as given
/// until [`Quantity::canonicalize`].
///
/// Decoding does not reject a text that is no quantity; [`Quantity::validate`] does, so
/// that validation can report it as a field error.
///
/// Equality, ordering and hashing are by [`Amount`] (`"1"` == `"1000m"`), as the API
/// server compares quantities; texts that are no quantity compare by text, after every
/// quantity.
///
/// Integers beyond the 64-bit range are decoded by `serde_json` as floating point and may
/// lose digits; send such amounts as strings.
#[derive(Clone, Debug)]
pub struct Quantity(pub String);

/// Why a string is not a quantity. The messages are the API server's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantityError {
    /// The text does not have the shape `<signedNumber><suffix>`.
    Format,
    /// The number part cannot be read.
    Numeric,
    /// The suffix is not one of the known ones.
    Suffix,
}

impl fmt::Display for QuantityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuantityError::Format => {
                "quantities must match the regular expression \
                 '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
            }
            QuantityError::Numeric => "unable to parse numeric part of quantity",
            QuantityError::Suffix => "unable to parse quantity's suffix",
        })
    }
}

impl std::error::Error for QuantityError {}

impl Quantity {
    /// The string form.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the text follows the Kubernetes quantity grammar; see [`Quantity::validate`].
    pub fn is_valid(&self) -> bool {
        self.validate().is_ok()
    }

    /// Checks the text against the Kubernetes quantity grammar:
    ///
    /// ```text
    /// <quantity>        ::= <signedNumber><suffix>
    /// <signedNumber>    ::= <number> | <sign><number>
    /// <sign>            ::= "+" | "-"
    /// <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
    /// <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
    /// <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
    /// <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
    /// <decimalExponent> ::= "e" <signedInteger> | "E" <signedInteger>
    /// ```
    ///
    /// As in the API server's parser the exponent must be an integer (`1e3`, `1E-2`,
    /// `1e+5`; not `1e1.5`), and errors are classified the same way ([`QuantityError`]).
    /// One deliberate difference: the Go parser also takes a number with no digits at all
    /// (`"+"`, `"-"`, `"."`) as zero; the grammar does not, and neither does this check.
    pub fn validate(&self) -> Result<(), QuantityError> {
        Quantity::validate_text(&self.0)
    }

    /// [`Quantity::validate`] of a quantity's text, whichever type holds it.
    pub fn validate_text(text: &str) -> Result<(), QuantityError> {
        validate(text.as_bytes())
    }

    /// The amount, as the API server's parser reads the text; its errors are those of
    /// [`Quantity::validate`].
    pub fn amount(&self) -> Result<Amount, QuantityError> {
        self.0.parse()
    }

    /// Rewrites the text as the API server writes this quantity (see the type's
    /// documentation); a text that is no quantity stays as it is. Decoding does this.
    pub fn canonicalize(&mut self) {
        if let Ok(parsed) = amount::parse(&self.0)
            && !parsed.keeps_text
        {
            self.0 = amount::canonical_text(&parsed.amount, parsed.format);
        }
    }

    /// `text` as a decoder reads it.
    fn decoded(text: String) -> Quantity {
        let mut quantity = Quantity(text);
        quantity.canonicalize();
        quantity
    }
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Quantity) -> bool {
        self.cmp(other).is_eq()
    }
}

impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Quantity) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Quantity) -> Ordering {
        match (self.amount(), other.amount()) {
            (Ok(a), Ok(b)) => a.cmp(&b),
            (Ok(_), Err(_)) => Ordering::Less,
            (Err(_), Ok(_)) => Ordering::Greater,
            (Err(_), Err(_)) => self.0.cmp(&other.0),
        }
    }
}

impl Hash for Quantity {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match self.amount() {
            Ok(amount) => amount.hash(state),
            Err(_) => self.0.hash(state),
        }
    }
}

fn validate(s: &[u8]) -> Result<(), QuantityError> {
    let digits = |from: usize| from + s[from..].iter().take_while(|b| b.is_ascii_digit()).count();

    let mut pos = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    let int_end = digits(pos);
    let mut seen_digit = int_end > pos;
    pos = int_end;
    if s.get(pos) == Some(&b'.') {
        let frac_end = digits(pos + 1);
        seen_digit |= frac_end > pos + 1;
        pos = frac_end;
    }
    if !seen_digit {
        return Err(QuantityError::Format);
    }

    // The suffix: letters from the scanner's set, then an optional sign and digits, to the end.
    let suffix = &s[pos..];
    let letters = suffix.iter().take_while(|b| b"eEinumkKMGTP".contains(b)).count();
    let mut rest = letters;
    if matches!(suffix.get(rest), Some(b'+' | b'-')) {
        rest += 1;
    }
    rest += suffix[rest..].iter().take_while(|b| b.is_ascii_digit()).count();
    if rest != suffix.len() {
        return Err(QuantityError::Format);
    }

    match suffix {
        b"" | b"n" | b"u" | b"m" | b"k" | b"M" | b"G" | b"T" | b"P" | b"E" => Ok(()),
        b"Ki" | b"Mi" | b"Gi" | b"Ti" | b"Pi" | b"Ei" => Ok(()),
        [b'e' | b'E', exponent @ ..] if !exponent.is_empty() => {
            // Go reads the exponent with strconv.ParseInt(_, 10, 64): an optional sign, then
            // at least one digit, within the 64-bit range.
            let text = std::str::from_utf8(exponent).map_err(|_| QuantityError::Suffix)?;
            let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
            if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
                return Err(QuantityError::Suffix);
            }
            text.parse::<i64>().map(|_| ()).map_err(|_| QuantityError::Suffix)
        }
        _ => Err(QuantityError::Suffix),
    }
}

/// The Go zero value of a quantity, which Kubernetes writes as `"0"`.
impl Default for Quantity {
    fn default() -> Self {
        Quantity("0".to_owned())
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Quantity {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<&str> for Quantity {
    fn from(value: &str) -> Self {
        Quantity(value.to_owned())
    }
}

impl From<String> for Quantity {
    fn from(value: String) -> Self {
        Quantity(value)
    }
}

/// The JSON value Kubernetes would show for this field, e.g. as a field error's bad value.
impl From<&Quantity> for serde_json::Value {
    fn from(value: &Quantity) -> Self {
        serde_json::Value::from(value.0.as_str())
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(QuantityVisitor)
    }
}

struct QuantityVisitor;

impl<'de> Visitor<'de> for QuantityVisitor {
    type Value = Quantity;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a quantity as a string or a number")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Quantity, E> {
        Ok(Quantity::decoded(v.trim().to_owned()))
    }

    fn visit_string<E: de::Error>(self, mut v: String) -> Result<Quantity, E> {
        let trimmed = v.trim();
        if trimmed.len() != v.len() {
            v = trimmed.to_owned();
        }
        Ok(Quantity::decoded(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<Quantity, E> {
        Ok(Quantity::decoded(v.to_string()))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<Quantity, E> {
        Ok(Quantity::decoded(v.to_string()))
    }

    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Quantity, E> {
        Ok(Quantity::decoded(v.to_string()))
    }

    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Quantity, E> {
        Ok(Quantity::decoded(v.to_string()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Quantity, E> {
        if !v.is_finite() {
            return Err(E::invalid_value(Unexpected::Float(v), &"a finite number"));
        }
        // `Display` for f64 is the shortest text that reads back as the same value, and
        // never uses an exponent: 0.5 -> "0.5", 1000.0 -> "1000", 1e-7 -> "0.0000001".
        Ok(Quantity::decoded(v.to_string()))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Quantity, E> {
        Ok(Quantity::default())
    }
}
