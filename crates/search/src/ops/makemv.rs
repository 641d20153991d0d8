//! `makemv [delim=s|tokenizer=re] [allowempty=t] [setsv=t] f`: splits the text of a field into
//! a multivalue, on `delim` (default one space) or at each match of `tokenizer` (its first
//! capture group when it has one). Empty values are dropped unless `allowempty`. With `setsv`
//! the field keeps its single-value text (Lode has no separate single-value form to set).

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use regex::Regex;

/// Splits a field.
pub struct MakeMvOp {
    field: String,
    delim: String,
    tokenizer: Option<Regex>,
    allowempty: bool,
    setsv: bool,
}

impl MakeMvOp {
    /// Compiles the tokenizer.
    pub fn new(
        field: String,
        delim: String,
        tokenizer: Option<&str>,
        allowempty: bool,
        setsv: bool,
    ) -> Result<MakeMvOp, SearchError> {
        let tokenizer = match tokenizer {
            Some(t) => Some(Regex::new(t).map_err(|e| {
                SearchError::User(format!("makemv tokenizer is not a valid regex: {e}"))
            })?),
            None => None,
        };
        Ok(MakeMvOp {
            field,
            delim,
            tokenizer,
            allowempty,
            setsv,
        })
    }

    fn split(&self, text: &str) -> Vec<Value> {
        let parts: Vec<&str> = match &self.tokenizer {
            Some(re) => re
                .captures_iter(text)
                .filter_map(|c| c.get(1).or_else(|| c.get(0)))
                .map(|m| m.as_str())
                .collect(),
            None => text.split(self.delim.as_str()).collect(),
        };
        parts
            .into_iter()
            .filter(|p| self.allowempty || !p.is_empty())
            .map(|p| Value::Str(p.to_string()))
            .collect()
    }
}

impl Op for MakeMvOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        if !self.setsv {
            for r in &mut rows {
                let text = match r.get(&self.field) {
                    Some(Value::Multi(_)) | None => continue,
                    Some(v) => v.as_str().into_owned(),
                };
                let vals = self.split(&text);
                let v = match vals.len() {
                    0 => Value::Null,
                    _ => Value::Multi(vals),
                };
                r.set(&self.field, v);
            }
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::str_rows;

    fn run(op: &mut MakeMvOp, v: &str) -> Option<Value> {
        let mut out = Vec::new();
        op.push(str_rows("f", &[v]), &mut out).unwrap();
        out[0].peek("f").cloned()
    }

    fn multi(v: &[&str]) -> Option<Value> {
        Some(Value::Multi(
            v.iter().map(|s| Value::Str(s.to_string())).collect(),
        ))
    }

    #[test]
    fn delim_tokenizer_allowempty() {
        let mut op = MakeMvOp::new("f".into(), ",".into(), None, false, false).unwrap();
        assert_eq!(run(&mut op, "a,,b"), multi(&["a", "b"]));
        assert_eq!(run(&mut op, ""), None);
        let mut op = MakeMvOp::new("f".into(), ",".into(), None, true, false).unwrap();
        assert_eq!(run(&mut op, "a,,b"), multi(&["a", "", "b"]));
        let mut op = MakeMvOp::new("f".into(), " ".into(), Some(r"(\d+)-"), false, false).unwrap();
        assert_eq!(run(&mut op, "1-2-x3-"), multi(&["1", "2", "3"]));
        let mut op = MakeMvOp::new("f".into(), " ".into(), None, false, true).unwrap();
        assert_eq!(run(&mut op, "a b"), Some(Value::Str("a b".into())));
        assert!(MakeMvOp::new("f".into(), " ".into(), Some("("), false, false).is_err());
    }
}
