//! `filldown [f…]`: a row missing one of the fields (or holding an empty value) takes the
//! field's value from the nearest earlier row that had one. Without a list, every field seen so
//! far (except internal `_` fields); wildcards match field names.

use super::glob::Glob;
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;

/// Fills fields down.
pub struct FillDownOp {
    globs: Vec<Glob>,
    /// The last non-empty value of each field, in order of first appearance.
    last: Vec<(String, Value)>,
}

impl FillDownOp {
    /// `filldown fields` (empty: all).
    pub fn new(fields: Vec<String>) -> FillDownOp {
        FillDownOp {
            globs: fields.iter().map(|f| Glob::new(f)).collect(),
            last: Vec::new(),
        }
    }

    fn wanted(&self, name: &str) -> bool {
        if self.globs.is_empty() {
            !name.starts_with('_')
        } else {
            self.globs.iter().any(|g| g.is_match(name))
        }
    }
}

fn empty(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Str(s) => s.is_empty(),
        Value::Multi(m) => m.is_empty(),
        _ => false,
    }
}

impl Op for FillDownOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            // Plain names are looked up (extracting if needed); patterns see the row's fields.
            for g in &self.globs {
                if !g.is_wild() && !self.last.iter().any(|(n, _)| n == g.text()) {
                    if let Some(v) = r.get(g.text()) {
                        if !empty(v) {
                            self.last.push((g.text().to_string(), v.clone()));
                        }
                    }
                }
            }
            if self.globs.is_empty() || self.globs.iter().any(Glob::is_wild) {
                r.extract_all();
            }
            for (n, v) in &mut self.last {
                match r.get(n) {
                    Some(x) if !empty(x) => *v = x.clone(),
                    _ => r.set(n, v.clone()),
                }
            }
            let new: Vec<(String, Value)> = r
                .fields()
                .filter(|(n, v)| {
                    !empty(v) && self.wanted(n) && !self.last.iter().any(|(m, _)| m == n)
                })
                .map(|(n, v)| (n.to_string(), v.clone()))
                .collect();
            self.last.extend(new);
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
    fn fills_listed_or_all_fields() {
        let data = || {
            rows_of(
                &["a", "b", "c"],
                &[
                    &["", "1", ""],
                    &["x", "", "3"],
                    &["", "", ""],
                    &["y", "2", ""],
                ],
            )
        };
        let mut out = Vec::new();
        FillDownOp::new(vec!["a".into()])
            .push(data(), &mut out)
            .unwrap();
        assert_eq!(strs(&out, "a"), vec!["", "x", "x", "y"]);
        assert_eq!(strs(&out, "b"), vec!["1", "", "", "2"]);
        let mut out = Vec::new();
        FillDownOp::new(vec![]).push(data(), &mut out).unwrap();
        assert_eq!(strs(&out, "b"), vec!["1", "1", "1", "2"]);
        assert_eq!(strs(&out, "c"), vec!["", "3", "3", "3"]);
        let mut out = Vec::new();
        FillDownOp::new(vec!["c*".into()])
            .push(data(), &mut out)
            .unwrap();
        assert_eq!(strs(&out, "c"), vec!["", "3", "3", "3"]);
        assert_eq!(strs(&out, "a"), vec!["", "x", "", "y"]);
    }
}
