//! `nomv f`: a multivalue field becomes one text value, its values joined by newlines.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

/// Flattens a multivalue field.
pub struct NoMvOp {
    field: String,
}

impl NoMvOp {
    /// `nomv field`.
    pub fn new(field: String) -> NoMvOp {
        NoMvOp { field }
    }
}

impl Op for NoMvOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            if let Some(v @ Value::Multi(_)) = r.get(&self.field) {
                let text = v.to_string();
                r.set(&self.field, Value::Str(text));
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
    fn joins_with_newlines() {
        let m = Value::Multi(vec![Value::Str("a".into()), Value::Num(2.0)]);
        let mut out = Vec::new();
        NoMvOp::new("f".into())
            .push(vec![Row::from_fields([("f".to_string(), m)])], &mut out)
            .unwrap();
        assert_eq!(out[0].peek("f"), Some(&Value::Str("a\n2".into())));
    }
}
