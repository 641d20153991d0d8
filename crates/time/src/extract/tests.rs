//! Recognised formats, rejections, and the props.conf knobs.

use super::*;
use crate::strptime::strftime;
use proptest::prelude::*;

/// 2024-03-02T00:00:00Z.
const NOW: Micros = 1_709_337_600_000_000;

fn auto() -> Extractor {
    Extractor::new(ExtractConfig {
        max_days_ago: 20_000,
        ..ExtractConfig::default()
    })
    .unwrap()
}

/// The found text and the time rendered as RFC 3339 UTC with microseconds.
fn found(ex: &mut Extractor, event: &str) -> Option<(String, String)> {
    let f = ex.extract(event, NOW)?;
    Some((
        event[f.start..f.end].to_string(),
        strftime(f.time, "%Y-%m-%dT%H:%M:%S.%6N%:z", Zone::Utc),
    ))
}

#[track_caller]
fn check(event: &str, text: &str, iso: &str) {
    let got = found(&mut auto(), event);
    assert_eq!(got, Some((text.to_string(), iso.to_string())), "{event:?}");
}

#[test]
fn iso_8601_and_rfc_3339() {
    check(
        "2024-03-01T12:00:00Z msg",
        "2024-03-01T12:00:00Z",
        "2024-03-01T12:00:00.000000+00:00",
    );
    check(
        "2024-03-01T12:00:00 msg",
        "2024-03-01T12:00:00",
        "2024-03-01T12:00:00.000000+00:00",
    );
    check(
        "2024-03-01 12:00:00.123+02:00 x",
        "2024-03-01 12:00:00.123+02:00",
        "2024-03-01T10:00:00.123000+00:00",
    );
    check(
        "2015-10-18 18:01:47,978 INFO",
        "2015-10-18 18:01:47,978",
        "2015-10-18T18:01:47.978000+00:00",
    );
    check(
        "t=2024-03-01T12:00:00.123456789-0500",
        "2024-03-01T12:00:00.123456789-0500",
        "2024-03-01T17:00:00.123456+00:00",
    );
    check(
        "2024-03-01T12:30+01:00 short",
        "2024-03-01T12:30+01:00",
        "2024-03-01T11:30:00.000000+00:00",
    );
    check(
        "20240301T120000Z basic",
        "20240301T120000Z",
        "2024-03-01T12:00:00.000000+00:00",
    );
}

#[test]
fn syslog_rfc_3164_and_5424() {
    check(
        "Jun 14 15:16:01 combo sshd[1]: x",
        "Jun 14 15:16:01",
        "2023-06-14T15:16:01.000000+00:00",
    );
    check(
        "Jul  1 09:00:55 host kernel[0]: x",
        "Jul  1 09:00:55",
        "2023-07-01T09:00:55.000000+00:00",
    );
    check(
        "Mar  2 23:00:00 host",
        "Mar  2 23:00:00",
        "2024-03-02T23:00:00.000000+00:00",
    );
    check(
        "<34>1 2003-10-11T22:14:15.003Z mymachine su - ID47",
        "2003-10-11T22:14:15.003Z",
        "2003-10-11T22:14:15.003000+00:00",
    );
}

#[test]
fn apache_and_ctime() {
    check(
        "127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] \"GET /a.gif HTTP/1.0\" 200 2326",
        "10/Oct/2000:13:55:36 -0700",
        "2000-10-10T20:55:36.000000+00:00",
    );
    check(
        "[Sun Dec 04 04:47:44 2005] [notice] ok",
        "Sun Dec 04 04:47:44 2005",
        "2005-12-04T04:47:44.000000+00:00",
    );
    check(
        "Sun Dec  4 04:47:44 PST 2005 x",
        "Sun Dec  4 04:47:44 PST 2005",
        "2005-12-04T12:47:44.000000+00:00",
    );
}

#[test]
fn epoch_seconds_and_millis() {
    check(
        "- 1117838570 2005.06.03 R02",
        "1117838570",
        "2005-06-03T22:42:50.000000+00:00",
    );
    check(
        "ts=1700000000.25 x",
        "1700000000.25",
        "2023-11-14T22:13:20.250000+00:00",
    );
    check(
        "{\"t\":1700000000123,\"m\":1}",
        "1700000000123",
        "2023-11-14T22:13:20.123000+00:00",
    );
}

#[test]
fn loghub_shapes() {
    check(
        "03-17 16:13:38.811  1702  2395 D",
        "03-17 16:13:38.811",
        "2024-03-17T16:13:38.811000+00:00"
            .replace("2024", "2023")
            .as_str(),
    );
    check(
        "081109 203615 148 INFO dfs",
        "081109 203615",
        "2008-11-09T20:36:15.000000+00:00",
    );
    check(
        "20171223-22:15:29:606|Step_LSC|3",
        "20171223-22:15:29:606",
        "2017-12-23T22:15:29.606000+00:00",
    );
    check(
        "20171223-22:32:0:95|Step_LSC|3",
        "20171223-22:32:0:95",
        "2017-12-23T22:32:00.095000+00:00",
    );
    check(
        "[10.30 16:49:06] chrome.exe -",
        "10.30 16:49:06",
        "2023-10-30T16:49:06.000000+00:00",
    );
    check(
        "17/06/09 20:10:40 INFO executor",
        "17/06/09 20:10:40",
        "2017-06-09T20:10:40.000000+00:00",
    );
    check(
        "2016-09-28 04:30:30, Info CBS",
        "2016-09-28 04:30:30",
        "2016-09-28T04:30:30.000000+00:00",
    );
    check(
        "134681 node-246 unix.hw state_change.unavailable 1077804742 1 Component",
        "1077804742",
        "2004-02-26T14:12:22.000000+00:00",
    );
}

#[test]
fn bare_numbers_pids_and_versions_are_not_times() {
    let mut ex = auto();
    for event in [
        "134681 node-246 unix.hw state_change.unavailable",
        "pid 12345 exited with 1",
        "Loaded Servicing Stack v6.1.7601.23505 with Core",
        "blk_38865049064139660 size 67108864",
        "appattempt_1445144423722_0020_000001",
        "id 12345678901 too long for epoch seconds",
        "version 2.4.1 build 20240301",
        "10.251.73.220:50010 is added",
        "count=1700000000x",
    ] {
        assert_eq!(ex.extract(event, NOW), None, "{event:?}");
        assert_eq!(ex.extract_slow(event, NOW), None, "{event:?}");
    }
}

#[test]
fn days_ago_and_hence_window() {
    let mut ex = Extractor::new(ExtractConfig::default()).unwrap();
    assert_eq!(
        ex.extract("2005-12-04 04:47:44 old", NOW),
        None,
        "older than 2000 days"
    );
    assert_eq!(
        ex.extract("2024-03-05 00:00:00 future", NOW),
        None,
        "more than 2 days ahead"
    );
    assert!(ex.extract("2024-03-03 23:00:00 soon", NOW).is_some());
    assert!(ex.extract("2019-01-01 00:00:00 ok", NOW).is_some());
    // An epoch-looking number far from now is not a time.
    assert_eq!(ex.extract("id 1000000000 x", NOW), None);
}

#[test]
fn modes_current_and_none_never_extract() {
    for mode in [Mode::Current, Mode::None] {
        let mut ex = Extractor::new(ExtractConfig {
            mode,
            ..ExtractConfig::default()
        })
        .unwrap();
        assert_eq!(ex.extract("2024-03-01T12:00:00Z x", NOW), None);
    }
}

#[test]
fn time_prefix_lookahead_and_zone() {
    let cfg = ExtractConfig {
        time_prefix: Some(r"^\S+ ".into()),
        ..ExtractConfig::default()
    };
    let mut ex = Extractor::new(cfg.clone()).unwrap();
    let line = "nova-api.log.1.2024-02-16_13:53:08 2024-02-16 00:00:00.008 25746 INFO";
    let f = ex.extract(line, NOW).unwrap();
    assert_eq!(&line[f.start..f.end], "2024-02-16 00:00:00.008");
    assert_eq!(ex.extract("noprefix", NOW), None, "prefix must match");

    let short = ExtractConfig {
        max_lookahead: 10,
        ..ExtractConfig::default()
    };
    let mut ex = Extractor::new(short).unwrap();
    assert_eq!(
        ex.extract("0123456789 2024-03-01 12:00:00", NOW),
        None,
        "beyond lookahead"
    );
    assert!(
        ex.extract("1709294400 rest", NOW).is_some(),
        "epoch fits in 10 bytes"
    );

    let ny = ExtractConfig {
        tz: Zone::parse("America/New_York").unwrap(),
        ..ExtractConfig::default()
    };
    let f = Extractor::new(ny)
        .unwrap()
        .extract("2024-03-01 07:00:00 x", NOW)
        .unwrap();
    assert_eq!(strftime(f.time, "%H", Zone::Utc), "12");

    assert!(matches!(
        Extractor::new(ExtractConfig {
            time_prefix: Some("(".into()),
            ..ExtractConfig::default()
        }),
        Err(TimeError::BadPrefix { .. })
    ));
}

#[test]
fn explicit_time_format() {
    let cfg = ExtractConfig {
        time_format: Some("%d.%m.%Y %Hh%M".into()),
        ..ExtractConfig::default()
    };
    let mut ex = Extractor::new(cfg).unwrap();
    let f = ex.extract("at 01.03.2024 12h30 something", NOW).unwrap();
    assert_eq!((f.start, f.end), (3, 19));
    assert_eq!(strftime(f.time, "%F %T", Zone::Utc), "2024-03-01 12:30:00");
    // The automatic table is not consulted when TIME_FORMAT is set.
    assert_eq!(ex.extract("2024-03-01T12:00:00Z", NOW), None);
    assert!(matches!(
        Extractor::new(ExtractConfig {
            time_format: Some("%Q%".into()),
            ..ExtractConfig::default()
        }),
        Err(TimeError::BadFormat { .. })
    ));
}

/// The scan visits a word once, at its first byte, then the byte right after it: a format that
/// leads with punctuation is found glued to the word before it.
#[test]
fn format_leading_with_punctuation_right_after_a_word() {
    for (format, event, start) in [
        ("[%d/%b/%Y:%H:%M:%S", "GET[01/Mar/2024:12:30:00] ok", 3),
        ("(%H:%M:%S)", "thread-7(12:30:00) ok", 8),
        ("%H:%M:%S", "x_y 12:30:00 ok", 4),
    ] {
        let cfg = ExtractConfig {
            time_format: Some(format.into()),
            ..ExtractConfig::default()
        };
        let mut ex = Extractor::new(cfg).unwrap();
        let f = ex.extract(event, NOW);
        assert_eq!(f.map(|f| f.start), Some(start), "{format:?} in {event:?}");
    }
}

#[test]
fn fast_path_follows_a_changing_layout() {
    let mut ex = auto();
    let a = ex.extract("2024-03-01 12:00:00 first", NOW).unwrap();
    let b = ex.extract("2024-03-01 12:00:01 second", NOW).unwrap();
    assert_eq!(b.time - a.time, 1_000_000);
    // A different shape at a different offset falls back to the slow path.
    let c = ex
        .extract("host [Sun Dec 04 04:47:44 2005] x", NOW)
        .unwrap();
    assert_eq!((c.start, c.end), (6, 30));
    // An earlier stamp in a later event is found by the slow path when the remembered offset fails.
    let d = ex.extract("x Mar 01 11:00:00", NOW).unwrap();
    assert_eq!(d.start, 2);
}

#[test]
fn non_ascii_events_do_not_panic() {
    let mut ex = auto();
    let e = "é日本語 2024-03-01 12:00:00 ünïcödé";
    let f = ex.extract(e, NOW).unwrap();
    assert_eq!(&e[f.start..f.end], "2024-03-01 12:00:00");
    let long = "é".repeat(100) + "2024-03-01 12:00:00";
    assert_eq!(ex.extract(&long, NOW), None, "beyond 128 bytes");
    assert_eq!(ex.extract("", NOW), None);
}

/// The naive twin of the slow path: every pattern at every word-boundary offset, no lead filter.
fn naive(ex: &Extractor, event: &str, now: Micros) -> Option<Found> {
    let (start, end) = ex.window(event)?;
    let b = event.as_bytes();
    (start..end)
        .filter(|&at| at == start || auto::can_begin_at(b, at))
        .find_map(|at| (0..ex.table().patterns.len()).find_map(|pi| ex.try_at(pi, b, at, end, now)))
}

proptest! {
    #[test]
    fn lead_filter_skips_only_hopeless_attempts(
        parts in prop::collection::vec(prop::sample::select(vec![
            "2024-03-01", "12:00:00", ",978", ".5", "T", " ", "  ", "Z", "+02:00", " -0700", "[",
            "]", "/", "Mar", "Sun", "Jul", "1", "01", "17", "081109", "203615", "1709294400",
            "1709294400123", "20240301", "-", ":", "10/Oct/2024", "x", "é", "_", "PM", "UTC",
            "\t", "at", "java", "(", "286)", "Monitor", "Dec", "mars", "4",
        ]), 0..12),
        hence in 0u32..3,
        // The automatic table, then formats leading with a byte, a padded day, digits, a name.
        format in prop::sample::select(vec![
            None, Some("[%d/%b/%Y:%H:%M:%S"), Some("%e %b %H:%M"), Some("%H:%M:%S"), Some("%b %d"),
        ]),
    ) {
        let event: String = parts.concat();
        let cfg = ExtractConfig {
            max_days_hence: hence,
            time_format: format.map(str::to_string),
            ..ExtractConfig::default()
        };
        let ex = Extractor::new(cfg).unwrap();
        prop_assert_eq!(ex.extract_slow(&event, NOW), naive(&ex, &event, NOW), "{:?}", event);
    }
}
