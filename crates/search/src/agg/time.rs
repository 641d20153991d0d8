//! `earliest(f)` and `latest(f)`: the value of the row with the smallest or largest `_time`.

use crate::value::Value;
use lode_event::Micros;

/// The value at the extreme time seen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TimeSel {
    /// `true` for `latest`.
    pub latest: bool,
    /// The best time (microseconds) and its value.
    pub best: Option<(Micros, Value)>,
}

impl TimeSel {
    /// An `earliest` (`latest = false`) or `latest` state.
    pub fn new(latest: bool) -> TimeSel {
        TimeSel { latest, best: None }
    }

    fn wins(&self, t: Micros) -> bool {
        match &self.best {
            None => true,
            Some((b, _)) => (self.latest && t > *b) || (!self.latest && t < *b),
        }
    }

    /// Considers `v` seen at time `t` (null values are ignored).
    pub fn update(&mut self, t: Micros, v: &Value) {
        if !v.is_null() && self.wins(t) {
            self.best = Some((t, v.clone()));
        }
    }

    /// Combines with another partial state of the same kind.
    pub fn merge(&mut self, other: TimeSel) {
        if let Some((t, v)) = other.best {
            if self.wins(t) {
                self.best = Some((t, v));
            }
        }
    }

    /// The selected value (null when none).
    pub fn result(&self) -> Value {
        self.best.as_ref().map_or(Value::Null, |(_, v)| v.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_by_time_not_order() {
        let mut e = TimeSel::new(false);
        let mut l = TimeSel::new(true);
        for (t, s) in [(5, "mid"), (1, "first"), (9, "last")] {
            e.update(t, &Value::Str(s.into()));
            l.update(t, &Value::Str(s.into()));
        }
        let mut other = TimeSel::new(true);
        other.update(10, &Value::Str("newest".into()));
        l.merge(other);
        assert_eq!(e.result().to_string(), "first");
        assert_eq!(l.result().to_string(), "newest");
    }
}
