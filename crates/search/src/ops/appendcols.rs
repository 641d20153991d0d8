//! `appendcols [override=f] [subsearch]`: row i of the subsearch is merged into row i of the
//! results (its internal `_` fields left out). Where both have a field, the row's own value
//! stays unless `override=t`. Subsearch rows beyond the last result row are added as rows of
//! their own at the end.

use std::collections::VecDeque;

use super::append::Nested;
use super::{Flow, Op};
use crate::compose::runner::SubsearchRunner;
use crate::error::SearchError;
use crate::row::Row;
use lode_spl::ast::join::Append;

/// Merges the subsearch's rows into the results, position by position.
pub struct AppendColsOp {
    sub: Nested,
    override_: bool,
    /// The subsearch's rows not merged yet (`None`: not run yet).
    rows: Option<VecDeque<Row>>,
}

impl AppendColsOp {
    /// `appendcols [override=…] [options] [sub]`.
    pub fn new(a: &Append, runner: Option<&SubsearchRunner>) -> AppendColsOp {
        AppendColsOp {
            sub: Nested::with_options("appendcols", a.sub.text.clone(), &a.options, runner),
            override_: a.override_,
            rows: None,
        }
    }

    fn pending(&mut self) -> Result<&mut VecDeque<Row>, SearchError> {
        if self.rows.is_none() {
            self.rows = Some(self.sub.run()?.into());
        }
        Ok(self.rows.get_or_insert_with(VecDeque::new))
    }
}

impl Op for AppendColsOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        let override_ = self.override_;
        let pending = self.pending()?;
        for mut row in rows {
            if let Some(sub) = pending.pop_front() {
                for (k, v) in sub.fields() {
                    if !k.starts_with('_') && (override_ || row.get(k).is_none()) {
                        row.set(k, v.clone());
                    }
                }
            }
            out.push(row);
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        out.extend(self.pending()?.drain(..));
        Ok(())
    }
}
