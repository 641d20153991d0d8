//! Matching a compiled [`TimeFormat`] against input bytes, then turning the fields into an instant.

use super::{Field, Item, TimeFormat};
use crate::civil::{civil_from_days, days_from_civil, days_in_month};
use crate::zone::{abbreviation, parse_offset};
use crate::{Micros, Zone, MICROS_PER_SEC};

/// Broken-down fields gathered while matching. `None` = not present in the input.
#[derive(Debug, Default, Clone, Copy)]
struct Fields {
    year: Option<i64>,
    month: Option<u32>,
    day: Option<u32>,
    yday: Option<u32>,
    hour: Option<u32>,
    hour12: bool,
    pm: Option<bool>,
    minute: u32,
    second: u32,
    /// Subseconds, in microseconds.
    micros: u32,
    /// Epoch time from `%s`/epoch millis, in microseconds.
    epoch: Option<Micros>,
    /// Explicit offset from the input, seconds east.
    offset: Option<i32>,
    /// Explicit named zone from the input.
    zone: Option<Zone>,
}

const MONTHS: [&[u8]; 12] = [
    b"january",
    b"february",
    b"march",
    b"april",
    b"may",
    b"june",
    b"july",
    b"august",
    b"september",
    b"october",
    b"november",
    b"december",
];
const WEEKDAYS: [&[u8]; 7] = [
    b"sunday",
    b"monday",
    b"tuesday",
    b"wednesday",
    b"thursday",
    b"friday",
    b"saturday",
];

/// Three bytes packed into one integer, the first lowest.
const fn pack3(a: u8, b: u8, c: u8) -> u32 {
    a as u32 | (b as u32) << 8 | (c as u32) << 16
}

/// The first three letters of each of `names` (lowercase already), packed as by [`key3`].
const fn keys<const N: usize>(names: [&[u8]; N]) -> [u32; N] {
    let mut out = [0u32; N];
    let mut i = 0;
    while i < N {
        let n = names[i];
        out[i] = pack3(n[0], n[1], n[2]);
        i += 1;
    }
    out
}

const MONTH_KEYS: [u32; 12] = keys(MONTHS);
const WEEKDAY_KEYS: [u32; 7] = keys(WEEKDAYS);

/// The first three bytes of `b` lowercased and packed into one integer, if all three are ASCII
/// letters: one compare per name instead of a slice compare (the time scan asks at every word
/// that begins with a month or weekday initial).
#[inline]
fn key3(b: &[u8]) -> Option<u32> {
    let head = b.get(..3)?;
    if !head.iter().all(u8::is_ascii_alphabetic) {
        return None;
    }
    Some(pack3(head[0] | 0x20, head[1] | 0x20, head[2] | 0x20))
}

/// Matches a (case-insensitive) 3-letter abbreviation from `names` (whose packed first letters
/// are `keys`), extended to the full name when the input spells it; returns (index, bytes used).
fn name_at(b: &[u8], names: &[&[u8]], keys: &[u32]) -> Option<(usize, usize)> {
    let key = key3(b)?;
    let i = keys.iter().position(|&k| k == key)?;
    let name = names[i];
    let full = b.len() >= name.len() && b[..name.len()].eq_ignore_ascii_case(name);
    Some((i, if full { name.len() } else { 3 }))
}

/// Whether `b` starts with a month name or abbreviation (any case).
pub(crate) fn starts_with_month(b: &[u8]) -> bool {
    key3(b).is_some_and(|k| MONTH_KEYS.contains(&k))
}

/// Whether `b` starts with a weekday name or abbreviation (any case).
pub(crate) fn starts_with_weekday(b: &[u8]) -> bool {
    key3(b).is_some_and(|k| WEEKDAY_KEYS.contains(&k))
}

/// Reads `min..=max` ASCII digits at `b[*pos..]`; returns the value and count.
#[inline]
fn digits(b: &[u8], pos: &mut usize, min: u8, max: u8) -> Option<(u64, u8)> {
    let mut v: u64 = 0;
    let mut n: u8 = 0;
    while n < max {
        match b.get(*pos) {
            Some(&c) if c.is_ascii_digit() => {
                v = v * 10 + u64::from(c - b'0');
                n += 1;
                *pos += 1;
            }
            _ => break,
        }
    }
    (n >= min).then_some((v, n))
}

/// Scales `v`, written with `n` digits after the decimal point, to microseconds.
fn frac_to_micros(v: u64, n: u8) -> u32 {
    let mut v = v;
    let mut n = n;
    while n > 6 {
        v /= 10;
        n -= 1;
    }
    while n < 6 {
        v *= 10;
        n += 1;
    }
    v as u32
}

/// A zone name at `b`: `Z`, UTC/GMT, an abbreviation, an IANA name, or a numeric offset.
fn zone_name(b: &[u8]) -> Option<(Zone, usize)> {
    if let Some((o, n)) = parse_offset(b) {
        return Some((Zone::Fixed(o), n));
    }
    let n = b
        .iter()
        .position(|c| !(c.is_ascii_alphanumeric() || matches!(c, b'/' | b'_' | b'-' | b'+')))
        .unwrap_or(b.len());
    let word = &b[..n];
    if word.is_empty() {
        return None;
    }
    if let Some(z) = abbreviation(word) {
        return Some((z, n));
    }
    let s = std::str::from_utf8(word).ok()?;
    s.parse::<chrono_tz::Tz>()
        .ok()
        .map(|tz| (Zone::Named(tz), n))
}

/// An optional zone after a timestamp (automatic patterns). Returns bytes used (0 = none).
fn opt_zone(b: &[u8], f: &mut Fields) -> usize {
    match b.first() {
        Some(b'Z') => {
            f.offset = Some(0);
            return 1;
        }
        Some(b'+' | b'-') => {
            if let Some((o, n)) = parse_offset(b) {
                f.offset = Some(o);
                return n;
            }
            return 0;
        }
        Some(b' ') => {}
        _ => return 0,
    }
    let rest = &b[1..];
    if let Some((o, n)) = parse_offset(rest).filter(|&(_, n)| n >= 5) {
        f.offset = Some(o);
        return 1 + n;
    }
    if rest.starts_with(b"UTC") || rest.starts_with(b"GMT") {
        f.offset = Some(0);
        return 4;
    }
    0
}

impl TimeFormat {
    /// Parses at the START of `text`; returns the time and the number of bytes consumed. Missing
    /// fields default sensibly: no year → inferred from `reference` (the year that puts the result
    /// closest to but not more than 2 days after `reference`), no zone → `tz`, no date → date of
    /// `reference` (in `tz`). Returns `None` when the text does not match or names an invalid date.
    pub fn parse_prefix(&self, text: &str, tz: Zone, reference: Micros) -> Option<(Micros, usize)> {
        self.parse_bytes(text.as_bytes(), tz, reference)
    }

    /// [`TimeFormat::parse_prefix`] on bytes (no UTF-8 requirement).
    pub(crate) fn parse_bytes(
        &self,
        b: &[u8],
        tz: Zone,
        reference: Micros,
    ) -> Option<(Micros, usize)> {
        let mut f = Fields::default();
        let mut pos = 0usize;
        for item in &self.items {
            match *item {
                Item::Lit(c) => {
                    if b.get(pos) != Some(&c) {
                        return None;
                    }
                    pos += 1;
                }
                Item::Space { min } => {
                    let start = pos;
                    while matches!(b.get(pos), Some(b' ' | b'\t')) {
                        pos += 1;
                    }
                    if pos - start < usize::from(min) {
                        return None;
                    }
                }
                Item::Num {
                    field,
                    min,
                    max,
                    pad,
                } => {
                    if pad {
                        while b.get(pos) == Some(&b' ') {
                            pos += 1;
                        }
                    }
                    let (v, _) = digits(b, &mut pos, min, max)?;
                    let v32 = v as u32;
                    match field {
                        Field::Year4 => f.year = Some(v as i64),
                        Field::Year2 => {
                            f.year = Some(if v >= 69 {
                                1900 + v as i64
                            } else {
                                2000 + v as i64
                            })
                        }
                        Field::Month => f.month = Some(v32),
                        Field::Day => f.day = Some(v32),
                        Field::YearDay => f.yday = Some(v32),
                        Field::Hour24 => f.hour = Some(v32),
                        Field::Hour12 => {
                            f.hour = Some(v32);
                            f.hour12 = true;
                        }
                        Field::Minute => f.minute = v32,
                        Field::Second => f.second = v32,
                    }
                }
                Item::MonthName => {
                    let (i, n) = name_at(&b[pos..], &MONTHS, &MONTH_KEYS)?;
                    f.month = Some(i as u32 + 1);
                    pos += n;
                }
                Item::WeekdayName => pos += name_at(&b[pos..], &WEEKDAYS, &WEEKDAY_KEYS)?.1,
                Item::AmPm => {
                    let two = b.get(pos..pos + 2)?;
                    f.pm = Some(match two.to_ascii_lowercase().as_slice() {
                        b"am" => false,
                        b"pm" => true,
                        _ => return None,
                    });
                    pos += 2;
                }
                Item::Frac { min, max } => {
                    let (v, n) = digits(b, &mut pos, min, max)?;
                    f.micros = frac_to_micros(v, n);
                }
                Item::Epoch { min, max } => {
                    let (v, _) = digits(b, &mut pos, min, max)?;
                    f.epoch = Some(v as i64 * MICROS_PER_SEC);
                }
                Item::EpochMillis => {
                    let (v, _) = digits(b, &mut pos, 13, 13)?;
                    f.epoch = Some(v as i64 * 1000);
                }
                Item::Millis => {
                    let (v, _) = digits(b, &mut pos, 1, 3)?;
                    f.micros = v as u32 * 1000;
                }
                Item::Offset => {
                    if b.get(pos) == Some(&b'Z') {
                        f.offset = Some(0);
                        pos += 1;
                    } else {
                        let (o, n) = parse_offset(&b[pos..])?;
                        f.offset = Some(o);
                        pos += n;
                    }
                }
                Item::ZoneName => {
                    let (z, n) = zone_name(&b[pos..])?;
                    f.zone = Some(z);
                    pos += n;
                }
                Item::OptFrac => {
                    if let (Some(b'.' | b',' | b':'), Some(d)) = (b.get(pos), b.get(pos + 1)) {
                        if d.is_ascii_digit() {
                            let mut p = pos + 1;
                            if let Some((v, n)) = digits(b, &mut p, 1, 9) {
                                f.micros = frac_to_micros(v, n);
                                pos = p;
                            }
                        }
                    }
                }
                Item::OptZone => pos += opt_zone(&b[pos..], &mut f),
            }
        }
        resolve(&f, tz, reference).map(|t| (t, pos))
    }
}

/// Seconds of the local wall clock for a date and time of day, or `None` if out of range.
fn local_secs(y: i64, m: u32, d: u32, secs_of_day: i64) -> Option<i64> {
    if !(1..=12).contains(&m) || d == 0 || d > days_in_month(y, m) {
        return None;
    }
    Some(days_from_civil(y, m, d) * 86_400 + secs_of_day)
}

/// Turns matched fields into an instant (see [`TimeFormat::parse_prefix`] for the defaults).
fn resolve(f: &Fields, tz: Zone, reference: Micros) -> Option<Micros> {
    if let Some(e) = f.epoch {
        return Some(e + i64::from(f.micros));
    }
    let mut hour = f.hour.unwrap_or(0);
    if f.hour12 || f.pm.is_some() {
        if f.hour12 && !(1..=12).contains(&hour) {
            return None;
        }
        hour = hour % 12 + if f.pm == Some(true) { 12 } else { 0 };
    }
    // Leap second 60 is accepted and folds into the next minute, as glibc does.
    if hour > 23 || f.minute > 59 || f.second > 60 {
        return None;
    }
    let sod = i64::from(hour) * 3600 + i64::from(f.minute) * 60 + i64::from(f.second);
    let zone = match (f.offset, f.zone) {
        (Some(o), _) => Zone::Fixed(o),
        (None, Some(z)) => z,
        (None, None) => tz,
    };
    let to_utc = |local: i64| {
        zone.local_to_utc(local)
            .checked_mul(MICROS_PER_SEC)?
            .checked_add(i64::from(f.micros))
    };
    let ref_secs = reference.div_euclid(MICROS_PER_SEC);
    let (ref_y, ref_m, ref_d) = civil_from_days(zone.utc_to_local(ref_secs).div_euclid(86_400));
    match (f.year, f.month, f.day, f.yday) {
        (Some(y), _, _, Some(yd)) if f.month.is_none() => {
            let len = if crate::civil::is_leap(y) { 366 } else { 365 };
            if yd == 0 || yd > len {
                return None;
            }
            to_utc((days_from_civil(y, 1, 1) + i64::from(yd) - 1) * 86_400 + sod)
        }
        (Some(y), m, d, _) => to_utc(local_secs(y, m.unwrap_or(1), d.unwrap_or(1), sod)?),
        (None, None, None, _) => to_utc(local_secs(ref_y, ref_m, ref_d, sod)?),
        (None, m, d, _) => {
            // Year inference: newest year whose result is not more than 2 days after `reference`.
            let m = m.unwrap_or(ref_m);
            let d = d.unwrap_or(1);
            let limit = reference.saturating_add(2 * crate::MICROS_PER_DAY);
            (0..10).find_map(|back| {
                let t = to_utc(local_secs(ref_y + 1 - back, m, d, sod)?)?;
                (t <= limit).then_some(t)
            })
        }
    }
}
