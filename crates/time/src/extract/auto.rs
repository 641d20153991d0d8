//! The automatic-recognition pattern table (Lode's `datetime.xml`) and the slow-path scan.
//!
//! Patterns are ordinary compiled formats in strict mode (fixed field widths, blanks required,
//! plus `%?f` optional fraction, `%?z` optional zone, `%?Q` epoch milliseconds). At one position the
//! first pattern in table order that yields a plausible time wins, so longer/more specific shapes
//! come first and ambiguous day/month orders are ordered by how common they are in logs.

use super::lead::{Gate, Lead};
use crate::strptime::TimeFormat;
use std::sync::OnceLock;

/// The recognised shapes, most specific first. Each line names a source that writes it.
const PATTERNS: &[&str] = &[
    "%Y-%m-%dT%H:%M:%S%?f%?z",  // ISO 8601 / RFC 3339 / RFC 5424
    "%Y-%m-%d %H:%M:%S%?f%?z",  // ISO with a blank; log4j ISO8601 (`,978`); Windows CBS
    "%Y-%m-%dT%H:%M%?z",        // ISO without seconds
    "%Y/%m/%d %H:%M:%S%?f%?z",  // nginx error log
    "%Y%m%dT%H%M%S%?f%?z",      // ISO 8601 basic
    "%Y%m%d-%-H:%-M:%-S:%?L",   // HealthApp `20171223-22:32:0:95` (unpadded integer millis)
    "%Y%m%d-%H:%M:%S%?f",       // compact date, dashed time
    "%Y-%m-%d-%H.%M.%S%?f",     // IBM BlueGene `2005-06-03-15.42.50.675872`
    "%a %b %e %H:%M:%S%?f %Y",  // ctime / Apache error log `Sun Dec 04 04:47:44 2005`
    "%a %b %e %H:%M:%S %Z %Y",  // date(1) `Sun Dec  4 04:47:44 PST 2005`
    "%a, %d %b %Y %H:%M:%S%?z", // RFC 2822 mail / HTTP dates
    "%b %e %Y %H:%M:%S%?f",     // syslog with year
    "%b %e %H:%M:%S%?f %Y",     // syslog, year after the time
    "%b %e %H:%M:%S%?f",        // RFC 3164 syslog, year inferred
    "%d/%b/%Y:%H:%M:%S%?f%?z",  // Apache/NCSA access log
    "%d %b %Y %H:%M:%S%?f%?z",  // log4j DATE, RFC 2822 without weekday
    "%d-%b-%Y %H:%M:%S%?f",     // Tomcat/Oracle `18-Oct-2015 18:01:47.978`
    "%b %-d, %Y %-I:%M:%S %p",  // java.util.logging `Oct 18, 2015 6:01:47 PM`
    "%y/%m/%d %H:%M:%S%?f",     // log4j `yy/MM/dd` (Spark)
    "%-m/%-d/%Y:%H:%M:%S",      // Splunk's own `%m/%d/%Y:%H:%M:%S`
    "%-m/%-d/%Y %H:%M:%S%?f",   // US
    "%-m/%-d/%Y %-I:%M:%S %p",  // US 12-hour (Windows event log export)
    "%-m/%-d/%y %H:%M:%S%?f",   // US, 2-digit year
    "%d.%m.%Y %H:%M:%S%?f",     // European
    "%y%m%d %H%M%S",            // Hadoop HDFS `081109 203615`
    "%y%m%d %H:%M:%S",          // MySQL `081109 20:36:15`
    "%m-%d %H:%M:%S%?f",        // Android logcat `03-17 16:13:38.811`
    "%m.%d %H:%M:%S",           // Proxifier `[10.30 16:49:06]`
    "%?Q",                      // epoch milliseconds (13 digits)
    "%s%?f",                    // epoch seconds (10 digits), optional fraction
];

/// A pattern with a cheap test of where it can begin.
pub(crate) struct Pattern {
    /// The compiled shape.
    pub(crate) format: TimeFormat,
    /// What the text at a candidate offset must look like.
    pub(crate) lead: Lead,
}

impl Pattern {
    pub(crate) fn new(format: TimeFormat) -> Pattern {
        let lead = Lead::of(&format.items);
        Pattern { format, lead }
    }
}

/// Patterns in priority order, indexed by the byte a match can begin with.
pub(crate) struct Table {
    /// The patterns, in the order they are tried at one offset.
    pub(crate) patterns: Vec<Pattern>,
    /// For each byte value, the indices (in order) of the patterns that can begin with it.
    by_byte: Vec<Vec<usize>>,
    /// Every pattern's lead at once.
    pub(crate) gate: Gate,
}

impl Table {
    pub(crate) fn new(patterns: Vec<Pattern>) -> Table {
        let by_byte = (0..=255u8)
            .map(|c| {
                (0..patterns.len())
                    .filter(|&i| patterns[i].lead.may_start(c))
                    .collect()
            })
            .collect();
        let gate = Gate::of(patterns.iter().map(|p| p.lead));
        Table {
            patterns,
            by_byte,
            gate,
        }
    }

    /// Indices of the patterns that can begin with byte `c`, in priority order.
    #[inline]
    pub(crate) fn candidates(&self, c: u8) -> &[usize] {
        &self.by_byte[usize::from(c)]
    }
}

/// The compiled automatic table, built once per process.
pub(crate) fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        Table::new(
            PATTERNS
                .iter()
                .filter_map(|p| TimeFormat::auto(p).ok().map(Pattern::new))
                .collect(),
        )
    })
}

/// Whether a timestamp may begin at `b[at]` (`at > 0`): not inside a word, and not inside a
/// numeric compound such as `2005-12-04`, `10.251.73.220` or `12:00:00` (a digit after a separator
/// that follows a digit), so a rejected date is not re-read from its middle.
#[inline]
pub(crate) fn can_begin_at(b: &[u8], at: usize) -> bool {
    let (prev, c) = (b[at - 1], b[at]);
    if is_word(prev) && is_word(c) {
        return false;
    }
    !(c.is_ascii_digit()
        && matches!(prev, b'-' | b'/' | b'.' | b':' | b',')
        && at >= 2
        && b[at - 2].is_ascii_digit())
}

/// Whether a byte continues a word (a timestamp may neither start nor end inside one).
#[inline]
pub(crate) fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_pattern_compiles() {
        assert_eq!(table().patterns.len(), PATTERNS.len());
        assert!(table().candidates(b'x').is_empty());
        assert_eq!(
            table().candidates(b'S').len(),
            7,
            "month and weekday patterns"
        );
    }
}
