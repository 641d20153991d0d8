//! Small helpers shared by the integration tests: write corpora with the real index writer, run
//! searches through both the index path and the naive twin, render rows for comparison.
#![allow(dead_code)]

use std::path::Path;

use lode_event::{Event, Micros};
use lode_search::ops::columns;
use lode_search::row::Row;
use lode_search::run::{run_with, RunOptions, SearchRequest, SearchStats};
use lode_search::SearchError;
use lode_store::{IndexConfig, IndexWriter};

/// µs per second.
pub const SEC: Micros = 1_000_000;
/// The fixed "now" of every test search (2023-11-14T22:13:20Z).
pub const NOW_SECS: i64 = 1_700_000_000;

/// An event with the test defaults (`source` = `test.log`, index time = event time).
pub fn event(time: Micros, host: &str, sourcetype: &str, raw: &str) -> Event {
    Event {
        time,
        index_time: time / SEC,
        raw: raw.to_string(),
        host: host.into(),
        source: "test.log".into(),
        sourcetype: sourcetype.into(),
        index: String::new().into(),
        linecount: Event::count_lines(raw),
        fields: Vec::new(),
    }
}

/// One append to an index, then optionally a roll of the hot bucket to warm.
pub struct Chunk {
    /// Events appended together.
    pub events: Vec<Event>,
    /// Roll the hot bucket afterwards (else the next chunk goes to the same hot bucket).
    pub roll: bool,
}

/// Writes `chunks` into index `name` under `root`; the last hot bucket is left hot unless the
/// last chunk rolls.
pub fn write_index(root: &Path, name: &str, chunks: &[Chunk]) {
    let cfg = IndexConfig {
        name: name.to_string(),
        ..IndexConfig::default()
    };
    let (w, _) = IndexWriter::open(&root.join(name), cfg).expect("open index");
    for c in chunks {
        let evs: Vec<Event> = c
            .events
            .iter()
            .cloned()
            .map(|mut e| {
                e.index = name.into();
                e
            })
            .collect();
        w.append(&evs).expect("append");
        if c.roll {
            w.roll().expect("roll");
        }
    }
    drop(w);
}

/// A request with the test defaults.
pub fn request(query: &str, force_scan: bool) -> SearchRequest {
    SearchRequest {
        query: query.to_string(),
        earliest: None,
        latest: None,
        now: NOW_SECS * SEC,
        tz: lode_time::Zone::Utc,
        explain: true,
        force_scan,
    }
}

/// Batch pipelines every split search is also run with (1 = single worker).
pub const PIPELINES: &[usize] = &[1, 2, 4];

/// Options with `n` batch pipelines.
pub fn pipelines(n: usize) -> RunOptions {
    RunOptions {
        batch_search_max_pipeline: n,
        ..RunOptions::default()
    }
}

/// Runs `req` over `root` with the default options, collecting every emitted row.
pub fn collect(root: &Path, req: &SearchRequest) -> Result<(Vec<Row>, SearchStats), SearchError> {
    collect_with(root, req, &RunOptions::default())
}

/// Runs `req` over `root` with `opts`, collecting every emitted row.
pub fn collect_with(
    root: &Path,
    req: &SearchRequest,
    opts: &RunOptions,
) -> Result<(Vec<Row>, SearchStats), SearchError> {
    let mut rows = Vec::new();
    let stats = run_with(root, req, opts, &mut |batch| {
        rows.extend(batch);
        Ok(())
    })?;
    Ok((rows, stats))
}

/// Every field of every row as `name=value` strings (search-time fields extracted first).
pub fn flatten(rows: &mut [Row]) -> Vec<Vec<String>> {
    rows.iter_mut()
        .map(|r| {
            r.extract_all();
            r.fields().map(|(n, v)| format!("{n}={v}")).collect()
        })
        .collect()
}

/// Rows as CSV lines (header first) in Splunk's column order.
pub fn to_csv(rows: &[Row], transforming: bool) -> Vec<String> {
    let cols = columns(rows, transforming);
    let mut out = vec![cols
        .iter()
        .map(|c| csv_cell(c))
        .collect::<Vec<_>>()
        .join(",")];
    for r in rows {
        let cells: Vec<String> = cols
            .iter()
            .map(|c| {
                r.peek(c)
                    .map(|v| csv_cell(&v.to_string()))
                    .unwrap_or_default()
            })
            .collect();
        out.push(cells.join(","));
    }
    out
}

/// One CSV cell, quoted when it holds a comma, quote or line break.
pub fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The rows of `query` over `root` by the index path, checked equal to the naive twin's, and
/// the index path's stats.
pub fn same_as_naive(root: &std::path::Path, query: &str) -> (Vec<Vec<String>>, SearchStats) {
    let (mut fast, stats) = collect(root, &request(query, false)).unwrap();
    let (mut slow, _) = collect(root, &request(query, true)).unwrap();
    let fast = flatten(&mut fast);
    assert_eq!(
        fast,
        flatten(&mut slow),
        "index path and naive twin differ for {query}"
    );
    (fast, stats)
}
