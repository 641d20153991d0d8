//! `stats <agg>… [by f…]`: one row per group (sorted by the group values, numbers before
//! strings), by-fields first, then the aggregations; no `_raw`. Rows with a null by-field are
//! dropped; a multivalue by-field counts the row in each of its values' groups. Without `by`
//! there is always exactly one row.

use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::agg::{AggSpec, AggState};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::{cmp_auto_str, Value};
use lode_spl::ast::Stats;
use std::cmp::Ordering;
use std::collections::HashMap;

/// Groups rows and aggregates them.
pub struct StatsOp {
    aggs: Vec<AggSpec>,
    by: Vec<String>,
    /// `dedup_splitvals=t`: a row counts once per distinct key.
    dedup_splitvals: bool,
    limits: Limits,
    /// Group key → index into `groups`.
    index: HashMap<Vec<String>, usize>,
    /// Each group's key and aggregation states.
    groups: Vec<(Vec<String>, Vec<AggState>)>,
    /// Group keys of the current row (reused).
    keys: Vec<Vec<String>>,
}

impl StatsOp {
    /// Compiles the aggregations.
    pub fn new(s: Stats, limits: Limits) -> Result<StatsOp, SearchError> {
        if s.aggs.is_empty() {
            return Err(SearchError::User(
                "stats needs at least one aggregation".into(),
            ));
        }
        let aggs = s
            .aggs
            .iter()
            .map(AggSpec::new)
            .collect::<Result<Vec<_>, _>>()?;
        Ok(StatsOp {
            aggs,
            by: s.by,
            dedup_splitvals: s.dedup_splitvals,
            limits,
            index: HashMap::new(),
            groups: Vec::new(),
            keys: Vec::new(),
        })
    }
}

impl StatsOp {
    /// An empty state with the same aggregations (a worker's next partial).
    pub(super) fn empty_like(&self) -> StatsOp {
        StatsOp {
            aggs: self.aggs.clone(),
            by: self.by.clone(),
            dedup_splitvals: self.dedup_splitvals,
            limits: self.limits,
            index: HashMap::new(),
            groups: Vec::new(),
            keys: Vec::new(),
        }
    }

    /// Merges another partial state of the same command (the final half of a split search);
    /// `max_groups` applies to the merged groups.
    pub(super) fn merge(&mut self, other: StatsOp) -> Result<(), SearchError> {
        for (k, states) in other.groups {
            match self.index.get(&k) {
                Some(&i) => {
                    let cur = &mut self.groups[i].1;
                    cur.iter_mut().zip(states).for_each(|(a, b)| a.merge(b));
                }
                None => {
                    if self.groups.len() >= self.limits.max_groups {
                        return Err(exceeded("stats", "max_groups", self.limits.max_groups));
                    }
                    self.index.insert(k.clone(), self.groups.len());
                    self.groups.push((k, states));
                }
            }
        }
        Ok(())
    }
}

/// Most group keys one row may produce from multivalue by-fields (the cartesian product is cut
/// here so one row cannot exhaust memory).
const MAX_KEYS_PER_ROW: usize = 10_000;

/// The group keys of `row` for the `by` fields: the cartesian product of their values (at most
/// [`MAX_KEYS_PER_ROW`]); empty when a field is missing or null.
pub(super) fn group_keys(row: &mut Row, by: &[String], out: &mut Vec<Vec<String>>) {
    out.clear();
    out.push(Vec::with_capacity(by.len()));
    for f in by {
        let vals: Vec<String> = match row.get(f) {
            Some(v) => v.iter_values().map(|x| x.as_str().into_owned()).collect(),
            None => Vec::new(),
        };
        if vals.is_empty() {
            out.clear();
            return;
        }
        if vals.len() == 1 {
            out.iter_mut().for_each(|k| k.push(vals[0].clone()));
            continue;
        }
        let prev = std::mem::take(out);
        'outer: for k in prev {
            for v in &vals {
                if out.len() >= MAX_KEYS_PER_ROW {
                    break 'outer;
                }
                let mut k2 = k.clone();
                k2.push(v.clone());
                out.push(k2);
            }
        }
    }
}

/// Drops repeated keys of one row, keeping the first of each (`dedup_splitvals=t`: a value that
/// occurs twice in a multivalue `by` field counts once).
pub(super) fn dedup_keys(keys: &mut Vec<Vec<String>>) {
    let mut i = 0;
    while i < keys.len() {
        if keys[..i].contains(&keys[i]) {
            keys.remove(i);
        } else {
            i += 1;
        }
    }
}

/// Compares group keys element by element in automatic order.
pub(super) fn cmp_keys(a: &[String], b: &[String]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| cmp_auto_str(x, y))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

impl StatsOp {
    /// Feeds counted rows (the count pushdown, [`crate::plan::columns::counts_suffice`]): each
    /// row stands for `count` events with the same field values.
    pub(super) fn push_counted(&mut self, rows: Vec<(Row, u64)>) -> Result<(), SearchError> {
        let mut keys = std::mem::take(&mut self.keys);
        let r = rows
            .into_iter()
            .try_for_each(|(mut r, w)| self.add(&mut r, w, &mut keys));
        self.keys = keys;
        r
    }

    /// Adds `row`, standing for `w` identical rows, to its groups (`keys`: scratch).
    fn add(&mut self, r: &mut Row, w: u64, keys: &mut Vec<Vec<String>>) -> Result<(), SearchError> {
        group_keys(r, &self.by, keys);
        if self.dedup_splitvals {
            dedup_keys(keys);
        }
        for k in keys.drain(..) {
            let gi = match self.index.get(&k) {
                Some(&i) => i,
                None => {
                    if self.groups.len() >= self.limits.max_groups {
                        return Err(exceeded("stats", "max_groups", self.limits.max_groups));
                    }
                    let states = self.aggs.iter().map(|a| AggState::new(a.kind)).collect();
                    self.groups.push((k.clone(), states));
                    self.index.insert(k, self.groups.len() - 1);
                    self.groups.len() - 1
                }
            };
            let states = &mut self.groups[gi].1;
            for (a, s) in self.aggs.iter().zip(states.iter_mut()) {
                a.update_counted(s, r, w);
            }
        }
        Ok(())
    }
}

impl Op for StatsOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        let mut keys = std::mem::take(&mut self.keys);
        let r = rows
            .into_iter()
            .try_for_each(|mut r| self.add(&mut r, 1, &mut keys));
        self.keys = keys;
        r.map(|()| Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        if self.by.is_empty() && self.groups.is_empty() {
            let states = self.aggs.iter().map(|a| AggState::new(a.kind)).collect();
            self.groups.push((Vec::new(), states));
        }
        let mut groups = std::mem::take(&mut self.groups);
        groups.sort_by(|a, b| cmp_keys(&a.0, &b.0));
        for (key, states) in groups {
            // Null results stay as columns so every row lists the columns in the same order.
            let by = self
                .by
                .iter()
                .zip(key)
                .map(|(f, v)| (f.clone(), Value::Str(v)));
            let aggs = self
                .aggs
                .iter()
                .zip(&states)
                .map(|(a, s)| (a.column.clone(), s.result(a.kind)));
            out.push(Row::from_fields(by.chain(aggs)));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{names, rows_of, strs};
    use lode_spl::ast::Agg;

    fn agg(func: &str, field: Option<&str>, alias: Option<&str>) -> Agg {
        Agg {
            func: func.into(),
            field: field.map(str::to_string),
            alias: alias.map(str::to_string),
            eval: None,
        }
    }

    fn run(aggs: Vec<Agg>, by: &[&str], rows: Vec<Row>) -> Vec<Row> {
        let mut op = StatsOp::new(
            Stats {
                aggs,
                by: by.iter().map(|s| s.to_string()).collect(),
                dedup_splitvals: false,
            },
            Limits::default(),
        )
        .unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        op.finish(&mut out).unwrap();
        out
    }

    fn sample() -> Vec<Row> {
        rows_of(
            &["host", "status", "bytes"],
            &[
                &["b", "200", "10"],
                &["a", "404", "5"],
                &["b", "200", "7"],
                &["a", "200", "x"],
                &["", "500", "1"],
            ],
        )
    }

    #[test]
    fn count_without_by_and_on_empty_input() {
        let out = run(vec![agg("count", None, None)], &[], sample());
        assert_eq!(strs(&out, "count"), vec!["5"]);
        let out = run(
            vec![agg("count", None, None), agg("avg", Some("bytes"), None)],
            &[],
            vec![],
        );
        assert_eq!(out.len(), 1);
        assert_eq!(strs(&out, "count"), vec!["0"]);
        assert!(out[0].peek("avg(bytes)").is_some_and(Value::is_null));
    }

    #[test]
    fn by_one_field_sorted_nulls_dropped() {
        let out = run(
            vec![
                agg("count", None, None),
                agg("sum", Some("bytes"), Some("total")),
                agg("max", Some("bytes"), None),
            ],
            &["host"],
            sample(),
        );
        assert_eq!(names(&out[0]), vec!["host", "count", "total", "max(bytes)"]);
        assert_eq!(strs(&out, "host"), vec!["a", "b"]);
        assert_eq!(strs(&out, "count"), vec!["2", "2"]);
        assert_eq!(strs(&out, "total"), vec!["5", "17"]);
        assert_eq!(strs(&out, "max(bytes)"), vec!["x", "10"]);
    }

    #[test]
    fn by_multiple_fields_numeric_order() {
        let mut rows = sample();
        rows.extend(rows_of(&["host", "status"], &[&["a", "1000"]]));
        let out = run(
            vec![
                agg("dc", Some("bytes"), None),
                agg("values", Some("bytes"), None),
            ],
            &["host", "status"],
            rows,
        );
        assert_eq!(strs(&out, "host"), vec!["a", "a", "a", "b"]);
        assert_eq!(strs(&out, "status"), vec!["200", "404", "1000", "200"]);
        assert_eq!(strs(&out, "dc(bytes)"), vec!["1", "1", "0", "2"]);
        assert_eq!(strs(&out, "values(bytes)"), vec!["x", "5", "", "10\n7"]);
    }

    #[test]
    fn group_limit() {
        let mut op = StatsOp::new(
            Stats {
                aggs: vec![agg("count", None, None)],
                by: vec!["host".into()],
                dedup_splitvals: false,
            },
            Limits {
                max_groups: 1,
                ..Limits::default()
            },
        )
        .unwrap();
        let err = op.push(sample(), &mut Vec::new()).unwrap_err();
        assert!(err.to_string().contains("max_groups"));
    }
}

#[cfg(test)]
mod key_tests {
    use super::*;

    #[test]
    fn multivalue_by_fields_expand_and_are_capped() {
        let mv = |n: usize| Value::Multi((0..n).map(|i| Value::Num(i as f64)).collect());
        let mut r = Row::from_fields([
            ("a".to_string(), mv(2)),
            ("b".to_string(), Value::Str("x".into())),
        ]);
        let mut keys = Vec::new();
        group_keys(&mut r, &["a".into(), "b".into()], &mut keys);
        assert_eq!(
            keys,
            vec![
                vec!["0".to_string(), "x".into()],
                vec!["1".to_string(), "x".into()]
            ]
        );
        let mut big = Row::from_fields([("a".to_string(), mv(200)), ("b".to_string(), mv(200))]);
        group_keys(&mut big, &["a".into(), "b".into()], &mut keys);
        assert_eq!(keys.len(), MAX_KEYS_PER_ROW);
        group_keys(&mut r, &["zz".into()], &mut keys);
        assert!(keys.is_empty());
    }
}
