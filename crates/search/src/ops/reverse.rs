//! `reverse`: holds every row (limit `max_sort_rows`) and emits them in the opposite order.

use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;

/// Buffers rows to emit them backwards.
pub struct ReverseOp {
    rows: Vec<Row>,
    limits: Limits,
}

impl ReverseOp {
    /// An empty buffer.
    pub fn new(limits: Limits) -> ReverseOp {
        ReverseOp {
            rows: Vec::new(),
            limits,
        }
    }
}

impl Op for ReverseOp {
    fn push(&mut self, mut rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        if self.rows.len() + rows.len() > self.limits.max_sort_rows {
            return Err(exceeded(
                "reverse",
                "max_sort_rows",
                self.limits.max_sort_rows,
            ));
        }
        self.rows.append(&mut rows);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        out.extend(std::mem::take(&mut self.rows).into_iter().rev());
        Ok(())
    }
}
