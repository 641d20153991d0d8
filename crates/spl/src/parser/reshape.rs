//! Reshaping commands: `bin`/`bucket`, `chart`, `makemv`, `mvexpand`, `mvcombine`, `nomv`,
//! `filldown`, `autoregress`, `addtotals`, `addcoltotals`, `uniq`, `replace`, `convert`.

use super::stats::{need_aggs, parse_span};
use super::{parse_bool, parse_u64, unknown_option, Opt, Parser, Result};
use crate::ast::{
    AddTotals, Bin, BinSpan, Chart, Command, Conversion, Span, TimeUnit, Transaction, TxnFilter,
};
use crate::error::ParseError;
use crate::lexer::{Mode, Op, Tok};

const M: Mode = Mode::Args;

/// The conversion functions of `convert`.
const CONVERSIONS: &[&str] = &[
    "auto", "ctime", "dur2sec", "memk", "mktime", "mstime", "none", "num", "rmcomma", "rmunit",
];

/// A `span=` value of `bin`/`chart`: a positive number, `[coef]log[base]`, or a time span.
pub(crate) fn parse_bin_span(value: &str, at: Span) -> Result<BinSpan> {
    if value
        .bytes()
        .all(|b| b.is_ascii_digit() || b == b'.' || b == b'e' || b == b'E')
        && value.bytes().next().is_some_and(|b| b.is_ascii_digit())
    {
        return match value.parse::<f64>() {
            Ok(v) if v.is_finite() && v > 0.0 => Ok(BinSpan::Num(v)),
            _ => Err(ParseError::new(
                format!("Invalid span '{value}'; expected a positive number."),
                at,
            )),
        };
    }
    if let Some((c, b)) = value.to_ascii_lowercase().split_once("log") {
        let num = |s: &str, default: f64| {
            if s.is_empty() {
                Some(default)
            } else if s.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                s.parse::<f64>().ok().filter(|v| v.is_finite())
            } else {
                None
            }
        };
        return match (num(c, 1.0), num(b, 10.0)) {
            (Some(coef), Some(base)) if base > 1.0 && coef >= 1.0 && coef < base => {
                Ok(BinSpan::Log { coef, base })
            }
            _ => Err(ParseError::new(
                format!(
                    "Invalid log span '{value}'; use [coef]log[base] with base > 1 and 1 <= coef < base."
                ),
                at,
            )),
        };
    }
    parse_span(value, at).map(BinSpan::Time)
}

fn parse_f64(o: &Opt) -> Result<f64> {
    match o.value.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        _ => Err(ParseError::new(
            format!("Invalid number '{}' for '{}'.", o.value, o.key),
            o.value_span,
        )),
    }
}

impl Parser<'_> {
    /// `f [AS g]` after which options may follow; `None` at the end of the command.
    fn field_as(&mut self) -> Result<(String, Option<String>)> {
        let (field, _) = self.name("a field name")?;
        let t = self.peek(M)?;
        let mut alias = None;
        if self.is_word(&t, "as") {
            self.pos = t.span.end;
            alias = Some(self.name("a new field name after 'AS'")?.0);
        }
        Ok((field, alias))
    }

    /// `cmd [options] <field> [options]`: exactly one field, read by `field`, among `key=value`
    /// options, each handed to `opt`.
    fn one_field<T>(
        &mut self,
        at: Span,
        cmd: &str,
        mut opt: impl FnMut(Opt) -> Result<()>,
        mut field: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<T> {
        let mut got = None;
        loop {
            if let Some(o) = self.option()? {
                opt(o)?;
                continue;
            }
            if !self.single_field(at, cmd, &got)? {
                break;
            }
            got = Some(field(self)?);
        }
        got.ok_or_else(|| ParseError::new(format!("'{cmd}' needs a field name."), at))
    }

    /// Whether a field comes next: false at the end of the command (an error when no field was
    /// read), true otherwise (an `unexpected` error when one was already read).
    fn single_field<T>(&mut self, at: Span, cmd: &str, field: &Option<T>) -> Result<bool> {
        let t = self.peek(M)?;
        if matches!(t.kind, Tok::Pipe | Tok::Eof) {
            if field.is_none() {
                return Err(ParseError::new(format!("'{cmd}' needs a field name."), at));
            }
            return Ok(false);
        }
        if field.is_some() {
            return Err(self.unexpected(&t));
        }
        Ok(true)
    }

    /// `bin|bucket [options] f [AS g] [options]`.
    pub(super) fn bin_cmd(&mut self, at: Span, cmd: &str) -> Result<Command> {
        let mut b = Bin {
            field: String::new(),
            alias: None,
            span: None,
            bins: None,
            minspan: None,
            start: None,
            end: None,
            aligntime: None,
        };
        let field = self.one_field(
            at,
            cmd,
            |o| {
                match o.key.as_str() {
                    "span" => b.span = Some(parse_bin_span(&o.value, o.value_span)?),
                    "minspan" => b.minspan = Some(parse_bin_span(&o.value, o.value_span)?),
                    "bins" => {
                        let n = parse_u64(&o.value, o.value_span, "bins")?;
                        if n < 2 {
                            return Err(ParseError::new("bins must be at least 2.", o.value_span));
                        }
                        b.bins = Some(n);
                    }
                    "start" => b.start = Some(parse_f64(&o)?),
                    "end" => b.end = Some(parse_f64(&o)?),
                    "aligntime" => b.aligntime = Some(o.value),
                    _ => return Err(unknown_option(&o, cmd)),
                }
                Ok(())
            },
            |p| p.field_as(),
        )?;
        let (f, alias) = field;
        b.field = f;
        b.alias = alias;
        Ok(Command::Bin(b))
    }

    /// `chart [options] <agg>… [over x [span=…]] [by y] [options]`; `by x y` = `over x by y`.
    pub(super) fn chart_cmd(&mut self, at: Span) -> Result<Command> {
        let mut c = Chart {
            aggs: Vec::new(),
            over: None,
            span: None,
            by: None,
            limit: 10,
            useother: true,
            otherstr: "OTHER".into(),
            usenull: true,
            nullstr: "NULL".into(),
            bottom: false,
        };
        let mut split = false;
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "limit" => {
                        let v = o.value.to_ascii_lowercase();
                        let (bottom, n) = match (v.strip_prefix("top"), v.strip_prefix("bottom")) {
                            (Some(n), _) => (false, n),
                            (_, Some(n)) => (true, n),
                            _ => (false, v.as_str()),
                        };
                        c.bottom = bottom;
                        c.limit = parse_u64(n, o.value_span, "limit")?;
                    }
                    "useother" => c.useother = parse_bool(&o)?,
                    "otherstr" => c.otherstr = o.value,
                    "usenull" => c.usenull = parse_bool(&o)?,
                    "nullstr" => c.nullstr = o.value,
                    "span" => c.span = Some(parse_bin_span(&o.value, o.value_span)?),
                    _ => return Err(unknown_option(&o, "chart")),
                }
                continue;
            }
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !c.aggs.is_empty() && !split => self.pos = t.span.end,
                Tok::Word if self.is_word(&t, "over") && c.over.is_none() && c.by.is_none() => {
                    need_aggs(&c.aggs, t.span, "chart")?;
                    self.pos = t.span.end;
                    c.over = Some(self.name("a field name after 'over'")?.0);
                    split = true;
                }
                Tok::Word if self.is_word(&t, "by") && c.by.is_none() => {
                    need_aggs(&c.aggs, t.span, "chart")?;
                    self.pos = t.span.end;
                    let (first, _) = self.name("a field name after 'by'")?;
                    split = true;
                    if c.over.is_some() {
                        c.by = Some(first);
                        continue;
                    }
                    c.over = Some(first);
                    let (n, next) = self.peek2(M)?;
                    let more = match n.kind {
                        Tok::Comma => {
                            self.pos = n.span.end;
                            true
                        }
                        Tok::Word => next.kind != Tok::Op(Op::Eq),
                        Tok::Str(_) => true,
                        _ => false,
                    };
                    if more {
                        c.by = Some(self.name("a second field name after 'by'")?.0);
                    }
                }
                _ if split => return Err(self.unexpected(&t)),
                _ => c.aggs.push(self.agg()?),
            }
        }
        need_aggs(&c.aggs, at, "chart")?;
        if c.span.is_some() && c.over.is_none() {
            return Err(ParseError::new(
                "chart span= needs a row-split field (over x).",
                at,
            ));
        }
        Ok(Command::Chart(c))
    }

    /// `makemv [delim=s] [tokenizer=re] [allowempty=b] [setsv=b] f`.
    pub(super) fn makemv_cmd(&mut self, at: Span) -> Result<Command> {
        let (mut delim, mut tokenizer, mut allowempty, mut setsv) =
            (" ".to_string(), None, false, false);
        let field = self.one_field(
            at,
            "makemv",
            |o| {
                match o.key.as_str() {
                    "delim" => delim = o.value,
                    "tokenizer" => tokenizer = Some(o.value),
                    "allowempty" => allowempty = parse_bool(&o)?,
                    "setsv" => setsv = parse_bool(&o)?,
                    _ => return Err(unknown_option(&o, "makemv")),
                }
                Ok(())
            },
            |p| p.name("a field name").map(|(f, _)| f),
        )?;
        if delim.is_empty() {
            return Err(ParseError::new("makemv delim must not be empty.", at));
        }
        Ok(Command::MakeMv {
            field,
            delim,
            tokenizer,
            allowempty,
            setsv,
        })
    }

    /// `mvexpand f [limit=N]`.
    pub(super) fn mvexpand_cmd(&mut self, at: Span) -> Result<Command> {
        let mut limit = None;
        let field = self.one_field(
            at,
            "mvexpand",
            |o| {
                match o.key.as_str() {
                    "limit" => limit = Some(parse_u64(&o.value, o.value_span, "limit")?),
                    _ => return Err(unknown_option(&o, "mvexpand")),
                }
                Ok(())
            },
            |p| p.name("a field name").map(|(f, _)| f),
        )?;
        Ok(Command::MvExpand { field, limit })
    }

    /// `mvcombine [delim=s] f`.
    pub(super) fn mvcombine_cmd(&mut self, at: Span) -> Result<Command> {
        let mut delim = " ".to_string();
        let field = self.one_field(
            at,
            "mvcombine",
            |o| {
                match o.key.as_str() {
                    "delim" => delim = o.value,
                    _ => return Err(unknown_option(&o, "mvcombine")),
                }
                Ok(())
            },
            |p| p.name("a field name").map(|(f, _)| f),
        )?;
        Ok(Command::MvCombine { field, delim })
    }

    /// `nomv f`.
    pub(super) fn nomv_cmd(&mut self, at: Span) -> Result<Command> {
        let field = self.one_field(
            at,
            "nomv",
            |o| Err(unknown_option(&o, "nomv")),
            |p| p.name("a field name").map(|(f, _)| f),
        )?;
        Ok(Command::NoMv(field))
    }

    /// `filldown [f…]`.
    pub(super) fn filldown_cmd(&mut self) -> Result<Command> {
        let fields = self.field_list(false)?;
        if let Some(o) = self.option()? {
            return Err(unknown_option(&o, "filldown"));
        }
        self.expect_end(M)?;
        Ok(Command::FillDown(fields))
    }

    /// `autoregress f [AS g] [p=N|p=a-b]`.
    pub(super) fn autoregress_cmd(&mut self, at: Span) -> Result<Command> {
        let (mut from, mut to) = (1, 1);
        let field = self.one_field(
            at,
            "autoregress",
            |o| {
                match o.key.as_str() {
                    "p" => {
                        (from, to) = match o.value.split_once('-') {
                            Some((a, b)) => (
                                parse_u64(a, o.value_span, "p")?,
                                parse_u64(b, o.value_span, "p")?,
                            ),
                            None => {
                                let n = parse_u64(&o.value, o.value_span, "p")?;
                                (n, n)
                            }
                        };
                        if from == 0 || to < from {
                            return Err(ParseError::new(
                                "p must be at least 1, and a range p=a-b needs a <= b.",
                                o.value_span,
                            ));
                        }
                    }
                    _ => return Err(unknown_option(&o, "autoregress")),
                }
                Ok(())
            },
            |p| p.field_as(),
        )?;
        let (field, alias) = field;
        if alias.is_some() && from != to {
            return Err(ParseError::new(
                "autoregress AS needs a single p, not a range.",
                at,
            ));
        }
        Ok(Command::AutoRegress {
            field,
            alias,
            from,
            to,
        })
    }

    /// `addtotals [row=b] [col=b] [labelfield=f] [label=s] [fieldname=s] [f…]`.
    pub(super) fn addtotals_cmd(&mut self) -> Result<Command> {
        let mut a = AddTotals {
            row: true,
            col: false,
            labelfield: None,
            label: "Total".into(),
            fieldname: "Total".into(),
            fields: Vec::new(),
        };
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "row" => a.row = parse_bool(&o)?,
                    "col" => a.col = parse_bool(&o)?,
                    "labelfield" => a.labelfield = Some(o.value),
                    "label" => a.label = o.value,
                    "fieldname" => a.fieldname = o.value,
                    _ => return Err(unknown_option(&o, "addtotals")),
                }
                continue;
            }
            let more = self.field_list(false)?;
            if more.is_empty() {
                break;
            }
            a.fields.extend(more);
        }
        Ok(Command::AddTotals(a))
    }

    /// `addcoltotals [labelfield=f] [label=s] [f…]`.
    pub(super) fn addcoltotals_cmd(&mut self) -> Result<Command> {
        let (mut labelfield, mut label, mut fields) = (None, "Total".to_string(), Vec::new());
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "labelfield" => labelfield = Some(o.value),
                    "label" => label = o.value,
                    _ => return Err(unknown_option(&o, "addcoltotals")),
                }
                continue;
            }
            let more = self.field_list(false)?;
            if more.is_empty() {
                break;
            }
            fields.extend(more);
        }
        Ok(Command::AddColTotals {
            labelfield,
            label,
            fields,
        })
    }

    /// `replace a WITH b[, c WITH d…] [IN f…]`.
    pub(super) fn replace_cmd(&mut self, at: Span) -> Result<Command> {
        let mut pairs = Vec::new();
        let mut fields = Vec::new();
        loop {
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !pairs.is_empty() => self.pos = t.span.end,
                Tok::Word if self.is_word(&t, "in") && !pairs.is_empty() => {
                    self.pos = t.span.end;
                    fields = self.field_list(false)?;
                    if fields.is_empty() {
                        return Err(ParseError::new("Expected field names after 'IN'.", t.span));
                    }
                    self.expect_end(M)?;
                    break;
                }
                _ => pairs.push(self.name_pair(
                    "a value to replace",
                    "with",
                    "replace",
                    "a replacement after 'WITH'",
                )?),
            }
        }
        if pairs.is_empty() {
            return Err(ParseError::new("'replace' needs 'old WITH new'.", at));
        }
        Ok(Command::Replace { pairs, fields })
    }

    /// `convert [timeformat=s] fn(f) [AS g][, …]`.
    pub(super) fn convert_cmd(&mut self, at: Span) -> Result<Command> {
        let mut timeformat = "%m/%d/%Y %H:%M:%S".to_string();
        let mut items = Vec::new();
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "timeformat" => timeformat = o.value,
                    _ => return Err(unknown_option(&o, "convert")),
                }
                continue;
            }
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !items.is_empty() => self.pos = t.span.end,
                Tok::Word => {
                    self.pos = t.span.end;
                    let func = self.text(&t).to_ascii_lowercase();
                    if !CONVERSIONS.contains(&func.as_str()) {
                        return Err(ParseError::new(
                            format!(
                                "Unknown conversion '{}'; use one of {}.",
                                self.text(&t),
                                CONVERSIONS.join(", ")
                            ),
                            t.span,
                        ));
                    }
                    let open = self.bump(M)?;
                    if open.kind != Tok::LParen {
                        return Err(ParseError::new(
                            format!("Expected '(' after '{func}'."),
                            open.span,
                        ));
                    }
                    let (field, _) = self.name("a field name")?;
                    let close = self.bump(M)?;
                    if close.kind != Tok::RParen {
                        return Err(ParseError::new("Unbalanced parentheses.", open.span));
                    }
                    let n = self.peek(M)?;
                    let mut alias = None;
                    if self.is_word(&n, "as") {
                        self.pos = n.span.end;
                        alias = Some(self.name("a new field name after 'AS'")?.0);
                    }
                    items.push(Conversion { func, field, alias });
                }
                _ => {
                    return Err(ParseError::new(
                        "Expected a conversion such as ctime(field).",
                        t.span,
                    ))
                }
            }
        }
        if items.is_empty() {
            return Err(ParseError::new(
                "'convert' needs a conversion such as ctime(field).",
                at,
            ));
        }
        Ok(Command::Convert { timeformat, items })
    }
}

impl Parser<'_> {
    /// `spath [input=f] [output=o] [path=]p`.
    pub(super) fn spath_cmd(&mut self) -> Result<Command> {
        let (mut input, mut output, mut path) = ("_raw".to_string(), None, None);
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "input" => input = o.value,
                    "output" => output = Some(o.value),
                    "path" => path = Some(o.value),
                    _ => return Err(unknown_option(&o, "spath")),
                }
                continue;
            }
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                _ if path.is_some() => return Err(self.unexpected(&t)),
                _ => path = Some(self.name("a path")?.0),
            }
        }
        Ok(Command::Spath {
            input,
            output,
            path,
        })
    }

    /// `extract|kv [pairdelim=s] [kvdelim=s]`.
    pub(super) fn extract_cmd(&mut self, cmd: &str) -> Result<Command> {
        let (mut pairdelim, mut kvdelim) = (None, None);
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "pairdelim" => pairdelim = Some(o.value),
                    "kvdelim" => kvdelim = Some(o.value),
                    _ => return Err(unknown_option(&o, cmd)),
                }
                continue;
            }
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                _ => {
                    return Err(ParseError::new(
                        format!("{cmd} with a transforms.conf extraction name is not supported."),
                        t.span,
                    ))
                }
            }
        }
        Ok(Command::Extract { pairdelim, kvdelim })
    }
}

/// A `maxspan=`/`maxpause=` value in seconds: `30`, `30s`, `5m`, `2h`, `1d`, `1w`; `-1` = none.
fn parse_secs(o: &Opt) -> Result<Option<u64>> {
    if o.value == "-1" {
        return Ok(None);
    }
    if o.value.bytes().all(|b| b.is_ascii_digit()) {
        return parse_u64(&o.value, o.value_span, &o.key).map(Some);
    }
    let s = parse_span(&o.value, o.value_span)?;
    let unit = match s.unit {
        TimeUnit::Second => 1,
        TimeUnit::Minute => 60,
        TimeUnit::Hour => 3600,
        TimeUnit::Day => 86_400,
        TimeUnit::Week => 604_800,
        TimeUnit::Month | TimeUnit::Year => {
            return Err(ParseError::new(
                format!("'{}' takes seconds, minutes, hours, days or weeks.", o.key),
                o.value_span,
            ))
        }
    };
    s.count
        .checked_mul(unit)
        .map(Some)
        .ok_or_else(|| ParseError::new(format!("'{}' is too large.", o.key), o.value_span))
}

impl Parser<'_> {
    /// `transaction [f…] [options]`.
    pub(super) fn transaction_cmd(&mut self) -> Result<Command> {
        let mut t = Transaction {
            fields: Vec::new(),
            maxspan: None,
            maxpause: None,
            maxevents: 1000,
            startswith: None,
            endswith: None,
            keepevicted: false,
            mvlist: false,
            delim: " ".into(),
        };
        loop {
            let (k, eq) = self.peek2(M)?;
            if k.kind == Tok::Word
                && eq.kind == Tok::Op(Op::Eq)
                && (self.is_word(&k, "startswith") || self.is_word(&k, "endswith"))
            {
                let start = self.is_word(&k, "startswith");
                self.pos = eq.span.end;
                let f = self.txn_filter(self.text(&k).to_ascii_lowercase())?;
                if start {
                    t.startswith = Some(f);
                } else {
                    t.endswith = Some(f);
                }
                continue;
            }
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "maxspan" => t.maxspan = parse_secs(&o)?,
                    "maxpause" => t.maxpause = parse_secs(&o)?,
                    "maxevents" => {
                        t.maxevents = match o.value.as_str() {
                            "-1" => 0,
                            v => parse_u64(v, o.value_span, "maxevents")?,
                        }
                    }
                    "keepevicted" => t.keepevicted = parse_bool(&o)?,
                    "mvlist" => t.mvlist = parse_bool(&o)?,
                    "delim" => t.delim = o.value,
                    _ => return Err(unknown_option(&o, "transaction")),
                }
                continue;
            }
            let more = self.field_list(false)?;
            if more.is_empty() {
                break;
            }
            t.fields.extend(more);
        }
        Ok(Command::Transaction(t))
    }

    /// The value of `startswith=`/`endswith=`: `eval(expr)` or quoted search terms.
    fn txn_filter(&mut self, key: String) -> Result<TxnFilter> {
        let (a, b) = self.peek2(M)?;
        if self.is_word(&a, "eval") && b.kind == Tok::LParen && b.span.start == a.span.end {
            self.pos = b.span.end;
            let e = self.expr()?;
            let close = self.bump(Mode::Expr)?;
            if close.kind != Tok::RParen {
                return Err(ParseError::new("Unbalanced parentheses.", b.span));
            }
            return Ok(TxnFilter::Eval(e));
        }
        let v = self.bump(M)?;
        let text = match &v.kind {
            Tok::Str(s) => s.clone(),
            Tok::Word => self.text(&v).to_string(),
            _ => {
                return Err(ParseError::new(
                    format!("Missing a value for '{key}='."),
                    v.span,
                ))
            }
        };
        let mut sub = Parser::new(&text);
        match sub.search_clause() {
            Ok(Some(e)) => Ok(TxnFilter::Search(e)),
            Ok(None) => Err(ParseError::new(
                format!("'{key}=' needs search terms or eval(…)."),
                v.span,
            )),
            Err(e) => Err(ParseError::new(
                format!("In '{key}=': {}", e.message),
                v.span,
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{err, last};
    use crate::ast::{Agg, Bin, BinSpan, Chart, Command, Conversion, TimeSpan, TimeUnit};

    fn bin(field: &str) -> Bin {
        Bin {
            field: field.into(),
            alias: None,
            span: None,
            bins: None,
            minspan: None,
            start: None,
            end: None,
            aligntime: None,
        }
    }

    #[test]
    fn bin_options_and_spans() {
        assert_eq!(last("x | bin _time"), Command::Bin(bin("_time")));
        assert_eq!(last("x | bucket _time"), Command::Bin(bin("_time")));
        let mut b = bin("bytes");
        b.alias = Some("b".into());
        b.span = Some(BinSpan::Num(100.0));
        b.start = Some(-5.0);
        b.end = Some(2000.5);
        assert_eq!(
            last("x | bin span=100 bytes AS b start=-5 end=2000.5"),
            Command::Bin(b)
        );
        let mut b = bin("_time");
        b.span = Some(BinSpan::Time(TimeSpan {
            count: 5,
            unit: TimeUnit::Minute,
        }));
        b.aligntime = Some("earliest".into());
        assert_eq!(
            last("x | bin _time span=5m aligntime=earliest"),
            Command::Bin(b)
        );
        let Command::Bin(b) = last("x | bin span=2log3 minspan=10 bins=20 v") else {
            panic!()
        };
        assert_eq!(
            b.span,
            Some(BinSpan::Log {
                coef: 2.0,
                base: 3.0
            })
        );
        assert_eq!(b.minspan, Some(BinSpan::Num(10.0)));
        assert_eq!(b.bins, Some(20));
        let Command::Bin(b) = last("x | bin span=log v") else {
            panic!()
        };
        assert_eq!(
            b.span,
            Some(BinSpan::Log {
                coef: 1.0,
                base: 10.0
            })
        );
        assert_eq!(err("x | bin").0, "'bin' needs a field name.");
        assert_eq!(err("x | bin span=0 a").1, "0");
        assert_eq!(err("x | bin span=5log2 a").1, "5log2");
        assert_eq!(err("x | bin span=5q a").1, "5q");
        assert_eq!(err("x | bin bins=1 a").1, "1");
        assert_eq!(err("x | bin a b").1, "b");
        assert_eq!(
            err("x | bucket foo=1 a").0,
            "Unknown option 'foo' for 'bucket'."
        );
    }

    fn count() -> Agg {
        Agg {
            func: "count".into(),
            field: None,
            alias: None,
            eval: None,
        }
    }

    fn chart(over: Option<&str>, by: Option<&str>) -> Chart {
        Chart {
            aggs: vec![count()],
            over: over.map(str::to_string),
            span: None,
            by: by.map(str::to_string),
            limit: 10,
            useother: true,
            otherstr: "OTHER".into(),
            usenull: true,
            nullstr: "NULL".into(),
            bottom: false,
        }
    }

    #[test]
    fn chart_forms() {
        assert_eq!(last("x | chart count"), Command::Chart(chart(None, None)));
        assert_eq!(
            last("x | chart count over a by b"),
            Command::Chart(chart(Some("a"), Some("b")))
        );
        assert_eq!(
            last("x | chart count by a b"),
            Command::Chart(chart(Some("a"), Some("b")))
        );
        assert_eq!(
            last("x | chart count by a, b"),
            Command::Chart(chart(Some("a"), Some("b")))
        );
        assert_eq!(
            last("x | chart count by a limit=3"),
            Command::Chart(Chart {
                limit: 3,
                ..chart(Some("a"), None)
            })
        );
        assert_eq!(
            last("x | chart limit=top3 count by a b"),
            Command::Chart(Chart {
                limit: 3,
                ..chart(Some("a"), Some("b"))
            })
        );
        assert_eq!(
            last("x | chart limit=BOTTOM2 count by a b"),
            Command::Chart(Chart {
                limit: 2,
                bottom: true,
                ..chart(Some("a"), Some("b"))
            })
        );
        assert!(err("x | chart limit=bottom count by a b")
            .0
            .contains("limit"));
        let Command::Chart(c) = last(
            "x | chart limit=0 useother=f otherstr=rest usenull=f nullstr=none avg(b) AS m, max(b) over t span=1h by h",
        ) else {
            panic!()
        };
        assert_eq!(c.aggs.len(), 2);
        assert_eq!((c.limit, c.useother, c.usenull), (0, false, false));
        assert_eq!((c.otherstr.as_str(), c.nullstr.as_str()), ("rest", "none"));
        assert_eq!(
            c.span,
            Some(BinSpan::Time(TimeSpan {
                count: 1,
                unit: TimeUnit::Hour
            }))
        );
        assert_eq!(
            err("x | chart by a").0,
            "'chart' needs at least one aggregation, such as count."
        );
        assert_eq!(err("x | chart count by a b c").1, "c");
        assert_eq!(
            err("x | chart count span=5").0,
            "chart span= needs a row-split field (over x)."
        );
        assert_eq!(err("x | chart count foo=1").1, "foo");
    }

    #[test]
    fn multivalue_commands() {
        assert_eq!(
            last("x | makemv delim=\",\" allowempty=t v"),
            Command::MakeMv {
                field: "v".into(),
                delim: ",".into(),
                tokenizer: None,
                allowempty: true,
                setsv: false
            }
        );
        assert_eq!(
            last("x | makemv tokenizer=\"(\\w+)\" setsv=t v"),
            Command::MakeMv {
                field: "v".into(),
                delim: " ".into(),
                tokenizer: Some("(\\w+)".into()),
                allowempty: false,
                setsv: true
            }
        );
        assert_eq!(err("x | makemv").0, "'makemv' needs a field name.");
        assert_eq!(
            last("x | mvexpand v limit=2"),
            Command::MvExpand {
                field: "v".into(),
                limit: Some(2)
            }
        );
        assert_eq!(
            last("x | mvcombine delim=\";\" v"),
            Command::MvCombine {
                field: "v".into(),
                delim: ";".into()
            }
        );
        assert_eq!(last("x | nomv v"), Command::NoMv("v".into()));
        assert_eq!(err("x | nomv a b").1, "b");
        assert_eq!(err("x | nomv a=1").1, "a");
        assert_eq!(last("x | filldown"), Command::FillDown(vec![]));
        assert_eq!(
            last("x | filldown a, b*"),
            Command::FillDown(vec!["a".into(), "b*".into()])
        );
    }

    #[test]
    fn autoregress_and_totals() {
        assert_eq!(
            last("x | autoregress v"),
            Command::AutoRegress {
                field: "v".into(),
                alias: None,
                from: 1,
                to: 1
            }
        );
        assert_eq!(
            last("x | autoregress v AS w p=3"),
            Command::AutoRegress {
                field: "v".into(),
                alias: Some("w".into()),
                from: 3,
                to: 3
            }
        );
        assert_eq!(
            last("x | autoregress v p=2-4"),
            Command::AutoRegress {
                field: "v".into(),
                alias: None,
                from: 2,
                to: 4
            }
        );
        assert_eq!(err("x | autoregress v p=3-2").1, "3-2");
        assert_eq!(err("x | autoregress v p=0").1, "0");
        assert!(err("x | autoregress v AS w p=1-2").0.contains("single p"));
        let Command::AddTotals(a) =
            last("x | addtotals col=t row=f labelfield=h label=Sum fieldname=T a b*")
        else {
            panic!()
        };
        assert!(!a.row && a.col);
        assert_eq!(
            (
                a.labelfield.as_deref(),
                a.label.as_str(),
                a.fieldname.as_str()
            ),
            (Some("h"), "Sum", "T")
        );
        assert_eq!(a.fields, vec!["a".to_string(), "b*".to_string()]);
        assert_eq!(
            last("x | addcoltotals labelfield=h a"),
            Command::AddColTotals {
                labelfield: Some("h".into()),
                label: "Total".into(),
                fields: vec!["a".into()]
            }
        );
        assert_eq!(last("x | uniq"), Command::Uniq);
        assert_eq!(err("x | uniq a").1, "a");
    }

    #[test]
    fn replace_and_convert() {
        assert_eq!(
            last("x | replace \"a*\" WITH \"b*\", x with y IN f, g"),
            Command::Replace {
                pairs: vec![("a*".into(), "b*".into()), ("x".into(), "y".into())],
                fields: vec!["f".into(), "g".into()]
            }
        );
        assert_eq!(
            err("x | replace a b").0,
            "Expected 'WITH' after 'a' in replace."
        );
        assert_eq!(err("x | replace").0, "'replace' needs 'old WITH new'.");
        assert_eq!(
            last("x | convert timeformat=\"%H:%M\" ctime(_time) AS t, num(*)"),
            Command::Convert {
                timeformat: "%H:%M".into(),
                items: vec![
                    Conversion {
                        func: "ctime".into(),
                        field: "_time".into(),
                        alias: Some("t".into())
                    },
                    Conversion {
                        func: "num".into(),
                        field: "*".into(),
                        alias: None
                    }
                ]
            }
        );
        assert_eq!(err("x | convert foo(a)").1, "foo");
        assert_eq!(err("x | convert").1, "convert");
        assert_eq!(err("x | convert num a").1, "a");
    }

    #[test]
    fn transaction_options() {
        use crate::ast::{BinOp, CmpOp, Expr, SearchExpr, TxnFilter};
        let Command::Transaction(t) = last("x | transaction") else {
            panic!()
        };
        assert!(t.fields.is_empty());
        assert_eq!((t.maxspan, t.maxpause, t.maxevents), (None, None, 1000));
        let Command::Transaction(t) = last(
            "x | transaction host, user maxspan=5m maxpause=30 maxevents=3 startswith=\"login OR signin\" endswith=eval(status>=500) keepevicted=t mvlist=t delim=\",\"",
        ) else {
            panic!()
        };
        assert_eq!(t.fields, vec!["host".to_string(), "user".to_string()]);
        assert_eq!(
            (t.maxspan, t.maxpause, t.maxevents),
            (Some(300), Some(30), 3)
        );
        assert!(t.keepevicted && t.mvlist);
        assert_eq!(t.delim, ",");
        assert!(matches!(
            t.startswith,
            Some(TxnFilter::Search(SearchExpr::Or(_)))
        ));
        assert_eq!(
            t.endswith,
            Some(TxnFilter::Eval(Expr::Binary(
                BinOp::Cmp(CmpOp::Ge),
                Box::new(Expr::Field("status".into())),
                Box::new(Expr::Num(500.0))
            )))
        );
        let Command::Transaction(t) = last("x | transaction startswith=login maxspan=-1") else {
            panic!()
        };
        assert!(matches!(
            t.startswith,
            Some(TxnFilter::Search(SearchExpr::Term(_)))
        ));
        assert_eq!(err("x | transaction maxspan=1mon").1, "1mon");
        assert_eq!(err("x | transaction startswith=\"\"").1, "\"\"");
        assert!(err("x | transaction startswith=\"a)\"")
            .0
            .starts_with("In 'startswith='"));
        assert_eq!(err("x | transaction foo=1").1, "foo");
        assert_eq!(err("x | transaction endswith=eval(a").1, "(");
    }

    #[test]
    fn spath_extract_xmlkv() {
        assert_eq!(
            last("x | spath"),
            Command::Spath {
                input: "_raw".into(),
                output: None,
                path: None
            }
        );
        assert_eq!(
            last("x | spath input=j output=o a.b{0}.c"),
            Command::Spath {
                input: "j".into(),
                output: Some("o".into()),
                path: Some("a.b{0}.c".into())
            }
        );
        assert_eq!(last("x | spath path=a{}"), last("x | spath a{}"));
        assert_eq!(err("x | spath a b").1, "b");
        assert_eq!(err("x | spath foo=1").1, "foo");
        assert_eq!(
            last("x | kv pairdelim=\"|\" kvdelim=\":\""),
            Command::Extract {
                pairdelim: Some("|".into()),
                kvdelim: Some(":".into())
            }
        );
        assert_eq!(last("x | extract"), last("x | kv"));
        assert_eq!(err("x | extract myrule").1, "myrule");
        assert_eq!(last("x | xmlkv"), Command::XmlKv);
        assert_eq!(err("x | xmlkv a").1, "a");
    }

    #[test]
    fn streamstats_time_window() {
        let Command::StreamStats(s) = last("x | streamstats time_window=5m count") else {
            panic!()
        };
        assert_eq!(
            s.time_window,
            Some(TimeSpan {
                count: 5,
                unit: TimeUnit::Minute
            })
        );
        assert_eq!(err("x | streamstats time_window=5 count").1, "5");
    }
}
