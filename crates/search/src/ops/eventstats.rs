//! `eventstats <agg>… [by f…]`: the `stats` aggregations, added as fields to every input row
//! instead of replacing the rows. A row whose by-fields are missing gets no fields added; a row
//! with a multivalue by-field counts in each of its groups and takes the results of the first.
//! Every row is held until the end (limit `max_sort_rows`), then emitted in input order.

use super::limits::{exceeded, Limits};
use super::stats::group_keys;
use super::{Flow, Op};
use crate::agg::{AggSpec, AggState};
use crate::error::SearchError;
use crate::row::Row;
use lode_spl::ast::Stats;
use std::collections::HashMap;

/// Holds the rows and one aggregation state per group.
pub struct EventStatsOp {
    aggs: Vec<AggSpec>,
    by: Vec<String>,
    /// `dedup_splitvals=t`.
    dedup_splitvals: bool,
    limits: Limits,
    /// The rows, each with its group index (`None`: no group).
    rows: Vec<(Row, Option<usize>)>,
    /// Group key → index into `groups`.
    index: HashMap<Vec<String>, usize>,
    /// Each group's aggregation states.
    groups: Vec<Vec<AggState>>,
    /// Group keys of the current row (reused).
    keys: Vec<Vec<String>>,
}

impl EventStatsOp {
    /// Compiles the aggregations.
    pub fn new(s: Stats, limits: Limits) -> Result<EventStatsOp, SearchError> {
        if s.aggs.is_empty() {
            return Err(SearchError::User(
                "eventstats needs at least one aggregation".into(),
            ));
        }
        let aggs = s
            .aggs
            .iter()
            .map(AggSpec::new)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(EventStatsOp {
            aggs,
            by: s.by,
            dedup_splitvals: s.dedup_splitvals,
            limits,
            rows: Vec::new(),
            index: HashMap::new(),
            groups: Vec::new(),
            keys: Vec::new(),
        })
    }

    fn add(&mut self, mut r: Row) -> Result<(), SearchError> {
        if self.rows.len() >= self.limits.max_sort_rows {
            return Err(exceeded(
                "eventstats",
                "max_sort_rows",
                self.limits.max_sort_rows,
            ));
        }
        let mut keys = std::mem::take(&mut self.keys);
        group_keys(&mut r, &self.by, &mut keys);
        if self.dedup_splitvals {
            super::stats::dedup_keys(&mut keys);
        }
        let mut first = None;
        let mut result = Ok(());
        for k in keys.drain(..) {
            let gi = match self.index.get(&k) {
                Some(&i) => i,
                None => {
                    if self.groups.len() >= self.limits.max_groups {
                        result = Err(exceeded("eventstats", "max_groups", self.limits.max_groups));
                        break;
                    }
                    let states = self.aggs.iter().map(|a| AggState::new(a.kind)).collect();
                    self.groups.push(states);
                    self.index.insert(k, self.groups.len() - 1);
                    self.groups.len() - 1
                }
            };
            first.get_or_insert(gi);
            for (a, s) in self.aggs.iter().zip(self.groups[gi].iter_mut()) {
                a.update(s, &mut r);
            }
        }
        keys.clear();
        self.keys = keys;
        result?;
        self.rows.push((r, first));
        Ok(())
    }
}

impl Op for EventStatsOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows {
            self.add(r)?;
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        let results: Vec<Vec<_>> = self
            .groups
            .iter()
            .map(|states| {
                self.aggs
                    .iter()
                    .zip(states)
                    .map(|(a, s)| s.result(a.kind))
                    .collect()
            })
            .collect();
        out.reserve(self.rows.len());
        for (mut r, g) in std::mem::take(&mut self.rows) {
            if let Some(g) = g {
                for (a, v) in self.aggs.iter().zip(&results[g]) {
                    if !v.is_null() {
                        r.set(&a.column, v.clone());
                    }
                }
            }
            out.push(r);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;
    use lode_spl::ast::Agg;

    fn row(h: Option<&str>, b: f64) -> Row {
        let mut f = vec![("b".to_string(), Value::Num(b))];
        if let Some(h) = h {
            f.push(("h".to_string(), Value::Str(h.into())));
        }
        Row::from_fields(f)
    }

    #[test]
    fn adds_group_results_in_input_order() {
        let s = Stats {
            aggs: vec![Agg {
                func: "sum".into(),
                field: Some("b".into()),
                alias: Some("t".into()),
                eval: None,
            }],
            by: vec!["h".into()],
            dedup_splitvals: false,
        };
        let mut op = EventStatsOp::new(s, Limits::default()).unwrap();
        let mut out = Vec::new();
        op.push(
            vec![row(Some("x"), 1.0), row(None, 5.0), row(Some("y"), 2.0)],
            &mut out,
        )
        .unwrap();
        op.push(vec![row(Some("x"), 3.0)], &mut out).unwrap();
        assert!(out.is_empty());
        op.finish(&mut out).unwrap();
        let t: Vec<Option<f64>> = out
            .iter()
            .map(|r| r.peek("t").and_then(|v| v.to_num()))
            .collect();
        assert_eq!(t, vec![Some(4.0), None, Some(2.0), Some(4.0)]);
        let b: Vec<f64> = out
            .iter()
            .map(|r| r.peek("b").unwrap().to_num().unwrap())
            .collect();
        assert_eq!(b, vec![1.0, 5.0, 2.0, 3.0]);
    }

    #[test]
    fn row_limit_is_an_error() {
        let s = Stats {
            aggs: vec![Agg {
                func: "count".into(),
                field: None,
                alias: None,
                eval: None,
            }],
            by: vec![],
            dedup_splitvals: false,
        };
        let limits = Limits {
            max_sort_rows: 1,
            ..Limits::default()
        };
        let mut op = EventStatsOp::new(s, limits).unwrap();
        let mut out = Vec::new();
        assert!(op
            .push(vec![row(None, 1.0), row(None, 2.0)], &mut out)
            .is_err());
    }
}
