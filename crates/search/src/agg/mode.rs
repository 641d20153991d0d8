//! `mode(f)`: the most frequent value (as text); a tie goes to the value seen first.

use crate::value::Value;
use std::collections::HashMap;

/// Occurrences of each value and the order in which values were first seen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Mode {
    /// Value text → (occurrences, first-seen position).
    pub counts: HashMap<String, (u64, u64)>,
    /// The next first-seen position.
    pub next: u64,
}

impl Mode {
    /// Counts each value of `v`.
    pub fn update(&mut self, v: &Value) {
        for x in v.iter_values() {
            self.add(x.as_str().as_ref(), 1);
        }
    }

    fn add(&mut self, s: &str, n: u64) {
        match self.counts.get_mut(s) {
            Some(c) => c.0 += n,
            None => {
                self.counts.insert(s.to_string(), (n, self.next));
                self.next += 1;
            }
        }
    }

    /// Adds another partial state whose rows came after this one's (values new to this state
    /// keep their relative first-seen order, after the ones seen here).
    pub fn merge(&mut self, other: Mode) {
        let mut rest: Vec<(String, (u64, u64))> = other.counts.into_iter().collect();
        rest.sort_by_key(|(_, (_, pos))| *pos);
        for (s, (n, _)) in rest {
            self.add(&s, n);
        }
    }

    /// The most frequent value; null when none was seen.
    pub fn result(&self) -> Value {
        self.counts
            .iter()
            .max_by(|a, b| a.1 .0.cmp(&b.1 .0).then(b.1 .1.cmp(&a.1 .1)))
            .map_or(Value::Null, |(s, _)| Value::Str(s.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(vals: &[&str]) -> Mode {
        let mut m = Mode::default();
        vals.iter()
            .for_each(|s| m.update(&Value::Str(s.to_string())));
        m
    }

    #[test]
    fn most_frequent_first_seen_wins_ties() {
        assert_eq!(of(&["a", "b", "b", "c"]).result().to_string(), "b");
        assert_eq!(of(&["c", "a", "a", "c"]).result().to_string(), "c");
        let mut m = of(&["x", "y"]);
        m.merge(of(&["z", "z", "y"]));
        assert_eq!(m.result().to_string(), "y");
        let mut m = of(&["x"]);
        m.merge(of(&["z", "y"]));
        assert_eq!(m.result().to_string(), "x");
        assert_eq!(Mode::default().result(), Value::Null);
    }
}
