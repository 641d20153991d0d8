//! Kinds masks (`bucket::kinds`, rule KINDS of `lode_store::query::eval`): every pointer term
//! of a rolled or merged bucket has the mask of its events' sourcetypes, two terms' masks share
//! a bit exactly when some sourcetype has events with each, and an `And` answers as the naive
//! intersection whether or not the masks cut it short.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::read_all;
use lode_event::Event;
use lode_store::merge::merge;
use lode_store::query::TermSource;
use lode_store::{list_buckets, IndexConfig, IndexWriter, TermQuery, WarmBucket};
use proptest::prelude::*;
use roaring::RoaringBitmap;

/// Sourcetype names: the first two differ in case only, so they are one term and one kind.
const SOURCETYPES: [&str; 5] = ["Alpha", "alpha", "beta", "gamma", "delta:json"];

/// Event `i` of sourcetype `st` holding `words` (indices into `w0..w11`).
fn event(i: u64, st: usize, words: &[usize]) -> Event {
    let raw = words
        .iter()
        .map(|w| format!("w{w}"))
        .collect::<Vec<_>>()
        .join(" ");
    Event {
        time: 1_700_000_000_000_000 + i as i64 * 1_000,
        index_time: 1_700_000_100,
        linecount: 1,
        raw,
        host: "h".into(),
        source: "s".into(),
        sourcetype: SOURCETYPES[st].into(),
        index: "main".into(),
        fields: Vec::new(),
    }
}

/// Per term of `events` (numbered in order): its events and the (lowercased) sourcetypes of
/// those events. Terms are the words and the `sourcetype::…` field terms.
fn naive(events: &[Event]) -> BTreeMap<Vec<u8>, (RoaringBitmap, BTreeSet<String>)> {
    let mut m: BTreeMap<Vec<u8>, (RoaringBitmap, BTreeSet<String>)> = BTreeMap::new();
    for (n, e) in events.iter().enumerate() {
        let st = e.sourcetype.to_ascii_lowercase();
        let field = format!("sourcetype::{st}");
        for t in e.raw.split(' ').chain([field.as_str()]) {
            let entry = m.entry(t.as_bytes().to_vec()).or_default();
            entry.0.insert(n as u32);
            entry.1.insert(st.clone());
        }
    }
    m
}

/// Checks every pair of terms of `bucket` against the naive answer.
fn check(bucket: &WarmBucket) -> Result<(), TestCaseError> {
    let events = read_all(bucket);
    let want = naive(&events);
    let kinds: Vec<Option<u64>> = want
        .keys()
        .map(|t| TermSource::term_kinds(bucket, t).unwrap())
        .collect();
    for ((t, (evs, _)), k) in want.iter().zip(&kinds) {
        // A term of one event is stored inline, without kinds; every other has them.
        prop_assert_eq!(
            k.is_some(),
            evs.len() > 1,
            "{:?}",
            String::from_utf8_lossy(t)
        );
    }
    prop_assert_eq!(TermSource::term_kinds(bucket, b"absent").unwrap(), Some(0));
    for (i, (a, (ea, sa))) in want.iter().enumerate() {
        for (j, (b, (eb, sb))) in want.iter().enumerate().skip(i + 1) {
            if let (Some(ka), Some(kb)) = (kinds[i], kinds[j]) {
                prop_assert_eq!(
                    ka & kb == 0,
                    sa.is_disjoint(sb),
                    "{:?} {:?}",
                    String::from_utf8_lossy(a),
                    String::from_utf8_lossy(b)
                );
            }
            let q = TermQuery::And(vec![TermQuery::Term(a.clone()), TermQuery::Term(b.clone())]);
            prop_assert_eq!(lode_store::query::eval(bucket, &q).unwrap(), ea & eb);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Each event is of one sourcetype and holds words mostly of its own: sourcetype `k`
    /// draws from `w(2k)..w(2k+4)`, so some words are one sourcetype's and some are shared.
    #[test]
    fn kinds_masks_tell_apart_exactly_the_terms_of_no_common_sourcetype(
        evs in proptest::collection::vec(
            (0usize..SOURCETYPES.len(), proptest::collection::vec(0usize..4, 1..4)),
            2..160),
        per in 10u64..60,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let config = IndexConfig {
            max_bucket_events: per,
            max_merged_raw_bytes: 0,
            ..IndexConfig::default()
        };
        let (w, _) = IndexWriter::open(dir.path(), config).unwrap();
        let events: Vec<Event> = evs
            .iter()
            .enumerate()
            .map(|(i, (st, words))| {
                let words: Vec<usize> = words.iter().map(|w| 2 * st + w).collect();
                event(i as u64, *st, &words)
            })
            .collect();
        // A bucket rolls between appends once it holds `per` events.
        for chunk in events.chunks(per as usize) {
            w.append(chunk).unwrap();
        }
        w.close().unwrap();
        let sources = list_buckets(dir.path()).unwrap();
        for s in &sources {
            check(&WarmBucket::open(&s.path).unwrap())?;
        }
        prop_assert_eq!(sources.len(), events.len().div_ceil(per as usize));
        if sources.len() > 1 {
            let merged = merge(dir.path(), &sources, &|| false).unwrap().unwrap();
            let m = WarmBucket::open(&merged.path).unwrap();
            prop_assert_eq!(read_all(&m), events);
            check(&m)?;
        }
    }
}

#[test]
fn an_and_of_terms_of_no_common_sourcetype_reads_no_postings_entry() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    // Even events: sourcetype "alpha", words w0 and w2; odd ones: "beta", w1 and w2.
    let events: Vec<Event> = (0..200)
        .map(|i| event(i, if i % 2 == 0 { 0 } else { 2 }, &[(i % 2) as usize, 2]))
        .collect();
    w.append(&events).unwrap();
    w.close().unwrap();
    let sources = list_buckets(dir.path()).unwrap();
    let b = WarmBucket::open(&sources[0].path).unwrap();
    let and = |a: &str, c: &str| {
        let q = TermQuery::And(vec![
            TermQuery::Term(a.as_bytes().to_vec()),
            TermQuery::Term(c.as_bytes().to_vec()),
        ]);
        lode_store::query::eval(&b, &q).unwrap().len()
    };
    assert_eq!(and("w0", "w1"), 0);
    assert_eq!(and("sourcetype::beta", "w0"), 0);
    // Answered from the lexicon: no entry's head (kind and size) was read.
    assert_eq!(b.known_heads_held(), 0);
    assert_eq!(and("w0", "w2"), 100);
    assert_eq!(and("sourcetype::alpha", "w0"), 100);
    assert!(b.known_heads_held() > 0);
}
