//! Merging stage: SHOULD_LINEMERGE rules, timestamps and their fallbacks, linecount.

mod common;

use common::*;

const JAVA: &str = "2017-12-30 10:00:00,001 INFO  start\n\
2017-12-30 10:00:01,500 ERROR failed\n\
java.lang.IllegalStateException: boom\n\
\tat com.example.A.run(A.java:10)\n\
\tat java.lang.Thread.run(Thread.java:745)\n\
Caused by: java.io.IOException: disk\n\
\t... 2 more\n\
2017-12-30 10:00:02,000 INFO  after\n";

#[test]
fn java_stack_traces_are_merged() {
    let (s, _) = settings_with("", "");
    let ev = run(&s, "log4j", JAVA.as_bytes());
    assert_eq!(ev.len(), 3);
    assert_eq!(ev[1].linecount, 6);
    assert!(ev[1]
        .raw
        .starts_with("2017-12-30 10:00:01,500 ERROR failed\njava.lang.IllegalStateException"));
    assert!(ev[1].raw.ends_with("\t... 2 more"));
    assert_eq!(ev[1].time, 1_514_628_001_500_000);
    assert_eq!(ev[2].linecount, 1);
}

#[test]
fn default_sourcetype_breaks_only_before_dates() {
    // An unknown sourcetype gets Splunk's [default]: SHOULD_LINEMERGE + BREAK_ONLY_BEFORE_DATE.
    let (s, _) = settings_with("", "");
    let ev = run(&s, "custom", JAVA.as_bytes());
    assert_eq!(
        ev.iter().map(|e| e.linecount).collect::<Vec<_>>(),
        [1, 6, 1]
    );
}

#[test]
fn max_events_limits_merged_lines() {
    let (s, _) = settings_with(
        "[m]\nBREAK_ONLY_BEFORE = ^START\nBREAK_ONLY_BEFORE_DATE = false\nMAX_EVENTS = 2\n",
        "",
    );
    let ev = run(&s, "m", b"START a\nb\nc\nSTART d\ne\n");
    assert_eq!(raws(&ev), ["START a\nb", "c", "START d\ne"]);
}

#[test]
fn must_break_after_and_must_not_break_rules() {
    let props =
        "[m]\nBREAK_ONLY_BEFORE_DATE = false\nMUST_BREAK_AFTER = ;$\nMUST_NOT_BREAK_AFTER = \\{$\n\
                 MUST_NOT_BREAK_BEFORE = ^\\s\n";
    let (s, _) = settings_with(props, "");
    let ev = run(&s, "m", b"a\nb;\nc {\nd\ne;\n  f\ng\n");
    assert_eq!(raws(&ev), ["a", "b;", "c {\nd\ne;", "  f", "g"]);
}

#[test]
fn time_falls_back_to_previous_event_then_ingest_time() {
    let (s, _) = settings_with(
        "[t]\nSHOULD_LINEMERGE = false\nTIME_FORMAT = %Y-%m-%d %H:%M:%S\n",
        "",
    );
    let ev = run(
        &s,
        "t",
        b"no time yet\n2017-12-30 01:02:03 first\nno time here\n",
    );
    assert_eq!(ev[0].time, NOW);
    assert_eq!(ev[1].time, 1_514_595_723_000_000);
    assert_eq!(ev[2].time, ev[1].time);
    assert!(ev.iter().all(|e| e.index_time == NOW / 1_000_000));
    let (s, _) = settings_with(
        "[c]\nSHOULD_LINEMERGE = false\nDATETIME_CONFIG = CURRENT\n",
        "",
    );
    assert_eq!(run(&s, "c", b"2001-01-01 00:00:00 old\n")[0].time, NOW);
}

#[test]
fn timestamps_too_old_fall_back() {
    // MAX_DAYS_AGO = 2000 by default: a 2005 date is rejected at a 2017 ingest time.
    let (s, _) = settings_with(
        "[t]\nSHOULD_LINEMERGE = false\nTIME_FORMAT = %Y-%m-%d %H:%M:%S\n",
        "",
    );
    assert_eq!(run(&s, "t", b"2005-01-01 00:00:00 x\n")[0].time, NOW);
}
