//! `lode bench --scenario batch`: batch-mode (parallel pipeline) search speed.
//!
//! Generates and ingests a corpus into `main` with a small `maxDataSize`, so it is cut into at
//! least about ten buckets, then runs the sparse and dense planted searches as
//! `| stats count by host` and the dense one as `| timechart count`, each with 1 and with N
//! batch pipelines (N = the number of cores). Reports median wall time, the speed-up of N over 1,
//! and matched events per CPU second (CPU time from `/proc/self/stat`, so the figure is per core
//! actually used). Every result is checked against the generator's exact counts.

use std::time::Instant;

use lode_node::Home;
use lode_search::run::{run_with, RunOptions};
use lode_search::value::Value;
use serde::Serialize;

use super::{ingest, machine, percentile, IngestFigures};
use crate::cli::BenchArgs;
use crate::exit::{CliError, CliResult, FAILURE};
use crate::sysstat;

/// Buckets the corpus is cut into at least (roughly: rolls happen per pipeline batch).
const TARGET_BUCKETS: u64 = 10;

#[derive(Debug, Serialize)]
struct BatchFigures {
    class: String,
    query: String,
    pipelines: usize,
    runs: usize,
    median_ms: f64,
    cpu_ms_median: f64,
    events_matched: u64,
    /// Matched events per CPU second of the whole process (all pipelines together).
    events_per_cpu_s: f64,
    /// Median wall time with 1 pipeline ÷ this one's.
    speedup: f64,
    correct: bool,
}

#[derive(Debug, Serialize)]
struct BatchReport {
    machine: String,
    /// `/proc/loadavg` when the searches started (the machine is shared).
    load_before: String,
    /// `/proc/loadavg` when they ended.
    load_after: String,
    corpus_bytes: u64,
    /// `maxDataSize` of `main`, MB.
    max_data_size_mb: u64,
    buckets: u64,
    ingest: IngestFigures,
    searches: Vec<BatchFigures>,
}

/// Runs the scenario.
pub fn run(args: &BenchArgs) -> CliResult {
    let tmp;
    let home_dir = match &args.keep {
        Some(p) => p.clone(),
        None => {
            tmp = tempfile::Builder::new().prefix("lode-bench").tempdir()?;
            tmp.path().to_path_buf()
        }
    };
    let home = Home::new(&home_dir);
    home.ensure_layout()?;
    let max_mb = (args.size / TARGET_BUCKETS / (1024 * 1024)).max(1);
    std::fs::write(
        home.etc_local().join("indexes.conf"),
        format!("[main]\nmaxDataSize = {max_mb}\n"),
    )?;
    let corpus = home_dir.join("bench-corpus");
    eprintln!(
        "lode bench: generating {} of data (seed {})…",
        super::super::add::human_bytes(args.size),
        args.seed
    );
    let cfg = lode_gen::GenConfig {
        seed: args.seed,
        total_bytes: args.size,
        ..lode_gen::GenConfig::default()
    };
    let bar = crate::progress::bytes(args.size, "generating");
    let summary = lode_gen::write_dir(cfg, &corpus, &mut |n| bar.set_position(n))
        .map_err(|e| CliError::new(FAILURE, format!("generating the corpus failed: {e}")))?;
    bar.finish_and_clear();
    eprintln!("lode bench: ingesting (maxDataSize = {max_mb} MB)…");
    let ingest = ingest(&home, &corpus, &summary)?;
    std::fs::remove_dir_all(&corpus).ok();

    let n = RunOptions::default().pipelines().max(2);
    let mut cases = Vec::new();
    for p in &summary.planted {
        match p.class.as_str() {
            "sparse" => cases.push((p, " | stats count by host")),
            "dense" => {
                cases.push((p, " | stats count by host"));
                cases.push((p, " | timechart count"));
            }
            _ => {}
        }
    }
    eprintln!("lode bench: searching with 1 and {n} pipelines…");
    let load_before = sysstat::load_average();
    let mut searches = Vec::new();
    let mut buckets = 0;
    for (p, suffix) in cases {
        let query = format!("{}{suffix}", p.search);
        let mut base_ms = None;
        for pipelines in [1, n] {
            let (mut f, total) = measure(&home, &query, pipelines, args.runs, p.events)?;
            buckets = total;
            f.class = p.class.clone();
            let base = *base_ms.get_or_insert(f.median_ms);
            f.speedup = base / f.median_ms.max(1e-9);
            searches.push(f);
        }
    }
    let report = BatchReport {
        machine: machine(),
        load_before,
        load_after: sysstat::load_average(),
        corpus_bytes: summary.bytes,
        max_data_size_mb: max_mb,
        buckets,
        ingest,
        searches,
    };
    print_report(&report);
    if let Some(path) = &args.json {
        let f = std::fs::File::create(path)
            .map_err(|e| CliError::new(FAILURE, format!("cannot write {}: {e}", path.display())))?;
        serde_json::to_writer_pretty(f, &report)
            .map_err(|e| CliError::new(FAILURE, e.to_string()))?;
    }
    if report.searches.iter().any(|s| !s.correct) {
        return Err(CliError::new(
            FAILURE,
            "some searches returned wrong counts (see the table)",
        ));
    }
    Ok(())
}

/// Runs `query` `runs` times with `pipelines`; the sum of the `count` column must be
/// `expected`. Returns the figures and the number of buckets in the index.
fn measure(
    home: &Home,
    query: &str,
    pipelines: usize,
    runs: usize,
    expected: u64,
) -> CliResult<(BatchFigures, u64)> {
    let opts = RunOptions {
        batch_search_max_pipeline: pipelines,
        ..RunOptions::default()
    };
    let (mut times, mut cpus) = (Vec::new(), Vec::new());
    let mut counted = 0u64;
    let mut buckets = 0;
    for _ in 0..runs.max(1) {
        let req = super::super::search::request(query);
        counted = 0;
        let cpu0 = sysstat::cpu_seconds();
        let t0 = Instant::now();
        let st = run_with(&home.index_root(), &req, &opts, &mut |rows| {
            for mut r in rows {
                counted += r.get("count").and_then(Value::to_num).unwrap_or(0.0) as u64;
            }
            Ok(())
        })
        .map_err(|e| CliError::new(FAILURE, format!("{query}: {e}")))?;
        times.push(t0.elapsed().as_secs_f64() * 1e3);
        cpus.push((sysstat::cpu_seconds() - cpu0) * 1e3);
        buckets = st.buckets_total;
    }
    let median = percentile(&times, 50.0);
    let cpu = percentile(&cpus, 50.0);
    let f = BatchFigures {
        class: String::new(),
        query: query.to_string(),
        pipelines,
        runs: times.len(),
        median_ms: median,
        cpu_ms_median: cpu,
        events_matched: counted,
        events_per_cpu_s: if cpu > 0.0 {
            counted as f64 / (cpu / 1e3)
        } else {
            f64::NAN
        },
        speedup: 1.0,
        correct: counted == expected,
    };
    Ok((f, buckets))
}

fn print_report(r: &BatchReport) {
    let i = &r.ingest;
    println!("machine: {}", r.machine);
    println!(
        "load average: {} before the searches, {} after",
        r.load_before, r.load_after
    );
    println!(
        "corpus: {:.0} MB raw, {} events, {} buckets (maxDataSize = {} MB); ingest {:.1} MB/s per core used",
        r.corpus_bytes as f64 / 1e6,
        i.events,
        r.buckets,
        r.max_data_size_mb,
        i.mb_per_s_per_core
    );
    println!();
    println!(
        "{:<8} {:<52} {:>5} {:>10} {:>10} {:>10} {:>14} {:>8} {:>8}",
        "class",
        "search",
        "pipes",
        "median ms",
        "cpu ms",
        "matched",
        "matched/cpu-s",
        "speedup",
        "correct"
    );
    for s in &r.searches {
        let q: String = s.query.chars().take(52).collect();
        println!(
            "{:<8} {:<52} {:>5} {:>10.1} {:>10.1} {:>10} {:>14.0} {:>7.2}x {:>8}",
            s.class,
            q,
            s.pipelines,
            s.median_ms,
            s.cpu_ms_median,
            s.events_matched,
            s.events_per_cpu_s,
            s.speedup,
            if s.correct { "yes" } else { "NO" }
        );
    }
}
