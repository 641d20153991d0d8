//! `convert [timeformat=f] fn(field) [AS name]…`: converts field values in place (or into
//! `name`). Fields may be wildcards (`AS` then uses the same `*`s); `none(f)` exempts the
//! matching fields from the wildcard conversions of the same command. Each value of a
//! multivalue is converted on its own; values that do not convert are kept (removed by `num`).
//!
//! | fn | converts |
//! |---|---|
//! | `ctime` | epoch seconds → text in `timeformat` (default `%m/%d/%Y %H:%M:%S`), user's zone |
//! | `mktime` | text in `timeformat` → epoch seconds |
//! | `dur2sec` | `[D+]HH:MM:SS` → seconds |
//! | `mstime` | `[MM:]SS.SSS` → seconds |
//! | `memk` | `12`, `12k`, `3.5m`, `1g` → kilobytes |
//! | `rmcomma` | `1,234.5` → 1234.5 |
//! | `rmunit` | `42kb` → 42 (the leading number) |
//! | `auto` | a number, or one after removing commas; else unchanged |
//! | `num` | like `auto`, but values that do not convert are removed |

use super::glob::Glob;
use super::{ExecContext, Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::{parse_num, Value};
use lode_spl::ast::Conversion;
use lode_time::strptime::{strftime, TimeFormat};

/// One compiled conversion.
struct Conv {
    func: String,
    field: Glob,
    alias: Option<Glob>,
}

/// Converts fields.
pub struct ConvertOp {
    ctx: ExecContext,
    timeformat: String,
    parser: TimeFormat,
    convs: Vec<Conv>,
    /// `none(...)` patterns.
    exempt: Vec<Glob>,
}

impl ConvertOp {
    /// Checks the time format.
    pub fn new(
        timeformat: &str,
        items: &[Conversion],
        ctx: ExecContext,
    ) -> Result<ConvertOp, SearchError> {
        let parser = TimeFormat::new(timeformat).map_err(|e| {
            SearchError::User(format!("convert timeformat '{timeformat}' is invalid: {e}"))
        })?;
        let mut convs = Vec::new();
        let mut exempt = Vec::new();
        for c in items {
            if c.func == "none" {
                exempt.push(Glob::new(&c.field));
                continue;
            }
            convs.push(Conv {
                func: c.func.clone(),
                field: Glob::new(&c.field),
                alias: c.alias.as_deref().map(Glob::new),
            });
        }
        Ok(ConvertOp {
            ctx,
            timeformat: timeformat.to_string(),
            parser,
            convs,
            exempt,
        })
    }

    /// One value converted (`None`: does not convert).
    fn one(&self, func: &str, v: &Value) -> Option<Value> {
        let text = v.as_str();
        let num = |x: f64| Some(Value::Num(x));
        match func {
            "ctime" => {
                let secs = v.to_num()?;
                if !secs.is_finite() || secs.abs() > 1e14 {
                    return None;
                }
                let micros = (secs * 1e6).round() as i64;
                Some(Value::Str(strftime(micros, &self.timeformat, self.ctx.tz)))
            }
            "mktime" => {
                let (t, used) = self
                    .parser
                    .parse_prefix(text.trim(), self.ctx.tz, self.ctx.now)?;
                (used == text.trim().len()).then(|| Value::Num(t as f64 / 1e6))
            }
            "dur2sec" => dur2sec(&text).and_then(num),
            "mstime" => {
                let t = text.trim();
                match t.split_once(':') {
                    Some((m, s)) => num(parse_num(m)? * 60.0 + parse_num(s)?),
                    None => parse_num(t).and_then(num),
                }
            }
            "memk" => memk(&text).and_then(num),
            "rmcomma" => parse_num(&text.replace(',', "")).and_then(num),
            "rmunit" => rmunit(&text).and_then(num),
            _ => match v {
                Value::Num(_) => Some(v.clone()),
                _ => parse_num(&text)
                    .or_else(|| parse_num(&text.replace(',', "")))
                    .and_then(num),
            },
        }
    }

    fn convert(&self, func: &str, v: &Value) -> Option<Value> {
        match v {
            Value::Multi(vals) => {
                let out: Vec<Value> = vals
                    .iter()
                    .filter_map(|x| match self.one(func, x) {
                        Some(y) => Some(y),
                        None if func == "num" => None,
                        None => Some(x.clone()),
                    })
                    .collect();
                Some(Value::from_values(out))
            }
            v => match self.one(func, v) {
                Some(y) => Some(y),
                None if func == "num" => Some(Value::Null),
                None => None,
            },
        }
    }
}

/// `[D+]HH:MM:SS` (also `MM:SS`, `SS`) in seconds.
fn dur2sec(s: &str) -> Option<f64> {
    let s = s.trim();
    let (days, rest) = match s.split_once('+') {
        Some((d, r)) => (parse_num(d)?, r),
        None => (0.0, s),
    };
    let mut secs = 0.0;
    for part in rest.split(':') {
        secs = secs * 60.0 + parse_num(part)?;
    }
    Some(days * 86_400.0 + secs)
}

/// A size with an optional `k`/`m`/`g` suffix, in kilobytes.
fn memk(s: &str) -> Option<f64> {
    let s = s.trim();
    let (n, mult) = match s.chars().last()?.to_ascii_lowercase() {
        'k' => (&s[..s.len() - 1], 1.0),
        'm' => (&s[..s.len() - 1], 1024.0),
        'g' => (&s[..s.len() - 1], 1024.0 * 1024.0),
        _ => (s, 1.0),
    };
    Some(parse_num(n)? * mult)
}

/// The leading number of `s`.
fn rmunit(s: &str) -> Option<f64> {
    let s = s.trim();
    let mut best = None;
    for (i, _) in s.char_indices().skip(1).chain([(s.len(), ' ')]) {
        if let Some(n) = parse_num(&s[..i]) {
            best = Some(n);
        }
    }
    best
}

impl Op for ConvertOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            for c in &self.convs {
                let targets: Vec<(String, String)> = if c.field.is_wild() {
                    r.extract_all();
                    r.fields()
                        .map(|(n, _)| n)
                        .filter(|n| !self.exempt.iter().any(|g| g.is_match(n)))
                        .filter_map(|n| {
                            let caps = c.field.captures(n)?;
                            let to = c.alias.as_ref().map_or(n.to_string(), |a| a.fill(&caps));
                            Some((n.to_string(), to))
                        })
                        .collect()
                } else {
                    let n = c.field.text().to_string();
                    let to = c.alias.as_ref().map_or(n.clone(), |a| a.text().to_string());
                    vec![(n, to)]
                };
                for (from, to) in targets {
                    let new = match r.get(&from) {
                        Some(v) => self.convert(&c.func, v),
                        None => None,
                    };
                    if let Some(v) = new {
                        r.set(&to, v);
                    }
                }
            }
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{ctx, rows_of, strs};

    fn conv(func: &str, field: &str, alias: Option<&str>) -> Conversion {
        Conversion {
            func: func.into(),
            field: field.into(),
            alias: alias.map(str::to_string),
        }
    }

    fn run(fmt: &str, items: &[Conversion], cols: &[&str], data: &[&[&str]]) -> Vec<Row> {
        let mut op = ConvertOp::new(fmt, items, ctx()).unwrap();
        let mut out = Vec::new();
        op.push(rows_of(cols, data), &mut out).unwrap();
        out
    }

    #[test]
    fn time_conversions() {
        let d = "%m/%d/%Y %H:%M:%S";
        let out = run(
            d,
            &[conv("ctime", "t", Some("s"))],
            &["t"],
            &[&["1700000000"], &["x"]],
        );
        assert_eq!(strs(&out, "s"), vec!["11/14/2023 22:13:20", ""]);
        let out = run(
            d,
            &[conv("mktime", "t", None)],
            &["t"],
            &[&["11/14/2023 22:13:20"], &["no"]],
        );
        assert_eq!(strs(&out, "t"), vec!["1700000000", "no"]);
        let out = run(
            "%H:%M",
            &[conv("ctime", "t", None)],
            &["t"],
            &[&["1700000000"]],
        );
        assert_eq!(strs(&out, "t"), vec!["22:13"]);
    }

    #[test]
    fn number_conversions() {
        let d = "%m/%d/%Y %H:%M:%S";
        let cols = ["a", "b", "c", "d", "e"];
        let out = run(
            d,
            &[
                conv("dur2sec", "a", None),
                conv("memk", "b", None),
                conv("rmunit", "c", None),
                conv("rmcomma", "d", None),
                conv("num", "e", None),
            ],
            &cols,
            &[
                &["1+01:02:03", "2m", "42kb", "1,234.5", "x"],
                &["05:00", "7", "-3.5 s", "2", "8"],
            ],
        );
        assert_eq!(strs(&out, "a"), vec!["90123", "300"]);
        assert_eq!(strs(&out, "b"), vec!["2048", "7"]);
        assert_eq!(strs(&out, "c"), vec!["42", "-3.5"]);
        assert_eq!(strs(&out, "d"), vec!["1234.5", "2"]);
        assert_eq!(strs(&out, "e"), vec!["", "8"]);
        let out = run(
            d,
            &[conv("auto", "*", Some("n_*")), conv("none", "b", None)],
            &["a", "b"],
            &[&["1,000", "5"], &["x", "6"]],
        );
        assert_eq!(strs(&out, "n_a"), vec!["1000", ""]);
        assert_eq!(strs(&out, "n_b"), vec!["", ""]);
    }
}
