//! `min(f)` and `max(f)`: numeric when every value is a number, else lexicographic over all values.

use crate::value::Value;

/// The smallest or largest value seen, both numerically and as text.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Extreme {
    /// `true` for `max`.
    pub max: bool,
    /// Extreme of the numeric values.
    pub num: Option<f64>,
    /// Extreme of all values as text.
    pub text: Option<String>,
    /// Whether a non-numeric value was seen.
    pub saw_text: bool,
}

impl Extreme {
    /// A `min` (`max = false`) or `max` state.
    pub fn new(max: bool) -> Extreme {
        Extreme {
            max,
            ..Extreme::default()
        }
    }

    fn better_num(&self, a: f64, b: f64) -> bool {
        if self.max {
            a > b
        } else {
            a < b
        }
    }

    /// Considers each value of `v`.
    pub fn update(&mut self, v: &Value) {
        for x in v.iter_values() {
            match x.to_num() {
                Some(n) if self.num.is_none_or(|m| self.better_num(n, m)) => self.num = Some(n),
                Some(_) => {}
                None => self.saw_text = true,
            }
            let s = x.as_str();
            let better = match &self.text {
                None => true,
                Some(t) => {
                    (self.max && s.as_ref() > t.as_str()) || (!self.max && s.as_ref() < t.as_str())
                }
            };
            if better {
                self.text = Some(s.into_owned());
            }
        }
    }

    /// Combines with another partial state of the same kind.
    pub fn merge(&mut self, other: Extreme) {
        if let Some(n) = other.num {
            if self.num.is_none_or(|m| self.better_num(n, m)) {
                self.num = Some(n);
            }
        }
        if let Some(t) = other.text {
            let better = match &self.text {
                None => true,
                Some(c) => (self.max && t > *c) || (!self.max && t < *c),
            };
            if better {
                self.text = Some(t);
            }
        }
        self.saw_text |= other.saw_text;
    }

    /// The extreme: numeric if all values were numbers, else lexicographic; null when empty.
    pub fn result(&self) -> Value {
        match (&self.num, &self.text, self.saw_text) {
            (Some(n), _, false) => Value::Num(*n),
            (_, Some(t), true) => Value::Str(t.clone()),
            _ => Value::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(max: bool, vals: &[&str]) -> Value {
        let mut e = Extreme::new(max);
        let (a, b) = vals.split_at(vals.len() / 2);
        a.iter().for_each(|s| e.update(&Value::Str(s.to_string())));
        let mut other = Extreme::new(max);
        b.iter()
            .for_each(|s| other.update(&Value::Str(s.to_string())));
        e.merge(other);
        e.result()
    }

    #[test]
    fn numeric_or_lexicographic() {
        assert_eq!(run(false, &["10", "9", "100"]), Value::Num(9.0));
        assert_eq!(run(true, &["10", "9", "100"]), Value::Num(100.0));
        assert_eq!(run(true, &["10", "9", "abc"]).to_string(), "abc");
        assert_eq!(run(false, &["10", "9", "abc"]).to_string(), "10");
        assert_eq!(Extreme::new(true).result(), Value::Null);
    }
}
