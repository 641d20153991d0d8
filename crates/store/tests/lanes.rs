//! A writer with several lanes (one per ingestion pipeline set): each lane has its own hot
//! bucket, ids stay unique, every hot bucket is recovered after a crash, and fsck accepts them.

mod common;

use std::collections::BTreeSet;
use std::io::Write;

use common::{event, read_all};
use lode_store::consts::WAL_FILE;
use lode_store::{fsck, list_buckets, open_bucket, BucketKind, IndexConfig, IndexWriter};

fn cfg() -> IndexConfig {
    IndexConfig {
        max_bucket_events: 1_000_000,
        ..IndexConfig::default()
    }
}

/// Every event of the index, read bucket by bucket, as sorted raw texts.
fn all_raws(dir: &std::path::Path) -> Vec<String> {
    let mut raws: Vec<String> = list_buckets(dir)
        .unwrap()
        .iter()
        .flat_map(|info| read_all(open_bucket(info).unwrap().as_ref()))
        .map(|e| e.raw)
        .collect();
    raws.sort();
    raws
}

fn sorted_raws(ids: impl Iterator<Item = u64>) -> Vec<String> {
    let mut v: Vec<String> = ids.map(|i| event(i).raw).collect();
    v.sort();
    v
}

/// Appends events `from..to` to `lane` in batches of 50 from one thread per lane.
fn append_concurrently(w: &IndexWriter, ranges: &[(usize, u64, u64)]) {
    std::thread::scope(|s| {
        for &(lane, from, to) in ranges {
            s.spawn(move || {
                let events: Vec<_> = (from..to).map(event).collect();
                for chunk in events.chunks(50) {
                    w.append_to(lane, chunk.to_vec()).unwrap();
                }
            });
        }
    });
}

#[test]
fn two_lanes_fill_two_hot_buckets_with_unique_ids() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open_lanes(dir.path(), cfg(), 2).unwrap();
    assert_eq!(w.lanes(), 2);
    append_concurrently(&w, &[(0, 0, 1000), (1, 1000, 2000)]);
    let buckets = list_buckets(dir.path()).unwrap();
    assert_eq!(buckets.len(), 2, "{buckets:?}");
    assert!(buckets.iter().all(|b| b.kind == BucketKind::Hot));
    let counts: Vec<u32> = buckets
        .iter()
        .map(|b| open_bucket(b).unwrap().meta().event_count as u32)
        .collect();
    assert_eq!(counts, [1000, 1000]);
    assert_eq!(all_raws(dir.path()), sorted_raws(0..2000));
    // Rolling rolls both; later appends open new buckets with fresh ids.
    w.roll().unwrap();
    append_concurrently(&w, &[(0, 2000, 2100), (1, 2100, 2200)]);
    w.close().unwrap();
    let buckets = list_buckets(dir.path()).unwrap();
    let ids: BTreeSet<u64> = buckets.iter().map(|b| b.id).collect();
    assert_eq!(ids.len(), 4, "ids must be unique: {buckets:?}");
    assert!(buckets.iter().all(|b| b.kind == BucketKind::Warm));
    assert_eq!(all_raws(dir.path()), sorted_raws(0..2200));
}

#[test]
fn crash_with_two_hot_buckets_recovers_both() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open_lanes(dir.path(), cfg(), 2).unwrap();
    append_concurrently(&w, &[(0, 0, 700), (1, 700, 1500)]);
    // A crash: no roll; then a torn record at the end of one WAL.
    drop(w);
    let hots: Vec<_> = list_buckets(dir.path()).unwrap();
    assert_eq!(hots.len(), 2);
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(hots[1].path.join(WAL_FILE))
        .unwrap();
    f.write_all(&[200, 0, 0, 0, 1, 2, 3]).unwrap();
    drop(f);
    assert!(fsck(dir.path(), false).unwrap().is_empty());

    let (w, report) = IndexWriter::open_lanes(dir.path(), cfg(), 2).unwrap();
    assert_eq!(report.replayed_events, 1500);
    assert_eq!(report.truncated_bytes, 7);
    assert!(report.quarantined.is_empty());
    // Both hot buckets are open again, one per lane, and keep growing.
    append_concurrently(&w, &[(0, 1500, 1600), (1, 1600, 1700)]);
    let buckets = list_buckets(dir.path()).unwrap();
    assert_eq!(buckets.len(), 2, "{buckets:?}");
    assert_eq!(all_raws(dir.path()), sorted_raws(0..1700));
    drop(w);

    // Reopened with one lane, the older hot bucket is rolled and the newest stays hot.
    let (w, report) = IndexWriter::open_lanes(dir.path(), cfg(), 1).unwrap();
    assert_eq!(report.replayed_events, 1700);
    let kinds: Vec<_> = list_buckets(dir.path())
        .unwrap()
        .iter()
        .map(|b| b.kind)
        .collect();
    assert_eq!(kinds, [BucketKind::Warm, BucketKind::Hot]);
    w.append(&[event(1700)]).unwrap();
    w.close().unwrap();
    assert_eq!(all_raws(dir.path()), sorted_raws(0..1701));
    assert!(fsck(dir.path(), false).unwrap().is_empty());
}

#[test]
fn lane_numbers_wrap() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open_lanes(dir.path(), cfg(), 2).unwrap();
    w.append_to(2, vec![event(0)]).unwrap();
    w.append_to(3, vec![event(1)]).unwrap();
    assert_eq!(list_buckets(dir.path()).unwrap().len(), 2);
    w.close().unwrap();
    assert_eq!(all_raws(dir.path()), sorted_raws(0..2));
}
