//! An unsigned integer of any size, for exact amounts.
//!
//! Limbs are base 10^9, so reading and printing decimal text, and scaling by powers of
//! ten, cost time linear in the digits: a quantity's text can be long, and decoding reads
//! every quantity it meets.

use std::cmp::Ordering;

/// One limb's base.
const BASE: u64 = 1_000_000_000;

/// Little-endian base-10^9 limbs, without high zero limbs (zero has none).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub(super) struct Big(Vec<u32>);

impl Big {
    pub(super) fn from_u128(mut v: u128) -> Big {
        let mut limbs = Vec::new();
        while v > 0 {
            limbs.push((v % u128::from(BASE)) as u32);
            v /= u128::from(BASE);
        }
        Big(limbs)
    }

    /// The value of ASCII decimal digits.
    pub(super) fn from_decimal(digits: &str) -> Big {
        let digits = digits.trim_start_matches('0').as_bytes();
        let limbs =
            digits.rchunks(9).map(|chunk| chunk.iter().fold(0u32, |acc, d| acc * 10 + u32::from(d - b'0'))).collect();
        Big(limbs)
    }

    pub(super) fn is_zero(&self) -> bool {
        self.0.is_empty()
    }

    fn trim(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
    }

    /// Multiplies in place by a factor below 2^32.
    pub(super) fn mul_small(&mut self, factor: u32) {
        let mut carry = 0u64;
        for limb in &mut self.0 {
            let product = u64::from(*limb) * u64::from(factor) + carry;
            *limb = (product % BASE) as u32;
            carry = product / BASE;
        }
        while carry > 0 {
            self.0.push((carry % BASE) as u32);
            carry /= BASE;
        }
        self.trim();
    }

    pub(super) fn add_small(&mut self, addend: u32) {
        let mut carry = u64::from(addend);
        for limb in &mut self.0 {
            if carry == 0 {
                break;
            }
            let sum = u64::from(*limb) + carry;
            *limb = (sum % BASE) as u32;
            carry = sum / BASE;
        }
        while carry > 0 {
            self.0.push((carry % BASE) as u32);
            carry /= BASE;
        }
    }

    /// Divides in place by a divisor below 2^32, returning the remainder.
    pub(super) fn div_small(&mut self, divisor: u32) -> u32 {
        let mut remainder = 0u64;
        for limb in self.0.iter_mut().rev() {
            let current = remainder * BASE + u64::from(*limb);
            *limb = (current / u64::from(divisor)) as u32;
            remainder = current % u64::from(divisor);
        }
        self.trim();
        remainder as u32
    }

    pub(super) fn mul_pow10(&mut self, k: u64) {
        if self.is_zero() {
            return;
        }
        let limbs = usize::try_from(k / 9).expect("callers bound the exponent");
        self.0.splice(0..0, std::iter::repeat_n(0, limbs));
        self.mul_small(10u32.pow((k % 9) as u32));
    }

    /// Divides by 10^k in place, truncating; whether anything was cut off.
    pub(super) fn div_pow10(&mut self, k: u64) -> bool {
        let limbs = usize::try_from(k / 9).unwrap_or(usize::MAX).min(self.0.len());
        let mut inexact = self.0.drain(..limbs).any(|limb| limb != 0);
        if !self.is_zero() {
            inexact |= self.div_small(10u32.pow((k % 9) as u32)) != 0;
        }
        inexact
    }

    /// How many times 10 divides the value (none for zero).
    pub(super) fn trailing_decimal_zeros(&self) -> u64 {
        let Some(lowest) = self.0.iter().position(|limb| *limb != 0) else { return 0 };
        let mut limb = self.0[lowest];
        let mut zeros = 9 * lowest as u64;
        while limb.is_multiple_of(10) {
            limb /= 10;
            zeros += 1;
        }
        zeros
    }

    /// Multiplies in place by `2^bits`.
    pub(super) fn shl(&mut self, mut bits: u32) {
        while bits > 0 {
            let step = bits.min(31);
            self.mul_small(1 << step);
            bits -= step;
        }
    }

    pub(super) fn compare(&self, other: &Big) -> Ordering {
        self.0.len().cmp(&other.0.len()).then_with(|| self.0.iter().rev().cmp(other.0.iter().rev()))
    }

    pub(super) fn add(&self, other: &Big) -> Big {
        let (long, short) = if self.0.len() >= other.0.len() { (self, other) } else { (other, self) };
        let mut out = Vec::with_capacity(long.0.len() + 1);
        let mut carry = 0u64;
        for (i, limb) in long.0.iter().enumerate() {
            let sum = u64::from(*limb) + u64::from(short.0.get(i).copied().unwrap_or(0)) + carry;
            out.push((sum % BASE) as u32);
            carry = sum / BASE;
        }
        if carry > 0 {
            out.push(carry as u32);
        }
        Big(out)
    }

    /// `self - other`, for `self >= other`.
    pub(super) fn sub(&self, other: &Big) -> Big {
        let mut out = Vec::with_capacity(self.0.len());
        let mut borrow = 0i64;
        for (i, limb) in self.0.iter().enumerate() {
            let mut diff = i64::from(*limb) - i64::from(other.0.get(i).copied().unwrap_or(0)) - borrow;
            borrow = i64::from(diff < 0);
            if diff < 0 {
                diff += BASE as i64;
            }
            out.push(diff as u32);
        }
        let mut out = Big(out);
        out.trim();
        out
    }

    /// The decimal digits, `0` for zero.
    pub(super) fn to_decimal(&self) -> String {
        let Some((top, rest)) = self.0.split_last() else { return "0".to_owned() };
        let mut out = top.to_string();
        for limb in rest.iter().rev() {
            out.push_str(&format!("{limb:09}"));
        }
        out
    }

    /// How many decimal digits the value has (none for zero).
    pub(super) fn decimal_digits(&self) -> u64 {
        match self.0.last() {
            None => 0,
            Some(top) => 9 * (self.0.len() as u64 - 1) + u64::from(top.checked_ilog10().unwrap_or(0) + 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_in_decimal_limbs() {
        let n = Big::from_decimal("000123456789012345678901234567890");
        assert_eq!(n.to_decimal(), "123456789012345678901234567890");
        assert_eq!(n.decimal_digits(), 30);
        let mut m = n.clone();
        m.mul_pow10(20);
        assert_eq!(m.decimal_digits(), 50);
        assert_eq!(m.trailing_decimal_zeros(), 21);
        assert!(!m.div_pow10(20));
        assert_eq!(m, n);
        assert!(!m.div_pow10(1));
        assert_eq!(m.to_decimal(), "12345678901234567890123456789");
        assert!(m.div_pow10(1));
        assert_eq!(m.to_decimal(), "1234567890123456789012345678");
        assert!(m.clone().div_pow10(40), "everything cut off");
        assert_eq!(n.add(&Big::from_u128(10)).sub(&n), Big::from_u128(10));
        assert_eq!(n.sub(&n), Big::default());
        assert_eq!(Big::from_u128(999_999_999).add(&Big::from_u128(1)).to_decimal(), "1000000000");
        let mut shifted = Big::from_u128(3);
        shifted.shl(70);
        assert_eq!(shifted.to_decimal(), (3u128 << 70).to_string());
        let mut divided = Big::from_u128(1 << 40);
        assert_eq!(divided.div_small(1024), 0);
        assert_eq!(divided, Big::from_u128(1 << 30));
        assert_eq!(Big::default().to_decimal(), "0");
        assert_eq!(Big::from_decimal("000").decimal_digits(), 0);
    }
}
