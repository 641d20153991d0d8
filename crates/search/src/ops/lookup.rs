//! `lookup <table> f [AS g]… [OUTPUT|OUTPUTNEW …]`: enriches each row from a CSV lookup table
//! ([`crate::lookup`]); streaming.

use std::path::Path;

use super::{Flow, Op};
use crate::error::SearchError;
use crate::lookup::{self, Matcher};
use crate::row::Row;
use lode_spl::ast::data::Lookup;

/// The operator: a prepared table.
pub struct LookupOp {
    matcher: Matcher,
}

impl LookupOp {
    /// Resolves and reads the table of `l` under its `etc_dir`.
    pub fn new(l: &Lookup) -> Result<LookupOp, SearchError> {
        let etc = lookup::etc_dir(l.etc_dir.as_deref(), "lookup")?;
        LookupOp::with_etc(l, etc)
    }

    fn with_etc(l: &Lookup, etc: &Path) -> Result<LookupOp, SearchError> {
        let def = lookup::resolve(etc, &l.table, false)?;
        let table = lookup::load(&def)?;
        let matcher = Matcher::new(&def, table, &l.inputs, &l.outputs, l.output_new)?;
        Ok(LookupOp { matcher })
    }
}

impl Op for LookupOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows.iter_mut() {
            self.matcher.apply(r);
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}
