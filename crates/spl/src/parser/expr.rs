//! `eval`/`where` expressions.
//!
//! Precedence, loosest first: `OR`, `XOR`, `AND`, `NOT`/`!` (prefix), comparisons
//! (`= == != < <= > >=`), `+ - .`, `* / %`, unary `-`, then literals, fields, calls and
//! parentheses. Binary operators associate to the left. Every node's height is tracked so
//! long operator chains are refused beyond [`MAX_DEPTH`] like deep parentheses are (the tree is
//! later walked recursively by the printer and the engine).

use super::{Parser, Result, MAX_DEPTH};
use crate::ast::{BinOp, CmpOp, Expr, Span, UnaryOp};
use crate::error::ParseError;
use crate::lexer::{Mode, Op, Tok, Token};

const M: Mode = Mode::Expr;

/// An expression and the height of its tree (a leaf is 1).
type Node = (Expr, u32);

impl Parser<'_> {
    /// An expression up to something it cannot continue with (`,`, `)`, `|`, end, …).
    pub(super) fn expr(&mut self) -> Result<Expr> {
        Ok(self.expr_or()?.0)
    }

    /// Whether `t` is the keyword `kw` (uppercase only).
    fn is_expr_kw(&self, t: &Token, kw: &str) -> bool {
        t.kind == Tok::Word && self.text(t) == kw
    }

    /// Joins `l op r`, refusing trees taller than [`MAX_DEPTH`].
    fn join(&self, op: BinOp, l: Node, r: Node, at: Span) -> Result<Node> {
        let height = 1 + l.1.max(r.1);
        if height > MAX_DEPTH {
            return Err(ParseError::new(
                format!("The expression is nested too deeply (more than {MAX_DEPTH} levels)."),
                at,
            ));
        }
        Ok((Expr::Binary(op, Box::new(l.0), Box::new(r.0)), height))
    }

    /// After operator token `op`, an operand must follow.
    fn operand_follows(&self, op: &Token) -> Result<()> {
        let t = self.peek(M)?;
        if matches!(t.kind, Tok::Pipe | Tok::Eof | Tok::RParen | Tok::Comma) {
            return Err(ParseError::new(
                format!("Expected an expression after '{}'.", self.text(op)),
                op.span,
            ));
        }
        Ok(())
    }

    /// One left-associative level: `next (op next)*` where `op_of` recognises this level's
    /// operators.
    fn level(
        &mut self,
        next: fn(&mut Self) -> Result<Node>,
        op_of: fn(&Self, &Token) -> Option<BinOp>,
    ) -> Result<Node> {
        let mut left = next(self)?;
        loop {
            let t = self.peek(M)?;
            let Some(op) = op_of(self, &t) else {
                return Ok(left);
            };
            self.pos = t.span.end;
            self.operand_follows(&t)?;
            let right = next(self)?;
            left = self.join(op, left, right, t.span)?;
        }
    }

    fn expr_or(&mut self) -> Result<Node> {
        self.level(Self::expr_xor, |p, t| {
            p.is_expr_kw(t, "OR").then_some(BinOp::Or)
        })
    }

    fn expr_xor(&mut self) -> Result<Node> {
        self.level(Self::expr_and, |p, t| {
            p.is_expr_kw(t, "XOR").then_some(BinOp::Xor)
        })
    }

    fn expr_and(&mut self) -> Result<Node> {
        self.level(Self::expr_not, |p, t| {
            p.is_expr_kw(t, "AND").then_some(BinOp::And)
        })
    }

    fn expr_not(&mut self) -> Result<Node> {
        let t = self.peek(M)?;
        if !(self.is_expr_kw(&t, "NOT") || t.kind == Tok::Op(Op::Bang)) {
            return self.expr_cmp();
        }
        self.pos = t.span.end;
        self.operand_follows(&t)?;
        self.enter(t.span)?;
        let (inner, h) = self.expr_not()?;
        self.leave();
        Ok((Expr::Unary(UnaryOp::Not, Box::new(inner)), h + 1))
    }

    fn expr_cmp(&mut self) -> Result<Node> {
        self.level(Self::expr_add, |_, t| match t.kind {
            Tok::Op(Op::Eq | Op::EqEq) => Some(BinOp::Cmp(CmpOp::Eq)),
            Tok::Op(Op::Ne) => Some(BinOp::Cmp(CmpOp::Ne)),
            Tok::Op(Op::Lt) => Some(BinOp::Cmp(CmpOp::Lt)),
            Tok::Op(Op::Le) => Some(BinOp::Cmp(CmpOp::Le)),
            Tok::Op(Op::Gt) => Some(BinOp::Cmp(CmpOp::Gt)),
            Tok::Op(Op::Ge) => Some(BinOp::Cmp(CmpOp::Ge)),
            _ => None,
        })
    }

    fn expr_add(&mut self) -> Result<Node> {
        self.level(Self::expr_mul, |_, t| match t.kind {
            Tok::Op(Op::Plus) => Some(BinOp::Add),
            Tok::Op(Op::Minus) => Some(BinOp::Sub),
            Tok::Op(Op::Dot) => Some(BinOp::Concat),
            _ => None,
        })
    }

    fn expr_mul(&mut self) -> Result<Node> {
        self.level(Self::expr_unary, |_, t| match t.kind {
            Tok::Op(Op::Star) => Some(BinOp::Mul),
            Tok::Op(Op::Slash) => Some(BinOp::Div),
            Tok::Op(Op::Percent) => Some(BinOp::Mod),
            _ => None,
        })
    }

    /// Unary minus; `-` directly before a number is folded into a negative literal.
    fn expr_unary(&mut self) -> Result<Node> {
        let t = self.peek(M)?;
        if t.kind != Tok::Op(Op::Minus) {
            return self.expr_primary();
        }
        self.pos = t.span.end;
        self.operand_follows(&t)?;
        let next = self.peek(M)?;
        if let Tok::Num(v) = next.kind {
            self.pos = next.span.end;
            return Ok((Expr::Num(-v), 1));
        }
        self.enter(t.span)?;
        let (inner, h) = self.expr_unary()?;
        self.leave();
        Ok((Expr::Unary(UnaryOp::Neg, Box::new(inner)), h + 1))
    }

    fn expr_primary(&mut self) -> Result<Node> {
        let t = self.bump(M)?;
        match t.kind {
            Tok::Num(v) => Ok((Expr::Num(v), 1)),
            Tok::Str(s) => Ok((Expr::Str(s), 1)),
            Tok::Quoted(s) => Ok((Expr::Field(s), 1)),
            Tok::LParen => {
                self.enter(t.span)?;
                if self.peek(M)?.kind == Tok::RParen {
                    return Err(ParseError::new("Empty parentheses.", t.span));
                }
                let inner = self.expr_or()?;
                if self.bump(M)?.kind != Tok::RParen {
                    return Err(ParseError::new("Unbalanced parentheses.", t.span));
                }
                self.leave();
                Ok(inner)
            }
            Tok::Word => self.expr_word(t),
            Tok::Pipe | Tok::Eof => Err(ParseError::new("Expected an expression.", t.span)),
            _ => Err(ParseError::new(
                format!("Expected an expression, found '{}'.", self.text(&t)),
                t.span,
            )),
        }
    }

    /// An identifier: a keyword out of place, a call, or a field.
    fn expr_word(&mut self, t: Token) -> Result<Node> {
        let text = self.text(&t);
        if matches!(text, "AND" | "OR" | "XOR" | "NOT") {
            return Err(ParseError::new(
                format!("Expected an expression before '{text}'."),
                t.span,
            ));
        }
        let open = self.peek(M)?;
        if open.kind != Tok::LParen {
            return Ok((Expr::Field(text.to_string()), 1));
        }
        self.pos = open.span.end;
        let name = text.to_lowercase();
        self.enter(open.span)?;
        let mut args = Vec::new();
        let mut height = 0;
        if self.peek(M)?.kind == Tok::RParen {
            self.pos = self.peek(M)?.span.end;
        } else {
            loop {
                let (arg, h) = self.expr_or()?;
                args.push(arg);
                height = height.max(h);
                let sep = self.bump(M)?;
                match sep.kind {
                    Tok::Comma => {
                        if self.peek(M)?.kind == Tok::RParen {
                            return Err(ParseError::new(
                                format!("Expected an argument after ',' in '{name}()'."),
                                sep.span,
                            ));
                        }
                    }
                    Tok::RParen => break,
                    Tok::Eof | Tok::Pipe => {
                        return Err(ParseError::new("Unbalanced parentheses.", open.span))
                    }
                    _ => {
                        return Err(ParseError::new(
                            format!(
                                "Expected ',' or ')' in '{name}()', found '{}'.",
                                self.text(&sep)
                            ),
                            sep.span,
                        ))
                    }
                }
            }
        }
        self.leave();
        if name == "null" && args.is_empty() {
            return Ok((Expr::Null, 1));
        }
        Ok((Expr::Call(name, args), height + 1))
    }
}
