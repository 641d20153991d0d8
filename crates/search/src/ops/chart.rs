//! `chart <agg>… [over x [span=…]] [by y]`: a table with one row per value of `x` (sorted like
//! `stats` output; bucket texts `lo-hi` by their lower end) and one column per aggregation, or
//! with `by`, one column per value of `y` (named `y` with one aggregation, `agg: y` with
//! several).
//!
//! Rows without `x` are dropped. With `by`, the `limit` series (default 10, 0 = all) with the
//! largest totals of the first aggregation are kept, in lexicographic order, then the null
//! series (rows without `y`, named `nullstr`, when `usenull`), then the others merged into
//! `otherstr` (when `useother`). Empty cells show 0 for count/dc/sum and nothing otherwise.
//! Like `stats`, the cells are mergeable partial states: in a split search each worker fills
//! its own and the final step merges them ([`super::Partial`]) before picking the series.

use super::bin::Binner;
use super::limits::{exceeded, Limits};
use super::{ExecContext, Flow, Op};
use crate::agg::{AggSpec, AggState};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::{cmp_auto_str, parse_num, Value};
use lode_spl::ast::Chart;
use std::cmp::Ordering;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Aggregates per (row value, series).
pub struct ChartOp {
    c: Chart,
    aggs: Vec<AggSpec>,
    ctx: ExecContext,
    limits: Limits,
    binner: Option<Binner>,
    /// (x, series) → states.
    cells: HashMap<(String, String), Vec<AggState>>,
}

impl ChartOp {
    /// Compiles the aggregations.
    pub fn new(c: Chart, ctx: ExecContext, limits: Limits) -> Result<ChartOp, SearchError> {
        if c.aggs.is_empty() {
            return Err(SearchError::User(
                "chart needs at least one aggregation".into(),
            ));
        }
        let aggs = c
            .aggs
            .iter()
            .map(AggSpec::new)
            .collect::<Result<Vec<_>, _>>()?;
        let binner = match (c.span, &c.over) {
            (Some(s), Some(o)) => Some(Binner::of(s, o, None, &ctx)?),
            _ => None,
        };
        Ok(ChartOp {
            c,
            aggs,
            ctx,
            limits,
            binner,
            cells: HashMap::new(),
        })
    }

    /// An empty state of the same command (a split search's worker state).
    pub(super) fn empty_like(&self) -> ChartOp {
        ChartOp {
            c: self.c.clone(),
            aggs: self.aggs.clone(),
            ctx: self.ctx,
            limits: self.limits,
            binner: self.binner,
            cells: HashMap::new(),
        }
    }

    /// Merges another partial state of the same command; `max_groups` applies to the result.
    pub(super) fn merge(&mut self, other: ChartOp) -> Result<(), SearchError> {
        for (k, states) in other.cells {
            match self.cells.get_mut(&k) {
                Some(have) => have.iter_mut().zip(states).for_each(|(a, b)| a.merge(b)),
                None => {
                    if self.cells.len() >= self.limits.max_groups {
                        return Err(exceeded("chart", "max_groups", self.limits.max_groups));
                    }
                    self.cells.insert(k, states);
                }
            }
        }
        Ok(())
    }

    fn add(&mut self, mut r: Row) -> Result<(), SearchError> {
        let xs: Vec<String> = match &self.c.over {
            None => vec![String::new()],
            Some(f) => match (self.binner, r.get(f)) {
                (Some(b), Some(v)) => v
                    .iter_values()
                    .map(|x| b.apply(x, &self.ctx).unwrap_or_else(|| x.clone()))
                    .map(|x| x.as_str().into_owned())
                    .collect(),
                _ => values(&mut r, f),
            },
        };
        if xs.is_empty() {
            return Ok(());
        }
        let ys: Vec<String> = match &self.c.by {
            None => vec![String::new()],
            Some(f) => {
                let v = values(&mut r, f);
                if v.is_empty() && self.c.usenull {
                    vec![self.c.nullstr.clone()]
                } else {
                    v
                }
            }
        };
        for x in &xs {
            for y in &ys {
                let key = (x.clone(), y.clone());
                if !self.cells.contains_key(&key) {
                    if self.cells.len() >= self.limits.max_groups {
                        return Err(exceeded("chart", "max_groups", self.limits.max_groups));
                    }
                    let states = self.aggs.iter().map(|a| AggState::new(a.kind)).collect();
                    self.cells.insert(key.clone(), states);
                }
                let states = self.cells.get_mut(&key).expect("inserted above");
                for (a, s) in self.aggs.iter().zip(states.iter_mut()) {
                    a.update(s, &mut r);
                }
            }
        }
        Ok(())
    }

    /// Keeps the top (`limit=bottomN`: bottom) `limit` series by the total of the first
    /// aggregation (plus null), merges the rest into OTHER; column order.
    fn pick_series(&mut self) -> Vec<String> {
        if self.c.by.is_none() {
            return vec![String::new()];
        }
        let kind = self.aggs[0].kind;
        let mut totals: BTreeMap<String, f64> = BTreeMap::new();
        for ((_, s), states) in &self.cells {
            *totals.entry(s.clone()).or_insert(0.0) +=
                states[0].result(kind).to_num().unwrap_or(0.0);
        }
        let has_null = self.c.usenull && totals.remove(&self.c.nullstr).is_some();
        let mut ranked: Vec<(String, f64)> = totals.into_iter().collect();
        if self.c.bottom {
            ranked.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.cmp(&b.0)));
        } else {
            ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        }
        let limit = if self.c.limit == 0 {
            usize::MAX
        } else {
            usize::try_from(self.c.limit).unwrap_or(usize::MAX)
        };
        let dropped: HashSet<String> = ranked.iter().skip(limit).map(|(s, _)| s.clone()).collect();
        let mut kept: Vec<String> = ranked.into_iter().take(limit).map(|(s, _)| s).collect();
        kept.sort();
        if has_null {
            kept.push(self.c.nullstr.clone());
        }
        if !dropped.is_empty() {
            for ((x, s), states) in std::mem::take(&mut self.cells) {
                let key = if !dropped.contains(&s) {
                    (x, s)
                } else if self.c.useother {
                    (x, self.c.otherstr.clone())
                } else {
                    continue;
                };
                match self.cells.get_mut(&key) {
                    Some(have) => have.iter_mut().zip(states).for_each(|(a, b)| a.merge(b)),
                    None => {
                        self.cells.insert(key, states);
                    }
                }
            }
            if self.c.useother && !kept.contains(&self.c.otherstr) {
                kept.push(self.c.otherstr.clone());
            }
        }
        kept
    }
}

/// The text of each value of `f` (none when missing).
fn values(r: &mut Row, f: &str) -> Vec<String> {
    match r.get(f) {
        Some(v) => v.iter_values().map(|x| x.as_str().into_owned()).collect(),
        None => Vec::new(),
    }
}

/// Row order: numbers and `lo-hi` buckets by their (lower) value, then strings.
fn cmp_x(a: &str, b: &str) -> Ordering {
    match (bucket_start(a), bucket_start(b)) {
        (Some(x), Some(y)) => x.total_cmp(&y).then_with(|| cmp_auto_str(a, b)),
        _ => cmp_auto_str(a, b),
    }
}

/// The number `s`, or the lower end of a `lo-hi` bucket text.
fn bucket_start(s: &str) -> Option<f64> {
    if let Some(n) = parse_num(s) {
        return Some(n);
    }
    let i = s.get(1..)?.find('-')? + 1;
    let (lo, hi) = (parse_num(&s[..i])?, parse_num(&s[i + 1..])?);
    (lo < hi).then_some(lo)
}

impl Op for ChartOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows {
            self.add(r)?;
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        if self.c.over.is_none() && self.cells.is_empty() {
            let states = self.aggs.iter().map(|a| AggState::new(a.kind)).collect();
            self.cells.insert((String::new(), String::new()), states);
        }
        let series = self.pick_series();
        let mut xs: Vec<String> = self
            .cells
            .keys()
            .map(|(x, _)| x.clone())
            .collect::<HashSet<_>>()
            .into_iter()
            .collect();
        xs.sort_by(|a, b| cmp_x(a, b));
        let mut cols: Vec<(&String, usize, String)> = Vec::new();
        for s in &series {
            for (i, a) in self.aggs.iter().enumerate() {
                let name = match (self.c.by.is_some(), self.aggs.len()) {
                    (false, _) => a.column.clone(),
                    (true, 1) => s.clone(),
                    (true, _) => format!("{}: {s}", a.column),
                };
                cols.push((s, i, name));
            }
        }
        for x in xs {
            let mut fields = Vec::with_capacity(cols.len() + 1);
            if let Some(o) = &self.c.over {
                fields.push((o.clone(), Value::Str(x.clone())));
            }
            for (s, i, name) in &cols {
                let kind = self.aggs[*i].kind;
                let v = match self.cells.get(&(x.clone(), (*s).clone())) {
                    Some(states) => states[*i].result(kind),
                    None => Value::Null,
                };
                let v = if v.is_null() && kind.zero_when_empty() {
                    Value::Num(0.0)
                } else {
                    v
                };
                fields.push((name.clone(), v));
            }
            out.push(Row::from_fields(fields));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{ctx, names, rows_of, strs};
    use lode_spl::ast::{Agg, BinSpan};

    fn agg(func: &str, field: Option<&str>) -> Agg {
        Agg {
            func: func.into(),
            field: field.map(str::to_string),
            alias: None,
            eval: None,
        }
    }

    fn chart(aggs: Vec<Agg>, over: Option<&str>, by: Option<&str>) -> Chart {
        Chart {
            aggs,
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

    fn run(c: Chart, rows: Vec<Row>) -> Vec<Row> {
        let mut op = ChartOp::new(c, ctx(), Limits::default()).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        op.finish(&mut out).unwrap();
        out
    }

    fn data() -> Vec<Row> {
        rows_of(
            &["x", "y", "b"],
            &[
                &["10", "a", "1"],
                &["9", "b", "2"],
                &["10", "b", "3"],
                &["10", "", "4"],
                &["", "a", "5"],
                &["9", "c", "6"],
            ],
        )
    }

    #[test]
    fn over_by_with_null_and_zero_fill() {
        let out = run(
            chart(vec![agg("count", None)], Some("x"), Some("y")),
            data(),
        );
        assert_eq!(names(&out[0]), vec!["x", "a", "b", "c", "NULL"]);
        assert_eq!(strs(&out, "x"), vec!["9", "10"]);
        assert_eq!(strs(&out, "a"), vec!["0", "1"]);
        assert_eq!(strs(&out, "NULL"), vec!["0", "1"]);
        let out = run(
            chart(
                vec![agg("count", None), agg("max", Some("b"))],
                Some("x"),
                Some("y"),
            ),
            data(),
        );
        assert_eq!(
            names(&out[0]),
            vec![
                "x",
                "count: a",
                "max(b): a",
                "count: b",
                "max(b): b",
                "count: c",
                "max(b): c",
                "count: NULL",
                "max(b): NULL"
            ]
        );
        assert_eq!(strs(&out, "max(b): a"), vec!["", "1"]);
    }

    #[test]
    fn limit_other_and_no_split() {
        let mut c = chart(vec![agg("sum", Some("b"))], Some("x"), Some("y"));
        c.limit = 1;
        c.usenull = false;
        let out = run(c.clone(), data());
        assert_eq!(names(&out[0]), vec!["x", "c", "OTHER"]);
        assert_eq!(strs(&out, "OTHER"), vec!["2", "4"]);
        // limit=bottom1: the series with the smallest sum (a = 1) stays.
        let mut low = c.clone();
        low.bottom = true;
        let out = run(low, data());
        assert_eq!(names(&out[0]), vec!["x", "a", "OTHER"]);
        assert_eq!(strs(&out, "a"), vec!["0", "1"]);
        assert_eq!(strs(&out, "OTHER"), vec!["8", "3"]);
        c.useother = false;
        let out = run(c, data());
        assert_eq!(names(&out[0]), vec!["x", "c"]);
        let out = run(chart(vec![agg("count", None)], None, None), vec![]);
        assert_eq!(strs(&out, "count"), vec!["0"]);
        let out = run(chart(vec![agg("avg", Some("b"))], Some("y"), None), data());
        assert_eq!(strs(&out, "y"), vec!["a", "b", "c"]);
        assert_eq!(strs(&out, "avg(b)"), vec!["3", "2.5", "6"]);
    }

    #[test]
    fn span_on_the_row_field() {
        let mut c = chart(vec![agg("count", None)], Some("b"), None);
        c.span = Some(BinSpan::Num(2.0));
        let out = run(c, data());
        assert_eq!(strs(&out, "b"), vec!["0-2", "2-4", "4-6", "6-8"]);
        assert_eq!(strs(&out, "count"), vec!["1", "2", "2", "1"]);
        assert_eq!(cmp_x("-10-0", "0-10"), Ordering::Less);
        assert_eq!(cmp_x("100-200", "20-30"), Ordering::Greater);
    }

    #[test]
    fn partial_states_merge_like_one_pass() {
        use crate::plan::order::{role, Role};
        let c = chart(vec![agg("count", None)], Some("x"), Some("y"));
        assert_eq!(
            role(&lode_spl::ast::Command::Chart(c.clone())),
            Role::Transforming
        );
        let whole = run(c.clone(), data());
        let mut a = ChartOp::new(c, ctx(), Limits::default()).unwrap();
        let mut b = a.empty_like();
        let mut rows = data();
        let tail = rows.split_off(3);
        let mut sink = Vec::new();
        a.push(rows, &mut sink).unwrap();
        b.push(tail, &mut sink).unwrap();
        a.merge(b).unwrap();
        let mut out = Vec::new();
        a.finish(&mut out).unwrap();
        assert_eq!(out, whole);
    }
}
