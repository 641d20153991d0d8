//! `uniq`: drops a row when it is identical (every field and value) to the row before it.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

/// Drops consecutive duplicate rows.
#[derive(Default)]
pub struct UniqOp {
    last: Option<Vec<(String, Value)>>,
}

impl Op for UniqOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows {
            let fields: Vec<(String, Value)> = r
                .fields()
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect();
            if self.last.as_ref() != Some(&fields) {
                self.last = Some(fields);
                out.push(r);
            }
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{str_rows, strs};

    #[test]
    fn consecutive_duplicates_only() {
        let mut out = Vec::new();
        UniqOp::default()
            .push(str_rows("a", &["x", "x", "y", "x", "x"]), &mut out)
            .unwrap();
        assert_eq!(strs(&out, "a"), vec!["x", "y", "x"]);
    }
}
