//! Merging warm buckets: the merged bucket holds the sources' events in order with the same
//! answers to every term query (event numbers shifted), listings show either the sources or
//! the merged bucket, recovery finishes an interrupted merge, and a writer merges in the
//! background and on close.

mod common;

use common::{event, read_all};
use lode_event::Event;
use lode_store::merge::{merge, plan, remove_covered};
use lode_store::{
    fsck, list_buckets, open_bucket, BucketInfo, BucketKind, IndexConfig, IndexWriter, TermQuery,
    WarmBucket,
};
use proptest::prelude::*;
use roaring::RoaringBitmap;

/// A writer config rolling every `events` events, never merging by itself.
fn small(events: u64) -> IndexConfig {
    IndexConfig {
        max_bucket_events: events,
        max_merged_raw_bytes: 0,
        ..IndexConfig::default()
    }
}

/// Writes events `0..n` into `dir` in buckets of `per` events, returns the warm buckets.
fn index(dir: &std::path::Path, n: u64, per: u64) -> Vec<BucketInfo> {
    let (w, _) = IndexWriter::open(dir, small(per)).unwrap();
    for chunk in (0..n).collect::<Vec<_>>().chunks(per as usize) {
        w.append(&chunk.iter().map(|&i| event(i)).collect::<Vec<_>>())
            .unwrap();
    }
    w.close().unwrap();
    let b = list_buckets(dir).unwrap();
    assert!(b.iter().all(|b| b.kind == BucketKind::Warm));
    b
}

fn never() -> bool {
    false
}

/// Terms that hit many, few and no events, field terms and prefixes.
fn queries() -> Vec<TermQuery> {
    let t = |s: &str| TermQuery::Term(s.as_bytes().to_vec());
    vec![
        t("error"),
        t("info"),
        t("seq=7"),
        t("host::web-01"),
        t("sourcetype::app:json"),
        t("env::prod"),
        t("frame"),
        t("nothing-here"),
        TermQuery::Prefix(b"u".to_vec()),
        TermQuery::And(vec![t("error"), t("host::web-03")]),
        TermQuery::Not(Box::new(t("200"))),
        TermQuery::All,
    ]
}

/// What the sources answer, laid end to end as the merge numbers events.
fn expected(sources: &[BucketInfo], q: &TermQuery) -> RoaringBitmap {
    let mut out = RoaringBitmap::new();
    let mut base = 0u32;
    for s in sources {
        let b = open_bucket(s).unwrap();
        out.extend(b.eval(q).unwrap().iter().map(|n| base + n));
        base += b.meta().event_count as u32;
    }
    out
}

#[test]
fn merged_bucket_answers_like_its_sources() {
    let dir = tempfile::tempdir().unwrap();
    // 4096-event column blocks: sources of 3000 events put block edges mid-source.
    let sources = index(dir.path(), 12_345, 3000);
    assert_eq!(sources.len(), 5);
    let events: Vec<Event> = sources
        .iter()
        .flat_map(|s| read_all(open_bucket(s).unwrap().as_ref()))
        .collect();
    let answers: Vec<RoaringBitmap> = queries().iter().map(|q| expected(&sources, q)).collect();

    // While it runs, the merge is counted among the process's running merges.
    let counted = std::sync::atomic::AtomicU32::new(0);
    let watch = || {
        let (_, merges) = lode_store::memory::running();
        counted.fetch_max(merges, std::sync::atomic::Ordering::Relaxed);
        false
    };
    let merged = merge(dir.path(), &sources[1..4], &watch).unwrap().unwrap();
    assert!(counted.into_inner() >= 1);
    assert_eq!((merged.first_id, merged.id), (sources[1].id, sources[3].id));
    // The merge hands its terms to the writing thread in runs of up to 4,096: several here.
    assert!(open_bucket(&merged).unwrap().meta().term_count > 3 * 4096);
    let listed = list_buckets(dir.path()).unwrap();
    assert_eq!(
        listed,
        vec![sources[0].clone(), merged.clone(), sources[4].clone()]
    );
    // Sources stay on disk (hidden) until removed.
    assert!(sources[2].path.exists());
    assert_eq!(remove_covered(dir.path()).unwrap(), 3);
    assert!(!sources[2].path.exists());

    let again: Vec<Event> = listed
        .iter()
        .flat_map(|s| read_all(open_bucket(s).unwrap().as_ref()))
        .collect();
    assert_eq!(again, events);
    for (q, want) in queries().iter().zip(&answers) {
        assert_eq!(&expected(&listed, q), want, "{q:?}");
    }
    let m = open_bucket(&merged).unwrap();
    let meta = m.meta();
    assert_eq!(meta.event_count, 9000);
    assert_eq!(meta.id, merged.id);
    let hosts: u64 = meta.hosts.iter().map(|h| h.count).sum();
    assert_eq!(hosts, 9000);
    assert_eq!(meta.hosts.len(), 4);
    assert_eq!(m.host_names().len(), 4);
    // Per-value statistics agree with the events.
    for (id, h) in meta.hosts.iter().enumerate() {
        let n = m.host_ids().iter().filter(|&x| x as usize == id).count() as u64;
        assert_eq!(n, h.count, "{}", h.name);
    }
    for i in [0u32, 2999, 3000, 4095, 4096, 8999] {
        let mut f = Vec::new();
        m.index_fields(i, &mut f).unwrap();
        assert_eq!(f, events[3000 + i as usize].fields);
        assert_eq!(m.time(i).unwrap(), events[3000 + i as usize].time);
    }
    assert!(fsck(dir.path(), false).unwrap().is_empty());

    // Merged buckets merge again.
    let all = list_buckets(dir.path()).unwrap();
    let whole = merge(dir.path(), &all, &never).unwrap().unwrap();
    assert_eq!((whole.first_id, whole.id), (sources[0].id, sources[4].id));
    remove_covered(dir.path()).unwrap();
    assert_eq!(list_buckets(dir.path()).unwrap(), vec![whole.clone()]);
    assert_eq!(read_all(open_bucket(&whole).unwrap().as_ref()), events);
    for (q, want) in queries().iter().zip(&answers) {
        assert_eq!(&expected(std::slice::from_ref(&whole), q), want, "{q:?}");
    }
}

/// An event of ~2 KB of log-like text (thirty of [`event`]'s lines): a bucket's first 8 MiB,
/// on which its journal dictionary is trained, in ~4,000 events.
fn big(i: u64) -> Event {
    let mut e = event(i);
    e.raw = (0..30)
        .map(|k| event(i * 30 + k).raw)
        .collect::<Vec<_>>()
        .join(" ");
    e.linecount = Event::count_lines(&e.raw);
    e
}

/// Consecutive buckets of a lane share the journal dictionary the first one trained, and a
/// merge keeps one copy of it; the merged bucket reads back the same events.
#[test]
fn consecutive_buckets_share_a_journal_dictionary_and_a_merge_keeps_one() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = IndexConfig {
        max_bucket_raw_bytes: 9 << 20,
        max_merged_raw_bytes: 0,
        ..IndexConfig::default()
    };
    let (w, _) = IndexWriter::open(dir.path(), cfg).unwrap();
    let events: Vec<Event> = (0..12_000).map(big).collect();
    for chunk in events.chunks(500) {
        w.append(chunk).unwrap();
    }
    w.close().unwrap();
    let sources = list_buckets(dir.path()).unwrap();
    assert_eq!(sources.len(), 3);
    let dicts: Vec<Vec<Vec<u8>>> = sources
        .iter()
        .map(|s| {
            let b = WarmBucket::open(&s.path).unwrap();
            b.journal_table().unwrap().dicts.dicts.clone()
        })
        .collect();
    assert_eq!(dicts[0].len(), 1);
    assert!(
        !dicts[0][0].is_empty(),
        "the first bucket trained no dictionary"
    );
    assert_eq!(dicts[1], dicts[0]);
    assert_eq!(dicts[2], dicts[0]);

    let merged = merge(dir.path(), &sources, &never).unwrap().unwrap();
    remove_covered(dir.path()).unwrap();
    let m = WarmBucket::open(&merged.path).unwrap();
    assert_eq!(m.journal_table().unwrap().dicts.dicts, dicts[0]);
    assert_eq!(read_all(&m), events);
    assert!(fsck(dir.path(), false).unwrap().is_empty());
}

#[test]
fn refuses_what_it_cannot_merge() {
    let dir = tempfile::tempdir().unwrap();
    let b = index(dir.path(), 900, 300);
    let gap = [b[0].clone(), b[2].clone()];
    let err = merge(dir.path(), &gap, &never).unwrap_err().to_string();
    assert!(err.contains("not contiguous"), "{err}");
    let err = merge(dir.path(), &b[..1], &never).unwrap_err().to_string();
    assert!(err.contains("at least two"), "{err}");
    // Cancelled: nothing published, no temporary directory left.
    assert!(merge(dir.path(), &b, &|| true).unwrap().is_none());
    assert_eq!(list_buckets(dir.path()).unwrap(), b);
    assert!(
        tmp_dirs(dir.path()).is_empty(),
        "{:?}",
        tmp_dirs(dir.path())
    );
}

/// Names in `dir` of merges that did not finish.
fn tmp_dirs(dir: &std::path::Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("tmp_"))
        .collect()
}

/// The terms of a merge are merged on a thread beside the journal and columns: a damaged
/// file on either side fails the merge with an error naming it, and a cancel at any of the
/// merge's polls stops it; either way nothing is published or left behind, and the sources
/// still answer.
#[test]
fn a_failure_or_cancel_on_either_side_stops_the_merge() {
    for file in ["postings.dat", "columns.dat"] {
        let dir = tempfile::tempdir().unwrap();
        let b = index(dir.path(), 3000, 1000);
        let path = b[1].path.join(file);
        let mut bytes = std::fs::read(&path).unwrap();
        let mid = bytes.len() / 2;
        bytes[mid..mid + 64].fill(0xa5);
        std::fs::write(&path, &bytes).unwrap();
        let err = merge(dir.path(), &b, &never).unwrap_err().to_string();
        assert!(err.contains(file), "{file}: {err}");
        assert_eq!(list_buckets(dir.path()).unwrap(), b);
        assert!(tmp_dirs(dir.path()).is_empty(), "{file}");
    }
    // Three sources: the journal and columns side polls once before each.
    for after in [0, 1, 2] {
        let dir = tempfile::tempdir().unwrap();
        let b = index(dir.path(), 3000, 1000);
        let polls = std::sync::atomic::AtomicUsize::new(0);
        let cancel = || polls.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= after;
        assert!(merge(dir.path(), &b, &cancel).unwrap().is_none(), "{after}");
        assert_eq!(list_buckets(dir.path()).unwrap(), b);
        assert!(tmp_dirs(dir.path()).is_empty(), "{after}");
        assert_eq!(read_all(&*open_bucket(&b[2]).unwrap()).len(), 1000);
    }
}

#[test]
fn recovery_finishes_an_interrupted_merge() {
    let dir = tempfile::tempdir().unwrap();
    let b = index(dir.path(), 900, 300);
    // Published, sources not yet deleted (a crash, or a close within the grace period).
    let merged = merge(dir.path(), &b[..2], &never).unwrap().unwrap();
    // And a merge that never reached its rename.
    std::fs::create_dir(dir.path().join("tmp_1-2")).unwrap();
    let (w, report) = IndexWriter::open(dir.path(), small(300)).unwrap();
    assert_eq!(report.merged_sources_removed, 2);
    assert!(!b[0].path.exists() && !dir.path().join("tmp_1-2").exists());
    assert_eq!(
        list_buckets(dir.path()).unwrap(),
        vec![merged, b[2].clone()]
    );
    // New buckets get ids after the merged range.
    w.append(&[event(5000)]).unwrap();
    w.close().unwrap();
    let ids: Vec<u64> = list_buckets(dir.path())
        .unwrap()
        .iter()
        .map(|b| b.id)
        .collect();
    assert_eq!(ids, vec![1, 2, 3]);
}

#[test]
fn writer_merges_in_the_background_and_on_close() {
    let dir = tempfile::tempdir().unwrap();
    let raw: u64 = (0..3000).map(|i| event(i).raw.len() as u64).sum();
    let cfg = IndexConfig {
        max_bucket_events: 250,
        // About four buckets per merge.
        max_merged_raw_bytes: raw / 3,
        merge_grace_secs: 0,
        ..IndexConfig::default()
    };
    let (w, _) = IndexWriter::open(dir.path(), cfg.clone()).unwrap();
    for chunk in (0..3000u64).collect::<Vec<_>>().chunks(125) {
        w.append(&chunk.iter().map(|&i| event(i)).collect::<Vec<_>>())
            .unwrap();
    }
    w.roll().unwrap();
    w.merge().unwrap();
    let listed = list_buckets(dir.path()).unwrap();
    assert!(listed.len() < 12, "{} buckets", listed.len());
    assert!(listed.iter().any(|b| b.first_id != b.id));
    w.close().unwrap();
    // Every event exactly once.
    let mut seqs: Vec<u64> = list_buckets(dir.path())
        .unwrap()
        .iter()
        .flat_map(|b| read_all(open_bucket(b).unwrap().as_ref()))
        .map(|e| {
            let s = e.raw.split("seq=").nth(1).unwrap();
            s.split(' ').next().unwrap().parse().unwrap()
        })
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (0..3000).collect::<Vec<_>>());
    // Nothing left to merge, and no hidden source left on disk.
    assert!(plan(dir.path(), cfg.max_merged_raw_bytes)
        .unwrap()
        .is_empty());
    assert_eq!(remove_covered(dir.path()).unwrap(), 0);
    assert!(fsck(dir.path(), false).unwrap().is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Any split of a random run of events into buckets merges into a bucket that reads back
    /// the same events and answers every term of the events like the sources.
    #[test]
    fn merge_preserves_events_and_postings(
        seeds in proptest::collection::vec(0u64..5000, 2..400),
        per in 1u64..120,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (w, _) = IndexWriter::open(dir.path(), small(per)).unwrap();
        for chunk in seeds.chunks(per as usize) {
            w.append(&chunk.iter().map(|&i| event(i)).collect::<Vec<_>>()).unwrap();
        }
        w.close().unwrap();
        let sources = list_buckets(dir.path()).unwrap();
        prop_assume!(sources.len() >= 2);
        let events: Vec<Event> = sources
            .iter()
            .flat_map(|s| read_all(open_bucket(s).unwrap().as_ref()))
            .collect();
        let mut terms: Vec<TermQuery> = queries();
        for e in events.iter().take(5) {
            for word in e.raw.split([' ', '\n', '=', '/', '?']).filter(|w| !w.is_empty()) {
                terms.push(TermQuery::Term(word.to_ascii_lowercase().into_bytes()));
            }
        }
        let want: Vec<RoaringBitmap> = terms.iter().map(|q| expected(&sources, q)).collect();
        let merged = merge(dir.path(), &sources, &never).unwrap().unwrap();
        let m = open_bucket(&merged).unwrap();
        prop_assert_eq!(read_all(m.as_ref()), events);
        for (q, want) in terms.iter().zip(&want) {
            prop_assert_eq!(&m.eval(q).unwrap(), want, "{:?}", q);
        }
        prop_assert_eq!(m.meta().term_count, {
            let mut all = std::collections::BTreeSet::new();
            for s in &sources {
                let b = lode_store::WarmBucket::open(&s.path).unwrap();
                let lex = b.lexicon().unwrap();
                lex.walk(b"", &mut Default::default(), &mut |t, _| {
                    all.insert(t.to_vec());
                    Ok(true)
                }).unwrap();
            }
            all.len() as u64
        });
    }
}
