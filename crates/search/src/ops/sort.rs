//! `sort [limit] [+|-]f…`: a stable sort of all rows by the keys, then the first `limit` rows
//! (default 10 000, `0` = all). `auto` order puts numbers (numerically) before strings
//! (lexicographically); `num()` orders numbers first and then the rest as strings, `str()` is
//! lexicographic. Rows lacking a key field sort after all others (before, when descending).

use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::{cmp_auto, Value};
use lode_spl::ast::{SortKey, SortMode};
use std::cmp::Ordering;

/// Default `sort` limit (Splunk's).
pub const DEFAULT_LIMIT: u64 = 10_000;

/// Buffers rows and sorts them at the end.
pub struct SortOp {
    keys: Vec<SortKey>,
    /// Rows kept after sorting; `usize::MAX` = all.
    limit: usize,
    limits: Limits,
    /// Each row with its key values (read once, at push).
    rows: Vec<(Vec<Value>, Row)>,
}

impl SortOp {
    /// `sort limit keys`.
    pub fn new(
        limit: Option<u64>,
        keys: Vec<SortKey>,
        limits: Limits,
    ) -> Result<SortOp, SearchError> {
        if keys.is_empty() {
            return Err(SearchError::User("sort needs at least one field".into()));
        }
        let limit = match limit.unwrap_or(DEFAULT_LIMIT) {
            0 => usize::MAX,
            n => usize::try_from(n).unwrap_or(usize::MAX),
        };
        Ok(SortOp {
            keys,
            limit,
            limits,
            rows: Vec::new(),
        })
    }
}

/// Compares two key values under `mode`, nulls last.
fn cmp_key(a: &Value, b: &Value, mode: SortMode) -> Ordering {
    match (a.is_null(), b.is_null()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    match mode {
        SortMode::Auto | SortMode::Num => cmp_auto(a, b),
        SortMode::Str => a.as_str().cmp(&b.as_str()),
    }
}

impl Op for SortOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        if self.rows.len() + rows.len() > self.limits.max_sort_rows {
            return Err(exceeded("sort", "max_sort_rows", self.limits.max_sort_rows));
        }
        for mut r in rows {
            let k = self
                .keys
                .iter()
                .map(|k| r.get(&k.field).cloned().unwrap_or(Value::Null))
                .collect();
            self.rows.push((k, r));
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        let keys = &self.keys;
        self.rows.sort_by(|(a, _), (b, _)| {
            for (i, k) in keys.iter().enumerate() {
                let o = cmp_key(&a[i], &b[i], k.mode);
                let o = if k.descending { o.reverse() } else { o };
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
        out.extend(self.rows.drain(..).take(self.limit).map(|(_, r)| r));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{str_rows, strs};

    fn key(field: &str, descending: bool, mode: SortMode) -> SortKey {
        SortKey {
            field: field.into(),
            descending,
            mode,
        }
    }

    fn run(limit: Option<u64>, keys: Vec<SortKey>, vals: &[&str]) -> Vec<String> {
        let mut op = SortOp::new(limit, keys, Limits::default()).unwrap();
        let mut out = Vec::new();
        let mut rows = str_rows("x", vals);
        for r in rows.iter_mut() {
            if r.peek("x").is_some_and(|v| v.as_str().is_empty()) {
                r.remove("x");
            }
        }
        op.push(rows, &mut out).unwrap();
        op.finish(&mut out).unwrap();
        strs(&out, "x")
    }

    #[test]
    fn auto_numbers_before_strings() {
        let v = ["b", "10", "9", "a", "", "-1"];
        assert_eq!(
            run(None, vec![key("x", false, SortMode::Auto)], &v),
            vec!["-1", "9", "10", "a", "b", ""]
        );
        assert_eq!(
            run(None, vec![key("x", true, SortMode::Auto)], &v),
            vec!["", "b", "a", "10", "9", "-1"]
        );
        assert_eq!(
            run(None, vec![key("x", false, SortMode::Str)], &v),
            vec!["-1", "10", "9", "a", "b", ""]
        );
        assert_eq!(
            run(None, vec![key("x", false, SortMode::Num)], &v),
            vec!["-1", "9", "10", "a", "b", ""]
        );
    }

    #[test]
    fn limit_and_stability() {
        assert_eq!(
            run(
                Some(2),
                vec![key("x", false, SortMode::Auto)],
                &["3", "1", "2"]
            ),
            vec!["1", "2"]
        );
        let mut op = SortOp::new(
            Some(0),
            vec![key("k", false, SortMode::Auto)],
            Limits::default(),
        )
        .unwrap();
        let mut rows = str_rows("k", &["1", "0", "1", "0"]);
        for (i, r) in rows.iter_mut().enumerate() {
            r.set("i", Value::Num(i as f64));
        }
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        op.finish(&mut out).unwrap();
        assert_eq!(strs(&out, "i"), vec!["1", "3", "0", "2"]);
    }

    #[test]
    fn row_limit_is_enforced() {
        let l = Limits {
            max_sort_rows: 2,
            ..Limits::default()
        };
        let mut op = SortOp::new(None, vec![key("x", false, SortMode::Auto)], l).unwrap();
        let err = op
            .push(str_rows("x", &["1", "2", "3"]), &mut Vec::new())
            .unwrap_err();
        assert!(err.to_string().contains("max_sort_rows"));
    }
}
