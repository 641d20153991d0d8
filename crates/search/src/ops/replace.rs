//! `replace a WITH b[, …] [IN f…]`: a field value matching a pattern as a whole is replaced;
//! `*` in the pattern matches any text, which the `*`s of the replacement repeat in order. The
//! first matching pair wins. Without `IN`, every field except internal `_` fields. Each value of
//! a multivalue is replaced on its own. Matching is case-sensitive.

use super::glob::Glob;
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

/// Replaces values.
pub struct ReplaceOp {
    pairs: Vec<(Glob, Glob)>,
    fields: Vec<Glob>,
}

impl ReplaceOp {
    /// `replace pairs IN fields`.
    pub fn new(pairs: &[(String, String)], fields: &[String]) -> ReplaceOp {
        ReplaceOp {
            pairs: pairs
                .iter()
                .map(|(a, b)| (Glob::new(a), Glob::new(b)))
                .collect(),
            fields: fields.iter().map(|f| Glob::new(f)).collect(),
        }
    }

    fn replace(&self, v: &Value) -> Option<Value> {
        match v {
            Value::Multi(vals) => {
                let mut changed = false;
                let out = vals
                    .iter()
                    .map(|x| match self.replace(x) {
                        Some(y) => {
                            changed = true;
                            y
                        }
                        None => x.clone(),
                    })
                    .collect();
                changed.then_some(Value::Multi(out))
            }
            Value::Null => None,
            v => {
                let text = v.as_str();
                self.pairs.iter().find_map(|(from, to)| {
                    from.captures(&text).map(|caps| Value::Str(to.fill(&caps)))
                })
            }
        }
    }
}

impl Op for ReplaceOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            let names: Vec<String> =
                if !self.fields.is_empty() && !self.fields.iter().any(Glob::is_wild) {
                    self.fields.iter().map(|g| g.text().to_string()).collect()
                } else {
                    r.extract_all();
                    r.fields()
                        .map(|(n, _)| n)
                        .filter(|n| {
                            if self.fields.is_empty() {
                                !n.starts_with('_')
                            } else {
                                self.fields.iter().any(|g| g.is_match(n))
                            }
                        })
                        .map(str::to_string)
                        .collect()
                };
            for n in names {
                let new = match r.get(&n) {
                    Some(v) => self.replace(v),
                    None => None,
                };
                if let Some(v) = new {
                    r.set(&n, v);
                }
            }
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{rows_of, strs};

    #[test]
    fn wildcards_in_and_first_match() {
        let rows = || {
            rows_of(
                &["a", "b"],
                &[&["127.0.0.1", "localhost"], &["10.1.2.3", "x"]],
            )
        };
        let op = |pairs: &[(&str, &str)], fields: &[&str]| {
            ReplaceOp::new(
                &pairs
                    .iter()
                    .map(|(a, b)| (a.to_string(), b.to_string()))
                    .collect::<Vec<_>>(),
                &fields.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            )
        };
        let mut out = Vec::new();
        op(
            &[("127.0.0.1", "lo"), ("10.*.*", "net-*-*"), ("*", "no")],
            &["a"],
        )
        .push(rows(), &mut out)
        .unwrap();
        assert_eq!(strs(&out, "a"), vec!["lo", "net-1.2-3"]);
        assert_eq!(strs(&out, "b"), vec!["localhost", "x"]);
        let mut out = Vec::new();
        op(&[("x", "y")], &[]).push(rows(), &mut out).unwrap();
        assert_eq!(strs(&out, "b"), vec!["localhost", "y"]);
    }
}
