//! Time modifiers with a fixed `now`.

use super::*;
use crate::civil::days_from_civil;

/// Wednesday 2024-03-13T15:45:30.250Z.
const NOW: Micros = 1_710_344_730_250_000;

fn at(y: i64, m: u32, d: u32, hh: i64, mm: i64, ss: i64) -> Micros {
    (days_from_civil(y, m, d) * 86_400 + hh * 3600 + mm * 60 + ss) * MICROS_PER_SEC
}

fn r(text: &str) -> Micros {
    resolve(text, NOW, Zone::Utc).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn now_epoch_and_absolute() {
    assert_eq!(r("now"), NOW);
    assert_eq!(r(" NOW "), NOW);
    assert_eq!(r("rt"), NOW);
    assert_eq!(r("0"), 0);
    assert_eq!(r("1700000000"), 1_700_000_000 * MICROS_PER_SEC);
    assert_eq!(r("1700000000.5"), 1_700_000_000 * MICROS_PER_SEC + 500_000);
    assert_eq!(r("03/01/2024:08:30:00"), at(2024, 3, 1, 8, 30, 0));
    let ny = Zone::Named(chrono_tz::America::New_York);
    assert_eq!(
        resolve("03/01/2024:08:30:00", NOW, ny).unwrap(),
        at(2024, 3, 1, 13, 30, 0)
    );
}

#[test]
fn offsets_in_every_unit_spelling() {
    for (text, delta) in [
        ("-30s", -30),
        ("-1sec", -1),
        ("+2secs", 2),
        ("-1second", -1),
        ("-5seconds", -5),
    ]
    .into_iter()
    .chain([
        ("-5m", -300),
        ("-1min", -60),
        ("+2mins", 120),
        ("-1minute", -60),
        ("-3minutes", -180),
    ])
    .chain([
        ("-2h", -7200),
        ("-1hr", -3600),
        ("+2hrs", 7200),
        ("-1hour", -3600),
        ("-4hours", -14_400),
    ])
    .chain([("-1d", -86_400), ("-1day", -86_400), ("+2days", 172_800)])
    .chain([
        ("-1w", -604_800),
        ("-1week", -604_800),
        ("+2weeks", 1_209_600),
    ])
    .chain([("-h", -3600), ("+d", 86_400)])
    {
        assert_eq!(r(text), NOW + delta * MICROS_PER_SEC, "{text}");
    }
    let base = NOW - at(2024, 3, 13, 0, 0, 0);
    assert_eq!(r("-1mon"), at(2024, 2, 13, 0, 0, 0) + base);
    assert_eq!(r("-2months"), at(2024, 1, 13, 0, 0, 0) + base);
    assert_eq!(r("-1q"), at(2023, 12, 13, 0, 0, 0) + base);
    assert_eq!(r("+1qtr"), at(2024, 6, 13, 0, 0, 0) + base);
    assert_eq!(r("-2quarters"), at(2023, 9, 13, 0, 0, 0) + base);
    assert_eq!(r("-1y"), at(2023, 3, 13, 0, 0, 0) + base);
    assert_eq!(r("-1yr"), r("-1years"));
    assert_eq!(r("-12mon"), r("-1year"));
}

#[test]
fn month_arithmetic_clamps_to_month_end() {
    let mar31 = at(2024, 3, 31, 10, 0, 0);
    assert_eq!(
        resolve("-1mon", mar31, Zone::Utc).unwrap(),
        at(2024, 2, 29, 10, 0, 0)
    );
    assert_eq!(
        resolve("-1y-1mon", mar31, Zone::Utc).unwrap(),
        at(2023, 2, 28, 10, 0, 0)
    );
}

#[test]
fn snaps() {
    assert_eq!(r("@s"), at(2024, 3, 13, 15, 45, 30));
    assert_eq!(r("@m"), at(2024, 3, 13, 15, 45, 0));
    assert_eq!(r("@h"), at(2024, 3, 13, 15, 0, 0));
    assert_eq!(r("@d"), at(2024, 3, 13, 0, 0, 0));
    assert_eq!(r("@mon"), at(2024, 3, 1, 0, 0, 0));
    assert_eq!(r("@q"), at(2024, 1, 1, 0, 0, 0));
    assert_eq!(r("@y"), at(2024, 1, 1, 0, 0, 0));
    assert_eq!(r("-24h@h"), at(2024, 3, 12, 15, 0, 0));
    assert_eq!(
        resolve("@q", at(2024, 11, 20, 5, 0, 0), Zone::Utc).unwrap(),
        at(2024, 10, 1, 0, 0, 0)
    );
}

#[test]
fn week_snaps_go_back_to_the_named_weekday() {
    // NOW is a Wednesday: @w0/@w (Sunday) is the 10th, @w1 Monday the 11th, @w3 today, @w4
    // (Thursday) last week's 7th, @w7 = Sunday again.
    assert_eq!(r("@w"), at(2024, 3, 10, 0, 0, 0));
    assert_eq!(r("@w0"), at(2024, 3, 10, 0, 0, 0));
    assert_eq!(r("@w1"), at(2024, 3, 11, 0, 0, 0));
    assert_eq!(r("@w3"), at(2024, 3, 13, 0, 0, 0));
    assert_eq!(r("@w4"), at(2024, 3, 7, 0, 0, 0));
    assert_eq!(r("@w6"), at(2024, 3, 9, 0, 0, 0));
    assert_eq!(r("@w7"), r("@w0"));
    assert_eq!(r("-7d@w1"), at(2024, 3, 4, 0, 0, 0));
}

#[test]
fn offsets_after_snap() {
    assert_eq!(r("-1d@d"), at(2024, 3, 12, 0, 0, 0));
    assert_eq!(r("-1d@d+8h"), at(2024, 3, 12, 8, 0, 0));
    assert_eq!(r("@d+8h"), at(2024, 3, 13, 8, 0, 0));
    assert_eq!(r("@mon-1d"), at(2024, 2, 29, 0, 0, 0));
    assert_eq!(r("-1mon@mon+1w@w1"), at(2024, 2, 5, 0, 0, 0));
    assert_eq!(r("rt-5m"), NOW - 300 * MICROS_PER_SEC);
}

#[test]
fn zones_snap_local_midnight_and_keep_wall_clock_across_dst() {
    let ny = Zone::Named(chrono_tz::America::New_York);
    // NOW = 11:45:30 EDT on 2024-03-13; local midnight is 04:00Z.
    assert_eq!(resolve("@d", NOW, ny).unwrap(), at(2024, 3, 13, 4, 0, 0));
    // DST began on 2024-03-10: one calendar week back is 11:45 EST = 16:45Z.
    assert_eq!(
        resolve("-1w@m", NOW, ny).unwrap(),
        at(2024, 3, 6, 16, 45, 0)
    );
    // while 168 hours back is 15:45Z.
    assert_eq!(
        resolve("-168h@m", NOW, ny).unwrap(),
        at(2024, 3, 6, 15, 45, 0)
    );
    let plus530 = Zone::Fixed(19_800);
    assert_eq!(
        resolve("@h", NOW, plus530).unwrap(),
        at(2024, 3, 13, 15, 30, 0)
    );
}

#[test]
fn errors_name_the_bad_text() {
    for bad in [
        "",
        "é",
        "-1é",
        "now+é",
        "-1x",
        "-1",
        "@",
        "@zz",
        "@2d",
        "@w8",
        "yesterday",
        "-1d@",
        "1.2.3",
        "13/45/2024:00:00:00",
        "03/01/2024",
        "-9999999999d",
        "-999999999y",
        "+1d*2",
    ] {
        let err = resolve(bad, NOW, Zone::Utc).unwrap_err();
        let msg = err.to_string();
        assert!(
            matches!(err, TimeError::BadRelative { .. }),
            "{bad:?}: {msg}"
        );
        assert!(msg.contains(&format!("{bad:?}")), "{bad:?}: {msg}");
    }
}
