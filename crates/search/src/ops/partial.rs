//! The partial state of a transforming command (stats, chart, timechart, top/rare), as one worker of a
//! split search holds it: the operator itself, whose groups/cells are mergeable (see
//! [`crate::agg`]). Workers [`Partial::take`] a state per bucket; the final step
//! [`Partial::merge`]s them in bucket order, so the result is the same whatever the number of
//! workers — and the same as one pass over the rows in that order.

use super::chart::ChartOp;
use super::limits::Limits;
use super::stats::StatsOp;
use super::timechart::TimechartOp;
use super::top::TopOp;
use super::{ExecContext, Op};
use crate::error::SearchError;
use crate::row::Row;
use lode_spl::ast::Command;

/// A mergeable partial state of one transforming command.
pub struct Partial(Inner);

enum Inner {
    Stats(StatsOp),
    Timechart(TimechartOp),
    Top(TopOp),
    Chart(ChartOp),
}

impl Partial {
    /// An empty state for `c`; a user error when `c` is not transforming or is invalid.
    pub fn build(c: &Command, ctx: ExecContext, limits: Limits) -> Result<Partial, SearchError> {
        let inner = match c {
            Command::Stats(s) => Inner::Stats(StatsOp::new(s.clone(), limits)?),
            Command::Timechart(t) => Inner::Timechart(TimechartOp::new(t.clone(), ctx, limits)?),
            Command::Top(t) => Inner::Top(TopOp::new(t.clone(), limits)),
            Command::Chart(c) => Inner::Chart(ChartOp::new(c.clone(), ctx, limits)?),
            _ => {
                return Err(SearchError::User(
                    "only stats, chart, timechart, top and rare have a partial state".into(),
                ))
            }
        };
        Ok(Partial(inner))
    }

    /// The operator, to push rows into.
    pub(super) fn op(&mut self) -> &mut dyn Op {
        match &mut self.0 {
            Inner::Stats(o) => o,
            Inner::Timechart(o) => o,
            Inner::Top(o) => o,
            Inner::Chart(o) => o,
        }
    }

    /// Feeds counted rows (each standing for `count` identical rows; see
    /// [`crate::plan::columns::counts_suffice`]).
    pub(super) fn push_counted(&mut self, rows: Vec<(Row, u64)>) -> Result<(), SearchError> {
        match &mut self.0 {
            Inner::Stats(o) => o.push_counted(rows),
            Inner::Top(o) => o.push_counted(rows),
            Inner::Timechart(o) => o.push_counted(rows),
            // The planner never counts rows for chart; expand them.
            Inner::Chart(o) => {
                let mut sink = Vec::new();
                let expanded = rows
                    .into_iter()
                    .flat_map(|(r, n)| std::iter::repeat_n(r, n as usize))
                    .collect();
                o.push(expanded, &mut sink).map(|_| ())
            }
        }
    }

    /// The operator, owned (its `finish` emits the final rows).
    pub(super) fn into_op(self) -> Box<dyn Op> {
        match self.0 {
            Inner::Stats(o) => Box::new(o),
            Inner::Timechart(o) => Box::new(o),
            Inner::Top(o) => Box::new(o),
            Inner::Chart(o) => Box::new(o),
        }
    }

    /// The state so far; leaves an empty one of the same command in its place.
    pub fn take(&mut self) -> Partial {
        let empty = match &self.0 {
            Inner::Stats(o) => Inner::Stats(o.empty_like()),
            Inner::Timechart(o) => Inner::Timechart(o.empty_like()),
            Inner::Top(o) => Inner::Top(o.empty_like()),
            Inner::Chart(o) => Inner::Chart(o.empty_like()),
        };
        Partial(std::mem::replace(&mut self.0, empty))
    }

    /// Merges `other`, the state of rows that come after this one's in the scan order. The
    /// command's limits (`max_groups`) apply to the merged state: several workers cannot hold
    /// more than one would. States of different commands are a bug of the caller and leave
    /// `self` unchanged.
    pub fn merge(&mut self, other: Partial) -> Result<(), SearchError> {
        match (&mut self.0, other.0) {
            (Inner::Stats(a), Inner::Stats(b)) => a.merge(b),
            (Inner::Timechart(a), Inner::Timechart(b)) => a.merge(b),
            (Inner::Top(a), Inner::Top(b)) => a.merge(b),
            (Inner::Chart(a), Inner::Chart(b)) => a.merge(b),
            _ => Ok(()),
        }
    }
}
