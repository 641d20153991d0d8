//! `table f1, f2*`: only these fields, in this order (wildcards expand in row order).

use super::fields::keep_ordered;
use super::glob::Glob;
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;

/// Projects rows onto the listed fields.
pub struct TableOp {
    globs: Vec<Glob>,
}

impl TableOp {
    /// The listed fields or patterns.
    pub fn new(fields: Vec<String>) -> TableOp {
        TableOp {
            globs: fields.iter().map(|f| Glob::new(f)).collect(),
        }
    }
}

impl Op for TableOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows.iter_mut() {
            keep_ordered(r, &self.globs, &[]);
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{event_row, names};

    #[test]
    fn listed_order_without_raw() {
        let mut op = TableOp::new(vec![
            "code".into(),
            "user".into(),
            "nope".into(),
            "source*".into(),
        ]);
        let mut out = Vec::new();
        op.push(vec![event_row("user=bob code=1")], &mut out)
            .unwrap();
        assert_eq!(names(&out[0]), vec!["code", "user", "source", "sourcetype"]);
    }
}
