//! Commands that combine the results with a nested search: `append`, `appendcols`, `union`,
//! `join` (syntax in [`crate::ast::join`]).

use super::compose::closing_bracket;
use super::{parse_bool, parse_u64, unknown_option, Opt, Parser, Result};
use crate::ast::join::{Append, Dataset, Join, JoinType, SubOptions, Subsearch, Union};
use crate::ast::{Command, Span};
use crate::error::{span, ParseError};
use crate::lexer::{skip_blank, Mode, Tok};

const M: Mode = Mode::Args;

impl Parser<'_> {
    /// `append`, `appendcols`, `union` or `join` (`name` lowercased), after the name at `at`.
    pub(super) fn join_cmd(&mut self, name: &str, at: Span) -> Result<Command> {
        let mut options = SubOptions::default();
        let mut override_ = false;
        let mut join = Join {
            kind: JoinType::Inner,
            max: 1,
            overwrite: true,
            fields: Vec::new(),
            sub: Subsearch {
                text: String::new(),
            },
        };
        let mut datasets = Vec::new();
        let mut sub = None;
        loop {
            let next = skip_blank(self.src, self.pos)?;
            if self.src[next..].starts_with('[') {
                let s = self.subsearch(next)?;
                if name == "union" {
                    datasets.push(Dataset::Subsearch(s));
                    continue;
                }
                sub = Some(s);
                break;
            }
            // `key=value` (looked for without lexing past a field name, which may precede `[`).
            let t = self.peek(M)?;
            let eq = t.kind == Tok::Word
                && self.src[skip_blank(self.src, t.span.end)?..].starts_with('=');
            if let Some(o) = if eq { self.option()? } else { None } {
                if sub_option(&o, &mut options)? {
                    continue;
                }
                match (name, o.key.as_str()) {
                    ("appendcols", "override") => override_ = parse_bool(&o)?,
                    ("union", "index") => datasets.push(Dataset::Index(o.value)),
                    ("join", "type") => {
                        join.kind = match o.value.to_ascii_lowercase().as_str() {
                            "inner" => JoinType::Inner,
                            "left" => JoinType::Left,
                            "outer" => JoinType::Outer,
                            _ => {
                                return Err(ParseError::new(
                                    format!(
                                    "Invalid value '{}' for 'type'; expected inner, left or outer.",
                                    o.value
                                ),
                                    o.value_span,
                                ))
                            }
                        }
                    }
                    ("join", "max") => join.max = parse_u64(&o.value, o.value_span, "max")?,
                    ("join", "overwrite") => join.overwrite = parse_bool(&o)?,
                    ("join", "usetime") => {
                        if parse_bool(&o)? {
                            return Err(ParseError::new(
                                "Lode's 'join' does not support usetime=true (joining by time order).",
                                span(o.key_span.start, o.value_span.end),
                            ));
                        }
                    }
                    // Only meaningful with usetime=true.
                    ("join", "earlier") => {
                        parse_bool(&o)?;
                    }
                    _ => return Err(unknown_option(&o, name)),
                }
                continue;
            }
            match t.kind {
                Tok::Pipe | Tok::Eof if name == "union" && !datasets.is_empty() => break,
                Tok::Pipe | Tok::Eof => {
                    let what = if name == "union" {
                        "at least one dataset: a subsearch in square brackets or index=<name>"
                    } else {
                        "a subsearch in square brackets"
                    };
                    return Err(ParseError::new(format!("'{name}' needs {what}."), at));
                }
                Tok::Comma if name == "join" && !join.fields.is_empty() => self.pos = t.span.end,
                Tok::Word | Tok::Str(_) if name == "join" => {
                    join.fields.push(self.name("a field name")?.0)
                }
                _ => return Err(self.unexpected(&t)),
            }
        }
        self.expect_end(M)?;
        let command = match name {
            "union" => Command::Union(Union { options, datasets }),
            "join" => {
                if options != SubOptions::default() {
                    return Err(ParseError::new(
                        "'join' takes its subsearch limits from limits.conf [join] (subsearch_maxout, subsearch_maxtime), not from options.",
                        at,
                    ));
                }
                join.sub = sub.unwrap_or(join.sub);
                Command::Join(join)
            }
            _ => {
                let a = Append {
                    options,
                    override_,
                    sub: sub.unwrap_or(Subsearch {
                        text: String::new(),
                    }),
                };
                if name == "append" {
                    Command::Append(a)
                } else {
                    Command::AppendCols(a)
                }
            }
        };
        Ok(command)
    }

    /// The `[ … ]` at `open`: its text, checked for syntax when it holds no nested subsearch.
    fn subsearch(&mut self, open: usize) -> Result<Subsearch> {
        let close = closing_bracket(self.src, open)?;
        let inner = &self.src[open + 1..close];
        if inner.trim().is_empty() {
            return Err(ParseError::new(
                "The subsearch is empty.",
                span(open, close + 1),
            ));
        }
        if !inner.contains('[') {
            // Parsed from the same text, cut at its `]`: errors point into the outer search.
            let mut sub = Parser {
                src: &self.src[..close],
                pos: open + 1,
                depth: self.depth,
            };
            sub.enter(span(open, open + 1))?;
            let first = sub.peek(Mode::Search)?;
            if first.kind == Tok::Pipe {
                sub.pos = first.span.end;
                sub.command(first.span)?;
            } else {
                sub.first_search()?;
            }
            loop {
                let t = sub.bump(M)?;
                match t.kind {
                    Tok::Eof => break,
                    Tok::Pipe => {
                        sub.command(t.span)?;
                    }
                    _ => return Err(sub.unexpected(&t)),
                }
            }
        }
        self.pos = close + 1;
        Ok(Subsearch {
            text: inner.trim().to_string(),
        })
    }
}

/// Reads a subsearch option into `o`; false when `opt` is not one.
fn sub_option(opt: &Opt, o: &mut SubOptions) -> Result<bool> {
    let num = || parse_u64(&opt.value, opt.value_span, &opt.key).map(Some);
    match opt.key.as_str() {
        "maxtime" => o.maxtime = num()?,
        "maxout" => o.maxout = num()?,
        "timeout" => o.timeout = num()?,
        "extendtimerange" => o.extendtimerange = Some(parse_bool(opt)?),
        _ => return Ok(false),
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::super::tests::{err, last};
    use crate::ast::join::{Append, Dataset, Join, JoinType, SubOptions, Subsearch, Union};
    use crate::ast::Command;

    fn sub(t: &str) -> Subsearch {
        Subsearch { text: t.into() }
    }

    #[test]
    fn append_and_appendcols() {
        assert_eq!(
            last("x | append [ search y | head 2 ]"),
            Command::Append(Append {
                options: SubOptions::default(),
                override_: false,
                sub: sub("search y | head 2"),
            })
        );
        assert_eq!(
            last("x | append maxout=5 maxtime=3 timeout=4 extendtimerange=t [| makeresults]"),
            Command::Append(Append {
                options: SubOptions {
                    maxtime: Some(3),
                    maxout: Some(5),
                    timeout: Some(4),
                    extendtimerange: Some(true),
                },
                override_: false,
                sub: sub("| makeresults"),
            })
        );
        let Command::AppendCols(a) = last("x | appendcols override=t [stats count]") else {
            panic!()
        };
        assert!(a.override_);
        // Nested subsearches are kept as text (they run with the subsearch).
        let Command::Append(a) = last("x | append [search a [search b | fields h]]") else {
            panic!()
        };
        assert_eq!(a.sub.text, "search a [search b | fields h]");
    }

    #[test]
    fn union_datasets() {
        assert_eq!(
            last("| union maxout=9 [search a] index=web [| makeresults]"),
            Command::Union(Union {
                options: SubOptions {
                    maxout: Some(9),
                    ..SubOptions::default()
                },
                datasets: vec![
                    Dataset::Subsearch(sub("search a")),
                    Dataset::Index("web".into()),
                    Dataset::Subsearch(sub("| makeresults")),
                ],
            })
        );
        assert_eq!(err("| union").1, "union");
        assert_eq!(err("| union web").1, "web");
    }

    #[test]
    fn join_forms() {
        assert_eq!(
            last("x | join type=left max=0 overwrite=f host, source [search y]"),
            Command::Join(Join {
                kind: JoinType::Left,
                max: 0,
                overwrite: false,
                fields: vec!["host".into(), "source".into()],
                sub: sub("search y"),
            })
        );
        let Command::Join(j) = last("x | join [search y] ") else {
            panic!()
        };
        assert_eq!((j.kind, j.max, j.overwrite), (JoinType::Inner, 1, true));
        assert!(j.fields.is_empty());
        let Command::Join(j) = last("x | join type=outer usetime=f h [y]") else {
            panic!()
        };
        assert_eq!(j.kind, JoinType::Outer);
    }

    #[test]
    fn errors() {
        assert_eq!(
            err("x | join host"),
            (
                "'join' needs a subsearch in square brackets.".into(),
                "join"
            )
        );
        assert_eq!(err("x | join type=full h [y]").1, "full");
        assert!(err("x | join usetime=t h [y]").0.contains("usetime"));
        assert_eq!(
            err("x | append foo=1 [y]"),
            ("Unknown option 'foo' for 'append'.".into(), "foo")
        );
        assert_eq!(err("x | append [ ]").1, "[ ]");
        assert_eq!(err("x | append [y").1, "[");
        assert_eq!(err("x | append [y] z").1, "z");
        // The subsearch's own syntax errors point into the outer text.
        assert_eq!(
            err("x | append [search y | foo]"),
            ("Unknown search command 'foo'.".into(), "foo")
        );
        assert_eq!(err("x | join h [y] [z]").1, "[");
        assert!(err("x | join maxout=3 h [y]").0.contains("limits.conf"));
    }

    #[test]
    fn multibyte_does_not_panic() {
        for q in [
            "x | append [eval a=\"é]\" ```é]``` | head 1]",
            "x | join é [é",
            "| union [\"é",
            "x | appendcols é",
        ] {
            let _ = crate::parse(q);
        }
    }
}
