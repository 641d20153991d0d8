//! Finding an event's timestamp at ingestion (props.conf `TIME_PREFIX`, `TIME_FORMAT`,
//! `MAX_TIMESTAMP_LOOKAHEAD`, `TZ`, `DATETIME_CONFIG`, `MAX_DAYS_AGO`, `MAX_DAYS_HENCE`).
//!
//! Fast path: the pattern that matched the previous event is tried at the same byte offset; that is
//! one walk over ~20 bytes, no regex. Slow path: every pattern (the configured `TIME_FORMAT`, or the
//! automatic table of [`auto`]) at every word-boundary offset inside the lookahead window, leftmost
//! offset first. Naive twin: the slow path alone ([`Extractor::extract_slow`]); a test checks that
//! both agree on streams of real logs.

mod auto;
mod lead;

use crate::strptime::TimeFormat;
use crate::{Micros, TimeError, Zone, MICROS_PER_DAY};
use auto::{is_word, Pattern, Table};
use lead::Facts;
use regex::Regex;

/// How an event's timestamp is found.
#[derive(Debug, Clone)]
pub struct ExtractConfig {
    /// `TIME_PREFIX` regex; the search starts right after its first match (no match → no time).
    pub time_prefix: Option<String>,
    /// `TIME_FORMAT` strptime format; `None` = automatic recognition.
    pub time_format: Option<String>,
    /// `MAX_TIMESTAMP_LOOKAHEAD`: bytes after the prefix the whole timestamp must lie in (default 128).
    pub max_lookahead: usize,
    /// `TZ`: zone for times without an offset (default UTC).
    pub tz: Zone,
    /// `DATETIME_CONFIG`: `Auto` (default), `Current` (always ingest time) or `None` (no extraction).
    pub mode: Mode,
    /// `MAX_DAYS_AGO`, in days: parsed times older than `now` minus this are rejected (default 2000).
    pub max_days_ago: u32,
    /// `MAX_DAYS_HENCE`, in days: parsed times later than `now` plus this are rejected (default 2).
    pub max_days_hence: u32,
}

impl Default for ExtractConfig {
    fn default() -> Self {
        ExtractConfig {
            time_prefix: None,
            time_format: None,
            max_lookahead: 128,
            tz: Zone::Utc,
            mode: Mode::Auto,
            max_days_ago: 2000,
            max_days_hence: 2,
        }
    }
}

/// `DATETIME_CONFIG`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Extract timestamps from the event text.
    Auto,
    /// `CURRENT`: always use the ingest time.
    Current,
    /// `NONE`: no extraction; the caller uses its fallback.
    None,
}

/// A timestamp found in an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Found {
    /// The instant, in microseconds since the epoch.
    pub time: Micros,
    /// Byte offset in the event where the timestamp text starts.
    pub start: usize,
    /// Byte offset in the event just past the timestamp text.
    pub end: usize,
}

/// Stateful per stream: remembers which pattern matched last (and where) and tries it first.
pub struct Extractor {
    cfg: ExtractConfig,
    prefix: Option<Regex>,
    /// The configured `TIME_FORMAT` as a one-pattern table; `None` = the automatic table.
    user: Option<Table>,
    /// (pattern index, offset inside the window) of the previous successful match.
    last: Option<(usize, usize)>,
}

impl Extractor {
    /// Compiles the prefix regex and time format of `cfg`.
    pub fn new(cfg: ExtractConfig) -> Result<Extractor, TimeError> {
        let prefix = match &cfg.time_prefix {
            Some(p) => Some(Regex::new(p).map_err(|e| TimeError::BadPrefix {
                pattern: p.clone(),
                reason: e.to_string(),
            })?),
            None => None,
        };
        let user = match &cfg.time_format {
            Some(f) => Some(Table::new(vec![Pattern::new(TimeFormat::new(f)?)])),
            None => None,
        };
        Ok(Extractor {
            cfg,
            prefix,
            user,
            last: None,
        })
    }

    /// The configuration this extractor was built with.
    pub fn config(&self) -> &ExtractConfig {
        &self.cfg
    }

    fn table(&self) -> &Table {
        self.user.as_ref().unwrap_or_else(|| auto::table())
    }

    /// `now` = ingest time (reference for year inference and the days-ago/hence window).
    /// Returns None when no valid timestamp is found (or mode is Current/None): the caller then
    /// falls back to the previous event's time, then to `now`.
    pub fn extract(&mut self, event: &str, now: Micros) -> Option<Found> {
        let (start, end) = self.window(event)?;
        let b = event.as_bytes();
        if let Some((pi, off)) = self.last {
            let at = start + off;
            // The first-byte test turns a continuation line away before a parse is set up.
            let may = |p: &Pattern| p.lead.may_start(b[at]);
            if at < end && self.table().patterns.get(pi).is_some_and(may) {
                if let Some(found) = self.try_at(pi, b, at, end, now) {
                    return Some(found);
                }
            }
        }
        let (found, pi) = self.scan(b, start, end, now)?;
        self.last = Some((pi, found.start - start));
        Some(found)
    }

    /// The slow path alone, without touching the remembered pattern: the naive twin of
    /// [`Extractor::extract`] (leftmost offset, first pattern in table order).
    pub fn extract_slow(&self, event: &str, now: Micros) -> Option<Found> {
        let (start, end) = self.window(event)?;
        self.scan(event.as_bytes(), start, end, now).map(|(f, _)| f)
    }

    /// The byte range `[start, end)` the timestamp must lie in, or `None` if extraction is off or
    /// the prefix does not match.
    fn window(&self, event: &str) -> Option<(usize, usize)> {
        if self.cfg.mode != Mode::Auto {
            return None;
        }
        let start = match &self.prefix {
            Some(re) => re.find(event)?.end(),
            None => 0,
        };
        Some((
            start,
            event
                .len()
                .min(start.saturating_add(self.cfg.max_lookahead)),
        ))
    }

    fn scan(&self, b: &[u8], start: usize, end: usize, now: Micros) -> Option<(Found, usize)> {
        let table = self.table();
        let mut at = start;
        while at < end {
            let c = b[at];
            let candidates = table.candidates(c);
            if !candidates.is_empty() && (at == start || auto::can_begin_at(b, at)) {
                let facts = Facts::at(&b[at..end]);
                if table.gate.passes(&facts) {
                    for &pi in candidates {
                        if !table.patterns[pi].lead.admits(&facts) {
                            continue;
                        }
                        if let Some(found) = self.try_at(pi, b, at, end, now) {
                            return Some((found, pi));
                        }
                    }
                }
            }
            at += 1;
            // No timestamp begins inside a word (`can_begin_at`): skip to the word's end, so a
            // line without a timestamp costs a visit per word rather than per byte.
            if is_word(c) {
                while at < end && is_word(b[at]) {
                    at += 1;
                }
            }
        }
        None
    }

    /// Pattern `pi` at byte `at`, ending by `end`, in the plausible window, not inside a word.
    #[inline]
    fn try_at(&self, pi: usize, b: &[u8], at: usize, end: usize, now: Micros) -> Option<Found> {
        let p = self.table().patterns.get(pi)?;
        let (time, n) = p.format.parse_bytes(&b[at..end], self.cfg.tz, now)?;
        let stop = at + n;
        if n == 0
            || b.get(stop)
                .is_some_and(|&c| is_word(c) && is_word(b[stop - 1]))
        {
            return None;
        }
        let lo =
            now.saturating_sub(i64::from(self.cfg.max_days_ago).saturating_mul(MICROS_PER_DAY));
        let hi =
            now.saturating_add(i64::from(self.cfg.max_days_hence).saturating_mul(MICROS_PER_DAY));
        (lo..=hi).contains(&time).then_some(Found {
            time,
            start: at,
            end: stop,
        })
    }
}

#[cfg(test)]
mod tests;
