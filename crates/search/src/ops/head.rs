//! `head [N]`: the first N rows; answers [`Flow::Stop`] once satisfied so the scan can stop.

use super::{Flow, Op};
use crate::error::SearchError;
use crate::row::Row;

/// Passes the first `n` rows.
pub struct HeadOp {
    /// Rows still to pass.
    left: u64,
}

impl HeadOp {
    /// `head n`.
    pub fn new(n: u64) -> HeadOp {
        HeadOp { left: n }
    }
}

impl Op for HeadOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows {
            if self.left == 0 {
                break;
            }
            self.left -= 1;
            out.push(r);
        }
        Ok(if self.left == 0 {
            Flow::Stop
        } else {
            Flow::Continue
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::num_rows;

    #[test]
    fn stops_when_satisfied() {
        let mut op = HeadOp::new(3);
        let mut out = Vec::new();
        assert_eq!(
            op.push(num_rows("x", &[Some(1.0), Some(2.0)]), &mut out)
                .unwrap(),
            Flow::Continue
        );
        assert_eq!(
            op.push(num_rows("x", &[Some(3.0), Some(4.0)]), &mut out)
                .unwrap(),
            Flow::Stop
        );
        assert_eq!(out.len(), 3);
        assert_eq!(out[2].peek("x").unwrap().to_string(), "3");
    }
}
