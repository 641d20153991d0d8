//! Streaming and ordering commands: `where`, `eval`, `fields`, `rename`, `sort`, `head`,
//! `tail`, `dedup`, `rex`. (`table` is a plain field list; see `Parser::name_list`.)

use super::{parse_bool, parse_u64, unknown_option, Parser, Result};
use crate::ast::{Command, SortKey, SortMode, Span};
use crate::error::{span, ParseError};
use crate::lexer::{Mode, Op, Tok};

const M: Mode = Mode::Args;

impl Parser<'_> {
    /// `where <expr>`.
    pub(super) fn where_cmd(&mut self, at: Span) -> Result<Command> {
        if self.at_end(Mode::Expr)? {
            return Err(ParseError::new("'where' needs an expression.", at));
        }
        let e = self.expr()?;
        self.expect_end(Mode::Expr)?;
        Ok(Command::Where(e))
    }

    /// `eval a=<expr>[, b=<expr>…]`.
    pub(super) fn eval_cmd(&mut self, at: Span) -> Result<Command> {
        if self.at_end(M)? {
            return Err(ParseError::new(
                "'eval' needs an assignment such as x=1.",
                at,
            ));
        }
        let mut out = Vec::new();
        loop {
            let (name, name_span) = self.name("a field name to assign")?;
            let eq = self.bump(M)?;
            if eq.kind != Tok::Op(Op::Eq) {
                return Err(ParseError::new(
                    format!("Expected '=' after '{name}'."),
                    span(name_span.end, eq.span.start.max(name_span.end)),
                ));
            }
            if self.at_end(Mode::Expr)? {
                return Err(ParseError::new(
                    format!("Missing an expression after '{name}='."),
                    span(name_span.start, eq.span.end),
                ));
            }
            out.push((name, self.expr()?));
            let t = self.peek(Mode::Expr)?;
            match t.kind {
                Tok::Comma => self.pos = t.span.end,
                Tok::Pipe | Tok::Eof => return Ok(Command::Eval(out)),
                _ => return Err(self.unexpected(&t)),
            }
        }
    }

    /// `fields [+|-] f1, f2…`.
    pub(super) fn fields_cmd(&mut self, at: Span) -> Result<Command> {
        let t = self.peek(M)?;
        let remove = self.is_word(&t, "-");
        if remove || self.is_word(&t, "+") {
            self.pos = t.span.end;
        }
        let fields = self.name_list(at, "fields")?;
        Ok(Command::Fields { remove, fields })
    }

    /// `rename a AS b[, c AS d…]`.
    pub(super) fn rename_cmd(&mut self, at: Span) -> Result<Command> {
        let mut pairs = Vec::new();
        loop {
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !pairs.is_empty() => self.pos = t.span.end,
                _ => {
                    let (from, from_span) = self.name("a field name")?;
                    let as_ = self.bump(M)?;
                    if !self.is_word(&as_, "as") {
                        return Err(ParseError::new(
                            format!("Expected 'AS' after '{from}' in rename."),
                            if as_.kind == Tok::Eof {
                                from_span
                            } else {
                                as_.span
                            },
                        ));
                    }
                    let (to, _) = self.name("a new field name after 'AS'")?;
                    pairs.push((from, to));
                }
            }
        }
        if pairs.is_empty() {
            return Err(ParseError::new("'rename' needs 'old AS new'.", at));
        }
        Ok(Command::Rename(pairs))
    }

    /// `sort [N] [+|-]f1, [+|-]num(f2)… [desc]`.
    pub(super) fn sort_cmd(&mut self, at: Span) -> Result<Command> {
        let mut limit = None;
        let t = self.peek(M)?;
        if t.kind == Tok::Word && self.text(&t).bytes().all(|b| b.is_ascii_digit()) {
            self.pos = t.span.end;
            limit = Some(parse_u64(self.text(&t), t.span, "sort limit")?);
        }
        let mut keys: Vec<SortKey> = Vec::new();
        loop {
            let (t, next) = self.peek2(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !keys.is_empty() => self.pos = t.span.end,
                Tok::Word
                    if !keys.is_empty()
                        && (self.is_word(&t, "desc") || self.is_word(&t, "d"))
                        && matches!(next.kind, Tok::Pipe | Tok::Eof) =>
                {
                    self.pos = t.span.end;
                    for k in &mut keys {
                        k.descending = !k.descending;
                    }
                }
                _ => keys.push(self.sort_key()?),
            }
        }
        if keys.is_empty() {
            return Err(ParseError::new("'sort' needs at least one field.", at));
        }
        Ok(Command::Sort { limit, keys })
    }

    /// One key: `[+|-]field`, `[+|-]num(field)`, `str(field)`, `auto(field)`.
    fn sort_key(&mut self) -> Result<SortKey> {
        let key = |field, descending| SortKey {
            field,
            descending,
            mode: SortMode::Auto,
        };
        let mut t = self.bump(M)?;
        let mut descending = false;
        if self.is_word(&t, "-") || self.is_word(&t, "+") {
            descending = self.text(&t) == "-";
            t = self.bump(M)?;
        } else if t.kind == Tok::Word && matches!(self.text(&t).as_bytes()[0], b'-' | b'+') {
            descending = self.text(&t).starts_with('-');
            t.span.start += 1;
        }
        let body = match t.kind {
            Tok::Word => self.text(&t),
            Tok::Str(s) => return Ok(key(s, descending)),
            _ => return Err(ParseError::new("Expected a field to sort by.", t.span)),
        };
        let open = self.peek(M)?;
        if open.kind != Tok::LParen || open.span.start != t.span.end {
            return Ok(key(body.to_string(), descending));
        }
        let mode = match body.to_ascii_lowercase().as_str() {
            "num" => SortMode::Num,
            "str" => SortMode::Str,
            "auto" => SortMode::Auto,
            _ => {
                return Err(ParseError::new(
                    format!("Unknown sort modifier '{body}'; use num(), str() or auto()."),
                    t.span,
                ))
            }
        };
        self.pos = open.span.end;
        let (field, _) = self.name("a field name")?;
        let close = self.bump(M)?;
        if close.kind != Tok::RParen {
            return Err(ParseError::new("Unbalanced parentheses.", open.span));
        }
        Ok(SortKey {
            field,
            descending,
            mode,
        })
    }

    /// `head [N]` / `tail [N]` (also `limit=N`); default 10.
    pub(super) fn count_cmd(&mut self, cmd: &str) -> Result<u64> {
        let mut n = 10;
        if let Some(o) = self.option()? {
            if o.key != "limit" {
                return Err(unknown_option(&o, cmd));
            }
            n = parse_u64(&o.value, o.value_span, "count")?;
        } else {
            let t = self.peek(M)?;
            if t.kind == Tok::Word {
                self.pos = t.span.end;
                n = parse_u64(self.text(&t), t.span, "count")?;
            }
        }
        self.expect_end(M)?;
        Ok(n)
    }

    /// `dedup [N] f1 f2 [keepempty=t] [consecutive=t]`.
    pub(super) fn dedup_cmd(&mut self, at: Span) -> Result<Command> {
        let mut count = 1;
        let t = self.peek(M)?;
        if t.kind == Tok::Word && self.text(&t).bytes().all(|b| b.is_ascii_digit()) {
            self.pos = t.span.end;
            count = parse_u64(self.text(&t), t.span, "dedup count")?;
            if count == 0 {
                return Err(ParseError::new(
                    "The dedup count must be at least 1.",
                    t.span,
                ));
            }
        }
        let (mut keepempty, mut consecutive) = (false, false);
        let mut fields = Vec::new();
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "keepempty" => keepempty = parse_bool(&o)?,
                    "consecutive" => consecutive = parse_bool(&o)?,
                    _ => return Err(unknown_option(&o, "dedup")),
                }
                continue;
            }
            let t = self.peek(M)?;
            if matches!(t.kind, Tok::Pipe | Tok::Eof) {
                break;
            }
            if self.is_word(&t, "sortby") {
                return Err(ParseError::new("dedup sortby is not supported.", t.span));
            }
            fields.extend(self.field_list(false)?);
        }
        if fields.is_empty() {
            return Err(ParseError::new(
                "'dedup' needs at least one field name.",
                at,
            ));
        }
        Ok(Command::Dedup {
            count,
            fields,
            keepempty,
            consecutive,
        })
    }

    /// `rex [field=f] [max_match=N] "regex"`.
    pub(super) fn rex_cmd(&mut self, at: Span) -> Result<Command> {
        let mut field = "_raw".to_string();
        let mut max_match = 1;
        let mut pattern = None;
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "field" => field = o.value,
                    "max_match" => max_match = parse_u64(&o.value, o.value_span, "max_match")?,
                    "mode" if o.value.eq_ignore_ascii_case("sed") => {
                        return Err(ParseError::new(
                            "rex mode=sed is not supported.",
                            o.value_span,
                        ))
                    }
                    _ => return Err(unknown_option(&o, "rex")),
                }
                continue;
            }
            let t = self.bump(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => {
                    self.pos = t.span.start;
                    break;
                }
                Tok::Str(_) if pattern.is_some() => {
                    return Err(ParseError::new("rex takes one regular expression.", t.span))
                }
                Tok::Str(s) if s.is_empty() => {
                    return Err(ParseError::new("The regular expression is empty.", t.span))
                }
                Tok::Str(s) => pattern = Some(s),
                _ => {
                    return Err(ParseError::new(
                        "rex needs the regular expression in double quotes.",
                        t.span,
                    ))
                }
            }
        }
        let Some(pattern) = pattern else {
            return Err(ParseError::new(
                "rex needs a regular expression in double quotes.",
                at,
            ));
        };
        Ok(Command::Rex {
            field,
            pattern,
            max_match,
        })
    }
}
