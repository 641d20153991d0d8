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
use crate::lexer::{is_word, Mode, Op, Tok, Token};

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
                case: false,
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
                let close = self.peek(M)?;
                if close.kind == Tok::RParen {
                    // `()` matches everything, so `NOT ()` (what an empty subsearch becomes)
                    // matches nothing, as in Splunk.
                    self.pos = close.span.end;
                    self.leave();
                    return Ok(SearchExpr::And(Vec::new()));
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
                case: false,
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
                return self.directive_term(next, "TERM");
            }
            if text.eq_ignore_ascii_case("CASE") {
                return self.directive_term(next, "CASE");
            }
        }
        if let Tok::Op(op) = next.kind {
            self.pos = next.span.end;
            return self.comparison(t, op, next.span);
        }
        if self.is_kw(&next, "IN") {
            let (_, open) = self.peek2(M)?;
            if open.kind == Tok::LParen {
                self.pos = open.span.end;
                return self.in_list(t, open.span);
            }
        }
        Ok(SearchExpr::Term(Term {
            text: text.to_string(),
            quoted: false,
            whole: false,
            case: false,
        }))
    }

    /// `TERM(x)` or `CASE(x)` after the word `name`; `open` is the `(`.
    fn directive_term(&mut self, open: Token, name: &str) -> Result<SearchExpr> {
        self.pos = open.span.end;
        let inner = self.bump(M)?;
        let (text, quoted) = match inner.kind {
            Tok::Word => (self.text(&inner).to_string(), false),
            Tok::Str(s) => (s, true),
            _ => {
                return Err(ParseError::new(
                    format!("Expected a term inside {name}()."),
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
            whole: name == "TERM",
            case: name == "CASE",
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

impl Parser<'_> {
    /// `field IN (v1, v2, …)` after the `(` at `open`: the same as `(field=v1 OR field=v2 …)`.
    fn in_list(&mut self, field: Token, open: Span) -> Result<SearchExpr> {
        let name = self.text(&field);
        if !is_field_name(name) || name == "earliest" || name == "latest" {
            return Err(ParseError::new(
                format!("Invalid field name '{name}' before IN."),
                field.span,
            ));
        }
        let mut items = Vec::new();
        loop {
            // Values are cut like command arguments so that commas separate them.
            let t = self.bump(Mode::Args)?;
            let (value, quoted) = match t.kind {
                Tok::RParen if !items.is_empty() => break,
                Tok::Comma if !items.is_empty() => continue,
                Tok::Str(s) => (s, true),
                Tok::Word if is_word(self.text(&t), M) => (self.text(&t).to_string(), false),
                Tok::Word => {
                    return Err(ParseError::new("Put this value in double quotes.", t.span))
                }
                Tok::Eof | Tok::Pipe => {
                    return Err(ParseError::new("Unbalanced parentheses.", open))
                }
                _ => return Err(ParseError::new("Expected a value in the IN list.", t.span)),
            };
            items.push(SearchExpr::Compare {
                field: name.to_string(),
                op: CmpOp::Eq,
                value,
                quoted,
            });
        }
        Ok(if items.len() == 1 {
            items.pop().unwrap_or(SearchExpr::Or(Vec::new()))
        } else {
            SearchExpr::Or(items)
        })
    }
}

/// Whether `s` may name a field in a search clause: letters, digits, `_ . - : { } @`.
pub(crate) fn is_field_name(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-' | ':' | '{' | '}' | '@'))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{cmds, err, term};
    use crate::ast::{CmpOp, Command, SearchExpr as S, Term, TimeBound};

    fn clause(q: &str) -> S {
        match cmds(q).remove(0) {
            Command::Search(Some(e)) => e,
            other => panic!("{q:?} gave {other:?}"),
        }
    }

    fn cmp(field: &str, op: CmpOp, value: &str, quoted: bool) -> S {
        S::Compare {
            field: field.into(),
            op,
            value: value.into(),
            quoted,
        }
    }

    #[test]
    fn or_binds_tighter_than_and() {
        assert_eq!(
            clause("a b OR c"),
            S::And(vec![term("a"), S::Or(vec![term("b"), term("c")])])
        );
        assert_eq!(clause("a AND b OR c"), clause("a b OR c"));
        assert_eq!(
            clause("a OR b c"),
            S::And(vec![S::Or(vec![term("a"), term("b")]), term("c")])
        );
        assert_eq!(
            clause("(a b) OR c"),
            S::Or(vec![S::And(vec![term("a"), term("b")]), term("c")])
        );
    }

    #[test]
    fn not_binds_tightest() {
        assert_eq!(
            clause("NOT a OR b"),
            S::Or(vec![S::Not(Box::new(term("a"))), term("b")])
        );
        assert_eq!(
            clause("NOT (a OR b)"),
            S::Not(Box::new(S::Or(vec![term("a"), term("b")])))
        );
    }

    #[test]
    fn lowercase_keywords_are_terms() {
        assert_eq!(
            clause("a and b or not"),
            S::And(["a", "and", "b", "or", "not"].map(term).to_vec())
        );
    }

    #[test]
    fn words_phrases_and_wildcards() {
        assert_eq!(
            clause(r#"10.0.0.1 /var/log user@host fail* "disk \"full\"""#),
            S::And(vec![
                term("10.0.0.1"),
                term("/var/log"),
                term("user@host"),
                term("fail*"),
                S::Term(Term {
                    text: "disk \"full\"".into(),
                    quoted: true,
                    whole: false,
                    case: false
                }),
            ])
        );
        assert_eq!(
            clause("TERM(10.0.0.1)"),
            S::Term(Term {
                text: "10.0.0.1".into(),
                quoted: false,
                whole: true,
                case: false
            })
        );
        assert_eq!(
            clause(r#"CASE(Error) CASE("Disk Full")"#),
            S::And(vec![
                S::Term(Term {
                    text: "Error".into(),
                    quoted: false,
                    whole: false,
                    case: true
                }),
                S::Term(Term {
                    text: "Disk Full".into(),
                    quoted: true,
                    whole: false,
                    case: true
                }),
            ])
        );
        // Not adjacent: an ordinary term followed by a group.
        assert_eq!(clause("TERM (x)"), S::And(vec![term("TERM"), term("x")]));
    }

    #[test]
    fn comparisons() {
        assert_eq!(
            clause(r#"index=main host!=web* status>=500 a<1 b<=2 c>3 d = "x y""#),
            S::And(vec![
                cmp("index", CmpOp::Eq, "main", false),
                cmp("host", CmpOp::Ne, "web*", false),
                cmp("status", CmpOp::Ge, "500", false),
                cmp("a", CmpOp::Lt, "1", false),
                cmp("b", CmpOp::Le, "2", false),
                cmp("c", CmpOp::Gt, "3", false),
                cmp("d", CmpOp::Eq, "x y", true),
            ])
        );
        assert_eq!(
            clause("json.a{}.b-c:d@e=1"),
            cmp("json.a{}.b-c:d@e", CmpOp::Eq, "1", false)
        );
        assert_eq!(clause("f=\"\""), cmp("f", CmpOp::Eq, "", true));
    }

    #[test]
    fn time_bounds_keep_their_text() {
        let tb = |bound, v: &str| S::TimeBound {
            bound,
            value: v.into(),
        };
        assert_eq!(
            clause(r#"earliest=-24h@h latest=now earliest=@d latest="10/01/2024:00:00:00""#),
            S::And(vec![
                tb(TimeBound::Earliest, "-24h@h"),
                tb(TimeBound::Latest, "now"),
                tb(TimeBound::Earliest, "@d"),
                tb(TimeBound::Latest, "10/01/2024:00:00:00"),
            ])
        );
    }

    #[test]
    fn in_list_is_an_or_of_equalities() {
        assert_eq!(
            clause(r#"status IN (500, 503,"x y")"#),
            S::Or(vec![
                cmp("status", CmpOp::Eq, "500", false),
                cmp("status", CmpOp::Eq, "503", false),
                cmp("status", CmpOp::Eq, "x y", true),
            ])
        );
        assert_eq!(clause("a IN (b)"), cmp("a", CmpOp::Eq, "b", false));
    }

    #[test]
    fn later_search_filters() {
        let c = cmds("x | search y=1 | search");
        assert_eq!(c[1], Command::Search(Some(cmp("y", CmpOp::Eq, "1", false))));
        assert_eq!(c[2], Command::Search(None));
    }

    #[test]
    fn errors_name_the_problem() {
        let e = |q| err(q);
        assert_eq!(
            e("a OR"),
            ("Expected a search term after 'OR'.".into(), "OR")
        );
        assert_eq!(
            e("a AND | head"),
            ("Expected a search term after 'AND'.".into(), "|")
        );
        assert_eq!(
            e("NOT"),
            ("Expected a search term after 'NOT'.".into(), "NOT")
        );
        assert_eq!(
            e("OR a"),
            ("'OR' needs a search term before it.".into(), "OR")
        );
        assert_eq!(
            e("AND a"),
            ("'AND' needs a search term before it.".into(), "AND")
        );
        assert_eq!(e("(a b"), ("Unbalanced parentheses.".into(), "("));
        assert_eq!(e("a b)"), ("Unbalanced parentheses.".into(), ")"));
        assert_eq!(e("a \"b c"), ("Unbalanced quotes.".into(), "\"b c"));
        assert_eq!(e("x= | head").0, "Missing a value after 'x='.".to_string());
        assert_eq!(
            e("host="),
            ("Missing a value after 'host='.".into(), "host=")
        );
        assert_eq!(e("=x").1, "=");
        assert_eq!(e("a/b=c"), ("Invalid field name 'a/b'.".into(), "a/b"));
        assert_eq!(e("earliest>1").1, ">");
        assert_eq!(e("TERM(a"), ("Unbalanced parentheses.".into(), "("));
        assert_eq!(e("CASE()"), ("Expected a term inside CASE().".into(), ")"));
        assert_eq!(e("a [search b]").1, "[");
        assert_eq!(e("x IN (a"), ("Unbalanced parentheses.".into(), "("));
    }

    #[test]
    fn error_renders_with_caret() {
        let q = "status=500 OR";
        let e = crate::parse(q).unwrap_err();
        assert_eq!(
            e.render(q),
            "Expected a search term after 'OR'.\nstatus=500 OR\n           ^^"
        );
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("{}a{}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(err(&deep).0.contains("nested too deeply"));
        let nots = "NOT ".repeat(100_000) + "a";
        assert!(err(&nots).0.contains("nested too deeply"));
        let ok = format!("{}a{}", "(".repeat(50), ")".repeat(50));
        assert_eq!(clause(&ok), term("a"));
    }
}
