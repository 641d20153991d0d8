//! Transforming commands: `stats`, `timechart`, `top`/`rare`, and the aggregation syntax
//! (`count`, `avg(x) as y`, …) and time spans (`5m`) they share.

use super::{parse_bool, parse_u64, unknown_option, Opt, Parser, Result};
use crate::ast::{Agg, Command, Span, Stats, TimeSpan, TimeUnit, Timechart, Top};
use crate::error::{span, ParseError};
use crate::lexer::{Mode, Tok};

const M: Mode = Mode::Args;

/// The aggregation functions accepted, with the name each is stored under (percentiles, such
/// as `perc95` or `p99.9`, are recognised by [`is_percentile`]).
const AGGS: &[(&str, &str)] = &[
    ("count", "count"),
    ("c", "count"),
    ("dc", "dc"),
    ("distinct_count", "distinct_count"),
    ("avg", "avg"),
    ("mean", "mean"),
    ("sum", "sum"),
    ("min", "min"),
    ("max", "max"),
    ("values", "values"),
    ("earliest", "earliest"),
    ("latest", "latest"),
    ("estdc", "estdc"),
    ("earliest_time", "earliest_time"),
    ("latest_time", "latest_time"),
    ("median", "median"),
    ("mode", "mode"),
    ("stdev", "stdev"),
    ("stdevp", "stdevp"),
    ("var", "var"),
    ("varp", "varp"),
    ("range", "range"),
    ("sumsq", "sumsq"),
    ("list", "list"),
    ("first", "first"),
    ("last", "last"),
    ("rate", "rate"),
    ("per_second", "per_second"),
    ("per_minute", "per_minute"),
    ("per_hour", "per_hour"),
    ("per_day", "per_day"),
];

/// Whether `name` (lowercase) is a percentile function: `perc`, `p`, `percentile`, `exactperc`
/// or `upperperc` followed by a number from 0 to 100 (`perc95`, `p99.9`).
fn is_percentile(name: &str) -> bool {
    let Some(x) = ["exactperc", "upperperc", "percentile", "perc", "p"]
        .iter()
        .find_map(|p| name.strip_prefix(p))
    else {
        return false;
    };
    let digits_ok = !x.is_empty()
        && !x.starts_with('.')
        && !x.ends_with('.')
        && x.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && x.bytes().filter(|&b| b == b'.').count() <= 1;
    digits_ok && x.parse::<f64>().is_ok_and(|v| (0.0..=100.0).contains(&v))
}

impl Parser<'_> {
    /// `stats [dedup_splitvals=t] <agg>… [by f1, f2]`.
    pub(super) fn stats_cmd(&mut self, at: Span) -> Result<Command> {
        let mut aggs = Vec::new();
        let mut by = Vec::new();
        let mut dedup_splitvals = false;
        loop {
            if aggs.is_empty() {
                if let Some(o) = self.option()? {
                    match o.key.as_str() {
                        "dedup_splitvals" => dedup_splitvals = parse_bool(&o)?,
                        _ => return Err(unknown_option(&o, "stats")),
                    }
                    continue;
                }
            }
            let t = self.peek(M)?;
            match t.kind {
                Tok::Pipe | Tok::Eof => break,
                Tok::Comma if !aggs.is_empty() => self.pos = t.span.end,
                Tok::Word if self.is_word(&t, "by") => {
                    need_aggs(&aggs, t.span, "stats")?;
                    self.pos = t.span.end;
                    by = self.by_fields(t.span)?;
                    self.expect_end(M)?;
                    break;
                }
                _ => aggs.push(self.agg()?),
            }
        }
        need_aggs(&aggs, at, "stats")?;
        Ok(Command::Stats(Stats {
            aggs,
            by,
            dedup_splitvals,
        }))
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
            cont: true,
        };
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "span" => tc.span = Some(parse_span(&o.value, o.value_span)?),
                    "bins" => tc.bins = parse_u32(&o)?,
                    "limit" => tc.limit = parse_u32(&o)?,
                    "useother" => tc.useother = parse_bool(&o)?,
                    "usenull" => tc.usenull = parse_bool(&o)?,
                    "cont" => tc.cont = parse_bool(&o)?,
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
            useother: false,
            otherstr: "OTHER".to_string(),
        };
        loop {
            if let Some(o) = self.option()? {
                match o.key.as_str() {
                    "limit" => top.limit = parse_u64(&o.value, o.value_span, "limit")?,
                    "countfield" => top.countfield = o.value,
                    "percentfield" => top.percentfield = o.value,
                    "showcount" => top.showcount = parse_bool(&o)?,
                    "showperc" => top.showperc = parse_bool(&o)?,
                    "useother" => top.useother = parse_bool(&o)?,
                    "otherstr" => top.otherstr = o.value,
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
    pub(super) fn agg(&mut self) -> Result<Agg> {
        let t = self.bump(M)?;
        if t.kind != Tok::Word {
            return Err(ParseError::new(
                "Expected an aggregation such as count or avg(field).",
                t.span,
            ));
        }
        let written = self.text(&t);
        let lower = written.to_ascii_lowercase();
        let func = match AGGS.iter().find(|(n, _)| *n == lower) {
            Some(&(_, f)) => f,
            None if is_percentile(&lower) => lower.as_str(),
            None => {
                return Err(ParseError::new(
                    format!("Unknown aggregation function '{written}'."),
                    t.span,
                ))
            }
        };
        let mut field = None;
        let mut eval = None;
        let open = self.peek(M)?;
        if open.kind == Tok::LParen {
            self.pos = open.span.end;
            let (e, paren) = self.peek2(M)?;
            if self.is_word(&e, "eval") && paren.kind == Tok::LParen {
                // `eval(<expr>)`: the parenthesized expression.
                self.pos = e.span.end;
                eval = Some(self.expr()?);
            } else {
                field = Some(self.name("a field name")?.0);
            }
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
        if eval.is_some() && alias.is_none() {
            return Err(ParseError::new(
                format!(
                    "You must specify a rename for the aggregation specifier on the dynamically evaluated field '{}'.",
                    &self.src[t.span.start..self.pos]
                ),
                span(t.span.start, self.pos),
            ));
        }
        Ok(Agg {
            func: func.to_string(),
            field,
            alias,
            eval,
        })
    }
}

/// Errors unless at least one aggregation was given.
pub(super) fn need_aggs(aggs: &[Agg], at: Span, cmd: &str) -> Result<()> {
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

#[cfg(test)]
mod tests {
    use super::super::tests::{err, last};
    use crate::ast::{Agg, Command, Stats, TimeSpan, TimeUnit, Timechart, Top};

    fn agg(func: &str, field: Option<&str>, alias: Option<&str>) -> Agg {
        Agg {
            func: func.into(),
            field: field.map(Into::into),
            alias: alias.map(Into::into),
            eval: None,
        }
    }

    #[test]
    fn stats_aggregations_aliases_and_by() {
        assert_eq!(
            last("x | stats count, c, count(a) AS n dc(b) distinct_count(b) mean(d) AVG(d) as \"m m\" by host, source"),
            Command::Stats(Stats {
                aggs: vec![
                    agg("count", None, None),
                    agg("count", None, None),
                    agg("count", Some("a"), Some("n")),
                    agg("dc", Some("b"), None),
                    agg("distinct_count", Some("b"), None),
                    agg("mean", Some("d"), None),
                    agg("avg", Some("d"), Some("m m")),
                ],
                by: vec!["host".into(), "source".into()],
                dedup_splitvals: false,
            })
        );
        assert_eq!(
            last("x | stats sum(a) min(a) max(a) values(a) earliest(a) latest(a) by h s"),
            Command::Stats(Stats {
                aggs: ["sum", "min", "max", "values", "earliest", "latest"]
                    .map(|f| agg(f, Some("a"), None))
                    .to_vec(),
                by: vec!["h".into(), "s".into()],
                dedup_splitvals: false,
            })
        );
    }

    #[test]
    fn stats_statistical_and_percentile_functions() {
        let names = [
            "estdc",
            "earliest_time",
            "latest_time",
            "median",
            "mode",
            "stdev",
            "stdevp",
            "var",
            "varp",
            "range",
            "sumsq",
            "list",
            "first",
            "last",
            "rate",
            "perc95",
            "p99.9",
            "exactperc50",
            "upperperc75",
            "percentile10",
        ];
        let q = format!(
            "x | stats {} by h",
            names.map(|n| format!("{n}(a)")).join(" ")
        );
        assert_eq!(
            last(&q),
            Command::Stats(Stats {
                aggs: names.map(|f| agg(f, Some("a"), None)).to_vec(),
                by: vec!["h".into()],
                dedup_splitvals: false,
            })
        );
        assert_eq!(
            last("x | stats P95(a) AS p"),
            Command::Stats(Stats {
                aggs: vec![agg("p95", Some("a"), Some("p"))],
                by: vec![],
                dedup_splitvals: false,
            })
        );
        let p = crate::parse("x | stats p99.9(a) median(b)").unwrap();
        assert_eq!(crate::parse(&crate::print(&p)).unwrap(), p);
    }

    #[test]
    fn stats_errors() {
        assert_eq!(
            err("x | stats medianx(x)"),
            ("Unknown aggregation function 'medianx'.".into(), "medianx")
        );
        assert_eq!(err("x | stats p101(x)").1, "p101");
        assert_eq!(err("x | stats perc(x)").1, "perc");
        assert_eq!(
            err("x | stats avg"),
            ("'avg' needs a field, as in avg(field).".into(), "avg")
        );
        assert_eq!(err("x | stats by a").1, "by");
        assert_eq!(
            err("x | stats count by"),
            ("Expected field names after 'by'.".into(), "by")
        );
        assert_eq!(
            err("x | stats count(a"),
            ("Expected ')' after the field of 'count'.".into(), "")
        );
        assert_eq!(
            err("x | stats"),
            (
                "'stats' needs at least one aggregation, such as count.".into(),
                "stats"
            )
        );
    }

    #[test]
    fn timechart_defaults_and_options_on_either_side() {
        let base = Timechart {
            span: None,
            bins: 100,
            aggs: vec![agg("count", None, None)],
            by: None,
            limit: 10,
            useother: true,
            usenull: true,
            cont: true,
        };
        assert_eq!(
            last("x | timechart count"),
            Command::Timechart(base.clone())
        );
        let want = Timechart {
            span: Some(TimeSpan {
                count: 5,
                unit: TimeUnit::Minute,
            }),
            bins: 50,
            by: Some("host".into()),
            limit: 3,
            useother: false,
            usenull: false,
            ..base
        };
        assert_eq!(
            last("x | timechart span=5m bins=50 count by host limit=3 useother=f usenull=false"),
            Command::Timechart(want.clone())
        );
        assert_eq!(
            last("x | timechart limit=3 useother=F usenull=0 bins=50 span=5min count by host"),
            Command::Timechart(want)
        );
    }

    #[test]
    fn span_units() {
        let cases = [
            ("30s", 30, TimeUnit::Second),
            ("1sec", 1, TimeUnit::Second),
            ("2min", 2, TimeUnit::Minute),
            ("1h", 1, TimeUnit::Hour),
            ("3hr", 3, TimeUnit::Hour),
            ("1d", 1, TimeUnit::Day),
            ("1day", 1, TimeUnit::Day),
            ("2w", 2, TimeUnit::Week),
            ("1week", 1, TimeUnit::Week),
            ("1mon", 1, TimeUnit::Month),
            ("6month", 6, TimeUnit::Month),
            ("1y", 1, TimeUnit::Year),
            ("1year", 1, TimeUnit::Year),
        ];
        for (text, count, unit) in cases {
            let Command::Timechart(t) = last(&format!("x | timechart span={text} count")) else {
                panic!("not a timechart");
            };
            assert_eq!(t.span, Some(TimeSpan { count, unit }), "{text}");
        }
        for bad in ["5", "m", "0m", "5q", "-5m"] {
            let q = format!("x | timechart span={bad} count");
            assert_eq!(err(&q).1, bad, "{bad}");
        }
    }

    #[test]
    fn timechart_errors() {
        assert_eq!(
            err("x | timechart foo=1 count"),
            ("Unknown option 'foo' for 'timechart'.".into(), "foo")
        );
        assert_eq!(err("x | timechart count by a b").1, "b");
        assert_eq!(err("x | timechart count avg(x) by a").1, "timechart");
        assert_eq!(err("x | timechart useother=maybe count").1, "maybe");
        assert_eq!(err("x | timechart bins=99999999999 count").1, "99999999999");
    }

    #[test]
    fn top_and_rare() {
        let base = Top {
            rare: false,
            fields: vec!["a".into()],
            by: vec![],
            limit: 10,
            countfield: "count".into(),
            percentfield: "percent".into(),
            showcount: true,
            showperc: true,
            useother: false,
            otherstr: "OTHER".into(),
        };
        assert_eq!(last("x | top a"), Command::Top(base.clone()));
        assert_eq!(
            last("x | top useother=t otherstr=rest a"),
            Command::Top(Top {
                useother: true,
                otherstr: "rest".into(),
                ..base.clone()
            })
        );
        assert_eq!(
            last("x | rare limit=0 countfield=n percentfield=\"p c\" showcount=f showperc=false a, b by c d"),
            Command::Top(Top {
                rare: true,
                fields: vec!["a".into(), "b".into()],
                by: vec!["c".into(), "d".into()],
                limit: 0,
                countfield: "n".into(),
                percentfield: "p c".into(),
                showcount: false,
                showperc: false,
                ..base.clone()
            })
        );
        assert_eq!(
            err("x | top"),
            ("'top' needs at least one field name.".into(), "top")
        );
        assert_eq!(
            err("x | top usenull=t a"),
            ("Unknown option 'usenull' for 'top'.".into(), "usenull")
        );
        assert_eq!(
            err("x | top a by b c ("),
            ("Expected a field name.".into(), "(")
        );
    }
}
