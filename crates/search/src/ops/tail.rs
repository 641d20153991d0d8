//! `tail [N]`: the last N rows, output in reverse order (last row first).

use super::limits::{exceeded, Limits};
use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;
use std::collections::VecDeque;

/// Holds the last `n` rows.
pub struct TailOp {
    n: usize,
    ring: VecDeque<Row>,
}

impl TailOp {
    /// `tail n`; `n` above [`Limits::max_sort_rows`] is refused.
    pub fn new(n: u64, limits: Limits) -> Result<TailOp, SearchError> {
        if n > limits.max_sort_rows as u64 {
            return Err(exceeded("tail", "max_sort_rows", limits.max_sort_rows));
        }
        Ok(TailOp {
            n: n as usize,
            ring: VecDeque::new(),
        })
    }
}

impl Op for TailOp {
    fn push(&mut self, rows: Vec<Row>, _out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows {
            if self.n == 0 {
                break;
            }
            if self.ring.len() == self.n {
                self.ring.pop_front();
            }
            self.ring.push_back(r);
        }
        Ok(Flow::Continue)
    }

    fn finish(&mut self, out: &mut Vec<Row>) -> Result<(), SearchError> {
        out.extend(self.ring.drain(..).rev());
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{num_rows, strs};

    #[test]
    fn last_n_reversed() {
        let mut op = TailOp::new(2, Limits::default()).unwrap();
        let mut out = Vec::new();
        op.push(num_rows("x", &[Some(1.0), Some(2.0), Some(3.0)]), &mut out)
            .unwrap();
        assert!(out.is_empty());
        op.finish(&mut out).unwrap();
        assert_eq!(strs(&out, "x"), vec!["3", "2"]);
        let big = Limits {
            max_sort_rows: 5,
            ..Limits::default()
        };
        assert!(matches!(TailOp::new(6, big), Err(SearchError::Limit(_))));
    }
}
