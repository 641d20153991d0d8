use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;

use super::*;

#[test]
fn terms_deduplicated_per_event() {
    let mut ix = TermIndex::new();
    let e = Event {
        raw: "a a b.a".into(),
        host: "H".into(),
        fields: vec![("user".into(), "Bob".into())],
        ..Event::default()
    };
    ix.add_event(0, &e).unwrap();
    ix.add_event(3, &e).unwrap();
    let get = |t: &[u8]| ix.get(t).map(|p| p.collect::<Vec<_>>());
    assert_eq!(get(b"a"), Some(vec![0, 3]));
    assert_eq!(get(b"b.a"), Some(vec![0, 3]));
    assert_eq!(get(b"host::h"), Some(vec![0, 3]));
    assert_eq!(get(b"user::bob"), Some(vec![0, 3]));
    assert_eq!(get(b"source::"), Some(vec![0, 3]));
    assert_eq!(get(b"nope"), None);
    assert_eq!(ix.get(b"a").and_then(|p| p.first()), Some(0));
    let sorted = ix.into_sorted();
    let terms: Vec<&[u8]> = sorted.iter().map(|(t, _)| t).collect();
    assert!(terms.windows(2).all(|w| w[0] < w[1]));
}

/// The naive twin: a map of owned terms to vectors, as the index was before the arena.
fn naive(events: &[(u32, Vec<String>)]) -> BTreeMap<Vec<u8>, Vec<u32>> {
    let mut m: HashMap<Vec<u8>, Vec<u32>> = HashMap::new();
    let mut tok = Tokenizer::new();
    for (num, words) in events {
        let raw = words.join(" ");
        tok.for_each(raw.as_bytes(), |t| {
            let l = m.entry(t.to_vec()).or_default();
            if l.last() != Some(num) {
                l.push(*num);
            }
        });
        for t in [&b"host::"[..], b"source::", b"sourcetype::"] {
            let l = m.entry(t.to_vec()).or_default();
            if l.last() != Some(num) {
                l.push(*num);
            }
        }
    }
    m.into_iter().collect()
}

proptest! {
    #[test]
    fn matches_naive_map(
        steps in proptest::collection::vec(
            (0u32..3000, proptest::collection::vec("[a-e]{1,3}|[0-9]{1,9}|[a-z.]{1,12}", 0..8)),
            0..200,
        )
    ) {
        // Ascending event numbers with gaps of any size (deltas of one to several varint bytes).
        let mut num = 0u32;
        let events: Vec<(u32, Vec<String>)> = steps
            .into_iter()
            .map(|(gap, words)| {
                num += gap * gap;
                (num, words)
            })
            .collect();
        let mut ix = TermIndex::new();
        for (num, words) in &events {
            let e = Event { raw: words.join(" "), ..Event::default() };
            ix.add_event(*num, &e).unwrap();
        }
        let want = naive(&events);
        prop_assert_eq!(ix.len(), want.len());
        for (t, list) in &want {
            let got: Vec<u32> = ix.get(t).expect("term present").collect();
            prop_assert_eq!(&got, list);
        }
        let mut seen = 0;
        ix.for_each_term(|t, p| {
            seen += 1;
            assert_eq!(Some(&p.collect::<Vec<_>>()), want.get(t));
        });
        prop_assert_eq!(seen, want.len());
        let sorted = ix.into_sorted();
        let got: Vec<(Vec<u8>, Vec<u32>)> =
            sorted.iter().map(|(t, p)| (t.to_vec(), p.collect())).collect();
        let want: Vec<(Vec<u8>, Vec<u32>)> = want.into_iter().collect();
        prop_assert_eq!(got, want);
    }
}
