//! Terms that always occur together share one postings entry: every term still answers with
//! its events, in a bucket written from events and in a merge of such buckets, and fsck finds
//! nothing wrong.

mod common;

use std::collections::BTreeMap;

use lode_event::Event;
use lode_store::merge::merge;
use lode_store::terms::lexicon::LexScratch;
use lode_store::{
    fsck, list_buckets, open_bucket, BucketInfo, IndexConfig, IndexWriter, TermQuery, WarmBucket,
};
use roaring::RoaringBitmap;

/// Groups of terms that occur together; the terms of group `g` are `a{g}x`, `m{g}y` and
/// `z{g}w`, far apart in term order (the `a…` entries fill more than one postings block).
const GROUPS: u64 = 80;
const EVENTS: u64 = 3000;
const PER_BUCKET: u64 = 1500;

/// Whether event `i` holds the terms of group `g` (about a third of the events).
fn member(i: u64, g: u64) -> bool {
    ((i * 1_000_003 + g * 7919).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40).is_multiple_of(3)
}

fn group_terms(g: u64) -> [String; 3] {
    [format!("a{g}x"), format!("m{g}y"), format!("z{g}w")]
}

fn event(i: u64) -> Event {
    let mut raw = format!("id{i} k{}", i % 97);
    for g in (0..GROUPS).filter(|&g| member(i, g)) {
        for t in group_terms(g) {
            raw.push(' ');
            raw.push_str(&t);
        }
    }
    Event {
        time: 1_700_000_000_000_000 + i as i64 * 1000,
        index_time: 1_700_000_100,
        linecount: 1,
        raw,
        host: "h".into(),
        source: "s".into(),
        sourcetype: "st".into(),
        index: "main".into(),
        fields: Vec::new(),
    }
}

/// The events of `first..first + n` holding group `g`, numbered from 0.
fn expected(first: u64, n: u64, g: u64) -> RoaringBitmap {
    (0..n)
        .filter(|&k| member(first + k, g))
        .map(|k| k as u32)
        .collect()
}

fn term(t: &str) -> TermQuery {
    TermQuery::Term(t.as_bytes().to_vec())
}

/// Checks that bucket `b`, holding events `first..first + n`, answers every group term with
/// its events and gives the terms of a group one lexicon value; returns how many groups
/// shared.
fn check(b: &BucketInfo, first: u64, n: u64) -> usize {
    let r = open_bucket(b).unwrap();
    assert_eq!(r.meta().event_count, n);
    let w = WarmBucket::open(&b.path).unwrap();
    let lex = w.lexicon().unwrap();
    let mut s = LexScratch::default();
    let mut shared = 0;
    let mut by_prefix: BTreeMap<char, RoaringBitmap> = BTreeMap::new();
    for g in 0..GROUPS {
        let want = expected(first, n, g);
        let mut values = Vec::new();
        for t in group_terms(g) {
            assert_eq!(r.eval(&term(&t)).unwrap(), want, "{t}");
            values.push(lex.get(t.as_bytes(), &mut s).unwrap().unwrap());
            *by_prefix.entry(t.chars().next().unwrap()).or_default() |= &want;
        }
        if values.iter().all(|&v| v == values[0]) {
            shared += 1;
        }
    }
    // Prefix walks meet shared values that point back across postings blocks.
    for (p, want) in by_prefix {
        let got = r.eval(&TermQuery::Prefix(vec![p as u8])).unwrap();
        assert_eq!(got, want, "prefix {p}");
    }
    assert_eq!(
        r.eval(&term("k5")).unwrap(),
        (0..n)
            .filter(|k| (first + k) % 97 == 5)
            .map(|k| k as u32)
            .collect()
    );
    shared
}

#[test]
fn co_occurring_terms_share_one_entry_in_buckets_and_merges() {
    let dir = tempfile::tempdir().unwrap();
    let cfg = IndexConfig {
        max_bucket_events: PER_BUCKET,
        max_merged_raw_bytes: 0,
        ..IndexConfig::default()
    };
    let (w, _) = IndexWriter::open(dir.path(), cfg).unwrap();
    let events: Vec<Event> = (0..EVENTS).map(event).collect();
    for chunk in events.chunks(PER_BUCKET as usize) {
        w.append(chunk).unwrap();
    }
    w.close().unwrap();
    let sources = list_buckets(dir.path()).unwrap();
    assert_eq!(sources.len(), 2);
    for (k, b) in sources.iter().enumerate() {
        assert_eq!(check(b, k as u64 * PER_BUCKET, PER_BUCKET), GROUPS as usize);
    }
    assert_eq!(fsck(dir.path(), false).unwrap(), vec![]);

    let merged = merge(dir.path(), &sources, &|| false).unwrap().unwrap();
    assert_eq!(check(&merged, 0, EVENTS), GROUPS as usize);
    lode_store::merge::remove_covered(dir.path()).unwrap();
    assert_eq!(fsck(dir.path(), false).unwrap(), vec![]);
}
