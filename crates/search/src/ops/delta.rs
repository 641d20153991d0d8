//! `delta f [AS g] [p=N]`: `f` minus the `f` of the row N rows earlier (input order), written to
//! `g` (default `delta(f)`). Nothing is written for the first N rows or when either value is not
//! a number.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use std::collections::VecDeque;

/// Difference to an earlier row.
pub struct DeltaOp {
    field: String,
    out: String,
    p: usize,
    /// The last `p` values, oldest first.
    history: VecDeque<Option<f64>>,
}

impl DeltaOp {
    /// `delta field [AS alias] p=p`.
    pub fn new(field: String, alias: Option<String>, p: u64) -> Result<DeltaOp, SearchError> {
        if p == 0 {
            return Err(SearchError::User("delta: p must be at least 1".into()));
        }
        let out = alias.unwrap_or_else(|| format!("delta({field})"));
        Ok(DeltaOp {
            field,
            out,
            p: usize::try_from(p).unwrap_or(usize::MAX),
            history: VecDeque::new(),
        })
    }
}

impl Op for DeltaOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            let cur = r.get(&self.field).and_then(Value::to_num);
            if self.history.len() == self.p {
                if let (Some(c), Some(Some(old))) = (cur, self.history.front()) {
                    r.set(&self.out, Value::Num(c - old));
                }
                self.history.pop_front();
            }
            self.history.push_back(cur);
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differences_p_rows_back() {
        let rows = ["1", "4", "x", "10"]
            .iter()
            .map(|v| Row::from_fields([("b".to_string(), Value::Str(v.to_string()))]))
            .collect();
        let mut op = DeltaOp::new("b".into(), None, 2).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        let d: Vec<Option<f64>> = out
            .iter()
            .map(|r| r.peek("delta(b)").and_then(|v| v.to_num()))
            .collect();
        assert_eq!(d, vec![None, None, None, Some(6.0)]);
        assert!(DeltaOp::new("b".into(), None, 0).is_err());
    }
}
