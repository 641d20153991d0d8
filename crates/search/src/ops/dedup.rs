//! `dedup [N] f… [keepempty=t] [consecutive=t]`: keeps the first N rows (in input order) of each
//! value combination; rows lacking a field are dropped unless `keepempty`. With `consecutive`,
//! only runs of equal adjacent combinations are thinned. With `sortby -x +y`, the kept rows are
//! held and sorted by those keys at the end (as `sort 0`, limit `max_sort_rows`).

use super::limits::{exceeded, Limits};
use super::sort::SortOp;
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use lode_spl::ast::SortKey;
use std::collections::HashMap;

/// Removes duplicate value combinations.
pub struct DedupOp {
    count: u64,
    fields: Vec<String>,
    keepempty: bool,
    consecutive: bool,
    limits: Limits,
    /// Rows passed per combination (non-consecutive mode).
    seen: HashMap<Vec<String>, u64>,
    /// The previous combination and how many of its run passed (consecutive mode).
    last: Option<(Vec<String>, u64)>,
    /// `sortby`: the kept rows go here and come out sorted at the end.
    sort: Option<SortOp>,
}

impl DedupOp {
    /// `dedup count fields keepempty consecutive`.
    pub fn new(
        count: u64,
        fields: Vec<String>,
        keepempty: bool,
        consecutive: bool,
        limits: Limits,
    ) -> DedupOp {
        DedupOp {
            count: count.max(1),
            fields,
            keepempty,
            consecutive,
            limits,
            seen: HashMap::new(),
            last: None,
            sort: None,
        }
    }

    /// `sortby` keys (none: rows pass in input order).
    pub fn sorted_by(mut self, keys: &[SortKey], limits: Limits) -> Result<DedupOp, SearchError> {
        if !keys.is_empty() {
            self.sort = Some(SortOp::new(Some(0), keys.to_vec(), limits)?);
        }
        Ok(self)
    }

    fn key(&self, r: &mut Row) -> Option<Vec<String>> {
        let mut k = Vec::with_capacity(self.fields.len());
        for f in &self.fields {
            match r.get(f) {
                Some(v) if !v.is_null() => k.push(v.as_str().into_owned()),
                _ => return None,
            }
        }
        Some(k)
    }
}

impl Op for DedupOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        if self.sort.is_some() {
            let mut kept = Vec::new();
            self.thin(rows, &mut kept)?;
            if let Some(s) = &mut self.sort {
                s.push(kept, out)?;
            }
            return Ok(Flow::Continue);
        }
        self.thin(rows, out)?;
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        match &mut self.sort {
            Some(s) => s.finish(out),
            None => Ok(()),
        }
    }
}

impl DedupOp {
    /// Appends the rows of `rows` that pass to `out`, in order.
    fn thin(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<(), SearchError> {
        for mut r in rows {
            let Some(k) = self.key(&mut r) else {
                if self.keepempty {
                    out.push(r);
                }
                continue;
            };
            let pass = if self.consecutive {
                match &mut self.last {
                    Some((prev, n)) if *prev == k => {
                        *n += 1;
                        *n <= self.count
                    }
                    _ => {
                        self.last = Some((k, 1));
                        true
                    }
                }
            } else {
                if !self.seen.contains_key(&k) && self.seen.len() >= self.limits.max_dedup_keys {
                    return Err(exceeded(
                        "dedup",
                        "max_dedup_keys",
                        self.limits.max_dedup_keys,
                    ));
                }
                let n = self.seen.entry(k).or_insert(0);
                *n += 1;
                *n <= self.count
            };
            if pass {
                out.push(r);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{str_rows, strs};
    use crate::value::Value;

    fn run(op: &mut DedupOp, vals: &[&str]) -> Vec<String> {
        let mut rows = str_rows("x", vals);
        for (i, r) in rows.iter_mut().enumerate() {
            r.set("i", Value::Num(i as f64));
            if vals[i].is_empty() {
                r.remove("x");
            }
        }
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        strs(&out, "i")
    }

    #[test]
    fn sortby_sorts_the_kept_rows() {
        let key = |f: &str, descending| SortKey {
            field: f.into(),
            descending,
            mode: lode_spl::ast::SortMode::Auto,
        };
        let mut op = DedupOp::new(1, vec!["x".into()], false, false, Limits::default())
            .sorted_by(&[key("x", true)], Limits::default())
            .unwrap();
        let mut out = Vec::new();
        op.push(str_rows("x", &["b", "a", "b", "c"]), &mut out)
            .unwrap();
        assert!(out.is_empty());
        op.push(str_rows("x", &["a", "d"]), &mut out).unwrap();
        op.finish(&mut out).unwrap();
        assert_eq!(strs(&out, "x"), vec!["d", "c", "b", "a"]);
    }

    #[test]
    fn first_occurrence_and_empty() {
        let v = ["a", "b", "a", "", "b", "c"];
        let mut op = DedupOp::new(1, vec!["x".into()], false, false, Limits::default());
        assert_eq!(run(&mut op, &v), vec!["0", "1", "5"]);
        let mut op = DedupOp::new(1, vec!["x".into()], true, false, Limits::default());
        assert_eq!(run(&mut op, &v), vec!["0", "1", "3", "5"]);
        let mut op = DedupOp::new(2, vec!["x".into()], false, false, Limits::default());
        assert_eq!(run(&mut op, &v), vec!["0", "1", "2", "4", "5"]);
    }

    #[test]
    fn consecutive_only() {
        let v = ["a", "a", "b", "a", "a", "a"];
        let mut op = DedupOp::new(1, vec!["x".into()], false, true, Limits::default());
        assert_eq!(run(&mut op, &v), vec!["0", "2", "3"]);
        let mut op = DedupOp::new(2, vec!["x".into()], false, true, Limits::default());
        assert_eq!(run(&mut op, &v), vec!["0", "1", "2", "3", "4"]);
    }

    #[test]
    fn key_limit() {
        let l = Limits {
            max_dedup_keys: 2,
            ..Limits::default()
        };
        let mut op = DedupOp::new(1, vec!["x".into()], false, false, l);
        let err = op
            .push(str_rows("x", &["a", "b", "c"]), &mut Vec::new())
            .unwrap_err();
        assert!(matches!(err, SearchError::Limit(_)));
    }
}
