//! `lode bench`: generate a corpus, ingest it, run the standard searches, report.
//!
//! Ingest is measured from the first byte read to the last bucket rolled to warm (so the figure
//! includes building the term index and compressing the raw data), with CPU seconds from
//! `/proc/self/stat`. Every search result is checked against the generator's exact counts: a
//! bench that returns wrong answers fails.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use lode_gen::{GenConfig, GenSummary};
use lode_ingest::SourceMeta;
use lode_node::{Home, Node};
use lode_search::run::{run as run_search, SearchStats};
use lode_search::value::Value;
use serde::Serialize;

use crate::cli::BenchArgs;
use crate::exit::{CliError, CliResult, FAILURE};
use crate::sysstat;

#[derive(Debug, Serialize)]
struct IngestFigures {
    raw_bytes: u64,
    events: u64,
    seconds: f64,
    cpu_seconds: f64,
    mb_per_s: f64,
    mb_per_s_per_core: f64,
    events_per_s: f64,
    stored_bytes: u64,
    stored_pct_of_raw: f64,
    peak_rss_mb: f64,
    /// Warm buckets after ingest, and how many of them are merged ones.
    buckets: usize,
    merged_buckets: usize,
    /// Wall and CPU seconds of closing the index after the last roll: the merges still due.
    close_seconds: f64,
    close_cpu_seconds: f64,
}

#[derive(Debug, Serialize)]
struct SearchFigures {
    class: String,
    query: String,
    runs: usize,
    median_ms: f64,
    p95_ms: f64,
    cpu_ms_median: f64,
    events_matched: u64,
    events_scanned: u64,
    scanned_per_s: f64,
    matched_per_cpu_s: f64,
    buckets_read: u64,
    buckets_skipped: u64,
    correct: bool,
    /// Searches that extract fields at search time: MB of raw text of the scanned events per
    /// CPU-second (events scanned × the corpus's mean event size).
    #[serde(skip_serializing_if = "Option::is_none")]
    raw_mb_per_cpu_s: Option<f64>,
}

#[derive(Debug, Serialize)]
struct Report {
    machine: String,
    corpus_bytes: u64,
    /// Absent with `--reuse` (nothing was ingested).
    #[serde(skip_serializing_if = "Option::is_none")]
    ingest: Option<IngestFigures>,
    searches: Vec<SearchFigures>,
}

/// Where a kept standard bench home records its corpus summary, for `--reuse`.
const SUMMARY_FILE: &str = "bench-summary.json";

mod burst;
mod hec;
mod pipelines;
mod service;

mod batch;

/// Runs the chosen scenario.
pub fn run(args: BenchArgs) -> CliResult {
    if args.reuse && !matches!(args.scenario, crate::cli::BenchScenario::Standard) {
        return Err(CliError::new(
            crate::exit::USAGE,
            "--reuse works with the standard scenario only",
        ));
    }
    match args.scenario {
        crate::cli::BenchScenario::Standard => standard(args),
        crate::cli::BenchScenario::Batch => batch::run(&args),
        crate::cli::BenchScenario::Pipelines => pipelines::run(&args),
        crate::cli::BenchScenario::Service => service::run(&args),
        crate::cli::BenchScenario::Burst => burst::run(&args),
        crate::cli::BenchScenario::Hec => hec::run(&args),
    }
}

/// Generates the corpus of `args` into `<home>/bench-corpus` (its four files and summary).
fn generate(home: &Home, args: &BenchArgs) -> CliResult<(std::path::PathBuf, GenSummary)> {
    home.ensure_layout()?;
    let corpus = home.root().join("bench-corpus");
    eprintln!(
        "lode bench: generating {} of data (seed {})…",
        super::add::human_bytes(args.size),
        args.seed
    );
    let cfg = GenConfig {
        seed: args.seed,
        total_bytes: args.size,
        ..GenConfig::default()
    };
    let bar = crate::progress::bytes(args.size, "generating");
    let summary = lode_gen::write_dir(cfg, &corpus, &mut |n| bar.set_position(n))
        .map_err(|e| CliError::new(FAILURE, format!("generating the corpus failed: {e}")))?;
    bar.finish_and_clear();
    Ok((corpus, summary))
}

/// Generates the corpus of `args` and ingests it into `home`'s `main` index (then deletes it).
fn generate_and_ingest(home: &Home, args: &BenchArgs) -> CliResult<IngestFigures> {
    let (corpus, summary) = generate(home, args)?;
    eprintln!("lode bench: ingesting…");
    let figures = ingest(home, &corpus, &summary)?;
    std::fs::remove_dir_all(&corpus).ok();
    Ok(figures)
}

/// Writes `report` as JSON to `--json FILE` when given.
fn write_json(args: &BenchArgs, report: &impl Serialize) -> CliResult {
    if let Some(path) = &args.json {
        let f = File::create(path)
            .map_err(|e| CliError::new(FAILURE, format!("cannot write {}: {e}", path.display())))?;
        serde_json::to_writer_pretty(f, report)
            .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    }
    Ok(())
}

/// A standard run ingests into `--keep DIR` as it is: index data already there would be
/// searched too and every count would be wrong, so it is refused up front.
fn refuse_old_data(home: &Home) -> CliResult {
    let root = home.index_root();
    let occupied = std::fs::read_dir(&root).is_ok_and(|mut d| d.next().is_some());
    if occupied {
        return Err(CliError::new(
            FAILURE,
            format!(
                "{} already holds index data: remove it, keep another directory, or search it \
                 again with --reuse",
                root.display()
            ),
        ));
    }
    Ok(())
}

/// The standard scenario: generate, ingest, the four search classes.
fn standard(args: BenchArgs) -> CliResult {
    let tmp;
    let home_dir = match &args.keep {
        Some(p) => p.clone(),
        None => {
            tmp = tempfile::Builder::new().prefix("lode-bench").tempdir()?;
            tmp.path().to_path_buf()
        }
    };
    let home = Home::new(&home_dir);
    let summary_path = home_dir.join(SUMMARY_FILE);
    let (summary, ingest) = if args.reuse {
        let bytes = std::fs::read(&summary_path).map_err(|e| {
            CliError::new(
                FAILURE,
                format!(
                    "--reuse: cannot read {} (written by a standard run with --keep): {e}",
                    summary_path.display()
                ),
            )
        })?;
        let summary: GenSummary = serde_json::from_slice(&bytes)
            .map_err(|e| CliError::new(FAILURE, format!("{}: {e}", summary_path.display())))?;
        (summary, None)
    } else {
        refuse_old_data(&home)?;
        let (corpus, summary) = generate(&home, &args)?;
        eprintln!("lode bench: ingesting…");
        let ingest = ingest(&home, &corpus, &summary)?;
        std::fs::remove_dir_all(&corpus).ok();
        let json = serde_json::to_vec_pretty(&summary).expect("a summary serializes");
        std::fs::write(&summary_path, json).map_err(|e| {
            CliError::new(
                FAILURE,
                format!("cannot write {}: {e}", summary_path.display()),
            )
        })?;
        (summary, Some(ingest))
    };

    eprintln!("lode bench: searching…");
    let mut searches = Vec::new();
    let wanted = |class: &str| args.class.is_empty() || args.class.iter().any(|c| c == class);
    for planted in summary.planted.iter().filter(|p| wanted(&p.class)) {
        for (suffix, stats) in [(" | stats count by host", true), (" | head 100", false)] {
            let query = format!("{}{}", planted.search, suffix);
            let expected = if stats {
                planted.events
            } else {
                planted.events.min(100)
            };
            searches.push(measure(
                &home,
                &planted.class,
                &query,
                args.runs,
                expected,
                stats,
            )?);
        }
    }
    // Dense with search-time extraction: `tags` is found in `_raw` by key=value extraction.
    let dense = summary.planted.iter().find(|p| p.class == "dense");
    if let Some(dense) = dense.filter(|_| wanted("dense+extract")) {
        let query = format!("{} tags={} | stats count by host", dense.search, dense.term);
        let mut f = measure(
            &home,
            "dense+extract",
            &query,
            args.runs,
            dense.tags_field,
            true,
        )?;
        let mean_event = summary.bytes as f64 / summary.events.max(1) as f64;
        if f.cpu_ms_median > 0.0 {
            f.raw_mb_per_cpu_s =
                Some(f.events_scanned as f64 * mean_event / 1e6 / (f.cpu_ms_median / 1e3));
        }
        searches.push(f);
    }
    let report = Report {
        machine: machine(),
        corpus_bytes: summary.bytes,
        ingest,
        searches,
    };
    print_report(&report);
    write_json(&args, &report)?;
    if report.searches.iter().any(|s| !s.correct) {
        return Err(CliError::new(
            FAILURE,
            "some searches returned wrong counts (see the table)",
        ));
    }
    Ok(())
}

/// The generated files and their sourcetypes.
pub(super) const FILES: [(&str, &str); 4] = [
    ("syslog.log", "syslog"),
    ("access.log", "access_combined"),
    ("app.json", "_json"),
    ("app_java.log", "log4j"),
];

/// One ingest stream: a byte range of a generated file.
pub(super) struct Part {
    pub path: PathBuf,
    pub sourcetype: &'static str,
    pub start: u64,
    pub len: u64,
}

impl Part {
    /// The whole file as one part.
    pub fn whole(path: &Path, sourcetype: &'static str) -> CliResult<Part> {
        let len = std::fs::metadata(path)
            .map_err(|e| CliError::new(FAILURE, format!("{}: {e}", path.display())))?
            .len();
        Ok(Part {
            path: path.to_path_buf(),
            sourcetype,
            start: 0,
            len,
        })
    }
}

/// Ingests every part as its own stream, each on its own thread, through `node`; returns the
/// events stored (durable) in all.
///
/// The streams open one after the other, in the order of `parts`: a set takes a stream when it
/// has the fewest open ones, so opened in order the parts of each file alternate over the sets
/// and every set gets an equal share of each file. Opened as the threads happened to start, one
/// set could get three parts of a costly file and run alone at the end (1.1 of 6.6 s with 2
/// sets in one run).
pub(super) fn ingest_parts(node: &Node, parts: &[Part]) -> CliResult<u64> {
    std::thread::scope(|s| {
        let mut handles = Vec::with_capacity(parts.len());
        for (i, part) in parts.iter().enumerate() {
            let (opened_tx, opened_rx) = std::sync::mpsc::channel::<()>();
            handles.push(s.spawn(move || -> Result<u64, String> {
                let mut f =
                    File::open(&part.path).map_err(|e| format!("{}: {e}", part.path.display()))?;
                f.seek(SeekFrom::Start(part.start))
                    .map_err(|e| e.to_string())?;
                let meta = SourceMeta {
                    host: "bench".into(),
                    source: format!("{}#{i}", part.path.display()),
                    sourcetype: part.sourcetype.to_string(),
                    index: "main".into(),
                };
                // The first bytes read went to the stream, so it is open: the next may start.
                let mut opened = Some(opened_tx);
                let r = node
                    .ingest(meta, &mut f.take(part.len), &mut |_| drop(opened.take()))
                    .map_err(|e| e.to_string())?;
                Ok(r.events)
            }));
            // Returns once the stream opened, or its thread ended (the sender is dropped).
            let _ = opened_rx.recv();
        }
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| "ingest thread panicked".to_string())
                    .and_then(|r| r)
            })
            .sum::<Result<u64, String>>()
    })
    .map_err(|e| CliError::new(FAILURE, e))
}

fn ingest(home: &Home, corpus: &Path, summary: &GenSummary) -> CliResult<IngestFigures> {
    let cpu0 = sysstat::cpu_seconds();
    let t0 = Instant::now();
    let node = Node::open(home).map_err(super::node_error)?;
    let parts = FILES
        .iter()
        .map(|(name, st)| Part::whole(&corpus.join(name), st))
        .collect::<CliResult<Vec<_>>>()?;
    let events = ingest_parts(&node, &parts)?;
    node.roll(None)
        .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    let (close_t0, close_cpu0) = (Instant::now(), sysstat::cpu_seconds());
    node.close()
        .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    let seconds = t0.elapsed().as_secs_f64();
    let cpu = sysstat::cpu_seconds() - cpu0;
    let main = home.index_root().join("main");
    let stored = sysstat::dir_bytes(&main);
    let listed =
        lode_store::list_buckets(&main).map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    let mb = summary.bytes as f64 / 1e6;
    Ok(IngestFigures {
        raw_bytes: summary.bytes,
        events,
        seconds,
        cpu_seconds: cpu,
        mb_per_s: mb / seconds,
        mb_per_s_per_core: if cpu > 0.0 { mb / cpu } else { 0.0 },
        events_per_s: events as f64 / seconds,
        stored_bytes: stored,
        stored_pct_of_raw: 100.0 * stored as f64 / summary.bytes.max(1) as f64,
        peak_rss_mb: sysstat::peak_rss_bytes() as f64 / 1e6,
        buckets: listed.len(),
        merged_buckets: listed.iter().filter(|b| b.first_id != b.id).count(),
        close_seconds: close_t0.elapsed().as_secs_f64(),
        close_cpu_seconds: sysstat::cpu_seconds() - close_cpu0,
    })
}

/// Runs `query` `runs` times; checks the matched count against `expected`.
fn measure(
    home: &Home,
    class: &str,
    query: &str,
    runs: usize,
    expected: u64,
    stats: bool,
) -> CliResult<SearchFigures> {
    let mut times = Vec::new();
    let mut cpus = Vec::new();
    let mut last: Option<(SearchStats, u64)> = None;
    for _ in 0..runs.max(1) {
        let req = super::search::request(query);
        let mut counted = 0u64;
        let cpu0 = sysstat::cpu_seconds();
        let t0 = Instant::now();
        let st = run_search(&home.index_root(), &req, &mut |rows| {
            for mut r in rows {
                counted += if stats {
                    r.get("count").and_then(Value::to_num).unwrap_or(0.0) as u64
                } else {
                    1
                };
            }
            Ok(())
        })
        .map_err(|e| CliError::new(FAILURE, format!("{query}: {e}")))?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        cpus.push((sysstat::cpu_seconds() - cpu0) * 1e3);
        last = Some((st, counted));
    }
    let (st, counted) = last.expect("at least one run");
    let median = percentile(&times, 50.0);
    let cpu_median = percentile(&cpus, 50.0);
    Ok(SearchFigures {
        class: class.to_string(),
        query: query.to_string(),
        runs: times.len(),
        median_ms: median,
        p95_ms: percentile(&times, 95.0),
        cpu_ms_median: cpu_median,
        events_matched: counted,
        events_scanned: st.events_scanned,
        scanned_per_s: st.events_scanned as f64 / (median / 1e3).max(1e-9),
        matched_per_cpu_s: if cpu_median > 0.0 {
            counted as f64 / (cpu_median / 1e3)
        } else {
            f64::NAN
        },
        buckets_read: st.buckets_read,
        buckets_skipped: st.buckets_pruned_time + st.buckets_skipped_bloom,
        correct: counted == expected,
        raw_mb_per_cpu_s: None,
    })
}

/// Nearest-rank percentile of `xs`.
fn percentile(xs: &[f64], p: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    if v.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
    v[rank.min(v.len()) - 1]
}

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .next()
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse::<f64>().ok())
        })
        .map(|kib| format!("{:.0} GiB", kib / 1048576.0))
        .unwrap_or_default();
    format!("{cores} cores, {mem}, {cpu}")
}

fn print_report(r: &Report) {
    println!("machine: {}", r.machine);
    println!();
    if let Some(i) = &r.ingest {
        print_ingest(i);
    }
    print_searches(r);
}

fn print_ingest(i: &IngestFigures) {
    println!(
        "ingest: {:.0} MB raw, {} events",
        i.raw_bytes as f64 / 1e6,
        i.events
    );
    println!("  wall {:.1} s, cpu {:.1} s", i.seconds, i.cpu_seconds);
    println!(
        "  {:.1} MB/s, {:.1} MB/s per core used, {:.0} events/s",
        i.mb_per_s, i.mb_per_s_per_core, i.events_per_s
    );
    println!(
        "  stored {:.1} MB = {:.1} % of raw; peak memory {:.0} MB",
        i.stored_bytes as f64 / 1e6,
        i.stored_pct_of_raw,
        i.peak_rss_mb
    );
    println!(
        "  {} buckets ({} merged); closing (merges still due) took {:.1} s, cpu {:.1} s",
        i.buckets, i.merged_buckets, i.close_seconds, i.close_cpu_seconds
    );
    println!();
}

fn print_searches(r: &Report) {
    println!(
        "{:<13} {:<48} {:>9} {:>9} {:>9} {:>10} {:>12} {:>14} {:>8}",
        "class",
        "search",
        "median ms",
        "p95 ms",
        "cpu ms",
        "matched",
        "scanned/s",
        "matched/cpu-s",
        "correct"
    );
    for s in &r.searches {
        let q: String = s.query.chars().take(48).collect();
        println!(
            "{:<13} {:<48} {:>9.2} {:>9.2} {:>9.2} {:>10} {:>12.0} {:>14.0} {:>8}",
            s.class,
            q,
            s.median_ms,
            s.p95_ms,
            s.cpu_ms_median,
            s.events_matched,
            s.scanned_per_s,
            s.matched_per_cpu_s,
            if s.correct { "yes" } else { "NO" }
        );
    }
    for s in &r.searches {
        if let Some(mb) = s.raw_mb_per_cpu_s {
            println!(
                "{}: {mb:.0} MB of raw per CPU-second (search-time extraction)",
                s.class
            );
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn percentiles() {
        let xs = [5.0, 1.0, 3.0, 2.0, 4.0];
        assert_eq!(super::percentile(&xs, 50.0), 3.0);
        assert_eq!(super::percentile(&xs, 95.0), 5.0);
        assert_eq!(super::percentile(&[], 50.0), 0.0);
    }
}
