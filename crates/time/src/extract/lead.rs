//! The slow path's pre-filter: facts about the text at a candidate offset (length of the digit run,
//! the byte after it, whether a month/weekday name starts there), computed once per offset, and
//! each pattern's necessary condition on them. A pattern whose [`Lead`] does not admit the facts
//! cannot match there, so the full parse is skipped. Naive twin: trying every pattern (the filter
//! only skips attempts that would fail; a proptest in `extract::tests` checks the filtered scan
//! against trying every pattern at every offset).

use crate::strptime::{starts_with_month, starts_with_weekday, Item};

/// Longest digit run worth measuring (13-digit epoch milliseconds plus slack), in bytes.
const MAX_RUN: usize = 20;

/// What the text at an offset must look like for a pattern to have a chance.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Lead {
    /// Leading numeric fields: a digit run of `min..=max` digits (`max` only enforced when
    /// `then` is known), followed by `then`.
    Digits { min: u8, max: u8, then: Then },
    /// A month name.
    Month,
    /// A weekday name.
    Weekday,
    /// This exact byte.
    Byte(u8),
    /// No cheap condition.
    Any,
}

/// The byte required right after a leading digit run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Then {
    /// Unknown: only the minimum run length is checked.
    Any,
    /// Exactly this (non-digit) byte.
    Byte(u8),
    /// A space or tab.
    Blank,
}

/// Facts about the text at one candidate offset.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Facts {
    /// The byte at the offset.
    first: u8,
    /// Number of consecutive digits at the offset (capped at [`MAX_RUN`]).
    run: usize,
    /// The byte after the digit run, if inside the window.
    after: Option<u8>,
    /// Whether a month name starts at the offset.
    month: bool,
    /// Whether a weekday name starts at the offset.
    weekday: bool,
}

impl Facts {
    /// Facts at `w[0]`, where `w` is the rest of the lookahead window (non-empty).
    #[inline]
    pub(crate) fn at(w: &[u8]) -> Facts {
        let first = w[0];
        let run = w
            .iter()
            .take(MAX_RUN)
            .take_while(|c| c.is_ascii_digit())
            .count();
        let alpha = first.is_ascii_alphabetic();
        Facts {
            first,
            run,
            after: w.get(run).copied(),
            month: alpha && starts_with_month(w),
            weekday: alpha && starts_with_weekday(w),
        }
    }
}

impl Lead {
    /// The condition implied by a compiled format's first items.
    pub(crate) fn of(items: &[Item]) -> Lead {
        let (mut min, mut max) = (0u8, 0u8);
        let mut k = 0;
        while let Some(item) = items.get(k) {
            let (lo, hi) = match *item {
                Item::Num {
                    pad: false,
                    min,
                    max,
                    ..
                }
                | Item::Frac { min, max }
                | Item::Epoch { min, max } => (min, max),
                Item::EpochMillis => (13, 13),
                _ => break,
            };
            min = min.saturating_add(lo);
            max = max.saturating_add(hi);
            k += 1;
        }
        if k == 0 {
            return match items.first() {
                Some(Item::MonthName) => Lead::Month,
                Some(Item::WeekdayName) => Lead::Weekday,
                Some(&Item::Lit(c)) => Lead::Byte(c),
                _ => Lead::Any,
            };
        }
        let then = match items.get(k) {
            Some(&Item::Lit(c)) if !c.is_ascii_digit() => Then::Byte(c),
            Some(&Item::Space { min: 1.. }) => Then::Blank,
            _ => Then::Any,
        };
        Lead::Digits { min, max, then }
    }

    /// Whether a match can begin with byte `c` (the first-byte index of the table).
    pub(crate) fn may_start(self, c: u8) -> bool {
        match self {
            Lead::Digits { .. } => c.is_ascii_digit(),
            // First letters of the English month and weekday names.
            Lead::Month => matches!(
                c | 0x20,
                b'j' | b'f' | b'm' | b'a' | b's' | b'o' | b'n' | b'd'
            ),
            Lead::Weekday => matches!(c | 0x20, b's' | b'm' | b't' | b'w' | b'f'),
            Lead::Byte(b) => b == c,
            Lead::Any => true,
        }
    }

    /// Whether a pattern with this lead can match where `f` was measured.
    #[inline]
    pub(crate) fn admits(self, f: &Facts) -> bool {
        match self {
            Lead::Digits { min, max, then } => {
                let run_ok = f.run >= usize::from(min);
                match then {
                    Then::Any => run_ok,
                    Then::Byte(c) => run_ok && f.run <= usize::from(max) && f.after == Some(c),
                    Then::Blank => {
                        run_ok && f.run <= usize::from(max) && matches!(f.after, Some(b' ' | b'\t'))
                    }
                }
            }
            Lead::Month => f.month,
            Lead::Weekday => f.weekday,
            Lead::Byte(c) => f.first == c,
            Lead::Any => true,
        }
    }
}

/// The leads of a whole table folded into one test, passed before its candidates are tried one by
/// one: a word that is neither a month nor a weekday name, or digits followed by a byte no
/// pattern takes there (`java:286)` in a stack trace), is turned away in one step instead of one
/// mispredicted dispatch per candidate. A necessary condition only: [`Lead::admits`] decides.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    month: bool,
    weekday: bool,
    /// Some pattern leads with a byte or with anything.
    other: bool,
    /// Shortest run admitted by a digits lead followed by anything ([`usize::MAX`]: none).
    any_run: usize,
    /// Bytes a digits lead accepts right after its run.
    after: [bool; 256],
}

impl Gate {
    pub(crate) fn of(leads: impl IntoIterator<Item = Lead>) -> Gate {
        let mut g = Gate {
            month: false,
            weekday: false,
            other: false,
            any_run: usize::MAX,
            after: [false; 256],
        };
        for lead in leads {
            match lead {
                Lead::Digits { min, then, .. } => match then {
                    Then::Any => g.any_run = g.any_run.min(usize::from(min)),
                    Then::Byte(c) => g.after[usize::from(c)] = true,
                    Then::Blank => {
                        g.after[usize::from(b' ')] = true;
                        g.after[usize::from(b'\t')] = true;
                    }
                },
                Lead::Month => g.month = true,
                Lead::Weekday => g.weekday = true,
                Lead::Byte(_) | Lead::Any => g.other = true,
            }
        }
        g
    }

    /// False only where no lead of the table admits `f`.
    #[inline]
    pub(crate) fn passes(&self, f: &Facts) -> bool {
        self.other
            || (self.month && f.month)
            || (self.weekday && f.weekday)
            // A digits lead only starts on a digit (`may_start`).
            || (f.run > 0
                && (f.run >= self.any_run || f.after.is_some_and(|c| self.after[usize::from(c)])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strptime::TimeFormat;

    fn lead(fmt: &str) -> Lead {
        Lead::of(&TimeFormat::auto(fmt).unwrap().items)
    }

    #[test]
    fn leads_of_common_shapes() {
        let d = |min, max, then| Lead::Digits { min, max, then };
        assert_eq!(lead("%Y-%m-%d %H"), d(4, 4, Then::Byte(b'-')));
        assert_eq!(lead("%y%m%d %H%M%S"), d(6, 6, Then::Blank));
        assert_eq!(lead("%-m/%-d/%Y"), d(1, 2, Then::Byte(b'/')));
        assert_eq!(lead("%s%?f"), d(10, 10, Then::Any));
        assert_eq!(lead("%?Q"), d(13, 13, Then::Any));
        assert_eq!(lead("%b %e"), Lead::Month);
        assert_eq!(lead("%a %b"), Lead::Weekday);
        assert_eq!(lead("[%d"), Lead::Byte(b'['));
        assert_eq!(lead("%e"), Lead::Any);
    }

    #[test]
    fn admits_only_plausible_offsets() {
        let iso = lead("%Y-%m-%d %H");
        assert!(iso.admits(&Facts::at(b"2024-03-01 12")));
        assert!(!iso.admits(&Facts::at(b"20240-03-01")));
        assert!(!iso.admits(&Facts::at(b"2024/03/01")));
        let epoch = lead("%s%?f");
        assert!(epoch.admits(&Facts::at(b"1700000000 x")));
        assert!(!epoch.admits(&Facts::at(b"170000000 x")));
        assert!(lead("%b %e").admits(&Facts::at(b"Jul  1")));
        assert!(!lead("%b %e").admits(&Facts::at(b"Xyz 1")));
        assert!(!lead("%a %b").admits(&Facts::at(b"Jul  1")));
    }
}

#[cfg(test)]
mod gate_tests {
    use super::super::auto::{table, Pattern, Table};
    use super::*;
    use crate::strptime::TimeFormat;
    use proptest::prelude::*;

    /// One-pattern tables of user formats leading with a byte, a padded day (no cheap lead),
    /// digits and names.
    fn user_tables() -> Vec<Table> {
        [
            "[%d/%b/%Y",
            "%e %b",
            "%H:%M:%S",
            "%b %d",
            "%a %H",
            "%Y%m%d",
            "%s",
        ]
        .iter()
        .map(|f| Table::new(vec![Pattern::new(TimeFormat::new(f).unwrap())]))
        .collect()
    }

    proptest! {
        /// The gate is a necessary condition: wherever some lead of the table may start and
        /// admits the facts, the gate passes.
        #[test]
        fn gate_passes_wherever_a_lead_admits(
            parts in prop::collection::vec(prop::sample::select(vec![
                "0", "7", "12", "2024", "081109", "1709294400", "1709294400123", " ", "\t", "-",
                "/", ":", ".", ",", "T", ")", "(", "[", "]", "é", "x", "_", "Jan", "mar", "SUN",
                "Thu", "at", "Monitor",
            ]), 1..8),
        ) {
            let text = parts.concat();
            let user = user_tables();
            for at in 0..text.len() {
                let w = &text.as_bytes()[at..];
                let facts = Facts::at(w);
                for t in std::iter::once(table()).chain(&user) {
                    let admitted = t
                        .patterns
                        .iter()
                        .any(|p| p.lead.may_start(w[0]) && p.lead.admits(&facts));
                    prop_assert!(!admitted || t.gate.passes(&facts), "{:?} at {}", text, at);
                }
            }
        }
    }
}
