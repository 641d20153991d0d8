//! Time zones: UTC, a fixed offset, or an IANA zone from chrono-tz, and the two conversions the rest
//! of the crate needs (UTC instant → offset, local wall clock → UTC instant).

use crate::TimeError;
use chrono::{DateTime, LocalResult, NaiveDateTime, Offset, TimeZone};
use std::str::FromStr;

/// A time zone: UTC, a fixed offset, or an IANA name (chrono-tz).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Zone {
    /// Coordinated Universal Time.
    Utc,
    /// A fixed offset, in seconds east of UTC.
    Fixed(i32),
    /// An IANA zone with its daylight-saving rules.
    Named(chrono_tz::Tz),
}

/// Largest accepted fixed offset, in seconds (±18 h, as chrono).
const MAX_OFFSET_SECS: i32 = 18 * 3600;

impl Zone {
    /// Parses `UTC`/`GMT`/`Z` (any case), `+0200`, `-07:00`, `+02`, or an IANA name
    /// (`America/New_York`, matched case-insensitively if no exact match exists).
    pub fn parse(s: &str) -> Result<Zone, TimeError> {
        let t = s.trim();
        if t.eq_ignore_ascii_case("utc") || t.eq_ignore_ascii_case("gmt") || t == "Z" || t == "z" {
            return Ok(Zone::Utc);
        }
        if let Some(secs) = parse_offset(t.as_bytes()).filter(|&(_, n)| n == t.len()) {
            return Ok(Zone::Fixed(secs.0));
        }
        if let Some(z) = abbreviation(t.as_bytes()) {
            return Ok(z);
        }
        if let Ok(tz) = chrono_tz::Tz::from_str(t) {
            return Ok(Zone::Named(tz));
        }
        chrono_tz::TZ_VARIANTS
            .iter()
            .find(|tz| tz.name().eq_ignore_ascii_case(t))
            .map(|&tz| Zone::Named(tz))
            .ok_or_else(|| TimeError::BadZone(s.to_string()))
    }

    /// Offset of this zone from UTC at the UTC instant `utc_secs` (seconds since the epoch), in
    /// seconds east.
    pub fn offset_at_utc(self, utc_secs: i64) -> i32 {
        match self {
            Zone::Utc => 0,
            Zone::Fixed(o) => o,
            Zone::Named(tz) => match DateTime::from_timestamp(utc_secs, 0) {
                Some(dt) => tz
                    .offset_from_utc_datetime(&dt.naive_utc())
                    .fix()
                    .local_minus_utc(),
                None => 0,
            },
        }
    }

    /// UTC seconds of the local wall-clock time `local_secs` (seconds since 1970-01-01T00:00 of the
    /// local clock). Ambiguous times (DST fall-back) take the earlier instant; times inside a DST gap
    /// use the offset in force just before the gap.
    pub fn local_to_utc(self, local_secs: i64) -> i64 {
        match self {
            Zone::Utc => local_secs,
            Zone::Fixed(o) => local_secs - i64::from(o),
            Zone::Named(tz) => {
                let Some(naive) = DateTime::from_timestamp(local_secs, 0).map(|d| d.naive_utc())
                else {
                    return local_secs;
                };
                match tz.from_local_datetime(&naive) {
                    LocalResult::Single(dt) | LocalResult::Ambiguous(dt, _) => dt.timestamp(),
                    LocalResult::None => {
                        let before: NaiveDateTime = naive
                            .checked_sub_signed(chrono::Duration::hours(3))
                            .unwrap_or(naive);
                        let off = tz.offset_from_utc_datetime(&before).fix().local_minus_utc();
                        local_secs - i64::from(off)
                    }
                }
            }
        }
    }

    /// Local wall-clock seconds (since 1970-01-01T00:00 local) of the UTC instant `utc_secs`.
    pub fn utc_to_local(self, utc_secs: i64) -> i64 {
        utc_secs + i64::from(self.offset_at_utc(utc_secs))
    }
}

/// Parses `±hh`, `±hhmm` or `±hh:mm` at the start of `b`; returns (seconds east, bytes used).
pub(crate) fn parse_offset(b: &[u8]) -> Option<(i32, usize)> {
    let sign = match b.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digit = |i: usize| {
        b.get(i)
            .filter(|c| c.is_ascii_digit())
            .map(|c| i32::from(c - b'0'))
    };
    let h = digit(1)? * 10 + digit(2)?;
    let (m, used) = match (b.get(3), digit(3), digit(4)) {
        (Some(b':'), _, _) => (digit(4)? * 10 + digit(5)?, 6),
        (_, Some(m1), Some(m2)) => (m1 * 10 + m2, 5),
        _ => (0, 3),
    };
    if m >= 60 || h * 3600 + m * 60 > MAX_OFFSET_SECS {
        return None;
    }
    Some((sign * (h * 3600 + m * 60), used))
}

/// Common North American / European zone abbreviations as fixed offsets (abbreviations are ambiguous
/// world-wide; these are the ones log files use in practice).
pub(crate) fn abbreviation(name: &[u8]) -> Option<Zone> {
    let hours: i32 = match name {
        b"UTC" | b"GMT" | b"UT" | b"Z" | b"WET" => return Some(Zone::Utc),
        b"EST" => -5,
        b"EDT" | b"AST" => -4,
        b"CST" => -6,
        b"CDT" => -5,
        b"MST" => -7,
        b"MDT" => -6,
        b"PST" => -8,
        b"PDT" => -7,
        b"AKST" => -9,
        b"AKDT" => -8,
        b"HST" => -10,
        b"CET" | b"BST" | b"WEST" => 1,
        b"CEST" | b"EET" => 2,
        b"EEST" | b"MSK" => 3,
        b"IST" => return Some(Zone::Fixed(5 * 3600 + 1800)),
        b"JST" | b"KST" => 9,
        b"AEST" => 10,
        b"AEDT" => 11,
        _ => return None,
    };
    Some(Zone::Fixed(hours * 3600))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_spelling() {
        assert_eq!(Zone::parse("UTC").unwrap(), Zone::Utc);
        assert_eq!(Zone::parse("gmt").unwrap(), Zone::Utc);
        assert_eq!(Zone::parse("+0200").unwrap(), Zone::Fixed(7200));
        assert_eq!(Zone::parse("-07:00").unwrap(), Zone::Fixed(-25200));
        assert_eq!(Zone::parse("+05").unwrap(), Zone::Fixed(18000));
        assert_eq!(
            Zone::parse("America/New_York").unwrap(),
            Zone::Named(chrono_tz::America::New_York)
        );
        assert_eq!(
            Zone::parse("europe/paris").unwrap(),
            Zone::Named(chrono_tz::Europe::Paris)
        );
        assert_eq!(Zone::parse("PST").unwrap(), Zone::Fixed(-8 * 3600));
        assert_eq!(Zone::parse("MDT").unwrap(), Zone::Fixed(-6 * 3600));
    }

    #[test]
    fn rejects_garbage_with_the_text() {
        for bad in ["", "Mars/Olympus", "+2500", "+02:75", "+02:0"] {
            let err = Zone::parse(bad).unwrap_err();
            assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
        }
    }

    #[test]
    fn named_zone_follows_dst() {
        let ny = Zone::Named(chrono_tz::America::New_York);
        // 2024-07-01T12:00:00Z is EDT (-4h), 2024-01-01T12:00:00Z is EST (-5h).
        assert_eq!(ny.offset_at_utc(1_719_835_200), -4 * 3600);
        assert_eq!(ny.offset_at_utc(1_704_110_400), -5 * 3600);
        // 2024-07-01 08:00 local = 12:00Z
        assert_eq!(ny.local_to_utc(1_719_835_200 - 4 * 3600), 1_719_835_200);
        // 2024-03-10 02:30 local does not exist; it resolves with the pre-gap offset (EST).
        let gap_local = 1_710_037_800; // 2024-03-10T02:30:00 as local seconds
        assert_eq!(ny.local_to_utc(gap_local), gap_local + 5 * 3600);
    }
}
