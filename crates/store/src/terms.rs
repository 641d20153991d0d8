//! Collects the terms of a bucket's events into in-memory postings while events stream in.
//!
//! Terms of an event: every term [`Tokenizer::for_each`] yields over `raw`, plus `field::value`
//! ([`lode_event::field_term`]) for host, source, sourcetype and every index-time field; each
//! term at most once per event. Event numbers arrive in ascending order, so a term's postings
//! list is deduplicated by comparing with its last entry: no per-event set, no allocation per
//! event (only per new distinct term).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use lode_event::token::Tokenizer;
use lode_event::{field_term, Event};
use xxhash_rust::xxh3::xxh3_64_with_seed;

/// A fast hasher for byte-string keys (xxh3 chained over the written pieces).
#[derive(Default)]
pub struct TermHasher(u64);

impl Hasher for TermHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = xxh3_64_with_seed(bytes, self.0);
    }
}

/// Term → ascending event numbers. The postings vector lives in the table entry itself, so a
/// lookup touches the entry, the key bytes and the vector's tail: one cache miss fewer than an
/// id indirection.
type TermMap = HashMap<Box<[u8]>, Vec<u32>, BuildHasherDefault<TermHasher>>;

/// In-memory term → postings collector.
#[derive(Default)]
pub struct TermIndex {
    /// Term → postings.
    ids: TermMap,
    tok: Tokenizer,
    /// Scratch for `field::value` terms.
    field_buf: Vec<u8>,
}

impl TermIndex {
    /// An empty collector.
    pub fn new() -> Self {
        Self::default()
    }

    /// Number of distinct terms so far.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether no term was added.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Adds the terms of event `num` (must not be smaller than any earlier number).
    pub fn add_event(&mut self, num: u32, e: &Event) {
        let TermIndex {
            ids,
            tok,
            field_buf,
        } = self;
        let mut add = |t: &[u8]| add_term(ids, num, t);
        tok.for_each(e.raw.as_bytes(), &mut add);
        for (name, value) in [
            ("host", &e.host),
            ("source", &e.source),
            ("sourcetype", &e.sourcetype),
        ] {
            field_term(name, value, field_buf);
            add(field_buf);
        }
        for (name, value) in &e.fields {
            field_term(name, value, field_buf);
            add(field_buf);
        }
    }

    /// Exact lookup.
    pub fn get(&self, term: &[u8]) -> Option<&[u32]> {
        self.ids.get(term).map(Vec::as_slice)
    }

    /// Calls `f` with every term and its postings, in no particular order.
    pub fn for_each_term(&self, mut f: impl FnMut(&[u8], &[u32])) {
        for (t, list) in &self.ids {
            f(t, list);
        }
    }

    /// Consumes the collector into `(term, postings)` sorted by term bytes.
    pub fn into_sorted(self) -> Vec<(Box<[u8]>, Vec<u32>)> {
        let mut out: Vec<(Box<[u8]>, Vec<u32>)> = self.ids.into_iter().collect();
        out.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        out
    }
}

#[inline]
fn add_term(ids: &mut TermMap, num: u32, t: &[u8]) {
    match ids.get_mut(t) {
        Some(p) => {
            if p.last() != Some(&num) {
                p.push(num);
            }
        }
        None => {
            ids.insert(t.into(), vec![num]);
        }
    }
}

#[cfg(test)]
mod tests {
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
        ix.add_event(0, &e);
        ix.add_event(3, &e);
        assert_eq!(ix.get(b"a"), Some(&[0u32, 3][..]));
        assert_eq!(ix.get(b"b.a"), Some(&[0u32, 3][..]));
        assert_eq!(ix.get(b"host::h"), Some(&[0u32, 3][..]));
        assert_eq!(ix.get(b"user::bob"), Some(&[0u32, 3][..]));
        assert_eq!(ix.get(b"source::"), Some(&[0u32, 3][..]));
        let sorted = ix.into_sorted();
        assert!(sorted.windows(2).all(|w| w[0].0 < w[1].0));
    }
}
