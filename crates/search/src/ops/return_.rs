//! `return [N] …`: the first N rows become one row whose `search` field holds their
//! `field="value"` pairs (see [`crate::compose::return_rows`]); reading stops after N rows.

use super::{Flow, Op};
use crate::compose::return_rows;
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::Return;

/// Keeps the first N rows, emits the search text at the end.
pub struct ReturnOp {
    ret: Return,
    rows: Vec<Row>,
}

impl ReturnOp {
    /// `return` with these arguments.
    pub fn new(ret: Return) -> ReturnOp {
        ReturnOp {
            ret,
            rows: Vec::new(),
        }
    }
}

impl Op for ReturnOp {
    fn push(&mut self, mut rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        let max = self.ret.count as usize;
        rows.truncate(max.saturating_sub(self.rows.len()));
        self.rows.append(&mut rows);
        Ok(if self.rows.len() >= max {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        // Event rows: their search-time fields can be returned too.
        self.rows.iter_mut().for_each(Row::extract_all);
        let text = return_rows(&self.rows, &self.ret);
        self.rows.clear();
        out.push(Row::from_fields([("search".to_string(), Value::Str(text))]));
        Ok(())
    }
}
