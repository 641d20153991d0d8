//! `tstats` over index-time fields (HEC `fields`, `WRITE_META` transforms): the same answers as
//! `stats` over the events, with 1, 2 and 4 pipelines and the naive scan, over a warm and a hot
//! bucket, without reading raw text.

mod common;

use std::path::Path;

use common::*;
use lode_event::Event;
use lode_search::run::RunOptions;

/// An event with index-time fields; the raw text holds none of them (as HEC JSON events whose
/// `fields` are outside `event`).
fn hec(secs: i64, host: &str, raw: &str, fields: &[(&str, &str)]) -> Event {
    let mut e = event((NOW_SECS - 1000 + secs) * SEC, host, "hec", raw);
    e.fields = fields
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    e
}

fn corpus(root: &Path) {
    let evs = [
        hec(
            0,
            "web01",
            "request one",
            &[("status", "200"), ("dc", "east"), ("bytes", "512")],
        ),
        hec(
            10,
            "web02",
            "request two",
            &[("status", "404"), ("dc", "west"), ("bytes", "128")],
        ),
        hec(
            20,
            "web01",
            "request three",
            &[("status", "200"), ("dc", "west"), ("bytes", "2048")],
        ),
        hec(30, "web03", "no fields here", &[]),
        hec(
            3600,
            "web02",
            "request four",
            &[("status", "500"), ("dc", "east"), ("bytes", "64")],
        ),
        hec(
            3610,
            "web01",
            "request five",
            &[("status", "200"), ("dc", "East"), ("bytes", "1000")],
        ),
        hec(
            3620,
            "web03",
            "request six",
            &[("status", "404"), ("bytes", "x")],
        ),
    ];
    write_index(
        root,
        "main",
        &[
            Chunk {
                events: evs[..4].to_vec(),
                roll: true,
            },
            Chunk {
                events: evs[4..].to_vec(),
                roll: false,
            },
        ],
    );
}

/// CSV lines of `q`; the same with 1, 2 and 4 pipelines and the naive scan.
fn csv(root: &Path, q: &str) -> Vec<String> {
    let mut first: Option<Vec<String>> = None;
    let ways = PIPELINES.iter().map(|&n| (false, n)).chain([(true, 1)]);
    for (force_scan, n) in ways {
        let opts = RunOptions {
            batch_search_max_pipeline: n,
            ..RunOptions::default()
        };
        let (rows, stats) = collect_with(root, &request(q, force_scan), &opts)
            .unwrap_or_else(|e| panic!("{q}: {e}"));
        let got = to_csv(&rows, stats.transforming);
        match &first {
            None => first = Some(got),
            Some(f) => assert_eq!(&got, f, "{q}: {n} pipelines, naive={force_scan}"),
        }
    }
    first.unwrap_or_default()
}

fn err(root: &Path, q: &str) -> String {
    match collect_with(root, &request(q, false), &RunOptions::default()) {
        Ok((rows, _)) => panic!("{q}: expected an error, got {} rows", rows.len()),
        Err(e) => e.to_string(),
    }
}

#[test]
fn tstats_over_index_time_fields_equals_stats_over_events() {
    let dir = tempfile::tempdir().unwrap();
    corpus(dir.path());
    let root = dir.path();
    let pairs = [
        ("| tstats count by status", "* | stats count by status"),
        (
            "| tstats count dc(dc) AS dcs values(dc) where index=main by status",
            "index=main | stats count dc(dc) AS dcs values(dc) by status",
        ),
        (
            "| tstats sum(bytes) avg(bytes) min(bytes) max(bytes) by host",
            "* | stats sum(bytes) avg(bytes) min(bytes) max(bytes) by host",
        ),
        (
            "| tstats count where status=200 by host",
            "status=200 | stats count by host",
        ),
        (
            "| tstats count where status=404 OR dc=west by host, status",
            "status=404 OR dc=west | stats count by host, status",
        ),
        (
            "| tstats count where dc=east NOT host=web02",
            "dc=east NOT host=web02 | stats count",
        ),
        ("| tstats count by dc", "* | stats count by dc"),
        (
            "| tstats count where status=2* by dc",
            "status=2* | stats count by dc",
        ),
        (
            "| tstats count where status=999",
            "status=999 | stats count",
        ),
        (
            "| tstats count sum(bytes) by _time, status span=1h",
            "* | bin _time span=1h | stats count sum(bytes) by _time, status",
        ),
        (
            "| tstats count by _time, host, dc span=30m",
            "* | bin _time span=30m | stats count by _time, host, dc",
        ),
    ];
    for (t, s) in pairs {
        let got = csv(root, t);
        assert!(got.len() > 1, "{t}: no rows");
        assert_eq!(got, csv(root, s), "{t}");
    }
    assert_eq!(
        csv(root, "| tstats count where index=main by status"),
        ["status,count", "200,3", "404,2", "500,1"]
    );
    assert_eq!(
        csv(
            root,
            "| tstats count where index=main by _time, status span=1h | eval n=count*10"
        ),
        [
            "_time,status,count,n",
            "1699995600,200,2,20",
            "1699995600,404,1,10",
            "1699999200,200,1,10",
            "1699999200,404,1,10",
            "1699999200,500,1,10"
        ]
    );
    assert_eq!(
        csv(root, "| tstats sum(bytes) AS b by _time span=1h"),
        ["_time,b", "1699995600,2688", "1699999200,1064"]
    );
    // Only the index: no raw slice is read.
    let mut req = request("| tstats count by status", false);
    req.explain = true;
    let (_, stats) = collect_with(root, &req, &RunOptions::default()).unwrap();
    assert!(
        stats
            .explain
            .iter()
            .any(|l| l.contains("no raw slice read")),
        "{:?}",
        stats.explain
    );
    assert!(err(root, "| tstats count where request by status")
        .contains("search terms need raw events"));
    assert!(err(root, "| tstats count by _raw").contains("'_raw' is not an indexed field"));
    assert!(err(root, "| tstats count where _raw=x").contains("'_raw' is not an indexed field"));
}
