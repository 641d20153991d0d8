//! Write events, roll, read every field back exactly; hot and warm readers agree.

mod common;

use common::{event, read_all};
use lode_store::{
    inspect, list_buckets, open_bucket, BucketKind, IndexConfig, IndexWriter, StoreError, TermQuery,
};

fn cfg() -> IndexConfig {
    IndexConfig {
        max_bucket_events: 2500,
        ..IndexConfig::default()
    }
}

#[test]
fn round_trip_hot_and_warm() {
    let dir = tempfile::tempdir().unwrap();
    let events: Vec<_> = (0..6000).map(event).collect();
    let (w, report) = IndexWriter::open(dir.path(), cfg()).unwrap();
    assert_eq!(report.replayed_events, 0);
    for chunk in events.chunks(97) {
        w.append(chunk).unwrap();
    }
    drop(w);
    let buckets = list_buckets(dir.path()).unwrap();
    let kinds: Vec<_> = buckets.iter().map(|b| b.kind).collect();
    // Rolls happen after the batch that reaches 2500 events.
    assert_eq!(
        kinds,
        vec![BucketKind::Warm, BucketKind::Warm, BucketKind::Hot]
    );
    let mut got = Vec::new();
    for info in &buckets {
        let b = open_bucket(info).unwrap();
        let evs = read_all(b.as_ref());
        assert_eq!(b.times().len(), evs.len());
        for (i, e) in evs.iter().enumerate() {
            let id = |c: lode_store::columns::Column<'_, u32>| c.get(i).unwrap() as usize;
            assert_eq!(b.times().get(i), Some(e.time));
            assert_eq!(b.host_names()[id(b.host_ids())], e.host);
            assert_eq!(b.source_names()[id(b.source_ids())], e.source);
            assert_eq!(b.sourcetype_names()[id(b.sourcetype_ids())], e.sourcetype);
        }
        if info.kind == BucketKind::Warm {
            let m = b.meta();
            assert!(info.min_time_secs * 1_000_000 <= m.min_time);
            assert!(info.max_time_secs * 1_000_000 >= m.max_time);
            assert_eq!(m.hosts.iter().map(|h| h.count).sum::<u64>(), m.event_count);
        }
        got.extend(evs);
    }
    assert_eq!(got, events);
}

#[test]
fn warm_and_hot_answer_queries_alike() {
    let dir = tempfile::tempdir().unwrap();
    let events: Vec<_> = (0..700).map(event).collect();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    w.append(&events).unwrap();
    let hot = open_bucket(&list_buckets(dir.path()).unwrap()[0]).unwrap();
    w.close().unwrap();
    let infos = list_buckets(dir.path()).unwrap();
    assert_eq!(infos.len(), 1);
    assert_eq!(infos[0].kind, BucketKind::Warm);
    let warm = open_bucket(&infos[0]).unwrap();
    let queries = [
        TermQuery::Term(b"error".to_vec()),
        TermQuery::Term(b"ERROR".to_vec()),
        TermQuery::Term(b"host::web-01".to_vec()),
        TermQuery::Term(b"env::prod".to_vec()),
        TermQuery::Prefix(b"seq=1".to_vec()),
        TermQuery::Glob(b"/api/v*/items?id=*".to_vec()),
        TermQuery::And(vec![
            TermQuery::Term(b"error".to_vec()),
            TermQuery::Not(Box::new(TermQuery::Term(b"u1".to_vec()))),
        ]),
        TermQuery::Or(vec![]),
        TermQuery::All,
    ];
    for q in &queries {
        assert_eq!(hot.eval(q).unwrap(), warm.eval(q).unwrap(), "{q:?}");
    }
    assert_eq!(warm.eval(&TermQuery::All).unwrap().len(), 700);
    assert!(warm.may_contain(b"error"));
    assert!(hot.may_contain(b"error"));
    assert!(!hot.may_contain(b"nosuchterm"));
    assert_eq!(read_all(warm.as_ref()), read_all(hot.as_ref()));
    let summary = inspect(&infos[0].path).unwrap();
    assert_eq!(summary.meta.event_count, 700);
    assert!(summary.to_string().contains("web-0"));
    let layout = summary.warm.expect("a warm bucket's layout");
    assert!(layout.lexicon_blocks >= 1 && layout.lexicon_index_bytes > 0);
    assert!(summary.to_string().contains("lexicon     "));
}

#[test]
fn read_events_stops_early_and_rejects_bad_ids() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    w.append(&(0..50).map(event).collect::<Vec<_>>()).unwrap();
    w.close().unwrap();
    let b = open_bucket(&list_buckets(dir.path()).unwrap()[0]).unwrap();
    let mut seen = Vec::new();
    b.read_events(&mut [3u32, 9, 20].into_iter(), &mut |v| {
        seen.push(v.num);
        v.num < 9
    })
    .unwrap();
    assert_eq!(seen, vec![3, 9]);
    let err = b.read_events(&mut [50u32].into_iter(), &mut |_| true);
    assert!(matches!(err, Err(StoreError::Limit(_))));
}

#[test]
fn second_writer_is_locked_out() {
    let dir = tempfile::tempdir().unwrap();
    let (_w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    assert!(matches!(
        IndexWriter::open(dir.path(), IndexConfig::default()),
        Err(StoreError::Locked { .. })
    ));
}

#[test]
fn concurrent_appends_are_all_durable() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), cfg()).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let w = &w;
            s.spawn(move || {
                for k in 0..50u64 {
                    w.append(&[event(t * 1000 + k)]).unwrap();
                }
            });
        }
    });
    w.close().unwrap();
    let mut seqs = Vec::new();
    for info in list_buckets(dir.path()).unwrap() {
        for e in read_all(open_bucket(&info).unwrap().as_ref()) {
            seqs.push(e.index_time - 1_700_000_100);
        }
    }
    seqs.sort();
    let mut want: Vec<i64> = (0..4)
        .flat_map(|t| (0..50).map(move |k| t * 1000 + k))
        .collect();
    want.sort();
    assert_eq!(seqs, want);
}

/// Regression: a bucket whose events all have an empty `_raw` once referenced a journal slice
/// that was never written.
#[test]
fn empty_raw_events_regression() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    let mut events: Vec<_> = (0..3).map(event).collect();
    events.iter_mut().for_each(|e| e.raw.clear());
    w.append(&events).unwrap();
    let hot = open_bucket(&list_buckets(dir.path()).unwrap()[0]).unwrap();
    assert_eq!(read_all(hot.as_ref()), events);
    w.close().unwrap();
    let warm = open_bucket(&list_buckets(dir.path()).unwrap()[0]).unwrap();
    assert_eq!(read_all(warm.as_ref()), events);
}

#[test]
fn listing_hides_a_hot_copy_of_a_rolled_bucket_and_open_follows_the_roll() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    w.append(&(0..20).map(event).collect::<Vec<_>>()).unwrap();
    let hot_info = list_buckets(dir.path()).unwrap()[0].clone();
    assert_eq!(hot_info.kind, BucketKind::Hot);
    let wal = std::fs::read(hot_info.path.join("wal.log")).unwrap();
    w.roll().unwrap();
    // The listing taken before the roll still opens: it finds the warm successor.
    let b = open_bucket(&hot_info).unwrap();
    assert_eq!(b.meta().event_count, 20);
    // Both copies on disk (as between rename and delete): only the warm one is listed.
    std::fs::create_dir(&hot_info.path).unwrap();
    std::fs::write(hot_info.path.join("wal.log"), wal).unwrap();
    let infos = list_buckets(dir.path()).unwrap();
    assert_eq!(infos.len(), 1);
    assert_eq!(infos[0].kind, BucketKind::Warm);
}

/// Between a roll's unregistering of its hot index and its deletion of the hot directory, a
/// search holding an older listing must open the warm successor, not replay the WAL (for a
/// full bucket: seconds and its whole index in memory). The hot directory here holds an older
/// WAL, so a replay would show fewer events.
#[test]
fn a_rolled_hot_bucket_still_on_disk_opens_as_its_warm_successor() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    let events: Vec<_> = (0..20).map(event).collect();
    w.append(&events[..10]).unwrap();
    let hot_info = list_buckets(dir.path()).unwrap()[0].clone();
    let wal = std::fs::read(hot_info.path.join("wal.log")).unwrap();
    w.append(&events[10..]).unwrap();
    w.roll().unwrap();
    std::fs::create_dir(&hot_info.path).unwrap();
    std::fs::write(hot_info.path.join("wal.log"), wal).unwrap();
    let b = open_bucket(&hot_info).unwrap();
    assert_eq!(b.meta().event_count, 20);
    assert_eq!(read_all(b.as_ref()), events);
}

#[test]
fn hot_snapshots_grow_incrementally_and_stay_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    let events: Vec<_> = (0..400).map(event).collect();
    w.append(&events[..150]).unwrap();
    let info = list_buckets(dir.path()).unwrap()[0].clone();
    let first = open_bucket(&info).unwrap();
    w.append(&events[150..]).unwrap();
    let second = open_bucket(&info).unwrap();
    let q = TermQuery::Term(b"error".to_vec());
    // The first snapshot is unaffected by what was indexed for the second.
    assert_eq!(first.meta().event_count, 150);
    assert_eq!(read_all(first.as_ref()), events[..150].to_vec());
    assert!(first.eval(&q).unwrap().iter().all(|n| n < 150));
    assert_eq!(read_all(second.as_ref()), events);
    let want: Vec<u32> = (0..400).filter(|i| i % 7 == 0).collect();
    assert_eq!(
        second.eval(&q).unwrap().into_iter().collect::<Vec<_>>(),
        want
    );
    assert_eq!(
        first
            .eval(&TermQuery::Prefix(b"seq=39".to_vec()))
            .unwrap()
            .len(),
        1,
        "only seq=39: seq=390..399 arrived after the first snapshot"
    );
    assert_eq!(
        second
            .eval(&TermQuery::Prefix(b"seq=39".to_vec()))
            .unwrap()
            .len(),
        11
    );
    assert!(!first.may_contain(b"seq=399"));
    assert!(second.may_contain(b"seq=399"));
}

#[test]
fn many_postings_blocks_answer_like_the_hot_index() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    let events: Vec<_> = (0..30_000u64)
        .map(|i| {
            let mut e = event(i);
            e.raw = format!("{} tok{} grp{} all", e.raw, i % 10_000, i % 37);
            e
        })
        .collect();
    w.append(&events).unwrap();
    let hot = open_bucket(&list_buckets(dir.path()).unwrap()[0]).unwrap();
    w.close().unwrap();
    let warm = open_bucket(&list_buckets(dir.path()).unwrap()[0]).unwrap();
    let queries = [
        TermQuery::Prefix(b"tok1".to_vec()),
        TermQuery::Glob(b"*9".to_vec()),
        TermQuery::Glob(b"grp*".to_vec()),
        TermQuery::Term(b"tok9999".to_vec()),
        TermQuery::Term(b"all".to_vec()),
        TermQuery::Or(
            (0..50)
                .map(|i| TermQuery::Term(format!("tok{}", i * 79).into_bytes()))
                .collect(),
        ),
    ];
    for q in &queries {
        let (h, wm) = (hot.eval(q).unwrap(), warm.eval(q).unwrap());
        assert!(!h.is_empty(), "{q:?}");
        assert_eq!(h, wm, "{q:?}");
    }
    assert!(lode_store::fsck(dir.path(), false).unwrap().is_empty());
    // The postings span several compressed blocks (block table: 24 bytes per block + 16).
    let info = &list_buckets(dir.path()).unwrap()[0];
    let body = std::fs::read(info.path.join("postings.dat")).unwrap();
    let n = body.len() - 24;
    let table_len = u64::from_le_bytes(body[n - 8..n].try_into().unwrap()) as usize;
    assert!(
        table_len >= 8 + 3 * 24,
        "only {} blocks",
        (table_len - 8) / 24
    );
}
