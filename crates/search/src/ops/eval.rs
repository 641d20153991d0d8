//! `eval a=<expr>, b=<expr>`: computes fields in order (later assignments see earlier ones); a
//! null result removes the field.

use super::{ExecContext, Flow, Op};
use crate::error::SearchError;
use crate::eval::{check, EvalCtx, Evaluator};
use crate::row::Row;
use lode_spl::ast::Expr;

/// Assigns eval expressions to fields.
pub struct EvalOp {
    assigns: Vec<(String, Expr)>,
    ev: Evaluator,
}

impl EvalOp {
    /// The assignments in order (function names and arities are checked here).
    pub fn new(assigns: Vec<(String, Expr)>, ctx: ExecContext) -> Result<EvalOp, SearchError> {
        assigns.iter().try_for_each(|(_, e)| check(e))?;
        Ok(EvalOp {
            assigns,
            ev: Evaluator::new(EvalCtx {
                now: ctx.now,
                tz: ctx.tz,
            }),
        })
    }
}

impl Op for EvalOp {
    fn push(&mut self, mut rows: Vec<Row>, out: &mut Vec<Row>) -> Result<Flow, SearchError> {
        for r in rows.iter_mut() {
            for (name, e) in &self.assigns {
                let v = self.ev.eval(e, r)?;
                r.set(name, v);
            }
        }
        out.append(&mut rows);
        Ok(Flow::Continue)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::tests::{ctx, num_rows};
    use lode_spl::ast::BinOp;

    #[test]
    fn assignments_in_order_and_null_removes() {
        let rows = num_rows("x", &[Some(2.0)]);
        let a = vec![
            (
                "y".to_string(),
                Expr::Binary(
                    BinOp::Mul,
                    Box::new(Expr::Field("x".into())),
                    Box::new(Expr::Num(3.0)),
                ),
            ),
            (
                "z".to_string(),
                Expr::Binary(
                    BinOp::Add,
                    Box::new(Expr::Field("y".into())),
                    Box::new(Expr::Num(1.0)),
                ),
            ),
            ("x".to_string(), Expr::Null),
        ];
        let mut op = EvalOp::new(a, ctx()).unwrap();
        let mut out = Vec::new();
        op.push(rows, &mut out).unwrap();
        assert_eq!(out[0].peek("y").unwrap().to_string(), "6");
        assert_eq!(out[0].peek("z").unwrap().to_string(), "7");
        assert!(out[0].peek("x").is_none());
    }
}
