//! Text rewritten before parsing (macros expanded, subsearches replaced by their results), with
//! a map from the rewritten text back to what the user wrote, so parse errors point at it.

use lode_spl::ast::Span;
use lode_spl::ParseError;

/// One stretch of the rewritten text.
#[derive(Debug, Clone)]
struct Piece {
    /// Bytes of the rewritten text.
    out: (usize, usize),
    /// Bytes of the original text they came from.
    orig: (usize, usize),
    /// Copied unchanged (offsets map one to one) or generated (maps to the whole `orig`).
    literal: bool,
}

/// Rewritten text and where each part came from.
#[derive(Debug, Clone, Default)]
pub struct Rewritten {
    /// The text to parse.
    pub text: String,
    pieces: Vec<Piece>,
    /// Length of the original text.
    orig_len: usize,
}

impl Rewritten {
    /// Starts an empty rewrite of a text `orig_len` bytes long.
    pub(crate) fn new(orig_len: usize) -> Rewritten {
        Rewritten {
            text: String::new(),
            pieces: Vec::new(),
            orig_len,
        }
    }

    /// Appends `orig[start..end]` unchanged.
    pub(crate) fn copy(&mut self, orig: &str, start: usize, end: usize) {
        if start >= end {
            return;
        }
        let at = self.text.len();
        self.text.push_str(&orig[start..end]);
        self.pieces.push(Piece {
            out: (at, self.text.len()),
            orig: (start, end),
            literal: true,
        });
    }

    /// Appends `text` generated from `orig[start..end]` (a macro call, a subsearch).
    pub(crate) fn replace(&mut self, text: &str, start: usize, end: usize) {
        let at = self.text.len();
        self.text.push_str(text);
        self.pieces.push(Piece {
            out: (at, self.text.len()),
            orig: (start, end),
            literal: false,
        });
    }

    /// Whether nothing was replaced.
    pub fn unchanged(&self) -> bool {
        self.pieces.iter().all(|p| p.literal)
    }

    fn map_pos(&self, pos: usize, is_end: bool) -> usize {
        for p in &self.pieces {
            let inside = if is_end {
                pos > p.out.0 && pos <= p.out.1
            } else {
                pos >= p.out.0 && pos < p.out.1
            };
            if inside {
                return if p.literal {
                    p.orig.0 + (pos - p.out.0)
                } else if is_end {
                    p.orig.1
                } else {
                    p.orig.0
                };
            }
        }
        if pos == 0 {
            0
        } else {
            self.orig_len
        }
    }

    /// The span of the original text that `s` (in the rewritten text) came from.
    pub fn map_span(&self, s: Span) -> Span {
        let start = self.map_pos(s.start, false);
        let end = if s.end <= s.start {
            start
        } else {
            self.map_pos(s.end, true).max(start)
        };
        Span { start, end }
    }

    /// `e` with its span mapped back to the original text.
    pub fn map_error(&self, e: ParseError) -> ParseError {
        ParseError::new(e.message, self.map_span(e.span))
    }
}

/// How the scanners see a byte of search text.
pub(crate) enum Skip {
    /// A `"quoted string"` or ```` ```comment``` ```` ending at this offset.
    To(usize),
    /// Something else.
    No,
}

/// Whether a quoted string or comment starts at `i`, and where it ends (the end of the text when
/// it is not closed; the parser reports that).
pub(crate) fn skip_quoted(text: &str, i: usize) -> Skip {
    let b = text.as_bytes();
    if b[i..].starts_with(b"```") {
        let body = i + 3;
        return Skip::To(
            text[body..]
                .find("```")
                .map_or(text.len(), |k| body + k + 3),
        );
    }
    if b[i] == b'"' {
        let mut j = i + 1;
        while j < b.len() {
            match b[j] {
                b'\\' => j += 2,
                b'"' => return Skip::To(j + 1),
                _ => j += 1,
            }
        }
        return Skip::To(b.len());
    }
    Skip::No
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_map_back() {
        // "a `m` b" → "a xyz b"
        let orig = "a `m` b";
        let mut r = Rewritten::new(orig.len());
        r.copy(orig, 0, 2);
        r.replace("xyz", 2, 5);
        r.copy(orig, 5, 7);
        assert_eq!(r.text, "a xyz b");
        let m = |s, e| r.map_span(Span { start: s, end: e });
        assert_eq!(m(6, 7), Span { start: 6, end: 7 });
        assert_eq!(m(3, 4), Span { start: 2, end: 5 });
        assert_eq!(m(0, 1), Span { start: 0, end: 1 });
        assert_eq!(m(7, 7), Span { start: 7, end: 7 });
        assert!(!r.unchanged());
    }
}
