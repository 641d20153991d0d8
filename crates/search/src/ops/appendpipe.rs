//! `appendpipe [cmd | …]`: passes every row on unchanged, then runs the sub-pipeline over a copy
//! of all of them and appends its output (Splunk runs it when the search reaches the command,
//! not first like a subsearch). Holds its input until the end (limit `max_sort_rows`).

use super::limits::{exceeded, Limits};
use super::{ExecContext, Executor, Flow, Op};
use crate::compose::runner::SubsearchRunner;
use crate::error::SearchError;
use crate::row::Row;
use lode_spl::ast::Command;

/// Holds the rows, then appends the sub-pipeline's output.
pub struct AppendPipeOp {
    /// Built up front so a bad sub-pipeline fails before the scan.
    sub: Option<Executor>,
    limits: Limits,
    rows: Vec<Row>,
}

impl AppendPipeOp {
    /// `appendpipe [sub]`.
    pub fn new(
        sub: &[Command],
        ctx: ExecContext,
        limits: Limits,
        runner: Option<&SubsearchRunner>,
    ) -> Result<Self, SearchError> {
        Ok(AppendPipeOp {
            sub: Some(Executor::with_runner(sub, ctx, limits, runner)?),
            limits,
            rows: Vec::new(),
        })
    }
}

impl Op for AppendPipeOp {
    fn push(&mut self, mut rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        if self.rows.len() + rows.len() > self.limits.max_sort_rows {
            return Err(exceeded(
                "appendpipe",
                "max_sort_rows",
                self.limits.max_sort_rows,
            ));
        }
        self.rows.append(&mut rows);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        let rows = std::mem::take(&mut self.rows);
        let Some(mut sub) = self.sub.take() else {
            return Ok(());
        };
        let mut appended = Vec::new();
        if !rows.is_empty() {
            sub.push(rows.clone(), &mut appended)?;
        }
        sub.finish(&mut appended)?;
        out.extend(rows);
        out.extend(appended);
        Ok(())
    }
}
