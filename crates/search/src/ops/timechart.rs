//! `timechart [span=…] <agg>… [by f]`: aggregates per time bucket (and series), one output row
//! per bucket from the start of the searched range to its end (empty buckets show 0 for
//! count/dc/sum, null otherwise), `_time` = bucket start in epoch seconds.
//!
//! Without `span=`, rows are aggregated at a fine granularity that coarsens whenever too many
//! cells are held (states merge exactly, see [`span::AUTO`]); at the end the span is chosen from
//! the time range and `bins`. With `by`, the `limit` series with the largest totals are kept
//! (columns in lexicographic order, then `NULL`, then `OTHER`); the rest are merged into `OTHER`
//! when `useother`, and rows with a null split field form `NULL` when `usenull`.

use super::limits::{exceeded, Limits};
use super::span::{self, Span};
use super::stats::group_keys;
use super::{ExecContext, Flow, Op};
use crate::agg::{AggSpec, AggState};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use lode_event::Micros;
use lode_spl::ast::Timechart;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Cells held before an automatic span coarsens (keeps memory small on long ranges).
const COARSEN_AT: usize = 50_000;

/// Aggregates rows per time bucket and series.
pub struct TimechartOp {
    tc: Timechart,
    aggs: Vec<AggSpec>,
    ctx: ExecContext,
    limits: Limits,
    /// Current bucket width.
    span: Span,
    /// Whether `span=` fixed it.
    fixed: bool,
    /// (bucket start µs, series) → states.
    cells: HashMap<(Micros, String), Vec<AggState>>,
    /// Series keys of the current row (reused).
    keys: Vec<Vec<String>>,
    /// Per aggregation: `per_second`/`per_minute`/`per_hour`/`per_day` (a `sum` scaled to the
    /// unit, in seconds, over each bucket's length), else `None`.
    per: Vec<Option<f64>>,
}

/// The unit in seconds of a `per_*` timechart function.
fn per_unit(func: &str) -> Option<f64> {
    match func {
        "per_second" => Some(1.0),
        "per_minute" => Some(60.0),
        "per_hour" => Some(3600.0),
        "per_day" => Some(86400.0),
        _ => None,
    }
}

impl TimechartOp {
    /// Compiles the aggregations.
    pub fn new(
        tc: Timechart,
        ctx: ExecContext,
        limits: Limits,
    ) -> Result<TimechartOp, SearchError> {
        if tc.aggs.is_empty() {
            return Err(SearchError::User(
                "timechart needs at least one aggregation".into(),
            ));
        }
        let per: Vec<Option<f64>> = tc.aggs.iter().map(|a| per_unit(&a.func)).collect();
        let aggs = tc
            .aggs
            .iter()
            .map(|a| match per_unit(&a.func) {
                // `per_second(x)`: a sum, scaled when the buckets are written.
                Some(_) => AggSpec::new(&lode_spl::ast::Agg {
                    func: "sum".into(),
                    ..a.clone()
                })
                .map(|s| AggSpec {
                    column: a.column(),
                    ..s
                }),
                None => AggSpec::new(a),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let (span, fixed) = (TimechartOp::initial_span(&tc), tc.span.is_some());
        Ok(TimechartOp {
            tc,
            aggs,
            ctx,
            limits,
            span,
            fixed,
            cells: HashMap::new(),
            keys: Vec::new(),
            per,
        })
    }

    /// Re-buckets every cell to `to` (a multiple of the current span), merging states.
    fn rebucket(&mut self, to: Span) {
        let tz = self.ctx.tz;
        let old = std::mem::take(&mut self.cells);
        for ((t, s), states) in old {
            merge_into(&mut self.cells, (to.start(t, tz), s), states);
        }
        self.span = to;
    }

    /// The searched range: the context's bounds, else what the data covers.
    fn range(&self) -> Option<(Micros, Micros)> {
        let lo = self
            .ctx
            .earliest
            .filter(|&e| e > 0)
            .or_else(|| self.cells.keys().map(|k| k.0).min())?;
        let data_hi = self
            .cells
            .keys()
            .map(|k| self.span.next(k.0, self.ctx.tz))
            .max();
        // A range open at the end runs to now (Splunk's default `latest`).
        let open_end = self
            .ctx
            .earliest
            .filter(|&e| e > 0)
            .map(|_| data_hi.unwrap_or(0).max(self.ctx.now));
        let hi = self.ctx.latest.or(open_end).or(data_hi)?;
        Some((lo, hi.max(lo + 1)))
    }
}

impl TimechartOp {
    /// An empty state with the same options (a worker's next partial).
    pub(super) fn empty_like(&self) -> TimechartOp {
        TimechartOp {
            tc: self.tc.clone(),
            aggs: self.aggs.clone(),
            ctx: self.ctx,
            limits: self.limits,
            span: self.span,
            fixed: self.fixed,
            cells: HashMap::new(),
            keys: Vec::new(),
            per: self.per.clone(),
        }
    }

    /// Merges another partial state (the final half of a split search). With an automatic span
    /// both sides are first brought to the coarser of their spans, then coarsened further while
    /// too many cells are held — the span one pass over all the rows would have reached.
    pub(super) fn merge(&mut self, other: TimechartOp) -> Result<(), SearchError> {
        if !self.fixed && auto_pos(other.span) > auto_pos(self.span) {
            self.rebucket(other.span);
        }
        let (span, tz) = (self.span, self.ctx.tz);
        for ((t, s), states) in other.cells {
            merge_into(&mut self.cells, (span.start(t, tz), s), states);
        }
        self.coarsen();
        if self.cells.len() > self.limits.max_groups {
            return Err(exceeded("timechart", "max_groups", self.limits.max_groups));
        }
        Ok(())
    }

    /// Coarsens an automatic span while more than [`COARSEN_AT`] cells are held.
    fn coarsen(&mut self) {
        while self.cells.len() > COARSEN_AT && !self.fixed {
            let next = auto_pos(self.span)
                .checked_add(1)
                .and_then(|p| span::AUTO.get(p));
            match next {
                Some(&next) => self.rebucket(next),
                None => break,
            }
        }
    }
}

/// Position of `s` among the automatic spans (`usize::MAX` for a span not among them).
fn auto_pos(s: Span) -> usize {
    span::AUTO
        .iter()
        .position(|a| *a == s)
        .unwrap_or(usize::MAX)
}

fn merge_into(
    cells: &mut HashMap<(Micros, String), Vec<AggState>>,
    key: (Micros, String),
    states: Vec<AggState>,
) {
    match cells.get_mut(&key) {
        Some(cur) => cur.iter_mut().zip(states).for_each(|(a, b)| a.merge(b)),
        None => {
            cells.insert(key, states);
        }
    }
}

impl TimechartOp {
    /// The span the first row is binned with (`span=`, else the finest automatic one): the count
    /// pushdown bins events with it before handing over counted rows.
    pub fn initial_span(tc: &Timechart) -> Span {
        match tc.span {
            Some(s) => Span::from_ast(s),
            None => span::AUTO[0],
        }
    }

    /// Feeds counted rows (the count pushdown): each row stands for `count` events of the same
    /// series in the same bucket of [`TimechartOp::initial_span`], and carries one of their times.
    pub(super) fn push_counted(&mut self, rows: Vec<(Row, u64)>) -> Result<(), SearchError> {
        let mut keys = std::mem::take(&mut self.keys);
        let by: Vec<String> = self.tc.by.iter().cloned().collect();
        let r = rows
            .into_iter()
            .try_for_each(|(mut r, w)| self.add(&mut r, w, &by, &mut keys));
        self.keys = keys;
        r
    }

    /// Adds `row`, standing for `w` rows at times in the same bucket (`keys`: scratch).
    fn add(
        &mut self,
        r: &mut Row,
        w: u64,
        by: &[String],
        keys: &mut Vec<Vec<String>>,
    ) -> Result<(), SearchError> {
        let Some(t) = r.time() else { return Ok(()) };
        if by.is_empty() {
            keys.clear();
            keys.push(Vec::new());
        } else {
            group_keys(r, by, keys);
            if keys.is_empty() && self.tc.usenull {
                keys.push(vec!["NULL".to_string()]);
            }
        }
        let start = self.span.start(t, self.ctx.tz);
        for k in keys.drain(..) {
            let series = k.into_iter().next().unwrap_or_default();
            let states = self
                .cells
                .entry((start, series))
                .or_insert_with(|| self.aggs.iter().map(|a| AggState::new(a.kind)).collect());
            for (a, s) in self.aggs.iter().zip(states.iter_mut()) {
                a.update_counted(s, r, w);
            }
        }
        if self.cells.len() > COARSEN_AT {
            self.coarsen();
        }
        if self.cells.len() > self.limits.max_groups {
            return Err(exceeded("timechart", "max_groups", self.limits.max_groups));
        }
        Ok(())
    }
}

impl Op for TimechartOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        let mut keys = std::mem::take(&mut self.keys);
        let by: Vec<String> = self.tc.by.iter().cloned().collect();
        let r = rows
            .into_iter()
            .try_for_each(|mut r| self.add(&mut r, 1, &by, &mut keys));
        self.keys = keys;
        r.map(|()| Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        let tz = self.ctx.tz;
        let Some((lo, hi)) = self.range() else {
            return Ok(());
        };
        if !self.fixed {
            let to = span::choose(lo, hi, self.tc.bins, self.span, tz);
            if to != self.span {
                self.rebucket(to);
            }
        }
        let span = self.span;
        let nbuckets = span.buckets(lo, hi, tz);
        if nbuckets > self.limits.max_groups as i64 {
            return Err(exceeded("timechart", "max_groups", self.limits.max_groups));
        }
        let series = self.pick_series();
        // Column names per (series, agg).
        let mut cols: Vec<(String, usize, String)> = Vec::new();
        for s in &series {
            for (i, a) in self.aggs.iter().enumerate() {
                let name = match (self.tc.by.is_some(), self.aggs.len()) {
                    (false, _) => a.column.clone(),
                    (true, 1) => s.clone(),
                    (true, _) => format!("{}: {s}", a.column),
                };
                cols.push((s.clone(), i, name));
            }
        }
        // `cont=f`: only the buckets that hold events.
        let filled: Option<std::collections::HashSet<Micros>> =
            (!self.tc.cont).then(|| self.cells.keys().map(|(t, _)| *t).collect());
        let mut t = span.start(lo, tz);
        let end = hi;
        while t < end {
            let next = span.next(t, tz);
            if filled.as_ref().is_some_and(|f| !f.contains(&t)) {
                if next <= t {
                    break;
                }
                t = next;
                continue;
            }
            let bucket_secs = (next - t) as f64 / 1e6;
            let mut fields = Vec::with_capacity(cols.len() + 1);
            fields.push(("_time".to_string(), Value::Num(t as f64 / 1e6)));
            for (s, i, name) in &cols {
                let kind = self.aggs[*i].kind;
                let v = match self.cells.get(&(t, s.clone())) {
                    Some(states) => states[*i].result(kind),
                    None if kind.zero_when_empty() => Value::Num(0.0),
                    None => Value::Null,
                };
                let v = if v.is_null() && kind.zero_when_empty() {
                    Value::Num(0.0)
                } else {
                    v
                };
                let v = match (self.per[*i], v.to_num()) {
                    (Some(unit), Some(x)) if bucket_secs > 0.0 => {
                        Value::Num(x * unit / bucket_secs)
                    }
                    _ => v,
                };
                fields.push((name.clone(), v));
            }
            out.push(Row::from_fields(fields));
            if next <= t {
                break;
            }
            t = next;
        }
        Ok(())
    }
}

impl TimechartOp {
    /// Ranks the series, keeps the top `limit` (plus `NULL`), merges the rest into `OTHER`
    /// (or drops them), and returns the output series in column order.
    fn pick_series(&mut self) -> Vec<String> {
        if self.tc.by.is_none() {
            return vec![String::new()];
        }
        let kind = self.aggs[0].kind;
        let mut totals: BTreeMap<String, f64> = BTreeMap::new();
        for ((_, s), states) in &self.cells {
            *totals.entry(s.clone()).or_insert(0.0) +=
                states[0].result(kind).to_num().unwrap_or(0.0);
        }
        let has_null = totals.remove("NULL").is_some();
        let mut ranked: Vec<(String, f64)> = totals.into_iter().collect();
        ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let limit = if self.tc.limit == 0 {
            usize::MAX
        } else {
            self.tc.limit as usize
        };
        let dropped: HashSet<String> = ranked.iter().skip(limit).map(|(s, _)| s.clone()).collect();
        let mut kept: Vec<String> = ranked.into_iter().take(limit).map(|(s, _)| s).collect();
        kept.sort();
        if has_null {
            kept.push("NULL".to_string());
        }
        if !dropped.is_empty() {
            let old = std::mem::take(&mut self.cells);
            for ((t, s), states) in old {
                if !dropped.contains(&s) {
                    merge_into(&mut self.cells, (t, s), states);
                } else if self.tc.useother {
                    merge_into(&mut self.cells, (t, "OTHER".to_string()), states);
                }
            }
            if self.tc.useother {
                kept.push("OTHER".to_string());
            }
        }
        kept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{ctx, names, strs};
    use lode_spl::ast::{Agg, TimeSpan, TimeUnit};

    const H: i64 = 3_600_000_000;
    /// 2023-11-14T00:00:00Z.
    const DAY0: i64 = 1_699_920_000_000_000;

    fn spec(span: Option<TimeSpan>, aggs: Vec<Agg>, by: Option<&str>, limit: u32) -> Timechart {
        Timechart {
            span,
            bins: 100,
            aggs,
            by: by.map(str::to_string),
            limit,
            useother: true,
            usenull: true,
            cont: true,
        }
    }

    fn count() -> Agg {
        Agg {
            func: "count".into(),
            field: None,
            alias: None,
            eval: None,
        }
    }

    fn ev(t: i64, host: Option<&str>, bytes: f64) -> Row {
        let mut r = Row::new();
        r.set("_time", Value::Num(t as f64 / 1e6));
        if let Some(h) = host {
            r.set("host", Value::Str(h.into()));
        }
        r.set("bytes", Value::Num(bytes));
        r
    }

    fn run(tc: Timechart, range: Option<(i64, i64)>, rows: Vec<Row>) -> Vec<Row> {
        let mut c = ctx();
        if let Some((lo, hi)) = range {
            c.earliest = Some(lo);
            c.latest = Some(hi);
        }
        let mut op = TimechartOp::new(tc, c, Limits::default()).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        op.finish(&mut out).unwrap();
        out
    }

    #[test]
    fn per_second_and_per_minute_scale_the_sum_to_the_bucket() {
        let span = Some(TimeSpan {
            count: 1,
            unit: TimeUnit::Hour,
        });
        let per = |f: &str| Agg {
            func: f.into(),
            field: Some("bytes".into()),
            alias: None,
            eval: None,
        };
        let rows = vec![
            ev(DAY0 + 10, None, 3600.0),
            ev(DAY0 + 20, None, 3600.0),
            ev(DAY0 + H + 5, None, 360.0),
        ];
        let tc = spec(span, vec![per("per_second"), per("per_minute")], None, 10);
        let out = run(tc, Some((DAY0, DAY0 + 3 * H)), rows);
        assert_eq!(strs(&out, "per_second(bytes)"), vec!["2", "0.1", "0"]);
        assert_eq!(strs(&out, "per_minute(bytes)"), vec!["120", "6", "0"]);
        let e = AggSpec::new(&per("per_hour")).unwrap_err().to_string();
        assert!(e.contains("only valid in timechart"), "{e}");
    }

    #[test]
    fn fixed_span_fills_the_range_with_zero() {
        let span = Some(TimeSpan {
            count: 1,
            unit: TimeUnit::Hour,
        });
        let avg = Agg {
            func: "avg".into(),
            field: Some("bytes".into()),
            alias: None,
            eval: None,
        };
        let rows = vec![
            ev(DAY0 + 10, None, 4.0),
            ev(DAY0 + 20, None, 6.0),
            ev(DAY0 + 2 * H + 5, None, 1.0),
        ];
        let out = run(
            spec(span, vec![count(), avg], None, 10),
            Some((DAY0, DAY0 + 4 * H)),
            rows,
        );
        assert_eq!(names(&out[0]), vec!["_time", "count", "avg(bytes)"]);
        assert_eq!(
            strs(&out, "_time"),
            vec!["1699920000", "1699923600", "1699927200", "1699930800"]
        );
        assert_eq!(strs(&out, "count"), vec!["2", "0", "1", "0"]);
        assert_eq!(strs(&out, "avg(bytes)"), vec!["5", "", "1", ""]);
    }

    #[test]
    fn cont_false_keeps_only_filled_buckets() {
        let span = Some(TimeSpan {
            count: 1,
            unit: TimeUnit::Hour,
        });
        let rows = vec![ev(DAY0 + 10, None, 4.0), ev(DAY0 + 2 * H + 5, None, 1.0)];
        let mut tc = spec(span, vec![count()], None, 10);
        tc.cont = false;
        let out = run(tc, Some((DAY0, DAY0 + 4 * H)), rows);
        assert_eq!(strs(&out, "_time"), vec!["1699920000", "1699927200"]);
        assert_eq!(strs(&out, "count"), vec!["1", "1"]);
    }

    #[test]
    fn split_by_with_limit_other_and_null() {
        let span = Some(TimeSpan {
            count: 1,
            unit: TimeUnit::Hour,
        });
        let mut rows = Vec::new();
        for (h, n) in [("a", 3), ("b", 2), ("c", 1)] {
            for i in 0..n {
                rows.push(ev(DAY0 + i, Some(h), 1.0));
            }
        }
        rows.push(ev(DAY0 + H, None, 1.0));
        let out = run(
            spec(span, vec![count()], Some("host"), 2),
            Some((DAY0, DAY0 + 2 * H)),
            rows.clone(),
        );
        assert_eq!(names(&out[0]), vec!["_time", "a", "b", "NULL", "OTHER"]);
        assert_eq!(strs(&out, "a"), vec!["3", "0"]);
        assert_eq!(strs(&out, "OTHER"), vec!["1", "0"]);
        assert_eq!(strs(&out, "NULL"), vec!["0", "1"]);
        let mut tc = spec(span, vec![count()], Some("host"), 1);
        tc.useother = false;
        tc.usenull = false;
        let out = run(tc, Some((DAY0, DAY0 + 2 * H)), rows);
        assert_eq!(names(&out[0]), vec!["_time", "a"]);
    }

    #[test]
    fn automatic_span_from_range_and_data() {
        let rows = vec![ev(DAY0 + 5, None, 1.0), ev(DAY0 + 23 * H, None, 1.0)];
        let out = run(
            spec(None, vec![count()], None, 10),
            Some((DAY0, DAY0 + 24 * H)),
            rows.clone(),
        );
        assert_eq!(out.len(), 48);
        assert_eq!(strs(&out, "count").iter().filter(|c| *c == "1").count(), 2);
        let out = run(spec(None, vec![count()], None, 10), None, rows);
        assert_eq!(out.len(), 47);
        assert_eq!(strs(&out, "_time")[0], "1699920000");
        let out = run(spec(None, vec![count()], None, 10), None, vec![]);
        assert!(out.is_empty());
    }

    #[test]
    fn coarsening_keeps_counts() {
        let rows: Vec<Row> = (0..(COARSEN_AT as i64 + 10))
            .map(|i| ev(DAY0 + i * 1_000_000, None, 1.0))
            .collect();
        let n = rows.len();
        let out = run(spec(None, vec![count()], None, 10), None, rows);
        let total: f64 = out
            .iter()
            .filter_map(|r| r.peek("count").and_then(Value::to_num))
            .sum();
        assert_eq!(total as usize, n);
        assert!(out.len() <= 100);
    }
}
