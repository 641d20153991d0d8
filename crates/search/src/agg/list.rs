//! Order-dependent aggregations: `list(f)` (values in result order, at most [`MAX_LIST`]),
//! `first(f)` and `last(f)`.
//!
//! Splunk feeds `stats` the events of a search newest first, so `first` is the most recent
//! value, `last` the oldest and `list` runs from newest to oldest. Lode's batch workers read
//! buckets in any order, so these states follow `_time` instead of arrival: newest first, ties
//! (and rows without `_time`) in arrival order. Partial states merge in the order of their rows,
//! so a split search gives the same answer as one pass.

use crate::value::Value;
use lode_event::Micros;
use std::cmp::Reverse;

/// Most values `list` keeps, as Splunk's `list` does.
pub const MAX_LIST: usize = 100;

/// The values seen with their times (sorted and cut to the newest [`MAX_LIST`] when it grows).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct List {
    /// Values and the time of their row.
    pub vals: Vec<(Option<Micros>, Value)>,
}

impl List {
    /// Adds each value of `v`, from a row at time `t`.
    pub fn update(&mut self, v: &Value, t: Option<Micros>) {
        self.vals.extend(v.iter_values().map(|x| (t, x.clone())));
        self.compact(2 * MAX_LIST);
    }

    /// Appends another partial list (whose rows came after this one's).
    pub fn merge(&mut self, other: List) {
        self.vals.extend(other.vals);
        self.compact(2 * MAX_LIST);
    }

    /// Sorts newest first (stable) and keeps [`MAX_LIST`] values once more than `over` are held.
    fn compact(&mut self, over: usize) {
        if self.vals.len() > over {
            self.sort();
            self.vals.truncate(MAX_LIST);
        }
    }

    fn sort(&mut self) {
        self.vals
            .sort_by_key(|(t, _)| Reverse(t.unwrap_or(Micros::MIN)));
    }

    /// The values, newest first (null when none).
    pub fn result(&self) -> Value {
        let mut l = self.clone();
        l.compact(MAX_LIST);
        l.sort();
        Value::from_values(l.vals.into_iter().map(|(_, v)| v).collect())
    }
}

/// `first` or `last`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Pick {
    /// `true` for `last`.
    pub last: bool,
    /// The value picked so far and the time of its row.
    pub best: Option<(Option<Micros>, Value)>,
}

impl Pick {
    /// A `first` (`last = false`) or `last` state.
    pub fn new(last: bool) -> Pick {
        Pick { last, best: None }
    }

    /// Whether a value at `t` that arrives after the current pick replaces it: `first` takes
    /// a strictly newer row, `last` an older or equally old one; without times, `first` keeps
    /// the first arrival and `last` takes the latest.
    fn wins(&self, t: Option<Micros>) -> bool {
        match (&self.best, t) {
            (None, _) => true,
            (Some((Some(b), _)), Some(t)) => {
                if self.last {
                    t <= *b
                } else {
                    t > *b
                }
            }
            _ => self.last,
        }
    }

    /// Considers the field value of the next row, at time `t` (null is ignored).
    pub fn update(&mut self, v: &Value, t: Option<Micros>) {
        if !v.is_null() && self.wins(t) {
            self.best = Some((t, v.clone()));
        }
    }

    /// Combines with the state of the rows that came after this one's.
    pub fn merge(&mut self, other: Pick) {
        if let Some((t, v)) = other.best {
            if self.wins(t) {
                self.best = Some((t, v));
            }
        }
    }

    /// The picked value (null when none).
    pub fn result(&self) -> Value {
        self.best.as_ref().map_or(Value::Null, |(_, v)| v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(x: &str) -> Value {
        Value::Str(x.into())
    }

    #[test]
    fn list_runs_newest_first_and_caps() {
        let mut a = List::default();
        a.update(&s("b"), Some(1));
        a.update(&Value::Multi(vec![s("a"), s("c")]), Some(3));
        let mut b = List::default();
        b.update(&s("d"), Some(2));
        a.merge(b);
        assert_eq!(a.result().to_string(), "a\nc\nd\nb");
        let mut untimed = List::default();
        ["x", "y"].iter().for_each(|v| untimed.update(&s(v), None));
        assert_eq!(untimed.result().to_string(), "x\ny");
        // The newest 100 survive, whatever the arrival order and split.
        let mut whole = List::default();
        let mut parts = [List::default(), List::default(), List::default()];
        for i in 0..450i64 {
            let t = (i * 7919) % 450;
            whole.update(&Value::Num(t as f64), Some(t));
            parts[(i % 3) as usize].update(&Value::Num(t as f64), Some(t));
        }
        let [mut p0, p1, p2] = parts;
        p0.merge(p1);
        p0.merge(p2);
        let got = whole.result();
        assert_eq!(got, p0.result());
        let Value::Multi(v) = got else { panic!() };
        assert_eq!(v.len(), MAX_LIST);
        assert_eq!(v[0], Value::Num(449.0));
        assert_eq!(v[99], Value::Num(350.0));
        assert_eq!(List::default().result(), Value::Null);
    }

    #[test]
    fn first_is_newest_last_is_oldest() {
        let (mut f1, mut l1) = (Pick::new(false), Pick::new(true));
        let (mut f2, mut l2) = (Pick::new(false), Pick::new(true));
        for (v, t) in [(s("a"), 5), (Value::Null, 9), (s("b"), 1)] {
            f1.update(&v, Some(t));
            l1.update(&v, Some(t));
        }
        f2.update(&s("c"), Some(7));
        l2.update(&s("c"), Some(7));
        f1.merge(f2);
        l1.merge(l2);
        assert_eq!(f1.result().to_string(), "c");
        assert_eq!(l1.result().to_string(), "b");
        let (mut f, mut l) = (Pick::new(false), Pick::new(true));
        for v in ["x", "y"] {
            f.update(&s(v), None);
            l.update(&s(v), None);
        }
        assert_eq!(
            (f.result().to_string(), l.result().to_string()),
            ("x".into(), "y".into())
        );
        let mut empty = Pick::new(false);
        empty.merge(Pick::new(false));
        assert_eq!(empty.result(), Value::Null);
    }
}
