//! Lowering the leading search clause to a [`TermQuery`] the index can answer.
//!
//! The lowered query selects a SUPERSET of the events the clause matches: every candidate is then
//! verified by [`crate::matcher::matches`], so a rule may always fall back to [`TermQuery::All`]
//! (scan everything) but must never drop a matching event. Each decision below is a small named
//! rule with a test. A lowered query is *exact* when it selects precisely the matching events;
//! only exact queries may be negated (`NOT x` over a superset would drop matches).
//!
//! Naive twin: [`TermQuery::All`] for every clause (what `force_scan` uses).

use lode_event::token::{is_major, is_minor, Tokenizer, MAX_TOKEN_LEN};
use lode_spl::ast::{CmpOp, SearchExpr, Term};
use lode_store::TermQuery;

use super::terms::{boundary_safe_terms, is_computed_field, MIN_LITERAL};

/// Deepest nesting lowered; deeper clauses fall back to a scan (the parser limits depth anyway).
const MAX_DEPTH: usize = 128;

/// A lowered clause.
#[derive(Debug, Clone, PartialEq)]
pub struct Lowered {
    /// Events that may match (a superset of the matching ones).
    pub query: TermQuery,
    /// Whether `query` selects exactly the matching events.
    pub exact: bool,
}

impl Lowered {
    /// The fallback: every event is a candidate, the matcher decides.
    fn scan() -> Lowered {
        Lowered {
            query: TermQuery::All,
            exact: false,
        }
    }

    /// A clause that is true for every event (time bounds).
    fn always() -> Lowered {
        Lowered {
            query: TermQuery::All,
            exact: true,
        }
    }

    fn is_all(&self) -> bool {
        matches!(self.query, TermQuery::All)
    }
}

/// Lowers a search clause. `None` (a bare `*`) selects every event exactly.
pub fn lower(expr: Option<&SearchExpr>) -> Lowered {
    match expr {
        None => Lowered::always(),
        Some(e) => lower_at(e, 0),
    }
}

/// What candidates of a non-exact clause must still be checked against: the conjuncts of a
/// top-level AND whose own lowering is not exact (the candidates are the intersection of every
/// conjunct's candidates, so an exactly lowered conjunct holds for all of them already), or the
/// whole clause. `None` when nothing is left to check.
pub fn residual(expr: Option<&SearchExpr>) -> Option<SearchExpr> {
    let e = expr?;
    let SearchExpr::And(items) = e else {
        return (!lower_at(e, 0).exact).then(|| e.clone());
    };
    let mut left: Vec<SearchExpr> = items
        .iter()
        .filter(|i| !lower_at(i, 1).exact)
        .cloned()
        .collect();
    match left.len() {
        0 => None,
        1 => left.pop(),
        _ => Some(SearchExpr::And(left)),
    }
}

fn lower_at(expr: &SearchExpr, depth: usize) -> Lowered {
    if depth > MAX_DEPTH {
        return Lowered::scan();
    }
    match expr {
        SearchExpr::And(items) => rule_and(items.iter().map(|e| lower_at(e, depth + 1)).collect()),
        SearchExpr::Or(items) => rule_or(items.iter().map(|e| lower_at(e, depth + 1)).collect()),
        SearchExpr::Not(inner) => rule_not(lower_at(inner, depth + 1)),
        SearchExpr::Term(t) => rule_term(t),
        SearchExpr::Compare {
            field, op, value, ..
        } => rule_compare(field, *op, value),
        // The planner applies time bounds to the time range; as a condition they are true.
        SearchExpr::TimeBound { .. } => Lowered::always(),
    }
}

/// Rule AND: the conjunction of the parts; `All` parts drop out (they do not narrow), nested ANDs
/// are flattened. Exact when every part is.
fn rule_and(parts: Vec<Lowered>) -> Lowered {
    let exact = parts.iter().all(|p| p.exact);
    let mut queries = Vec::with_capacity(parts.len());
    for p in parts {
        match p.query {
            TermQuery::All => {}
            TermQuery::And(inner) => queries.extend(inner),
            q => queries.push(q),
        }
    }
    let query = match queries.len() {
        0 => TermQuery::All,
        1 => queries.pop().unwrap_or(TermQuery::All),
        _ => TermQuery::And(queries),
    };
    Lowered { query, exact }
}

/// Rule OR: the union of the parts; a part that needs a scan makes the whole OR a scan. Exact
/// when every part is, or when some part is always true.
fn rule_or(parts: Vec<Lowered>) -> Lowered {
    if parts.iter().any(|p| p.is_all() && p.exact) {
        return Lowered::always();
    }
    if parts.iter().any(Lowered::is_all) {
        return Lowered::scan();
    }
    let exact = parts.iter().all(|p| p.exact);
    let mut queries = Vec::with_capacity(parts.len());
    for p in parts {
        match p.query {
            TermQuery::Or(inner) => queries.extend(inner),
            q => queries.push(q),
        }
    }
    let query = match queries.len() {
        // An empty OR matches nothing.
        0 => TermQuery::Not(Box::new(TermQuery::All)),
        1 => queries.pop().unwrap_or(TermQuery::All),
        _ => TermQuery::Or(queries),
    };
    Lowered { query, exact }
}

/// Rule NOT: the complement, only when the inner query is exact (the complement of a superset is
/// a subset); otherwise scan.
fn rule_not(inner: Lowered) -> Lowered {
    if !inner.exact {
        return Lowered::scan();
    }
    let query = match inner.query {
        TermQuery::Not(q) => *q,
        q => TermQuery::Not(Box::new(q)),
    };
    Lowered { query, exact: true }
}

/// Dispatches a bare word, `TERM(x)` or quoted phrase to its rule.
fn rule_term(t: &Term) -> Lowered {
    if t.case {
        // Rule CASE: the index holds lowercased terms, so it answers the term ignoring case (a
        // superset); the matcher then checks the case.
        let ci = Term {
            case: false,
            ..t.clone()
        };
        return Lowered {
            exact: false,
            ..rule_term(&ci)
        };
    }
    if t.quoted {
        return rule_phrase(&t.text);
    }
    if t.text.contains('*') {
        return rule_wildcard(&t.text);
    }
    if is_single_segment(&t.text) {
        return rule_single_term(&t.text);
    }
    rule_phrase(&t.text)
}

fn is_single_segment(text: &str) -> bool {
    lode_event::token::is_single_major_segment(text.as_bytes())
}

/// Rule single term: a word that is one major segment (bare or `TERM(x)`) is one lexicon entry,
/// lowercased, and exact (the matcher looks the same token up). Longer than [`MAX_TOKEN_LEN`]:
/// never indexed, so scan.
fn rule_single_term(text: &str) -> Lowered {
    if text.is_empty() || text.len() > MAX_TOKEN_LEN {
        return Lowered::scan();
    }
    Lowered {
        query: TermQuery::Term(text.to_ascii_lowercase().into_bytes()),
        exact: true,
    }
}

/// Rule phrase: a quoted phrase, or a word with major breakers, matches as text inside `_raw`;
/// every term of the phrase that is certainly a whole token of a matching event (see
/// [`boundary_safe_terms`]) must be present. No such term: scan.
fn rule_phrase(text: &str) -> Lowered {
    let mut terms = boundary_safe_terms(text);
    terms.sort();
    terms.dedup();
    let mut queries: Vec<TermQuery> = terms.into_iter().map(TermQuery::Term).collect();
    let query = match queries.len() {
        0 => return Lowered::scan(),
        1 => queries.pop().unwrap_or(TermQuery::All),
        _ => TermQuery::And(queries),
    };
    Lowered {
        query,
        exact: false,
    }
}

/// Rule wildcard: `fail*` (one trailing run of `*` after a literal) is a lexicon prefix range;
/// other patterns are a lexicon glob when some literal part has at least [`MIN_LITERAL`] bytes;
/// otherwise scan (`*` alone is always true). A pattern with other major breakers matches as
/// text in `_raw`: scan. Exact: the matcher matches the same pattern against the same tokens.
fn rule_wildcard(text: &str) -> Lowered {
    let lower = text.to_ascii_lowercase();
    if lower.bytes().any(|b| b != b'*' && is_major(b)) {
        return Lowered::scan();
    }
    let literals: Vec<&str> = lower.split('*').filter(|s| !s.is_empty()).collect();
    if literals.is_empty() {
        return Lowered::always();
    }
    if literals.iter().any(|s| s.len() > MAX_TOKEN_LEN) {
        return Lowered::scan();
    }
    let prefix = lower.trim_end_matches('*');
    if !prefix.is_empty() && !prefix.contains('*') {
        return Lowered {
            query: TermQuery::Prefix(prefix.as_bytes().to_vec()),
            exact: true,
        };
    }
    if literals.iter().all(|s| s.len() < MIN_LITERAL) {
        return Lowered::scan();
    }
    Lowered {
        query: TermQuery::Glob(collapse_stars(&lower)),
        exact: true,
    }
}

/// `a**b` → `a*b`: the glob the store evaluates.
fn collapse_stars(pattern: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(pattern.len());
    for b in pattern.bytes() {
        if b == b'*' && out.last() == Some(&b'*') {
            continue;
        }
        out.push(b);
    }
    out
}

/// Fields whose `name::value` term is always in the lexicon (every event has them).
const INDEXED_FIELDS: [&str; 3] = lode_event::META_FIELDS;

/// Dispatches `field <op> value`.
fn rule_compare(field: &str, op: CmpOp, value: &str) -> Lowered {
    // Only equality is answerable from terms; `!=` needs the field present, ranges need values.
    // `=` compares text (as Splunk's lispy, which requires the value's terms), so numeric values
    // are answered from the index like any other.
    if op != CmpOp::Eq || value == "*" || value.is_empty() {
        return Lowered::scan();
    }
    if INDEXED_FIELDS.contains(&field) {
        return rule_indexed_field(field, value);
    }
    if is_computed_field(field) {
        return Lowered::scan();
    }
    rule_search_time_field(field, value)
}

/// Rule indexed field: `host=web01` is the lexicon term `host::web01`; `host=web*` a prefix or glob
/// over such terms (same literal rule as [`rule_wildcard`]).
fn rule_indexed_field(field: &str, value: &str) -> Lowered {
    let mut term = Vec::new();
    lode_event::field_term(field, value, &mut term);
    if term.len() > MAX_TOKEN_LEN {
        return Lowered::scan();
    }
    if !value.contains('*') {
        return Lowered {
            query: TermQuery::Term(term),
            exact: false,
        };
    }
    let longest = value.split('*').map(str::len).max().unwrap_or(0);
    let head = value.trim_end_matches('*');
    let query = if !head.is_empty() && !head.contains('*') {
        TermQuery::Prefix(term[..term.len() - (value.len() - head.len())].to_vec())
    } else if longest >= MIN_LITERAL {
        TermQuery::Glob(collapse_stars(&String::from_utf8_lossy(&term)))
    } else {
        return Lowered::scan();
    };
    Lowered {
        query,
        exact: false,
    }
}

/// Rule search-time field: `status=404` matches a field extracted from `_raw` (whose value's minor
/// parts are then tokens of `_raw`: the value is cut at breakers) or an index-time field (term
/// `status::404`). Only "plain" values — ASCII letters, digits and minor breakers, no wildcard —
/// are lowered: `OR(status::404, AND(parts of the value))`. Anything else scans.
fn rule_search_time_field(field: &str, value: &str) -> Lowered {
    let plain = value
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || is_minor(b));
    if !plain {
        return Lowered::scan();
    }
    let mut indexed = Vec::new();
    lode_event::field_term(field, value, &mut indexed);
    let mut parts = minor_parts(value);
    parts.sort();
    parts.dedup();
    if parts.is_empty() || indexed.len() > MAX_TOKEN_LEN {
        return Lowered::scan();
    }
    let mut from_raw: Vec<TermQuery> = parts.into_iter().map(TermQuery::Term).collect();
    let raw_query = if from_raw.len() == 1 {
        from_raw.pop().unwrap_or(TermQuery::All)
    } else {
        TermQuery::And(from_raw)
    };
    Lowered {
        query: TermQuery::Or(vec![TermQuery::Term(indexed), raw_query]),
        exact: false,
    }
}

/// The minor parts of a value (the whole value when it has no minor breaker), lowercased.
fn minor_parts(value: &str) -> Vec<Vec<u8>> {
    let mut parts = Vec::new();
    let has_minor = value.bytes().any(is_minor);
    Tokenizer::new().for_each(value.as_bytes(), |t| {
        if !has_minor || !t.iter().copied().any(is_minor) {
            parts.push(t.to_vec());
        }
    });
    parts
}

/// The terms every event selected by `q` must contain (the top-level AND's plain terms): a bucket
/// whose bloom filter rules one out cannot hold a match.
pub fn required_terms(q: &TermQuery, out: &mut Vec<Vec<u8>>) {
    match q {
        TermQuery::Term(t) => out.push(t.clone()),
        TermQuery::And(items) => items.iter().for_each(|i| required_terms(i, out)),
        _ => {}
    }
}

#[cfg(test)]
#[path = "lower_tests.rs"]
mod tests;
