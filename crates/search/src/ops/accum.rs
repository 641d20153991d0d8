//! `accum f [AS g]`: the running total of `f` over the rows so far, in input order, written to
//! `g` (or over `f`). A row whose `f` is not a number keeps its fields (no total written).

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

/// Running total.
pub struct AccumOp {
    field: String,
    out: String,
    total: f64,
}

impl AccumOp {
    /// `accum field [AS alias]`.
    pub fn new(field: String, alias: Option<String>) -> AccumOp {
        let out = alias.unwrap_or_else(|| field.clone());
        AccumOp {
            field,
            out,
            total: 0.0,
        }
    }
}

impl Op for AccumOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            if let Some(n) = r.get(&self.field).and_then(Value::to_num) {
                self.total += n;
                r.set(&self.out, Value::Num(self.total));
            }
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn running_total_skips_non_numbers() {
        let rows = ["1", "x", "2.5"]
            .iter()
            .map(|v| Row::from_fields([("b".to_string(), Value::Str(v.to_string()))]))
            .collect();
        let mut op = AccumOp::new("b".into(), Some("t".into()));
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        let t: Vec<Option<f64>> = out
            .iter()
            .map(|r| r.peek("t").and_then(|v| v.to_num()))
            .collect();
        assert_eq!(t, vec![Some(1.0), None, Some(3.5)]);
    }
}
