//! Transforming commands: `stats`, `timechart`, `top`/`rare`, and the aggregation syntax
//! (`count`, `avg(x) as y`, …) and time spans (`5m`) they share.

use super::{parse_bool, parse_u64, unknown_option, Opt, Parser, Result};
use crate::ast::{Agg, Command, Span, Stats, TimeSpan, TimeUnit, Timechart, Top};
use crate::error::ParseError;
use crate::lexer::{Mode, Tok};

const M: Mode = Mode::Args;

/// The aggregation functions accepted, with the name each is stored under.
const AGGS: &[(&str, &str)] = &[
    ("count", "count"),
    ("c", "count"),
    ("dc", "dc"),
    ("distinct_count", "dc"),
    ("avg", "avg"),
    ("mean", "avg"),
    ("sum", "sum"),
    ("min", "min"),
    ("max", "max"),
    ("values", "values"),
    ("earliest", "earliest"),
    ("latest", "latest"),
];

impl Parser<'_> {
    /// `stats <agg>… [by f1, f2]`.
    pub(super) fn stats_cmd(&mut self, at: Span) -> Result<Command> {
        let mut aggs = Vec::new();
        let mut by = Vec::new();
        loop {
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !aggs.is_empty() => self.pos = t.span.end,
                Tok::Word if self.is_word(&t, "by") => {
                    self.pos = t.span.end;
                    by = self.by_fields(t.span)?;
                    self.expect_end(M)?;
                    break;
                }
                _ => aggs.push(self.agg()?),
            }
        }
        need_aggs(&aggs, at, "stats")?;
        Ok(Command::Stats(Stats { aggs, by }))
    }

    /// `timechart [options] <agg>… [by f] [options]`.
    pub(super) fn timechart_cmd(&mut self, at: Span) -> Result<Command> {
        let mut tc = Timechart {
            span: None,
            bins: 100,
            aggs: Vec::new(),
            by: None,
            limit: 10,
            useother: true,
            usenull: true,
        };
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "span" => tc.span = Some(parse_span(&o.value, o.value_span)?),
                    "bins" => tc.bins = parse_u32(&o)?,
                    "limit" => tc.limit = parse_u32(&o)?,
                    "useother" => tc.useother = parse_bool(&o)?,
                    "usenull" => tc.usenull = parse_bool(&o)?,
                    _ => return Err(unknown_option(&o, "timechart")),
                }
                continue;
            }
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !tc.aggs.is_empty() && tc.by.is_none() => self.pos = t.span.end,
                Tok::Word if self.is_word(&t, "by") && tc.by.is_none() => {
                    self.pos = t.span.end;
                    let (field, _) = self.name("a field name after 'by'")?;
                    tc.by = Some(field);
                }
                _ if tc.by.is_some() => {
                    return Err(ParseError::new(
                        "timechart splits by one field only; options may follow it.",
                        t.span,
                    ))
                }
                _ => tc.aggs.push(self.agg()?),
            }
        }
        need_aggs(&tc.aggs, at, "timechart")?;
        if tc.by.is_some() && tc.aggs.len() > 1 {
            return Err(ParseError::new(
                "timechart with 'by' takes a single aggregation.",
                at,
            ));
        }
        Ok(Command::Timechart(tc))
    }

    /// `top|rare [options] f1 [f2…] [by g…]`.
    pub(super) fn top_cmd(&mut self, at: Span, rare: bool) -> Result<Command> {
        let cmd = if rare { "rare" } else { "top" };
        let mut top = Top {
            rare,
            fields: Vec::new(),
            by: Vec::new(),
            limit: 10,
            countfield: "count".to_string(),
            percentfield: "percent".to_string(),
            showcount: true,
            showperc: true,
        };
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "limit" => top.limit = parse_u64(&o.value, o.value_span, "limit")?,
                    "countfield" => top.countfield = o.value,
                    "percentfield" => top.percentfield = o.value,
                    "showcount" => top.showcount = parse_bool(&o)?,
                    "showperc" => top.showperc = parse_bool(&o)?,
                    _ => return Err(unknown_option(&o, cmd)),
                }
                continue;
            }
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Word if self.is_word(&t, "by") && top.by.is_empty() => {
                    self.pos = t.span.end;
                    top.by = self.by_fields(t.span)?;
                }
                _ if !top.by.is_empty() => return Err(self.unexpected(&t)),
                _ => top.fields.extend(self.field_list(true)?),
            }
        }
        if top.fields.is_empty() {
            return Err(ParseError::new(
                format!("'{cmd}' needs at least one field name."),
                at,
            ));
        }
        Ok(Command::Top(top))
    }

    /// The non-empty field list after `by` (at `by_span`).
    fn by_fields(&mut self, by_span: Span) -> Result<Vec<String>> {
        let by = self.field_list(false)?;
        if by.is_empty() {
            return Err(ParseError::new("Expected field names after 'by'.", by_span));
        }
        Ok(by)
    }

    /// One aggregation: `name[(field)] [as alias]`.
    fn agg(&mut self) -> Result<Agg> {
        let t = self.bump(M)?;
        if t.kind != Tok::Word {
            return Err(ParseError::new(
                "Expected an aggregation such as count or avg(field).",
                t.span,
            ));
        }
        let written = self.text(&t);
        let lower = written.to_ascii_lowercase();
        let Some(&(_, func)) = AGGS.iter().find(|(n, _)| *n == lower) else {
            return Err(ParseError::new(
                format!("Unknown aggregation function '{written}'."),
                t.span,
            ));
        };
        let mut field = None;
        let open = self.peek(M)?;
        if open.kind == Tok::LParen {
            self.pos = open.span.end;
            field = Some(self.name("a field name")?.0);
            let close = self.bump(M)?;
            if close.kind != Tok::RParen {
                return Err(ParseError::new(
                    format!("Expected ')' after the field of '{written}'."),
                    close.span,
                ));
            }
        } else if func != "count" {
            return Err(ParseError::new(
                format!("'{written}' needs a field, as in {lower}(field)."),
                t.span,
            ));
        }
        let mut alias = None;
        let next = self.peek(M)?;
        if self.is_word(&next, "as") {
            self.pos = next.span.end;
            alias = Some(self.name("a name after 'as'")?.0);
        }
        Ok(Agg {
            func: func.to_string(),
            field,
            alias,
        })
    }
}

/// Errors unless at least one aggregation was given.
fn need_aggs(aggs: &[Agg], at: Span, cmd: &str) -> Result<()> {
    if aggs.is_empty() {
        return Err(ParseError::new(
            format!("'{cmd}' needs at least one aggregation, such as count."),
            at,
        ));
    }
    Ok(())
}

fn parse_u32(o: &Opt) -> Result<u32> {
    let n = parse_u64(&o.value, o.value_span, &o.key)?;
    u32::try_from(n)
        .map_err(|_| ParseError::new(format!("'{}' is too large.", o.key), o.value_span))
}

/// A span such as `5m`, `1h`, `30sec`, `1mon`: a positive count and a unit.
pub(crate) fn parse_span(value: &str, at: Span) -> Result<TimeSpan> {
    let bad = || {
        ParseError::new(
            format!("Invalid span '{value}'; use a number and a unit such as 5m, 1h or 1d."),
            at,
        )
    };
    let digits = value.bytes().take_while(u8::is_ascii_digit).count();
    let count: u64 = value[..digits].parse().map_err(|_| bad())?;
    if count == 0 {
        return Err(bad());
    }
    let unit = match value[digits..].to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => TimeUnit::Second,
        "m" | "min" | "mins" | "minute" | "minutes" => TimeUnit::Minute,
        "h" | "hr" | "hrs" | "hour" | "hours" => TimeUnit::Hour,
        "d" | "day" | "days" => TimeUnit::Day,
        "w" | "week" | "weeks" => TimeUnit::Week,
        "mon" | "month" | "months" => TimeUnit::Month,
        "y" | "yr" | "yrs" | "year" | "years" => TimeUnit::Year,
        _ => return Err(bad()),
    };
    Ok(TimeSpan { count, unit })
}
