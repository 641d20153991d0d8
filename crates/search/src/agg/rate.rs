//! `rate(f)`: the per-second change of a counter, `(latest(f) - earliest(f)) /
//! (latest_time(f) - earliest_time(f))`, as Splunk defines it; null unless both ends are numbers
//! at different times.

use super::time::TimeSel;
use crate::value::Value;
use lode_event::Micros;

/// The earliest and latest values with their times.
#[derive(Debug, Clone, PartialEq)]
pub struct Rate {
    /// The earliest value seen.
    pub first: TimeSel,
    /// The latest value seen.
    pub last: TimeSel,
}

impl Default for Rate {
    fn default() -> Self {
        Rate {
            first: TimeSel::new(false),
            last: TimeSel::new(true),
        }
    }
}

impl Rate {
    /// Considers `v` seen at `t`.
    pub fn update(&mut self, t: Micros, v: &Value) {
        self.first.update(t, v);
        self.last.update(t, v);
    }

    /// Combines with another partial state.
    pub fn merge(&mut self, other: Rate) {
        self.first.merge(other.first);
        self.last.merge(other.last);
    }

    /// Change per second between the earliest and the latest value.
    pub fn result(&self) -> Value {
        let (Some((t0, v0)), Some((t1, v1))) = (&self.first.best, &self.last.best) else {
            return Value::Null;
        };
        match (v0.to_num(), v1.to_num()) {
            (Some(a), Some(b)) if t1 > t0 => Value::Num((b - a) / ((t1 - t0) as f64 / 1e6)),
            _ => Value::Null,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_between_earliest_and_latest() {
        let mut a = Rate::default();
        a.update(2_000_000, &Value::Str("30".into()));
        a.update(1_000_000, &Value::Str("10".into()));
        let mut b = Rate::default();
        b.update(5_000_000, &Value::Str("90".into()));
        a.merge(b);
        assert_eq!(a.result(), Value::Num(20.0));
        let mut one = Rate::default();
        one.update(1, &Value::Num(1.0));
        assert_eq!(one.result(), Value::Null);
        let mut text = Rate::default();
        text.update(1, &Value::Str("x".into()));
        text.update(2, &Value::Num(1.0));
        assert_eq!(text.result(), Value::Null);
    }
}
