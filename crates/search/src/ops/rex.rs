//! `rex [field=f] [max_match=N] [offset_field=o] "regex"`: named groups become fields. With
//! `max_match` 1 (the default) the first match sets each group that took part; with N > 1 or 0
//! (unlimited) every match up to N adds a value and groups matching more than once become
//! multivalue. `offset_field=o` sets `o` to `group=start-end` for every group that matched
//! (character offsets from 0, end inclusive, as Splunk), joined by `&`. Rows whose field is
//! missing or does not match are passed unchanged.
//!
//! `rex [field=f] mode=sed "s/regex/replacement/flags"` rewrites the field ([`SedOp`]): flags `g`
//! (every match) or a number N (only the Nth match; default the first), `\1`…`\9` in the
//! replacement; `"y/abc/xyz/"` maps each character of the first list to the one at the same place
//! in the second.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::eval::compile_regex;
use crate::row::Row;
use crate::value::Value;
use lode_ingest::SedCmd;
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
    /// `offset_field=`.
    offset_field: Option<String>,
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
            offset_field: None,
        })
    }

    /// Also writes the match offsets into `offset_field` (see the module docs).
    pub fn with_offsets(mut self, offset_field: Option<String>) -> RexOp {
        self.offset_field = offset_field;
        self
    }

    fn apply(&mut self, r: &mut Row) {
        let text = match r.get(&self.field) {
            Some(v) if !v.is_null() => v.as_str().into_owned(),
            _ => return,
        };
        self.vals.iter_mut().for_each(Vec::clear);
        let mut offsets = Vec::new();
        for caps in self.re.captures_iter(&text).take(self.max_match) {
            for (i, name) in self.names.iter().enumerate() {
                if let Some(m) = caps.name(name) {
                    self.vals[i].push(Value::Str(m.as_str().to_string()));
                    if self.offset_field.is_some() {
                        let start = text[..m.start()].chars().count();
                        let len = m.as_str().chars().count();
                        // An empty match ends before it starts, as Splunk prints it.
                        let end = (start + len) as i64 - 1;
                        offsets.push(format!("{name}={start}-{end}"));
                    }
                }
            }
        }
        if let (Some(o), false) = (&self.offset_field, offsets.is_empty()) {
            r.set(o, Value::Str(offsets.join("&")));
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

/// `rex mode=sed`: rewrites a field with a sed expression (the parser and editor of props.conf's
/// `SEDCMD`, [`SedCmd`]).
pub struct SedOp {
    field: String,
    cmd: SedCmd,
    scratch: String,
}

impl SedOp {
    /// Parses `expr` (`s/…/…/flags` or `y/…/…/`).
    pub fn new(field: String, expr: &str) -> Result<SedOp, SearchError> {
        let cmd = SedCmd::parse(expr).map_err(|why| {
            SearchError::User(format!(
                "rex mode=sed: {why} in {expr:?} (expected s/regex/replacement/flags or y/from/to/)"
            ))
        })?;
        Ok(SedOp {
            field,
            cmd,
            scratch: String::new(),
        })
    }

    fn rewrite(&mut self, text: &str) -> String {
        let mut out = text.to_string();
        self.cmd.apply(&mut out, &mut self.scratch);
        out
    }
}

impl Op for SedOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows.iter_mut() {
            let new = match r.get(&self.field) {
                Some(Value::Multi(vals)) => {
                    let texts: Vec<String> = vals.iter().map(|v| v.as_str().into_owned()).collect();
                    Value::Multi(texts.iter().map(|t| Value::Str(self.rewrite(t))).collect())
                }
                Some(v) if !v.is_null() => {
                    let text = v.as_str().into_owned();
                    Value::Str(self.rewrite(&text))
                }
                _ => continue,
            };
            r.set(&self.field, new);
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

    fn sed(expr: &str, raw: &str) -> String {
        let mut op = SedOp::new("_raw".into(), expr).unwrap();
        let mut out = Vec::new();
        op.push(vec![event_row(raw)], &mut out).unwrap();
        out.pop()
            .unwrap()
            .get("_raw")
            .unwrap()
            .as_str()
            .into_owned()
    }

    #[test]
    fn sed_mode() {
        // Splunk's masking example.
        assert_eq!(
            sed(
                r"s/(\d{4}-){3}/XXXX-XXXX-XXXX-/g",
                "cc=1234-5678-9012-3456 x"
            ),
            "cc=XXXX-XXXX-XXXX-3456 x"
        );
        assert_eq!(sed("s/a/b/", "aaa"), "baa");
        assert_eq!(sed("s/a/b/g", "aaa"), "bbb");
        assert_eq!(sed("s/a/b/2", "aaa"), "aba");
        assert_eq!(
            sed(r"s/(\w+)@(\w+)/\2 at \1 $1/", "bob@host"),
            "host at bob $1"
        );
        assert_eq!(sed(r"s/\//|/g", "a/b/c"), "a|b|c");
        assert_eq!(sed("y/abc/xyz/", "aabbcc d"), "xxyyzz d");
        for bad in ["x/a/b/", "s/a/b", "s/a/b/q", "s/a/b/0", "y/ab/c/", "s/(/x/"] {
            assert!(SedOp::new("_raw".into(), bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn offset_field() {
        let mut op = RexOp::new("_raw".into(), r"(?<ten>.{10})", 1)
            .unwrap()
            .with_offsets(Some("off".into()));
        let mut out = Vec::new();
        op.push(vec![event_row("0123456789abc")], &mut out).unwrap();
        assert_eq!(out[0].get("off").unwrap().as_str(), "ten=0-9");
        let mut op = RexOp::new("_raw".into(), r"(?<a>é+)(?<b>x)?", 0)
            .unwrap()
            .with_offsets(Some("off".into()));
        let mut out = Vec::new();
        op.push(vec![event_row("zéé zé")], &mut out).unwrap();
        assert_eq!(out[0].get("off").unwrap().as_str(), "a=1-2&a=5-5");
    }
}
