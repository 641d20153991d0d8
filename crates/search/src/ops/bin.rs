//! `bin`/`bucket`: puts the values of a field into buckets.
//!
//! - `_time` (or any field with a time span) gets the bucket start in epoch seconds, aligned in
//!   the user's zone like `timechart` (or to `aligntime=`: epoch seconds, `earliest`, `latest`).
//! - Other numeric fields get the bucket as text `lo-hi`: `span=N` buckets are aligned to 0,
//!   `span=[c]log[b]` buckets are `[c*b^k, c*b^(k+1))`.
//! - Without `span=`, the span is chosen from the data range (widened by `start=`/`end=`): for
//!   `_time` the smallest of timechart's automatic spans giving at most `bins` (default 100)
//!   buckets, otherwise the smallest power of ten; never below `minspan=`. All rows are held
//!   for that (limit `max_sort_rows`); with `span=` the command streams.
//!
//! Values that are not numbers are left as they are; each value of a multivalue is binned.

use super::limits::{exceeded, Limits};
use super::span::{self, Span};
use super::{ExecContext, Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::{format_num, Value};
use lode_event::Micros;
use lode_spl::ast::{Bin, BinSpan};

const SEC: f64 = 1e6;

/// A span ready to apply.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Binner {
    /// Numeric buckets `[k*width, (k+1)*width)`, shown as `lo-hi`.
    Num(f64),
    /// Logarithmic buckets, shown as `lo-hi`.
    Log {
        /// Coefficient.
        coef: f64,
        /// Base.
        base: f64,
    },
    /// Time buckets (values are epoch seconds), shown as the start in epoch seconds.
    Time {
        /// Width.
        span: Span,
        /// Alignment point (fixed spans only), microseconds.
        align: Option<Micros>,
    },
}

impl Binner {
    /// The binner of an explicit `span=` for `field`.
    pub(crate) fn of(
        s: BinSpan,
        field: &str,
        aligntime: Option<&str>,
        ctx: &ExecContext,
    ) -> Result<Binner, SearchError> {
        let time = |span: Span| -> Result<Binner, SearchError> {
            Ok(Binner::Time {
                span,
                align: align(aligntime, ctx)?,
            })
        };
        match s {
            BinSpan::Num(w) if field == "_time" => time(Span::Fixed {
                micros: ((w * SEC).round() as i64).max(1),
                week: false,
            }),
            BinSpan::Num(w) => Ok(Binner::Num(w)),
            BinSpan::Log { coef, base } => Ok(Binner::Log { coef, base }),
            BinSpan::Time(t) => time(Span::from_ast(t)),
        }
    }

    /// The bucket of one value (`None`: not a number, left as it is).
    pub(crate) fn apply(self, v: &Value, ctx: &ExecContext) -> Option<Value> {
        let x = v.to_num()?;
        if !x.is_finite() {
            return None;
        }
        match self {
            Binner::Num(w) => {
                let k = (x / w).floor();
                Some(range(clean(k * w, w), clean((k + 1.0) * w, w)))
            }
            Binner::Log { coef, base } => {
                if x <= 0.0 {
                    return None;
                }
                let mut k = ((x / coef).ln() / base.ln()).floor() as i32;
                if coef * base.powi(k + 1) <= x {
                    k += 1;
                }
                if coef * base.powi(k) > x {
                    k -= 1;
                }
                let lo = coef * base.powi(k);
                Some(range(tidy(lo), tidy(lo * base)))
            }
            Binner::Time { span, align } => {
                let t = (x * SEC).round() as Micros;
                let start = match (span, align) {
                    (Span::Fixed { micros, .. }, Some(a)) => {
                        a + (t - a).div_euclid(micros) * micros
                    }
                    _ => span.start(t, ctx.tz),
                };
                Some(Value::Num(start as f64 / SEC))
            }
        }
    }
}

/// `lo-hi` text of a numeric bucket.
fn range(lo: f64, hi: f64) -> Value {
    let mut s = String::new();
    let _ = format_num(lo, &mut s);
    s.push('-');
    let _ = format_num(hi, &mut s);
    Value::Str(s)
}

/// `v` (a multiple of `w`) without binary noise such as `0.30000000000000004`.
fn clean(v: f64, w: f64) -> f64 {
    if w.fract() == 0.0 {
        return v;
    }
    tidy(v)
}

/// `v` rounded to 12 significant digits.
fn tidy(v: f64) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    format!("{v:.11e}").parse().unwrap_or(v)
}

/// The `aligntime=` point in microseconds.
fn align(aligntime: Option<&str>, ctx: &ExecContext) -> Result<Option<Micros>, SearchError> {
    let Some(a) = aligntime else {
        return Ok(None);
    };
    let t = match a.to_ascii_lowercase().as_str() {
        "earliest" => ctx.earliest,
        "latest" => ctx.latest,
        _ => match a.parse::<f64>() {
            Ok(s) if s.is_finite() => Some((s * SEC).round() as Micros),
            _ => {
                return Err(SearchError::User(format!(
                    "bin aligntime='{a}' is not supported; use epoch seconds, earliest or latest"
                )))
            }
        },
    };
    Ok(t)
}

/// Applies a binner to every value of `field`, writing `to`.
fn bin_row(r: &mut Row, field: &str, to: &str, b: Binner, ctx: &ExecContext) {
    let Some(v) = r.get(field) else { return };
    let out = match v {
        Value::Multi(vals) => Value::Multi(
            vals.iter()
                .map(|x| b.apply(x, ctx).unwrap_or_else(|| x.clone()))
                .collect(),
        ),
        one => match b.apply(one, ctx) {
            Some(x) => x,
            None if field == to => return,
            None => one.clone(),
        },
    };
    r.set(to, out);
}

/// Bins one field.
pub struct BinOp {
    b: Bin,
    ctx: ExecContext,
    limits: Limits,
    /// The output field.
    to: String,
    /// Fixed by `span=`; else chosen at the end.
    binner: Option<Binner>,
    /// Rows held until the span is known.
    rows: Vec<Row>,
}

impl BinOp {
    /// Checks the options.
    pub fn new(b: Bin, ctx: ExecContext, limits: Limits) -> Result<BinOp, SearchError> {
        let binner = match b.span {
            Some(s) => Some(Binner::of(s, &b.field, b.aligntime.as_deref(), &ctx)?),
            None => None,
        };
        Ok(BinOp {
            to: b.alias.clone().unwrap_or_else(|| b.field.clone()),
            b,
            ctx,
            limits,
            binner,
            rows: Vec::new(),
        })
    }

    /// The automatic span for the held rows.
    fn choose(&mut self) -> Result<Option<Binner>, SearchError> {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for r in &mut self.rows {
            if let Some(v) = r.get(&self.b.field) {
                for x in v.iter_values().filter_map(Value::to_num) {
                    if x.is_finite() {
                        lo = lo.min(x);
                        hi = hi.max(x);
                    }
                }
            }
        }
        if let Some(s) = self.b.start {
            lo = lo.min(s);
        }
        if let Some(e) = self.b.end {
            hi = hi.max(e);
        }
        if lo > hi {
            return Ok(None);
        }
        let bins = self.b.bins.unwrap_or(100).max(1) as f64;
        if self.b.field == "_time" {
            let min_micros = match self.b.minspan {
                Some(BinSpan::Time(t)) => approx_micros(Span::from_ast(t)),
                Some(BinSpan::Num(w)) => (w * SEC) as i64,
                _ => 0,
            };
            let at_least = span::AUTO
                .iter()
                .copied()
                .find(|s| approx_micros(*s) >= min_micros)
                .unwrap_or(span::AUTO[span::AUTO.len() - 1]);
            let (l, h) = ((lo * SEC) as Micros, (hi * SEC) as Micros + 1);
            let s = span::choose(l, h, bins as u32, at_least, self.ctx.tz);
            return Ok(Some(Binner::Time {
                span: s,
                align: None,
            }));
        }
        let min = match self.b.minspan {
            Some(BinSpan::Num(w)) => w,
            _ => 0.0,
        };
        let mut w = 10f64.powi(((hi - lo).max(f64::MIN_POSITIVE) / bins).log10().floor() as i32);
        while w < min || ((hi / w).floor() - (lo / w).floor() + 1.0) > bins {
            w *= 10.0;
        }
        Ok(Some(Binner::Num(tidy(w))))
    }
}

/// Rough width of a span in microseconds (months as 30 days), to compare with `minspan`.
fn approx_micros(s: Span) -> i64 {
    match s {
        Span::Fixed { micros, .. } => micros,
        Span::Months(n) => i64::from(n) * 30 * 86_400_000_000,
    }
}

impl Op for BinOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        let Some(b) = self.binner else {
            if self.rows.len() + rows.len() > self.limits.max_sort_rows {
                return Err(exceeded("bin", "max_sort_rows", self.limits.max_sort_rows));
            }
            self.rows.append(&mut rows);
            return Ok(Flow::Continue);
        };
        for mut r in rows {
            bin_row(&mut r, &self.b.field, &self.to, b, &self.ctx);
            out.push(r);
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        if self.binner.is_some() {
            return Ok(());
        }
        let b = self.choose()?;
        for mut r in std::mem::take(&mut self.rows) {
            if let Some(b) = b {
                bin_row(&mut r, &self.b.field, &self.to, b, &self.ctx);
            }
            out.push(r);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{ctx, num_rows, strs};
    use lode_spl::ast::{TimeSpan, TimeUnit};

    fn spec(field: &str, span: Option<BinSpan>) -> Bin {
        Bin {
            field: field.into(),
            alias: None,
            span,
            bins: None,
            minspan: None,
            start: None,
            end: None,
            aligntime: None,
        }
    }

    fn run(b: Bin, rows: Vec<Row>) -> Vec<Row> {
        let mut op = BinOp::new(b, ctx(), Limits::default()).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        op.finish(&mut out).unwrap();
        out
    }

    #[test]
    fn numeric_spans() {
        let rows = num_rows("v", &[Some(0.0), Some(99.0), Some(100.0), Some(-1.0), None]);
        let out = run(spec("v", Some(BinSpan::Num(100.0))), rows);
        assert_eq!(
            strs(&out, "v"),
            vec!["0-100", "0-100", "100-200", "-100-0", ""]
        );
        let out = run(
            spec("v", Some(BinSpan::Num(0.1))),
            num_rows("v", &[Some(0.35)]),
        );
        assert_eq!(strs(&out, "v"), vec!["0.3-0.4"]);
    }

    #[test]
    fn log_spans() {
        let rows = num_rows(
            "v",
            &[Some(1.0), Some(9.99), Some(10.0), Some(1000.0), Some(0.5)],
        );
        let out = run(
            spec(
                "v",
                Some(BinSpan::Log {
                    coef: 1.0,
                    base: 10.0,
                }),
            ),
            rows,
        );
        assert_eq!(
            strs(&out, "v"),
            vec!["1-10", "1-10", "10-100", "1000-10000", "0.1-1"]
        );
        let out = run(
            spec(
                "v",
                Some(BinSpan::Log {
                    coef: 2.0,
                    base: 2.0,
                }),
            ),
            num_rows("v", &[Some(5.0), Some(-3.0)]),
        );
        assert_eq!(strs(&out, "v"), vec!["4-8", "-3"]);
    }

    #[test]
    fn time_spans_and_alignment() {
        let t = 1_700_000_000.0; // 22:13:20 UTC
        let mut b = spec(
            "_time",
            Some(BinSpan::Time(TimeSpan {
                count: 1,
                unit: TimeUnit::Hour,
            })),
        );
        let out = run(b.clone(), num_rows("_time", &[Some(t)]));
        assert_eq!(strs(&out, "_time"), vec!["1699999200"]);
        b.aligntime = Some("1699999230".into());
        b.alias = Some("h".into());
        let out = run(b, num_rows("_time", &[Some(t)]));
        assert_eq!(strs(&out, "h"), vec!["1699999230"]);
        assert_eq!(strs(&out, "_time"), vec!["1700000000"]);
    }

    #[test]
    fn automatic_spans() {
        let mut b = spec("v", None);
        b.bins = Some(10);
        let out = run(b.clone(), num_rows("v", &[Some(5.0), Some(2048.0)]));
        assert_eq!(strs(&out, "v"), vec!["0-1000", "2000-3000"]);
        b.minspan = Some(BinSpan::Num(5000.0));
        let out = run(b, num_rows("v", &[Some(5.0), Some(2048.0)]));
        assert_eq!(strs(&out, "v"), vec!["0-10000", "0-10000"]);
        let out = run(spec("v", None), num_rows("v", &[Some(3.0), Some(47.0)]));
        assert_eq!(strs(&out, "v"), vec!["3-4", "47-48"]);
        let mut b = spec("_time", None);
        b.bins = Some(4);
        let out = run(
            b,
            num_rows("_time", &[Some(1_700_000_000.0), Some(1_700_003_000.0)]),
        );
        assert_eq!(strs(&out, "_time"), vec!["1699999200", "1700002800"]);
        // Nothing numeric: rows pass unchanged.
        let out = run(spec("v", None), num_rows("v", &[None]));
        assert_eq!(out.len(), 1);
    }
}
