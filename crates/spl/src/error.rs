//! Parse errors: a message and the byte span it is about, rendered with a caret line.

use crate::ast::Span;

/// A syntax error in a search, with the byte range of the offending text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// What is wrong, in the user's terms (Splunk's wording where Splunk has one).
    pub message: String,
    /// Byte range in the search text the message is about; always within the text and on
    /// character boundaries (an empty span at the end means "missing here").
    pub span: Span,
}

impl ParseError {
    /// An error about `span`.
    pub fn new(message: impl Into<String>, span: Span) -> Self {
        ParseError {
            message: message.into(),
            span,
        }
    }

    /// The message, the line of `text` holding the span's start, and a caret line under the
    /// span (at least one caret; cut at the end of the line):
    ///
    /// ```text
    /// Unknown search command 'foo'.
    /// error | foo x
    ///         ^^^
    /// ```
    ///
    /// `text` should be the searched text the error came from; a span that does not fit it is
    /// clamped rather than trusted.
    pub fn render(&self, text: &str) -> String {
        let start = floor_boundary(text, self.span.start.min(text.len()));
        let end = floor_boundary(text, self.span.end.clamp(start, text.len()));
        let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
        let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line = text[line_start..line_end].trim_end_matches('\r');
        let mut out = String::with_capacity(self.message.len() + 2 * line.len() + 4);
        out.push_str(&self.message);
        out.push('\n');
        out.push_str(line);
        out.push('\n');
        // Pad with the same whitespace kind so tabs keep the caret aligned.
        for c in text[line_start..start].chars() {
            out.push(if c == '\t' { '\t' } else { ' ' });
        }
        let under = &text[start..end.min(line_start + line.len()).max(start)];
        let width = under.chars().count().max(1);
        out.extend(std::iter::repeat_n('^', width));
        out
    }
}

/// The largest char boundary of `text` at or below `i`.
fn floor_boundary(text: &str, mut i: usize) -> usize {
    while i > 0 && !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Shorthand for a span.
pub(crate) fn span(start: usize, end: usize) -> Span {
    Span { start, end }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caret_under_span() {
        let text = "error | foo x";
        let e = ParseError::new("Unknown search command 'foo'.", span(8, 11));
        assert_eq!(
            e.render(text),
            "Unknown search command 'foo'.\nerror | foo x\n        ^^^"
        );
    }

    #[test]
    fn caret_on_second_line_and_empty_span_at_end() {
        let text = "a\nb OR";
        let e = ParseError::new("Expected a search term after 'OR'.", span(6, 6));
        assert_eq!(
            e.render(text),
            "Expected a search term after 'OR'.\nb OR\n    ^"
        );
    }

    #[test]
    fn caret_counts_characters_not_bytes_and_keeps_tabs() {
        let text = "\té x";
        let e = ParseError::new("m", span(4, 5));
        assert_eq!(e.render(text), "m\n\té x\n\t  ^");
    }

    #[test]
    fn span_crossing_lines_is_cut_at_line_end() {
        let text = "ab\ncd";
        let e = ParseError::new("m", span(1, 5));
        assert_eq!(e.render(text), "m\nab\n ^");
    }

    #[test]
    fn out_of_range_span_is_clamped() {
        let e = ParseError::new("m", span(50, 70));
        assert_eq!(e.render("abc"), "m\nabc\n   ^");
    }
}
