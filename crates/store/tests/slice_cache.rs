//! The decompressed-slice cache answers exactly what decompressing does: events read with the
//! cache on (small enough to evict all the time) equal those read with it off, repeated reads
//! are answered from it, and a whole-bucket read offers only its first slices.

mod common;

use common::{event, owned, read_all};
use lode_store::{list_buckets, slice_cache, BucketRead, IndexConfig, IndexWriter, WarmBucket};

#[test]
fn cached_slices_read_back_the_same_events() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    let events: Vec<_> = (0..20_000).map(event).collect();
    for chunk in events.chunks(1000) {
        w.append(chunk).unwrap();
    }
    w.close().unwrap();
    let b = WarmBucket::open(&list_buckets(dir.path()).unwrap()[0].path).unwrap();
    let want = read_all(&b);
    assert_eq!(want, events);

    // A budget of about three slices: every read evicts.
    slice_cache::configure(400 * 1024);
    let cache = slice_cache::global();
    let few = [3u32, 5000, 19_999, 7, 12_000];
    let read = |ids: &[u32]| {
        let mut got = Vec::new();
        b.read_events(&mut ids.iter().copied(), &mut |v| {
            got.push(owned(&v));
            true
        })
        .unwrap();
        got
    };
    for round in 0..3 {
        let got = read(&few);
        let expect: Vec<_> = few.iter().map(|&i| event(i as u64)).collect();
        assert_eq!(got, expect, "round {round}");
        assert!(cache.stats().bytes <= 400 * 1024);
    }
    // One slice read again and again is answered from the cache.
    let before = cache.stats().hits;
    for _ in 0..3 {
        assert_eq!(read(&[42]), vec![event(42)]);
    }
    assert!(cache.stats().hits >= before + 3);
    // A whole read, with the cache on, is the same; it offered at most 8 slices.
    slice_cache::configure(1 << 30);
    let misses = cache.stats().misses;
    assert_eq!(read_all(&b), want);
    let held = cache.stats().bytes;
    assert!(held > 0 && held <= 8 * 256 * 1024, "{held}");
    assert!(cache.stats().misses > misses);
    slice_cache::configure(0);
    assert_eq!(cache.stats().bytes, 0);
    assert_eq!(read_all(&b), want);
}
