//! `fillnull [value=v] [f…]`: sets the listed fields to `value` where they are missing, null or
//! empty. Without a list it fills every field (except internal `_` fields) that appears in some result row, so it holds all
//! rows until the end (limit `max_sort_rows`); with a list it streams.

use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

/// Fills empty fields.
pub struct FillNullOp {
    value: Value,
    fields: Vec<String>,
    limits: Limits,
    /// Rows held when `fields` is empty (all fields).
    rows: Vec<Row>,
}

impl FillNullOp {
    /// `fillnull value=<value> <fields>`.
    pub fn new(value: String, fields: Vec<String>, limits: Limits) -> FillNullOp {
        FillNullOp {
            value: Value::Str(value),
            fields,
            limits,
            rows: Vec::new(),
        }
    }
}

/// Whether `v` counts as empty for `fillnull`.
fn empty(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::Str(s)) => s.is_empty(),
        Some(Value::Multi(m)) => m.is_empty(),
        Some(_) => false,
    }
}

fn fill(r: &mut Row, fields: &[String], value: &Value) {
    for f in fields {
        if empty(r.get(f)) {
            r.set(f, value.clone());
        }
    }
}

impl Op for FillNullOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        if self.fields.is_empty() {
            if self.rows.len() + rows.len() > self.limits.max_sort_rows {
                return Err(exceeded(
                    "fillnull",
                    "max_sort_rows",
                    self.limits.max_sort_rows,
                ));
            }
            self.rows.append(&mut rows);
            return Ok(Flow::Continue);
        }
        for mut r in rows {
            fill(&mut r, &self.fields, &self.value);
            out.push(r);
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        let mut all: Vec<String> = Vec::new();
        for r in &mut self.rows {
            r.extract_all();
            for (n, _) in r.fields() {
                if !n.starts_with('_') && !all.iter().any(|a| a == n) {
                    all.push(n.to_string());
                }
            }
        }
        for mut r in std::mem::take(&mut self.rows) {
            fill(&mut r, &all, &self.value);
            out.push(r);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(f: &[(&str, &str)]) -> Row {
        Row::from_fields(
            f.iter()
                .map(|(k, v)| (k.to_string(), Value::Str(v.to_string()))),
        )
    }

    #[test]
    fn listed_fields_stream() {
        let mut op = FillNullOp::new("x".into(), vec!["a".into(), "b".into()], Limits::default());
        let mut out = Vec::new();
        op.push(vec![row(&[("a", "1"), ("b", "")]), row(&[])], &mut out)
            .unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].peek("a"), Some(&Value::Str("1".into())));
        assert_eq!(out[0].peek("b"), Some(&Value::Str("x".into())));
        assert_eq!(out[1].peek("a"), Some(&Value::Str("x".into())));
    }

    #[test]
    fn all_fields_at_the_end() {
        let mut op = FillNullOp::new("0".into(), vec![], Limits::default());
        let mut out = Vec::new();
        op.push(vec![row(&[("a", "1")]), row(&[("b", "2")])], &mut out)
            .unwrap();
        assert!(out.is_empty());
        op.finish(&mut out).unwrap();
        assert_eq!(out[0].peek("b"), Some(&Value::Str("0".into())));
        assert_eq!(out[1].peek("a"), Some(&Value::Str("0".into())));
    }
}
