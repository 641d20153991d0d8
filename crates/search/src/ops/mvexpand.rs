//! `mvexpand f [limit=N]`: a row with a multivalue `f` becomes one row per value (at most
//! `limit`), each a copy of the row with `f` set to that value. Rows with a single value pass
//! unchanged; rows without `f` are dropped, as in Splunk.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

/// Expands a multivalue field.
pub struct MvExpandOp {
    field: String,
    limit: usize,
}

impl MvExpandOp {
    /// `mvexpand field [limit=N]`.
    pub fn new(field: String, limit: Option<u64>) -> MvExpandOp {
        let limit = limit
            .filter(|&n| n > 0)
            .map_or(usize::MAX, |n| usize::try_from(n).unwrap_or(usize::MAX));
        MvExpandOp { field, limit }
    }
}

impl Op for MvExpandOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for mut r in rows {
            let vals = match r.get(&self.field) {
                None => continue,
                Some(Value::Multi(v)) => v.clone(),
                Some(_) => {
                    out.push(r);
                    continue;
                }
            };
            for v in vals.into_iter().take(self.limit) {
                let mut copy = r.clone();
                copy.set(&self.field, v);
                out.push(copy);
            }
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::strs;

    #[test]
    fn one_row_per_value() {
        let multi = Value::Multi(vec![
            Value::Str("a".into()),
            Value::Str("b".into()),
            Value::Str("c".into()),
        ]);
        let rows = vec![
            Row::from_fields([("f".to_string(), multi), ("k".to_string(), Value::Num(1.0))]),
            Row::from_fields([("f".to_string(), Value::Str("x".into()))]),
            Row::new(),
        ];
        let mut out = Vec::new();
        MvExpandOp::new("f".into(), Some(2))
            .push(rows, &mut out)
            .unwrap();
        assert_eq!(strs(&out, "f"), vec!["a", "b", "x"]);
        assert_eq!(strs(&out, "k"), vec!["1", "1", ""]);
    }
}
