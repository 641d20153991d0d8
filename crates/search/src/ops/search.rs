//! `search` later in the pipeline: keeps rows matching the clause ([`crate::matcher`]).

use super::{Flow, Op};
use crate::error::SearchError;
use crate::matcher::matches;
use crate::row::Row;
use lode_spl::ast::SearchExpr;

/// Filters rows with a search clause (`None` keeps everything).
pub struct SearchOp {
    expr: Option<SearchExpr>,
}

impl SearchOp {
    /// A filter for `expr`.
    pub fn new(expr: Option<SearchExpr>) -> SearchOp {
        SearchOp { expr }
    }
}

impl Op for SearchOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for mut r in rows {
            if self.expr.as_ref().is_none_or(|e| matches(e, &mut r)) {
                out.push(r);
            }
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;
    use lode_spl::ast::CmpOp;

    #[test]
    fn filters_on_fields_of_results() {
        let rows: Vec<Row> = ["a", "b", "A"]
            .iter()
            .map(|v| Row::from_fields([("x".to_string(), Value::Str(v.to_string()))]))
            .collect();
        let mut op = SearchOp::new(Some(SearchExpr::Compare {
            field: "x".into(),
            op: CmpOp::Eq,
            value: "a".into(),
            quoted: false,
        }));
        let mut out = Vec::new();
        op.push(rows.clone(), &mut out).unwrap();
        assert_eq!(out.len(), 2);
        let mut all = SearchOp::new(None);
        out.clear();
        all.push(rows, &mut out).unwrap();
        assert_eq!(out.len(), 3);
    }
}
