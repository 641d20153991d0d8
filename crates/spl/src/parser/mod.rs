//! Recursive-descent parser: text → [`ast::Pipeline`].
//!
//! The parser reads commands left to right, asking the lexer for tokens in the mode of the
//! command at hand ([`Mode`]). Each command's arguments live in a sibling module; this one holds
//! the pipeline loop, command dispatch and the small helpers every command shares (names,
//! `key=value` options, field lists, end of command). Nesting is bounded by [`MAX_DEPTH`].

mod commands;
mod compose;
mod data;
mod expr;
mod join;
mod reshape;
mod search;
mod stats;

use crate::ast::{Command, Expr, Pipeline, Span};
use crate::error::{span, ParseError};
use crate::lexer::{lex, Mode, Op, Tok, Token};

/// Deepest nesting accepted (parentheses, `NOT` chains, expression tree height). Deeper input
/// is refused with an error instead of risking the stack.
pub const MAX_DEPTH: u32 = 100;

type Result<T> = std::result::Result<T, ParseError>;

/// Parse state: the text and a cursor into it.
pub(crate) struct Parser<'a> {
    /// The whole search text.
    src: &'a str,
    /// Byte offset of the next unread character.
    pos: usize,
    /// Current nesting (parentheses and prefix operators being parsed), at most [`MAX_DEPTH`].
    depth: u32,
}

/// A `key=value` option of a command.
pub(crate) struct Opt {
    /// The key, lowercased.
    key: String,
    /// Where the key is.
    key_span: Span,
    /// The value, quotes removed.
    value: String,
    /// Where the value is.
    value_span: Span,
}

/// Parses a whole search.
pub(crate) fn pipeline(src: &str) -> Result<Pipeline> {
    let mut p = Parser::new(src);
    let mut commands = Vec::new();
    let first = p.peek(Mode::Search)?;
    if first.kind == Tok::Pipe {
        p.pos = first.span.end;
        commands.push(p.command(first.span)?);
    } else {
        commands.push(p.first_search()?);
    }
    loop {
        let t = p.bump(Mode::Args)?;
        match t.kind {
            Tok::Eof => break,
            Tok::Pipe => commands.push(p.command(t.span)?),
            _ => return Err(p.unexpected(&t)),
        }
    }
    Ok(Pipeline { commands })
}

/// Parses one `eval` expression covering the whole text.
pub(crate) fn expression(src: &str) -> Result<Expr> {
    let mut p = Parser::new(src);
    let e = p.expr()?;
    let t = p.peek(Mode::Expr)?;
    if t.kind != Tok::Eof {
        return Err(p.unexpected(&t));
    }
    Ok(e)
}

impl<'a> Parser<'a> {
    fn new(src: &'a str) -> Self {
        Parser {
            src,
            pos: 0,
            depth: 0,
        }
    }

    /// The next token, not consumed.
    fn peek(&self, mode: Mode) -> Result<Token> {
        lex(self.src, self.pos, mode)
    }

    /// The token after the next one, not consumed.
    fn peek2(&self, mode: Mode) -> Result<(Token, Token)> {
        let a = self.peek(mode)?;
        let b = lex(self.src, a.span.end, mode)?;
        Ok((a, b))
    }

    /// The next token, consumed.
    fn bump(&mut self, mode: Mode) -> Result<Token> {
        let t = self.peek(mode)?;
        self.pos = t.span.end;
        Ok(t)
    }

    /// The source text of a token.
    fn text(&self, t: &Token) -> &'a str {
        &self.src[t.span.start..t.span.end]
    }

    /// Whether `t` is the bare word `w` (ASCII case-insensitive).
    fn is_word(&self, t: &Token, w: &str) -> bool {
        t.kind == Tok::Word && self.text(t).eq_ignore_ascii_case(w)
    }

    /// Whether the command ends here (`|` or end of input).
    fn at_end(&self, mode: Mode) -> Result<bool> {
        Ok(matches!(self.peek(mode)?.kind, Tok::Pipe | Tok::Eof))
    }

    /// Errors unless the command ends here.
    fn expect_end(&self, mode: Mode) -> Result<()> {
        let t = self.peek(mode)?;
        match t.kind {
            Tok::Pipe | Tok::Eof => Ok(()),
            _ => Err(self.unexpected(&t)),
        }
    }

    /// "Unexpected 'x'." about token `t`.
    fn unexpected(&self, t: &Token) -> ParseError {
        let shown: String = self.text(t).chars().take(40).collect();
        let message = match t.kind {
            Tok::RParen => "Unbalanced parentheses.".to_string(),
            Tok::Eof => "Unexpected end of the search.".to_string(),
            _ => format!("Unexpected '{shown}'."),
        };
        ParseError::new(message, t.span)
    }

    /// Enters one nesting level, refusing to go deeper than [`MAX_DEPTH`].
    fn enter(&mut self, at: Span) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ParseError::new(
                format!("The search is nested too deeply (more than {MAX_DEPTH} levels)."),
                at,
            ));
        }
        Ok(())
    }

    /// Leaves a level entered with [`Parser::enter`].
    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// The first command: a search clause with an optional `search` keyword.
    fn first_search(&mut self) -> Result<Command> {
        let (a, b) = self.peek2(Mode::Search)?;
        if self.is_word(&a, "search") && !matches!(b.kind, Tok::Op(_)) {
            self.pos = a.span.end;
        }
        Ok(Command::Search(self.search_clause()?))
    }

    /// A command after `|` (whose span is `pipe`).
    fn command(&mut self, pipe: Span) -> Result<Command> {
        let t = self.bump(Mode::Args)?;
        match t.kind {
            Tok::Word => {}
            Tok::Pipe | Tok::Eof => {
                return Err(ParseError::new("Missing a command after '|'.", pipe));
            }
            _ => {
                return Err(ParseError::new(
                    "Expected a command name after '|'.",
                    t.span,
                ))
            }
        }
        let name = self.text(&t).to_ascii_lowercase();
        let at = t.span;
        match name.as_str() {
            "search" => Ok(Command::Search(self.search_clause()?)),
            "makeresults" | "gentimes" | "lookup" | "inputlookup" | "outputlookup" | "tstats"
            | "metadata" | "fieldsummary" | "inputcsv" | "outputcsv" | "collect" => {
                self.data_cmd(&name, at)
            }
            "where" => self.where_cmd(at),
            "append" | "appendcols" | "union" | "join" => self.join_cmd(&name, at),
            "format" => self.format_cmd(),
            "return" => self.return_cmd(at),
            "appendpipe" => self.appendpipe_cmd(at),
            "eval" => self.eval_cmd(at),
            "fields" => self.fields_cmd(at),
            "table" => Ok(Command::Table(self.name_list(at, "table")?)),
            "rename" => self.rename_cmd(at),
            "sort" => self.sort_cmd(at),
            "head" => Ok(Command::Head(self.count_cmd("head")?)),
            "tail" => Ok(Command::Tail(self.count_cmd("tail")?)),
            "dedup" => self.dedup_cmd(at),
            "rex" => self.rex_cmd(at),
            "stats" => self.stats_cmd(at),
            "timechart" => self.timechart_cmd(at),
            "top" => self.top_cmd(at, false),
            "rare" => self.top_cmd(at, true),
            "eventstats" => self.eventstats_cmd(at),
            "streamstats" => self.streamstats_cmd(at),
            "accum" => self.accum_cmd(at),
            "regex" => self.regex_cmd(at),
            "delta" => self.delta_cmd(at),
            "reverse" => {
                self.expect_end(Mode::Args)?;
                Ok(Command::Reverse)
            }
            "fillnull" => self.fillnull_cmd(),
            "bin" | "bucket" => self.bin_cmd(at, &name),
            "chart" => self.chart_cmd(at),
            "makemv" => self.makemv_cmd(at),
            "mvexpand" => self.mvexpand_cmd(at),
            "mvcombine" => self.mvcombine_cmd(at),
            "nomv" => self.nomv_cmd(at),
            "filldown" => self.filldown_cmd(),
            "autoregress" => self.autoregress_cmd(at),
            "addtotals" => self.addtotals_cmd(),
            "addcoltotals" => self.addcoltotals_cmd(),
            "uniq" => {
                self.expect_end(Mode::Args)?;
                Ok(Command::Uniq)
            }
            "replace" => self.replace_cmd(at),
            "convert" => self.convert_cmd(at),
            "transaction" => self.transaction_cmd(),
            "spath" => self.spath_cmd(),
            "extract" | "kv" => self.extract_cmd(&name),
            "xmlkv" => {
                self.expect_end(Mode::Args)?;
                Ok(Command::XmlKv)
            }
            _ => Err(ParseError::new(
                format!("Unknown search command '{}'.", self.text(&t)),
                at,
            )),
        }
    }

    /// A field name: a bare word or a `"quoted name"` (args mode).
    fn name(&mut self, what: &str) -> Result<(String, Span)> {
        let t = self.bump(Mode::Args)?;
        match t.kind {
            Tok::Word => Ok((self.text(&t).to_string(), t.span)),
            Tok::Str(s) => Ok((s, t.span)),
            _ => Err(ParseError::new(format!("Expected {what}."), t.span)),
        }
    }

    /// A `key=value` option if one comes next.
    fn option(&mut self) -> Result<Option<Opt>> {
        let (k, eq) = self.peek2(Mode::Args)?;
        if k.kind != Tok::Word || eq.kind != Tok::Op(Op::Eq) {
            return Ok(None);
        }
        self.pos = eq.span.end;
        let key = self.text(&k).to_ascii_lowercase();
        let v = self.bump(Mode::Args)?;
        let value = match v.kind {
            Tok::Word => self.text(&v).to_string(),
            Tok::Str(s) => s,
            _ => {
                return Err(ParseError::new(
                    format!("Missing a value for '{key}='."),
                    span(eq.span.start, eq.span.end),
                ))
            }
        };
        Ok(Some(Opt {
            key,
            key_span: k.span,
            value,
            value_span: v.span,
        }))
    }

    /// Field names separated by spaces or commas, up to the end of the command, a `by`
    /// (when `stop_at_by`) or a `key=value` option.
    fn field_list(&mut self, stop_at_by: bool) -> Result<Vec<String>> {
        let mut out = Vec::new();
        loop {
            let (t, next) = self.peek2(Mode::Args)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => return Ok(out),
                Tok::Comma if !out.is_empty() => {
                    self.pos = t.span.end;
                    if matches!(next.kind, Tok::Pipe | Tok::Eof | Tok::Comma) {
                        return Err(ParseError::new(
                            "Expected a field name after ','.",
                            next.span,
                        ));
                    }
                }
                Tok::Word if stop_at_by && self.is_word(&t, "by") => return Ok(out),
                Tok::Word if next.kind == Tok::Op(Op::Eq) => return Ok(out),
                _ => out.push(self.name("a field name")?.0),
            }
        }
    }

    /// A non-empty field list making up the whole command (`table`).
    fn name_list(&mut self, at: Span, cmd: &str) -> Result<Vec<String>> {
        let fields = self.field_list(false)?;
        if fields.is_empty() {
            return Err(ParseError::new(
                format!("'{cmd}' needs at least one field name."),
                at,
            ));
        }
        self.expect_end(Mode::Args)?;
        Ok(fields)
    }
}

/// A whole number option or argument.
fn parse_u64(value: &str, at: Span, what: &str) -> Result<u64> {
    value.parse().map_err(|_| {
        ParseError::new(
            format!("Invalid {what} '{value}'; expected a whole number."),
            at,
        )
    })
}

/// A boolean option value: `t`, `true`, `1`, `f`, `false`, `0` (any case).
fn parse_bool(o: &Opt) -> Result<bool> {
    match o.value.to_ascii_lowercase().as_str() {
        "t" | "true" | "1" => Ok(true),
        "f" | "false" | "0" => Ok(false),
        _ => Err(ParseError::new(
            format!(
                "Invalid value '{}' for '{}'; expected true or false.",
                o.value, o.key
            ),
            o.value_span,
        )),
    }
}

/// "Unknown option" for `cmd`.
fn unknown_option(o: &Opt, cmd: &str) -> ParseError {
    ParseError::new(
        format!("Unknown option '{}' for '{cmd}'.", o.key),
        o.key_span,
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use crate::ast::{Command, SearchExpr, Term};
    use crate::{parse, print};

    /// The commands of `q`, checking that they print and parse back unchanged.
    pub(crate) fn cmds(q: &str) -> Vec<Command> {
        let p = parse(q).unwrap_or_else(|e| panic!("{q:?}: {}", e.render(q)));
        let printed = print(&p);
        assert_eq!(parse(&printed).as_ref(), Ok(&p), "reprinted as {printed:?}");
        p.commands
    }

    /// The last command of `q`.
    pub(crate) fn last(q: &str) -> Command {
        cmds(q).pop().expect("at least one command")
    }

    /// The message of the error `q` gives and the text its span covers.
    pub(crate) fn err(q: &str) -> (String, &str) {
        match parse(q) {
            Ok(p) => panic!("{q:?} parsed as {p:?}"),
            Err(e) => (e.message, &q[e.span.start..e.span.end]),
        }
    }

    pub(crate) fn term(t: &str) -> SearchExpr {
        SearchExpr::Term(Term {
            text: t.into(),
            quoted: false,
            whole: false,
            case: false,
        })
    }

    #[test]
    fn implicit_and_explicit_search_keyword() {
        assert_eq!(cmds("error"), cmds("search error"));
        assert_eq!(
            cmds("SEARCH error"),
            vec![Command::Search(Some(term("error")))]
        );
        assert_eq!(cmds(""), vec![Command::Search(None)]);
        assert_eq!(cmds("  *  "), vec![Command::Search(None)]);
        assert_eq!(cmds("search"), vec![Command::Search(None)]);
        // `search=x` is a comparison, not the keyword.
        assert!(matches!(
            &cmds("search=x")[0],
            Command::Search(Some(SearchExpr::Compare { .. }))
        ));
    }

    #[test]
    fn leading_pipe_starts_with_a_command() {
        let c = cmds("| stats count");
        assert!(matches!(c.as_slice(), [Command::Stats(_)]));
        assert_eq!(print(&parse("| stats count").unwrap()), "| stats count");
    }

    #[test]
    fn command_names_are_case_insensitive() {
        assert_eq!(
            cmds("x | HEAD 3 | Where a=1"),
            cmds("x | head 3 | where a=1")
        );
    }

    #[test]
    fn pipeline_errors() {
        assert_eq!(
            err("a | foo x"),
            ("Unknown search command 'foo'.".into(), "foo")
        );
        assert_eq!(err("a | | b"), ("Missing a command after '|'.".into(), "|"));
        assert_eq!(err("a |"), ("Missing a command after '|'.".into(), "|"));
        assert_eq!(err("|"), ("Missing a command after '|'.".into(), "|"));
        assert_eq!(
            err("a | \"x\""),
            ("Expected a command name after '|'.".into(), "\"x\"")
        );
        assert_eq!(err("a | head 5 6"), ("Unexpected '6'.".into(), "6"));
        assert_eq!(err("a | head x").1, "x");
    }

    #[test]
    fn render_points_at_the_unknown_command() {
        let q = "error | foo x";
        let e = parse(q).unwrap_err();
        assert_eq!(
            e.render(q),
            "Unknown search command 'foo'.\nerror | foo x\n        ^^^"
        );
    }
}
