//! `cargo bench -p lode-store --bench postings`: decoding postings entries into bitmaps, what a
//! search pays per term and bucket before the reader cache holds the result.
//!
//! Three lists of 400,000 event numbers, each encoded in the layout the writer picks for it:
//! a common word (gaps of 1–16, varint deltas), a word of one sourcetype's events (runs of 1–12
//! consecutive events with gaps of 2–40, runs) and a sparser word (gaps of 100–400, deltas
//! of two bytes or a roaring array). Throughput is in numbers decoded. Also the common word's
//! bitmap built from its numbers, as a hot bucket builds it, against the library's builder.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lode_store::postings::{bitmap_of_sorted, decode_entry, encode};
use roaring::RoaringBitmap;

/// Numbers per list.
const LEN: usize = 400_000;

/// A small deterministic generator (xorshift), so the lists are the same in every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u32) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % u64::from(n)) as u32
    }
}

fn list(mut next_run: impl FnMut(&mut Rng) -> (u32, u32)) -> Vec<u32> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut out = Vec::with_capacity(LEN);
    let mut at = 0u32;
    while out.len() < LEN {
        let (gap, run) = next_run(&mut rng);
        at += gap;
        out.extend(at..at + run);
        at += run;
    }
    out.truncate(LEN);
    out
}

fn postings(c: &mut Criterion) {
    let lists = [
        ("common word, deltas", list(|r| (r.below(16), 1))),
        (
            "sourcetype word, runs",
            list(|r| (2 + r.below(39), 1 + r.below(12))),
        ),
        ("sparse word", list(|r| (100 + r.below(301), 1))),
    ];
    let mut group = c.benchmark_group("postings decode");
    group.throughput(Throughput::Elements(LEN as u64));
    for (name, list) in &lists {
        let mut entry = Vec::new();
        assert!(encode(list, &mut entry, false).is_none());
        group.bench_function(format!("{name} (kind {})", entry[0]), |b| {
            b.iter(|| decode_entry(&entry, 0).expect("decodes").len())
        });
    }
    group.finish();
    // A hot bucket's lists come as numbers from its term index, not as encoded entries.
    let mut group = c.benchmark_group("postings from a sorted list");
    group.throughput(Throughput::Elements(LEN as u64));
    let (_, common) = &lists[0];
    group.bench_function("bitmap_of_sorted", |b| {
        b.iter(|| bitmap_of_sorted(common.iter().copied()).len())
    });
    group.bench_function("roaring from_sorted_iter", |b| {
        b.iter(|| {
            RoaringBitmap::from_sorted_iter(common.iter().copied())
                .expect("sorted")
                .len()
        })
    });
    group.finish();
}

criterion_group!(benches, postings);
criterion_main!(benches);
