//! The search clause: terms, phrases, `field=value`, `AND`/`OR`/`NOT`, parentheses.
//!
//! Grammar (loosest first; `AND` may be left out):
//!
//! ```text
//! clause  := and
//! and     := or ( ["AND"] or )*
//! or      := not ( "OR" not )*
//! not     := "NOT" not | primary
//! primary := "(" and ")" | TERM(word) | "phrase" | field op value | word
//! ```
//!
//! so `a b OR c` is `a AND (b OR c)`. Keywords are uppercase only; `and` is a term.

use super::{Parser, Result};
use crate::ast::{CmpOp, SearchExpr, Span, Term, TimeBound};
use crate::error::{span, ParseError};
use crate::lexer::{Mode, Op, Tok, Token};

const M: Mode = Mode::Search;

impl Parser<'_> {
    /// A search clause up to the end of the command; `None` when empty or a lone `*`.
    pub(super) fn search_clause(&mut self) -> Result<Option<SearchExpr>> {
        if self.at_end(M)? {
            return Ok(None);
        }
        let e = self.search_and()?;
        self.expect_end(M)?;
        Ok(match e {
            SearchExpr::Term(Term {
                ref text,
                quoted: false,
                whole: false,
            }) if text == "*" => None,
            e => Some(e),
        })
    }

    /// Whether `t` is the keyword `kw` (exact case).
    fn is_kw(&self, t: &Token, kw: &str) -> bool {
        t.kind == Tok::Word && self.text(t) == kw
    }

    /// Whether `t` cannot start a term: end of command, `)` or a binary keyword.
    fn ends_term(&self, t: &Token) -> bool {
        matches!(t.kind, Tok::Pipe | Tok::Eof | Tok::RParen)
            || self.is_kw(t, "AND")
            || self.is_kw(t, "OR")
    }

    /// After the operator keyword `kw` at `at`, a term must follow.
    fn term_follows(&self, kw: &str, at: Span) -> Result<()> {
        let t = self.peek(M)?;
        if self.ends_term(&t) {
            let where_ = if t.kind == Tok::Eof { at } else { t.span };
            return Err(ParseError::new(
                format!("Expected a search term after '{kw}'."),
                where_,
            ));
        }
        Ok(())
    }

    fn search_and(&mut self) -> Result<SearchExpr> {
        let mut items = Vec::new();
        loop {
            let t = self.peek(M)?;
            if matches!(t.kind, Tok::Pipe | Tok::Eof | Tok::RParen) {
                break;
            }
            if self.is_kw(&t, "AND") {
                if items.is_empty() {
                    return Err(ParseError::new(
                        "'AND' needs a search term before it.",
                        t.span,
                    ));
                }
                self.pos = t.span.end;
                self.term_follows("AND", t.span)?;
            }
            items.push(self.search_or()?);
        }
        match items.len() {
            0 => {
                let t = self.peek(M)?;
                Err(ParseError::new("Expected a search term.", t.span))
            }
            1 => Ok(items.pop().unwrap_or(SearchExpr::And(Vec::new()))),
            _ => Ok(SearchExpr::And(items)),
        }
    }

    fn search_or(&mut self) -> Result<SearchExpr> {
        let mut items = vec![self.search_not()?];
        loop {
            let t = self.peek(M)?;
            if !self.is_kw(&t, "OR") {
                break;
            }
            self.pos = t.span.end;
            self.term_follows("OR", t.span)?;
            items.push(self.search_not()?);
        }
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(SearchExpr::Or(Vec::new()))
        } else {
            SearchExpr::Or(items)
        })
    }

    fn search_not(&mut self) -> Result<SearchExpr> {
        let t = self.peek(M)?;
        if !self.is_kw(&t, "NOT") {
            return self.search_primary();
        }
        self.pos = t.span.end;
        self.term_follows("NOT", t.span)?;
        self.enter(t.span)?;
        let inner = self.search_not()?;
        self.leave();
        Ok(SearchExpr::Not(Box::new(inner)))
    }

    fn search_primary(&mut self) -> Result<SearchExpr> {
        let t = self.bump(M)?;
        match t.kind {
            Tok::LParen => {
                self.enter(t.span)?;
                if self.peek(M)?.kind == Tok::RParen {
                    return Err(ParseError::new("Empty parentheses.", t.span));
                }
                let e = self.search_and()?;
                if self.bump(M)?.kind != Tok::RParen {
                    return Err(ParseError::new("Unbalanced parentheses.", t.span));
                }
                self.leave();
                Ok(e)
            }
            Tok::Str(text) => Ok(SearchExpr::Term(Term {
                text,
                quoted: true,
                whole: false,
            })),
            Tok::Word => self.search_word(t),
            Tok::Op(_) => Err(ParseError::new(
                "Missing a field name before the comparison.",
                t.span,
            )),
            _ => Err(self.unexpected(&t)),
        }
    }

    /// A word: a keyword out of place, `TERM(x)`, `field op value` or a plain term.
    fn search_word(&mut self, t: Token) -> Result<SearchExpr> {
        let text = self.text(&t);
        if text == "AND" || text == "OR" {
            return Err(ParseError::new(
                format!("'{text}' needs a search term before it."),
                t.span,
            ));
        }
        let next = self.peek(M)?;
        if next.kind == Tok::LParen && next.span.start == t.span.end {
            if text.eq_ignore_ascii_case("TERM") {
                return self.whole_term(next);
            }
            if text.eq_ignore_ascii_case("CASE") {
                return Err(ParseError::new("CASE() is not supported.", t.span));
            }
        }
        if let Tok::Op(op) = next.kind {
            self.pos = next.span.end;
            return self.comparison(t, op, next.span);
        }
        Ok(SearchExpr::Term(Term {
            text: text.to_string(),
            quoted: false,
            whole: false,
        }))
    }

    /// `TERM(x)` after the word `TERM`; `open` is the `(`.
    fn whole_term(&mut self, open: Token) -> Result<SearchExpr> {
        self.pos = open.span.end;
        let inner = self.bump(M)?;
        let (text, quoted) = match inner.kind {
            Tok::Word => (self.text(&inner).to_string(), false),
            Tok::Str(s) => (s, true),
            _ => {
                return Err(ParseError::new(
                    "Expected a term inside TERM().",
                    inner.span,
                ))
            }
        };
        if self.bump(M)?.kind != Tok::RParen {
            return Err(ParseError::new("Unbalanced parentheses.", open.span));
        }
        Ok(SearchExpr::Term(Term {
            text,
            quoted,
            whole: true,
        }))
    }

    /// `field op value` (the field and operator already read).
    fn comparison(&mut self, field: Token, op: Op, op_span: Span) -> Result<SearchExpr> {
        let name = self.text(&field);
        if !is_field_name(name) {
            return Err(ParseError::new(
                format!("Invalid field name '{name}'."),
                field.span,
            ));
        }
        let op = match op {
            Op::Eq => CmpOp::Eq,
            Op::Ne => CmpOp::Ne,
            Op::Lt => CmpOp::Lt,
            Op::Le => CmpOp::Le,
            Op::Gt => CmpOp::Gt,
            _ => CmpOp::Ge,
        };
        let v = self.bump(M)?;
        let (value, quoted) = match v.kind {
            Tok::Word => (self.text(&v).to_string(), false),
            Tok::Str(s) => (s, true),
            _ => {
                let shown = &self.src[field.span.start..op_span.end];
                return Err(ParseError::new(
                    format!("Missing a value after '{shown}'."),
                    span(field.span.start, op_span.end),
                ));
            }
        };
        let bound = match name {
            "earliest" => Some(TimeBound::Earliest),
            "latest" => Some(TimeBound::Latest),
            _ => None,
        };
        if let Some(bound) = bound {
            if op != CmpOp::Eq {
                return Err(ParseError::new(
                    format!("'{name}' only takes '=' (as in {name}=-24h)."),
                    op_span,
                ));
            }
            return Ok(SearchExpr::TimeBound { bound, value });
        }
        Ok(SearchExpr::Compare {
            field: name.to_string(),
            op,
            value,
            quoted,
        })
    }
}

/// Whether `s` may name a field in a search clause: letters, digits, `_ . - : { } @`.
pub(crate) fn is_field_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | ':' | '{' | '}' | '@'))
}
