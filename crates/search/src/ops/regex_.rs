//! `regex [f=|f!=]"re"`: keeps rows whose field (default `_raw`) matches the regular expression
//! (a multivalue field matches when one value does); with `!=`, keeps the rows that do not
//! match, including rows without the field.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::eval::compile_regex;
use crate::row::Row;
use regex::Regex;

/// Filters rows by a regular expression.
pub struct RegexOp {
    field: String,
    negate: bool,
    re: Regex,
}

impl RegexOp {
    /// Compiles `pattern` (PCRE-style groups accepted).
    pub fn new(field: String, negate: bool, pattern: &str) -> Result<RegexOp, SearchError> {
        Ok(RegexOp {
            field,
            negate,
            re: compile_regex(pattern)?,
        })
    }

    fn keep(&self, r: &mut Row) -> bool {
        let matched = match r.get(&self.field) {
            Some(v) => v.iter_values().any(|x| self.re.is_match(&x.as_str())),
            None => false,
        };
        matched != self.negate
    }
}

impl Op for RegexOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for mut r in rows {
            if self.keep(&mut r) {
                out.push(r);
            }
        }
        Ok(Flow::Continue)
    }
}
