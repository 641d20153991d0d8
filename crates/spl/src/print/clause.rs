//! Search clauses and `eval`/`where` expressions, with only the parentheses precedence needs.

use std::fmt::Write;

use super::sep;
use crate::ast::{BinOp, CmpOp, Expr, SearchExpr, TimeBound, UnaryOp};
use crate::lexer::{ident_end, is_word, push_quoted, Mode};

/// Where a search node sits, for deciding parentheses.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ctx {
    /// The whole clause.
    Top,
    /// An item of an `AND` list.
    And,
    /// An item of an `OR` list.
    Or,
    /// The operand of `NOT`.
    Not,
}

pub(super) fn search(out: &mut String, e: &SearchExpr, ctx: Ctx) {
    match e {
        SearchExpr::And(items) if items.is_empty() => out.push_str("()"),
        SearchExpr::And(items) | SearchExpr::Or(items) => {
            let is_and = matches!(e, SearchExpr::And(_));
            let parens = ctx == Ctx::Not || ctx == Ctx::Or || (is_and && ctx == Ctx::And);
            let (joiner, inner) = if is_and {
                (" ", Ctx::And)
            } else {
                (" OR ", Ctx::Or)
            };
            if parens {
                out.push('(');
            }
            for (i, item) in items.iter().enumerate() {
                sep(out, i, joiner);
                search(out, item, inner);
            }
            if parens {
                out.push(')');
            }
        }
        SearchExpr::Not(inner) => {
            out.push_str("NOT ");
            search(out, inner, Ctx::Not);
        }
        SearchExpr::Term(t) => {
            let directive = if t.whole {
                Some("TERM(")
            } else if t.case {
                Some("CASE(")
            } else {
                None
            };
            if let Some(d) = directive {
                out.push_str(d);
            }
            // Inside TERM()/CASE() any word is a term, `AND`/`OR`/`NOT` included.
            let bare = !t.quoted
                && is_word(&t.text, Mode::Search)
                && (directive.is_some() || !matches!(t.text.as_str(), "AND" | "OR" | "NOT"));
            if bare {
                out.push_str(&t.text);
            } else {
                push_quoted(out, &t.text, '"');
            }
            if directive.is_some() {
                out.push(')');
            }
        }
        SearchExpr::Compare {
            field,
            op,
            value,
            quoted,
        } => {
            out.push_str(field);
            out.push_str(cmp_op(*op));
            search_value(out, value, *quoted);
        }
        SearchExpr::TimeBound { bound, value } => {
            out.push_str(match bound {
                TimeBound::Earliest => "earliest=",
                TimeBound::Latest => "latest=",
            });
            search_value(out, value, false);
        }
    }
}

fn search_value(out: &mut String, value: &str, quoted: bool) {
    if !quoted && is_word(value, Mode::Search) {
        out.push_str(value);
    } else {
        push_quoted(out, value, '"');
    }
}

fn is_keyword(s: &str) -> bool {
    matches!(s, "AND" | "OR" | "NOT" | "XOR")
}

fn cmp_op(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Eq => "=",
        CmpOp::Ne => "!=",
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
    }
}

/// Binding strength of an expression node (higher binds tighter).
fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Binary(op, _, _) => bin_prec(*op),
        Expr::Unary(UnaryOp::Not, _) => 4,
        Expr::Unary(UnaryOp::Neg, _) => 8,
        _ => 9,
    }
}

fn bin_prec(op: BinOp) -> u8 {
    match op {
        BinOp::Or => 1,
        BinOp::Xor => 2,
        BinOp::And => 3,
        BinOp::Cmp(_) => 5,
        BinOp::Add | BinOp::Sub | BinOp::Concat => 6,
        BinOp::Mul | BinOp::Div | BinOp::Mod => 7,
    }
}

/// Writes `e`, in parentheses if it binds looser than `min`.
pub(super) fn expr(out: &mut String, e: &Expr, min: u8) {
    let own = prec(e);
    if own < min {
        out.push('(');
    }
    match e {
        Expr::Str(s) => push_quoted(out, s, '"'),
        Expr::Num(v) => push_num(out, *v),
        Expr::Bool(b) => out.push_str(if *b { "true()" } else { "false()" }),
        Expr::Null => out.push_str("null()"),
        Expr::Field(name) => {
            let bare = !name.is_empty() && ident_end(name, 0) == name.len() && !is_keyword(name);
            if bare {
                out.push_str(name);
            } else {
                push_quoted(out, name, '\'');
            }
        }
        Expr::Unary(UnaryOp::Not, inner) => {
            out.push_str("NOT ");
            expr(out, inner, 4);
        }
        Expr::Unary(UnaryOp::Neg, inner) => {
            out.push('-');
            // `-1` would read back as the literal -1, so a negated number keeps its parentheses.
            expr(
                out,
                inner,
                if matches!(**inner, Expr::Num(_)) {
                    10
                } else {
                    8
                },
            );
        }
        Expr::Binary(op, l, r) => {
            expr(out, l, own);
            out.push(' ');
            out.push_str(match op {
                BinOp::Or => "OR",
                BinOp::Xor => "XOR",
                BinOp::And => "AND",
                BinOp::Cmp(c) => cmp_op(*c),
                BinOp::Add => "+",
                BinOp::Sub => "-",
                BinOp::Concat => ".",
                BinOp::Mul => "*",
                BinOp::Div => "/",
                BinOp::Mod => "%",
            });
            out.push(' ');
            expr(out, r, own + 1);
        }
        Expr::Call(name, args) => {
            out.push_str(name);
            out.push('(');
            for (i, a) in args.iter().enumerate() {
                sep(out, i, ", ");
                expr(out, a, 0);
            }
            out.push(')');
        }
    }
    if own < min {
        out.push(')');
    }
}

/// A number that reads back to the same `f64`: plain digits in the usual range, exponent
/// notation for very large or small magnitudes.
fn push_num(out: &mut String, v: f64) {
    let a = v.abs();
    if a != 0.0 && !(1e-6..1e16).contains(&a) {
        let _ = write!(out, "{v:e}");
    } else {
        let _ = write!(out, "{v}");
    }
}
