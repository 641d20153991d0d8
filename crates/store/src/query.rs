//! Term queries and their evaluation against a bucket's lexicon and postings.

use std::sync::Arc;

use roaring::RoaringBitmap;

use crate::error::StoreError;

pub use crate::consts::MAX_QUERY_DEPTH;

/// A boolean query over terms. Semantics: the set of events whose term set (see [`crate::terms`])
/// contains the term. Term bytes are compared ASCII-lowercased, as the tokenizer produces them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TermQuery {
    /// Every event of the bucket.
    All,
    /// Events having exactly this term.
    Term(Vec<u8>),
    /// Events having a term that starts with these bytes.
    Prefix(Vec<u8>),
    /// Events having a term matching this pattern, where `*` matches any run of bytes.
    Glob(Vec<u8>),
    /// Events matching every sub-query (`And(vec![])` is every event).
    And(Vec<TermQuery>),
    /// Events matching at least one sub-query (`Or(vec![])` is no event).
    Or(Vec<TermQuery>),
    /// Events not matching the sub-query.
    Not(Box<TermQuery>),
}

/// Whether `text` matches `pat`, where `*` in `pat` matches any run of bytes (possibly empty).
/// Iterative with single backtrack point: O(len(text) · len(pat)) worst case, no recursion.
pub fn glob_match(pat: &[u8], text: &[u8]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pat.len() && pat[p] == b'*' {
            star = Some((p, t));
            p += 1;
        } else if p < pat.len() && pat[p] == text[t] {
            p += 1;
            t += 1;
        } else if let Some((sp, st)) = star {
            p = sp + 1;
            t = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    pat[p..].iter().all(|&b| b == b'*')
}

/// What evaluation needs from a bucket's term index. Public so that a caller can put a cache of
/// decoded postings in front of a bucket's own (the search's reader cache does).
pub trait TermSource {
    /// Number of events (event numbers are `0..event_count`).
    fn event_count(&self) -> u32;
    /// Postings of `term` (empty when absent); shared, so that a cache can hand out what it
    /// holds without copying it.
    fn postings(&self, term: &[u8]) -> Result<Arc<RoaringBitmap>, StoreError>;
    /// The members of `among` whose events have `term` (lowercased): `postings(term) & among`.
    /// A source may find them without building the term's bitmap: a warm bucket walks the
    /// term's entry against them (what [`eval`] asks for an `And`'s later terms once the
    /// events left are fewer than one in [`WALK_BELOW`]).
    fn postings_among(
        &self,
        term: &[u8],
        among: &RoaringBitmap,
    ) -> Result<RoaringBitmap, StoreError> {
        Ok(&*self.postings(term)? & among)
    }
    /// The postings of `term` inside `window`: `postings(term) & window.mask()`. A warm bucket
    /// builds only the window's containers, without keeping (or caching) the rest.
    fn postings_in(&self, term: &[u8], window: &Window) -> Result<Arc<RoaringBitmap>, StoreError> {
        Ok(Arc::new(&*self.postings(term)? & window.mask()))
    }
    /// A cheap estimate of what reading `term`'s postings costs, to evaluate an `And`'s terms
    /// cheapest first: a warm bucket gives the bytes of the term's postings entry (1 for a
    /// single event, 0 when absent). `None`: no estimate (the query's order is kept).
    fn cost_hint(&self, _term: &[u8]) -> Result<Option<u64>, StoreError> {
        Ok(None)
    }
    /// A mask of the kinds of events that hold `term` (lowercased), where bit `i` stands for
    /// the same kinds in every answer of this source, and `0` means no event holds it: two
    /// terms whose masks share no bit are in no event together (rule KINDS in [`eval`]). A
    /// warm bucket's lexicon keeps one per postings pointer: its sourcetypes
    /// (`bucket::kinds`). `None`: unknown (any kind).
    fn term_kinds(&self, _term: &[u8]) -> Result<Option<u64>, StoreError> {
        Ok(None)
    }
    /// The events holding every one of `terms` (lowercased, at least two) when the source
    /// intersects their lists itself, without building each one's bitmap: a warm bucket reads
    /// the shortest list's runs and narrows them by each of the others in turn (see
    /// `postings::filter_runs_in_entry`). `None`: the `And` intersects the terms' bitmaps (a
    /// search cache that holds them, or will keep them, answers so).
    fn terms_and(&self, _terms: &[Vec<u8>]) -> Result<Option<RoaringBitmap>, StoreError> {
        Ok(None)
    }
    /// Unions into `out` the postings of every term starting with `prefix` for which `accept`
    /// returns true.
    fn union_prefixed(
        &self,
        prefix: &[u8],
        accept: &mut dyn FnMut(&[u8]) -> bool,
        out: &mut RoaringBitmap,
    ) -> Result<(), StoreError>;
}

/// An `And` narrows by a later term through [`TermSource::postings_among`] when the events
/// left are fewer than one in this many of the bucket's. With more, roaring's intersection a
/// container at a time beats walking the term's list number by number (the count pushdown's
/// measurement, `lode_search::scan::counted`).
pub const WALK_BELOW: u64 = 64;

/// A part of a bucket's event numbers made of whole 2^16-number roaring containers: what a
/// newest-first read evaluates a query over first, when the newest events of a bucket lie in a
/// few of its containers (see `lode_search::scan::candidates`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Container keys (event number `>> 16`), ascending, without repeats.
    keys: Vec<u16>,
    /// Every number of those containers below the event count.
    mask: RoaringBitmap,
}

impl Window {
    /// The window of containers `keys` (any order, repeats allowed) of a bucket of `count`
    /// events; keys at or past the count are dropped.
    pub fn new(mut keys: Vec<u16>, count: u32) -> Window {
        keys.sort_unstable();
        keys.dedup();
        keys.retain(|&k| u64::from(k) << 16 < u64::from(count));
        let mut mask = RoaringBitmap::new();
        for &k in &keys {
            let lo = u32::from(k) << 16;
            mask.insert_range(lo..lo.saturating_add(1 << 16).min(count));
        }
        Window { keys, mask }
    }

    /// Container keys, ascending.
    pub fn keys(&self) -> &[u16] {
        &self.keys
    }

    /// Every event number of the window.
    pub fn mask(&self) -> &RoaringBitmap {
        &self.mask
    }

    /// Whether event number `n` lies in the window.
    pub fn contains(&self, n: u32) -> bool {
        self.keys.binary_search(&((n >> 16) as u16)).is_ok() && self.mask.contains(n)
    }

    /// Number of events in the window.
    pub fn events(&self) -> u64 {
        self.mask.len()
    }
}

/// Evaluates `q` against `src`.
///
/// Rule KINDS: an `And` whose plain terms have kinds masks ([`TermSource::term_kinds`]) that
/// share no bit matches nothing, and is answered before any list is read.
pub fn eval(src: &dyn TermSource, q: &TermQuery) -> Result<RoaringBitmap, StoreError> {
    Ok(Arc::unwrap_or_clone(eval_shared(src, q)?))
}

/// [`eval`], without copying a bitmap `src` shares (a one-term query's cached postings are
/// given as they are).
pub fn eval_shared(src: &dyn TermSource, q: &TermQuery) -> Result<Arc<RoaringBitmap>, StoreError> {
    eval_depth(src, q, 0, None)
}

/// A mask of the kinds ([`TermSource::term_kinds`]) of every event matching `q`: a term's
/// own (0 when absent), the common bits of an `And`'s parts, every bit of an `Or`'s;
/// `u64::MAX` (any kind) for what has no mask (`All`, prefixes, patterns, `Not`, a term
/// without one).
pub fn kinds_of(src: &dyn TermSource, q: &TermQuery) -> Result<u64, StoreError> {
    kinds_depth(src, q, 0)
}

fn kinds_depth(src: &dyn TermSource, q: &TermQuery, depth: usize) -> Result<u64, StoreError> {
    if depth > MAX_QUERY_DEPTH {
        return Ok(u64::MAX);
    }
    Ok(match q {
        TermQuery::Term(t) => src.term_kinds(&lower(t))?.unwrap_or(u64::MAX),
        TermQuery::Glob(g) if !g.contains(&b'*') => src.term_kinds(&lower(g))?.unwrap_or(u64::MAX),
        TermQuery::And(qs) => {
            let mut m = u64::MAX;
            for q in qs {
                m &= kinds_depth(src, q, depth + 1)?;
            }
            m
        }
        TermQuery::Or(qs) => {
            let mut m = 0;
            for q in qs {
                m |= kinds_depth(src, q, depth + 1)?;
            }
            m
        }
        TermQuery::All | TermQuery::Prefix(_) | TermQuery::Glob(_) | TermQuery::Not(_) => u64::MAX,
    })
}

/// The events of `window` that match `q`: `eval(src, q) & window.mask()`, with every term's
/// postings taken through [`TermSource::postings_in`] (`All` and `Not` are bounded by the
/// window). Prefix and glob terms are evaluated whole, then cut.
pub fn eval_in(
    src: &dyn TermSource,
    q: &TermQuery,
    window: &Window,
) -> Result<Arc<RoaringBitmap>, StoreError> {
    eval_depth(src, q, 0, Some(window))
}

fn lower(b: &[u8]) -> Vec<u8> {
    b.to_ascii_lowercase()
}

fn eval_depth(
    src: &dyn TermSource,
    q: &TermQuery,
    depth: usize,
    window: Option<&Window>,
) -> Result<Arc<RoaringBitmap>, StoreError> {
    if depth > MAX_QUERY_DEPTH {
        return Err(StoreError::Limit(format!(
            "term query nested deeper than {MAX_QUERY_DEPTH}"
        )));
    }
    let all = || match window {
        Some(w) => w.mask().clone(),
        None => {
            let mut b = RoaringBitmap::new();
            b.insert_range(0..src.event_count());
            b
        }
    };
    // The events the query ranges over (the walk rule below compares with them).
    let span = window.map_or(u64::from(src.event_count()), Window::events);
    let term = |t: &[u8]| match window {
        Some(w) => src.postings_in(t, w),
        None => src.postings(t),
    };
    let cut = |mut out: RoaringBitmap| {
        if let Some(w) = window {
            out &= w.mask();
        }
        Arc::new(out)
    };
    Ok(match q {
        TermQuery::All => Arc::new(all()),
        TermQuery::Term(t) => term(&lower(t))?,
        TermQuery::Prefix(p) => {
            let mut out = RoaringBitmap::new();
            src.union_prefixed(&lower(p), &mut |_| true, &mut out)?;
            cut(out)
        }
        TermQuery::Glob(g) => {
            let g = lower(g);
            let lit = g.iter().position(|&b| b == b'*').unwrap_or(g.len());
            if lit == g.len() {
                return term(&g);
            }
            let mut out = RoaringBitmap::new();
            src.union_prefixed(&g[..lit], &mut |t| glob_match(&g, t), &mut out)?;
            cut(out)
        }
        TermQuery::And(qs) => {
            let mut acc: Option<Arc<RoaringBitmap>> = None;
            let mut rest: Vec<&TermQuery> = qs.iter().collect();
            // Plain terms intersected by the source itself, when it can: the rest narrow that.
            let terms: Vec<Vec<u8>> = qs
                .iter()
                .filter_map(|q| match q {
                    TermQuery::Term(t) => Some(lower(t)),
                    _ => None,
                })
                .collect();
            if terms.len() > 1 {
                let mut kinds = u64::MAX;
                for t in &terms {
                    kinds &= src.term_kinds(t)?.unwrap_or(u64::MAX);
                    if kinds == 0 {
                        return Ok(Arc::new(RoaringBitmap::new()));
                    }
                }
            }
            if window.is_none() && terms.len() > 1 {
                if let Some(b) = src.terms_and(&terms)? {
                    if b.is_empty() {
                        return Ok(Arc::new(b));
                    }
                    acc = Some(Arc::new(b));
                    rest.retain(|q| !matches!(q, TermQuery::Term(_)));
                }
            }
            // Terms cheapest first (then the rest in the query's order): the first decoded
            // is the smallest, and the later ones are walked against it once few events are
            // left (a common word typed first no longer decodes its whole list).
            let mut order: Vec<(u64, usize)> = Vec::with_capacity(rest.len());
            for (i, sub) in rest.iter().enumerate() {
                let cost = match sub {
                    TermQuery::Term(t) if rest.len() > 1 => src.cost_hint(&lower(t))?,
                    _ => None,
                };
                order.push((cost.unwrap_or(u64::MAX), i));
            }
            order.sort_unstable();
            for sub in order.iter().map(|&(_, i)| rest[i]) {
                // Few events left: narrow by a term without building its bitmap.
                let walked = match (&acc, sub) {
                    (Some(a), TermQuery::Term(t)) if a.len().saturating_mul(WALK_BELOW) < span => {
                        Some(src.postings_among(&lower(t), a)?)
                    }
                    _ => None,
                };
                let next = match (walked, acc) {
                    (Some(w), _) => Arc::new(w),
                    (None, None) => eval_depth(src, sub, depth + 1, window)?,
                    // Intersect in place into whichever side is this query's own, else into a
                    // new bitmap: a shared (cached) one is never copied just to be narrowed.
                    (None, Some(a)) => {
                        let b = eval_depth(src, sub, depth + 1, window)?;
                        Arc::new(match Arc::try_unwrap(a) {
                            Ok(mut a) => {
                                a &= &*b;
                                a
                            }
                            Err(a) => match Arc::try_unwrap(b) {
                                Ok(mut b) => {
                                    b &= &*a;
                                    b
                                }
                                Err(b) => &*a & &*b,
                            },
                        })
                    }
                };
                if next.is_empty() {
                    return Ok(next);
                }
                acc = Some(next);
            }
            acc.unwrap_or_else(|| Arc::new(all()))
        }
        TermQuery::Or(qs) => {
            let mut acc = RoaringBitmap::new();
            for sub in qs {
                // Move this query's own bitmaps' containers in; copy a shared one's.
                match Arc::try_unwrap(eval_depth(src, sub, depth + 1, window)?) {
                    Ok(own) => acc |= own,
                    Err(shared) => acc |= &*shared,
                }
            }
            Arc::new(acc)
        }
        TermQuery::Not(sub) => Arc::new(all() - &*eval_depth(src, sub, depth + 1, window)?),
    })
}

#[cfg(test)]
mod tests {
    use super::glob_match;

    #[test]
    fn globs() {
        assert!(glob_match(b"*", b""));
        assert!(glob_match(b"a*c", b"abbc"));
        assert!(glob_match(b"a*c", b"ac"));
        assert!(!glob_match(b"a*c", b"acb"));
        assert!(glob_match(b"*b*", b"abc"));
        assert!(glob_match(b"a**", b"a"));
        assert!(!glob_match(b"abc", b"ab"));
        assert!(glob_match(b"*ab", b"aab"));
    }
}
