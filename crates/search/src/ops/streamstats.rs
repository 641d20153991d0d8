//! `streamstats`: the `stats` aggregations over the rows seen so far, added to each row as it
//! passes (input order is kept; rows are not held).
//!
//! - `by`: each row's results come from the rows of its own group; a row missing a by-field
//!   gets no fields and counts nowhere. A multivalue by-field uses its first value combination.
//! - `window=N`: only the last N rows count (with `global=t`, the default, the last N rows of
//!   the whole stream, of which the row's group is aggregated; with `global=f`, the last N rows
//!   of the row's group).
//! - `current=f`: a row's results cover the rows before it only; a row with no earlier row in
//!   its group gets no fields.
//! - `reset_on_change=t`: all state is dropped when the by-field values differ from the
//!   previous row's.
//! - `time_window=5m`: only earlier rows whose `_time` is less than the span away from the
//!   current row's count (rows arrive in time order, newest first for event searches); with
//!   `window=N` both limits apply. A row without `_time` keeps the window as it is.
//! - `reset_before="(<eval>)"`: all state is dropped before a row for which the expression is
//!   true (the row then starts afresh); `reset_after="(<eval>)"`: after a row, with its results
//!   set (so the expression may read them, `reset_after="(count>=3)"`), for which it is true.
//! - `allnum=t`: a numeric aggregation (`sum`, `avg`, `min`, `max`, `range`, `stdev`, `median`,
//!   `perc…`, …) of a field gives no result for its group once a row of the group had a
//!   non-numeric value in it, until a reset.

use super::span::Span;
use super::stats::group_keys;
use super::{ExecContext, Flow, Op};
use crate::agg::{AggSpec, AggState, Kind};
use crate::error::SearchError;
use crate::eval::{check, EvalCtx, Evaluator};
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::{Expr, StreamStats};
use std::collections::{HashMap, VecDeque};

/// A row as remembered by a window: its group and the values the aggregations read.
struct Entry {
    group: usize,
    row: Row,
}

/// Running aggregation state per group.
pub struct StreamStatsOp {
    aggs: Vec<AggSpec>,
    by: Vec<String>,
    window: usize,
    current: bool,
    global: bool,
    reset_on_change: bool,
    /// `time_window=` in microseconds (calendar months count 30 days).
    time_window: Option<i64>,
    /// Group key → group index.
    index: HashMap<Vec<String>, usize>,
    /// Cumulative states per group (no window).
    states: Vec<Vec<AggState>>,
    /// Rows counted per group (no window).
    seen: Vec<u64>,
    /// Window entries: one deque (global) or one per group.
    windows: HashMap<usize, VecDeque<Entry>>,
    /// The previous row's group key (`reset_on_change`).
    prev: Option<Option<Vec<String>>>,
    keys: Vec<Vec<String>>,
    reset_before: Option<Expr>,
    reset_after: Option<Expr>,
    ev: Evaluator,
    /// `allnum=t`: per aggregation, whether it is numeric and reads a field.
    numeric: Option<Vec<bool>>,
    /// `allnum=t`: per group, the aggregations that met a non-numeric value.
    tainted: HashMap<usize, Vec<bool>>,
}

impl StreamStatsOp {
    /// Compiles the aggregations and reset expressions.
    pub fn new(s: StreamStats, ctx: ExecContext) -> Result<StreamStatsOp, SearchError> {
        if s.stats.aggs.is_empty() {
            return Err(SearchError::User(
                "streamstats needs at least one aggregation".into(),
            ));
        }
        let aggs = s
            .stats
            .aggs
            .iter()
            .map(AggSpec::new)
            .collect::<Result<Vec<_>, _>>()?;
        for e in s.reset_before.iter().chain(&s.reset_after) {
            check(e)?;
        }
        let numeric = s.allnum.then(|| {
            aggs.iter()
                .map(|a| {
                    a.field.is_some()
                        && matches!(
                            a.kind,
                            Kind::Sum
                                | Kind::Avg
                                | Kind::Min
                                | Kind::Max
                                | Kind::Stat(_)
                                | Kind::Median
                                | Kind::Perc(..)
                                | Kind::Rate
                        )
                })
                .collect()
        });
        Ok(StreamStatsOp {
            aggs,
            by: s.stats.by,
            window: usize::try_from(s.window).unwrap_or(usize::MAX),
            current: s.current,
            global: s.global,
            reset_on_change: s.reset_on_change,
            time_window: s.time_window.map(|t| match Span::from_ast(t) {
                Span::Fixed { micros, .. } => micros,
                Span::Months(n) => i64::from(n).saturating_mul(30 * 86_400_000_000),
            }),
            index: HashMap::new(),
            states: Vec::new(),
            seen: Vec::new(),
            windows: HashMap::new(),
            prev: None,
            keys: Vec::new(),
            reset_before: s.reset_before,
            reset_after: s.reset_after,
            ev: Evaluator::new(EvalCtx {
                now: ctx.now,
                tz: ctx.tz,
            }),
            numeric,
            tainted: HashMap::new(),
        })
    }

    /// Drops all state (`reset_on_change`, `reset_before`, `reset_after`).
    fn reset(&mut self) {
        self.index.clear();
        self.states.clear();
        self.seen.clear();
        self.windows.clear();
        self.tainted.clear();
    }

    /// `allnum=t`: marks the numeric aggregations of `group` whose field in `r` is not a number.
    fn taint(&mut self, group: usize, r: &mut Row) {
        let Some(numeric) = &self.numeric else {
            return;
        };
        let flags = self
            .tainted
            .entry(group)
            .or_insert_with(|| vec![false; numeric.len()]);
        for ((a, &num), flag) in self.aggs.iter().zip(numeric).zip(flags.iter_mut()) {
            let Some(f) = a.field.as_deref().filter(|_| num && !*flag) else {
                continue;
            };
            if let Some(v) = r.get(f) {
                if !v.is_null() && v.iter_values().any(|x| x.to_num().is_none()) {
                    *flag = true;
                }
            }
        }
    }

    fn fresh(&self) -> Vec<AggState> {
        self.aggs.iter().map(|a| AggState::new(a.kind)).collect()
    }

    /// The values the aggregations read from `r`, as a small row.
    fn slim(&self, r: &mut Row) -> Row {
        let mut f: Vec<(String, Value)> = Vec::with_capacity(self.aggs.len() + 1);
        if let Some(t) = r.peek("_time") {
            f.push(("_time".into(), t.clone()));
        }
        for a in &self.aggs {
            if let Some(name) = &a.field {
                if let Some(v) = r.get(name) {
                    f.push((name.clone(), v.clone()));
                }
            }
        }
        Row::from_fields(f)
    }

    /// Results over the window entries of `group` (whose window is keyed `wkey`).
    fn window_results(&self, wkey: usize, group: usize) -> Option<Vec<Value>> {
        let mut states = self.fresh();
        let mut any = false;
        for e in self.windows.get(&wkey).into_iter().flatten() {
            if e.group != group {
                continue;
            }
            any = true;
            let mut row = e.row.clone();
            for (a, s) in self.aggs.iter().zip(states.iter_mut()) {
                a.update(s, &mut row);
            }
        }
        any.then(|| self.results(&states))
    }

    fn results(&self, states: &[AggState]) -> Vec<Value> {
        self.aggs
            .iter()
            .zip(states)
            .map(|(a, s)| s.result(a.kind))
            .collect()
    }

    fn row(&mut self, r: &mut Row) -> Result<(), SearchError> {
        if let Some(e) = &self.reset_before {
            if self.ev.is_true(e, r)? {
                self.reset();
            }
        }
        self.aggregate(r);
        if let Some(e) = &self.reset_after {
            if self.ev.is_true(e, r)? {
                self.reset();
            }
        }
        Ok(())
    }

    fn aggregate(&mut self, r: &mut Row) {
        let mut keys = std::mem::take(&mut self.keys);
        group_keys(r, &self.by, &mut keys);
        let key = keys.drain(..).next();
        self.keys = keys;
        if self.reset_on_change {
            if let Some(prev) = &self.prev {
                if *prev != key {
                    self.reset();
                }
            }
            self.prev = Some(key.clone());
        }
        let Some(key) = key else {
            return;
        };
        let group = match self.index.get(&key) {
            Some(&g) => g,
            None => {
                self.states.push(self.fresh());
                self.seen.push(0);
                self.index.insert(key, self.states.len() - 1);
                self.states.len() - 1
            }
        };
        let results = if self.window == 0 && self.time_window.is_none() {
            let before =
                (!self.current && self.seen[group] > 0).then(|| self.results(&self.states[group]));
            self.seen[group] += 1;
            let states = &mut self.states[group];
            for (a, s) in self.aggs.iter().zip(states.iter_mut()) {
                a.update(s, r);
            }
            if self.current {
                Some(self.results(&self.states[group]))
            } else {
                before
            }
        } else {
            let wkey = if self.global { 0 } else { group };
            if let (Some(span), Some(t)) = (self.time_window, r.time()) {
                if let Some(w) = self.windows.get_mut(&wkey) {
                    while w
                        .front()
                        .and_then(|e| e.row.time())
                        .is_some_and(|u| (u - t).abs() >= span)
                    {
                        w.pop_front();
                    }
                }
            }
            let entry = Entry {
                group,
                row: self.slim(r),
            };
            if self.current {
                self.push_window(wkey, entry);
                self.window_results(wkey, group)
            } else {
                let res = self.window_results(wkey, group);
                self.push_window(wkey, entry);
                res
            }
        };
        self.taint(group, r);
        let tainted = self.tainted.get(&group);
        if let Some(values) = results {
            for (i, (a, v)) in self.aggs.iter().zip(values).enumerate() {
                if tainted.is_some_and(|t| t[i]) {
                    continue;
                }
                if !v.is_null() {
                    r.set(&a.column, v);
                }
            }
        }
    }

    fn push_window(&mut self, wkey: usize, e: Entry) {
        let w = self.windows.entry(wkey).or_default();
        if self.window > 0 && w.len() == self.window {
            w.pop_front();
        }
        w.push_back(e);
    }
}

impl Op for StreamStatsOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            self.row(r)?;
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::ctx;
    use lode_spl::ast::{Agg, Stats};

    /// `streamstats <opts> count sum(b) AS s` over rows of `b` (a number or text), one result
    /// line `count/s` per row.
    fn resets(q: &str, bs: &[&str]) -> Vec<String> {
        let p = lode_spl::parse(&format!("x | streamstats {q} count sum(b) AS s")).unwrap();
        let Some(lode_spl::ast::Command::StreamStats(s)) = p.commands.last().cloned() else {
            panic!("not streamstats");
        };
        let rows = bs
            .iter()
            .map(|b| Row::from_fields([("b".to_string(), Value::Str(b.to_string()))]))
            .collect();
        let mut op = StreamStatsOp::new(s, ctx()).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        out.iter()
            .map(|r| {
                let f = |n: &str| r.peek(n).map(|v| v.to_string()).unwrap_or_default();
                format!("{}/{}", f("count"), f("s"))
            })
            .collect()
    }

    #[test]
    fn reset_before_after_and_allnum() {
        let bs = ["1", "2", "10", "3", "4"];
        assert_eq!(
            resets(r#"reset_before="(b>=10)""#, &bs),
            ["1/1", "2/3", "1/10", "2/13", "3/17"]
        );
        assert_eq!(
            resets(r#"reset_after="(count>=2)""#, &bs),
            ["1/1", "2/3", "1/10", "2/13", "1/4"]
        );
        assert_eq!(resets("allnum=t", &["1", "x", "3"]), ["1/1", "2/", "3/"]);
        assert_eq!(
            resets(r#"allnum=t reset_after="(b==\"x\")""#, &["1", "x", "3"]),
            ["1/1", "2/", "1/3"]
        );
        assert_eq!(resets("", &["1", "x", "3"]), ["1/1", "2/1", "3/4"]);
    }

    fn run(window: u64, current: bool, global: bool, reset: bool) -> Vec<Option<f64>> {
        let s = StreamStats {
            stats: Stats {
                aggs: vec![Agg {
                    func: "sum".into(),
                    field: Some("b".into()),
                    alias: Some("s".into()),
                    eval: None,
                }],
                by: vec!["h".into()],
                dedup_splitvals: false,
            },
            window,
            current,
            global,
            reset_on_change: reset,
            time_window: None,
            reset_before: None,
            reset_after: None,
            allnum: false,
        };
        let rows = [("x", 1.0), ("x", 2.0), ("y", 4.0), ("x", 8.0), ("x", 16.0)]
            .iter()
            .map(|(h, b)| {
                Row::from_fields([
                    ("h".to_string(), Value::Str(h.to_string())),
                    ("b".to_string(), Value::Num(*b)),
                ])
            })
            .collect();
        let mut op = StreamStatsOp::new(s, ctx()).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        out.iter()
            .map(|r| r.peek("s").and_then(|v| v.to_num()))
            .collect()
    }

    #[test]
    fn options() {
        let some = |v: &[f64]| v.iter().map(|x| Some(*x)).collect::<Vec<_>>();
        assert_eq!(
            run(0, true, true, false),
            some(&[1.0, 3.0, 4.0, 11.0, 27.0])
        );
        assert_eq!(
            run(0, false, true, false),
            vec![None, Some(1.0), None, Some(3.0), Some(11.0)]
        );
        // One window of the last 2 rows of the stream, its own group summed.
        assert_eq!(run(2, true, true, false), some(&[1.0, 3.0, 4.0, 8.0, 24.0]));
        // One window of 2 rows per group.
        assert_eq!(
            run(2, true, false, false),
            some(&[1.0, 3.0, 4.0, 10.0, 24.0])
        );
        assert_eq!(run(0, true, true, true), some(&[1.0, 3.0, 4.0, 8.0, 24.0]));
    }

    #[test]
    fn time_window_counts_recent_rows() {
        let s = StreamStats {
            stats: Stats {
                aggs: vec![Agg {
                    func: "count".into(),
                    field: None,
                    alias: None,
                    eval: None,
                }],
                by: vec![],
                dedup_splitvals: false,
            },
            window: 0,
            current: true,
            global: true,
            reset_on_change: false,
            time_window: Some(lode_spl::ast::TimeSpan {
                count: 1,
                unit: lode_spl::ast::TimeUnit::Minute,
            }),
            reset_before: None,
            reset_after: None,
            allnum: false,
        };
        // Newest first.
        let rows = [300.0, 290.0, 250.0, 200.0, 100.0]
            .iter()
            .map(|t| Row::from_fields([("_time".to_string(), Value::Num(*t))]))
            .collect();
        let mut op = StreamStatsOp::new(s, ctx()).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        let counts: Vec<Option<f64>> = out
            .iter()
            .map(|r| r.peek("count").and_then(|v| v.to_num()))
            .collect();
        assert_eq!(
            counts,
            vec![Some(1.0), Some(2.0), Some(3.0), Some(2.0), Some(1.0)]
        );
    }
}
