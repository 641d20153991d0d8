//! `append [subsearch]`: passes the results on, then adds the subsearch's rows after them. Also
//! the way every command of this family runs its subsearch ([`Nested`]).
//!
//! The subsearch runs through the search's [`SubsearchRunner`] (same time range, options and
//! index access rules) when its rows are first needed; at most `maxout` rows (default 50000) are
//! kept and it is finalized after `maxtime` seconds (default 60), each with a warning.

use std::time::Duration;

use super::{Flow, Op};
use crate::compose::runner::{SubsearchRunner, APPEND_MAXOUT, APPEND_MAXTIME};
use crate::error::SearchError;
use crate::row::Row;
use lode_spl::ast::join::{Append, SubOptions};

/// A subsearch to run once, when needed.
#[derive(Debug, Clone)]
pub(crate) struct Nested {
    /// The command, for errors.
    pub command: &'static str,
    /// The subsearch text.
    pub text: String,
    pub maxout: u64,
    pub maxtime: Duration,
    pub runner: Option<SubsearchRunner>,
}

impl Nested {
    /// A subsearch of `append`, `appendcols` or `union` (limits from its options).
    pub fn with_options(
        command: &'static str,
        text: String,
        o: &SubOptions,
        runner: Option<&SubsearchRunner>,
    ) -> Nested {
        Nested {
            command,
            text,
            maxout: o.maxout.unwrap_or(APPEND_MAXOUT),
            maxtime: Duration::from_secs(o.maxtime.unwrap_or(APPEND_MAXTIME)),
            runner: runner.cloned(),
        }
    }

    /// Runs it: its rows (at most `maxout`).
    pub fn run(&self) -> Result<Vec<Row>, SearchError> {
        let Some(r) = &self.runner else {
            return Err(SearchError::User(format!(
                "Error in '{}' command: this search cannot run subsearches.",
                self.command
            )));
        };
        r.run(self.command, &self.text, self.maxout, self.maxtime)
    }
}

/// Passes rows on; appends the subsearch's rows at the end.
pub struct AppendOp {
    sub: Nested,
}

impl AppendOp {
    /// `append [options] [sub]`.
    pub fn new(a: &Append, runner: Option<&SubsearchRunner>) -> AppendOp {
        AppendOp {
            sub: Nested::with_options("append", a.sub.text.clone(), &a.options, runner),
        }
    }
}

impl Op for AppendOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        out.extend(rows);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        out.extend(self.sub.run()?);
        Ok(())
    }
}
