//! Newest-first reads of some kinds of data (`BucketRead::blocks_newest_first_of`) through the
//! search cache, which keeps the readers that make the kinds orders: alone in this binary, since
//! the cache is process-wide.

mod common;

use common::*;

/// Two sourcetypes days apart in one bucket, the first's clock running backwards against
/// arrival: once the cached reader has answered a few reads of one kind, a newest-first read
/// of that kind's words takes only the blocks holding it, by their newest event of it, and
/// gives the naive twin's rows, as the plain order did before.
#[test]
fn newest_first_reads_of_one_kind_take_its_own_newest_blocks() {
    let dir = tempfile::tempdir().unwrap();
    const EVENTS: usize = 30_000;
    let (mut events, mut seed) = (Vec::with_capacity(EVENTS), 11u64);
    let mut batch = 0usize;
    while events.len() < EVENTS {
        seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
        let size = [1, 40, 300, 90][(seed >> 33) as usize % 4];
        let kind = batch % 2;
        for _ in 0..size {
            let i = events.len();
            // Jittered over an hour, so blocks of one kind overlap in time.
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let jitter = (seed >> 33) as i64 % 3_600;
            let t = match kind {
                0 => (1_600_000_000 + (EVENTS - i) as i64 + jitter) * SEC,
                _ => (1_600_300_000 + i as i64 + jitter) * SEC,
            };
            let mut raw = format!("k{kind} n{i}");
            if i % 2 == 0 {
                raw.push_str([" aword", " bword"][kind]);
            }
            if i % 3 == 0 {
                raw.push_str(" both");
            }
            events.push(event(t, "h", ["alpha", "beta"][kind], &raw));
        }
        batch += 1;
    }
    write_index(dir.path(), "main", &[Chunk { events, roll: true }]);
    lode_search::cache::configure(256 << 20);
    // A reader answers its first few reads of some kinds in the plain order.
    for _ in 0..lode_store::bucket::warm::KIND_TIMES_AFTER {
        same_as_naive(dir.path(), "aword | head 10");
    }
    for q in [
        "aword | head 10",
        "aword | head 2000",
        "bword | head 10",
        "both | head 25",
        "both k0 | head 25",
        "aword OR bword | head 40",
        "NOT aword | head 30",
        "sourcetype=alpha | head 10",
        "sourcetype=beta both | head 10",
        "n7 OR n8 OR n29998 | head 3",
    ] {
        let (rows, _) = same_as_naive(dir.path(), q);
        assert!(!rows.is_empty(), "{q}");
    }
    let (rows, _) = same_as_naive(dir.path(), "aword bword | head 10");
    assert!(rows.is_empty());
    // The cached reader made its table and the orders of the kinds read.
    let bucket = lode_store::list_buckets(&dir.path().join("main")).unwrap();
    let reader = lode_search::cache::global()
        .open_warm(&bucket[0].path)
        .unwrap();
    assert!(reader.kind_order_bytes() > 0);
}
