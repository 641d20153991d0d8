//! An `And` whose events left are few narrows by its later terms walking their postings
//! (`TermSource::postings_among`) instead of building their bitmaps, and a warm bucket
//! intersects an `And` of terms whose shortest list is sparse by listing that list and
//! filtering it by the others (`TermSource::terms_and`): the answers are those of the events'
//! text, in a hot bucket (which builds) and in the warm bucket it rolls into (which walks),
//! whichever term comes first; and two chunked lists intersected container by container.

use lode_event::Event;
use lode_store::{list_buckets, open_bucket, BucketKind, IndexWriter, TermQuery};
use roaring::RoaringBitmap;

/// Events of 6,000: `every` on all, `third` on one in three, `rare` on one in 100 (fewer than
/// one in 64: later terms are walked), `fifth` on one in five, and `once` on event 4,200.
fn events() -> Vec<Event> {
    (0..6000u64)
        .map(|i| {
            let mut raw = format!("2024-01-01 seq={i} every");
            for (word, k) in [("third", 3), ("rare", 100), ("fifth", 5)] {
                if i % k == 0 {
                    raw.push(' ');
                    raw.push_str(word);
                }
            }
            if i == 4200 {
                raw.push_str(" once");
            }
            event(i, raw)
        })
        .collect()
}

/// Event `i` (a millisecond after event `i - 1`) with text `raw`.
fn event(i: u64, raw: String) -> Event {
    Event {
        time: 1_700_000_000_000_000 + i as i64 * 1000,
        raw,
        host: "h".into(),
        source: "s".into(),
        sourcetype: "st".into(),
        index: "main".into(),
        ..Event::default()
    }
}

/// The events of [`events`] indexed under `dir` and rolled into a warm bucket, and its reader.
fn warm(dir: &std::path::Path) -> (Vec<Event>, lode_store::WarmBucket) {
    let (w, _) = IndexWriter::open(dir, Default::default()).unwrap();
    let evs = events();
    w.append(&evs).unwrap();
    w.roll().unwrap();
    w.close().unwrap();
    let info = &list_buckets(dir).unwrap()[0];
    (evs, lode_store::WarmBucket::open(&info.path).unwrap())
}

fn term(t: &str) -> TermQuery {
    TermQuery::Term(t.as_bytes().to_vec())
}

/// The events whose text has every word of `words`.
fn want(events: &[Event], words: &[&str]) -> RoaringBitmap {
    let lower: Vec<String> = words.iter().map(|w| w.to_ascii_lowercase()).collect();
    (0u32..)
        .zip(events)
        .filter(|(_, e)| lower.iter().all(|w| e.raw.split(' ').any(|x| x == w)))
        .map(|(n, _)| n)
        .collect()
}

#[test]
fn and_of_terms_answers_as_the_text_in_hot_and_warm_buckets() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), Default::default()).unwrap();
    let evs = events();
    w.append(&evs).unwrap();
    let queries: [&[&str]; 8] = [
        &["rare", "every"],
        &["every", "rare"],
        &["rare", "third"],
        &["rare", "THIRD", "fifth"],
        &["rare", "absent"],
        &["third", "fifth", "rare"],
        &["once", "every", "third"],
        &["rare", "once"],
    ];
    let check = |kind: BucketKind| {
        let infos = list_buckets(dir.path()).unwrap();
        assert_eq!(infos.len(), 1);
        assert_eq!(infos[0].kind, kind);
        let b = open_bucket(&infos[0]).unwrap();
        for words in queries {
            let q = TermQuery::And(words.iter().map(|w| term(w)).collect());
            assert_eq!(b.eval(&q).unwrap(), want(&evs, words), "{kind:?} {words:?}");
        }
    };
    check(BucketKind::Hot);
    w.roll().unwrap();
    check(BucketKind::Warm);
    w.close().unwrap();
}

/// A warm reader keeps the postings blocks it decompressed, once each and within its bound,
/// and answers from them as it did reading them.
#[test]
fn a_warm_reader_keeps_its_recent_postings_blocks() {
    use lode_store::bucket::warm::RECENT_POSTINGS_BYTES;
    let dir = tempfile::tempdir().unwrap();
    let (evs, b) = warm(dir.path());
    assert_eq!(b.recent_postings_held(), (0, 0));
    let q = term("third");
    let first = lode_store::BucketRead::eval(&b, &q).unwrap();
    assert_eq!(first, want(&evs, &["third"]));
    let (n, bytes) = b.recent_postings_held();
    assert!(
        n == 1 && bytes > 0 && bytes <= RECENT_POSTINGS_BYTES,
        "{n} blocks, {bytes} bytes"
    );
    // Read again (and with the other terms of the same block): from the kept block.
    assert_eq!(lode_store::BucketRead::eval(&b, &q).unwrap(), first);
    let both = TermQuery::And(vec![term("fifth"), term("third")]);
    assert_eq!(
        lode_store::BucketRead::eval(&b, &both).unwrap(),
        want(&evs, &["fifth", "third"])
    );
    assert_eq!(b.recent_postings_held(), (n, bytes));
}

/// A term whose lookup a warm reader remembers is answered from it, not from the bloom filter:
/// with every filter page damaged (a damaged page answers "may be present"), a remembered
/// absent term is still certainly absent.
#[test]
fn a_remembered_lookup_answers_whether_a_bucket_may_hold_a_term() {
    use lode_store::BucketRead;
    let dir = tempfile::tempdir().unwrap();
    let (evs, b) = warm(dir.path());
    let info = &list_buckets(dir.path()).unwrap()[0];
    assert!(b.eval(&term("absent")).unwrap().is_empty());
    assert_eq!(b.eval(&term("third")).unwrap(), want(&evs, &["third"]));
    let bloom = info.path.join("bloom.dat");
    let mut bytes = std::fs::read(&bloom).unwrap();
    let bits = u64::from_le_bytes(bytes[4..12].try_into().unwrap()) as usize / 8;
    bytes[12..12 + bits].iter_mut().for_each(|x| *x ^= 0x5a);
    std::fs::write(&bloom, &bytes).unwrap();
    let fresh = lode_store::WarmBucket::open(&info.path).unwrap();
    assert!(
        fresh.may_contain(b"absent"),
        "the damage reaches the term's page"
    );
    assert!(!b.may_contain(b"absent") && !b.may_contain(b"ABSENT"));
    assert!(b.may_contain(b"third") && fresh.may_contain(b"third"));
}

/// The size of a term's entry (what an `And` orders its terms by) is remembered with its
/// lookup, and what is remembered is what a fresh reader reads.
#[test]
fn a_warm_reader_remembers_entry_sizes_with_its_lookups() {
    use lode_store::query::TermSource;
    let dir = tempfile::tempdir().unwrap();
    let (evs, b) = warm(dir.path());
    let path = list_buckets(dir.path()).unwrap()[0].path.clone();
    let words = [
        "every", "third", "rare", "fifth", "once", "absent", "4200", "seq",
    ];
    let fresh = |w: &str| {
        let r = lode_store::WarmBucket::open(&path).unwrap();
        TermSource::cost_hint(&r, w.as_bytes()).unwrap()
    };
    // Read, then from what is remembered: every present word's head is held after the first
    // round ("absent" has no entry).
    for round in ["first", "again"] {
        for w in words {
            assert_eq!(
                TermSource::cost_hint(&b, w.as_bytes()).unwrap(),
                fresh(w),
                "{round} {w}"
            );
        }
        assert_eq!(b.known_heads_held(), words.len() - 1, "{round}");
    }
    // Sizes differ by word, so an order taken from wrong ones would show.
    assert!(fresh("third") > fresh("rare") && fresh("rare") > fresh("once"));
    for words in [
        &["rare", "every"][..],
        &["third", "fifth", "every"],
        &["once", "rare"],
    ] {
        let q = TermQuery::And(words.iter().map(|w| term(w)).collect());
        assert_eq!(
            lode_store::BucketRead::eval(&b, &q).unwrap(),
            want(&evs, words)
        );
    }
}

/// A warm reader remembers its lexicon lookups (present and absent terms) within its bound,
/// not those of long terms, and answers as the lexicon does after forgetting them.
#[test]
fn a_warm_reader_remembers_its_lookups_within_its_bound() {
    use lode_store::bucket::warm::{KNOWN_TERMS, KNOWN_TERM_LEN};
    let dir = tempfile::tempdir().unwrap();
    let (evs, b) = warm(dir.path());
    let eval = |q: &TermQuery| lode_store::BucketRead::eval(&b, q).unwrap();
    assert_eq!(eval(&term("rare")), want(&evs, &["rare"]));
    assert_eq!(eval(&term("absent")), RoaringBitmap::new());
    assert_eq!(b.known_terms_held(), 2);
    // Again: from what the reader remembers.
    assert_eq!(eval(&term("RARE")), want(&evs, &["rare"]));
    assert_eq!(b.known_terms_held(), 2);
    let long = "x".repeat(KNOWN_TERM_LEN + 1);
    assert_eq!(eval(&term(&long)), RoaringBitmap::new());
    assert_eq!(b.known_terms_held(), 2);
    // Many more terms than the bound (numbers present and absent, absent words): never more
    // than the bound held, and every answer the text's.
    for i in 0..2 * KNOWN_TERMS + 7 {
        // `seq=n`: n alone is a term of one event (3000–5999), of none from 6000.
        let n = 3000 + i % 6000;
        assert_eq!(
            eval(&term(&n.to_string())).len(),
            u64::from(n < 6000),
            "{n}"
        );
        assert!(eval(&term(&format!("none{i}"))).is_empty());
        assert!(b.known_terms_held() <= KNOWN_TERMS);
    }
    for words in [&["rare", "every"][..], &["third", "fifth"], &["once"]] {
        let q = TermQuery::And(words.iter().map(|w| term(w)).collect());
        assert_eq!(eval(&q), want(&evs, words), "{words:?}");
    }
}

/// Over several 64 Ki containers the lists of words on one event in 37 or 41 are chunked
/// entries: an `And` of two of them is intersected container by container
/// (`postings::and_chunked`), then narrowed by any later term; the answers are the text's.
#[test]
fn and_of_two_chunked_lists_answers_as_the_text() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), Default::default()).unwrap();
    let evs: Vec<Event> = (0..140_000u64)
        .map(|i| {
            let mut raw = format!("e{i}");
            for (word, k, r) in [("pa", 37, 0), ("pb", 41, 0), ("pc", 37, 1), ("third", 3, 0)] {
                if i % k == r {
                    raw.push(' ');
                    raw.push_str(word);
                }
            }
            event(i, raw)
        })
        .collect();
    w.append(&evs).unwrap();
    w.roll().unwrap();
    w.close().unwrap();
    let info = &list_buckets(dir.path()).unwrap()[0];
    let b = open_bucket(info).unwrap();
    let queries: [&[&str]; 6] = [
        &["pa", "pb"],
        &["pb", "pa"],
        &["pa", "pb", "third"],
        &["third", "pb", "pc"],
        &["pa", "pc"],
        &["pc", "pb"],
    ];
    for words in queries {
        let q = TermQuery::And(words.iter().map(|w| term(w)).collect());
        let got = b.eval(&q).unwrap();
        assert_eq!(got, want(&evs, words), "{words:?}");
    }
    // Not vacuous: two of them find events in every container.
    assert_eq!(want(&evs, &["pa", "pb"]).len(), 93);
}
