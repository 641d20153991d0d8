//! `cargo bench -p lode-store --bench postings`: decoding postings entries into bitmaps, what a
//! search pays per term and bucket before the reader cache holds the result.
//!
//! Three lists of 400,000 event numbers, each encoded in the layout the writer picks for it:
//! a common word (gaps of 1–16, varint deltas), a word of one sourcetype's events (runs of 1–12
//! consecutive events with gaps of 2–40, runs) and a sparser word (gaps of 100–400, deltas
//! of two bytes or a roaring array), and a word in one event of ~60 with geometric gaps (as a
//! real word's are: one in eight takes two bytes). Throughput is in numbers decoded. Also the common word's
//! bitmap built from its numbers, as a hot bucket builds it, against the library's builder.
//! And an `And` of two words of one sourcetype with no event in common (the service scenario's
//! costliest searches): the shorter listed as runs, then narrowed by the longer, as
//! `WarmBucket::terms_and` does; throughput in numbers of both lists.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use lode_store::postings::{
    and_chunked, bitmap_of_sorted, decode_entry, encode, filter_runs_in_entry, runs_into,
};
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
        // As a word's gaps are: geometric, here one event in ~60, so about one gap in eight
        // takes two bytes.
        (
            "word in 1 of 60, geometric gaps",
            list(|r| {
                let mut gap = 0;
                while r.below(60) != 0 {
                    gap += 1;
                }
                (gap, 1)
            }),
        ),
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

/// Two lists over 3.2 M events, one number in ~40 and one in ~36, with nothing in common.
fn disjoint_pair() -> (Vec<u32>, Vec<u32>) {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (mut x, mut y) = (0u32, 0u32);
    while x < 3_200_000 {
        x += 20 + rng.below(41);
        a.push(x);
    }
    let held: std::collections::HashSet<u32> = a.iter().copied().collect();
    while y < 3_200_000 {
        y += 18 + rng.below(37);
        if !held.contains(&y) {
            b.push(y);
        }
    }
    (a, b)
}

fn and_of_two(c: &mut Criterion) {
    let (a, b) = disjoint_pair();
    let (mut ea, mut eb) = (Vec::new(), Vec::new());
    assert!(encode(&a, &mut ea, false).is_none() && encode(&b, &mut eb, false).is_none());
    let mut group = c.benchmark_group("postings and");
    group.throughput(Throughput::Elements((a.len() + b.len()) as u64));
    group.bench_function(
        format!(
            "two words, nothing in common (kinds {} and {})",
            ea[0], eb[0]
        ),
        |bench| {
            bench.iter(|| {
                let mut cands = Vec::new();
                runs_into(&ea, 0, &mut cands).expect("decodes");
                filter_runs_in_entry(&eb, 0, &mut cands).expect("decodes");
                assert!(cands.is_empty());
            })
        },
    );
    group.bench_function(
        "two words, nothing in common, container by container",
        |bench| {
            bench.iter(|| {
                let (runs, _, _) = and_chunked((&ea, 0), (&eb, 0))
                    .expect("decodes")
                    .expect("both chunked");
                assert!(runs.is_empty());
            })
        },
    );
    group.finish();
}

criterion_group!(benches, postings, and_of_two);
criterion_main!(benches);
