//! strptime/strftime with Splunk's format letters.
//!
//! A format is compiled once into a list of [`Item`]s ([`TimeFormat::new`]); parsing walks the items
//! over the input bytes without allocating ([`TimeFormat::parse_prefix`]). Letters:
//!
//! | letter | meaning | parse accepts |
//! |---|---|---|
//! | `%Y` `%y` | year, 2-digit year (69–99 → 19xx, else 20xx) | 1–4 / 1–2 digits |
//! | `%m` `%d` `%e` `%j` | month, day, space-padded day, day of year | 1–2 (3) digits, leading spaces for `%e` |
//! | `%H` `%I` `%M` `%S` `%p` | hour 0–23, hour 1–12, minute, second, AM/PM | 1–2 digits |
//! | `%b` `%h` `%B` / `%a` `%A` | month / weekday name | abbreviation or full name, any case |
//! | `%z` `%:z` / `%Z` | `±hhmm`, `±hh:mm`, `Z` / a zone name (UTC, PST, Europe/Paris) or offset | |
//! | `%s` / `%Q` | epoch seconds / milliseconds part (3 digits) | 1–10 / 1–3 digits |
//! | `%N` `%3N` `%6N` `%9N` `%f` | subseconds (any width; milli; micro; nano; micro) | 1–9 digits, or up to the width |
//! | `%T` `%F` `%D` `%%` | `%H:%M:%S`, `%Y-%m-%d`, `%m/%d/%y`, a percent sign | |
//!
//! A space in the format matches any run of spaces/tabs (also none). `%-d`/`%-m`/`%-H` render without
//! padding. Unknown letters are a [`TimeError::BadFormat`].

mod format;
mod parse;

pub use format::{strftime, strftime_into};
pub(crate) use parse::{starts_with_month, starts_with_weekday};

use crate::TimeError;

/// A numeric field of a broken-down time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Field {
    Year4,
    Year2,
    Month,
    Day,
    YearDay,
    Hour24,
    Hour12,
    Minute,
    Second,
}

/// One step of a compiled format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Item {
    /// One literal byte that must match exactly.
    Lit(u8),
    /// A run of spaces/tabs; `min` is 0 for user formats and 1 for the automatic patterns.
    Space {
        min: u8,
    },
    /// A decimal field of `min..=max` digits; `pad` lets leading spaces precede it (`%e`).
    Num {
        field: Field,
        min: u8,
        max: u8,
        pad: bool,
    },
    MonthName,
    WeekdayName,
    AmPm,
    /// Subsecond digits: `min..=max` digits interpreted as a decimal fraction of a second.
    Frac {
        min: u8,
        max: u8,
    },
    /// Epoch seconds, `min..=max` digits.
    Epoch {
        min: u8,
        max: u8,
    },
    /// Epoch milliseconds, exactly 13 digits (automatic patterns only).
    EpochMillis,
    /// Milliseconds written as an unpadded integer of 1–3 digits (automatic patterns only; HealthApp
    /// writes `22:32:0:95` for 95 ms).
    Millis,
    /// A numeric offset or `Z`.
    Offset,
    /// A zone name or numeric offset.
    ZoneName,
    /// Automatic patterns only: an optional `[.,:]digits` fraction.
    OptFrac,
    /// Automatic patterns only: an optional zone (`Z`, `±hh[:mm]`, or ` ±hhmm`/` UTC` after a space).
    OptZone,
}

/// A compiled strptime format with Splunk's letters (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimeFormat {
    /// The compiled steps, in order.
    pub(crate) items: Vec<Item>,
    /// The source text, for diagnostics.
    source: String,
}

impl TimeFormat {
    /// Compiles `fmt`; fails on an unknown or dangling `%` letter.
    pub fn new(fmt: &str) -> Result<TimeFormat, TimeError> {
        compile(fmt, false)
    }

    /// Compiles an automatic-recognition pattern: fields have fixed widths (`%-m` relaxes one),
    /// spaces need at least one blank, and `%?f` (optional fraction), `%?z` (optional zone),
    /// `%?Q` (13-digit epoch milliseconds) and `%?L` (unpadded integer milliseconds) are available.
    pub(crate) fn auto(fmt: &str) -> Result<TimeFormat, TimeError> {
        compile(fmt, true)
    }

    /// The format text this was compiled from.
    pub fn as_str(&self) -> &str {
        &self.source
    }
}

fn compile(fmt: &str, strict: bool) -> Result<TimeFormat, TimeError> {
    let bad = |reason: String| TimeError::BadFormat {
        format: fmt.to_string(),
        reason,
    };
    let mut items = Vec::new();
    let b = fmt.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c == b' ' || c == b'\t' {
            while i < b.len() && (b[i] == b' ' || b[i] == b'\t') {
                i += 1;
            }
            items.push(Item::Space {
                min: u8::from(strict),
            });
            continue;
        }
        if c != b'%' {
            items.push(Item::Lit(c));
            continue;
        }
        // Flags and widths: `-` (no padding), `:` (for %:z), `?` (automatic extensions), digits.
        let mut relaxed = !strict;
        let mut width: Option<u8> = None;
        let mut ext = false;
        loop {
            match b.get(i) {
                Some(b'-') => relaxed = true,
                Some(b':') => {}
                Some(b'?') if strict => ext = true,
                Some(d @ b'0'..=b'9') => {
                    width = Some(
                        width
                            .unwrap_or(0)
                            .saturating_mul(10)
                            .saturating_add(d - b'0'),
                    )
                }
                _ => break,
            }
            i += 1;
        }
        let Some(&letter) = b.get(i) else {
            return Err(bad(format!("'%' at byte {} has no letter", i - 1)));
        };
        i += 1;
        let num = |field, digits: u8| Item::Num {
            field,
            min: if relaxed { 1 } else { digits },
            max: digits,
            pad: false,
        };
        if ext {
            items.push(match letter {
                b'f' => Item::OptFrac,
                b'z' => Item::OptZone,
                b'Q' => Item::EpochMillis,
                b'L' => Item::Millis,
                other => return Err(bad(format!("unknown extension %?{}", other as char))),
            });
            continue;
        }
        match letter {
            b'Y' => items.push(num(Field::Year4, 4)),
            b'y' => items.push(num(Field::Year2, 2)),
            b'm' => items.push(num(Field::Month, 2)),
            b'd' => items.push(num(Field::Day, 2)),
            b'e' => items.push(Item::Num {
                field: Field::Day,
                min: 1,
                max: 2,
                pad: true,
            }),
            b'j' => items.push(num(Field::YearDay, 3)),
            b'H' | b'k' => items.push(num(Field::Hour24, 2)),
            b'I' | b'l' => items.push(num(Field::Hour12, 2)),
            b'M' => items.push(num(Field::Minute, 2)),
            b'S' => items.push(num(Field::Second, 2)),
            b'p' => items.push(Item::AmPm),
            b'b' | b'B' | b'h' => items.push(Item::MonthName),
            b'a' | b'A' => items.push(Item::WeekdayName),
            b'z' => items.push(Item::Offset),
            b'Z' => items.push(Item::ZoneName),
            b's' => items.push(Item::Epoch {
                min: if strict { 10 } else { 1 },
                max: 10,
            }),
            b'N' | b'Q' | b'f' => {
                let default = if letter == b'f' { 6 } else { 3 };
                let max = match (letter, width) {
                    (_, Some(w)) if (1..=9).contains(&w) => w,
                    (_, Some(w)) => return Err(bad(format!("subsecond width {w} is not 1..=9"))),
                    (b'N', None) => 9,
                    _ => default,
                };
                let min = if strict { max } else { 1 };
                items.push(Item::Frac { min, max });
            }
            b'T' => items.extend(compile("%H:%M:%S", strict)?.items),
            b'F' => items.extend(compile("%Y-%m-%d", strict)?.items),
            b'D' => items.extend(compile("%m/%d/%y", strict)?.items),
            b'%' => items.push(Item::Lit(b'%')),
            b'n' | b't' => items.push(Item::Space { min: 0 }),
            other => {
                return Err(bad(format!(
                    "unknown letter %{}",
                    char::from_u32(u32::from(other)).unwrap_or('?')
                )))
            }
        }
    }
    Ok(TimeFormat {
        items,
        source: fmt.to_string(),
    })
}

#[cfg(test)]
mod tests;
