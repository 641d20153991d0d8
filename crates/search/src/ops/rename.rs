//! `rename a AS b, c* AS d*`: renames fields; a wildcard target receives what the source's
//! wildcards matched. Renaming onto an existing field replaces it.

use super::glob::Glob;
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;

/// Renames fields.
pub struct RenameOp {
    pairs: Vec<(Glob, Glob)>,
}

impl RenameOp {
    /// The `(from, to)` pairs in order.
    pub fn new(pairs: Vec<(String, String)>) -> RenameOp {
        RenameOp {
            pairs: pairs
                .iter()
                .map(|(a, b)| (Glob::new(a), Glob::new(b)))
                .collect(),
        }
    }
}

impl Op for RenameOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        let mut moves: Vec<(String, String)> = Vec::new();
        for r in rows.iter_mut() {
            for (from, to) in &self.pairs {
                if !from.is_wild() {
                    r.rename(from.text(), &to.fill(&[]));
                    continue;
                }
                r.extract_all();
                moves.clear();
                for (n, _) in r.fields() {
                    if let Some(caps) = from.captures(n) {
                        moves.push((n.to_string(), to.fill(&caps)));
                    }
                }
                for (a, b) in &moves {
                    r.rename(a, b);
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
    use crate::ops::tests::{event_row, names};

    #[test]
    fn plain_and_wildcard() {
        let mut op = RenameOp::new(vec![
            ("user".into(), "who".into()),
            ("source*".into(), "src*".into()),
            ("host".into(), "code".into()),
        ]);
        let mut out = Vec::new();
        op.push(vec![event_row("user=bob code=1")], &mut out)
            .unwrap();
        let r = &mut out[0];
        assert_eq!(r.get("who").unwrap().as_str(), "bob");
        assert!(r.get("user").is_none());
        assert!(names(r).contains(&"src") && names(r).contains(&"srctype"));
        assert_eq!(r.get("code").unwrap().as_str(), "web01");
        assert!(r.get("host").is_none());
    }
}
