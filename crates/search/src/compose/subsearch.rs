//! Subsearches in the search text: each top-level `[ … ]` (outside quotes and comments, and not
//! the argument of a command that takes a sub-pipeline) runs first, and its results replace it
//! as search text (see [`super::subsearch_text`]).

use super::expand::{skip_quoted, Rewritten, Skip};
use crate::SearchError;
use lode_spl::ast::Span;
use lode_spl::ParseError;

/// Commands whose `[ … ]` argument is a sub-pipeline of their own, not text to substitute.
const OWN_PIPELINE: &[&str] = &[
    "append",
    "appendcols",
    "appendpipe",
    "join",
    "union",
    "map",
    "foreach",
];

/// Deepest nesting of brackets accepted.
const MAX_NESTING: usize = 100;

/// Whether `text` may hold a subsearch.
pub fn has_subsearch(text: &str) -> bool {
    text.contains('[')
}

/// Replaces each subsearch of `text` by what `run` makes of its inner text. Parse errors of a
/// subsearch are moved to where it stands in `text`.
pub fn resolve(
    text: &str,
    run: &mut dyn FnMut(&str) -> Result<String, SearchError>,
) -> Result<Rewritten, SearchError> {
    let bytes = text.as_bytes();
    let mut out = Rewritten::new(text.len());
    let mut copied = 0;
    // The command the scan is in: the implicit search unless the text starts with `|`.
    let mut command = String::from("search");
    let mut expect_command = text.trim_start().starts_with('|');
    let mut i = 0;
    while i < text.len() {
        if let Skip::To(end) = skip_quoted(text, i) {
            i = end;
            expect_command = false;
            continue;
        }
        let c = text[i..].chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            i += c.len_utf8();
            continue;
        }
        if c == '|' {
            expect_command = true;
            i += 1;
            continue;
        }
        if expect_command {
            let end = text[i..]
                .find(|ch: char| ch.is_whitespace() || ch == '|' || ch == '[')
                .map_or(text.len(), |k| i + k);
            command = text[i..end].to_ascii_lowercase();
            expect_command = false;
            i = end;
            continue;
        }
        if c != '[' {
            i += c.len_utf8();
            continue;
        }
        let close = matching(text, i)?;
        if OWN_PIPELINE.contains(&command.as_str()) {
            i = close + 1;
            continue;
        }
        let inner_start = i + 1;
        let replacement = run(&text[inner_start..close]).map_err(|e| match e {
            SearchError::Parse(p) => SearchError::Parse(ParseError::new(
                p.message,
                Span {
                    start: p.span.start + inner_start,
                    end: p.span.end + inner_start,
                },
            )),
            other => other,
        })?;
        out.copy(text, copied, i);
        // Spaces keep the result from running into the words around it.
        let before = if i > 0 && !bytes[i - 1].is_ascii_whitespace() {
            " "
        } else {
            ""
        };
        let after = if bytes
            .get(close + 1)
            .is_some_and(|b| !b.is_ascii_whitespace())
        {
            " "
        } else {
            ""
        };
        out.replace(&format!("{before}{replacement}{after}"), i, close + 1);
        copied = close + 1;
        i = close + 1;
    }
    out.copy(text, copied, text.len());
    Ok(out)
}

/// The offset of the `]` closing the `[` at `open`.
fn matching(text: &str, open: usize) -> Result<usize, SearchError> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < text.len() {
        if let Skip::To(end) = skip_quoted(text, i) {
            i = end;
            continue;
        }
        match bytes[i] {
            b'[' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(ParseError::new(
                        format!(
                            "Subsearches are nested too deeply (more than {MAX_NESTING} levels)."
                        ),
                        Span {
                            start: i,
                            end: i + 1,
                        },
                    )
                    .into());
                }
            }
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Ok(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    Err(ParseError::new(
        "Missing a closing ']' for this subsearch.",
        Span {
            start: open,
            end: open + 1,
        },
    )
    .into())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn res(q: &str) -> Result<String, (String, String)> {
        let mut run = |inner: &str| -> Result<String, SearchError> {
            if inner.contains("bad") {
                return Err(ParseError::new("bad here", Span { start: 1, end: 4 }).into());
            }
            Ok(format!("<{}>", inner.trim()))
        };
        match resolve(q, &mut run) {
            Ok(r) => Ok(r.text),
            Err(SearchError::Parse(e)) => Err((e.message, q[e.span.start..e.span.end].to_string())),
            Err(e) => Err((e.to_string(), String::new())),
        }
    }

    #[test]
    fn replaces_top_level_brackets() {
        assert_eq!(
            res("a [search b | fields x] c").unwrap(),
            "a <search b | fields x> c"
        );
        assert_eq!(res("a[b]c").unwrap(), "a <b> c");
        assert_eq!(res("a [b [c]]").unwrap(), "a <b [c]>");
        assert_eq!(res("x | search [y]").unwrap(), "x | search <y>");
        // Quoted and commented brackets are text.
        assert_eq!(res("\"[a]\" ```[b]``` c").unwrap(), "\"[a]\" ```[b]``` c");
        // Sub-pipelines of append & co. are theirs.
        assert_eq!(
            res("x | append [search y]").unwrap(),
            "x | append [search y]"
        );
        assert_eq!(
            res("x | join host [search y]").unwrap(),
            "x | join host [search y]"
        );
        assert_eq!(
            res("| append [y] | search [z]").unwrap(),
            "| append [y] | search <z>"
        );
    }

    #[test]
    fn errors_point_into_the_outer_text() {
        assert_eq!(
            res("a [ bad ]").unwrap_err(),
            ("bad here".into(), "bad".into())
        );
        assert_eq!(res("a [b").unwrap_err().1, "[");
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        assert!(res(&deep).unwrap_err().0.contains("nested too deeply"));
    }
}

#[cfg(test)]
mod robust {
    use super::*;

    #[test]
    fn multibyte_text_around_brackets_does_not_panic() {
        let mut run = |_: &str| -> Result<String, SearchError> { Ok("x".into()) };
        for q in ["é [ü \"é]\" ```é``` ]", "[é", "ü]é[", "\"é", "```é"] {
            let _ = resolve(q, &mut run);
        }
        assert_eq!(resolve("é [ü] é", &mut run).unwrap().text, "é x é");
    }
}
