//! `dc(f)` and `values(f)`: the set of distinct values (as text).

use crate::value::Value;
use std::collections::BTreeSet;

/// Distinct values seen, ordered lexicographically.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Distinct {
    /// The distinct values' text.
    pub set: BTreeSet<String>,
}

impl Distinct {
    /// Adds each value of `v`.
    pub fn update(&mut self, v: &Value) {
        for x in v.iter_values() {
            let s = x.as_str();
            if !self.set.contains(s.as_ref()) {
                self.set.insert(s.into_owned());
            }
        }
    }

    /// Unites with another partial set.
    pub fn merge(&mut self, other: Distinct) {
        self.set.extend(other.set);
    }

    /// `dc`: how many distinct values.
    pub fn count(&self) -> Value {
        Value::Num(self.set.len() as f64)
    }

    /// `values`: the distinct values, sorted lexicographically (null when none).
    pub fn values(&self) -> Value {
        Value::from_values(self.set.iter().map(|s| Value::Str(s.clone())).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_sorted_lexicographically() {
        let mut a = Distinct::default();
        for s in ["b", "10", "9", "b"] {
            a.update(&Value::Str(s.into()));
        }
        let mut b = Distinct::default();
        b.update(&Value::Multi(vec![Value::Str("a".into()), Value::Num(9.0)]));
        a.merge(b);
        assert_eq!(a.count(), Value::Num(4.0));
        assert_eq!(a.values().to_string(), "10\n9\na\nb");
        assert_eq!(Distinct::default().values(), Value::Null);
    }
}
