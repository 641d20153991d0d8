//! `autoregress f [AS g] [p=N|p=a-b]`: copies into each row the value `f` had N rows earlier,
//! as `f_pN` (or `g`) for each N of the range (default 1). Rows with fewer earlier rows get no
//! such field; an earlier row without `f` gives none either.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use crate::value::Value;
use std::collections::VecDeque;

/// Earlier values of a field.
pub struct AutoRegressOp {
    field: String,
    /// (offset, output name).
    outputs: Vec<(usize, String)>,
    /// The last `to` values, newest first.
    history: VecDeque<Option<Value>>,
    depth: usize,
}

impl AutoRegressOp {
    /// `autoregress field [AS alias] p=from-to`.
    pub fn new(
        field: String,
        alias: Option<String>,
        from: u64,
        to: u64,
    ) -> Result<AutoRegressOp, SearchError> {
        if from == 0 || to < from || to - from > 10_000 || to > 100_000 {
            return Err(SearchError::User(
                "autoregress p must be between 1 and 100000, with at most 10000 offsets".into(),
            ));
        }
        let outputs = (from..=to)
            .map(|n| {
                let name = match &alias {
                    Some(a) if from == to => a.clone(),
                    _ => format!("{field}_p{n}"),
                };
                (n as usize, name)
            })
            .collect();
        Ok(AutoRegressOp {
            field,
            outputs,
            history: VecDeque::new(),
            depth: to as usize,
        })
    }
}

impl Op for AutoRegressOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in &mut rows {
            let cur = r.get(&self.field).cloned();
            for (n, name) in &self.outputs {
                if let Some(Some(v)) = self.history.get(n - 1) {
                    r.set(name, v.clone());
                }
            }
            self.history.push_front(cur);
            self.history.truncate(self.depth);
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{num_rows, strs};

    #[test]
    fn earlier_values() {
        let rows = || num_rows("v", &[Some(1.0), Some(2.0), None, Some(4.0)]);
        let mut out = Vec::new();
        AutoRegressOp::new("v".into(), None, 1, 2)
            .unwrap()
            .push(rows(), &mut out)
            .unwrap();
        assert_eq!(strs(&out, "v_p1"), vec!["", "1", "2", ""]);
        assert_eq!(strs(&out, "v_p2"), vec!["", "", "1", "2"]);
        let mut out = Vec::new();
        AutoRegressOp::new("v".into(), Some("prev".into()), 1, 1)
            .unwrap()
            .push(rows(), &mut out)
            .unwrap();
        assert_eq!(strs(&out, "prev"), vec!["", "1", "2", ""]);
        assert!(AutoRegressOp::new("v".into(), None, 1, u64::MAX).is_err());
    }
}
