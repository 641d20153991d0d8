//! strftime: rendering an instant with the same letters as the parser.

use crate::civil::{civil_from_days, weekday_from_days};
use crate::{Micros, Zone, MICROS_PER_SEC};
use chrono::{DateTime, Offset, TimeZone};
use std::fmt::Write;

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// strftime with the same letters (plus the `%N` family) rendered in `tz`. `%N`/`%Q` without a
/// width print milliseconds (3 digits), `%f` microseconds; unknown letters are copied verbatim.
pub fn strftime(t: Micros, fmt: &str, tz: Zone) -> String {
    let mut out = String::with_capacity(fmt.len() + 16);
    strftime_into(t, fmt, tz, &mut out);
    out
}

/// [`strftime`] appending to a caller-owned buffer (for per-row loops).
pub fn strftime_into(t: Micros, fmt: &str, tz: Zone, out: &mut String) {
    let secs = t.div_euclid(MICROS_PER_SEC);
    let micros = t.rem_euclid(MICROS_PER_SEC) as u32;
    let offset = tz.offset_at_utc(secs);
    let local = secs + i64::from(offset);
    let days = local.div_euclid(86_400);
    let sod = local.rem_euclid(86_400) as u32;
    let (y, m, d) = civil_from_days(days);
    let (hh, mm, ss) = (sod / 3600, sod / 60 % 60, sod % 60);
    let wd = weekday_from_days(days) as usize;
    let yday = days - crate::civil::days_from_civil(y, 1, 1) + 1;

    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        let mut pad = true;
        let mut colon = false;
        let mut width: Option<u32> = None;
        while let Some(&f) = chars.peek() {
            match f {
                '-' => pad = false,
                ':' => colon = true,
                '0'..='9' => {
                    let w = width.unwrap_or(0).saturating_mul(10);
                    width = Some(w.saturating_add(f.to_digit(10).unwrap_or(0)));
                }
                _ => break,
            }
            chars.next();
        }
        let Some(letter) = chars.next() else {
            out.push('%');
            break;
        };
        let two = |out: &mut String, v: u32| {
            let _ = if pad {
                write!(out, "{v:02}")
            } else {
                write!(out, "{v}")
            };
        };
        match letter {
            'Y' => {
                let _ = write!(out, "{y:04}");
            }
            'y' => two(out, y.rem_euclid(100) as u32),
            'm' => two(out, m),
            'd' => two(out, d),
            'e' => {
                let _ = write!(out, "{d:2}");
            }
            'j' => {
                let _ = write!(out, "{yday:03}");
            }
            'H' | 'k' => two(out, hh),
            'I' | 'l' => two(out, if hh % 12 == 0 { 12 } else { hh % 12 }),
            'M' => two(out, mm),
            'S' => two(out, ss),
            'p' => out.push_str(if hh < 12 { "AM" } else { "PM" }),
            'b' | 'h' => out.push_str(&MONTHS[m as usize - 1][..3]),
            'B' => out.push_str(MONTHS[m as usize - 1]),
            'a' => out.push_str(&WEEKDAYS[wd][..3]),
            'A' => out.push_str(WEEKDAYS[wd]),
            'z' => push_offset(out, offset, colon),
            'Z' => push_zone_name(out, tz, secs, offset),
            's' => {
                let _ = write!(out, "{secs}");
            }
            'N' | 'Q' | 'f' => {
                let w = width
                    .unwrap_or(if letter == 'f' { 6 } else { 3 })
                    .clamp(1, 9);
                let nanos = u64::from(micros) * 1000;
                let v = nanos / 10u64.pow(9 - w);
                let _ = write!(out, "{v:0w$}", w = w as usize);
            }
            'T' => {
                let _ = write!(out, "{hh:02}:{mm:02}:{ss:02}");
            }
            'F' => {
                let _ = write!(out, "{y:04}-{m:02}-{d:02}");
            }
            'D' => {
                let _ = write!(out, "{m:02}/{d:02}/{:02}", y.rem_euclid(100));
            }
            'n' => out.push('\n'),
            't' => out.push('\t'),
            '%' => out.push('%'),
            other => {
                out.push('%');
                out.push(other);
            }
        }
    }
}

fn push_offset(out: &mut String, offset: i32, colon: bool) {
    let sign = if offset < 0 { '-' } else { '+' };
    let a = offset.unsigned_abs();
    let (h, m) = (a / 3600, a / 60 % 60);
    let _ = if colon {
        write!(out, "{sign}{h:02}:{m:02}")
    } else {
        write!(out, "{sign}{h:02}{m:02}")
    };
}

fn push_zone_name(out: &mut String, tz: Zone, secs: i64, offset: i32) {
    match tz {
        Zone::Utc => out.push_str("UTC"),
        Zone::Fixed(_) => push_offset(out, offset, false),
        Zone::Named(z) => match DateTime::from_timestamp(secs, 0) {
            Some(dt) => {
                let off = z.offset_from_utc_datetime(&dt.naive_utc());
                let name = off.to_string();
                if name.is_empty() {
                    push_offset(out, off.fix().local_minus_utc(), false);
                } else {
                    out.push_str(&name);
                }
            }
            None => push_offset(out, offset, false),
        },
    }
}
