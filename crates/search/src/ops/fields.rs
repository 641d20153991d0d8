//! `fields [+|-] f1, f2*`: keep or remove fields (wildcards allowed). Keeping also keeps `_time`
//! and `_raw` (Splunk's internal fields stay unless removed with `fields -`); kept fields are
//! reordered as listed.

use super::glob::Glob;
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;

/// Keeps or removes fields.
pub struct FieldsOp {
    remove: bool,
    globs: Vec<Glob>,
}

impl FieldsOp {
    /// `remove`: `fields -`.
    pub fn new(remove: bool, fields: Vec<String>) -> FieldsOp {
        FieldsOp {
            remove,
            globs: fields.iter().map(|f| Glob::new(f)).collect(),
        }
    }
}

/// Rebuilds `row` with the fields matching `globs` in pattern order, then `extra` names.
pub(super) fn keep_ordered(row: &mut Row, globs: &[Glob], extra: &[&str]) {
    row.extract_all();
    let mut kept = Vec::new();
    for g in globs {
        for (n, v) in row.fields() {
            if g.is_match(n) && !kept.iter().any(|(k, _)| k == n) {
                kept.push((n.to_string(), v.clone()));
            }
        }
    }
    for name in extra {
        if let Some(v) = row.peek(name) {
            if !kept.iter().any(|(k, _)| k == name) {
                kept.push((name.to_string(), v.clone()));
            }
        }
    }
    *row = Row::from_fields(kept);
}

impl Op for FieldsOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows.iter_mut() {
            if self.remove {
                r.retain(|n| !self.globs.iter().any(|g| g.is_match(n)));
            } else {
                keep_ordered(r, &self.globs, &["_time", "_raw"]);
            }
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{event_row, names};

    #[test]
    fn keep_with_wildcards_keeps_internal() {
        let mut op = FieldsOp::new(false, vec!["user".into(), "h*".into()]);
        let mut out = Vec::new();
        op.push(vec![event_row("user=bob code=1")], &mut out)
            .unwrap();
        assert_eq!(names(&out[0]), vec!["user", "host", "_time", "_raw"]);
    }

    #[test]
    fn remove_drops_extracted_and_internal() {
        let mut op = FieldsOp::new(true, vec!["user".into(), "_raw".into(), "s*".into()]);
        let mut out = Vec::new();
        op.push(vec![event_row("user=bob code=1")], &mut out)
            .unwrap();
        let n = names(&out[0]);
        assert!(!n.contains(&"user") && !n.contains(&"_raw") && !n.contains(&"source"));
        assert!(n.contains(&"code") && n.contains(&"host"));
        assert!(out[0].get("user").is_none());
    }
}
