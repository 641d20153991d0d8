//! Streaming and ordering commands: `where`, `eval`, `fields`, `rename`, `sort`, `head`,
//! `tail`, `dedup`, `rex`, `eventstats`, `fillnull` (`reverse` takes no arguments). (`table` is a plain field list; see `Parser::name_list`.)

use super::{parse_bool, parse_u64, unknown_option, Opt, Parser, Result};
use crate::ast::{Command, Expr, SortKey, SortMode, Span, Stats, StreamStats};
use crate::error::{span, ParseError};
use crate::lexer::{Mode, Op, Tok};

const M: Mode = Mode::Args;

impl Parser<'_> {
    /// `from <KEYWORD> to` (`rename a AS b`, `replace x WITH y`): two names joined by `keyword`,
    /// which `cmd`'s error names when it is missing.
    pub(super) fn name_pair(
        &mut self,
        from_what: &str,
        keyword: &str,
        cmd: &str,
        to_what: &str,
    ) -> Result<(String, String)> {
        let (from, from_span) = self.name(from_what)?;
        let k = self.bump(M)?;
        if !self.is_word(&k, keyword) {
            return Err(ParseError::new(
                format!(
                    "Expected '{}' after '{from}' in {cmd}.",
                    keyword.to_ascii_uppercase()
                ),
                if k.kind == Tok::Eof {
                    from_span
                } else {
                    k.span
                },
            ));
        }
        let (to, _) = self.name(to_what)?;
        Ok((from, to))
    }

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
                _ => {
                    return Err(ParseError::new(
                        format!(
                            "Unexpected '{}'; separate assignments with ','.",
                            self.text(&t)
                        ),
                        t.span,
                    ))
                }
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
                _ => pairs.push(self.name_pair(
                    "a field name",
                    "as",
                    "rename",
                    "a new field name after 'AS'",
                )?),
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
        let mut sortby: Vec<SortKey> = Vec::new();
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
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !fields.is_empty() => self.pos = t.span.end,
                _ if self.is_word(&t, "sortby") && !fields.is_empty() => {
                    self.pos = t.span.end;
                    loop {
                        let t = self.peek(M)?;
                        match t.kind {
                            Tok::Pipe | Tok::Eof => break,
                            Tok::Comma if !sortby.is_empty() => self.pos = t.span.end,
                            _ => sortby.push(self.sort_key()?),
                        }
                    }
                    if sortby.is_empty() {
                        return Err(ParseError::new(
                            "'sortby' needs a field to sort by.",
                            t.span,
                        ));
                    }
                    break;
                }
                _ => fields.push(self.name("a field name")?.0),
            }
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
            sortby,
        })
    }

    /// `rex [field=f] [max_match=N] "regex"`.
    pub(super) fn rex_cmd(&mut self, at: Span) -> Result<Command> {
        let mut field = "_raw".to_string();
        let mut max_match = 1;
        let mut pattern = None;
        let mut sed = false;
        let mut offset_field = None;
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "field" => field = o.value,
                    "max_match" => max_match = parse_u64(&o.value, o.value_span, "max_match")?,
                    "offset_field" => offset_field = Some(o.value),
                    "mode" if o.value.eq_ignore_ascii_case("sed") => sed = true,
                    "mode" => {
                        return Err(ParseError::new(
                            format!("Invalid mode '{}': rex knows only mode=sed.", o.value),
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
            sed,
            offset_field,
        })
    }
}

impl Parser<'_> {
    /// `eventstats <agg>… [by f…]`: the arguments of `stats`.
    pub(super) fn eventstats_cmd(&mut self, at: Span) -> Result<Command> {
        match self.stats_cmd(at) {
            Ok(Command::Stats(s)) => Ok(Command::EventStats(s)),
            Ok(other) => Ok(other),
            Err(mut e) => {
                e.message = e.message.replace("'stats'", "'eventstats'");
                Err(e)
            }
        }
    }

    /// `streamstats [options] <agg>… [by f…]`; the options come before the aggregations.
    pub(super) fn streamstats_cmd(&mut self, at: Span) -> Result<Command> {
        let mut st = StreamStats {
            stats: Stats {
                aggs: Vec::new(),
                by: Vec::new(),
                dedup_splitvals: false,
            },
            window: 0,
            current: true,
            global: true,
            reset_on_change: false,
            time_window: None,
            reset_before: None,
            reset_after: None,
            allnum: false,
        };
        while let Some(o) = self.option()? {
            match o.key.as_str() {
                "reset_before" => st.reset_before = Some(reset_expr(&o)?),
                "reset_after" => st.reset_after = Some(reset_expr(&o)?),
                "allnum" => st.allnum = parse_bool(&o)?,
                "window" => st.window = parse_u64(&o.value, o.value_span, "window")?,
                "current" => st.current = parse_bool(&o)?,
                "global" => st.global = parse_bool(&o)?,
                "reset_on_change" => st.reset_on_change = parse_bool(&o)?,
                "time_window" => {
                    st.time_window = Some(super::stats::parse_span(&o.value, o.value_span)?)
                }
                _ => return Err(unknown_option(&o, "streamstats")),
            }
        }
        match self.stats_cmd(at) {
            Ok(Command::Stats(s)) => {
                st.stats = s;
                Ok(Command::StreamStats(st))
            }
            Ok(other) => Ok(other),
            Err(mut e) => {
                e.message = e.message.replace("'stats'", "'streamstats'");
                Err(e)
            }
        }
    }

    /// `f [AS g]` of `accum` and `delta`.
    fn field_alias(&mut self, at: Span, cmd: &str) -> Result<(String, Option<String>)> {
        let t = self.peek(M)?;
        if matches!(t.kind, Tok::Pipe | Tok::Eof) || self.option_next()? {
            return Err(ParseError::new(format!("'{cmd}' needs a field name."), at));
        }
        let (field, _) = self.name("a field name")?;
        let t = self.peek(M)?;
        let mut alias = None;
        if self.is_word(&t, "as") {
            self.pos = t.span.end;
            alias = Some(self.name("a new field name after 'AS'")?.0);
        }
        Ok((field, alias))
    }

    /// Whether a `key=value` option comes next.
    fn option_next(&self) -> Result<bool> {
        let (k, eq) = self.peek2(M)?;
        Ok(k.kind == Tok::Word && eq.kind == Tok::Op(Op::Eq))
    }

    /// `accum f [AS g]`.
    pub(super) fn accum_cmd(&mut self, at: Span) -> Result<Command> {
        let (field, alias) = self.field_alias(at, "accum")?;
        self.expect_end(M)?;
        Ok(Command::Accum { field, alias })
    }

    /// `delta f [AS g] [p=N]`.
    pub(super) fn delta_cmd(&mut self, at: Span) -> Result<Command> {
        let mut p = 1;
        let mut field = None;
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "p" => p = parse_u64(&o.value, o.value_span, "p")?,
                    _ => return Err(unknown_option(&o, "delta")),
                }
                if p == 0 {
                    return Err(ParseError::new("p must be at least 1.", o.value_span));
                }
                continue;
            }
            let t = self.peek(M)?;
            if matches!(t.kind, Tok::Pipe | Tok::Eof) {
                break;
            }
            if field.is_some() {
                return Err(self.unexpected(&t));
            }
            field = Some(self.field_alias(at, "delta")?);
        }
        let Some((field, alias)) = field else {
            return Err(ParseError::new("'delta' needs a field name.", at));
        };
        Ok(Command::Delta { field, alias, p })
    }

    /// `regex "re"`, `regex f="re"`, `regex f!="re"`.
    pub(super) fn regex_cmd(&mut self, at: Span) -> Result<Command> {
        let (mut field, mut negate) = ("_raw".to_string(), false);
        let (k, eq) = self.peek2(M)?;
        if k.kind == Tok::Word && eq.kind == Tok::Op(Op::Eq) {
            let key = self.text(&k);
            match key.strip_suffix('!') {
                Some(f) if !f.is_empty() => (field, negate) = (f.to_string(), true),
                Some(_) => {
                    return Err(ParseError::new(
                        "Expected a field name before '!='.",
                        k.span,
                    ))
                }
                None => field = key.to_string(),
            }
            self.pos = eq.span.end;
        }
        let t = self.bump(M)?;
        let pattern = match t.kind {
            Tok::Str(s) if s.is_empty() => {
                return Err(ParseError::new("The regular expression is empty.", t.span))
            }
            Tok::Str(s) => s,
            Tok::Word => self.text(&t).to_string(),
            _ => {
                return Err(ParseError::new(
                    "regex needs a regular expression in double quotes.",
                    if matches!(t.kind, Tok::Eof | Tok::Pipe) {
                        at
                    } else {
                        t.span
                    },
                ))
            }
        };
        self.expect_end(M)?;
        Ok(Command::Regex {
            field,
            negate,
            pattern,
        })
    }

    /// `fillnull [value=v] [f1 f2…]`.
    pub(super) fn fillnull_cmd(&mut self) -> Result<Command> {
        let mut value = "0".to_string();
        let mut fields = Vec::new();
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "value" => value = o.value,
                    _ => return Err(unknown_option(&o, "fillnull")),
                }
                continue;
            }
            let more = self.field_list(false)?;
            if more.is_empty() {
                break;
            }
            fields.extend(more);
        }
        Ok(Command::FillNull { value, fields })
    }
}

/// The eval expression of `reset_before=`/`reset_after=` (written `"(<expr>)"`).
fn reset_expr(o: &Opt) -> Result<Expr> {
    crate::parse_expr(&o.value).map_err(|e| {
        ParseError::new(
            format!(
                "Error in 'streamstats' command: the {} expression is invalid: {}",
                o.key, e.message
            ),
            o.value_span,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::{err, last};
    use crate::ast::{BinOp, CmpOp, Command, Expr, SortKey, SortMode};

    fn key(field: &str, descending: bool, mode: SortMode) -> SortKey {
        SortKey {
            field: field.into(),
            descending,
            mode,
        }
    }

    #[test]
    fn eval_assignments() {
        assert_eq!(
            last(r#"x | eval a=1, "b c"=a . "s", d.e=if(a>1, 1, 0)"#),
            Command::Eval(vec![
                ("a".into(), Expr::Num(1.0)),
                (
                    "b c".into(),
                    Expr::Binary(
                        BinOp::Concat,
                        Box::new(Expr::Field("a".into())),
                        Box::new(Expr::Str("s".into()))
                    )
                ),
                (
                    "d.e".into(),
                    Expr::Call(
                        "if".into(),
                        vec![
                            Expr::Binary(
                                BinOp::Cmp(CmpOp::Gt),
                                Box::new(Expr::Field("a".into())),
                                Box::new(Expr::Num(1.0))
                            ),
                            Expr::Num(1.0),
                            Expr::Num(0.0)
                        ]
                    )
                ),
            ])
        );
        assert_eq!(
            err("x | eval"),
            ("'eval' needs an assignment such as x=1.".into(), "eval")
        );
        assert_eq!(err("x | eval a"), ("Expected '=' after 'a'.".into(), ""));
        assert_eq!(
            err("x | eval a="),
            ("Missing an expression after 'a='.".into(), "a=")
        );
        assert_eq!(
            err("x | eval a=1 b=2"),
            ("Unexpected 'b'; separate assignments with ','.".into(), "b")
        );
    }

    #[test]
    fn where_rhs_word_is_a_field() {
        assert_eq!(
            last("x | where a=b"),
            Command::Where(Expr::Binary(
                BinOp::Cmp(CmpOp::Eq),
                Box::new(Expr::Field("a".into())),
                Box::new(Expr::Field("b".into()))
            ))
        );
    }

    #[test]
    fn fields_table_rename() {
        let f = |remove, list: &[&str]| Command::Fields {
            remove,
            fields: list.iter().map(|s| s.to_string()).collect(),
        };
        assert_eq!(last("x | fields a, b*"), f(false, &["a", "b*"]));
        assert_eq!(last("x | fields + a b"), f(false, &["a", "b"]));
        assert_eq!(last("x | fields - _raw"), f(true, &["_raw"]));
        assert_eq!(
            last("x | table a, \"b c\" d*"),
            Command::Table(vec!["a".into(), "b c".into(), "d*".into()])
        );
        assert_eq!(
            last("x | rename a AS b, \"x y\" as z c* As d*"),
            Command::Rename(vec![
                ("a".into(), "b".into()),
                ("x y".into(), "z".into()),
                ("c*".into(), "d*".into())
            ])
        );
        assert_eq!(
            err("x | fields -"),
            ("'fields' needs at least one field name.".into(), "fields")
        );
        assert_eq!(
            err("x | table"),
            ("'table' needs at least one field name.".into(), "table")
        );
        assert_eq!(
            err("x | table a,"),
            ("Expected a field name after ','.".into(), "")
        );
        assert_eq!(
            err("x | rename a b"),
            ("Expected 'AS' after 'a' in rename.".into(), "b")
        );
        assert_eq!(
            err("x | rename"),
            ("'rename' needs 'old AS new'.".into(), "rename")
        );
    }

    #[test]
    fn sort_keys_limits_and_desc() {
        let sort = |limit, keys| Command::Sort { limit, keys };
        assert_eq!(
            last("x | sort a"),
            sort(None, vec![key("a", false, SortMode::Auto)])
        );
        assert_eq!(
            last("x | sort 0 -a, + b - num(c) str(d) -auto(e)"),
            sort(
                Some(0),
                vec![
                    key("a", true, SortMode::Auto),
                    key("b", false, SortMode::Auto),
                    key("c", true, SortMode::Num),
                    key("d", false, SortMode::Str),
                    key("e", true, SortMode::Auto),
                ]
            )
        );
        assert_eq!(
            last("x | sort 5 a -b desc"),
            sort(
                Some(5),
                vec![
                    key("a", true, SortMode::Auto),
                    key("b", false, SortMode::Auto)
                ]
            )
        );
        // A lone `desc` is a field; a quoted one too.
        assert_eq!(
            last("x | sort desc"),
            sort(None, vec![key("desc", false, SortMode::Auto)])
        );
        assert_eq!(
            last("x | sort a \"desc\""),
            sort(
                None,
                vec![
                    key("a", false, SortMode::Auto),
                    key("desc", false, SortMode::Auto)
                ]
            )
        );
        assert_eq!(
            err("x | sort"),
            ("'sort' needs at least one field.".into(), "sort")
        );
        assert_eq!(
            err("x | sort 10"),
            ("'sort' needs at least one field.".into(), "sort")
        );
        assert_eq!(err("x | sort ip(a)").1, "ip");
        assert_eq!(
            err("x | sort num(a"),
            ("Unbalanced parentheses.".into(), "(")
        );
    }

    #[test]
    fn head_and_tail() {
        assert_eq!(last("x | head"), Command::Head(10));
        assert_eq!(last("x | head 3"), Command::Head(3));
        assert_eq!(last("x | head limit=7"), Command::Head(7));
        assert_eq!(last("x | tail"), Command::Tail(10));
        assert_eq!(last("x | tail 0"), Command::Tail(0));
        assert_eq!(err("x | head -1").1, "-1");
        assert_eq!(
            err("x | head 99999999999999999999999").1,
            "99999999999999999999999"
        );
        assert_eq!(
            err("x | tail count=3"),
            ("Unknown option 'count' for 'tail'.".into(), "count")
        );
    }

    #[test]
    fn dedup_options() {
        assert_eq!(
            last("x | dedup a"),
            Command::Dedup {
                count: 1,
                fields: vec!["a".into()],
                keepempty: false,
                consecutive: false,
                sortby: vec![]
            }
        );
        assert_eq!(
            last("x | dedup 3 a, b keepempty=t consecutive=true"),
            Command::Dedup {
                count: 3,
                fields: vec!["a".into(), "b".into()],
                keepempty: true,
                consecutive: true,
                sortby: vec![]
            }
        );
        let Command::Dedup { sortby, .. } = last("x | dedup a sortby -b, +num(c) d") else {
            panic!("not dedup");
        };
        assert_eq!(
            sortby,
            vec![
                SortKey {
                    field: "b".into(),
                    descending: true,
                    mode: SortMode::Auto
                },
                SortKey {
                    field: "c".into(),
                    descending: false,
                    mode: SortMode::Num
                },
                SortKey {
                    field: "d".into(),
                    descending: false,
                    mode: SortMode::Auto
                }
            ]
        );
        assert_eq!(err("x | dedup 0 a").1, "0");
        assert_eq!(
            err("x | dedup keepempty=t"),
            ("'dedup' needs at least one field name.".into(), "dedup")
        );
        assert_eq!(err("x | dedup a sortby").1, "sortby");
        assert_eq!(err("x | dedup a keepempty=yes").1, "yes");
    }

    #[test]
    fn eventstats_reverse_fillnull() {
        let Command::EventStats(s) = last("x | eventstats avg(b) AS a, count by h") else {
            panic!("not eventstats");
        };
        assert_eq!(s.by, vec!["h".to_string()]);
        assert_eq!(s.aggs.len(), 2);
        assert_eq!(
            err("x | eventstats by h").0,
            "'eventstats' needs at least one aggregation, such as count.".to_string()
        );
        assert_eq!(last("x | reverse"), Command::Reverse);
        assert_eq!(err("x | reverse a").1, "a");
        assert_eq!(
            last("x | fillnull"),
            Command::FillNull {
                value: "0".into(),
                fields: vec![]
            }
        );
        assert_eq!(
            last("x | fillnull value=\"n/a\" a, b c"),
            Command::FillNull {
                value: "n/a".into(),
                fields: vec!["a".into(), "b".into(), "c".into()]
            }
        );
        assert_eq!(
            last("x | fillnull a value=NULL"),
            Command::FillNull {
                value: "NULL".into(),
                fields: vec!["a".into()]
            }
        );
        assert_eq!(err("x | fillnull v=1").1, "v");
    }

    #[test]
    fn streamstats_resets_and_allnum() {
        let Command::StreamStats(s) = last(
            r#"x | streamstats reset_before="(status>=500)" reset_after="(count==3)" allnum=t count"#,
        ) else {
            panic!("not streamstats");
        };
        assert!(s.allnum);
        assert!(matches!(s.reset_before, Some(Expr::Binary(..))));
        assert!(matches!(s.reset_after, Some(Expr::Binary(..))));
        assert!(err(r#"x | streamstats reset_after="(count==" count"#)
            .0
            .contains("reset_after expression is invalid"));
    }

    #[test]
    fn streamstats_options() {
        let Command::StreamStats(s) = last("x | streamstats count") else {
            panic!("not streamstats");
        };
        assert_eq!(
            (s.window, s.current, s.global, s.reset_on_change),
            (0, true, true, false)
        );
        let Command::StreamStats(s) =
            last("x | streamstats window=3 current=f global=false reset_on_change=t sum(b) by h")
        else {
            panic!("not streamstats");
        };
        assert_eq!(
            (s.window, s.current, s.global, s.reset_on_change),
            (3, false, false, true)
        );
        assert_eq!(s.stats.by, vec!["h".to_string()]);
        assert_eq!(err("x | streamstats window=x count").1, "x");
        assert_eq!(err("x | streamstats foo=1 count").1, "foo");
        assert_eq!(
            err("x | streamstats window=2").0,
            "'streamstats' needs at least one aggregation, such as count.".to_string()
        );
    }

    #[test]
    fn accum_and_delta() {
        assert_eq!(
            last("x | accum b"),
            Command::Accum {
                field: "b".into(),
                alias: None
            }
        );
        assert_eq!(
            last("x | accum b as t"),
            Command::Accum {
                field: "b".into(),
                alias: Some("t".into())
            }
        );
        assert_eq!(
            err("x | accum").0,
            "'accum' needs a field name.".to_string()
        );
        assert_eq!(err("x | accum a b").1, "b");
        assert_eq!(
            last("x | delta b AS d p=3"),
            Command::Delta {
                field: "b".into(),
                alias: Some("d".into()),
                p: 3
            }
        );
        assert_eq!(
            last("x | delta p=2 b"),
            Command::Delta {
                field: "b".into(),
                alias: None,
                p: 2
            }
        );
        assert_eq!(
            err("x | delta").0,
            "'delta' needs a field name.".to_string()
        );
        assert_eq!(err("x | delta b p=0").1, "0");
        assert_eq!(err("x | delta b c").1, "c");
    }

    #[test]
    fn regex_forms() {
        let re = |field: &str, negate, pattern: &str| Command::Regex {
            field: field.into(),
            negate,
            pattern: pattern.into(),
        };
        assert_eq!(last(r#"x | regex "a\d+""#), re("_raw", false, r"a\d+"));
        assert_eq!(last(r#"x | regex user="^b""#), re("user", false, "^b"));
        assert_eq!(last(r#"x | regex user!="^b""#), re("user", true, "^b"));
        assert_eq!(err("x | regex").1, "regex");
        assert_eq!(err("x | regex \"\"").1, "\"\"");
        assert_eq!(err("x | regex \"a\" b").1, "b");
    }

    #[test]
    fn rex_options() {
        assert_eq!(
            last(r#"x | rex "(?<user>\w+)@(?<host>[^ ]+)""#),
            Command::Rex {
                field: "_raw".into(),
                pattern: r"(?<user>\w+)@(?<host>[^ ]+)".into(),
                max_match: 1,
                sed: false,
                offset_field: None,
            }
        );
        assert_eq!(
            last(r#"x | rex field=msg max_match=0 "a|b""#),
            Command::Rex {
                field: "msg".into(),
                pattern: "a|b".into(),
                max_match: 0,
                sed: false,
                offset_field: None,
            }
        );
        assert_eq!(
            last(r#"x | rex field=msg mode=sed offset_field=off "s/a/b/g""#),
            Command::Rex {
                field: "msg".into(),
                pattern: "s/a/b/g".into(),
                max_match: 1,
                sed: true,
                offset_field: Some("off".into()),
            }
        );
        assert_eq!(
            err("x | rex"),
            (
                "rex needs a regular expression in double quotes.".into(),
                "rex"
            )
        );
        assert_eq!(
            err("x | rex \"\""),
            ("The regular expression is empty.".into(), "\"\"")
        );
        assert_eq!(err("x | rex abc").1, "abc");
        assert_eq!(err("x | rex \"a\" \"b\"").1, "\"b\"");
        assert_eq!(err("x | rex mode=grep \"a\"").1, "grep");
    }
}
