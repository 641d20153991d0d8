//! `outputlookup <table>`: writes the results to a CSV lookup file (atomically: temporary file,
//! then rename) and passes them on unchanged. A new file goes to
//! `etc/apps/search/lookups/`; an existing one (or a definition's `filename`) is replaced in
//! place.

use std::path::PathBuf;

use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::error::SearchError;
use crate::lookup::{self, csv, Table};
use crate::row::Row;
use lode_spl::ast::data::OutputLookup;

/// Buffers every row, writes the file at the end.
pub struct OutputLookupOp {
    cmd: OutputLookup,
    path: PathBuf,
    rows: Vec<Row>,
    limits: Limits,
}

impl OutputLookupOp {
    /// Resolves the target file now (a bad name fails before any bucket is read). `csv`:
    /// `outputcsv` (the file goes to `var/run/lode/csv/`).
    pub fn new(
        cmd: &OutputLookup,
        limits: Limits,
        csv: bool,
    ) -> Result<OutputLookupOp, SearchError> {
        let name = if csv { "outputcsv" } else { "outputlookup" };
        let etc = lookup::etc_dir(cmd.etc_dir.as_deref(), name)?;
        let path = if csv {
            lookup::csv_path(etc, &cmd.table, true)?
        } else {
            lookup::resolve(etc, &cmd.table, true)?.path
        };
        Ok(OutputLookupOp {
            cmd: cmd.clone(),
            path,
            rows: Vec::new(),
            limits,
        })
    }

    /// The table to write: the existing rows first with `append=t`; columns are the existing
    /// header then new fields in order of first appearance (internal fields except `_time`
    /// left out, as Splunk does).
    fn table(&mut self) -> Result<Table, SearchError> {
        let mut t = if self.cmd.append && self.path.is_file() {
            csv::read(&self.path)?
        } else {
            Table::default()
        };
        for r in &mut self.rows {
            // Search-time fields are columns too.
            r.extract_all();
            for (name, _) in r.fields() {
                let internal = name.starts_with('_') && name != "_time";
                if !internal && t.column(name).is_none() {
                    t.header.push(name.to_string());
                }
            }
        }
        let width = t.header.len();
        for row in t.rows.iter_mut() {
            row.resize(width, String::new());
        }
        for r in &self.rows {
            t.rows.push(
                t.header
                    .iter()
                    .map(|h| {
                        r.peek(h)
                            .map(|v| v.as_str().into_owned())
                            .unwrap_or_default()
                    })
                    .collect(),
            );
        }
        Ok(t)
    }
}

impl Op for OutputLookupOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        if self.rows.len() + rows.len() > self.limits.max_sort_rows {
            return Err(exceeded(
                "outputlookup",
                "max_sort_rows",
                self.limits.max_sort_rows,
            ));
        }
        self.rows.extend(rows);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        let empty = self.rows.is_empty();
        let exists = self.path.is_file();
        let skip = match (empty, exists) {
            (false, _) => false,
            (true, false) => !self.cmd.create_empty,
            (true, true) => !self.cmd.override_if_empty || self.cmd.append,
        };
        if !skip {
            let t = self.table()?;
            csv::write_atomic(&self.path, &t)?;
        }
        out.append(&mut self.rows);
        Ok(())
    }
}
