//! `gentimes start=<time> [end=<time>] [increment=<n>(s|m|h|d)]`: one row per interval from
//! `start` up to (not including) `end`, with `starttime`, `starthuman`, `endtime` (the last
//! second of the interval) and `endhuman`. Times are `MM/DD/YYYY[:HH:MM:SS]` in the user's zone
//! (two-digit years allowed) or a whole number of days from today's midnight (`-5`); `end`
//! defaults to today's midnight.

use lode_event::Micros;
use lode_spl::ast::data::GenTimes;
use lode_time::strptime::{strftime, TimeFormat};
use lode_time::Zone;

use crate::ops::span::Span;
use crate::ops::Limits;
use crate::row::Row;
use crate::value::Value;
use crate::SearchError;

const SEC: Micros = 1_000_000;
const DAY: Micros = 86_400 * SEC;
/// Splunk's `starthuman`/`endhuman` format.
const HUMAN: &str = "%a %b %d %H:%M:%S %Y";

/// A `start=`/`end=` value in µs.
fn parse_time(v: &str, which: &str, now: Micros, tz: Zone) -> Result<Micros, SearchError> {
    let bad = || SearchError::User(format!("Invalid timestamp specified for {which}: '{v}'."));
    let midnight = Span::from_ast(lode_spl::ast::TimeSpan {
        count: 1,
        unit: lode_spl::ast::TimeUnit::Day,
    })
    .start(now, tz);
    if let Ok(days) = v.trim().parse::<i64>() {
        return days
            .checked_mul(DAY)
            .and_then(|d| midnight.checked_add(d))
            .ok_or_else(bad);
    }
    let year_digits = v
        .split(':')
        .next()
        .and_then(|d| d.rsplit('/').next())
        .map_or(0, str::len);
    let year = if year_digits == 2 { "%y" } else { "%Y" };
    let fmt = if v.contains(':') {
        format!("%m/%d/{year}:%H:%M:%S")
    } else {
        format!("%m/%d/{year}")
    };
    let fmt = TimeFormat::new(&fmt).map_err(|_| bad())?;
    match fmt.parse_prefix(v, tz, now) {
        Some((t, used)) if used == v.len() => Ok(t),
        _ => Err(bad()),
    }
}

/// The rows of `gentimes`.
pub fn rows(g: &GenTimes, now: Micros, tz: Zone, limits: Limits) -> Result<Vec<Row>, SearchError> {
    let start = parse_time(&g.start, "start", now, tz)?;
    let end = match &g.end {
        Some(e) => parse_time(e, "end", now, tz)?,
        None => parse_time("0", "end", now, tz)?,
    };
    let step = match Span::from_ast(g.increment) {
        Span::Fixed { micros, .. } if micros > 0 => micros,
        _ => {
            return Err(SearchError::User(
                "Invalid increment; use seconds, minutes, hours or days.".into(),
            ))
        }
    };
    let mut out = Vec::new();
    let mut t = start;
    while t < end {
        if out.len() >= limits.max_sort_rows {
            return Err(SearchError::Limit(format!(
                "gentimes: more than max_sort_rows={} intervals; use a larger increment or a shorter range",
                limits.max_sort_rows
            )));
        }
        let last = t + step - SEC;
        out.push(Row::from_fields([
            ("starttime".to_string(), Value::Num((t / SEC) as f64)),
            ("starthuman".to_string(), Value::Str(strftime(t, HUMAN, tz))),
            ("endtime".to_string(), Value::Num((last / SEC) as f64)),
            (
                "endhuman".to_string(),
                Value::Str(strftime(last, HUMAN, tz)),
            ),
        ]));
        t += step;
    }
    Ok(out)
}
