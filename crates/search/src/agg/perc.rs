//! `median`, `perc<X>`/`p<X>`/`percentile<X>`, `exactperc<X>` and `upperperc<X>` of a field's
//! numeric values (others ignored). Every numeric value is kept (partial states merge by
//! concatenation), so all of them are exact:
//!
//! * `perc`, `p`, `percentile`, `exactperc`: linear interpolation between the two closest
//!   ranks, at rank `X/100 × (n-1)` of the sorted values;
//! * `upperperc`: the upper of those two values;
//! * `median`: the middle value; with an even count, the higher of the two middle values (as
//!   Splunk documents).

use crate::value::Value;

/// How a percentile is read off the sorted values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Interpolated (`perc`, `p`, `percentile`, `exactperc`).
    Interpolate,
    /// The upper bracketing value (`upperperc`).
    Upper,
}

/// Parses `perc95`, `p99.9`, `exactperc50`, `upperperc75`, `percentile90` into the mode and the
/// percentile in thousandths (so it can be part of an `Eq` kind); `None` if `func` is not one.
pub fn parse_name(func: &str) -> Option<(Mode, u32)> {
    let (mode, digits) = [
        ("exactperc", Mode::Interpolate),
        ("upperperc", Mode::Upper),
        ("percentile", Mode::Interpolate),
        ("perc", Mode::Interpolate),
        ("p", Mode::Interpolate),
    ]
    .iter()
    .find_map(|(prefix, m)| func.strip_prefix(prefix).map(|d| (*m, d)))?;
    let ok = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().filter(|&b| b == b'.').count() <= 1
        && !digits.starts_with('.')
        && !digits.ends_with('.');
    let x: f64 = if ok {
        digits.parse().ok()?
    } else {
        return None;
    };
    (0.0..=100.0)
        .contains(&x)
        .then(|| (mode, (x * 1000.0).round() as u32))
}

/// The numeric values seen.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    /// In arrival order until a result sorts a copy.
    pub vals: Vec<f64>,
}

impl Sample {
    /// Adds each numeric value of `v`.
    pub fn update(&mut self, v: &Value) {
        self.vals.extend(
            v.iter_values()
                .filter_map(Value::to_num)
                .filter(|n| !n.is_nan()),
        );
    }

    /// Adds another partial sample.
    pub fn merge(&mut self, other: Sample) {
        self.vals.extend(other.vals);
    }

    fn sorted(&self) -> Vec<f64> {
        let mut v = self.vals.clone();
        v.sort_by(f64::total_cmp);
        v
    }

    /// The percentile `milli / 1000` read as `mode`; null without values.
    pub fn percentile(&self, mode: Mode, milli: u32) -> Value {
        let v = self.sorted();
        if v.is_empty() {
            return Value::Null;
        }
        let rank = f64::from(milli) / 100_000.0 * (v.len() - 1) as f64;
        let (lo, hi) = (rank.floor() as usize, rank.ceil() as usize);
        Value::Num(match mode {
            Mode::Upper => v[hi],
            Mode::Interpolate => v[lo] + (v[hi] - v[lo]) * (rank - lo as f64),
        })
    }

    /// The median: the middle value, the higher middle one for an even count.
    pub fn median(&self) -> Value {
        let v = self.sorted();
        v.get(v.len() / 2).map_or(Value::Null, |x| Value::Num(*x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(parse_name("perc95"), Some((Mode::Interpolate, 95_000)));
        assert_eq!(parse_name("p99.9"), Some((Mode::Interpolate, 99_900)));
        assert_eq!(parse_name("exactperc50"), Some((Mode::Interpolate, 50_000)));
        assert_eq!(parse_name("upperperc75"), Some((Mode::Upper, 75_000)));
        assert_eq!(
            parse_name("percentile10"),
            Some((Mode::Interpolate, 10_000))
        );
        for bad in [
            "perc", "p", "p101", "p9.", "p.5", "p1.2.3", "pe95", "perc-1", "max",
        ] {
            assert_eq!(parse_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn percentiles_and_median() {
        let mut a = Sample::default();
        for s in ["4", "x", "1"] {
            a.update(&Value::Str(s.into()));
        }
        let mut b = Sample::default();
        b.update(&Value::Multi(vec![Value::Num(3.0), Value::Num(2.0)]));
        a.merge(b);
        // Sorted 1 2 3 4.
        assert_eq!(a.percentile(Mode::Interpolate, 50_000), Value::Num(2.5));
        assert_eq!(a.percentile(Mode::Upper, 50_000), Value::Num(3.0));
        assert_eq!(a.percentile(Mode::Interpolate, 100_000), Value::Num(4.0));
        assert_eq!(a.percentile(Mode::Interpolate, 0), Value::Num(1.0));
        assert_eq!(a.median(), Value::Num(3.0));
        a.update(&Value::Num(10.0));
        assert_eq!(a.median(), Value::Num(3.0));
        assert_eq!(Sample::default().median(), Value::Null);
        assert_eq!(Sample::default().percentile(Mode::Upper, 1), Value::Null);
    }
}
