//! Pipeline throughput on the LogHub samples repeated to ~200 MB.
//!
//! `cargo run --release -p lode-ingest --example pipeline_throughput [MB] [SOURCETYPE]`
//! (SOURCETYPE forces one sourcetype on every file, e.g. `generic` for Splunk's `[default]`)
//! Prints MB/s and events/s for the threaded pipeline (sink discards) and for the
//! single-threaded naive twin `process_bytes`.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use lode_event::Event;
use lode_ingest::{
    guess_sourcetype, process_bytes, Pipeline, PipelineConfig, Settings, Sink, SinkError,
    SourceMeta,
};

struct Count(Arc<AtomicU64>);

impl Sink for Count {
    fn write(&mut self, batch: Vec<Event>) -> Result<(), SinkError> {
        self.0.fetch_add(batch.len() as u64, Ordering::Relaxed);
        Ok(())
    }
}

fn main() -> anyhow::Result<()> {
    let target_mb: usize = std::env::args().nth(1).map_or(Ok(200), |a| a.parse())?;
    let forced_sourcetype = std::env::args().nth(2);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/loghub/");
    let mut inputs = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name().to_string_lossy().to_string();
        if name.ends_with("_2k.log") {
            let mut data = std::fs::read(format!("{dir}{name}"))?;
            if data.last() != Some(&b'\n') {
                data.push(b'\n');
            }
            inputs.push((name, data));
        }
    }
    let one_pass: usize = inputs.iter().map(|(_, d)| d.len()).sum();
    let repeats = (target_mb * 1_000_000).div_ceil(one_pass.max(1));
    let streams: Vec<(SourceMeta, Vec<u8>)> = inputs
        .iter()
        .map(|(name, data)| {
            let meta = SourceMeta {
                host: "bench".into(),
                source: name.clone(),
                sourcetype: forced_sourcetype
                    .clone()
                    .unwrap_or_else(|| guess_sourcetype(name, data)),
                index: "main".into(),
            };
            (meta, data.repeat(repeats))
        })
        .collect();
    let total: usize = streams.iter().map(|(_, d)| d.len()).sum();
    let (settings, _) = Settings::builtin()?;
    let settings = Arc::new(settings);

    let count = Arc::new(AtomicU64::new(0));
    let cfg = PipelineConfig {
        settings: settings.clone(),
        queue_capacity: 64,
        batch_events: 10_000,
    };
    let started = Instant::now();
    // A fixed ingest time of 2017-12-31 so that the samples' dates (2005–2017) are accepted.
    let now = 1_514_678_400_000_000;
    let pipeline =
        Pipeline::start_with_clock(cfg, Box::new(Count(count.clone())), Arc::new(move || now));
    std::thread::scope(|s| -> anyhow::Result<()> {
        let mut joins = Vec::new();
        for (meta, data) in &streams {
            let mut h = pipeline.open_stream(meta.clone());
            joins.push(s.spawn(move || -> anyhow::Result<()> {
                for chunk in data.chunks(64 * 1024) {
                    h.send(chunk)?;
                }
                h.finish()?;
                Ok(())
            }));
        }
        for j in joins {
            j.join().map_err(|_| anyhow::anyhow!("sender panicked"))??;
        }
        Ok(())
    })?;
    pipeline.shutdown()?;
    let secs = started.elapsed().as_secs_f64();
    let events = count.load(Ordering::Relaxed);
    println!(
        "pipeline: {:.1} MB in {secs:.2} s = {:.1} MB/s, {:.2} M events/s ({events} events)",
        total as f64 / 1e6,
        total as f64 / 1e6 / secs,
        events as f64 / 1e6 / secs
    );

    let started = Instant::now();
    let mut naive_events = 0;
    for (meta, data) in &streams {
        naive_events += process_bytes(&settings, meta, data, now).len();
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "process_bytes (1 thread): {:.1} MB/s ({naive_events} events)",
        total as f64 / 1e6 / secs
    );
    Ok(())
}
