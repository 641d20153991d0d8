//! Splunk time modifiers (`earliest=`/`latest=`, SPLUNK.md §3.1): `now`, epoch seconds, absolute
//! `%m/%d/%Y:%H:%M:%S`, and chains of relative offsets and snaps such as `-1d@d+8h`, evaluated in a
//! zone (calendar units keep the wall clock across DST changes).

use crate::civil::{civil_from_days, days_from_civil, days_in_month, weekday_from_days};
use crate::strptime::TimeFormat;
use crate::{Micros, TimeError, Zone, MICROS_PER_SEC};

/// Largest accepted result, in seconds: 9999-12-31T23:59:59Z (and its negative for the past).
const MAX_SECS: i64 = 253_402_300_799;
/// Most digits accepted in one offset count (keeps the arithmetic far from overflow).
const MAX_COUNT_DIGITS: usize = 9;

/// A time unit of an offset or snap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unit {
    Second,
    Minute,
    Hour,
    Day,
    /// A week; for snaps, the weekday it starts on (0 = Sunday … 6 = Saturday).
    Week(u32),
    Month,
    Quarter,
    Year,
}

fn unit(word: &str) -> Option<Unit> {
    Some(match word {
        "s" | "sec" | "secs" | "second" | "seconds" => Unit::Second,
        "m" | "min" | "mins" | "minute" | "minutes" => Unit::Minute,
        "h" | "hr" | "hrs" | "hour" | "hours" => Unit::Hour,
        "d" | "day" | "days" => Unit::Day,
        "w" | "week" | "weeks" => Unit::Week(0),
        "mon" | "month" | "months" => Unit::Month,
        "q" | "qtr" | "qtrs" | "quarter" | "quarters" => Unit::Quarter,
        "y" | "yr" | "yrs" | "year" | "years" => Unit::Year,
        _ => return None,
    })
}

/// Splunk time modifiers (SPLUNK.md §3.1): "now", "0" (epoch 0), epoch seconds ("1700000000",
/// fractional ok), absolute "%m/%d/%Y:%H:%M:%S", relative "[+|-]<int><unit>", snapping "@<unit>"
/// (@d, @h, @w0..@w6, @mon, @q, @y) optionally followed by another offset ("-1d@d+8h", "-7d@w1",
/// "@d"), evaluated in `tz`. A real-time prefix `rt` is accepted and ignored. Errors name the bad text.
pub fn resolve(text: &str, now: Micros, tz: Zone) -> Result<Micros, TimeError> {
    let t = text.trim();
    let err = |reason: &str| TimeError::relative(text, reason);
    let body = t.strip_prefix("rt").unwrap_or(t);
    if body.is_empty() {
        return if t.is_empty() {
            Err(err("empty time modifier"))
        } else {
            Ok(now)
        };
    }
    if body.eq_ignore_ascii_case("now") {
        return Ok(now);
    }
    if body.bytes().all(|c| c.is_ascii_digit() || c == b'.') {
        return epoch(body).ok_or_else(|| err("not a valid epoch time"));
    }
    if body.as_bytes()[0].is_ascii_digit() {
        let fmt = TimeFormat::new("%m/%d/%Y:%H:%M:%S")?;
        return match fmt.parse_prefix(body, tz, now) {
            Some((t, n)) if n == body.len() => Ok(t),
            _ => Err(err("expected an absolute time %m/%d/%Y:%H:%M:%S, epoch seconds or a relative time such as -1d@d")),
        };
    }
    let b = body.as_bytes();
    let mut cur = now;
    let mut i = 0;
    while i < b.len() {
        let op = b[i];
        if !matches!(op, b'+' | b'-' | b'@') {
            let ch = body[i..].chars().next().unwrap_or('?');
            return Err(err(&format!(
                "unexpected {ch:?} at byte {i}: expected +, - or @"
            )));
        }
        i += 1;
        let digits_start = i;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
        let count_text = &body[digits_start..i];
        let word_start = i;
        while i < b.len() && b[i].is_ascii_alphabetic() {
            i += 1;
        }
        let word = body[word_start..i].to_ascii_lowercase();
        // `op` is `+`, `-` or `@` (checked above).
        match op {
            b'@' => {
                let mut u = unit(&word).ok_or_else(|| {
                    err(&format!(
                        "unknown snap unit {word:?} (use s, m, h, d, w0..w6, mon, q or y)"
                    ))
                })?;
                if !count_text.is_empty() {
                    return Err(err("a snap unit takes no count"));
                }
                if u == Unit::Week(0) && i < b.len() && b[i].is_ascii_digit() {
                    let k = u32::from(b[i] - b'0');
                    if k > 7 {
                        return Err(err("week snap day must be w0..w7"));
                    }
                    u = Unit::Week(k % 7);
                    i += 1;
                }
                cur = snap(cur, u, tz).ok_or_else(|| err("result out of range"))?;
            }
            _ => {
                if count_text.len() > MAX_COUNT_DIGITS {
                    return Err(err("offset count too large"));
                }
                let n: i64 = if count_text.is_empty() {
                    1
                } else {
                    count_text.parse().map_err(|_| err("bad count"))?
                };
                let u = unit(&word).ok_or_else(|| {
                    err(&format!(
                        "unknown time unit {word:?} (use s, m, h, d, w, mon, q or y)"
                    ))
                })?;
                cur = offset(cur, if op == b'-' { -n } else { n }, u, tz)
                    .ok_or_else(|| err("result out of range"))?;
            }
        }
    }
    Ok(cur)
}

/// Epoch seconds with an optional fraction, as microseconds.
fn epoch(s: &str) -> Option<Micros> {
    let (int, frac) = s.split_once('.').unwrap_or((s, ""));
    if int.is_empty() || int.len() > 11 || frac.contains('.') {
        return None;
    }
    let secs: i64 = int.parse().ok()?;
    let mut micros: i64 = 0;
    for (k, c) in frac.bytes().take(6).enumerate() {
        micros += i64::from(c - b'0') * 10i64.pow(5 - k as u32);
    }
    Some(secs * MICROS_PER_SEC + micros)
}

/// Splits an instant into local wall-clock seconds and the microsecond remainder.
fn local(t: Micros, tz: Zone) -> (i64, i64) {
    let secs = t.div_euclid(MICROS_PER_SEC);
    (tz.utc_to_local(secs), t.rem_euclid(MICROS_PER_SEC))
}

fn to_utc(local_secs: i64, micros: i64, tz: Zone) -> Option<Micros> {
    if local_secs.abs() > MAX_SECS {
        return None;
    }
    Some(tz.local_to_utc(local_secs) * MICROS_PER_SEC + micros)
}

/// Adds `n` units; days and longer keep the local wall clock, months clamp the day to the month end.
fn offset(t: Micros, n: i64, u: Unit, tz: Zone) -> Option<Micros> {
    let fixed = |secs: i64| {
        let r = t.checked_add(n.checked_mul(secs * MICROS_PER_SEC)?)?;
        (r.div_euclid(MICROS_PER_SEC).abs() <= MAX_SECS).then_some(r)
    };
    let months = match u {
        Unit::Second => return fixed(1),
        Unit::Minute => return fixed(60),
        Unit::Hour => return fixed(3600),
        Unit::Day | Unit::Week(_) => {
            let days = if u == Unit::Day { n } else { n * 7 };
            let (l, us) = local(t, tz);
            return to_utc(l.checked_add(days.checked_mul(86_400)?)?, us, tz);
        }
        Unit::Month => n,
        Unit::Quarter => n * 3,
        Unit::Year => n * 12,
    };
    let (l, us) = local(t, tz);
    let (y, m, d) = civil_from_days(l.div_euclid(86_400));
    let total = y.checked_mul(12)? + i64::from(m) - 1 + months;
    let (ny, nm) = (total.div_euclid(12), total.rem_euclid(12) as u32 + 1);
    let nd = d.min(days_in_month(ny, nm));
    to_utc(
        days_from_civil(ny, nm, nd) * 86_400 + l.rem_euclid(86_400),
        us,
        tz,
    )
}

/// Rounds down to the start of the unit in local time (`Week(k)`: the latest weekday `k` at 00:00).
fn snap(t: Micros, u: Unit, tz: Zone) -> Option<Micros> {
    let (l, _) = local(t, tz);
    let days = l.div_euclid(86_400);
    let (y, m, _) = civil_from_days(days);
    let l = match u {
        Unit::Second => l,
        Unit::Minute => l - l.rem_euclid(60),
        Unit::Hour => l - l.rem_euclid(3600),
        Unit::Day => days * 86_400,
        Unit::Week(k) => {
            let back = (i64::from(weekday_from_days(days)) - i64::from(k)).rem_euclid(7);
            (days - back) * 86_400
        }
        Unit::Month => days_from_civil(y, m, 1) * 86_400,
        Unit::Quarter => days_from_civil(y, (m - 1) / 3 * 3 + 1, 1) * 86_400,
        Unit::Year => days_from_civil(y, 1, 1) * 86_400,
    };
    to_utc(l, 0, tz)
}

#[cfg(test)]
mod tests;
