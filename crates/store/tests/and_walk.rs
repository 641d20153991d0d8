//! An `And` whose events left are few narrows by its later terms walking their postings
//! (`TermSource::postings_among`) instead of building their bitmaps, and a warm bucket
//! intersects an `And` of terms whose shortest list is sparse by listing that list and
//! filtering it by the others (`TermSource::terms_and`): the answers are those of the events'
//! text, in a hot bucket (which builds) and in the warm bucket it rolls into (which walks),
//! whichever term comes first.

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
            Event {
                time: 1_700_000_000_000_000 + i as i64 * 1000,
                raw,
                host: "h".into(),
                source: "s".into(),
                sourcetype: "st".into(),
                index: "main".into(),
                ..Event::default()
            }
        })
        .collect()
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
    let (w, _) = IndexWriter::open(dir.path(), Default::default()).unwrap();
    let evs = events();
    w.append(&evs).unwrap();
    w.roll().unwrap();
    w.close().unwrap();
    let info = &list_buckets(dir.path()).unwrap()[0];
    let b = lode_store::WarmBucket::open(&info.path).unwrap();
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
