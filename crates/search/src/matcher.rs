//! The semantic check of a search clause on one row (SPLUNK.md §3.1).
//!
//! * A bare term `T` matches iff `lowercase(T)` is one of the tokens of `_raw`
//!   ([`lode_event::token::Tokenizer`]); `*` in `T` is a wildcard over a token.
//! * A quoted phrase, or a bare term containing major breakers, matches as a case-insensitive
//!   substring of `_raw` (with `*` wildcards for unquoted terms).
//! * `TERM(x)` matches iff `x` is exactly one token.
//! * `CASE(x)` matches as `x` does and, in addition, `x` occurs in `_raw` with its case as
//!   written (bounded by breakers; with wildcards, anywhere).
//! * `field=v`/`field!=v` compare case-insensitively with `*` wildcards (`field=*` = exists);
//!   `< <= > >=` compare numerically when both sides are numbers, else as strings. Every
//!   comparison needs the field, so `NOT f=x` holds for rows lacking `f` and `f!=x` does not.
//!   A multivalue field matches when one of its values does (`!=`: when none equals).
//! * Time bounds are true here: the planner applies them to the time range.

use crate::extract::json::{self, Found};
use crate::extract::{self, kv};
use crate::row::Row;
use crate::value::{parse_num, Value};
use lode_event::token::{is_major, is_minor, Tokenizer};
use lode_spl::ast::{CmpOp, SearchExpr, Term};
use lode_store::bucket::EventView;
use std::borrow::Cow;
use std::cell::RefCell;

/// The tokens of one `_raw`, built on the first term of a [`matches`] call (buffers reused across
/// calls on the same thread).
#[derive(Default)]
struct Tokens {
    /// Whether `spans` describe the current row.
    built: bool,
    tokenizer: Tokenizer,
    /// All tokens, concatenated.
    buf: Vec<u8>,
    /// Byte ranges of each token in `buf`.
    spans: Vec<(usize, usize)>,
}

impl Tokens {
    fn build(&mut self, raw: &str) {
        self.buf.clear();
        self.spans.clear();
        let (buf, spans) = (&mut self.buf, &mut self.spans);
        self.tokenizer.for_each(raw.as_bytes(), |t| {
            let start = buf.len();
            buf.extend_from_slice(t);
            spans.push((start, buf.len()));
        });
        self.built = true;
    }

    fn any(&self, mut f: impl FnMut(&[u8]) -> bool) -> bool {
        self.spans.iter().any(|&(s, e)| f(&self.buf[s..e]))
    }
}

thread_local! {
    static TOKENS: RefCell<Tokens> = RefCell::new(Tokens::default());
}

/// What a clause is checked against: a [`Row`], or an event as read from a bucket
/// ([`EventSubject`]) before any row is built.
trait Subject {
    /// `_raw` (`""` when there is none).
    fn raw(&self) -> &str;
    /// The field `name`, or [`Undecided`] when this subject cannot tell it cheaply.
    fn field(&mut self, name: &str) -> Result<Field<'_>, Undecided>;
}

/// A field's value as a [`Subject`] sees it.
enum Field<'a> {
    /// Missing (or null).
    Missing,
    /// A value of a row.
    Value(&'a Value),
    /// A single string value.
    Text(&'a str),
}

/// The subject cannot answer without building the whole row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Undecided;

impl Subject for Row {
    fn raw(&self) -> &str {
        match self.peek("_raw") {
            Some(Value::Str(s)) => s.as_str(),
            _ => "",
        }
    }

    fn field(&mut self, name: &str) -> Result<Field<'_>, Undecided> {
        Ok(match self.get(name) {
            Some(v) if !v.is_null() => Field::Value(v),
            _ => Field::Missing,
        })
    }
}

/// An event straight from a bucket, as [`Row::from_event`] would present it, answering the
/// fields it can give without building the row: `_raw`, `host`, `source`, `sourcetype`,
/// `index`, `splunk_server`, index-time fields, search-time `key=value` fields of non-JSON events
/// (found by [`kv::find`], which yields what extraction would give first) and JSON fields (found
/// by [`json::find`], which walks only the members on the way to the field). Numeric built-ins
/// (`_time`, `linecount`, …), `punct` and JSON documents that repeat a key on the way to the
/// field are [`Undecided`].
pub struct EventSubject<'a> {
    /// The event.
    view: &'a EventView<'a>,
    /// Its index.
    index: &'a str,
    /// The last JSON field found, as [`Field::Value`] refers to it.
    json: Value,
}

impl<'a> EventSubject<'a> {
    /// The subject of `view`, an event of index `index`.
    pub fn new(view: &'a EventView<'a>, index: &'a str) -> Self {
        EventSubject {
            view,
            index,
            json: Value::Null,
        }
    }
}

impl Subject for EventSubject<'_> {
    fn raw(&self) -> &str {
        self.view.raw
    }

    fn field(&mut self, name: &str) -> Result<Field<'_>, Undecided> {
        let v = self.view;
        let text = match name {
            "_raw" => v.raw,
            "host" => v.host,
            "source" => v.source,
            "sourcetype" => v.sourcetype,
            "index" => self.index,
            "splunk_server" => "lode",
            "_time" | "linecount" | "_indextime" | "_cd" | "punct" => return Err(Undecided),
            _ => {
                if let Some((_, x)) = v.fields.iter().find(|(k, _)| k == name) {
                    x
                } else {
                    let is_json = extract::is_json(v.raw, v.sourcetype);
                    // A JSON scan reads the whole document; two byte searches can often tell
                    // the field is not there at all (not by key=value either).
                    if is_json && extract::surely_absent(v.raw, name) {
                        return Ok(Field::Missing);
                    }
                    let json = is_json.then(|| json::find(v.raw, name));
                    match json {
                        Some(Found::Undecided) => return Err(Undecided),
                        Some(Found::Values(mut vals)) => match vals.len() {
                            0 => return Ok(Field::Missing),
                            1 => match vals.pop().unwrap_or_default() {
                                Cow::Borrowed(x) => x,
                                Cow::Owned(x) => {
                                    self.json = Value::Str(x);
                                    return Ok(Field::Value(&self.json));
                                }
                            },
                            _ => {
                                let vals = vals.into_iter().map(|x| Value::Str(x.into_owned()));
                                self.json = Value::Multi(vals.collect());
                                return Ok(Field::Value(&self.json));
                            }
                        },
                        // Not JSON, or JSON that does not parse: extract() falls back to
                        // key=value pairs.
                        None | Some(Found::NotJson) => match kv::find(v.raw, name) {
                            Some(x) => x,
                            None => return Ok(Field::Missing),
                        },
                    }
                }
            }
        };
        Ok(Field::Text(text))
    }
}

/// Whether `row` satisfies the search clause `expr`.
pub fn matches(expr: &SearchExpr, row: &mut Row) -> bool {
    with_tokens(|toks| check(expr, row, toks)).unwrap_or(false)
}

/// Whether the event satisfies `expr`, decided without building its row, or [`Undecided`]
/// (then build the row and call [`matches`]; the answer is always the same as [`matches`]'s).
pub fn matches_event(expr: &SearchExpr, ev: &mut EventSubject<'_>) -> Result<bool, Undecided> {
    with_tokens(|toks| check(expr, ev, toks))
}

fn with_tokens<T>(f: impl FnOnce(&mut Tokens) -> T) -> T {
    TOKENS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut toks) => {
            toks.built = false;
            f(&mut toks)
        }
        Err(_) => f(&mut Tokens::default()),
    })
}

fn check<S: Subject>(expr: &SearchExpr, row: &mut S, toks: &mut Tokens) -> Result<bool, Undecided> {
    Ok(match expr {
        SearchExpr::And(v) => {
            for e in v {
                if !check(e, row, toks)? {
                    return Ok(false);
                }
            }
            true
        }
        SearchExpr::Or(v) => {
            for e in v {
                if check(e, row, toks)? {
                    return Ok(true);
                }
            }
            false
        }
        SearchExpr::Not(e) => !check(e, row, toks)?,
        SearchExpr::TimeBound { .. } => true,
        SearchExpr::Term(t) => term(t, row.raw(), toks),
        SearchExpr::Compare {
            field, op, value, ..
        } => compare(row.field(field)?, *op, value),
    })
}

fn term(t: &Term, raw: &str, toks: &mut Tokens) -> bool {
    let text = t.text.as_bytes();
    if t.quoted && t.case {
        return raw.contains(t.text.as_str());
    }
    if t.quoted {
        return contains_ci(raw.as_bytes(), text);
    }
    let has_major = text.iter().any(|&b| b != b'*' && is_major(b));
    if has_major && !t.whole {
        let mut pat = Vec::with_capacity(text.len() + 2);
        pat.push(b'*');
        pat.extend_from_slice(text);
        pat.push(b'*');
        return wildcard_match(&pat, raw.as_bytes(), !t.case);
    }
    if !text.is_empty() && text.iter().all(|&b| b == b'*') {
        return true;
    }
    if !toks.built {
        toks.build(raw);
    }
    let wild = text.contains(&b'*');
    let found = toks.any(|tok| {
        if wild {
            wildcard_match(text, tok, true)
        } else {
            tok.eq_ignore_ascii_case(text)
        }
    });
    found && (!t.case || case_occurs(raw.as_bytes(), text, wild))
}

/// For `CASE(x)` once `x` matched a token ignoring case: whether `raw` holds `x` with its case as
/// written, bounded by breakers (or, with wildcards, anywhere in the text).
fn case_occurs(raw: &[u8], text: &[u8], wild: bool) -> bool {
    if wild {
        let mut pat = Vec::with_capacity(text.len() + 2);
        pat.push(b'*');
        pat.extend_from_slice(text);
        pat.push(b'*');
        return wildcard_match(&pat, raw, false);
    }
    let breaker = |b: Option<&u8>| b.is_none_or(|&b| is_major(b) || is_minor(b));
    (0..raw.len().saturating_sub(text.len()) + 1).any(|i| {
        raw[i..].starts_with(text)
            && breaker(i.checked_sub(1).and_then(|j| raw.get(j)))
            && breaker(raw.get(i + text.len()))
    })
}

fn compare(field: Field<'_>, op: CmpOp, pattern: &str) -> bool {
    match field {
        Field::Missing => false,
        // What a row's `Value::Str(x)` gives below, without the value.
        Field::Text(x) => compare_one(x, || parse_num(x), op, pattern),
        Field::Value(v) => match op {
            CmpOp::Eq => pattern == "*" || v.iter_values().any(|x| eq_match(&x.as_str(), pattern)),
            CmpOp::Ne => !v.iter_values().any(|x| eq_match(&x.as_str(), pattern)),
            _ => v
                .iter_values()
                .any(|x| compare_one(&x.as_str(), || x.to_num(), op, pattern)),
        },
    }
}

/// One value (its text, and its number if any, which only ordering needs) against the pattern.
fn compare_one(text: &str, num: impl FnOnce() -> Option<f64>, op: CmpOp, pattern: &str) -> bool {
    match op {
        CmpOp::Eq => pattern == "*" || eq_match(text, pattern),
        CmpOp::Ne => !eq_match(text, pattern),
        _ => {
            let ord = match (num(), parse_num(pattern)) {
                (Some(a), Some(b)) => a.partial_cmp(&b),
                _ => Some(text.cmp(pattern)),
            };
            let Some(ord) = ord else { return false };
            match op {
                CmpOp::Lt => ord.is_lt(),
                CmpOp::Le => ord.is_le(),
                CmpOp::Gt => ord.is_gt(),
                _ => ord.is_ge(),
            }
        }
    }
}

/// `=` semantics of the search clause: the text, case-insensitively, with `*` wildcards. As in
/// Splunk, `status=404` does not match `404.0` (its index lookup needs the term `404.0`… `404`
/// and the post-filter compares text); use `where status==404` for numeric equality.
fn eq_match(value: &str, pattern: &str) -> bool {
    let (v, p) = (value.as_bytes(), pattern.as_bytes());
    // The usual answer first: the same bytes match (a `*` in the pattern then stands for
    // itself, which a wildcard also matches). A dense search asks this once per event.
    if v == p {
        return true;
    }
    if p.contains(&b'*') {
        return wildcard_match(p, v, true);
    }
    v.eq_ignore_ascii_case(p)
}

/// Whether `hay` contains `needle`, ASCII case-insensitively (empty needle: true).
pub fn contains_ci(hay: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() {
        return true;
    }
    hay.windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle))
}

/// Whether `text` matches `pat`, where `*` in `pat` matches any run of bytes (linear-time
/// greedy algorithm with one backtrack point). `ci`: ASCII case-insensitive.
pub fn wildcard_match(pat: &[u8], text: &[u8], ci: bool) -> bool {
    let eq = |a: u8, b: u8| {
        if ci {
            a.eq_ignore_ascii_case(&b)
        } else {
            a == b
        }
    };
    let (mut p, mut t) = (0, 0);
    let mut star: Option<usize> = None;
    let mut mark = 0;
    while t < text.len() {
        if p < pat.len() && pat[p] != b'*' && eq(pat[p], text[t]) {
            p += 1;
            t += 1;
        } else if p < pat.len() && pat[p] == b'*' {
            star = Some(p);
            p += 1;
            mark = t;
        } else if let Some(s) = star {
            p = s + 1;
            mark += 1;
            t = mark;
        } else {
            return false;
        }
    }
    while p < pat.len() && pat[p] == b'*' {
        p += 1;
    }
    p == pat.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(raw: &str, extra: &[(&str, &str)]) -> Row {
        let mut fields = vec![("_raw".to_string(), Value::Str(raw.to_string()))];
        for (k, v) in extra {
            fields.push((k.to_string(), Value::Str(v.to_string())));
        }
        Row::from_fields(fields)
    }

    fn term(text: &str) -> SearchExpr {
        SearchExpr::Term(Term {
            text: text.into(),
            quoted: false,
            whole: false,
            case: false,
        })
    }

    fn phrase(text: &str) -> SearchExpr {
        SearchExpr::Term(Term {
            text: text.into(),
            quoted: true,
            whole: false,
            case: false,
        })
    }

    fn tterm(text: &str) -> SearchExpr {
        SearchExpr::Term(Term {
            text: text.into(),
            quoted: false,
            whole: true,
            case: false,
        })
    }

    fn case(text: &str, quoted: bool) -> SearchExpr {
        SearchExpr::Term(Term {
            text: text.into(),
            quoted,
            whole: false,
            case: true,
        })
    }

    #[test]
    fn case_terms_keep_their_case() {
        let mut r = row("ERROR Disk Full on /dev/sda1", &[]);
        assert!(matches(&case("ERROR", false), &mut r));
        assert!(!matches(&case("error", false), &mut r));
        assert!(matches(&case("ERR*", false), &mut r));
        assert!(!matches(&case("err*", false), &mut r));
        assert!(matches(&case("Disk Full", true), &mut r));
        assert!(!matches(&case("disk full", true), &mut r));
        assert!(matches(&case("/dev/sda1", false), &mut r));
        assert!(!matches(&case("/DEV/sda1", false), &mut r));
        assert!(matches(&term("error"), &mut r));
        let mut r = row("ERROR xerror", &[]);
        assert!(!matches(&case("error", false), &mut r));
    }

    fn cmp(field: &str, op: CmpOp, value: &str) -> SearchExpr {
        SearchExpr::Compare {
            field: field.into(),
            op,
            value: value.into(),
            quoted: false,
        }
    }

    fn not(e: SearchExpr) -> SearchExpr {
        SearchExpr::Not(Box::new(e))
    }

    const RAW: &str = "Dec 10 sshd[24200]: Failed password for root from 10.0.0.1 port 22";

    #[test]
    fn terms_are_tokens_case_insensitive() {
        let mut r = row(RAW, &[]);
        assert!(matches(&term("failed"), &mut r));
        assert!(matches(&term("FAILED"), &mut r));
        assert!(matches(&term("10.0.0.1"), &mut r));
        assert!(matches(&term("24200"), &mut r));
        assert!(!matches(&term("fail"), &mut r));
        assert!(!matches(&term("0.0.1"), &mut r));
    }

    #[test]
    fn wildcards() {
        let mut r = row(RAW, &[]);
        assert!(matches(&term("fail*"), &mut r));
        assert!(matches(&term("*word"), &mut r));
        assert!(matches(&term("10.0.*"), &mut r));
        assert!(!matches(&term("xyz*"), &mut r));
        assert!(matches(&term("*"), &mut r));
        assert!(wildcard_match(b"a*b*c", b"axxbyyc", false));
        assert!(!wildcard_match(b"a*b*c", b"axxbyy", false));
        assert!(wildcard_match(b"**", b"", false));
    }

    #[test]
    fn phrases_and_major_breakers() {
        let mut r = row(RAW, &[]);
        assert!(matches(&phrase("failed PASSWORD for"), &mut r));
        assert!(!matches(&phrase("password failed"), &mut r));
        assert!(matches(&term("sshd[24200]:"), &mut r));
        assert!(matches(&term("root from*port"), &mut r));
    }

    #[test]
    fn term_directive() {
        let mut r = row(RAW, &[]);
        assert!(matches(&tterm("10.0.0.1"), &mut r));
        assert!(!matches(&tterm("10.0.0"), &mut r));
    }

    #[test]
    fn not_versus_not_equal() {
        let mut r = row("x", &[("status", "200")]);
        let mut missing = row("x", &[]);
        assert!(matches(&cmp("status", CmpOp::Ne, "404"), &mut r));
        assert!(!matches(&cmp("status", CmpOp::Ne, "404"), &mut missing));
        assert!(matches(&not(cmp("status", CmpOp::Eq, "404")), &mut missing));
        assert!(!matches(&not(cmp("status", CmpOp::Eq, "200")), &mut r));
    }

    #[test]
    fn field_values_case_insensitive_with_wildcards() {
        let mut r = row("x", &[("host", "Web-01"), ("n", "1.0")]);
        assert!(matches(&cmp("host", CmpOp::Eq, "web-01"), &mut r));
        assert!(matches(&cmp("host", CmpOp::Eq, "WEB*"), &mut r));
        assert!(matches(&cmp("host", CmpOp::Eq, "*"), &mut r));
        assert!(!matches(&cmp("Host", CmpOp::Eq, "*"), &mut r));
        assert!(
            !matches(&cmp("n", CmpOp::Eq, "1"), &mut r),
            "= compares text, not numbers"
        );
        assert!(matches(&cmp("n", CmpOp::Eq, "1.0"), &mut r));
    }

    #[test]
    fn numeric_and_string_ordering() {
        let mut r = row("x", &[("bytes", "900"), ("name", "bob")]);
        assert!(!matches(&cmp("bytes", CmpOp::Gt, "1000"), &mut r));
        assert!(matches(&cmp("bytes", CmpOp::Lt, "1000"), &mut r));
        assert!(matches(&cmp("bytes", CmpOp::Ge, "900"), &mut r));
        assert!(matches(&cmp("name", CmpOp::Gt, "alice"), &mut r));
        assert!(!matches(&cmp("name", CmpOp::Le, "alice"), &mut r));
    }

    #[test]
    fn extracted_fields_and_booleans() {
        let mut r = Row::from_event(
            lode_event::Event {
                raw: "user=alice action=login".into(),
                ..Default::default()
            },
            "0:0".into(),
        );
        let e = SearchExpr::And(vec![
            cmp("user", CmpOp::Eq, "ALICE"),
            SearchExpr::Or(vec![term("logout"), term("login")]),
            SearchExpr::TimeBound {
                bound: lode_spl::ast::TimeBound::Earliest,
                value: "-1h".into(),
            },
        ]);
        assert!(matches(&e, &mut r));
    }

    #[test]
    fn multivalue_fields() {
        let mut r = Row::from_fields([(
            "tag".to_string(),
            Value::Multi(vec![Value::Str("a".into()), Value::Str("b".into())]),
        )]);
        assert!(matches(&cmp("tag", CmpOp::Eq, "B"), &mut r));
        assert!(!matches(&cmp("tag", CmpOp::Ne, "b"), &mut r));
        assert!(matches(&cmp("tag", CmpOp::Ne, "c"), &mut r));
    }

    proptest::proptest! {
        /// Naive twin of `wildcard_match`: the pattern as an anchored regex.
        #[test]
        fn wildcard_matches_regex_twin(pat in "[ab*]{0,8}", text in "[abAB]{0,10}") {
            let parts: Vec<String> = pat.split('*').map(regex::escape).collect();
            let re = regex::Regex::new(&format!("(?i)^{}$", parts.join(".*"))).unwrap();
            proptest::prop_assert_eq!(wildcard_match(pat.as_bytes(), text.as_bytes(), true), re.is_match(&text));
        }
    }
}
