//! Ingest benchmark: loghub samples concatenated and repeated to ~100 MB, appended in batches of
//! 1,000 events, then rolled. Prints MB/s of `_raw` and stored bytes vs raw.
//!
//! `cargo run --release -p lode-store --example ingest_bench [target_mb] [batch_events] [keep_dir]`

use std::time::Instant;

use lode_event::Event;
use lode_store::{inspect, list_buckets, open_bucket, IndexConfig, IndexWriter, TermQuery};

fn main() -> anyhow::Result<()> {
    let target_mb: u64 = std::env::args().nth(1).map_or(Ok(100), |s| s.parse())?;
    let batch: usize = std::env::args().nth(2).map_or(Ok(1000), |s| s.parse())?;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/loghub/");
    let mut lines: Vec<(String, String)> = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    paths.sort();
    for p in &paths {
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        for l in std::fs::read_to_string(p)?.lines() {
            lines.push((name.clone(), l.to_string()));
        }
    }
    let sample: u64 = lines.iter().map(|l| l.1.len() as u64).sum();
    let reps = (target_mb * 1_000_000).div_ceil(sample.max(1));
    let mut events = Vec::new();
    let mut raw_bytes = 0u64;
    for r in 0..reps {
        for (i, (name, l)) in lines.iter().enumerate() {
            let n = r as i64 * lines.len() as i64 + i as i64;
            raw_bytes += l.len() as u64;
            events.push(Event {
                time: 1_700_000_000_000_000 + n * 1000,
                index_time: 1_700_000_000,
                raw: l.clone(),
                host: format!("{name}-host{}", i % 8).into(),
                source: format!("/var/log/{name}.log").into(),
                sourcetype: name.clone().into(),
                index: "main".into(),
                linecount: 1,
                fields: Vec::new(),
            });
        }
    }
    let tmp = tempfile::tempdir()?;
    // Optional third argument: keep the index in this directory instead of a temporary one.
    let keep = std::env::args().nth(3).map(std::path::PathBuf::from);
    let tmp_path = keep.clone().unwrap_or_else(|| tmp.path().to_path_buf());
    let (w, _) = IndexWriter::open(tmp_path.as_path(), IndexConfig::default())?;
    let t0 = Instant::now();
    for b in events.chunks(batch) {
        w.append(b)?;
    }
    let t_append = t0.elapsed();
    let hot = list_buckets(tmp_path.as_path())?
        .pop()
        .expect("a hot bucket");
    let t1 = Instant::now();
    let opened = open_bucket(&hot)?;
    let t_hot = t1.elapsed();
    let hot_mb = opened.meta().raw_bytes as f64 / 1e6;
    drop(opened);
    let t2 = Instant::now();
    w.close()?;
    let t_all = t_append + t2.elapsed();
    let mb = raw_bytes as f64 / 1e6;
    println!(
        "{} events, {mb:.1} MB raw from {} files",
        events.len(),
        paths.len()
    );
    println!(
        "append (WAL + fsync): {:.1} MB/s; append + roll (full index): {:.1} MB/s over {:.2} s",
        mb / t_append.as_secs_f64(),
        mb / t_all.as_secs_f64(),
        t_all.as_secs_f64()
    );
    println!(
        "batches of {batch} events; opening the {hot_mb:.1} MB hot bucket (WAL replay + in-memory index): {:.2} s",
        t_hot.as_secs_f64()
    );
    for b in list_buckets(tmp_path.as_path())? {
        let t = Instant::now();
        let bucket = open_bucket(&b)?;
        let absent = bucket.may_contain(b"zzqqxx-not-there");
        let t_open = t.elapsed();
        let t = Instant::now();
        let hits = bucket.eval(&TermQuery::Term(b"failed".to_vec()))?;
        let mut n = 0;
        bucket.read_events(&mut hits.iter().take(10), &mut |_| {
            n += 1;
            true
        })?;
        println!(
            "bucket {}: open + bloom check {:.2} ms (absent term maybe-present: {absent}); \
             term 'failed' {} hits, eval + read 10 events {:.2} ms",
            b.id,
            t_open.as_secs_f64() * 1e3,
            hits.len(),
            t.elapsed().as_secs_f64() * 1e3
        );
    }
    let mut stored = 0;
    let mut per_file = std::collections::BTreeMap::new();
    for b in list_buckets(tmp_path.as_path())? {
        let s = inspect(&b.path)?;
        stored += s.stored_bytes;
        for (f, n) in s.files {
            *per_file.entry(f).or_insert(0u64) += n;
        }
    }
    println!(
        "stored {stored} bytes = {:.1} % of raw",
        stored as f64 * 100.0 / raw_bytes as f64
    );
    for (f, n) in per_file {
        println!(
            "  {f:<14} {n:>12}  {:5.1} %",
            n as f64 * 100.0 / raw_bytes as f64
        );
    }
    Ok(())
}
