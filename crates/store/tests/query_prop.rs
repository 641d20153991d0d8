//! Naive twin: every TermQuery form evaluated by the index equals a per-event term-set check.

use std::collections::HashSet;

use lode_event::token::Tokenizer;
use lode_event::{field_term, Event};
use lode_store::query::glob_match;
use lode_store::{list_buckets, open_bucket, IndexConfig, IndexWriter, TermQuery};
use proptest::prelude::*;

fn term_set(e: &Event) -> HashSet<Vec<u8>> {
    let mut set = HashSet::new();
    Tokenizer::new().for_each(e.raw.as_bytes(), |t| {
        set.insert(t.to_vec());
    });
    let mut buf = Vec::new();
    for (k, v) in [
        ("host", &e.host),
        ("source", &e.source),
        ("sourcetype", &e.sourcetype),
    ] {
        field_term(k, v, &mut buf);
        set.insert(buf.clone());
    }
    for (k, v) in &e.fields {
        field_term(k, v, &mut buf);
        set.insert(buf.clone());
    }
    set
}

fn naive(q: &TermQuery, terms: &HashSet<Vec<u8>>) -> bool {
    match q {
        TermQuery::All => true,
        TermQuery::Term(t) => terms.contains(&t.to_ascii_lowercase()),
        TermQuery::Prefix(p) => {
            let p = p.to_ascii_lowercase();
            terms.iter().any(|t| t.starts_with(&p))
        }
        TermQuery::Glob(g) => {
            let g = g.to_ascii_lowercase();
            terms.iter().any(|t| glob_match(&g, t))
        }
        TermQuery::And(qs) => qs.iter().all(|q| naive(q, terms)),
        TermQuery::Or(qs) => qs.iter().any(|q| naive(q, terms)),
        TermQuery::Not(q) => !naive(q, terms),
    }
}

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("a".to_string()),
        Just("ab".to_string()),
        Just("Abc".to_string()),
        Just("b".to_string()),
        Just("10.0.0.1".to_string()),
        Just("x=1".to_string()),
        Just("/p/q".to_string()),
        "[a-c]{1,3}",
    ]
}

fn event_strategy() -> impl Strategy<Value = Event> {
    (
        proptest::collection::vec(word(), 0..6),
        0..3u8,
        proptest::option::of("[a-b]{1,2}"),
    )
        .prop_map(|(words, h, field)| Event {
            raw: words.join(" "),
            host: format!("h{h}").into(),
            source: "s".into(),
            sourcetype: "st".into(),
            linecount: 1,
            fields: field
                .map(|v| vec![("f".to_string(), v)])
                .unwrap_or_default(),
            ..Event::default()
        })
}

fn pattern() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        word().prop_map(|w| w.into_bytes()),
        Just(b"host::h1".to_vec()),
        Just(b"f::a".to_vec()),
        "[abAB*]{0,4}".prop_map(|s| s.into_bytes()),
    ]
}

fn query() -> impl Strategy<Value = TermQuery> {
    let leaf = prop_oneof![
        Just(TermQuery::All),
        pattern().prop_map(TermQuery::Term),
        pattern().prop_map(TermQuery::Prefix),
        pattern().prop_map(TermQuery::Glob),
    ];
    leaf.prop_recursive(3, 16, 3, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3).prop_map(TermQuery::And),
            proptest::collection::vec(inner.clone(), 0..3).prop_map(TermQuery::Or),
            inner.prop_map(|q| TermQuery::Not(Box::new(q))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn eval_matches_naive_twin(
        events in proptest::collection::vec(event_strategy(), 1..30),
        queries in proptest::collection::vec(query(), 1..8),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
        w.append(&events).unwrap();
        let hot = open_bucket(&list_buckets(dir.path()).unwrap()[0]).unwrap();
        w.close().unwrap();
        let warm = open_bucket(&list_buckets(dir.path()).unwrap()[0]).unwrap();
        let sets: Vec<_> = events.iter().map(term_set).collect();
        for q in &queries {
            let want: Vec<u32> = (0..events.len() as u32)
                .filter(|&i| naive(q, &sets[i as usize]))
                .collect();
            let got_warm: Vec<u32> = warm.eval(q).unwrap().into_iter().collect();
            let got_hot: Vec<u32> = hot.eval(q).unwrap().into_iter().collect();
            prop_assert_eq!(&got_warm, &want, "warm {:?}", q);
            prop_assert_eq!(&got_hot, &want, "hot {:?}", q);
        }
        // Bloom: no false negatives over every indexed term.
        for set in &sets {
            for t in set {
                prop_assert!(warm.may_contain(t));
            }
        }
    }
}

#[test]
fn deeply_nested_queries_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (w, _) = IndexWriter::open(dir.path(), IndexConfig::default()).unwrap();
    w.append(&[Event {
        raw: "a".into(),
        ..Event::default()
    }])
    .unwrap();
    w.close().unwrap();
    let b = open_bucket(&list_buckets(dir.path()).unwrap()[0]).unwrap();
    let mut q = TermQuery::Term(b"a".to_vec());
    for _ in 0..lode_store::consts::MAX_QUERY_DEPTH + 1 {
        q = TermQuery::Not(Box::new(q));
    }
    assert!(matches!(b.eval(&q), Err(lode_store::StoreError::Limit(_))));
    // Two levels of Not give the term back.
    let ok = TermQuery::Not(Box::new(TermQuery::Not(Box::new(TermQuery::Term(
        b"a".to_vec(),
    )))));
    assert_eq!(b.eval(&ok).unwrap().len(), 1);
}
