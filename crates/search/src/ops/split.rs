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
use crate::compose::runner::SubsearchRunner;
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
    /// Runs the nested searches of the rest (`append`, `join`, …).
    runner: Option<SubsearchRunner>,
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
        Split::with_runner(commands, ctx, limits, None)
    }

    /// [`Split::new`] with the runner of nested searches (see [`Executor::with_runner`]).
    pub fn with_runner(
        commands: &[Command],
        ctx: ExecContext,
        limits: Limits,
        runner: Option<&SubsearchRunner>,
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
            runner: runner.cloned(),
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
            prefix_empty: self.prefix.is_empty(),
            passed: Vec::new(),
            out: Vec::new(),
        })
    }

    /// The final step: an empty merged state and the rest of the pipeline.
    pub fn final_exec(&self) -> Result<FinalExec, SearchError> {
        let rest = self
            .rest
            .iter()
            .map(|c| build(c, self.ctx, self.limits, self.runner.as_ref()))
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
    /// Whether there are no streaming commands before the partial state.
    prefix_empty: bool,
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

    /// Pushes counted rows (each standing for `count` identical rows, see
    /// [`crate::plan::columns::counts_suffice`]) straight into the partial state. Only for a
    /// split without streaming prefix (the planner's rule guarantees it).
    pub fn push_counted(&mut self, rows: Vec<(Row, u64)>) -> Result<(), SearchError> {
        if !self.prefix_empty {
            return Err(SearchError::Io(
                "internal: counted rows need a pipeline without streaming prefix".into(),
            ));
        }
        self.partial.push_counted(rows)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{ctx, rows_of};

    fn commands(q: &str) -> Vec<Command> {
        let mut c = lode_spl::parse(q).unwrap().commands;
        c.remove(0);
        c
    }

    fn data() -> Vec<Row> {
        let mut rows = Vec::new();
        for i in 0..60 {
            let host = format!("h{}", (i * 7) % 5);
            let user = ["ann", "bob", "cy"][i % 3];
            let t = format!("{}", 1_700_000_000 + i * 37);
            let n = format!("{}", i % 11);
            rows.extend(rows_of(
                &["_time", "host", "user", "n"],
                &[&[&t, &host, user, &n]],
            ));
        }
        rows
    }

    /// The naive twin: every row through the unsplit executor.
    fn unsplit(cmds: &[Command], rows: Vec<Row>) -> Vec<String> {
        let mut exec = Executor::new(cmds, ctx()).unwrap();
        let mut out = Vec::new();
        exec.push(rows, &mut out).unwrap();
        exec.finish(&mut out).unwrap();
        out.iter().map(|r| format!("{r:?}")).collect()
    }

    /// Rows cut into `parts` chunks; each chunk's partial taken from a round-robin of two
    /// workers, merged in chunk order.
    fn split_run(cmds: &[Command], rows: Vec<Row>, parts: usize) -> Vec<String> {
        let split = Split::new(cmds, ctx(), Limits::default()).unwrap().unwrap();
        let mut workers = [split.worker().unwrap(), split.worker().unwrap()];
        let mut fin = split.final_exec().unwrap();
        let size = rows.len().div_ceil(parts);
        let mut rows = rows.into_iter();
        for i in 0..parts {
            let chunk: Vec<Row> = rows.by_ref().take(size).collect();
            let w = &mut workers[i % 2];
            w.push(chunk).unwrap();
            fin.merge(w.take()).unwrap();
        }
        let mut out = Vec::new();
        fin.finish(&mut out).unwrap();
        out.iter().map(|r| format!("{r:?}")).collect()
    }

    #[test]
    fn merged_partials_equal_one_pass() {
        for q in [
            "* | stats count sum(n) avg(n) dc(user) values(user) min(n) max(n) by host",
            "* | where n > 2 | stats count",
            "* | top user by host",
            "* | rare limit=2 n",
            "* | eval k=n % 3 | timechart span=10m count by k",
            "* | timechart max(n)",
            "* | stats count by user | sort - count | head 2",
        ] {
            let cmds = commands(q);
            let want = unsplit(&cmds, data());
            for parts in [1, 2, 7] {
                assert_eq!(
                    split_run(&cmds, data(), parts),
                    want,
                    "{q} in {parts} parts"
                );
            }
        }
    }

    #[test]
    fn counted_rows_equal_repeated_rows() {
        let rows = |w: &[(&str, &str, u64)]| -> Vec<(Row, u64)> {
            w.iter()
                .map(|&(h, s, n)| (rows_of(&["host", "st"], &[&[h, s]]).remove(0), n))
                .collect()
        };
        let data = rows(&[("a", "x", 3), ("b", "y", 1), ("a", "y", 2), ("c", "x", 2)]);
        for q in [
            "* | stats count dc(st) values(host) min(st) max(host) count(st) by host",
            "* | stats count",
            "* | top st by host",
            "* | rare limit=1 host",
        ] {
            let cmds = commands(q);
            let repeated: Vec<Row> = data
                .iter()
                .flat_map(|(r, n)| std::iter::repeat_n(r.clone(), *n as usize))
                .collect();
            let want = unsplit(&cmds, repeated);
            let split = Split::new(&cmds, ctx(), Limits::default())
                .unwrap()
                .unwrap();
            let mut w = split.worker().unwrap();
            let mut fin = split.final_exec().unwrap();
            w.push_counted(data.clone()).unwrap();
            fin.merge(w.take()).unwrap();
            let mut out = Vec::new();
            fin.finish(&mut out).unwrap();
            let got: Vec<String> = out.iter().map(|r| format!("{r:?}")).collect();
            assert_eq!(got, want, "{q}");
        }
    }

    #[test]
    fn only_streaming_prefixes_split() {
        assert!(Split::new(
            &commands("* | head 3 | stats count"),
            ctx(),
            Limits::default()
        )
        .unwrap()
        .is_none());
        assert!(
            Split::new(&commands("* | table a"), ctx(), Limits::default())
                .unwrap()
                .is_none()
        );
        assert!(matches!(
            Split::new(
                &commands("* | stats count | eval x=nosuch(1)"),
                ctx(),
                Limits::default()
            ),
            Err(SearchError::User(_))
        ));
    }
}
