//! Allocation-free text writers: integers, hex, and the four timestamp layouts the corpus uses.
//!
//! Every writer appends to a caller-owned `Vec<u8>`; none allocates beyond the vector's growth.
//! Naive twins (`format!`) are checked in the tests below.

/// Seconds in a day.
const DAY_SECS: i64 = 86_400;

/// Three-letter English month names, as syslog and Apache print them.
pub const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Appends the decimal digits of `n`. Twin: `write!(out, "{n}")`.
#[inline]
pub fn push_u64(out: &mut Vec<u8>, mut n: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

/// Appends `n` left-padded with `fill` to at least `width` bytes. Twin: `format!("{n:0width$}")`
/// for `fill == b'0'`, `format!("{n:>width$}")` for `fill == b' '`.
#[inline]
pub fn push_padded(out: &mut Vec<u8>, n: u64, width: usize, fill: u8) {
    let mut digits = 1;
    let mut m = n / 10;
    while m > 0 {
        digits += 1;
        m /= 10;
    }
    for _ in digits..width {
        out.push(fill);
    }
    push_u64(out, n);
}

/// Appends exactly two zero-padded digits of `n` (which must be below 100).
#[inline]
fn push2(out: &mut Vec<u8>, n: u32) {
    out.push(b'0' + (n / 10) as u8);
    out.push(b'0' + (n % 10) as u8);
}

/// Appends `n` as exactly `digits` lowercase hex digits (most significant first).
#[inline]
pub fn push_hex(out: &mut Vec<u8>, n: u64, digits: u32) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut shift = digits * 4;
    while shift > 0 {
        shift -= 4;
        out.push(HEX[((n >> shift) & 0xf) as usize]);
    }
}

/// A UTC instant broken into calendar fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// Proleptic Gregorian year.
    pub year: i32,
    /// Month, 1–12.
    pub month: u32,
    /// Day of month, 1–31.
    pub day: u32,
    /// Hour, 0–23.
    pub hour: u32,
    /// Minute, 0–59.
    pub minute: u32,
    /// Second, 0–59.
    pub second: u32,
    /// Microseconds within the second, 0–999,999.
    pub micros: u32,
}

impl Civil {
    /// Splits `micros` since the Unix epoch (UTC) into calendar fields
    /// (Howard Hinnant's `civil_from_days`).
    pub fn from_micros(micros: i64) -> Civil {
        let secs = micros.div_euclid(1_000_000);
        let sub = micros.rem_euclid(1_000_000) as u32;
        let days = secs.div_euclid(DAY_SECS);
        let tod = secs.rem_euclid(DAY_SECS) as u32;
        let z = days + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z.rem_euclid(146_097);
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
        let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
        let year = (yoe + era * 400 + i64::from(month <= 2)) as i32;
        Civil {
            year,
            month,
            day,
            hour: tod / 3600,
            minute: tod / 60 % 60,
            second: tod % 60,
            micros: sub,
        }
    }

    fn push_hms(&self, out: &mut Vec<u8>) {
        push2(out, self.hour);
        out.push(b':');
        push2(out, self.minute);
        out.push(b':');
        push2(out, self.second);
    }

    fn push_ymd(&self, out: &mut Vec<u8>) {
        push_padded(out, self.year.max(0) as u64, 4, b'0');
        out.push(b'-');
        push2(out, self.month);
        out.push(b'-');
        push2(out, self.day);
    }

    /// RFC 3164 syslog: `Jan  1 00:00:00` (day padded with a space).
    pub fn push_syslog(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(MONTHS[self.month as usize - 1].as_bytes());
        out.push(b' ');
        push_padded(out, u64::from(self.day), 2, b' ');
        out.push(b' ');
        self.push_hms(out);
    }

    /// Apache `%t` in UTC: `01/Jan/2026:00:00:00 +0000` (without the brackets).
    pub fn push_apache(&self, out: &mut Vec<u8>) {
        push2(out, self.day);
        out.push(b'/');
        out.extend_from_slice(MONTHS[self.month as usize - 1].as_bytes());
        out.push(b'/');
        push_padded(out, self.year.max(0) as u64, 4, b'0');
        out.push(b':');
        self.push_hms(out);
        out.extend_from_slice(b" +0000");
    }

    /// ISO 8601 with milliseconds in UTC: `2026-01-01T00:00:00.123Z`.
    pub fn push_iso_millis(&self, out: &mut Vec<u8>) {
        self.push_ymd(out);
        out.push(b'T');
        self.push_hms(out);
        out.push(b'.');
        push_padded(out, u64::from(self.micros / 1000), 3, b'0');
        out.push(b'Z');
    }

    /// log4j's default ISO layout: `2026-01-01 00:00:00,123`.
    pub fn push_log4j(&self, out: &mut Vec<u8>) {
        self.push_ymd(out);
        out.push(b' ');
        self.push_hms(out);
        out.push(b',');
        push_padded(out, u64::from(self.micros / 1000), 3, b'0');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(f: impl FnOnce(&mut Vec<u8>)) -> String {
        let mut v = Vec::new();
        f(&mut v);
        String::from_utf8(v).unwrap()
    }

    #[test]
    fn known_instants() {
        // 2026-01-01T00:00:00Z and 2024-02-29T13:05:09.042Z (a leap day).
        let c = Civil::from_micros(1_767_225_600_000_000);
        assert_eq!(s(|o| c.push_syslog(o)), "Jan  1 00:00:00");
        assert_eq!(s(|o| c.push_apache(o)), "01/Jan/2026:00:00:00 +0000");
        let c = Civil::from_micros(1_709_211_909_042_000);
        assert_eq!(s(|o| c.push_iso_millis(o)), "2024-02-29T13:05:09.042Z");
        assert_eq!(s(|o| c.push_log4j(o)), "2024-02-29 13:05:09,042");
        assert_eq!(s(|o| c.push_syslog(o)), "Feb 29 13:05:09");
    }

    #[test]
    fn days_advance_one_by_one() {
        // Naive twin: walk day by day with a month-length table.
        let (mut y, mut m, mut d) = (1999i32, 12u32, 31u32);
        let leap = |y: i32| (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
        for day in 10_956..10_956 + 12_000i64 {
            let c = Civil::from_micros(day * DAY_SECS * 1_000_000 + 1);
            assert_eq!((c.year, c.month, c.day), (y, m, d), "day {day}");
            let len = match m {
                2 if leap(y) => 29,
                2 => 28,
                4 | 6 | 9 | 11 => 30,
                _ => 31,
            };
            d += 1;
            if d > len {
                d = 1;
                m += 1;
                if m > 12 {
                    m = 1;
                    y += 1;
                }
            }
        }
    }

    proptest::proptest! {
        #[test]
        fn integers_match_format(n in proptest::num::u64::ANY, w in 0usize..24) {
            proptest::prop_assert_eq!(s(|o| push_u64(o, n)), n.to_string());
            proptest::prop_assert_eq!(s(|o| push_padded(o, n, w, b'0')), format!("{n:0w$}"));
            proptest::prop_assert_eq!(s(|o| push_padded(o, n, w, b' ')), format!("{n:>w$}"));
            proptest::prop_assert_eq!(s(|o| push_hex(o, n, 16)), format!("{n:016x}"));
            proptest::prop_assert_eq!(s(|o| push_hex(o, n & 0xffff, 4)), format!("{:04x}", n & 0xffff));
        }

        #[test]
        fn time_of_day_matches_arithmetic(us in 0i64..4_102_444_800_000_000) {
            let c = Civil::from_micros(us);
            let secs = us / 1_000_000;
            proptest::prop_assert_eq!(c.micros as i64, us % 1_000_000);
            proptest::prop_assert_eq!(c.second as i64, secs % 60);
            proptest::prop_assert_eq!(c.minute as i64, secs / 60 % 60);
            proptest::prop_assert_eq!(c.hour as i64, secs / 3600 % 24);
        }
    }
}
