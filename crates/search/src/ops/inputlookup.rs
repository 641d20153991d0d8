//! `inputlookup <table>`: the rows of a CSV lookup table. Leading, it generates the search's
//! rows ([`table_rows`]); with `append=t` later in the pipeline it passes its input through and
//! adds the table's rows after it.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::lookup;
use crate::matcher::matches;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::data::InputLookup;

/// The rows of the table of `il` (`start=`, `max=` and `where` applied), columns in file order;
/// a cell with line breaks is a multivalue field, an empty cell no field. `csv`: `inputcsv`
/// (the file is in `var/run/lode/csv/`).
pub fn table_rows(il: &InputLookup, csv: bool) -> Result<Vec<Row>, SearchError> {
    let cmd = if csv { "inputcsv" } else { "inputlookup" };
    let etc = lookup::etc_dir(il.etc_dir.as_deref(), cmd)?;
    let table = if csv {
        lookup::load_path(&lookup::csv_path(etc, &il.table, false)?)?
    } else {
        lookup::load(&lookup::resolve(etc, &il.table, false)?)?
    };
    let mut out = Vec::new();
    for cells in table
        .rows
        .iter()
        .skip(il.start.min(usize::MAX as u64) as usize)
    {
        if out.len() as u64 >= il.max {
            break;
        }
        let mut row = Row::from_fields(
            table
                .header
                .iter()
                .zip(cells)
                .filter(|(_, c)| !c.is_empty())
                .map(|(h, c)| {
                    let v = if c.contains('\n') {
                        Value::Multi(c.split('\n').map(|s| Value::Str(s.to_string())).collect())
                    } else {
                        Value::Str(c.clone())
                    };
                    (h.clone(), v)
                }),
        );
        if il.filter.as_ref().is_none_or(|f| matches(f, &mut row)) {
            out.push(row);
        }
    }
    Ok(out)
}

/// `inputlookup append=t`: input rows, then the table's.
pub struct InputLookupOp {
    rows: Vec<Row>,
}

impl InputLookupOp {
    /// Reads the table now (a missing table fails the search before any bucket is read).
    pub fn new(il: &InputLookup, csv: bool) -> Result<InputLookupOp, SearchError> {
        Ok(InputLookupOp {
            rows: table_rows(il, csv)?,
        })
    }
}

impl Op for InputLookupOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        out.append(&mut rows);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        out.append(&mut self.rows);
        Ok(())
    }
}
