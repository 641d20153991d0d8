//! `stdev`, `stdevp`, `var`, `varp`, `sumsq` and `range` of a field's numeric values (other
//! values are ignored): count, sum, sum of squares, least and greatest, all mergeable by
//! addition and comparison.

use crate::value::Value;

/// Moments and bounds of the numeric values seen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Moments {
    /// How many numeric values.
    pub n: u64,
    /// Their sum.
    pub sum: f64,
    /// The sum of their squares.
    pub sumsq: f64,
    /// The least and greatest (`None` until a number is seen).
    pub bounds: Option<(f64, f64)>,
}

impl Moments {
    /// Adds each numeric value of `v`.
    pub fn update(&mut self, v: &Value) {
        for x in v.iter_values() {
            if let Some(n) = x.to_num() {
                self.add(n, n * n, 1, (n, n));
            }
        }
    }

    fn add(&mut self, sum: f64, sumsq: f64, n: u64, (lo, hi): (f64, f64)) {
        self.n += n;
        self.sum += sum;
        self.sumsq += sumsq;
        self.bounds = Some(match self.bounds {
            None => (lo, hi),
            Some((a, b)) => (a.min(lo), b.max(hi)),
        });
    }

    /// Adds another partial state.
    pub fn merge(&mut self, other: Moments) {
        if let Some(b) = other.bounds {
            self.add(other.sum, other.sumsq, other.n, b);
        }
    }

    /// `var` (`sample = true`, divides by n-1) or `varp` (by n); null without enough values.
    pub fn var(&self, sample: bool) -> Option<f64> {
        let n = self.n as f64;
        let d = if sample { n - 1.0 } else { n };
        if d <= 0.0 {
            return None;
        }
        // Rounding can make a constant series' variance slightly negative.
        Some(((self.sumsq - self.sum * self.sum / n) / d).max(0.0))
    }

    /// The result for a function name of this family (`stdev`, `stdevp`, `var`, `varp`,
    /// `sumsq`, `range`).
    pub fn result(&self, func: Func) -> Value {
        let x = match func {
            Func::Stdev => self.var(true).map(f64::sqrt),
            Func::Stdevp => self.var(false).map(f64::sqrt),
            Func::Var => self.var(true),
            Func::Varp => self.var(false),
            Func::Sumsq => (self.n > 0).then_some(self.sumsq),
            Func::Range => self.bounds.map(|(lo, hi)| hi - lo),
        };
        x.map_or(Value::Null, Value::Num)
    }
}

/// The functions computed from [`Moments`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Func {
    /// Sample standard deviation.
    Stdev,
    /// Population standard deviation.
    Stdevp,
    /// Sample variance.
    Var,
    /// Population variance.
    Varp,
    /// Sum of squares.
    Sumsq,
    /// Greatest minus least.
    Range,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_of_numbers_only_and_merge() {
        let mut a = Moments::default();
        for s in ["2", "4", "x", "4"] {
            a.update(&Value::Str(s.into()));
        }
        let mut b = Moments::default();
        b.update(&Value::Multi(vec![Value::Num(4.0), Value::Num(5.0)]));
        b.update(&Value::Str("5".into()));
        let mut c = Moments::default();
        c.update(&Value::Str("7".into()));
        c.update(&Value::Str("9".into()));
        a.merge(b);
        a.merge(Moments::default());
        a.merge(c);
        // 2 4 4 4 5 5 7 9: mean 5, population variance 4.
        assert_eq!(a.result(Func::Varp), Value::Num(4.0));
        assert_eq!(a.result(Func::Stdevp), Value::Num(2.0));
        assert_eq!(a.result(Func::Var).to_num().unwrap(), 32.0 / 7.0);
        assert_eq!(a.result(Func::Sumsq), Value::Num(232.0));
        assert_eq!(a.result(Func::Range), Value::Num(7.0));
        let mut one = Moments::default();
        one.update(&Value::Num(3.0));
        assert_eq!(one.result(Func::Stdev), Value::Null);
        assert_eq!(one.result(Func::Stdevp), Value::Num(0.0));
        assert_eq!(Moments::default().result(Func::Range), Value::Null);
        assert_eq!(Moments::default().result(Func::Sumsq), Value::Null);
    }
}
