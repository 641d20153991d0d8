//! Throughput of `Extractor::extract` on the Hadoop loghub sample (not a criterion bench; a figure
//! for the report). Run: `cargo run --release -p lode-time --example extract_throughput`, or add
//! a file's path to measure its lines instead (`lode gen`'s `app_java.log`: stack traces).

use lode_time::extract::{ExtractConfig, Extractor};
use std::time::Instant;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../../shared/data/loghub/Hadoop_2k.log"
);
/// Passes over the 2000 lines per measurement.
const ROUNDS: usize = 500;
/// 2016-01-01T00:00:00Z, so the 2015 sample lies inside the default 2000-day window.
const NOW: i64 = 1_451_606_400_000_000;
/// Lines of a file named on the command line measured per pass.
const FILE_LINES: usize = 200_000;
/// 2027-01-01T00:00:00Z: the clock for a file named on the command line.
const FILE_NOW: i64 = 1_798_761_600_000_000;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    match std::env::args().nth(1) {
        Some(path) => file(&path),
        None => loghub(),
    }
}

/// Every line of the file at `path`, as `BREAK_ONLY_BEFORE_DATE` line merging asks of each line
/// (in a stack trace most lines hold no timestamp), with the clock at 2027-01-01.
fn file(path: &str) -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    let lines: Vec<&str> = text.lines().take(FILE_LINES).collect();
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let mut ex = Extractor::new(ExtractConfig::default())?;
    for _ in 0..5 {
        let t0 = Instant::now();
        let found = lines
            .iter()
            .filter(|l| ex.extract(l, FILE_NOW).is_some())
            .count();
        report(path, t0, lines.len(), bytes, found);
    }
    Ok(())
}

/// The Hadoop sample: the fast path, the slow path alone, and lines without a timestamp.
fn loghub() -> Result<(), Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(FILE)?;
    let lines: Vec<&str> = text.lines().collect();
    let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
    let mut ex = Extractor::new(ExtractConfig::default())?;

    let t0 = Instant::now();
    let mut found = 0usize;
    for _ in 0..ROUNDS {
        for line in &lines {
            found += usize::from(ex.extract(line, NOW).is_some());
        }
    }
    report(
        "extract (fast path)",
        t0,
        ROUNDS * lines.len(),
        ROUNDS * bytes,
        found,
    );

    let t0 = Instant::now();
    let mut found = 0usize;
    let rounds = ROUNDS / 5;
    for _ in 0..rounds {
        for line in &lines {
            found += usize::from(ex.extract_slow(line, NOW).is_some());
        }
    }
    report(
        "extract_slow (full scan)",
        t0,
        rounds * lines.len(),
        rounds * bytes,
        found,
    );

    // Worst case: no timestamp at all, so every offset of the 128-byte window is scanned.
    let bare: Vec<&str> = lines.iter().map(|l| l.get(24..).unwrap_or("")).collect();
    let bare_bytes: usize = bare.iter().map(|l| l.len() + 1).sum();
    let t0 = Instant::now();
    let mut found = 0usize;
    for _ in 0..rounds {
        for line in &bare {
            found += usize::from(ex.extract(line, NOW).is_some());
        }
    }
    let what = "extract, no timestamp (worst case)";
    report(what, t0, rounds * bare.len(), rounds * bare_bytes, found);
    Ok(())
}

fn report(what: &str, t0: Instant, events: usize, bytes: usize, found: usize) {
    let secs = t0.elapsed().as_secs_f64();
    println!(
        "{what}: {events} events in {secs:.3} s = {:.0} events/s, {:.0} MB/s ({found} with a time)",
        events as f64 / secs,
        bytes as f64 / secs / 1e6,
    );
}
