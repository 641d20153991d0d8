use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;

use super::*;

#[test]
fn terms_deduplicated_per_event() {
    for batch in [1, 2, BATCH_EVENTS] {
        dedup_with_batch(batch);
    }
}

/// The same event twice under the same number counts once, within a batch and across flushes.
fn dedup_with_batch(batch: u32) {
    let mut ix = TermIndex::with_batch(batch);
    let e = Event {
        raw: "a a b.a".into(),
        host: "H".into(),
        fields: vec![("user".into(), "Bob".into())],
        ..Event::default()
    };
    ix.add_event(0, &e).unwrap();
    ix.add_event(0, &e).unwrap();
    ix.add_event(3, &e).unwrap();
    ix.add_event(3, &e).unwrap();
    let get = |t: &[u8]| ix.get(t).map(|p| p.collect::<Vec<_>>());
    assert_eq!(get(b"a"), Some(vec![0, 3]));
    assert_eq!(get(b"b.a"), Some(vec![0, 3]));
    assert_eq!(get(b"host::h"), Some(vec![0, 3]));
    assert_eq!(get(b"user::bob"), Some(vec![0, 3]));
    assert_eq!(get(b"source::"), Some(vec![0, 3]));
    assert_eq!(get(b"nope"), None);
    assert_eq!(ix.get(b"a").and_then(|p| p.first()), Some(0));
    let sorted = ix.into_sorted().unwrap();
    let terms: Vec<&[u8]> = sorted.iter().map(|(t, _)| t).collect();
    assert!(terms.windows(2).all(|w| w[0] < w[1]));
}

/// Whether the batch slot of `a` says it holds `b`. The table asks a slot only on a hash tag
/// match, so both are given the same hash here on purpose.
fn slot_holds(a: &[u8], b: &[u8]) -> bool {
    let mut batch = Batch::default();
    batch.add(0, 7, a).unwrap();
    let slot = *batch.table.iter().next().expect("one slot");
    let is = slot.is(&batch.terms, &batch.bytes, word(b), b);
    assert_eq!(batch.find(7, b).is_some(), is);
    is
}

/// Every one-byte change, cut and extension of terms of 0 to 16 bytes is told apart from the
/// term by its batch slot, and the term itself is found.
#[test]
fn slots_tell_near_misses_apart() {
    for n in 0..=16u8 {
        let a: Vec<u8> = (1..=n).collect();
        assert!(slot_holds(&a, &a), "{a:?}");
        for i in 0..a.len() {
            let mut b = a.clone();
            b[i] = 0;
            assert!(!slot_holds(&a, &b), "{a:?} / {b:?}");
        }
        let mut longer = a.clone();
        longer.push(0);
        assert!(
            !slot_holds(&a, &longer) && !slot_holds(&longer, &a),
            "{a:?}"
        );
    }
}

/// The naive twin: a map of owned terms to vectors, as the index was before the arena. Events
/// are `(number, host, words)`.
fn naive(events: &[(u32, &str, Vec<String>)]) -> BTreeMap<Vec<u8>, Vec<u32>> {
    let mut m: HashMap<Vec<u8>, Vec<u32>> = HashMap::new();
    let mut tok = Tokenizer::new();
    for (num, host, words) in events {
        let raw = words.join(" ");
        tok.for_each(raw.as_bytes(), |t| {
            let l = m.entry(t.to_vec()).or_default();
            if l.last() != Some(num) {
                l.push(*num);
            }
        });
        let host = format!("host::{}", host.to_ascii_lowercase());
        for t in [host.as_bytes(), b"source::", b"sourcetype::"] {
            let l = m.entry(t.to_vec()).or_default();
            if l.last() != Some(num) {
                l.push(*num);
            }
        }
    }
    m.into_iter().collect()
}

/// Checks every read of `ix` against the naive map of the same events.
fn check_reads(ix: &TermIndex, want: &BTreeMap<Vec<u8>, Vec<u32>>) -> Result<(), TestCaseError> {
    prop_assert_eq!(ix.len(), want.len());
    prop_assert_eq!(ix.is_empty(), want.is_empty());
    for (t, list) in want {
        let p = ix.get(t).expect("term present");
        prop_assert_eq!(p.size_hint(), (list.len(), Some(list.len())));
        prop_assert_eq!(p.first(), list.first().copied());
        let got: Vec<u32> = p.collect();
        prop_assert_eq!(&got, list);
    }
    prop_assert!(ix.get(b"not-a-term!").is_none());
    let mut seen = BTreeMap::new();
    ix.for_each_term(|t, p| {
        assert!(
            seen.insert(t.to_vec(), p.collect::<Vec<_>>()).is_none(),
            "term twice"
        );
    });
    prop_assert_eq!(&seen, want);
    let sorted = ix.sorted();
    prop_assert_eq!(sorted.len(), want.len());
    let got: Vec<(Vec<u8>, Vec<u32>)> = sorted
        .iter()
        .map(|(t, p)| (t.to_vec(), p.collect()))
        .collect();
    let want: Vec<(Vec<u8>, Vec<u32>)> = want.clone().into_iter().collect();
    prop_assert_eq!(got, want);
    Ok(())
}

proptest! {
    /// A batch slot tells terms of up to 8 bytes apart by `word` and length alone, keeps the
    /// first 8 bytes of longer ones, and holds exactly its own term.
    #[test]
    fn word_and_length_are_the_short_term(
        a in proptest::collection::vec(
            proptest::prop_oneof![4 => 0u8..2, 1 => proptest::num::u8::ANY],
            0..12,
        ),
        edit in proptest::option::of((0usize..12, 0u8..3)),
        cut in 0usize..3,
    ) {
        // `b` is `a` with one byte changed (or not) and up to two bytes cut off: the near misses
        // a comparison can get wrong.
        let mut b = a.clone();
        if let Some((i, v)) = edit {
            if !b.is_empty() {
                let i = i % b.len();
                b[i] = v;
            }
        }
        b.truncate(b.len().saturating_sub(cut));
        for t in [&a, &b] {
            let mut first = [0u8; 8];
            let n = t.len().min(8);
            first[..n].copy_from_slice(&t[..n]);
            prop_assert_eq!(word(t), u64::from_le_bytes(first));
        }
        if a.len() <= 8 && b.len() <= 8 {
            prop_assert_eq!((word(&a), a.len()) == (word(&b), b.len()), a == b);
        }
        prop_assert_eq!(slot_holds(&a, &b), a == b);
    }

    #[test]
    fn matches_naive_map(
        steps in proptest::collection::vec(
            (
                0u32..3000,
                0usize..3,
                proptest::collection::vec("[a-e]{1,3}|[0-9]{1,9}|[a-z.]{1,12}|[ab]{6,11}", 0..8),
            ),
            0..200,
        ),
        batch in 1u32..6,
        reads in proptest::collection::vec(0usize..200, 0..4),
        close in any::<bool>(),
    ) {
        // Ascending event numbers with gaps of any size (deltas of one to several varint bytes),
        // or only small ones (long stretches of one-byte deltas, as common terms have).
        // Hosts change from event to event or stay, as streams interleave.
        let mut num = 0u32;
        let events: Vec<(u32, &str, Vec<String>)> = steps
            .into_iter()
            .map(|(gap, host, words)| {
                num += if close { gap % 4 } else { gap * gap };
                (num, ["", "Web-1", "db"][host], words)
            })
            .collect();
        // Small batches, so that flushes happen; reads in the middle see the pending batch.
        let mut ix = TermIndex::with_batch(batch);
        for (i, (num, host, words)) in events.iter().enumerate() {
            let e = Event { raw: words.join(" "), host: (*host).into(), ..Event::default() };
            ix.add_event(*num, &e).unwrap();
            if reads.contains(&i) {
                check_reads(&ix, &naive(&events[..=i]))?;
            }
        }
        let want = naive(&events);
        check_reads(&ix, &want)?;
        // What a roll reads: every list through `append_to`.
        let sorted = ix.into_sorted().unwrap();
        let got: Vec<(Vec<u8>, Vec<u32>)> = sorted
            .iter()
            .map(|(t, p)| {
                let mut list = vec![7];
                p.append_to(&mut list);
                (t.to_vec(), list.split_off(1))
            })
            .collect();
        let want: Vec<(Vec<u8>, Vec<u32>)> = want.into_iter().collect();
        prop_assert_eq!(got, want);
    }
}
