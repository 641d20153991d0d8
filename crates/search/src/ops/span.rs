//! Time buckets of `timechart`: fixed spans aligned to the user's zone (weeks start on Sunday),
//! and calendar months/years; the automatic span choice from the time range and `bins`.

use lode_event::Micros;
use lode_spl::ast::{TimeSpan, TimeUnit};
use lode_time::strptime::{strftime, TimeFormat};
use lode_time::Zone;

const SEC: i64 = 1_000_000;
const DAY: i64 = 86_400 * SEC;

/// A bucket width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    /// A fixed number of microseconds; `week` aligns buckets to Sundays.
    Fixed {
        /// Width in microseconds.
        micros: i64,
        /// Whether buckets start on a Sunday.
        week: bool,
    },
    /// A number of calendar months (aligned to multiples of it since year 0, so 12 = years).
    Months(u32),
}

/// Candidate automatic spans, each a whole multiple of the one before (so finer buckets merge
/// exactly into coarser ones).
pub const AUTO: [Span; 17] = [
    Span::Fixed {
        micros: SEC,
        week: false,
    },
    Span::Fixed {
        micros: 5 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: 10 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: 30 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: 60 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: 300 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: 600 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: 1800 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: 3600 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: 3 * 3600 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: 12 * 3600 * SEC,
        week: false,
    },
    Span::Fixed {
        micros: DAY,
        week: false,
    },
    Span::Fixed {
        micros: 7 * DAY,
        week: true,
    },
    Span::Months(1),
    Span::Months(12),
    Span::Months(120),
    Span::Months(1200),
];

impl Span {
    /// The span of a `span=` argument (zero counts are treated as one).
    pub fn from_ast(s: TimeSpan) -> Span {
        let n = s.count.clamp(1, i64::MAX as u64) as i64;
        let fixed = |unit: i64| Span::Fixed {
            micros: n.saturating_mul(unit),
            week: false,
        };
        match s.unit {
            TimeUnit::Second => fixed(SEC),
            TimeUnit::Minute => fixed(60 * SEC),
            TimeUnit::Hour => fixed(3600 * SEC),
            TimeUnit::Day => fixed(DAY),
            TimeUnit::Week => Span::Fixed {
                micros: n.saturating_mul(7 * DAY),
                week: true,
            },
            TimeUnit::Month => Span::Months(n.min(u32::MAX as i64) as u32),
            TimeUnit::Year => Span::Months(n.saturating_mul(12).min(u32::MAX as i64) as u32),
        }
    }

    /// Start of the bucket holding `t`.
    pub fn start(self, t: Micros, tz: Zone) -> Micros {
        match self {
            Span::Fixed { micros, week } => {
                let off = tz.offset_at_utc(t.div_euclid(SEC)) as i64 * SEC;
                // 1970-01-01 was a Thursday: shifting by 4 days puts Sunday at a multiple of 7 days.
                let shift = if week { 4 * DAY } else { 0 };
                t.saturating_add(off + shift)
                    .div_euclid(micros)
                    .saturating_mul(micros)
                    .saturating_sub(off + shift)
            }
            Span::Months(n) => {
                let idx = month_index(t, tz);
                month_start(idx - idx.rem_euclid(n as i64), tz).unwrap_or(t)
            }
        }
    }

    /// Start of the bucket after the one starting at `start`.
    pub fn next(self, start: Micros, tz: Zone) -> Micros {
        match self {
            Span::Fixed { micros, .. } => start.saturating_add(micros),
            Span::Months(n) => {
                month_start(month_index(start, tz) + n as i64, tz).unwrap_or(start + 31 * DAY)
            }
        }
    }

    /// Number of buckets needed to cover `[lo, hi)`.
    pub fn buckets(self, lo: Micros, hi: Micros, tz: Zone) -> i64 {
        if hi <= lo {
            return 1;
        }
        match self {
            Span::Fixed { micros, .. } => {
                (self.start(hi - 1, tz) - self.start(lo, tz)) / micros + 1
            }
            Span::Months(n) => (month_index(hi - 1, tz) - month_index(lo, tz)) / n as i64 + 1,
        }
    }
}

/// Months since year 0 of the local date of `t`.
fn month_index(t: Micros, tz: Zone) -> i64 {
    let ym = strftime(t, "%Y-%m", tz);
    let (y, m) = ym.split_once('-').unwrap_or(("1970", "01"));
    y.parse::<i64>().unwrap_or(1970) * 12 + m.parse::<i64>().unwrap_or(1) - 1
}

/// Local midnight of the first day of month `idx` (months since year 0).
fn month_start(idx: i64, tz: Zone) -> Option<Micros> {
    let text = format!(
        "{:04}-{:02}-01 00:00:00",
        idx.div_euclid(12),
        idx.rem_euclid(12) + 1
    );
    let fmt = TimeFormat::new("%Y-%m-%d %H:%M:%S").ok()?;
    fmt.parse_prefix(&text, tz, 0).map(|(t, _)| t)
}

/// The smallest automatic span, no finer than `at_least`, that covers `[lo, hi)` in at most
/// `bins` buckets.
pub fn choose(lo: Micros, hi: Micros, bins: u32, at_least: Span, tz: Zone) -> Span {
    let from = AUTO.iter().position(|s| *s == at_least).unwrap_or(0);
    for s in &AUTO[from..] {
        if s.buckets(lo, hi, tz) <= bins.max(1) as i64 {
            return *s;
        }
    }
    AUTO[AUTO.len() - 1]
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Micros = 1_700_000_000 * SEC; // 2023-11-14T22:13:20Z, a Tuesday

    #[test]
    fn fixed_alignment_in_zones() {
        let h = Span::Fixed {
            micros: 3600 * SEC,
            week: false,
        };
        assert_eq!(h.start(T, Zone::Utc), 1_699_999_200 * SEC);
        let d = Span::Fixed {
            micros: DAY,
            week: false,
        };
        assert_eq!(d.start(T, Zone::Utc), 1_699_920_000 * SEC);
        assert_eq!(d.start(T, Zone::Fixed(3600)), 1_699_916_400 * SEC);
        let w = Span::from_ast(TimeSpan {
            count: 1,
            unit: TimeUnit::Week,
        });
        assert_eq!(w.start(T, Zone::Utc), 1_699_747_200 * SEC); // Sunday 2023-11-12
    }

    #[test]
    fn months() {
        let m = Span::Months(1);
        let s = m.start(T, Zone::Utc);
        assert_eq!(s, 1_698_796_800 * SEC); // 2023-11-01
        assert_eq!(m.next(s, Zone::Utc), 1_701_388_800 * SEC); // 2023-12-01
        assert_eq!(Span::Months(12).start(T, Zone::Utc), 1_672_531_200 * SEC); // 2023-01-01
    }

    #[test]
    fn automatic_choice() {
        let hour = 3600 * SEC;
        assert_eq!(
            choose(T, T + hour, 100, AUTO[0], Zone::Utc),
            Span::Fixed {
                micros: 60 * SEC,
                week: false
            }
        );
        assert_eq!(
            choose(T, T + 24 * hour, 100, AUTO[0], Zone::Utc),
            Span::Fixed {
                micros: 1800 * SEC,
                week: false
            }
        );
        assert_eq!(choose(T, T + 10 * SEC, 100, AUTO[4], Zone::Utc), AUTO[4]);
        let huge = Span::from_ast(TimeSpan {
            count: u64::MAX,
            unit: TimeUnit::Week,
        });
        assert!(
            huge.next(huge.start(i64::MAX, Zone::Utc), Zone::Utc)
                >= huge.start(i64::MAX, Zone::Utc)
        );
    }
}
