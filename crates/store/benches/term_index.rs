//! `cargo bench -p lode-store --bench term_index`: the term index's share of ingest.
//!
//! Collects the terms of 32 MB of the generator's mixed corpus (syslog, access, JSON, Java) into
//! a [`TermIndex`] and sorts them, as a hot bucket does while events arrive and when it rolls.
//! Throughput is in bytes of `_raw`; the ingest target (issue 3) is 100 MB/s per core for the
//! whole pipeline, of which this is about a third (docs/PERFORMANCE.md).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lode_event::Event;
use lode_gen::{GenConfig, Generator};
use lode_store::terms::TermIndex;

/// Bytes of corpus the bench indexes per iteration.
const CORPUS_BYTES: u64 = 32_000_000;

fn corpus() -> Vec<Event> {
    let mut gen = Generator::new(GenConfig {
        total_bytes: CORPUS_BYTES,
        ..GenConfig::default()
    });
    let mut events = Vec::new();
    let done: Result<_, std::convert::Infallible> = gen.generate_events(&mut |e| {
        events.push(Event {
            time: e.time_us,
            raw: String::from_utf8_lossy(e.raw).into_owned(),
            host: e.host.into(),
            source: format!("/var/log/{}.log", e.kind.sourcetype()).into(),
            sourcetype: e.kind.sourcetype().into(),
            index: "main".into(),
            ..Event::default()
        });
        Ok(())
    });
    done.expect("infallible");
    events
}

fn term_index(c: &mut Criterion) {
    let events = corpus();
    let bytes: usize = events.iter().map(|e| e.raw.len()).sum();
    let mut g = c.benchmark_group("term_index");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(bytes as u64));
    g.bench_function("add_event", |b| {
        b.iter(|| {
            let mut ix = TermIndex::new();
            for (num, e) in events.iter().enumerate() {
                ix.add_event(num as u32, e).expect("under 4 GiB");
            }
            ix
        })
    });
    g.bench_function("add_event+sort", |b| {
        b.iter(|| {
            let mut ix = TermIndex::new();
            for (num, e) in events.iter().enumerate() {
                ix.add_event(num as u32, e).expect("under 4 GiB");
            }
            let sorted = ix.into_sorted().expect("under 4 GiB");
            sorted.iter().map(|(_, p)| p.count()).sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, term_index);
criterion_main!(benches);
