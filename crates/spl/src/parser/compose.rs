//! Commands that build search text for subsearches: `format` and `return`.

use super::{parse_u64, unknown_option, Parser, Result};
use crate::ast::{Command, Format, Return, ReturnItem, Span};
use crate::error::{span, ParseError};
use crate::lexer::{Mode, Op, Tok};

const M: Mode = Mode::Args;

impl Parser<'_> {
    /// `format [mvsep=…] [maxresults=N] ["row prefix" "col prefix" "col sep" "col end" "row sep"
    /// "row end"] [emptystr=…]`.
    pub(super) fn format_cmd(&mut self) -> Result<Command> {
        let mut f = Format::default();
        let mut parts: Vec<String> = Vec::new();
        let mut first_part: Option<Span> = None;
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "mvsep" => f.mvsep = o.value,
                    "maxresults" => f.maxresults = parse_u64(&o.value, o.value_span, "maxresults")?,
                    "emptystr" => f.emptystr = o.value,
                    _ => return Err(unknown_option(&o, "format")),
                }
                continue;
            }
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Str(s) => {
                    self.pos = t.span.end;
                    first_part.get_or_insert(t.span);
                    parts.push(s);
                }
                _ => return Err(self.unexpected(&t)),
            }
        }
        match parts.len() {
            0 => {}
            6 => {
                for (slot, p) in f.parts.iter_mut().zip(parts) {
                    *slot = p;
                }
            }
            _ => {
                let at = first_part.unwrap_or_default();
                return Err(ParseError::new(
                    "'format' takes all six strings or none: row prefix, column prefix, column separator, column end, row separator, row end.",
                    span(at.start, self.pos),
                ));
            }
        }
        Ok(Command::Format(f))
    }

    /// `return [N] [alias=field…] [field…] [$field…]`.
    pub(super) fn return_cmd(&mut self, at: Span) -> Result<Command> {
        let mut count = 1;
        let (t, next) = self.peek2(M)?;
        if t.kind == Tok::Word
            && next.kind != Tok::Op(Op::Eq)
            && self.text(&t).bytes().all(|b| b.is_ascii_digit())
        {
            count = parse_u64(self.text(&t), t.span, "count")?;
            self.pos = t.span.end;
        }
        let mut items = Vec::new();
        loop {
            let (t, next) = self.peek2(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma => self.pos = t.span.end,
                Tok::Word if next.kind == Tok::Op(Op::Eq) => {
                    let alias = self.text(&t).to_string();
                    self.pos = next.span.end;
                    let (field, _) = self.name("a field name after '='")?;
                    items.push(ReturnItem::Alias(alias, field));
                }
                Tok::Word if self.text(&t).starts_with('$') && self.text(&t).len() > 1 => {
                    self.pos = t.span.end;
                    items.push(ReturnItem::Value(self.text(&t)[1..].to_string()));
                }
                Tok::Word | Tok::Str(_) => {
                    let (f, _) = self.name("a field name")?;
                    items.push(ReturnItem::Field(f));
                }
                _ => return Err(self.unexpected(&t)),
            }
        }
        if items.is_empty() {
            return Err(ParseError::new(
                "'return' needs at least one field, alias=field or $field.",
                at,
            ));
        }
        Ok(Command::Return(Return { count, items }))
    }
}

impl Parser<'_> {
    /// `appendpipe [cmd | cmd…]` (a leading `|` inside the brackets is allowed).
    pub(super) fn appendpipe_cmd(&mut self, at: Span) -> Result<Command> {
        let rest = &self.src[self.pos..];
        let open = self.pos + (rest.len() - rest.trim_start().len());
        if !self.src[open..].starts_with('[') {
            return Err(ParseError::new(
                "'appendpipe' needs a sub-pipeline in square brackets, as in appendpipe [stats count].",
                at,
            ));
        }
        let close = closing_bracket(self.src, open)?;
        // The sub-pipeline is parsed from the same text, cut at its `]`: spans stay absolute.
        let mut sub = Parser {
            src: &self.src[..close],
            pos: open + 1,
            depth: self.depth,
        };
        sub.enter(span(open, open + 1))?;
        let first = sub.peek(M)?;
        let mut commands = Vec::new();
        match first.kind {
            Tok::Eof => {
                return Err(ParseError::new(
                    "'appendpipe' needs at least one command inside [ ].",
                    span(open, close + 1),
                ))
            }
            Tok::Pipe => {
                sub.pos = first.span.end;
                commands.push(sub.command(first.span)?);
            }
            _ => commands.push(sub.command(span(open, open + 1))?),
        }
        loop {
            let t = sub.bump(M)?;
            match t.kind {
                Tok::Eof => break,
                Tok::Pipe => commands.push(sub.command(t.span)?),
                _ => return Err(sub.unexpected(&t)),
            }
        }
        self.pos = close + 1;
        self.expect_end(M)?;
        Ok(Command::AppendPipe(commands))
    }
}

/// The offset of the `]` closing the `[` at `open` (quoted strings and comments skipped).
pub(super) fn closing_bracket(src: &str, open: usize) -> Result<usize> {
    let b = src.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        if b[i..].starts_with(b"```") {
            i = src[i + 3..].find("```").map_or(b.len(), |k| i + 3 + k + 3);
            continue;
        }
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'[' => depth += 1,
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
        "Missing a closing ']'.",
        span(open, open + 1),
    ))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{err, last};
    use crate::ast::{Command, Format, Return, ReturnItem};

    #[test]
    fn appendpipe_sub_pipeline() {
        let c = last(
            "x | stats count by h | appendpipe [stats sum(count) AS count | eval h=\"total\"]",
        );
        let Command::AppendPipe(sub) = c else {
            panic!("{c:?}")
        };
        assert_eq!(sub.len(), 2);
        assert!(
            matches!(last("x | appendpipe [| head 1]"), Command::AppendPipe(s) if s.len() == 1)
        );
        assert_eq!(
            err("x | appendpipe [stats count"),
            ("Missing a closing ']'.".into(), "[")
        );
        assert_eq!(
            err("x | appendpipe [foo]"),
            ("Unknown search command 'foo'.".into(), "foo")
        );
        assert_eq!(err("x | appendpipe []").1, "[]");
        assert_eq!(err("x | appendpipe head").1, "appendpipe");
        assert_eq!(err("x | appendpipe [head 1] 2").1, "2");
        assert_eq!(err("x | appendpipe [head \"]\"]").1, "\"]\"");
    }

    #[test]
    fn format_defaults_and_options() {
        assert_eq!(last("x | format"), Command::Format(Format::default()));
        let f = match last(
            r#"x | format mvsep="||" maxresults=2 "[" "{" "&&" "}" "||" "]" emptystr="none""#,
        ) {
            Command::Format(f) => f,
            c => panic!("{c:?}"),
        };
        assert_eq!(f.mvsep, "||");
        assert_eq!(f.maxresults, 2);
        assert_eq!(f.parts, ["[", "{", "&&", "}", "||", "]"].map(String::from));
        assert_eq!(f.emptystr, "none");
    }

    #[test]
    fn format_errors() {
        assert!(err(r#"x | format "(" "(""#).0.contains("all six strings"));
        assert_eq!(
            err("x | format foo=1"),
            ("Unknown option 'foo' for 'format'.".into(), "foo")
        );
        assert_eq!(err("x | format maxresults=x").1, "x");
    }

    #[test]
    fn return_forms() {
        assert_eq!(
            last("x | return 2 ip=srcip host $user"),
            Command::Return(Return {
                count: 2,
                items: vec![
                    ReturnItem::Alias("ip".into(), "srcip".into()),
                    ReturnItem::Field("host".into()),
                    ReturnItem::Value("user".into()),
                ],
            })
        );
        assert_eq!(
            last("x | return host"),
            Command::Return(Return {
                count: 1,
                items: vec![ReturnItem::Field("host".into())],
            })
        );
        assert_eq!(err("x | return").1, "return");
        assert_eq!(err("x | return 3").1, "return");
    }
}

#[cfg(test)]
mod empty_parens {
    use super::super::tests::cmds;
    use crate::ast::{Command, SearchExpr};

    #[test]
    fn empty_parentheses_match_everything_so_not_matches_nothing() {
        // What an empty subsearch becomes.
        assert_eq!(
            cmds("a NOT ()")[0],
            Command::Search(Some(SearchExpr::And(vec![
                super::super::tests::term("a"),
                SearchExpr::Not(Box::new(SearchExpr::And(vec![]))),
            ])))
        );
        assert_eq!(
            cmds("()")[0],
            Command::Search(Some(SearchExpr::And(vec![])))
        );
    }
}

#[cfg(test)]
mod eval_aggs {
    use super::super::tests::{err, last};
    use crate::ast::{BinOp, CmpOp, Command, Expr};

    #[test]
    fn eval_argument_needs_as() {
        let Command::Stats(s) =
            last("x | stats count(eval(status>=500)) AS errors, avg(eval(b*2)) as d by h")
        else {
            panic!()
        };
        assert_eq!(s.aggs[0].field, None);
        assert_eq!(s.aggs[0].alias.as_deref(), Some("errors"));
        assert_eq!(
            s.aggs[0].eval,
            Some(Expr::Binary(
                BinOp::Cmp(CmpOp::Ge),
                Box::new(Expr::Field("status".into())),
                Box::new(Expr::Num(500.0))
            ))
        );
        assert!(s.aggs[1].eval.is_some());
        let (m, at) = err("x | stats count(eval(a>1)) by h");
        assert_eq!(
            m,
            "You must specify a rename for the aggregation specifier on the dynamically evaluated field 'count(eval(a>1))'."
        );
        assert_eq!(at, "count(eval(a>1))");
        assert!(matches!(
            last("x | timechart span=1h dc(eval(if(a>1, u, null()))) AS n"),
            Command::Timechart(_)
        ));
        // A field named eval is still a field.
        let Command::Stats(s) = last("x | stats count(eval)") else {
            panic!()
        };
        assert_eq!(s.aggs[0].field.as_deref(), Some("eval"));
    }
}

#[cfg(test)]
mod robust {
    #[test]
    fn multibyte_inside_appendpipe_does_not_panic() {
        for q in [
            "x | appendpipe [eval a=\"é]\" ```é]``` | head 1]",
            "x | appendpipe [é",
            "x | appendpipe [\"é",
        ] {
            let _ = crate::parse(q);
        }
    }
}
