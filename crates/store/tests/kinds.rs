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

/// A newest-first read of some kinds takes only the blocks holding events of those kinds, by
/// their newest such event (`BucketRead::blocks_newest_first_of`): sourcetypes whose clocks
/// run days apart and out of step with arrival, in batches across several column blocks.
#[test]
fn blocks_newest_first_of_some_kinds_are_those_holding_them_by_their_newest() {
    use lode_store::BucketRead;
    // Bits in term order of the sourcetype terms: alpha, beta, delta:json, gamma.
    let bit = |st: usize| [0, 0, 1, 3, 2][st];
    for seed in 1..5u64 {
        let dir = tempfile::tempdir().unwrap();
        let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
        let mut rng = seed;
        let mut next = move |n: u64| {
            rng = rng
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (rng >> 33) % n
        };
        let mut events = Vec::new();
        // Sourcetype 3 ("gamma") only in the first half, so later blocks lack it.
        while events.len() < 6_000 {
            let st = next(if events.len() < 3_000 { 5 } else { 3 }) as usize;
            // Long batches keep the kinds as runs, short ones as a byte per event.
            for _ in 0..1 + next(if seed % 2 == 0 { 400 } else { 8 }) {
                let i = events.len() as u64;
                let mut e = event(i, st, &[st, 9]);
                // Each kind its own clock, days apart; alpha's runs backwards.
                let day = 86_400_000_000 * bit(st) as i64;
                let jitter = next(1_000_000) as i64;
                e.time = match bit(st) {
                    0 => 1_800_000_000_000_000 - i as i64 * 1_000_000 + jitter,
                    _ => 1_700_000_000_000_000 + day + i as i64 * 1_000_000 + jitter,
                };
                events.push(e);
            }
        }
        // The last event the newest of its kind: a run cut short loses it.
        let mut last = event(events.len() as u64, 2, &[2, 9]);
        last.time = 1_900_000_000_000_000;
        events.push(last);
        w.append(&events).unwrap();
        w.close().unwrap();
        let sources = list_buckets(dir.path()).unwrap();
        assert_eq!(sources.len(), 1);
        let b = WarmBucket::open(&sources[0].path).unwrap();
        let (per, plain) = b.blocks_newest_first().unwrap();
        let naive = |mask: u64| {
            let mut newest: BTreeMap<u32, i64> = BTreeMap::new();
            for (n, e) in events.iter().enumerate() {
                let st = SOURCETYPES.iter().position(|s| *s == e.sourcetype).unwrap();
                if mask >> bit(st) & 1 == 1 {
                    let m = newest.entry(n as u32 / per).or_insert(i64::MIN);
                    *m = (*m).max(e.time);
                }
            }
            let mut order: Vec<(i64, u32)> = newest.into_iter().map(|(b, t)| (t, b)).collect();
            order.sort_unstable_by(|a, b| b.cmp(a));
            order
        };
        assert_eq!(*plain, *naive(u64::MAX));
        // The first few reads of some kinds take the plain order.
        for _ in 0..lode_store::bucket::warm::KIND_TIMES_AFTER {
            assert_eq!(b.blocks_newest_first_of(0b1).unwrap().1, plain);
        }
        for mask in [
            0,
            0b1,
            0b10,
            0b100,
            0b1000,
            0b101,
            0b1010,
            0b111,
            0b1111,
            u64::MAX,
        ] {
            let (p, order) = b.blocks_newest_first_of(mask).unwrap();
            assert_eq!(p, per);
            assert_eq!(*order, *naive(mask), "seed {seed}, mask {mask:#b}");
        }
        // A query's kinds: a term's own, common bits of an And, all bits of an Or.
        let term = |t: &str| TermQuery::Term(t.as_bytes().to_vec());
        assert_eq!(b.query_kinds(&term("w0")), 0b1);
        assert_eq!(b.query_kinds(&term("W9")), 0b1111);
        assert_eq!(b.query_kinds(&term("absent")), 0);
        assert_eq!(
            b.query_kinds(&TermQuery::Or(vec![term("w3"), term("w4")])),
            0b1100
        );
        assert_eq!(
            b.query_kinds(&TermQuery::And(vec![term("w9"), term("sourcetype::beta")])),
            0b10
        );
        assert_eq!(
            b.query_kinds(&TermQuery::Not(Box::new(term("w0")))),
            u64::MAX
        );
        assert_eq!(b.query_kinds(&TermQuery::Prefix(b"w".to_vec())), u64::MAX);
    }
}
