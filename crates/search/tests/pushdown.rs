//! The count pushdown (stats/timechart/top counted per dictionary id) and the newest-first cursor's partial
//! selection, on buckets large enough for both the dense path (whole columns) and the sparse one
//! (column blocks of the candidates only), with times out of arrival order and ties: the index
//! path must give exactly the naive twin's rows, with 1, 2 and 4 pipelines.

mod common;

use common::*;

/// Events per warm bucket: several column blocks (4096 events each).
const PER: usize = 10_000;

/// Two warm buckets and a hot one. Event `i` of bucket `b`: host `h<i % 7>` (`db<i % 3>` in the
/// hot bucket; `H3` for every fifth event of bucket 1, whose field term collides with `h3`), sourcetype `st<i % 3>`, source `s<i % 2>.log`; `common` in every third event,
/// `rare` in every 5,000th (sparse: fewer than one per column block); times shuffled within a 3-hour window, with ties.
fn corpus(root: &std::path::Path) {
    let base = 1_600_000_000i64;
    let chunk = |b: usize, n: usize, roll: bool| Chunk {
        events: (0..n)
            .map(|i| {
                let shuffled = ((i * 7919 + b * 13) % n) / 2;
                let t = (base + (b * 3600) as i64 + shuffled as i64) * SEC;
                let mut words = vec![format!("seq{i}")];
                if i % 3 == 0 {
                    words.push("common".into());
                }
                if i % 5000 == 7 {
                    words.push("rare".into());
                }
                let host = if b == 1 && i % 5 == 0 {
                    // Same field term as `h3`: counting by postings must step aside.
                    "H3".to_string()
                } else if roll {
                    format!("h{}", i % 7)
                } else {
                    format!("db{}", i % 3)
                };
                let mut e = event(t, &host, &format!("st{}", i % 3), &words.join(" "));
                e.source = format!("s{}.log", i % 2).into();
                e
            })
            .collect(),
        roll,
    };
    write_index(
        root,
        "main",
        &[
            chunk(0, PER, true),
            chunk(1, PER, true),
            chunk(2, 500, false),
        ],
    );
}

/// `q`'s rows by the index path (1, 2, 4 pipelines) equal the naive twin's; returns the explain
/// lines of the last run.
fn same_as_naive(root: &std::path::Path, q: &str) -> Vec<String> {
    let (mut slow, _) = collect(root, &request(q, true)).unwrap();
    let slow = flatten(&mut slow);
    assert!(!slow.is_empty(), "{q}: no rows");
    let mut explain = Vec::new();
    for &n in PIPELINES {
        let (mut fast, stats) = collect_with(root, &request(q, false), &pipelines(n)).unwrap();
        assert_eq!(
            flatten(&mut fast),
            slow,
            "{q} with {n} pipelines: {:#?}",
            stats.explain
        );
        explain = stats.explain;
    }
    explain
}

#[test]
fn counted_rows_equal_rows_per_event() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    for clause in [
        "common",
        "rare",
        "common host=h3",
        "rare OR host=db1",
        "common earliest=1600003000 latest=1600005000",
        "rare latest=1600003700",
        "*",
    ] {
        for cmd in [
            "stats count by host",
            "stats count",
            "stats count by index",
            "stats count dc(source) values(host) min(host) max(sourcetype) by sourcetype, splunk_server",
            "stats count(host) by source, host",
            "top host",
            "top limit=2 sourcetype by host",
            "rare source",
            "timechart span=1h count by host",
            "timechart count",
            "timechart span=10m dc(host) by sourcetype",
            "timechart span=1h dc(source) count max(host)",
            "timechart limit=2 count by host",
        ] {
            let q = format!("{clause} | {cmd}");
            let explain = same_as_naive(dir.path(), &q);
            let pushed = explain.iter().any(|l| l.starts_with("stats pushdown"));
            // Exact clauses push down, and so do clauses checked in place on the stored events;
            // a clause checked on rows of the column fields does not.
            let column_rows = explain
                .iter()
                .any(|l| l.starts_with("rows: from bucket columns only"));
            assert_eq!(pushed, !column_rows, "{q}: {explain:#?}");
            if matches!(clause, "common" | "rare") {
                assert!(pushed, "{q}: no pushdown in {explain:#?}");
            }
            let has = |path: &str| explain.iter().any(|l| l.ends_with(path));
            if clause == "common" && cmd == "stats count by host" {
                // Bucket 0 by postings; bucket 1's colliding `H3`/`h3` falls back to columns.
                assert!(has("counted: field-term postings intersected with the candidates"));
                assert!(has("counted: whole id columns"), "{explain:#?}");
            }
            if clause == "rare" && cmd == "top limit=2 sourcetype by host" {
                assert!(has("counted: id column blocks of the candidates"), "{explain:#?}");
            }
            if clause == "common" && cmd == "stats count" {
                assert!(has("counted: number of candidates"), "{explain:#?}");
            }
        }
    }
}

#[test]
fn pushdown_is_not_used_when_rows_are_needed() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    for q in [
        "common | stats count by _time",
        "common | stats earliest(host) by sourcetype",
        "common | timechart max(_time)",
        "common | eval x=1 | stats count by host",
    ] {
        let explain = same_as_naive(dir.path(), q);
        assert!(
            !explain.iter().any(|l| l.starts_with("stats pushdown")),
            "{q}: {explain:#?}"
        );
    }
}

#[test]
fn newest_first_by_selection_equals_sorting() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    for q in [
        "common | head 100",
        "common | head 5",
        "rare | head 100",
        // Reads every candidate: selection chunks, then the sorted rest.
        "common host=h2",
        "common earliest=1600003000 latest=1600005000 | head 3000",
        "* | head 2500",
    ] {
        same_as_naive(dir.path(), q);
    }
}

/// Events for the in-place check: key=value text, JSON events (arrays, nested objects, escapes,
/// a repeated key), index-time fields, a `host=` key that the built-in `host` shadows, and
/// numbers.
fn kv_corpus(root: &std::path::Path) {
    let base = 1_600_000_000i64;
    let chunk = |b: usize, n: usize, roll: bool| {
        Chunk {
        events: (0..n)
            .map(|i| {
                let t = (base + (b * 3600 + i) as i64) * SEC;
                let common = if i % 3 == 0 { " common" } else { "" };
                let raw = match i % 4 {
                    0 => format!("seq{i}{common} k=v{} n={} host=zzz", i % 5, i % 11),
                    1 if i % 8 == 5 => format!(
                        r#"{{"k": ["v{}", "w1"], "n": {}, "o": {{"p": "a\"b"}}, "seq": "seq{i}{common}", "n": {}}}"#,
                        i % 5,
                        i % 11,
                        i % 3
                    ),
                    1 => format!(
                        r#"{{"k": "v{}", "n": {}, "seq": "seq{i}{common}", "o": {{"p": {}.25}}}}"#,
                        i % 5,
                        i % 11,
                        i % 2
                    ),
                    2 => format!("seq{i}{common} k=\"v{} quoted\" n={}.5", i % 5, i % 11),
                    _ => format!("seq{i}{common} other=1 k.x=v{}", i % 5),
                };
                let mut e = event(t, &format!("h{}", i % 7), &format!("st{}", i % 3), &raw);
                if i % 6 == 0 {
                    e.fields.push(("f".into(), format!("x{}", i % 4)));
                    e.fields.push(("k".into(), "indexed".into()));
                }
                e
            })
            .collect(),
        roll,
    }
    };
    write_index(root, "main", &[chunk(0, 6000, true), chunk(1, 300, false)]);
}

#[test]
fn events_checked_in_place_equal_full_rows() {
    let dir = tempfile::tempdir().unwrap();
    kv_corpus(dir.path());
    for clause in [
        "common k=v1",
        "k=v1",
        "common k!=v1",
        "common NOT k=v1",
        "k=v* host=h3",
        "common k=indexed",
        "f=x2",
        "common (host=zzz OR k=v4)",
        "common n>5",
        "n<=3.5",
        "k_x=v2",
        "common linecount=1",
        "common (k=v2 OR n=4)",
        "k=\"v3 quoted\"",
        "common NOT missing=*",
        "common k{}=w1",
        "o.p=*",
        "o.p>0.5",
        "common n=2",
        "k{}=v3",
    ] {
        for cmd in [
            "stats count",
            "stats count by host",
            "timechart span=1h count by sourcetype",
            "top source",
        ] {
            let q = format!("{clause} | {cmd}");
            let explain = same_as_naive(dir.path(), &q);
            // Checked in place, then counted (these commands only count) without rows.
            let in_place = explain.iter().any(|l| {
                l.starts_with("stats pushdown: candidates checked in place")
                    || l.starts_with("rows: events checked in place")
            });
            let counted = explain.iter().any(|l| l.starts_with("stats pushdown"));
            let exact = explain.iter().any(|l| l.starts_with("verify: none"));
            assert_eq!(in_place, !exact, "{q}: {explain:#?}");
            assert!(counted, "{q}: {explain:#?}");
        }
    }
    // Conjuncts the term query decides are not re-checked.
    let explain = same_as_naive(dir.path(), "common k=v1 | stats count");
    assert!(
        explain
            .iter()
            .any(|l| l
                == "verify: k=v1 (conjuncts the term query decides exactly are not re-checked)"),
        "{explain:#?}"
    );
}
