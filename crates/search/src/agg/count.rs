//! `count` and `count(f)`.

use crate::value::Value;

/// Number of rows (`count`) or of values of a field (`count(f)`; each value of a multivalue).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Count {
    /// Rows or values seen.
    pub n: u64,
}

impl Count {
    /// Counts the values of `v` (none for null).
    pub fn update(&mut self, v: &Value) {
        self.n += v.iter_values().count() as u64;
    }

    /// Counts one row.
    pub fn update_row(&mut self) {
        self.n += 1;
    }

    /// Counts `v` for `w` rows at once (`None`: `w` rows).
    pub fn update_counted(&mut self, v: Option<&Value>, w: u64) {
        let per_row = v.map_or(1, |v| v.iter_values().count() as u64);
        self.n = self.n.saturating_add(per_row.saturating_mul(w));
    }

    /// Adds another partial count.
    pub fn merge(&mut self, other: Count) {
        self.n += other.n;
    }

    /// The count.
    pub fn result(&self) -> Value {
        Value::Num(self.n as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_values_and_merges() {
        let mut a = Count::default();
        a.update(&Value::Str("x".into()));
        a.update(&Value::Null);
        a.update(&Value::Multi(vec![Value::Num(1.0), Value::Num(2.0)]));
        let mut b = Count::default();
        b.update_row();
        a.merge(b);
        assert_eq!(a.result(), Value::Num(4.0));
    }
}
