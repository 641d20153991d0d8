//! Tokens of SPL text, cut on demand in one of three modes.
//!
//! SPL has no single token grammar: `10.0.0.1` is one term in a search clause but `a.b` is a
//! concatenation in `eval`. The parser therefore asks for the next token in the [`Mode`] of the
//! command it is reading; the lexer itself keeps no state besides the input.

use crate::ast::Span;
use crate::error::{span, ParseError};

/// How words are cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Search clause: a word runs until whitespace, `(`, `)`, `"`, `|`, `=`, `!=`, `<`, `>`.
    Search,
    /// Command arguments (`stats`, `sort`, options): a word runs until whitespace, `(`, `)`,
    /// `"`, `|`, `=`, `,`.
    Args,
    /// `eval`/`where` expressions: identifiers, numbers, operators.
    Expr,
}

/// Operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// `=`
    Eq,
    /// `==` (expression mode only)
    EqEq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `*`
    Star,
    /// `/`
    Slash,
    /// `%`
    Percent,
    /// `.`
    Dot,
    /// `!`
    Bang,
}

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    /// A bare word (search/args mode) or identifier (expression mode); its text is the span.
    Word,
    /// `"double quoted"`, escapes resolved.
    Str(String),
    /// `'single quoted'` field name (expression mode), escapes resolved.
    Quoted(String),
    /// A number literal (expression mode), always finite and non-negative.
    Num(f64),
    /// `(`
    LParen,
    /// `)`
    RParen,
    /// `,` (args and expression modes)
    Comma,
    /// `|`
    Pipe,
    /// An operator.
    Op(Op),
    /// End of input.
    Eof,
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Token {
    /// The kind (and decoded value of quoted strings and numbers).
    pub kind: Tok,
    /// Its bytes in the source.
    pub span: Span,
}

/// Cuts the token starting at or after byte `pos` of `src` (skipping whitespace).
pub(crate) fn lex(src: &str, pos: usize, mode: Mode) -> Result<Token, ParseError> {
    let bytes = src.as_bytes();
    let i = skip_blank(src, pos)?;
    let at = |kind, len: usize| {
        Ok(Token {
            kind,
            span: span(i, i + len),
        })
    };
    let Some(&b) = bytes.get(i) else {
        return at(Tok::Eof, 0);
    };
    let next = bytes.get(i + 1).copied();
    match b {
        b'(' => return at(Tok::LParen, 1),
        b')' => return at(Tok::RParen, 1),
        b'|' => return at(Tok::Pipe, 1),
        b'"' => return quoted(src, i, b'"').map(|(s, end)| tok(Tok::Str(s), i, end)),
        b'[' if mode != Mode::Expr => {
            return Err(ParseError::new(
                "Subsearches ([ … ]) are not supported here.",
                span(i, i + 1),
            ))
        }
        b',' if mode != Mode::Search => return at(Tok::Comma, 1),
        b'=' if mode == Mode::Expr && next == Some(b'=') => return at(Tok::Op(Op::EqEq), 2),
        b'=' => return at(Tok::Op(Op::Eq), 1),
        b'!' if next == Some(b'=') && mode != Mode::Args => return at(Tok::Op(Op::Ne), 2),
        b'<' | b'>' if mode != Mode::Args => {
            let (lt, le) = if b == b'<' {
                (Op::Lt, Op::Le)
            } else {
                (Op::Gt, Op::Ge)
            };
            return if next == Some(b'=') {
                at(Tok::Op(le), 2)
            } else {
                at(Tok::Op(lt), 1)
            };
        }
        _ => {}
    }
    if mode == Mode::Expr {
        return lex_expr(src, i);
    }
    let mut end = i;
    while end < src.len() {
        let c = src[end..].chars().next().unwrap_or(' ');
        let stop = c.is_whitespace()
            || matches!(c, '(' | ')' | '"' | '|' | '=')
            || src[end..].starts_with(COMMENT)
            || (mode == Mode::Args && c == ',')
            || (mode == Mode::Search
                && (matches!(c, '<' | '>') || (c == '!' && bytes.get(end + 1) == Some(&b'='))));
        if stop {
            break;
        }
        end += c.len_utf8();
    }
    Ok(tok(Tok::Word, i, end))
}

/// Past whitespace and ```` ```comments``` ```` starting at `pos`; an unclosed comment is an
/// error naming where it opens.
pub(crate) fn skip_blank(src: &str, pos: usize) -> Result<usize, ParseError> {
    let mut i = pos;
    while i < src.len() {
        if src[i..].starts_with(COMMENT) {
            let body = i + COMMENT.len();
            match src[body..].find(COMMENT) {
                Some(k) => i = body + k + COMMENT.len(),
                None => {
                    return Err(ParseError::new(
                        "Unclosed comment: add ``` after it.",
                        span(i, body),
                    ))
                }
            }
            continue;
        }
        let c = src[i..].chars().next().unwrap_or(' ');
        if !c.is_whitespace() {
            break;
        }
        i += c.len_utf8();
    }
    Ok(i)
}

/// Opens and closes a comment, which may stand anywhere whitespace may.
const COMMENT: &str = "```";

fn tok(kind: Tok, start: usize, end: usize) -> Token {
    Token {
        kind,
        span: span(start, end),
    }
}

/// Expression-mode tokens that are not shared with the other modes.
fn lex_expr(src: &str, i: usize) -> Result<Token, ParseError> {
    let bytes = src.as_bytes();
    let b = bytes[i];
    let op = match b {
        b'+' => Some(Op::Plus),
        b'-' => Some(Op::Minus),
        b'*' => Some(Op::Star),
        b'/' => Some(Op::Slash),
        b'%' => Some(Op::Percent),
        b'.' => Some(Op::Dot),
        b'!' => Some(Op::Bang),
        _ => None,
    };
    if let Some(op) = op {
        return Ok(tok(Tok::Op(op), i, i + 1));
    }
    if b == b'\'' {
        return quoted(src, i, b'\'').map(|(s, end)| tok(Tok::Quoted(s), i, end));
    }
    if b == b',' {
        return Ok(tok(Tok::Comma, i, i + 1));
    }
    if b.is_ascii_digit() {
        return number(src, i);
    }
    let ident_end = ident_end(src, i);
    if ident_end > i {
        return Ok(tok(Tok::Word, i, ident_end));
    }
    let c = src[i..].chars().next().unwrap_or('?');
    Err(ParseError::new(
        format!("Unexpected character '{c}' in expression."),
        span(i, i + c.len_utf8()),
    ))
}

/// End of the identifier starting at `i` (`i` itself when there is none): a letter or `_`,
/// then letters, digits and `_`.
pub(crate) fn ident_end(src: &str, i: usize) -> usize {
    let mut end = i;
    for c in src[i..].chars() {
        let ok = c == '_' || c.is_alphabetic() || (end > i && c.is_alphanumeric());
        if !ok {
            break;
        }
        end += c.len_utf8();
    }
    end
}

/// A number literal: digits, an optional `.digits` fraction and an optional exponent.
fn number(src: &str, i: usize) -> Result<Token, ParseError> {
    let bytes = src.as_bytes();
    let digits = |mut j: usize| {
        while j < bytes.len() && bytes[j].is_ascii_digit() {
            j += 1;
        }
        j
    };
    let mut end = digits(i);
    if bytes.get(end) == Some(&b'.') && bytes.get(end + 1).is_some_and(u8::is_ascii_digit) {
        end = digits(end + 1);
    }
    if matches!(bytes.get(end), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(bytes.get(end + 1), Some(b'+' | b'-')));
        if bytes.get(end + 1 + sign).is_some_and(u8::is_ascii_digit) {
            end = digits(end + 1 + sign);
        }
    }
    let tail = ident_end(src, end);
    if tail > end {
        return Err(ParseError::new(
            format!("Invalid number '{}'.", &src[i..tail]),
            span(i, tail),
        ));
    }
    let text = &src[i..end];
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(tok(Tok::Num(v), i, end)),
        _ => Err(ParseError::new(
            format!("Number '{text}' is out of range."),
            span(i, end),
        )),
    }
}

/// A quoted string starting at the quote `i`: returns the text with `\<quote>` and `\\`
/// resolved (other backslashes kept, so regexes survive) and the end past the closing quote.
fn quoted(src: &str, i: usize, quote: u8) -> Result<(String, usize), ParseError> {
    let bytes = src.as_bytes();
    let mut out = String::new();
    let mut j = i + 1;
    let mut run = j;
    while j < bytes.len() {
        match bytes[j] {
            b'\\' if matches!(bytes.get(j + 1), Some(&n) if n == quote || n == b'\\') => {
                out.push_str(&src[run..j]);
                out.push(char::from(bytes[j + 1]));
                j += 2;
                run = j;
            }
            b if b == quote => {
                out.push_str(&src[run..j]);
                return Ok((out, j + 1));
            }
            _ => j += 1,
        }
    }
    Err(ParseError::new("Unbalanced quotes.", span(i, src.len())))
}

/// Writes `s` between `quote` characters, escaping the quote, and a backslash only where it
/// would otherwise be read as an escape (before the quote, a backslash, or the end), so regexes
/// such as `\d+` print as written.
pub(crate) fn push_quoted(out: &mut String, s: &str, quote: char) {
    out.push(quote);
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        let escape =
            c == quote || (c == '\\' && chars.peek().is_none_or(|&n| n == quote || n == '\\'));
        if escape {
            out.push('\\');
        }
        out.push(c);
    }
    out.push(quote);
}

/// Whether `s` lexes back, in `mode`, as exactly one bare word.
pub(crate) fn is_word(s: &str, mode: Mode) -> bool {
    match lex(s, 0, mode) {
        Ok(Token {
            kind: Tok::Word,
            span,
        }) => span.start == 0 && span.end == s.len(),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(src: &str, mode: Mode) -> Vec<(Tok, &str)> {
        let mut out = Vec::new();
        let mut pos = 0;
        loop {
            let t = lex(src, pos, mode).unwrap();
            if t.kind == Tok::Eof {
                return out;
            }
            pos = t.span.end;
            out.push((t.kind, &src[t.span.start..t.span.end]));
        }
    }

    #[test]
    fn search_words_keep_minor_breakers() {
        let toks = all("10.0.0.1 /var/log user@host -24h@h a,b", Mode::Search);
        let words: Vec<&str> = toks.iter().map(|t| t.1).collect();
        assert_eq!(
            words,
            ["10.0.0.1", "/var/log", "user@host", "-24h@h", "a,b"]
        );
    }

    #[test]
    fn search_comparisons_split_words() {
        let toks = all("a!=b c<=1 d=\"x y\"", Mode::Search);
        let kinds: Vec<&Tok> = toks.iter().map(|t| &t.0).collect();
        assert_eq!(
            kinds,
            [
                &Tok::Word,
                &Tok::Op(Op::Ne),
                &Tok::Word,
                &Tok::Word,
                &Tok::Op(Op::Le),
                &Tok::Word,
                &Tok::Word,
                &Tok::Op(Op::Eq),
                &Tok::Str("x y".into()),
            ]
        );
    }

    #[test]
    fn args_words_stop_at_commas() {
        let words: Vec<&str> = all("a,b -c <d>", Mode::Args).iter().map(|t| t.1).collect();
        assert_eq!(words, ["a", ",", "b", "-c", "<d>"]);
    }

    #[test]
    fn expr_tokens() {
        let toks = all("a.b+1.5e3*'x y'==-2", Mode::Expr);
        let kinds: Vec<Tok> = toks.into_iter().map(|t| t.0).collect();
        assert_eq!(
            kinds,
            [
                Tok::Word,
                Tok::Op(Op::Dot),
                Tok::Word,
                Tok::Op(Op::Plus),
                Tok::Num(1500.0),
                Tok::Op(Op::Star),
                Tok::Quoted("x y".into()),
                Tok::Op(Op::EqEq),
                Tok::Op(Op::Minus),
                Tok::Num(2.0),
            ]
        );
    }

    #[test]
    fn escapes_resolve_quote_and_backslash_only() {
        let t = lex(r#""a\"b\\c\d""#, 0, Mode::Search).unwrap();
        assert_eq!(t.kind, Tok::Str(r#"a"b\c\d"#.into()));
    }

    #[test]
    fn errors_have_spans() {
        let e = lex("x \"abc", 1, Mode::Search).unwrap_err();
        assert_eq!(
            (e.message.as_str(), e.span),
            ("Unbalanced quotes.", span(2, 6))
        );
        let e = lex("3abc", 0, Mode::Expr).unwrap_err();
        assert_eq!(e.span, span(0, 4));
        let e = lex("1e999", 0, Mode::Expr).unwrap_err();
        assert!(e.message.contains("out of range"));
        let e = lex(" #", 0, Mode::Expr).unwrap_err();
        assert_eq!(e.span, span(1, 2));
        let e = lex("[search x]", 0, Mode::Search).unwrap_err();
        assert!(e.message.contains("Subsearch"));
    }

    #[test]
    fn comments_are_blank_in_every_mode() {
        let words: Vec<&str> = all("a```x | y```b ``` c ``` d```e```", Mode::Search)
            .iter()
            .map(|t| t.1)
            .collect();
        assert_eq!(words, ["a", "b", "d"]);
        let words: Vec<&str> = all("a,```,```b", Mode::Args).iter().map(|t| t.1).collect();
        assert_eq!(words, ["a", ",", "b"]);
        let kinds: Vec<Tok> = all("x```*```+1", Mode::Expr)
            .into_iter()
            .map(|t| t.0)
            .collect();
        assert_eq!(kinds, [Tok::Word, Tok::Op(Op::Plus), Tok::Num(1.0)]);
        assert_eq!(
            lex("\"a```b```\"", 0, Mode::Search).unwrap().kind,
            Tok::Str("a```b```".into())
        );
        let e = lex("a ```open", 1, Mode::Search).unwrap_err();
        assert_eq!(
            (e.message.contains("Unclosed comment"), e.span),
            (true, span(2, 5))
        );
        assert!(!is_word("a```b", Mode::Search));
    }

    #[test]
    fn quoting_round_trips() {
        let mut out = String::new();
        push_quoted(&mut out, r#"a"b\c"#, '"');
        assert_eq!(
            lex(&out, 0, Mode::Search).unwrap().kind,
            Tok::Str(r#"a"b\c"#.into())
        );
        assert!(is_word("fail*", Mode::Search));
        assert!(!is_word("a b", Mode::Search));
        assert!(!is_word("a,b", Mode::Args));
    }
}
