//! `collect index=…` before the last command: writes each batch of rows into the index and
//! passes them on unchanged (Splunk does). The last command's `collect` is handled by
//! [`crate::generate::collect::take`] around the output instead.

use super::{Flow, Op};
use crate::compose::runner::SubsearchRunner;
use crate::error::SearchError;
use crate::generate::collect::Collector;
use crate::row::Row;
use lode_spl::ast::data::Collect;

/// Writes rows, passes them on.
pub struct CollectOp {
    writer: Collector,
}

impl CollectOp {
    /// Checks the index and the sink at once, so a bad `collect` fails before the scan.
    pub fn new(c: &Collect, runner: Option<&SubsearchRunner>) -> Result<CollectOp, SearchError> {
        let Some(r) = runner else {
            return Err(SearchError::User(
                "Error in 'collect' command: this search cannot write to indexes (no node to write through).".into(),
            ));
        };
        Ok(CollectOp {
            writer: r.collector(c.clone())?,
        })
    }
}

impl Op for CollectOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        self.writer.write(&mut rows)?;
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}
