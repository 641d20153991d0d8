//! The golden query suite (STYLE practice 14): every `testdata/golden/*.txt` file holds events,
//! one query and the expected rows, derived by hand. Each file runs through the index path (with
//! 1, 2 and 4 batch pipelines: split searches then merge partial states of several workers) and
//! the naive twin (`force_scan`), over a corpus split into a warm and a hot bucket; every way
//! must give exactly the expected rows.
//!
//! File format (sections in this order; `#` lines are comments):
//! ```text
//! events:                       one event per line: _time (epoch seconds)|host|sourcetype|raw
//! 1700000000|web01|access|GET /index.html status=200
//! query:
//! error | table _time host
//! expected:                     CSV with header, in Splunk's column order
//! _time,host
//! ```
//! `events <index>:` puts the following events into another index (default `main`).

mod common;

use std::path::{Path, PathBuf};

use common::*;
use lode_event::Event;

/// One parsed golden file.
struct Golden {
    /// Events per index, in file order.
    events: Vec<(String, Vec<Event>)>,
    /// The search.
    query: String,
    /// Expected CSV lines, header first.
    expected: Vec<String>,
}

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/golden")
}

fn parse(text: &str) -> Result<Golden, String> {
    let mut g = Golden {
        events: Vec::new(),
        query: String::new(),
        expected: Vec::new(),
    };
    let mut section = "";
    for (no, line) in text.lines().enumerate() {
        if line.starts_with('#') {
            continue;
        }
        if let Some(rest) = line.strip_prefix("events") {
            if let Some(name) = rest.strip_suffix(':') {
                let name = name.trim();
                let name = if name.is_empty() { "main" } else { name };
                g.events.push((name.to_string(), Vec::new()));
                section = "events";
                continue;
            }
        }
        match line {
            "query:" | "expected:" => {
                section = if line == "query:" {
                    "query"
                } else {
                    "expected"
                };
                continue;
            }
            _ => {}
        }
        match section {
            "events" if !line.trim().is_empty() => {
                let parts: Vec<&str> = line.splitn(4, '|').collect();
                let [time, host, st, raw] = parts[..] else {
                    return Err(format!("line {}: want _time|host|sourcetype|raw", no + 1));
                };
                let secs: f64 = time.parse().map_err(|e| format!("line {}: {e}", no + 1))?;
                let ev = event((secs * 1e6).round() as i64, host, st, raw);
                if let Some((_, evs)) = g.events.last_mut() {
                    evs.push(ev);
                }
            }
            "query" if !line.trim().is_empty() => {
                if !g.query.is_empty() {
                    g.query.push(' ');
                }
                g.query.push_str(line.trim());
            }
            "expected" => g.expected.push(line.trim_end().to_string()),
            _ => {}
        }
    }
    while g.expected.last().is_some_and(|l| l.is_empty()) {
        g.expected.pop();
    }
    if g.query.is_empty() || g.expected.is_empty() {
        return Err("missing query or expected section".into());
    }
    Ok(g)
}

/// Writes each index's events: the first half rolled to a warm bucket, the rest left hot.
fn write(root: &Path, g: &Golden) {
    for (name, evs) in &g.events {
        let half = evs.len() / 2;
        let chunks = [
            Chunk {
                events: evs[..half].to_vec(),
                roll: true,
            },
            Chunk {
                events: evs[half..].to_vec(),
                roll: false,
            },
        ];
        write_index(root, name, &chunks);
    }
}

/// Writes each index's events as three warm buckets, then merges them into one
/// (`lode_store::merge`): searches must not tell the difference.
fn write_merged(root: &Path, g: &Golden) {
    for (name, evs) in &g.events {
        let third = evs.len().div_ceil(3);
        let chunks: Vec<Chunk> = evs
            .chunks(third.max(1))
            .map(|c| Chunk {
                events: c.to_vec(),
                roll: true,
            })
            .collect();
        write_index(root, name, &chunks);
        let dir = root.join(name);
        let buckets = lode_store::list_buckets(&dir).unwrap();
        if buckets.len() >= 2 {
            lode_store::merge::merge(&dir, &buckets, &|| false)
                .unwrap()
                .unwrap();
            lode_store::merge::remove_covered(&dir).unwrap();
        }
    }
}

/// Runs the query with `pipelines` batch pipelines and renders the rows as CSV lines (event rows
/// get their fields extracted, as the CLI does before printing).
fn run_csv(
    root: &Path,
    query: &str,
    force_scan: bool,
    pipelines: usize,
) -> Result<Vec<String>, String> {
    let (mut rows, stats) = collect_with(
        root,
        &request(query, force_scan),
        &common::pipelines(pipelines),
    )
    .map_err(|e| e.to_string())?;
    if !stats.transforming {
        rows.iter_mut().for_each(|r| r.extract_all());
    }
    Ok(to_csv(&rows, stats.transforming))
}

#[test]
fn golden_queries() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("testdata/golden exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "txt"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "golden suite too small: {}", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let g = match parse(&std::fs::read_to_string(file).unwrap()) {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{name}: bad file: {e}"));
                continue;
            }
        };
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), &g);
        let merged = tempfile::tempdir().unwrap();
        write_merged(merged.path(), &g);
        // (label, index root, naive scan, pipelines)
        let mut runs: Vec<(String, &Path, bool, usize)> = PIPELINES
            .iter()
            .map(|&n| (format!("index path, {n} pipelines"), dir.path(), false, n))
            .collect();
        runs.push(("naive scan".into(), dir.path(), true, 1));
        runs.push(("merged bucket".into(), merged.path(), false, 2));
        for (path, root, force_scan, n) in runs {
            match run_csv(root, &g.query, force_scan, n) {
                Ok(got) if got == g.expected => {}
                Ok(got) => failures.push(format!(
                    "{name} ({path}): {}\n  expected:\n    {}\n  got:\n    {}",
                    g.query,
                    g.expected.join("\n    "),
                    got.join("\n    ")
                )),
                Err(e) => failures.push(format!("{name} ({path}): {}: error: {e}", g.query)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} golden failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
