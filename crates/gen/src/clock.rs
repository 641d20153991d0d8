//! Maps progress through the corpus (a fraction of its bytes) to event time, with a daily
//! traffic pattern: more data by day than by night, as real machine data has.
//!
//! The span is cut into hours; each hour gets a weight from [`HOURLY`] (UTC hour of day) and the
//! fraction `u` of the corpus falls in the hour where the cumulative weight passes `u`, then
//! linearly inside it. Because progress only grows, [`Clock::time_at`] walks forward with a
//! cursor (amortised O(1)); its naive twin [`Clock::naive_time_at`] searches the table afresh.

/// Relative traffic per UTC hour of day (night trough about 35 % of the afternoon peak).
const HOURLY: [f64; 24] = [
    0.45, 0.40, 0.36, 0.35, 0.36, 0.42, 0.55, 0.72, 0.88, 0.97, 1.0, 1.0, 0.98, 0.99, 1.0, 1.0,
    0.97, 0.93, 0.88, 0.82, 0.75, 0.66, 0.58, 0.50,
];
/// Length of a table step, microseconds.
const HOUR_US: i64 = 3_600_000_000;
/// Above this many hours (about 11 years) the table is not built and time is uniform.
const MAX_HOURS: i64 = 100_000;

/// Fraction-of-corpus → time mapping for one configuration.
#[derive(Debug, Clone)]
pub struct Clock {
    /// Start of the span, microseconds since the Unix epoch.
    start_us: i64,
    /// Length of the span, microseconds (≥ 0).
    span_us: i64,
    /// Cumulative share of traffic at the start of each hour step, then 1.0; empty = uniform.
    cum: Vec<f64>,
    /// Index of the step the last answer fell in.
    cursor: usize,
}

impl Clock {
    /// A clock over `[start_us, start_us + span_us)`.
    pub fn new(start_us: i64, span_us: i64) -> Clock {
        let span_us = span_us.max(0);
        let steps = (span_us + HOUR_US - 1) / HOUR_US;
        let mut cum = Vec::new();
        if steps > 1 && steps <= MAX_HOURS {
            let mut weights = Vec::with_capacity(steps as usize);
            for i in 0..steps {
                let t = start_us + i * HOUR_US;
                let hour = t.div_euclid(HOUR_US).rem_euclid(24) as usize;
                let len = (span_us - i * HOUR_US).min(HOUR_US) as f64 / HOUR_US as f64;
                weights.push(HOURLY[hour] * len);
            }
            let total: f64 = weights.iter().sum();
            let mut acc = 0.0;
            cum.push(0.0);
            for w in &weights {
                acc += w / total;
                cum.push(acc);
            }
            if let Some(last) = cum.last_mut() {
                *last = 1.0;
            }
        }
        Clock {
            start_us,
            span_us,
            cum,
            cursor: 0,
        }
    }

    fn interpolate(&self, step: usize, u: f64) -> i64 {
        let (lo, hi) = (self.cum[step], self.cum[step + 1]);
        let within = if hi > lo { (u - lo) / (hi - lo) } else { 0.0 };
        let step_start = step as i64 * HOUR_US;
        let step_len = (self.span_us - step_start).min(HOUR_US);
        step_start + (within.clamp(0.0, 1.0) * step_len as f64) as i64
    }

    fn finish(&self, elapsed: i64) -> i64 {
        self.start_us
            .saturating_add(elapsed.clamp(0, (self.span_us - 1).max(0)))
    }

    /// Time of the event at fraction `u` (0 ≤ u < 1) of the corpus. Calls must come with
    /// non-decreasing `u`; the answers are then non-decreasing too.
    #[inline]
    pub fn time_at(&mut self, u: f64) -> i64 {
        if self.cum.is_empty() {
            return self.finish((u * self.span_us as f64) as i64);
        }
        while self.cursor + 2 < self.cum.len() && self.cum[self.cursor + 1] <= u {
            self.cursor += 1;
        }
        self.finish(self.interpolate(self.cursor, u))
    }

    /// The naive twin of [`Clock::time_at`]: a linear search from the first step.
    #[cfg(test)]
    pub fn naive_time_at(&self, u: f64) -> i64 {
        if self.cum.is_empty() {
            return self.finish((u * self.span_us as f64) as i64);
        }
        let step = (0..self.cum.len() - 2)
            .find(|&i| self.cum[i + 1] > u)
            .unwrap_or(self.cum.len() - 2);
        self.finish(self.interpolate(step, u))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 24 * HOUR_US;

    #[test]
    fn days_have_busy_afternoons_and_quiet_nights() {
        let mut c = Clock::new(1_767_225_600_000_000, 7 * DAY);
        let mut per_hour = [0u32; 24];
        let n = 700_000;
        for i in 0..n {
            let t = c.time_at(i as f64 / n as f64);
            per_hour[(t.div_euclid(HOUR_US).rem_euclid(24)) as usize] += 1;
        }
        assert!(
            per_hour[14] as f64 > 2.5 * per_hour[3] as f64,
            "{per_hour:?}"
        );
        assert!(per_hour.iter().all(|&h| h > 0));
    }

    #[test]
    fn degenerate_spans() {
        let mut c = Clock::new(5, 0);
        assert_eq!((c.time_at(0.0), c.time_at(0.9)), (5, 5));
        let mut c = Clock::new(0, 1_000);
        assert_eq!(c.time_at(0.5), 500);
        assert_eq!(c.time_at(0.999_999_9), 999);
    }

    proptest::proptest! {
        #[test]
        fn cursor_matches_naive_and_is_monotone(
            start in -1_000_000_000_000_000i64..4_000_000_000_000_000,
            span in 0i64..40 * DAY,
            mut us in proptest::collection::vec(0.0f64..1.0, 1..200),
        ) {
            us.sort_by(f64::total_cmp);
            let mut c = Clock::new(start, span);
            let mut last = i64::MIN;
            for u in us {
                let t = c.time_at(u);
                proptest::prop_assert_eq!(t, c.naive_time_at(u));
                proptest::prop_assert!(t >= last && t >= start && (t < start + span || span == 0));
                last = t;
            }
        }
    }
}
