//! A pipeline split for parallel (and later distributed) execution: the streaming prefix and the
//! partial half of the first transforming command run on every worker ([`PartialExec`]); the
//! merge of their partial states and the rest of the pipeline run once ([`FinalExec`]).
//!
//! Where the split falls is decided by [`crate::plan::order::split_point`]. The unsplit
//! [`Executor`] is the naive twin: pushing all rows through it in scan order gives the same rows
//! as pushing them through workers, taking a partial per bucket and merging those in order.

use super::limits::Limits;
use super::partial::Partial;
use super::{build, ExecContext, Executor, Op};
use crate::error::SearchError;
use crate::plan::order::split_point;
use crate::row::Row;
use lode_spl::ast::Command;

/// A pipeline cut at its first transforming command.
#[derive(Debug, Clone)]
pub struct Split {
    /// Streaming commands before it (run by every worker).
    prefix: Vec<Command>,
    /// The transforming command (partial on the workers, final once).
    agg: Command,
    /// Commands after it (centralized: run once on the merged rows).
    rest: Vec<Command>,
    ctx: ExecContext,
    limits: Limits,
}

impl Split {
    /// Splits `commands` (those after the leading search clause), or `None` when they cannot be
    /// split (event searches, order-dependent commands first). Every command is compiled once
    /// here, so a bad pipeline fails before any bucket is read.
    pub fn new(
        commands: &[Command],
        ctx: ExecContext,
        limits: Limits,
    ) -> Result<Option<Split>, SearchError> {
        let Some(at) = split_point(commands) else {
            return Ok(None);
        };
        let split = Split {
            prefix: commands[..at].to_vec(),
            agg: commands[at].clone(),
            rest: commands[at + 1..].to_vec(),
            ctx,
            limits,
        };
        split.worker()?;
        split.final_exec()?;
        Ok(Some(split))
    }

    /// A worker: the streaming prefix feeding an empty partial state.
    pub fn worker(&self) -> Result<PartialExec, SearchError> {
        Ok(PartialExec {
            prefix: Executor::with_limits(&self.prefix, self.ctx, self.limits)?,
            partial: Partial::build(&self.agg, self.ctx, self.limits)?,
            passed: Vec::new(),
            out: Vec::new(),
        })
    }

    /// The final step: an empty merged state and the rest of the pipeline.
    pub fn final_exec(&self) -> Result<FinalExec, SearchError> {
        let rest = self
            .rest
            .iter()
            .map(|c| build(c, self.ctx, self.limits))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(FinalExec {
            merged: Partial::build(&self.agg, self.ctx, self.limits)?,
            rest,
        })
    }
}

/// One worker's half: streaming commands, then the partial state.
pub struct PartialExec {
    prefix: Executor,
    partial: Partial,
    /// Rows that passed the prefix (reused buffer).
    passed: Vec<Row>,
    /// Output of the partial operator (always empty: it emits only at `finish`; reused).
    out: Vec<Row>,
}

impl PartialExec {
    /// Pushes a batch (owned) through the prefix into the partial state.
    pub fn push(&mut self, rows: Vec<Row>) -> Result<(), SearchError> {
        self.prefix.push(rows, &mut self.passed)?;
        if !self.passed.is_empty() {
            let batch = std::mem::take(&mut self.passed);
            self.partial.op().push(batch, &mut self.out)?;
            self.out.clear();
        }
        Ok(())
    }

    /// The partial state so far (for the rows pushed since the last `take`).
    pub fn take(&mut self) -> Partial {
        self.partial.take()
    }
}

/// The final half: merges partial states in scan order, then runs the rest of the pipeline.
pub struct FinalExec {
    merged: Partial,
    /// The operators after the transforming command.
    rest: Vec<Box<dyn Op>>,
}

impl FinalExec {
    /// Merges the state of the next rows in scan order.
    pub fn merge(&mut self, p: Partial) -> Result<(), SearchError> {
        self.merged.merge(p)
    }

    /// Emits the transforming command's rows through the rest of the pipeline into `out`.
    pub fn finish(self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        let mut ops = Vec::with_capacity(self.rest.len() + 1);
        ops.push(self.merged.into_op());
        ops.extend(self.rest);
        Executor::from_ops(ops, true, None).finish(out)
    }
}
