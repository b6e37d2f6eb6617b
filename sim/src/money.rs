//! Money and percentages, in integers only.
//!
//! The lesson prints whole dollars (`$256,979`); the kit keeps every amount as
//! integer cents so that no total ever depends on floating-point rounding.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Mul, Sub};

/// An amount of money in integer **cents** (`Money(50_000)` is $500.00).
///
/// Signed so that differences (charged − intended) can be expressed, but every
/// charge the kit creates is positive. Arithmetic panics on overflow in debug
/// builds like any `i64`; at ±92 quadrillion dollars that never happens with
/// the fixtures' limits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(i64);

impl Money {
    /// Zero cents.
    pub const ZERO: Money = Money(0);

    /// An amount of `cents` cents.
    pub const fn from_cents(cents: i64) -> Money {
        Money(cents)
    }

    /// An amount of whole `dollars` (`from_dollars(500)` is 50,000 cents).
    pub const fn from_dollars(dollars: i64) -> Money {
        Money(dollars * 100)
    }

    /// The amount in cents.
    pub const fn cents(self) -> i64 {
        self.0
    }

    /// `self − other`, or zero when `other` is larger (what an order was
    /// charged beyond its amount, never negative).
    pub fn saturating_excess(self, other: Money) -> Money {
        Money((self.0 - other.0).max(0))
    }
}

impl Add for Money {
    type Output = Money;
    fn add(self, rhs: Money) -> Money {
        Money(self.0 + rhs.0)
    }
}

impl AddAssign for Money {
    fn add_assign(&mut self, rhs: Money) {
        self.0 += rhs.0;
    }
}

impl Sub for Money {
    type Output = Money;
    fn sub(self, rhs: Money) -> Money {
        Money(self.0 - rhs.0)
    }
}

impl Mul<u64> for Money {
    type Output = Money;
    fn mul(self, rhs: u64) -> Money {
        Money(self.0 * rhs as i64)
    }
}

impl Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        iter.fold(Money::ZERO, Add::add)
    }
}

/// Formats like the lesson: `$256,979` for whole dollars, `$1,234.56`
/// otherwise, `-$5` for negatives. A width (`{:>10}`) pads the digits after
/// the dollar sign, as the lesson's tables do (`$   256,979`).
impl fmt::Display for Money {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        let mut digits = group_thousands(abs / 100);
        if !abs.is_multiple_of(100) {
            digits.push_str(&format!(".{:02}", abs % 100));
        }
        match f.width() {
            Some(w) => write!(f, "{sign}${digits:>w$}"),
            None => write!(f, "{sign}${digits}"),
        }
    }
}

/// `1234567` → `"1,234,567"`: the lesson's thousands separator.
pub fn group_thousands(n: u64) -> String {
    let raw = n.to_string();
    let mut out = String::with_capacity(raw.len() + raw.len() / 3);
    for (i, c) in raw.chars().enumerate() {
        if i > 0 && (raw.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A share of one amount in another, kept exact as the fraction `part / whole`.
///
/// The reconciliation reports the overcharge as a percentage of the intended
/// total (lesson 2: "$48,139 (18.7% de mas)"). Keeping the fraction exact
/// means equality and display never depend on floating point. A `whole` of
/// zero means "nothing to compare against" and reads as 0%.
#[derive(Clone, Copy, Debug, Default)]
pub struct Percent {
    part: Money,
    whole: Money,
}

impl Percent {
    /// `part` as a percentage of `whole`; 0% when `whole` is zero (never a
    /// division by zero).
    pub fn of(part: Money, whole: Money) -> Percent {
        if whole == Money::ZERO {
            Percent::default()
        } else {
            Percent { part, whole }
        }
    }

    /// The percentage in tenths of a percent, rounded half away from zero
    /// (`187` for 48,139 / 256,979).
    pub fn tenths(self) -> i64 {
        if self.whole == Money::ZERO {
            return 0;
        }
        let num = i128::from(self.part.cents()) * 1000;
        let den = i128::from(self.whole.cents());
        let (num, den) = if den < 0 { (-num, -den) } else { (num, den) };
        let rounded = if num >= 0 {
            (2 * num + den) / (2 * den)
        } else {
            -((-2 * num + den) / (2 * den))
        };
        rounded as i64
    }

    /// The fraction as `(part, whole)` cents, `(0, 1)` for a zero whole.
    fn fraction(self) -> (i128, i128) {
        if self.whole == Money::ZERO {
            (0, 1)
        } else {
            (
                i128::from(self.part.cents()),
                i128::from(self.whole.cents()),
            )
        }
    }

    /// The percentage as a float, for charts only (never for money).
    pub fn as_f64(self) -> f64 {
        if self.whole == Money::ZERO {
            0.0
        } else {
            100.0 * self.part.cents() as f64 / self.whole.cents() as f64
        }
    }
}

/// Two percentages are equal when their fractions are (cross-multiplied);
/// a zero `whole` counts as 0 / 1.
impl PartialEq for Percent {
    fn eq(&self, other: &Percent) -> bool {
        let (a, b) = (self.fraction(), other.fraction());
        a.0 * b.1 == b.0 * a.1
    }
}

impl Eq for Percent {}

/// One decimal, as the lesson prints it: `18.7%`.
impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.tenths();
        let sign = if t < 0 { "-" } else { "" };
        let text = format!("{sign}{}.{}%", t.abs() / 10, t.abs() % 10);
        f.pad(&text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn money_prints_like_the_lesson() {
        assert_eq!(Money::from_dollars(256_979).to_string(), "$256,979");
        assert_eq!(Money::from_dollars(500).to_string(), "$500");
        assert_eq!(Money::from_dollars(1000).to_string(), "$1,000");
        assert_eq!(Money::from_cents(123_456).to_string(), "$1,234.56");
        assert_eq!(Money::from_dollars(-5).to_string(), "-$5");
        assert_eq!(
            format!("{:>10}", Money::from_dollars(256_979)),
            "$   256,979"
        );
        assert_eq!(format!("{:>10}", Money::ZERO), "$         0");
    }

    #[test]
    fn percent_is_the_lessons_and_never_divides_by_zero() {
        let p = Percent::of(Money::from_dollars(48_139), Money::from_dollars(256_979));
        assert_eq!(p.tenths(), 187);
        assert_eq!(p.to_string(), "18.7%");
        assert_eq!(
            Percent::of(Money::from_dollars(3), Money::ZERO).to_string(),
            "0.0%"
        );
        assert_eq!(
            Percent::of(Money::from_dollars(1), Money::from_dollars(8)).tenths(),
            125
        );
        assert_eq!(
            Percent::of(Money::from_dollars(1), Money::from_dollars(2)),
            Percent::of(Money::from_dollars(50), Money::from_dollars(100))
        );
        assert_ne!(
            Percent::of(Money::from_dollars(48_139), Money::from_dollars(256_979)),
            Percent::of(Money::from_dollars(48_139), Money::from_dollars(305_118))
        );
        assert_eq!(
            Percent::of(Money::ZERO, Money::from_dollars(9)),
            Percent::default()
        );
    }
}
