//! `mvcombine [delim=s] f`: rows whose other fields are all equal become one row, at the
//! position of the first, with `f` a multivalue of their values (in row order). Rows without
//! `f` pass unchanged. Holds all rows (limit `max_sort_rows`). Lode keeps the multivalue; the
//! single-value form joined by `delim` that Splunk also keeps is not stored (`nomv` joins with
//! newlines, `eval mvjoin()` with any separator).

use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use std::collections::HashMap;

/// Combines rows.
pub struct MvCombineOp {
    field: String,
    limits: Limits,
    /// Output rows with the values gathered for `field`.
    rows: Vec<(Row, Vec<Value>)>,
    /// Text of the other fields → index into `rows`.
    index: HashMap<String, usize>,
}

impl MvCombineOp {
    /// `mvcombine field`.
    pub fn new(field: String, limits: Limits) -> MvCombineOp {
        MvCombineOp {
            field,
            limits,
            rows: Vec::new(),
            index: HashMap::new(),
        }
    }
}

/// A key of the row's fields other than `skip` (names and values).
fn key_without(r: &Row, skip: &str) -> String {
    let mut k = String::new();
    for (n, v) in r.fields() {
        if n != skip {
            k.push_str(n);
            k.push('\u{1}');
            k.push_str(&v.to_string());
            k.push('\u{2}');
        }
    }
    k
}

impl Op for MvCombineOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for mut r in rows {
            r.extract_all();
            if self.rows.len() >= self.limits.max_sort_rows {
                return Err(exceeded(
                    "mvcombine",
                    "max_sort_rows",
                    self.limits.max_sort_rows,
                ));
            }
            let Some(v) = r.peek(&self.field).cloned() else {
                self.rows.push((r, Vec::new()));
                continue;
            };
            let k = key_without(&r, &self.field);
            match self.index.get(&k) {
                Some(&i) => self.rows[i].1.extend(v.iter_values().cloned()),
                None => {
                    self.index.insert(k, self.rows.len());
                    let vals = v.iter_values().cloned().collect();
                    self.rows.push((r, vals));
                }
            }
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        for (mut r, vals) in std::mem::take(&mut self.rows) {
            if !vals.is_empty() {
                r.set(&self.field, Value::from_values(vals));
            }
            out.push(r);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{rows_of, strs};

    #[test]
    fn combines_rows_equal_elsewhere() {
        let rows = rows_of(
            &["h", "f"],
            &[&["a", "1"], &["b", "2"], &["a", "3"], &["a", ""]],
        );
        let mut op = MvCombineOp::new("f".into(), Limits::default());
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        op.finish(&mut out).unwrap();
        assert_eq!(strs(&out, "h"), vec!["a", "b", "a"]);
        assert_eq!(strs(&out, "f"), vec!["1\n3", "2", ""]);
    }
}
