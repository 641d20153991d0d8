//! `where <expr>`: keeps rows where the eval expression is true (null is not true).

use super::{ExecContext, Flow, Op};
use crate::error::SearchError;
use crate::eval::{check, EvalCtx, Evaluator};
use crate::row::Row;
use lode_spl::ast::Expr;

/// Filters rows with an eval expression.
pub struct WhereOp {
    expr: Expr,
    ev: Evaluator,
}

impl WhereOp {
    /// A filter for `expr` (function names and arities are checked here).
    pub fn new(expr: Expr, ctx: ExecContext) -> Result<WhereOp, SearchError> {
        check(&expr)?;
        Ok(WhereOp {
            expr,
            ev: Evaluator::new(EvalCtx {
                now: ctx.now,
                tz: ctx.tz,
            }),
        })
    }
}

impl Op for WhereOp {
    fn push(&mut self, rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for mut r in rows {
            if self.ev.is_true(&self.expr, &mut r)? {
                out.push(r);
            }
        }
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{ctx, num_rows};
    use lode_spl::ast::{BinOp, CmpOp};

    #[test]
    fn keeps_true_rows_and_drops_null() {
        let rows = num_rows("x", &[Some(1.0), Some(5.0), None]);
        let e = Expr::Binary(
            BinOp::Cmp(CmpOp::Gt),
            Box::new(Expr::Field("x".into())),
            Box::new(Expr::Num(2.0)),
        );
        let mut op = WhereOp::new(e, ctx()).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].peek("x").unwrap().to_string(), "5");
    }

    #[test]
    fn arity_errors_name_the_function() {
        let e = Expr::Call("lower".into(), vec![]);
        let err = WhereOp::new(e, ctx()).err().unwrap();
        assert!(err.to_string().contains("'lower'"), "{err}");
    }
}
