//! `union [options] <dataset>…`: passes the results on, then adds each dataset's rows in order
//! (Splunk's order for datasets that are not streamed: the main results first). A dataset is a
//! subsearch or `index=<name>`, read as the subsearch `search index=<name>`.

use super::append::Nested;
use super::{Flow, Op};
use crate::compose::runner::SubsearchRunner;
use crate::error::SearchError;
use crate::row::Row;
use lode_spl::ast::join::{Dataset, Union};

/// Passes rows on; appends every dataset's rows at the end.
pub struct UnionOp {
    datasets: Vec<Nested>,
}

impl UnionOp {
    /// `union [options] datasets…`.
    pub fn new(u: &Union, runner: Option<&SubsearchRunner>) -> UnionOp {
        let datasets = u
            .datasets
            .iter()
            .map(|d| {
                let text = match d {
                    Dataset::Subsearch(s) => s.text.clone(),
                    Dataset::Index(name) => format!(
                        "search index=\"{}\"",
                        name.replace('\\', "\\\\").replace('"', "\\\"")
                    ),
                };
                Nested::with_options("union", text, &u.options, runner)
            })
            .collect();
        UnionOp { datasets }
    }
}

impl Op for UnionOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        out.extend(rows);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        for d in &self.datasets {
            out.extend(d.run()?);
        }
        Ok(())
    }
}
