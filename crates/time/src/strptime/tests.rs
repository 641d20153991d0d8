//! Per-letter tests of the parser and the renderer, and the strftime → strptime round trip.

use super::*;
use crate::Zone;
use proptest::prelude::*;

/// 2024-03-01T12:00:00Z.
const REF: i64 = 1_709_294_400_000_000;

fn at(y: i64, m: u32, d: u32, hh: i64, mm: i64, ss: i64) -> i64 {
    (crate::civil::days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss) * 1_000_000
}

fn p(fmt: &str, text: &str) -> Option<(i64, usize)> {
    TimeFormat::new(fmt)
        .unwrap()
        .parse_prefix(text, Zone::Utc, REF)
}

fn t(fmt: &str, text: &str) -> i64 {
    p(fmt, text)
        .unwrap_or_else(|| panic!("{fmt} on {text:?}"))
        .0
}

#[test]
fn date_letters() {
    assert_eq!(t("%Y-%m-%d", "2015-10-18"), at(2015, 10, 18, 0, 0, 0));
    assert_eq!(t("%y%m%d", "081109"), at(2008, 11, 9, 0, 0, 0));
    assert_eq!(t("%y", "69"), at(1969, 1, 1, 0, 0, 0));
    assert_eq!(t("%d/%m/%Y", "5/3/2024"), at(2024, 3, 5, 0, 0, 0));
    assert_eq!(t("%b %e %Y", "Jul  1 2017"), at(2017, 7, 1, 0, 0, 0));
    assert_eq!(t("%B %d %Y", "JULY 01 2017"), at(2017, 7, 1, 0, 0, 0));
    assert_eq!(t("%h %d %Y", "sep 01 2017"), at(2017, 9, 1, 0, 0, 0));
    assert_eq!(
        t("%a %b %d %Y", "Sun Dec 04 2005"),
        at(2005, 12, 4, 0, 0, 0)
    );
    assert_eq!(
        t("%A, %d %B %Y", "Sunday, 04 December 2005"),
        at(2005, 12, 4, 0, 0, 0)
    );
    assert_eq!(t("%Y %j", "2024 061"), at(2024, 3, 1, 0, 0, 0));
    assert_eq!(t("%F", "2024-02-29"), at(2024, 2, 29, 0, 0, 0));
    assert_eq!(t("%D", "02/29/24"), at(2024, 2, 29, 0, 0, 0));
}

#[test]
fn time_letters() {
    assert_eq!(
        t("%Y-%m-%d %H:%M:%S", "2024-03-01 23:59:58"),
        at(2024, 3, 1, 23, 59, 58)
    );
    assert_eq!(
        t("%Y-%m-%d %T", "2024-03-01 01:02:03"),
        at(2024, 3, 1, 1, 2, 3)
    );
    assert_eq!(
        t("%F %I:%M %p", "2024-03-01 12:15 AM"),
        at(2024, 3, 1, 0, 15, 0)
    );
    assert_eq!(
        t("%F %I:%M %p", "2024-03-01 12:15 pm"),
        at(2024, 3, 1, 12, 15, 0)
    );
    assert_eq!(
        t("%F %I:%M%p", "2024-03-01 07:15PM"),
        at(2024, 3, 1, 19, 15, 0)
    );
    assert_eq!(t("%s", "1700000000"), 1_700_000_000_000_000);
    assert_eq!(t("%s.%3N", "1700000000.250"), 1_700_000_000_250_000);
}

#[test]
fn subsecond_letters() {
    let base = at(2024, 3, 1, 12, 0, 0);
    assert_eq!(t("%F %T.%N", "2024-03-01 12:00:00.5"), base + 500_000);
    assert_eq!(
        t("%F %T.%N", "2024-03-01 12:00:00.123456789"),
        base + 123_456
    );
    assert_eq!(t("%F %T.%3N", "2024-03-01 12:00:00.978"), base + 978_000);
    assert_eq!(t("%F %T.%6N", "2024-03-01 12:00:00.000042"), base + 42);
    assert_eq!(t("%F %T.%9N", "2024-03-01 12:00:00.000001999"), base + 1);
    assert_eq!(t("%F %T,%Q", "2024-03-01 12:00:00,007"), base + 7_000);
    assert_eq!(t("%F %T.%f", "2024-03-01 12:00:00.25"), base + 250_000);
}

#[test]
fn zone_letters() {
    let noon = at(2024, 3, 1, 12, 0, 0);
    assert_eq!(t("%F %T%z", "2024-03-01 14:00:00+0200"), noon);
    assert_eq!(t("%F %T%:z", "2024-03-01 05:00:00-07:00"), noon);
    assert_eq!(t("%F %T%z", "2024-03-01 12:00:00Z"), noon);
    assert_eq!(t("%F %T %Z", "2024-03-01 04:00:00 PST"), noon);
    assert_eq!(t("%F %T %Z", "2024-03-01 12:00:00 UTC"), noon);
    assert_eq!(t("%F %T %Z", "2024-03-01 07:00:00 America/New_York"), noon);
    // No zone in the text: the caller's zone applies.
    let f = TimeFormat::new("%F %T").unwrap();
    let paris = Zone::Named(chrono_tz::Europe::Paris);
    assert_eq!(
        f.parse_prefix("2024-03-01 13:00:00", paris, REF).unwrap().0,
        noon
    );
    assert_eq!(
        f.parse_prefix("2024-03-01 13:00:00", Zone::Fixed(3600), REF)
            .unwrap()
            .0,
        noon
    );
}

#[test]
fn literals_spaces_and_consumed_length() {
    assert_eq!(
        p("[%d/%b/%Y:%H:%M:%S %z]", "[10/Oct/2000:13:55:36 -0700] GET"),
        Some((at(2000, 10, 10, 20, 55, 36), 28))
    );
    assert_eq!(
        p("%Y-%m-%d  %H", "2024-03-01 07 rest"),
        Some((at(2024, 3, 1, 7, 0, 0), 13))
    );
    assert_eq!(
        p("100%% %Y", "100% 2024"),
        Some((at(2024, 1, 1, 0, 0, 0), 9))
    );
}

#[test]
fn missing_fields_default_from_reference() {
    // No date: the reference's date (2024-03-01).
    assert_eq!(t("%H:%M:%S", "08:30:00"), at(2024, 3, 1, 8, 30, 0));
    // No year: the year putting the result closest to but not more than 2 days after REF.
    assert_eq!(
        t("%b %d %H:%M:%S", "Mar 02 10:00:00"),
        at(2024, 3, 2, 10, 0, 0)
    );
    assert_eq!(
        t("%b %d %H:%M:%S", "Mar 04 10:00:00"),
        at(2023, 3, 4, 10, 0, 0)
    );
    assert_eq!(
        t("%b %d %H:%M:%S", "Dec 31 23:59:59"),
        at(2023, 12, 31, 23, 59, 59)
    );
    // Feb 29 goes back to the latest leap year.
    assert_eq!(t("%m-%d", "02-29"), at(2024, 2, 29, 0, 0, 0));
    let jan = at(2025, 1, 10, 0, 0, 0);
    let f = TimeFormat::new("%m-%d").unwrap();
    assert_eq!(
        f.parse_prefix("02-29", Zone::Utc, jan).unwrap().0,
        at(2024, 2, 29, 0, 0, 0)
    );
}

#[test]
fn rejects_impossible_values() {
    for (fmt, text) in [
        ("%Y-%m-%d", "2023-02-29"),
        ("%Y-%m-%d", "2024-13-01"),
        ("%Y-%m-%d", "2024-00-10"),
        ("%F %H:%M", "2024-01-01 24:00"),
        ("%F %H:%M", "2024-01-01 23:60"),
        ("%F %I %p", "2024-01-01 13 PM"),
        ("%Y %j", "2023 366"),
        ("%b %Y", "Foo 2024"),
        ("%F %z", "2024-01-01 +2500"),
        ("%F %Z", "2024-01-01 Mars/Base"),
        ("%Y-%m-%d", "2024/03/01"),
        ("%Y", ""),
    ] {
        assert_eq!(p(fmt, text), None, "{fmt} on {text:?}");
    }
}

#[test]
fn bad_formats_are_errors() {
    for bad in ["%", "%Y-%", "%q", "%12N", "%0N"] {
        let err = TimeFormat::new(bad).unwrap_err();
        assert!(err.to_string().contains(&format!("{bad:?}")), "{err}");
    }
    assert!(TimeFormat::new("%?f").is_err(), "extensions are internal");
}

#[test]
fn strftime_letters() {
    let t0 = at(2005, 12, 4, 4, 47, 44) + 123_456;
    let s = |f: &str| strftime(t0, f, Zone::Utc);
    assert_eq!(s("%Y-%m-%d %H:%M:%S"), "2005-12-04 04:47:44");
    assert_eq!(s("%y %e %j"), "05  4 338");
    assert_eq!(s("%a %A %b %B %h"), "Sun Sunday Dec December Dec");
    assert_eq!(s("%I %p %-d %-m %-H"), "04 AM 4 12 4");
    assert_eq!(
        s("%N|%3N|%6N|%9N|%Q|%f"),
        "123|123|123456|123456000|123|123456"
    );
    assert_eq!(
        s("%s %T %F %D %%"),
        "1133671664 04:47:44 2005-12-04 12/04/05 %"
    );
    assert_eq!(s("%z %:z %Z"), "+0000 +00:00 UTC");
    assert_eq!(
        strftime(t0, "%H %z %:z %Z", Zone::Fixed(-25200)),
        "21 -0700 -07:00 -0700"
    );
    let ny = Zone::Named(chrono_tz::America::New_York);
    assert_eq!(strftime(t0, "%H:%M %z %Z", ny), "23:47 -0500 EST");
    assert_eq!(
        strftime(-1, "%F %T.%6N", Zone::Utc),
        "1969-12-31 23:59:59.999999"
    );
    assert_eq!(strftime(0, "%Ex %", Zone::Utc), "%Ex %");
}

proptest! {
    #[test]
    fn strftime_then_strptime_round_trips(
        // 1902..2096: before ~1912 IANA zones use local mean time offsets with seconds (Paris
        // +00:09:21), which `%:z` cannot print.
        t in -2_145_916_800_000_000i64..4_000_000_000_000_000,
        zone in prop::sample::select(vec![
            Zone::Utc,
            Zone::Fixed(19_800),
            Zone::Fixed(-36_000),
            Zone::Named(chrono_tz::Europe::London),
            Zone::Named(chrono_tz::America::Los_Angeles),
        ]),
    ) {
        let fmt = "%Y-%m-%dT%H:%M:%S.%6N%:z";
        let text = strftime(t, fmt, zone);
        let parsed = TimeFormat::new(fmt).unwrap().parse_prefix(&text, Zone::Utc, 0);
        prop_assert_eq!(parsed, Some((t, text.len())), "{}", text);
    }
}
