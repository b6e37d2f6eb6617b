//! Dinero y porcentajes, solo con enteros.
//!
//! La lección imprime dólares enteros (`$256,979`); el kit guarda cada monto
//! en centavos enteros, para que ningún total dependa nunca del redondeo en
//! coma flotante.

use std::fmt;
use std::iter::Sum;
use std::ops::{Add, AddAssign, Mul, Sub};

/// Un monto de dinero en **centavos** enteros (`Money(50_000)` son $500.00).
///
/// Tiene signo para poder expresar diferencias (cobrado − intención), pero
/// todo cargo que crea el kit es positivo.
///
/// # Pánicos
/// La aritmética entra en pánico por desbordamiento en las compilaciones de
/// depuración (debug), como cualquier `i64`; el límite está en ±92 mil
/// billones de dólares, así que con los límites de los fixtures nunca ocurre.
#[derive(
    Clone,
    Copy,
    Debug,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    serde::Serialize,
    serde::Deserialize,
)]
#[serde(transparent)]
pub struct Money(i64);

impl Money {
    /// Cero centavos.
    pub const ZERO: Money = Money(0);

    /// Un monto de `cents` centavos.
    pub const fn from_cents(cents: i64) -> Money {
        Money(cents)
    }

    /// Un monto de `dollars` dólares enteros (`from_dollars(500)` son 50,000
    /// centavos).
    pub const fn from_dollars(dollars: i64) -> Money {
        Money(dollars * 100)
    }

    /// El monto en centavos.
    pub const fn cents(self) -> i64 {
        self.0
    }

    /// `self − other`, o cero cuando `other` es mayor (lo que se le cobró a una
    /// orden por encima de su monto; nunca es negativo).
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

/// Se imprime como en la lección: `$256,979` para dólares enteros,
/// `$1,234.56` si hay centavos, `-$5` para negativos. Un ancho (`{:>10}`)
/// rellena los dígitos después del signo de dólar, como en las tablas de la
/// lección (`$   256,979`).
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

/// `1234567` → `"1,234,567"`: el separador de miles de la lección.
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

/// La proporción de un monto dentro de otro, guardada exacta como la fracción
/// `part / whole`.
///
/// La reconciliación informa el sobrecobro como porcentaje del total de la
/// intención (lección 2: "$48,139 (18.7% de mas)"). Guardar la fracción exacta
/// hace que la igualdad y la impresión nunca dependan de la coma flotante. Un
/// `whole` de cero significa "no hay con qué comparar" y se lee como 0%.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Percent {
    part: Money,
    whole: Money,
}

impl Percent {
    /// `part` como porcentaje de `whole`; 0% cuando `whole` es cero (nunca
    /// divide por cero).
    pub fn of(part: Money, whole: Money) -> Percent {
        if whole == Money::ZERO {
            Percent::default()
        } else {
            Percent { part, whole }
        }
    }

    /// El porcentaje en décimas de punto porcentual, redondeado con las
    /// mitades alejándose de cero (`187` para 48,139 / 256,979).
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

    /// La fracción como `(part, whole)` en centavos; `(0, 1)` si `whole` es
    /// cero.
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

    /// El porcentaje como número de coma flotante, solo para gráficos (nunca
    /// para dinero).
    pub fn as_f64(self) -> f64 {
        if self.whole == Money::ZERO {
            0.0
        } else {
            100.0 * self.part.cents() as f64 / self.whole.cents() as f64
        }
    }
}

/// Dos porcentajes son iguales cuando sus fracciones lo son (multiplicando en
/// cruz); un `whole` de cero cuenta como 0 / 1.
impl PartialEq for Percent {
    fn eq(&self, other: &Percent) -> bool {
        let (a, b) = (self.fraction(), other.fraction());
        a.0 * b.1 == b.0 * a.1
    }
}

impl Eq for Percent {}

/// Con un decimal, como lo imprime la lección: `18.7%`.
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
