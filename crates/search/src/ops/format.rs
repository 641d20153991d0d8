//! `format`: all rows become one row whose `search` field is their boolean search string (see
//! [`crate::compose::format_rows`]). Holds its input (limit `max_sort_rows`).

use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::compose::format_rows;
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use lode_spl::ast::Format;

/// Collects rows, emits the formatted search at the end.
pub struct FormatOp {
    format: Format,
    limits: Limits,
    rows: Vec<Row>,
}

impl FormatOp {
    /// `format` with these options.
    pub fn new(format: Format, limits: Limits) -> FormatOp {
        FormatOp {
            format,
            limits,
            rows: Vec::new(),
        }
    }
}

impl Op for FormatOp {
    fn push(&mut self, mut rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        let max = self.format.maxresults as usize;
        if max > 0 {
            // Only the first `maxresults` rows are formatted: stop reading after them.
            rows.truncate(max.saturating_sub(self.rows.len()));
            self.rows.append(&mut rows);
            return Ok(if self.rows.len() >= max {
                Flow::Stop
            } else {
                Flow::Continue
            });
        }
        if self.rows.len() + rows.len() > self.limits.max_sort_rows {
            return Err(exceeded(
                "format",
                "max_sort_rows",
                self.limits.max_sort_rows,
            ));
        }
        self.rows.append(&mut rows);
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        // Event rows: their search-time fields are formatted too.
        self.rows.iter_mut().for_each(Row::extract_all);
        let text = format_rows(&self.rows, &self.format);
        self.rows.clear();
        out.push(Row::from_fields([("search".to_string(), Value::Str(text))]));
        Ok(())
    }
}
