//! `sum(f)` and `avg(f)`: numeric values only (non-numeric values are ignored).

use crate::value::Value;

/// Sum and count of the numeric values seen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sum {
    /// Sum of the numeric values.
    pub sum: f64,
    /// How many numeric values.
    pub n: u64,
}

impl Sum {
    /// Adds each numeric value of `v`.
    pub fn update(&mut self, v: &Value) {
        for x in v.iter_values() {
            if let Some(n) = x.to_num() {
                self.sum += n;
                self.n += 1;
            }
        }
    }

    /// Adds another partial sum.
    pub fn merge(&mut self, other: Sum) {
        self.sum += other.sum;
        self.n += other.n;
    }

    /// `sum`: null when no numeric value was seen.
    pub fn sum(&self) -> Value {
        if self.n == 0 {
            Value::Null
        } else {
            Value::Num(self.sum)
        }
    }

    /// `avg`: null when no numeric value was seen.
    pub fn avg(&self) -> Value {
        if self.n == 0 {
            Value::Null
        } else {
            Value::Num(self.sum / self.n as f64)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ignores_non_numbers() {
        let mut a = Sum::default();
        a.update(&Value::Str("3".into()));
        a.update(&Value::Str("x".into()));
        let mut b = Sum::default();
        b.update(&Value::Num(4.0));
        a.merge(b);
        assert_eq!(a.sum(), Value::Num(7.0));
        assert_eq!(a.avg(), Value::Num(3.5));
        assert_eq!(Sum::default().avg(), Value::Null);
    }
}
