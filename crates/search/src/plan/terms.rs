//! Which lexicon terms a piece of search text guarantees, and which fields never come from `_raw`.

use lode_event::token::{is_major, is_minor, Tokenizer};

/// Shortest literal part a wildcard pattern needs before a lexicon glob beats a scan: a glob is
/// evaluated over the whole lexicon, and a one-byte literal selects most of it anyway.
pub const MIN_LITERAL: usize = 2;

/// Terms of `text` that are whole tokens of ANY event containing `text` as a case-insensitive
/// substring of `_raw`, whatever surrounds it.
///
/// A term of the phrase that touches an edge of the phrase may be cut: `"rror code"` occurs in
/// `error code`, whose token is `error`, not `rror`. So the major segment at each open edge
/// contributes only its minor parts that do not touch the edge, while segments bounded by major
/// breakers on both sides contribute all their terms. (Case folding is ASCII-only on both sides:
/// the tokenizer's and the matcher's.)
pub fn boundary_safe_terms(text: &str) -> Vec<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut tok = Tokenizer::new();
    let first_major = bytes.iter().position(|&b| is_major(b));
    let last_major = bytes.iter().rposition(|&b| is_major(b));
    match (first_major, last_major) {
        (Some(i), Some(j)) => {
            edge_parts(&mut tok, trim_leading_run(&bytes[..i]), &mut out);
            tok.for_each(&bytes[i..=j], |t| out.push(t.to_vec()));
            edge_parts(&mut tok, trim_trailing_run(&bytes[j + 1..]), &mut out);
        }
        _ => edge_parts(
            &mut tok,
            trim_trailing_run(trim_leading_run(bytes)),
            &mut out,
        ),
    }
    out
}

/// Minor parts of an edge segment whose edge-touching run was cut off: the tokens without minor
/// breakers (the segment-level token is not whole in the event).
fn edge_parts(tok: &mut Tokenizer, seg: &[u8], out: &mut Vec<Vec<u8>>) {
    tok.for_each(seg, |t| {
        if !t.iter().copied().any(is_minor) {
            out.push(t.to_vec());
        }
    });
}

fn is_breaker(b: u8) -> bool {
    is_major(b) || is_minor(b)
}

fn trim_leading_run(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| !is_breaker(b)).count();
    &s[n..]
}

fn trim_trailing_run(s: &[u8]) -> &[u8] {
    let n = s.iter().rev().take_while(|&&b| !is_breaker(b)).count();
    &s[..s.len() - n]
}

/// Fields computed by the search itself (or internal ones): their values are not tokens of
/// `_raw`, so a comparison on them cannot use the lexicon.
pub fn is_computed_field(field: &str) -> bool {
    const COMPUTED: [&str; 8] = [
        "index",
        "linecount",
        "splunk_server",
        "punct",
        "timestartpos",
        "timeendpos",
        "eventtype",
        "tag",
    ];
    field.starts_with('_') || field.starts_with("date_") || COMPUTED.contains(&field)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(text: &str) -> Vec<String> {
        boundary_safe_terms(text)
            .into_iter()
            .map(|t| String::from_utf8(t).unwrap())
            .collect()
    }

    #[test]
    fn interior_segments_are_whole() {
        assert_eq!(terms("a bc d"), vec!["bc"]);
        assert_eq!(terms(" bc "), vec!["bc"]);
    }

    #[test]
    fn edge_segments_keep_only_inner_minor_parts() {
        assert_eq!(terms("rror code"), Vec::<String>::new());
        assert_eq!(terms("ab.cd ef x.y.z"), vec!["cd", "ef", "x", "y"]);
        assert_eq!(terms("10.0.0.1"), vec!["0", "0"]);
    }

    #[test]
    fn a_single_word_guarantees_nothing() {
        assert!(terms("error").is_empty());
    }

    #[test]
    fn non_ascii_terms_fold_ascii_only() {
        assert_eq!(terms("x École y"), vec!["École"]);
        assert_eq!(terms("x Ab y"), vec!["ab"]);
    }

    #[test]
    fn terms_are_whole_tokens_of_any_superstring() {
        // Naive check: embedding the phrase between arbitrary letters keeps every safe term a
        // token of the result.
        let mut tok = Tokenizer::new();
        for phrase in [
            "a.b c-d e",
            "x y",
            ".a b.",
            "GET /a/b?c=1 HTTP/1.1",
            "q=1, r=2",
        ] {
            for (pre, post) in [("", ""), ("zz", "zz"), ("z.", ".z"), ("[", "]")] {
                let raw = format!("{pre}{phrase}{post}");
                let toks = tok.terms(&raw);
                for t in terms(phrase) {
                    assert!(toks.contains(&t), "{t} not a token of {raw}");
                }
            }
        }
    }

    #[test]
    fn computed_fields() {
        assert!(is_computed_field("_time"));
        assert!(is_computed_field("index"));
        assert!(is_computed_field("date_hour"));
        assert!(!is_computed_field("status"));
    }
}
