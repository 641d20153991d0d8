//! `rex [field=f] [max_match=N] "regex"`: named groups become fields. With `max_match` 1 (the
//! default) the first match sets each group that took part; with N > 1 or 0 (unlimited) every
//! match up to N adds a value and groups matching more than once become multivalue. Rows whose
//! field is missing or does not match are passed unchanged.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::eval::compile_regex;
use crate::row::Row;
use crate::value::Value;
use regex::Regex;

/// Extracts fields with a regular expression.
pub struct RexOp {
    field: String,
    re: Regex,
    /// Group names in pattern order.
    names: Vec<String>,
    /// Most matches used; `usize::MAX` = unlimited.
    max_match: usize,
    /// Per-group values of the current row (reused).
    vals: Vec<Vec<Value>>,
}

impl RexOp {
    /// Compiles `pattern` (PCRE `(?<name>…)` groups accepted); it needs at least one named group.
    pub fn new(field: String, pattern: &str, max_match: u64) -> Result<RexOp, SearchError> {
        let re = compile_regex(pattern)?;
        let names: Vec<String> = re.capture_names().flatten().map(str::to_string).collect();
        if names.is_empty() {
            return Err(SearchError::User(format!(
                "rex: the regex {pattern:?} has no named group (?<name>…)"
            )));
        }
        let max_match = match max_match {
            0 => usize::MAX,
            n => usize::try_from(n).unwrap_or(usize::MAX),
        };
        let vals = vec![Vec::new(); names.len()];
        Ok(RexOp {
            field,
            re,
            names,
            max_match,
            vals,
        })
    }

    fn apply(&mut self, r: &mut Row) {
        let text = match r.get(&self.field) {
            Some(v) if !v.is_null() => v.as_str().into_owned(),
            _ => return,
        };
        self.vals.iter_mut().for_each(Vec::clear);
        for caps in self.re.captures_iter(&text).take(self.max_match) {
            for (i, name) in self.names.iter().enumerate() {
                if let Some(m) = caps.name(name) {
                    self.vals[i].push(Value::Str(m.as_str().to_string()));
                }
            }
        }
        for (i, name) in self.names.iter().enumerate() {
            if !self.vals[i].is_empty() {
                r.set(name, Value::from_values(std::mem::take(&mut self.vals[i])));
            }
        }
    }
}

impl Op for RexOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows.iter_mut() {
            self.apply(r);
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::event_row;

    fn run(field: &str, pat: &str, max: u64, raw: &str) -> Row {
        let mut op = RexOp::new(field.into(), pat, max).unwrap();
        let mut out = Vec::new();
        op.push(vec![event_row(raw)], &mut out).unwrap();
        out.pop().unwrap()
    }

    #[test]
    fn first_match_named_groups() {
        let mut r = run(
            "_raw",
            r"port (?<port>\d+)(?: via (?<via>\w+))?",
            1,
            "port 22 and port 80 via tcp",
        );
        assert_eq!(r.get("port").unwrap().as_str(), "22");
        assert!(r.get("via").is_none());
    }

    #[test]
    fn max_match_multivalue() {
        let mut r = run(
            "_raw",
            r"port (?<port>\d+)",
            0,
            "port 22 and port 80 and port 443",
        );
        assert_eq!(r.get("port").unwrap().as_str(), "22\n80\n443");
        let mut r = run(
            "_raw",
            r"port (?<port>\d+)",
            2,
            "port 22 and port 80 and port 443",
        );
        assert_eq!(r.get("port").unwrap().as_str(), "22\n80");
    }

    #[test]
    fn other_field_and_errors() {
        let mut r = run("user", r"^(?<initial>.)", 1, "user=bob");
        assert_eq!(r.get("initial").unwrap().as_str(), "b");
        assert!(RexOp::new("_raw".into(), r"\d+", 1).is_err());
        assert!(RexOp::new("_raw".into(), r"(?<x>", 1).is_err());
    }
}
