//! The writer's in-memory hot index and background rolls: searches of the writer's process read
//! the index the writer keeps (no WAL replay), see exactly the durable events, and see every
//! acknowledged event exactly once while full hot buckets roll in the background.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use common::{event, read_all};
use lode_store::{list_buckets, open_bucket, BucketKind, IndexConfig, IndexWriter, TermQuery};

fn cfg(max_bucket_events: u64) -> IndexConfig {
    IndexConfig {
        max_bucket_events,
        ..IndexConfig::default()
    }
}

/// The sequence number `common::event` wrote into an event's raw text.
fn seq(raw: &str) -> u64 {
    let at = raw.find("seq=").expect("seq") + 4;
    raw[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|s| s.parse().ok())
        .expect("seq number")
}

/// Every event of the index as seen by one listing, as sequence numbers (with repeats).
fn seen(dir: &Path) -> Vec<u64> {
    let mut out = Vec::new();
    for info in list_buckets(dir).unwrap() {
        let b = open_bucket(&info).unwrap();
        out.extend(read_all(b.as_ref()).iter().map(|e| seq(&e.raw)));
    }
    out
}

/// Checks one listing: no event twice, and every number below `acked` (acknowledged before the
/// listing began) present. Returns the numbers seen.
fn check_once(dir: &Path, acked: u64) -> BTreeSet<u64> {
    let all = seen(dir);
    let set: BTreeSet<u64> = all.iter().copied().collect();
    assert_eq!(set.len(), all.len(), "an event was seen twice");
    if let Some(missing) = (0..acked).find(|i| !set.contains(i)) {
        panic!("acknowledged event {missing} missing (acked {acked})");
    }
    set
}

#[test]
fn a_snapshot_mid_ingest_sees_exactly_the_durable_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), cfg(1_000_000)).unwrap();
    let total = 12_000u64; // three frozen column chunks and an open one
    let acked = AtomicU64::new(0);
    let enqueued = AtomicU64::new(0);
    let done = AtomicBool::new(false);
    std::thread::scope(|s| {
        s.spawn(|| {
            for from in (0..total).step_by(97) {
                let to = (from + 97).min(total);
                enqueued.store(to, Ordering::SeqCst);
                w.append_to(0, (from..to).map(event).collect()).unwrap();
                acked.store(to, Ordering::SeqCst);
            }
            done.store(true, Ordering::SeqCst);
        });
        let mut snapshots = 0;
        while !done.load(Ordering::SeqCst) || snapshots == 0 {
            let before = acked.load(Ordering::SeqCst);
            let buckets = list_buckets(dir.path()).unwrap();
            let Some(info) = buckets.first() else {
                continue;
            };
            assert_eq!(buckets.len(), 1);
            let b = open_bucket(info).unwrap();
            let after = enqueued.load(Ordering::SeqCst);
            let n = b.meta().event_count;
            // A prefix of the appended events: everything acknowledged, nothing not yet handed
            // to the writer, in order.
            assert!(before <= n && n <= after, "{before} <= {n} <= {after}");
            let evs = read_all(b.as_ref());
            assert_eq!(evs.len() as u64, n);
            for (i, e) in evs.iter().enumerate() {
                assert_eq!(*e, event(i as u64));
            }
            // Per-event and whole-column accessors agree with the events.
            let times = b.times();
            assert_eq!(times.len() as u64, n);
            let want: Vec<i64> = evs.iter().map(|e| e.time).collect();
            assert_eq!(times.to_vec(), want);
            assert_eq!(times.get(n as usize), None);
            for i in (0..n as u32).step_by(331) {
                assert_eq!(b.time(i).unwrap(), evs[i as usize].time);
                let f = b.indexed(i).unwrap();
                assert_eq!(b.host_names()[f.host as usize], evs[i as usize].host);
                assert_eq!(b.host_ids().get(i as usize), Some(f.host));
            }
            assert!(b.time(n as u32).is_err());
            // Postings are cut at the snapshot.
            let q = TermQuery::Term(b"info".to_vec());
            let hits = b.eval(&q).unwrap();
            let expect = evs.iter().filter(|e| e.raw.contains("INFO")).count() as u64;
            assert_eq!(hits.len(), expect);
            assert!(hits.max().is_none_or(|m| (m as u64) < n));
            snapshots += 1;
        }
    });
    w.close().unwrap();
    let set = check_once(dir.path(), total);
    assert_eq!(set.len() as u64, total);
}

#[test]
fn background_rolls_lose_and_duplicate_nothing_while_appends_and_searches_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open_lanes(dir.path(), cfg(700), 2).unwrap();
    let total = 8_000u64;
    let acked = [AtomicU64::new(0), AtomicU64::new(0)];
    let done = AtomicBool::new(false);
    // Lane 0 appends the even hundreds, lane 1 the odd ones: batch `k` holds `100k..100k+100`.
    std::thread::scope(|s| {
        for lane in 0..2usize {
            let (w, acked) = (&w, &acked);
            s.spawn(move || {
                for k in (lane as u64..total / 100).step_by(2) {
                    w.append_to(lane, (k * 100..k * 100 + 100).map(event).collect())
                        .unwrap();
                    acked[lane].store(k + 1, Ordering::SeqCst);
                }
            });
        }
        s.spawn(|| {
            let mut rounds = 0;
            while !done.load(Ordering::SeqCst) || rounds < 3 {
                let a = [
                    acked[0].load(Ordering::SeqCst),
                    acked[1].load(Ordering::SeqCst),
                ];
                let set = check_once(dir.path(), 0);
                for (lane, &upto) in a.iter().enumerate() {
                    for k in (lane as u64..upto).step_by(2) {
                        assert!(
                            set.contains(&(k * 100)) && set.contains(&(k * 100 + 99)),
                            "acknowledged batch {k} missing"
                        );
                    }
                }
                rounds += 1;
            }
        });
        // Stop the searcher once both appenders are through.
        while acked[0].load(Ordering::SeqCst) < total / 100 - 1
            || acked[1].load(Ordering::SeqCst) < total / 100
        {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        done.store(true, Ordering::SeqCst);
    });
    w.roll().unwrap();
    let buckets = list_buckets(dir.path()).unwrap();
    assert!(buckets.len() >= 8, "{buckets:?}");
    assert!(buckets.iter().all(|b| b.kind == BucketKind::Warm));
    let set = check_once(dir.path(), total);
    assert_eq!(set.len() as u64, total);
    w.close().unwrap();
}

#[test]
fn roll_waits_for_pending_background_rolls() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), cfg(500)).unwrap();
    for k in 0..3u64 {
        // Each batch fills a bucket: its roll starts in the background.
        w.append(&(k * 500..k * 500 + 500).map(event).collect::<Vec<_>>())
            .unwrap();
    }
    w.roll().unwrap();
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names
            .iter()
            .all(|n| !n.starts_with("hot_") && !n.starts_with("tmp_")),
        "{names:?}"
    );
    let buckets = list_buckets(dir.path()).unwrap();
    assert_eq!(buckets.len(), 3);
    assert!(buckets.iter().all(|b| b.kind == BucketKind::Warm));
    assert_eq!(check_once(dir.path(), 1500).len(), 1500);
}

#[test]
fn a_reopened_writer_indexes_its_recovered_hot_bucket_and_keeps_appending() {
    let dir = tempfile::tempdir().unwrap();
    {
        let (w, _) = IndexWriter::open(dir.path(), cfg(1_000_000)).unwrap();
        w.append(&(0..5000).map(event).collect::<Vec<_>>()).unwrap();
        // Dropped without close: the hot bucket stays, as after a crash.
    }
    let (w, report) = IndexWriter::open(dir.path(), cfg(1_000_000)).unwrap();
    assert_eq!(report.replayed_events, 5000);
    w.append(&(5000..6000).map(event).collect::<Vec<_>>())
        .unwrap();
    let buckets = list_buckets(dir.path()).unwrap();
    assert_eq!(buckets.len(), 1);
    let b = open_bucket(&buckets[0]).unwrap();
    let evs = read_all(b.as_ref());
    assert_eq!(evs, (0..6000).map(event).collect::<Vec<_>>());
    w.close().unwrap();
    assert_eq!(check_once(dir.path(), 6000).len(), 6000);
}
